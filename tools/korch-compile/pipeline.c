/* tools/korch-compile/pipeline.c - the pass pipeline korch-compile runs, split into top-level
 * elements so that each stage (op-to-prim and rewrites, orchestrate, schedule, plan) runs as its
 * own pass manager: timed on its own and reported with -v, and so that the orchestrate pass can be
 * given the report/view-graph/time-limit/profile-db options of the command line
 * (docs/Compile.md).  The grammar is passes/pipeline.c's; only nesting is checked here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

const char *const kc_stage_names[KC_NUM_STAGES] = {
    "import",     "op-to-prim+rewrites", "orchestrate", "schedule",        "plan",
    "candidates", "codegen (PTX)",       "ptxas",       "graph.svg (dot)", "write"};

const char kc_default_pipeline[] = "op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,"
                                   "canonicalize,cse,orchestrate,schedule,lower-task-mappings,plan-buffers";

static bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

size_t kc_pass_name_len(const char *text) {
  size_t n = 0;
  while (is_name_char(text[n])) n++;
  return n;
}

static bool name_is(const char *text, const char *name) {
  size_t n = kc_pass_name_len(text);
  return n == strlen(name) && !strncmp(text, name, n);
}

static kc_stage stage_of(const char *text, kc_stage prev) {
  size_t n = kc_pass_name_len(text);
  if (name_is(text, "op-to-prim") || (n > 5 && !strncmp(text, "prim-", 5))) return KC_PRIM;
  if (name_is(text, "orchestrate")) return KC_ORCHESTRATE;
  if (name_is(text, "schedule") || name_is(text, "lower-task-mappings")) return KC_SCHEDULE;
  if (n > 5 && !strncmp(text, "plan-", 5)) return KC_PLAN;
  return prev;
}

static char *trimmed(const char *s, size_t len) {
  while (len && (*s == ' ' || *s == '\t' || *s == '\n')) s++, len--;
  while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n')) len--;
  return strndup(s, len);
}

/* Index just past the end of the top-level element starting at s[i] (a ',' or the end), or -1
 * on unbalanced nesting. */
static long element_end(const char *s, size_t i, size_t len) {
  int paren = 0, brace = 0;
  char quote = 0;
  for (; i < len; i++) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (brace && (c == '"' || c == '\'')) {
      quote = c;
    } else if (c == '{') {
      brace++;
    } else if (c == '}') {
      if (--brace < 0) return -1;
    } else if (!brace && c == '(') {
      paren++;
    } else if (!brace && c == ')') {
      if (--paren < 0) return -1;
    } else if (!brace && !paren && c == ',') {
      break;
    }
  }
  return quote || paren || brace ? -1 : (long)i;
}

bool kc_pipeline_split(const char *text, kc_pipeline *out, const char **err) {
  memset(out, 0, sizeof *out);
  size_t len = strlen(text);
  /* `builtin.module(list)`: the list. */
  const char *anchor = "builtin.module";
  const char *s = text;
  while (*s == ' ') s++;
  if (!strncmp(s, anchor, strlen(anchor))) {
    const char *p = s + strlen(anchor);
    while (*p == ' ') p++;
    if (*p == '(') {
      long end = element_end(s, 0, strlen(s));
      const char *close = text + len;
      while (close > p && (close[-1] == ' ' || close[-1] == '\n')) close--;
      if (end < 0 || (size_t)end != strlen(s) || close[-1] != ')') {
        *err = "unbalanced parentheses, braces or quotes";
        return false;
      }
      text = p + 1;
      len = (size_t)(close - 1 - text);
    }
  }
  size_t i = 0;
  while (i <= len) {
    long end = element_end(text, i, len);
    if (end < 0) {
      kc_pipeline_free(out);
      *err = "unbalanced parentheses, braces or quotes";
      return false;
    }
    char *e = trimmed(text + i, (size_t)end - i);
    if (!e || !*e || !kc_pass_name_len(e)) {
      free(e);
      kc_pipeline_free(out);
      *err = "an empty element or one that does not start with a pass name";
      return false;
    }
    kc_pass *np = realloc(out->passes, (out->num + 1) * sizeof *np);
    if (!np) {
      free(e);
      kc_pipeline_free(out);
      *err = "out of memory";
      return false;
    }
    out->passes = np;
    kc_stage prev = out->num ? out->passes[out->num - 1].stage : KC_PRIM;
    out->passes[out->num++] = (kc_pass){e, stage_of(e, prev)};
    i = (size_t)end + 1;
  }
  return true;
}

void kc_pipeline_free(kc_pipeline *p) {
  for (unsigned i = 0; i < p->num; i++) free(p->passes[i].text);
  free(p->passes);
  memset(p, 0, sizeof *p);
}

void kc_pipeline_add_options(kc_pipeline *p, const char *pass, const char *opts) {
  for (unsigned i = 0; i < p->num; i++) {
    char *t = p->passes[i].text;
    if (!name_is(t, pass)) continue;
    size_t n = strlen(t), on = strlen(opts);
    char *nt = malloc(n + on + 4);
    if (!nt) continue;
    if (n && t[n - 1] == '}') /* "pass{a=1}" -> "pass{a=1 opts}" */
      snprintf(nt, n + on + 4, "%.*s %s}", (int)(n - 1), t, opts);
    else
      snprintf(nt, n + on + 4, "%s{%s}", t, opts);
    free(t);
    p->passes[i].text = nt;
  }
}

void kc_pipeline_remove(kc_pipeline *p, const char *pass) {
  unsigned k = 0;
  for (unsigned i = 0; i < p->num; i++) {
    if (name_is(p->passes[i].text, pass))
      free(p->passes[i].text);
    else
      p->passes[k++] = p->passes[i];
  }
  p->num = k;
}

void kc_pipeline_start_at(kc_pipeline *p, kc_stage stage) {
  unsigned first = 0;
  while (first < p->num && p->passes[first].stage < stage) free(p->passes[first++].text);
  memmove(p->passes, p->passes + first, (p->num - first) * sizeof *p->passes);
  p->num -= first;
}

char *kc_pipeline_join(const kc_pipeline *p, unsigned first, unsigned end) {
  size_t n = 1;
  for (unsigned i = first; i < end; i++) n += strlen(p->passes[i].text) + 1;
  char *s = malloc(n), *w = s;
  if (!s) return NULL;
  *w = 0;
  for (unsigned i = first; i < end; i++) {
    size_t l = strlen(p->passes[i].text);
    if (i > first) *w++ = ',';
    memcpy(w, p->passes[i].text, l + 1);
    w += l;
  }
  return s;
}

char *kc_quote_option(const char *value) {
  char q = strchr(value, '"') ? '\'' : '"';
  if (q == '\'' && strchr(value, '\'')) return NULL;
  size_t n = strlen(value);
  char *s = malloc(n + 3);
  if (s) snprintf(s, n + 3, "%c%s%c", q, value, q);
  return s;
}
