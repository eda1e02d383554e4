/* dialects/schema.c - parses the operand/result/attribute strings of table-driven ops.def rows
 * (op and prim dialects) into kr_op_schema. */
#include <stdlib.h>
#include <string.h>

#include "dialects/schema.h"

static char *dup_range(const char *s, size_t n) {
  char *r = malloc(n + 1);
  if (!r) abort();   /* static tables at start-up: nothing sensible to recover */
  memcpy(r, s, n);
  r[n] = 0;
  return r;
}

/* The next space-separated token of a row string at or after *p: false at the end; else its
 * start in *p and its end in *e. */
static bool next_token(const char **p, const char **e) {
  while (**p == ' ') (*p)++;
  if (!**p) return false;
  *e = *p;
  while (**e && **e != ' ') (*e)++;
  return true;
}

/* "X W B?" / "inputs..." / "#shape" */
static void parse_operands(const char *spec, kr_op_operand_spec **out, unsigned *n, unsigned *min, unsigned *max) {
  kr_op_operand_spec *v = calloc(16, sizeof *v);
  unsigned k = 0;
  *min = 0;
  *max = 0;
  const char *e = NULL;
  for (const char *p = spec; next_token(&p, &e);) {
    kr_op_operand_spec o = {0};
    const char *b = p;
    if (*b == '#') o.shape = true, b++;
    else if (*b == '$') o.static_value = true, b++;
    size_t len = (size_t)(e - b);
    if (len > 3 && !strncmp(e - 3, "...", 3)) o.variadic = true, len -= 3;
    else if (len > 1 && e[-1] == '?') o.optional = true, len -= 1;
    o.name = dup_range(b, len);
    v[k++] = o;
    if (!o.optional) *min = k;
    *max = o.variadic ? UINT32_MAX : k;
    p = e;
  }
  *out = v;
  *n = k;
}

static void parse_attrs(const char *spec, kr_op_attr_spec **out, unsigned *n) {
  kr_op_attr_spec *v = calloc(16, sizeof *v);
  unsigned k = 0;
  const char *e = NULL;
  for (const char *p = spec; next_token(&p, &e);) {
    const char *colon = memchr(p, ':', (size_t)(e - p));
    kr_op_attr_spec a = {0};
    a.name = dup_range(p, (size_t)(colon - p));
    const char *kind = colon + 1;
    const char *eq = memchr(kind, '=', (size_t)(e - kind));
    const char *kend = eq ? eq : e;
    if (kend[-1] == '!') a.required = true, kend--;
    size_t klen = (size_t)(kend - kind);
#define IS(s) (klen == strlen(s) && !strncmp(kind, s, klen))
    a.kind = IS("i") ? KR_OPATTR_INT : IS("f") ? KR_OPATTR_FLOAT : IS("s") ? KR_OPATTR_STRING
           : IS("ints") ? KR_OPATTR_INTS : IS("floats") ? KR_OPATTR_FLOATS : IS("t") ? KR_OPATTR_TENSOR
           : KR_OPATTR_TYPE;
#undef IS
    if (eq) {
      char *d = dup_range(eq + 1, (size_t)(e - eq - 1));
      a.has_default = true;
      switch (a.kind) {
      case KR_OPATTR_INT: a.dflt_int = strtoll(d, NULL, 10); break;
      case KR_OPATTR_FLOAT: a.dflt_float = strtod(d, NULL); break;
      case KR_OPATTR_STRING: a.dflt_string = d; d = NULL; break;
      case KR_OPATTR_INTS: {
        int64_t *vals = calloc(16, sizeof *vals);
        unsigned m = 0;
        for (char *q = d; *q && m < 16;) {
          vals[m++] = strtoll(q, &q, 10);
          if (*q == ',') q++;
        }
        a.dflt_ints = vals;
        a.num_dflt_ints = m;
        break;
      }
      default: break;
      }
      free(d);
    }
    v[k++] = a;
    p = e;
  }
  *out = v;
  *n = k;
}

void kr_schema_from_row(kr_op_schema *s, const char *operands, const char *results, const char *attrs) {
  kr_op_operand_spec *ops, *res;
  kr_op_attr_spec *at;
  parse_operands(operands, &ops, &s->num_operands, &s->min_operands, &s->max_operands);
  parse_operands(results, &res, &s->num_results, &s->min_results, &s->max_results);
  parse_attrs(attrs, &at, &s->num_attrs);
  s->operands = ops;
  s->results = res;
  s->attrs = at;
}

const char *kr_schema_operand_name(kr_op *op, unsigned i) {
  const kr_op_schema *s = kr_op_get_schema(op);
  if (!s || !s->num_operands) return "?";
  return i < s->num_operands ? s->operands[i].name : s->operands[s->num_operands - 1].name;
}
