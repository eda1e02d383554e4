/* passes/pipeline.c - textual pass pipelines (MLIR's PassRegistry.cpp parser).
 *
 *   pipeline ::= element (',' element)*
 *   element  ::= pass-name ('{' options '}')?          a pass
 *              | op-name '(' pipeline? ')'            a nested pass manager
 *   options  ::= (name ('=' value)?)*                  space separated; a bare name sets a bool
 *   value    ::= "quoted" | 'quoted' | {braced} | word  quotes and braces are stripped
 *
 * Errors are diagnostics at loc("<pipeline>":1:col), col counting from 1 in the text handed to
 * kr_pass_manager_parse_pipeline; the text is registered as the source "<pipeline>" while it is
 * parsed so that printed diagnostics show it with a caret. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"
#include "passes/pass_impl.h"

#define PIPELINE_FILE "<pipeline>"

static kr_status perr(kr_context *ctx, size_t col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static kr_status perr(kr_context *ctx, size_t col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_diagnostic *d = kr_diag_vbegin(ctx, KR_SEV_ERROR, kr_loc_file(ctx, PIPELINE_FILE, 1, (unsigned)col), fmt, ap);
  va_end(ap);
  kr_diag_report(d);
  return KR_FAILURE;
}

/* ---------------------------------------------------------------------------------------------
 * Option values. */

static const char *kind_name(kr_option_kind k) {
  switch (k) {
  case KR_OPT_BOOL: return "boolean";
  case KR_OPT_INT: return "integer";
  case KR_OPT_UINT: return "unsigned integer";
  case KR_OPT_DOUBLE: return "floating-point";
  case KR_OPT_STRING: return "string";
  }
  return "?";
}

/* Parses `v[0..len)` as an option of kind `k` into `slot`.  Accepts LLVM cl's spellings. */
static bool parse_value(kr_context *ctx, kr_option_kind k, const char *v, size_t len, void *slot) {
  char buf[128];
  if (k == KR_OPT_STRING) {
    *(const char **)slot = kr_ident_get(ctx, v, len);
    return true;
  }
  if (len == 0 || len >= sizeof buf) return false;
  memcpy(buf, v, len);
  buf[len] = 0;
  char *end = NULL;
  errno = 0;
  switch (k) {
  case KR_OPT_BOOL:
    if (!strcmp(buf, "true") || !strcmp(buf, "TRUE") || !strcmp(buf, "True") || !strcmp(buf, "1")) {
      *(bool *)slot = true;
      return true;
    }
    if (!strcmp(buf, "false") || !strcmp(buf, "FALSE") || !strcmp(buf, "False") || !strcmp(buf, "0")) {
      *(bool *)slot = false;
      return true;
    }
    return false;
  case KR_OPT_INT: {
    long long x = strtoll(buf, &end, 0);
    if (errno || *end || isspace((unsigned char)buf[0])) return false;
    *(int64_t *)slot = (int64_t)x;
    return true;
  }
  case KR_OPT_UINT: {
    if (buf[0] == '-' || buf[0] == '+' || isspace((unsigned char)buf[0])) return false;
    unsigned long long x = strtoull(buf, &end, 0);
    if (errno || *end) return false;
    *(uint64_t *)slot = (uint64_t)x;
    return true;
  }
  case KR_OPT_DOUBLE: {
    double x = strtod(buf, &end);
    if (errno == ERANGE || *end || isspace((unsigned char)buf[0])) return false;
    *(double *)slot = x;
    return true;
  }
  case KR_OPT_STRING: break;
  }
  return false;
}

static const kr_pass_option *find_option(const kr_pass_def *def, const char *name, size_t len) {
  for (unsigned i = 0; i < def->num_options; i++) {
    const char *n = def->options[i].name;
    if (strlen(n) == len && memcmp(n, name, len) == 0) return &def->options[i];
  }
  return NULL;
}

/* Parses `name=value name2=value` into inst->options. */
static kr_status apply_option_text(kr_context *ctx, kr_pass_instance *inst, const char *s, size_t len, unsigned col0) {
  const kr_pass_def *def = inst->def;
  size_t i = 0;
  while (i < len) {
    if (isspace((unsigned char)s[i])) { i++; continue; }
    size_t kstart = i;
    while (i < len && s[i] != '=' && !isspace((unsigned char)s[i])) i++;
    size_t klen = i - kstart;
    if (klen == 0) return perr(ctx, col0 + kstart, "expected an option name before '='");
    const kr_pass_option *opt = find_option(def, s + kstart, klen);
    if (!opt)
      return perr(ctx, col0 + kstart, "no such option '%.*s' for pass '%s'", (int)klen, s + kstart, def->argument);
    void *slot = (char *)inst->options + opt->offset;
    if (i >= len || s[i] != '=') {
      /* A bare name is a flag (LLVM cl: `-top-down` means true). */
      if (opt->kind != KR_OPT_BOOL)
        return perr(ctx, col0 + kstart, "missing value for %s option '%s' of pass '%s'", kind_name(opt->kind),
                    opt->name, def->argument);
      *(bool *)slot = true;
      continue;
    }
    i++;   /* '=' */
    size_t vstart = i, vlen;
    const char *v = s + i;
    if (i < len && (s[i] == '"' || s[i] == '\'')) {
      char q = s[i++];
      size_t b = i;
      while (i < len && s[i] != q) i++;
      if (i >= len) return perr(ctx, col0 + vstart, "missing closing %c in the value of option '%s'", q, opt->name);
      v = s + b;
      vlen = i - b;
      i++;
    } else if (i < len && s[i] == '{') {
      int depth = 0;
      size_t b = i + 1;
      for (; i < len; i++) {
        if (s[i] == '{') depth++;
        else if (s[i] == '}' && --depth == 0) break;
      }
      if (i >= len) return perr(ctx, col0 + vstart, "missing closing '}' in the value of option '%s'", opt->name);
      v = s + b;
      vlen = i - b;
      i++;
    } else {
      while (i < len && !isspace((unsigned char)s[i])) i++;
      vlen = i - vstart;
    }
    if (!parse_value(ctx, opt->kind, v, vlen, slot))
      return perr(ctx, col0 + vstart, "invalid value '%.*s' for %s option '%s'", (int)vlen, v, kind_name(opt->kind),
                  opt->name);
  }
  return KR_SUCCESS;
}

kr_status kr__pass_instance_init(kr_context *ctx, kr_pass_instance *inst, const kr_pass_def *def,
                                 const char *opts, size_t len, unsigned col0) {
  inst->def = def;
  inst->options = NULL;
  if (def->options_size) {
    inst->options = calloc(1, def->options_size);
    if (!inst->options) return kr_emit_error(ctx, ctx->unknown_loc, "out of memory");
  }
  for (unsigned i = 0; i < def->num_options; i++) {
    const kr_pass_option *o = &def->options[i];
    if (!o->default_value) continue;   /* zero / false / NULL */
    if (!parse_value(ctx, o->kind, o->default_value, strlen(o->default_value), (char *)inst->options + o->offset)) {
      kr__pass_instance_free(inst);
      return kr_emit_error(ctx, ctx->unknown_loc, "pass '%s': invalid default value '%s' for option '%s'",
                           def->argument, o->default_value, o->name);
    }
  }
  if (opts && KR_FAILED(apply_option_text(ctx, inst, opts, len, col0))) {
    kr__pass_instance_free(inst);
    return KR_FAILURE;
  }
  return KR_SUCCESS;
}

void kr__pass_instance_free(kr_pass_instance *inst) {
  free(inst->options);
  inst->options = NULL;
}

static void print_double(kr_ostream *os, double d) {
  char buf[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (strtod(buf, NULL) == d) break;
  }
  kr_ostream_puts(os, buf);
}

static bool string_needs_braces(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (isspace((unsigned char)*s) || strchr(",(){}=\"'", *s)) return true;
  return false;
}

static int cmp_opt_ptr(const void *a, const void *b) {
  const kr_pass_option *x = *(const kr_pass_option *const *)a, *y = *(const kr_pass_option *const *)b;
  return strcmp(x->name, y->name);
}

void kr__pass_instance_print(const kr_pass_instance *inst, kr_ostream *os) {
  const kr_pass_def *def = inst->def;
  kr_ostream_puts(os, def->argument);
  if (!def->num_options) return;
  const kr_pass_option **sorted = malloc(def->num_options * sizeof(*sorted));
  if (!sorted) return;
  for (unsigned i = 0; i < def->num_options; i++) sorted[i] = &def->options[i];
  qsort(sorted, def->num_options, sizeof(*sorted), cmp_opt_ptr);
  kr_ostream_putc(os, '{');
  for (unsigned i = 0; i < def->num_options; i++) {
    const kr_pass_option *o = sorted[i];
    const void *slot = (const char *)inst->options + o->offset;
    if (i) kr_ostream_putc(os, ' ');
    kr_ostream_printf(os, "%s=", o->name);
    switch (o->kind) {
    case KR_OPT_BOOL: kr_ostream_puts(os, *(const bool *)slot ? "true" : "false"); break;
    case KR_OPT_INT: kr_ostream_printf(os, "%" PRId64, *(const int64_t *)slot); break;
    case KR_OPT_UINT: kr_ostream_printf(os, "%" PRIu64, *(const uint64_t *)slot); break;
    case KR_OPT_DOUBLE: print_double(os, *(const double *)slot); break;
    case KR_OPT_STRING: {
      const char *s = *(const char *const *)slot;
      if (!s) break;
      if (string_needs_braces(s)) kr_ostream_printf(os, "{%s}", s);
      else kr_ostream_puts(os, s);
      break;
    }
    }
  }
  kr_ostream_putc(os, '}');
  free(sorted);
}

/* ---------------------------------------------------------------------------------------------
 * Pipeline text -> element tree. */

typedef struct pelem {
  const char *name;
  size_t name_len;
  size_t pos;               /* offset of the name */
  const char *opts;         /* between the braces, or NULL */
  size_t opts_len, opts_pos;
  bool nested;              /* name(...) */
  kr_vec children;          /* pelem */
} pelem;

typedef struct pparser {
  kr_context *ctx;
  const char *s;
  size_t len, i;
} pparser;

static void free_elems(kr_vec *v) {
  for (size_t i = 0; i < v->len; i++) free_elems(&KR_VEC_AT(v, pelem, i).children);
  kr_vec_free(v);
}

static bool is_name_char(char c) {
  return c && !isspace((unsigned char)c) && !strchr(",(){}", c);
}

static void skip_ws(pparser *p) {
  while (p->i < p->len && isspace((unsigned char)p->s[p->i])) p->i++;
}

/* Parses a comma-separated list into `out`; stops before ')' or at the end. */
static kr_status parse_list(pparser *p, kr_vec *out, int depth) {
  for (;;) {
    skip_ws(p);
    pelem e;
    memset(&e, 0, sizeof e);
    e.pos = p->i;
    e.name = p->s + p->i;
    while (p->i < p->len && is_name_char(p->s[p->i])) p->i++;
    e.name_len = (size_t)(p->s + p->i - e.name);
    if (e.name_len == 0) {
      /* `anchor()` is an empty nested pipeline. */
      if (depth > 0 && out->len == 0 && p->i < p->len && p->s[p->i] == ')') return KR_SUCCESS;
      if (p->i < p->len && p->s[p->i] == ')' && depth == 0)
        return perr(p->ctx, p->i + 1, "encountered extra closing ')' creating unbalanced parentheses while parsing pipeline");
      return perr(p->ctx, p->i + 1, "'' does not refer to a registered pass");
    }
    skip_ws(p);
    if (p->i < p->len && p->s[p->i] == '{') {
      size_t open = p->i;
      int braces = 0;
      char quote = 0;
      for (; p->i < p->len; p->i++) {
        char c = p->s[p->i];
        if (quote) {
          if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '{') {
          braces++;
        } else if (c == '}' && --braces == 0) {
          break;
        }
      }
      if (p->i >= p->len) {
        free_elems(&e.children);
        return perr(p->ctx, open + 1, "missing closing '}' while processing pass options");
      }
      e.opts = p->s + open + 1;
      e.opts_len = p->i - open - 1;
      e.opts_pos = open + 1;
      p->i++;
      skip_ws(p);
    }
    if (p->i < p->len && p->s[p->i] == '(') {
      size_t open = p->i;
      if (e.opts) return perr(p->ctx, open + 1, "unexpected '(' after the options of '%.*s'", (int)e.name_len, e.name);
      e.nested = true;
      p->i++;
      if (KR_FAILED(parse_list(p, &e.children, depth + 1))) {
        free_elems(&e.children);
        return KR_FAILURE;
      }
      if (p->i >= p->len || p->s[p->i] != ')') {
        free_elems(&e.children);
        return perr(p->ctx, open + 1, "encountered unbalanced parentheses while parsing pipeline");
      }
      p->i++;
      skip_ws(p);
    }
    kr_vec_push(out, &e, sizeof e);
    if (p->i >= p->len) return KR_SUCCESS;
    char c = p->s[p->i];
    if (c == ',') {
      p->i++;
      continue;
    }
    if (c == ')') {
      if (depth == 0)
        return perr(p->ctx, p->i + 1, "encountered extra closing ')' creating unbalanced parentheses while parsing pipeline");
      return KR_SUCCESS;
    }
    if (c == '}') return perr(p->ctx, p->i + 1, "unexpected '}' while parsing pipeline");
    return perr(p->ctx, p->i + 1, "expected ',' after '%.*s'", (int)e.name_len, e.name);
  }
}

/* ---------------------------------------------------------------------------------------------
 * Element tree -> pass manager entries. */

static void adopt_children(kr_pass_manager *pm) {
  for (size_t i = 0; i < pm->entries.len; i++) {
    kr_pm_entry *e = &KR_VEC_AT(&pm->entries, kr_pm_entry, i);
    if (!e->nested) continue;
    e->nested->parent = pm;
    e->nested->config = pm->config;
    adopt_children(e->nested);
  }
}

kr_pass_manager *kr__pass_manager_nest_new(kr_pass_manager *pm, const char *anchor, size_t len) {
  kr_pass_manager *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->ctx = pm->ctx;
  n->anchor = kr_ident_get(pm->ctx, anchor, len);
  n->parent = pm;
  n->config = pm->config;
  kr_pm_entry e;
  memset(&e, 0, sizeof e);
  e.nested = n;
  kr_vec_push(&pm->entries, &e, sizeof e);
  return n;
}

static kr_status build(kr_pass_manager *pm, const kr_vec *elems) {
  kr_context *ctx = pm->ctx;
  for (size_t i = 0; i < elems->len; i++) {
    const pelem *e = &KR_VEC_AT(elems, pelem, i);
    if (e->nested) {
      kr_ident name = kr_ident_get(ctx, e->name, e->name_len);
      const kr_op_def *od = kr_context_lookup_op(ctx, name);
      if (od && !(od->traits & KR_TRAIT_ISOLATED_FROM_ABOVE))
        return perr(ctx, e->pos + 1, "can't nest a pass pipeline on '%s': the op is not isolated from above", name);
      if (!od && kr_context_lookup_pass(ctx, e->name, e->name_len))
        return perr(ctx, e->pos + 1, "'%s' is a pass, not an operation name: it cannot anchor a nested pipeline", name);
      kr_pass_manager *n = kr__pass_manager_nest_new(pm, e->name, e->name_len);
      if (!n) return kr_emit_error(ctx, ctx->unknown_loc, "out of memory");
      if (KR_FAILED(build(n, &e->children))) return KR_FAILURE;
      continue;
    }
    const kr_pass_def *def = kr_context_lookup_pass(ctx, e->name, e->name_len);
    if (!def) return perr(ctx, e->pos + 1, "'%.*s' does not refer to a registered pass", (int)e->name_len, e->name);
    kr_pm_entry ent;
    memset(&ent, 0, sizeof ent);
    if (KR_FAILED(kr__pass_instance_init(ctx, &ent.pass, def, e->opts, e->opts_len, (unsigned)e->opts_pos + 1)))
      return KR_FAILURE;
    kr_vec_push(&pm->entries, &ent, sizeof ent);
  }
  return KR_SUCCESS;
}

/* Parses `text` and appends it to `pm`; all or nothing. */
static kr_status parse_into(kr_pass_manager *pm, const char *text, size_t len) {
  kr_context *ctx = pm->ctx;
  pparser p = {ctx, text, len, 0};
  kr_vec elems = {0};
  kr_status st = KR_SUCCESS;
  kr_context_add_source(ctx, PIPELINE_FILE, text, len);
  skip_ws(&p);
  if (p.i < len) st = parse_list(&p, &elems, 0);
  if (!KR_FAILED(st)) {
    /* `anchor(...)` naming this manager's own op wraps the whole pipeline. */
    const kr_vec *list = &elems;
    if (elems.len == 1) {
      const pelem *e = &KR_VEC_AT(&elems, pelem, 0);
      if (e->nested && kr_ident_get(ctx, e->name, e->name_len) == pm->anchor) list = &e->children;
    }
    kr_pass_manager *tmp = kr_pass_manager_create(ctx, pm->anchor);
    st = build(tmp, list);
    if (!KR_FAILED(st)) {
      for (size_t i = 0; i < tmp->entries.len; i++)
        kr_vec_push(&pm->entries, &KR_VEC_AT(&tmp->entries, kr_pm_entry, i), sizeof(kr_pm_entry));
      tmp->entries.len = 0;
      adopt_children(pm);
    }
    kr_pass_manager_destroy(tmp);
  }
  kr_context_remove_source(ctx, PIPELINE_FILE);
  free_elems(&elems);
  return st;
}

kr_status kr_pass_manager_parse_pipeline(kr_pass_manager *pm, const char *text) {
  return parse_into(pm, text, strlen(text));
}

kr_status kr_pass_manager_add_pass(kr_pass_manager *pm, const char *name, const char *options) {
  kr_context *ctx = pm->ctx;
  const kr_pass_def *def = kr_context_lookup_pass(ctx, name, strlen(name));
  if (!def) return kr_emit_error(ctx, ctx->unknown_loc, "'%s' does not refer to a registered pass", name);
  /* Spell it as pipeline text so option errors point into `name{options}`. */
  size_t nl = strlen(name), ol = options ? strlen(options) : 0;
  char *text = malloc(nl + ol + 3);
  if (!text) return kr_emit_error(ctx, ctx->unknown_loc, "out of memory");
  memcpy(text, name, nl);
  text[nl] = '{';
  if (ol) memcpy(text + nl + 1, options, ol);
  text[nl + 1 + ol] = '}';
  text[nl + 2 + ol] = 0;
  kr_pm_entry ent;
  memset(&ent, 0, sizeof ent);
  kr_context_add_source(ctx, PIPELINE_FILE, text, nl + ol + 2);
  kr_status st = kr__pass_instance_init(ctx, &ent.pass, def, options, ol, (unsigned)nl + 2);
  kr_context_remove_source(ctx, PIPELINE_FILE);
  free(text);
  if (KR_FAILED(st)) return st;
  kr_vec_push(&pm->entries, &ent, sizeof ent);
  return KR_SUCCESS;
}

static void print_entries(kr_pass_manager *pm, kr_ostream *os) {
  kr_ostream_printf(os, "%s(", pm->anchor);
  for (size_t i = 0; i < pm->entries.len; i++) {
    kr_pm_entry *e = &KR_VEC_AT(&pm->entries, kr_pm_entry, i);
    if (i) kr_ostream_putc(os, ',');
    if (e->nested) print_entries(e->nested, os);
    else kr__pass_instance_print(&e->pass, os);
  }
  kr_ostream_putc(os, ')');
}

void kr_pass_manager_print_pipeline(kr_pass_manager *pm, kr_ostream *os) { print_entries(pm, os); }
