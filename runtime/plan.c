/* runtime/plan.c - reads and checks model.plan.xml (docs/PlanFormat.md) with libxml2.
 *
 * Safety: XML_PARSE_NONET (no network), no XML_PARSE_NOENT (entities are not substituted) and
 * any DOCTYPE is refused outright, so neither external entities nor entity expansion bombs reach
 * the reader.  Every problem is reported as "PATH:LINE: message" and leaves *plan empty. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "internal.h"

typedef struct reader {
  const char *path;
  kr_rt_error *err;
  kr_rt_plan *plan;
} reader;

static int line_of(xmlNodePtr n) { return n ? (int)xmlGetLineNo(n) : 0; }

/* "PATH:LINE: message"; returns KR_RT_ERROR. */
static kr_rt_status bad(reader *r, xmlNodePtr n, const char *fmt, ...) KR_RT_PRINTF(3, 4);
static kr_rt_status bad(reader *r, xmlNodePtr n, const char *fmt, ...) {
  char msg[1536];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return kr_rt_fail(r->err, KR_RT_ERROR, "%s:%d: %s", r->path, line_of(n), msg);
}

static bool is(xmlNodePtr n, const char *name) { return n && !xmlStrcmp(n->name, (const xmlChar *)name); }

/* The next element sibling at or after n (text and comments skipped). */
static xmlNodePtr element_from(xmlNodePtr n) {
  while (n && n->type != XML_ELEMENT_NODE) n = n->next;
  return n;
}

/* A malloc'd copy of attribute `name`, NULL when absent. */
static char *attr(xmlNodePtr n, const char *name) {
  xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
  if (!v) return NULL;
  char *s = strdup((const char *)v);
  xmlFree(v);
  return s;
}

static kr_rt_status req_str(reader *r, xmlNodePtr n, const char *name, char **out) {
  *out = attr(n, name);
  if (!*out) return bad(r, n, "<%s> lacks the required attribute '%s'", (const char *)n->name, name);
  if (!**out) return bad(r, n, "<%s> attribute '%s' is empty", (const char *)n->name, name);
  return KR_RT_OK;
}

/* Decimal, non-negative, at most 2^63-1 (docs/PlanFormat.md). */
static bool parse_u63(const char *s, uint64_t *v) {
  if (!s || !*s) return false;
  uint64_t x = 0;
  for (const char *p = s; *p; p++) {
    if (*p < '0' || *p > '9') return false;
    unsigned d = (unsigned)(*p - '0');
    if (x > (UINT64_C(0x7fffffffffffffff) - d) / 10) return false;
    x = x * 10 + d;
  }
  *v = x;
  return true;
}

static kr_rt_status num(reader *r, xmlNodePtr n, const char *name, bool required, uint64_t dflt, uint64_t *out) {
  char *s = attr(n, name);
  if (!s) {
    *out = dflt;
    if (!required) return KR_RT_OK;
    return bad(r, n, "<%s> lacks the required attribute '%s'", (const char *)n->name, name);
  }
  bool ok = parse_u63(s, out);
  kr_rt_status st = ok ? KR_RT_OK
                       : bad(r, n, "<%s> attribute %s='%s' is not a decimal number in [0, 2^63-1]",
                             (const char *)n->name, name, s);
  free(s);
  return st;
}

/* "x,y,z" of three numbers in [0, 2^32-1] (the limits are dry-run checks). */
static kr_rt_status triple(reader *r, xmlNodePtr n, const char *name, unsigned v[3]) {
  char *s = NULL;
  if (req_str(r, n, name, &s) != KR_RT_OK) {
    free(s);
    return KR_RT_ERROR;
  }
  kr_rt_status st = KR_RT_OK;
  char *p = s;
  for (int i = 0; i < 3 && st == KR_RT_OK; i++) {
    char *end = strchr(p, ',');
    if ((end != NULL) != (i < 2)) {
      st = KR_RT_ERROR;
      break;
    }
    if (end) *end = '\0';
    uint64_t x = 0;
    if (!parse_u63(p, &x) || x > 0xffffffffu) st = KR_RT_ERROR;
    v[i] = (unsigned)x;
    p = end ? end + 1 : p;
  }
  if (st != KR_RT_OK) {
    free(s);
    char *orig = attr(n, name);
    st = bad(r, n, "<%s> attribute %s='%s' is not three numbers 'x,y,z'", (const char *)n->name, name, orig);
    free(orig);
    return st;
  }
  free(s);
  return KR_RT_OK;
}

unsigned kr_rt_dtype_size(const char *d) {
  static const struct {
    const char *name;
    unsigned size;
  } table[] = {{"f32", 4}, {"f16", 2},  {"bf16", 2}, {"f64", 8},  {"i8", 1},   {"ui8", 1}, {"i16", 2},
               {"ui16", 2}, {"i32", 4}, {"ui32", 4}, {"i64", 8}, {"ui64", 8}, {"i1", 1}};
  for (size_t i = 0; d && i < sizeof table / sizeof table[0]; i++)
    if (!strcmp(d, table[i].name)) return table[i].size;
  return 0;
}

/* The region's size, for range checks. */
static uint64_t region_bytes(const kr_rt_plan *p, kr_rt_region reg) {
  return reg == KR_RT_ARENA ? p->arena_bytes : p->weights_bytes;
}

static kr_rt_status ref(reader *r, xmlNodePtr n, kr_rt_ref *out) {
  char *reg = NULL;
  if (req_str(r, n, "region", &reg) != KR_RT_OK) {
    free(reg);
    return KR_RT_ERROR;
  }
  kr_rt_status st = KR_RT_OK;
  if (!strcmp(reg, "arena"))
    out->region = KR_RT_ARENA;
  else if (!strcmp(reg, "weights"))
    out->region = KR_RT_WEIGHTS;
  else
    st = bad(r, n, "<%s> region='%s': expected 'arena' or 'weights'", (const char *)n->name, reg);
  free(reg);
  if (st != KR_RT_OK || num(r, n, "offset", true, 0, &out->offset) != KR_RT_OK ||
      num(r, n, "bytes", true, 0, &out->bytes) != KR_RT_OK)
    return KR_RT_ERROR;
  if (out->offset % r->plan->alignment)
    return bad(r, n, "<%s> offset %llu is not a multiple of the alignment %llu", (const char *)n->name,
               (unsigned long long)out->offset, (unsigned long long)r->plan->alignment);
  uint64_t size = region_bytes(r->plan, out->region);
  if (out->offset > size || out->bytes > size - out->offset)
    return bad(r, n, "<%s> range [%llu, %llu) is outside the %s (%llu bytes)", (const char *)n->name,
               (unsigned long long)out->offset, (unsigned long long)(out->offset + out->bytes),
               out->region == KR_RT_ARENA ? "arena" : "weights region", (unsigned long long)size);
  return KR_RT_OK;
}

static kr_rt_status tensor(reader *r, xmlNodePtr n, kr_rt_tensor *t, bool is_input) {
  if (!is(n, "tensor")) return bad(r, n, "unexpected <%s> (expected <tensor>)", (const char *)n->name);
  char *shape = NULL;
  if (req_str(r, n, "name", &t->name) || req_str(r, n, "dtype", &t->dtype) || req_str(r, n, "shape", &shape)) {
    free(shape);
    return KR_RT_ERROR;
  }
  unsigned es = kr_rt_dtype_size(t->dtype);
  if (!es) {
    free(shape);
    return bad(r, n, "tensor '%s': unknown dtype '%s'", t->name, t->dtype);
  }
  t->rank = 0;
  uint64_t elems = 1;
  bool ok = true, overflow = false;
  if (strcmp(shape, "scalar") != 0) {
    char *p = shape;
    for (;;) {
      char *end = strchr(p, 'x');
      if (end) *end = '\0';
      uint64_t d;
      if (t->rank == 8 || !parse_u63(p, &d)) {
        ok = false;
        break;
      }
      t->dims[t->rank++] = (int64_t)d;
      if (d && elems > UINT64_C(0x7fffffffffffffff) / d) overflow = true;
      elems *= d;
      if (!end) break;
      p = end + 1;
    }
  }
  free(shape);
  if (!ok) return bad(r, n, "tensor '%s': shape is not dims joined by 'x' (at most 8) or 'scalar'", t->name);
  if (overflow || elems > UINT64_C(0x7fffffffffffffff) / es)
    return bad(r, n, "tensor '%s': the shape's size overflows", t->name);
  if (ref(r, n, &t->ref) != KR_RT_OK) return KR_RT_ERROR;
  if (t->ref.bytes != elems * es)
    return bad(r, n, "tensor '%s': bytes=%llu but %s of this shape is %llu bytes", t->name,
               (unsigned long long)t->ref.bytes, t->dtype, (unsigned long long)(elems * es));
  if (is_input && t->ref.region != KR_RT_ARENA)
    return bad(r, n, "input '%s' must be in the arena", t->name);
  return KR_RT_OK;
}

/* A list of <tensor> children of `list` (its element already matched). */
static kr_rt_status tensors(reader *r, xmlNodePtr list, kr_rt_tensor **out, unsigned *count, bool is_input) {
  unsigned n = 0;
  for (xmlNodePtr c = element_from(list->children); c; c = element_from(c->next)) n++;
  *out = calloc(n ? n : 1, sizeof **out);
  if (!*out) return bad(r, list, "out of memory");
  *count = n;
  unsigned i = 0;
  for (xmlNodePtr c = element_from(list->children); c; c = element_from(c->next), i++) {
    if (tensor(r, c, &(*out)[i], is_input) != KR_RT_OK) return KR_RT_ERROR;
    for (unsigned j = 0; j < i; j++)
      if (!strcmp((*out)[j].name, (*out)[i].name))
        return bad(r, c, "%s '%s' is listed twice", is_input ? "input" : "output", (*out)[i].name);
  }
  return KR_RT_OK;
}

static kr_rt_status kernel(reader *r, xmlNodePtr n, kr_rt_kernel *k) {
  if (!is(n, "kernel")) return bad(r, n, "unexpected <%s> (expected <kernel>)", (const char *)n->name);
  k->line = line_of(n);
  if (req_str(r, n, "name", &k->name) != KR_RT_OK) return KR_RT_ERROR;
  k->template_name = attr(n, "template");
  uint64_t params, v;
  if (num(r, n, "params", true, 0, &params) != KR_RT_OK) return KR_RT_ERROR;
  if (params > 4096) return bad(r, n, "kernel '%s': params=%llu is implausible", k->name, (unsigned long long)params);
  k->params = (unsigned)params;
  static const char *const figs[] = {"registers", "shared-bytes", "local-bytes", "spill-bytes"};
  int64_t *dst[] = {&k->registers, &k->shared_bytes, &k->local_bytes, &k->spill_bytes};
  for (int i = 0; i < 4; i++) {
    xmlChar *present = xmlGetNoNsProp(n, (const xmlChar *)figs[i]);
    xmlFree(present);
    if (!present) {
      *dst[i] = -1;
      continue;
    }
    if (num(r, n, figs[i], true, 0, &v) != KR_RT_OK) return KR_RT_ERROR;
    *dst[i] = (int64_t)v;
  }
  return KR_RT_OK;
}

static kr_rt_status launch(reader *r, xmlNodePtr n, kr_rt_launch *l) {
  kr_rt_plan *p = r->plan;
  if (!is(n, "launch")) return bad(r, n, "unexpected <%s> (expected <launch>)", (const char *)n->name);
  l->line = line_of(n);
  char *name = NULL;
  if (req_str(r, n, "kernel", &name) != KR_RT_OK) {
    free(name);
    return KR_RT_ERROR;
  }
  unsigned k = 0;
  while (k < p->num_kernels && strcmp(p->kernels[k].name, name)) k++;
  if (k == p->num_kernels) {
    kr_rt_status st = bad(r, n, "launch of '%s', which is not in <kernels>", name);
    free(name);
    return st;
  }
  free(name);
  l->kernel = k;
  uint64_t dyn;
  if (triple(r, n, "grid", l->grid) || triple(r, n, "block", l->block) ||
      num(r, n, "dynamic-shared-bytes", false, 0, &dyn))
    return KR_RT_ERROR;
  l->dynamic_shared_bytes = dyn;
  unsigned count = 0;
  for (xmlNodePtr c = element_from(n->children); c; c = element_from(c->next)) count++;
  l->args = calloc(count ? count : 1, sizeof *l->args);
  if (!l->args) return bad(r, n, "out of memory");
  for (xmlNodePtr c = element_from(n->children); c; c = element_from(c->next)) {
    if (!is(c, "arg")) return bad(r, c, "unexpected <%s> in <launch> (expected <arg>)", (const char *)c->name);
    if (ref(r, c, &l->args[l->num_args]) != KR_RT_OK) return KR_RT_ERROR;
    l->num_args++;
  }
  if (l->num_args != p->kernels[k].params)
    return bad(r, n, "launch of '%s' has %u <arg>s but the kernel has params=%u", p->kernels[k].name, l->num_args,
               p->kernels[k].params);
  return KR_RT_OK;
}

/* DIR/FILE, FILE relative to the plan's directory. */
static kr_rt_status file_in_dir(reader *r, xmlNodePtr n, const char *file, char **out) {
  if (file[0] == '/' || strstr(file, "..")) return bad(r, n, "file '%s' must be a plain name in the plan's directory", file);
  size_t len = strlen(r->plan->dir) + strlen(file) + 2;
  *out = malloc(len);
  if (!*out) return bad(r, n, "out of memory");
  snprintf(*out, len, "%s/%s", r->plan->dir, file);
  return KR_RT_OK;
}

static kr_rt_status read_root(reader *r, xmlNodePtr root) {
  kr_rt_plan *p = r->plan;
  if (!is(root, "korch-plan")) return bad(r, root, "the root element is <%s>, expected <korch-plan>", (const char *)root->name);
  char *version = NULL;
  if (req_str(r, root, "version", &version) != KR_RT_OK) {
    free(version);
    return KR_RT_ERROR;
  }
  bool v1 = !strcmp(version, "1");
  kr_rt_status st = v1 ? KR_RT_OK : bad(r, root, "unsupported plan version '%s' (this korch-run reads version 1)", version);
  free(version);
  if (st != KR_RT_OK) return st;
  if (req_str(r, root, "function", &p->function) || req_str(r, root, "target", &p->target) ||
      req_str(r, root, "gpu-arch", &p->gpu_arch))
    return KR_RT_ERROR;

  /* The children, in the documented order; <profile> optional and last. */
  static const char *const order[] = {"ptx", "arena", "weights", "inputs", "outputs", "kernels", "launches", "profile"};
  xmlNodePtr c = element_from(root->children);
  for (int i = 0; i < 8; i++) {
    if (i == 7 && !c) break;
    if (!is(c, order[i])) {
      if (!c) return bad(r, root, "<korch-plan> lacks <%s>", order[i]);
      return bad(r, c, "unexpected <%s> (expected <%s>)", (const char *)c->name, order[i]);
    }
    char *file = NULL;
    switch (i) {
    case 0:
      if (req_str(r, c, "file", &file) || file_in_dir(r, c, file, &p->ptx_file)) st = KR_RT_ERROR;
      free(file);
      break;
    case 1:
      if (num(r, c, "bytes", true, 0, &p->arena_bytes) || num(r, c, "no-reuse-bytes", false, 0, &p->no_reuse_bytes) ||
          num(r, c, "alignment", true, 0, &p->alignment))
        st = KR_RT_ERROR;
      else if (p->alignment < 16 || (p->alignment & (p->alignment - 1)))
        /* The compiler's rule (docs/MemoryPlan.md, plan-buffers' `alignment` option): a power
         * of two >= 16, so every range can be read with 16-byte vector accesses. */
        st = bad(r, c, "alignment=%llu is not a power of two >= 16", (unsigned long long)p->alignment);
      break;
    case 2:
      if (req_str(r, c, "file", &file) || file_in_dir(r, c, file, &p->weights_file) ||
          num(r, c, "bytes", true, 0, &p->weights_bytes))
        st = KR_RT_ERROR;
      free(file);
      break;
    case 3: st = tensors(r, c, &p->inputs, &p->num_inputs, true); break;
    case 4: st = tensors(r, c, &p->outputs, &p->num_outputs, false); break;
    case 5: {
      unsigned n = 0;
      for (xmlNodePtr k = element_from(c->children); k; k = element_from(k->next)) n++;
      p->kernels = calloc(n ? n : 1, sizeof *p->kernels);
      if (!p->kernels) return bad(r, c, "out of memory");
      for (xmlNodePtr k = element_from(c->children); k && st == KR_RT_OK; k = element_from(k->next)) {
        st = kernel(r, k, &p->kernels[p->num_kernels]);
        p->num_kernels++;
        for (unsigned j = 0; st == KR_RT_OK && j + 1 < p->num_kernels; j++)
          if (!strcmp(p->kernels[j].name, p->kernels[p->num_kernels - 1].name))
            st = bad(r, k, "kernel '%s' is listed twice", p->kernels[j].name);
      }
      break;
    }
    case 6: {
      unsigned n = 0;
      for (xmlNodePtr l = element_from(c->children); l; l = element_from(l->next)) n++;
      p->launches = calloc(n ? n : 1, sizeof *p->launches);
      if (!p->launches) return bad(r, c, "out of memory");
      for (xmlNodePtr l = element_from(c->children); l && st == KR_RT_OK; l = element_from(l->next))
        st = launch(r, l, &p->launches[p->num_launches++]);
      break;
    }
    case 7: {
      char *target = NULL, *hash = NULL, *name = NULL;
      if (req_str(r, c, "target", &target) || req_str(r, c, "hash", &hash) || req_str(r, c, "name", &name))
        st = KR_RT_ERROR;
      else if (strlen(hash) != 16 || strspn(hash, "0123456789abcdef") != 16)
        st = bad(r, c, "<profile> hash='%s' is not 16 lower-case hex digits", hash);
      else if (strlen(target) >= sizeof p->profile_target || strlen(name) >= sizeof p->profile_name)
        st = bad(r, c, "<profile> target or name too long");
      else {
        p->has_profile = true;
        strcpy(p->profile_target, target);
        strcpy(p->profile_hash, hash);
        strcpy(p->profile_name, name);
      }
      free(target);
      free(hash);
      free(name);
      break;
    }
    }
    if (st != KR_RT_OK) return st;
    c = element_from(c->next);
  }
  if (c) return bad(r, c, "unexpected <%s> after <%s>", (const char *)c->name, p->has_profile ? "profile" : "launches");
  return KR_RT_OK;
}

void kr_rt_plan_free(kr_rt_plan *p) {
  if (!p) return;
  free(p->dir);
  free(p->path);
  free(p->function);
  free(p->target);
  free(p->gpu_arch);
  free(p->ptx_file);
  free(p->weights_file);
  for (unsigned i = 0; p->inputs && i < p->num_inputs; i++) free(p->inputs[i].name), free(p->inputs[i].dtype);
  for (unsigned i = 0; p->outputs && i < p->num_outputs; i++) free(p->outputs[i].name), free(p->outputs[i].dtype);
  free(p->inputs);
  free(p->outputs);
  for (unsigned i = 0; p->kernels && i < p->num_kernels; i++) free(p->kernels[i].name), free(p->kernels[i].template_name);
  free(p->kernels);
  for (unsigned i = 0; p->launches && i < p->num_launches; i++) free(p->launches[i].args);
  free(p->launches);
  memset(p, 0, sizeof *p);
}

kr_rt_status kr_rt_plan_load(const char *path, kr_rt_plan *plan, kr_rt_error *err) {
  memset(plan, 0, sizeof *plan);
  reader r = {path, err, plan};
  plan->path = strdup(path);
  const char *slash = strrchr(path, '/');
  plan->dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
  if (!plan->path || !plan->dir) {
    kr_rt_plan_free(plan);
    return kr_rt_fail(err, KR_RT_ERROR, "out of memory");
  }
  /* Read the bytes ourselves so a missing file is a plain "cannot open" message. */
  char *text;
  size_t size;
  if (kr_rt_read_file(path, &text, &size, err) != KR_RT_OK) {
    kr_rt_plan_free(plan);
    return KR_RT_ERROR;
  }
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  xmlDocPtr doc = NULL;
  kr_rt_status st = KR_RT_OK;
  if (!ctxt || size > 0x7fffffff) {
    st = kr_rt_fail(err, KR_RT_ERROR, "%s: cannot parse (out of memory or too large)", path);
  } else {
    doc = xmlCtxtReadMemory(ctxt, text, (int)size, path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc || !ctxt->wellFormed) {
      const xmlError *e = xmlCtxtGetLastError(ctxt);
      char msg[512] = "not well-formed";
      if (e && e->message) {
        snprintf(msg, sizeof msg, "%s", e->message);
        size_t n = strlen(msg);
        while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = '\0';
      }
      st = kr_rt_fail(err, KR_RT_ERROR, "%s:%d: malformed XML: %s", path, e ? e->line : 0, msg);
    } else if (doc->intSubset || doc->extSubset) {
      st = bad(&r, xmlDocGetRootElement(doc), "a DOCTYPE is not allowed in a plan");
    } else {
      st = read_root(&r, xmlDocGetRootElement(doc));
    }
  }
  xmlFreeDoc(doc);
  xmlFreeParserCtxt(ctxt);
  free(text);
  if (st != KR_RT_OK) kr_rt_plan_free(plan);
  return st;
}
