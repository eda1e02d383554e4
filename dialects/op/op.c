/* dialects/op/op.c - the `op` dialect: op table and schemas from ops.def, registration, the
 * generic verifier (schema + shape inference), attribute accessors with ONNX defaults, constant
 * operands, and shape helpers.  Rules: ONNX Operators.md, opset 17. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/dialect_macros.h"
#include "dialects/dialect_util.h"
#include "dialects/schema.h"
#include "dialects/op/op_impl.h"

/* ---------------------------------------------------------------------------------------------
 * The rows of ops.def, as written. */
typedef struct op_row {
  const char *stem, *family, *onnx, *operands, *results, *attrs, *summary;
  kr_infer_fn infer;
  kr_eval_fn eval;
} op_row;

static const op_row rows[] = {
#define KR_ONNX_OP(stem, family, onnx, operands, results, attrs, summary) \
  {#stem, #family, onnx, operands, results, attrs, summary, kr_infer_##stem, kr_eval_##stem},
#include "dialects/op/ops.def"
#undef KR_ONNX_OP
};
#define NUM_ROWS KR_ARRAY_SIZE(rows)

/* Parsed schemas and the op table; built once (the strings are static, nothing depends on a
 * context), then every context registers the same table. */
static kr_op_schema schemas[NUM_ROWS];
static kr_interp_hooks hooks[NUM_ROWS];
static char names[NUM_ROWS][48];
static kr_op_def op_defs[NUM_ROWS + 2];
static bool tables_built;

kr_status kr_op_none_verify(kr_op *op);

static void build_tables(void) {
  if (tables_built) return;
  for (unsigned i = 0; i < NUM_ROWS; i++) {
    const op_row *r = &rows[i];
    kr_op_schema *s = &schemas[i];
    kr_schema_from_row(s, r->operands, r->results, r->attrs);
    s->onnx_name = r->onnx;
    s->family = r->family;
    s->infer = r->infer;
    hooks[i].eval = r->eval;
    snprintf(names[i], sizeof names[i], "op.%s", r->stem);
    op_defs[i] = (kr_op_def){
        .name = names[i],
        .traits = KR_TRAIT_PURE | KR_TRAIT_SCHEMA,
        .num_operands = KR_VARIADIC,
        .num_results = KR_VARIADIC,
        .num_regions = 0,
        .summary = r->summary,
        .verify = kr_op_verify_generic,
        .fold = kr_op_fold_generic,
        .shape_inference = s,
        .interpreter = &hooks[i],
    };
  }
  op_defs[NUM_ROWS] = (kr_op_def){
      .name = KR_OP_CONSTANT,
      .traits = KR_TRAIT_PURE | KR_TRAIT_CONSTANT_LIKE,
      .num_operands = 0, .num_results = 1,
      .summary = "a tensor constant (ONNX Constant and initializers): `value` is dense or dense_resource",
      .verify = kr_op_constant_verify,
      .fold = kr_op_constant_fold,
      .interpreter = &kr_op_constant_hooks,
  };
  op_defs[NUM_ROWS + 1] = (kr_op_def){
      .name = KR_OP_NONE,
      .traits = KR_TRAIT_PURE,
      .num_operands = 0, .num_results = 1,
      .summary = "the value of an omitted optional operand (ONNX's empty input name)",
      .verify = kr_op_none_verify,
  };
  tables_built = true;
}

/* ---------------------------------------------------------------------------------------------
 * op.constant and op.none. */

kr_status kr_op_constant_verify(kr_op *op) {
  kr_attr v = kr_op_get_attr(op, "value");
  if (!v || (v->kind != KR_ATTR_DENSE && v->kind != KR_ATTR_RESOURCE))
    return kr_op_emit_error(op, "requires a 'value' attribute holding dense or dense_resource elements");
  kr_type rt = kr_value_type(kr_op_result(op, 0));
  if (v->type != rt) {
    char *a = kr_type_to_cstr(v->type), *b = kr_type_to_cstr(rt);
    kr_op_emit_error(op, "'value' has type '%s' but the result has type '%s'", a, b);
    free(a), free(b);
    return KR_FAILURE;
  }
  if (!kr_type_has_static_shape(rt)) return kr_op_emit_error(op, "result must have a static shape");
  return KR_SUCCESS;
}

kr_status kr_op_constant_fold(kr_op *op, const kr_attr *operands, kr_fold_result *results) {
  results[0].attr = kr_op_get_attr(op, "value");
  return results[0].attr ? KR_SUCCESS : KR_FAILURE;
}

static kr_status eval_constant(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  kr_tensor t;
  if (kr_tensor_from_attr(&t, kr_op_get_attr(op, "value")))
    return kr_op_emit_error(op, "cannot read the constant's value");
  memcpy(outs[0]->data, t.data, outs[0]->nbytes < t.nbytes ? outs[0]->nbytes : t.nbytes);
  kr_tensor_free(&t);
  return KR_SUCCESS;
}
const kr_interp_hooks kr_op_constant_hooks = {eval_constant};

kr_status kr_op_none_verify(kr_op *op) {
  if (kr_value_type(kr_op_result(op, 0))->kind != KR_TYPE_NONE)
    return kr_op_emit_error(op, "result must have type 'none'");
  return KR_SUCCESS;
}

kr_op *kr_op_materialize_constant(kr_builder *b, kr_attr value, kr_type type, kr_attr loc) {
  return kr_constant_materialize(b, KR_OP_CONSTANT, value, type, loc);
}

kr_op *kr_constant_materialize(kr_builder *b, const char *name, kr_attr value, kr_type type, kr_attr loc) {
  if (!value || (value->kind != KR_ATTR_DENSE && value->kind != KR_ATTR_RESOURCE) || value->type != type) return NULL;
  kr_op_state st;
  kr_op_state_init(&st, b->ctx, name, loc);
  kr_op_state_add_attr(&st, "value", value);
  kr_op_state_add_results(&st, &type, 1);
  kr_op *c = kr_builder_create(b, &st);
  kr_op_state_free(&st);
  return c;
}

/* ---------------------------------------------------------------------------------------------
 * Schema lookup. */

const kr_op_schema *kr_op_get_schema(const kr_op *op) {
  if (!op->def || !(op->def->traits & KR_TRAIT_SCHEMA)) return NULL;
  return op->def->shape_inference;
}

const kr_op_schema *kr_op_schema_by_onnx_name(kr_context *ctx, const char *onnx_name) {
  (void)ctx;
  build_tables();
  for (unsigned i = 0; i < NUM_ROWS; i++)
    if (!strcmp(schemas[i].onnx_name, onnx_name)) return &schemas[i];
  return NULL;
}

const char *kr_op_name_for_onnx(kr_context *ctx, const char *onnx_name) {
  (void)ctx;
  build_tables();
  for (unsigned i = 0; i < NUM_ROWS; i++)
    if (!strcmp(schemas[i].onnx_name, onnx_name)) return names[i];
  return NULL;
}

static const kr_op_attr_spec *find_attr_spec(const kr_op *op, const char *name) {
  const kr_op_schema *s = kr_op_get_schema(op);
  if (!s) return NULL;
  for (unsigned i = 0; i < s->num_attrs; i++)
    if (!strcmp(s->attrs[i].name, name)) return &s->attrs[i];
  return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Attribute accessors. */

int64_t kr_op_attr_int(const kr_op *op, const char *name) {
  kr_attr a = kr_op_get_attr(op, name);
  if (a && a->kind == KR_ATTR_INTEGER) return a->u.i;
  const kr_op_attr_spec *s = find_attr_spec(op, name);
  return s ? s->dflt_int : 0;
}

double kr_op_attr_float(const kr_op *op, const char *name) {
  kr_attr a = kr_op_get_attr(op, name);
  if (a && a->kind == KR_ATTR_FLOAT) return a->u.f;
  if (a && a->kind == KR_ATTR_INTEGER) return (double)a->u.i;
  const kr_op_attr_spec *s = find_attr_spec(op, name);
  /* Defaults are ONNX float (f32) values: round them as an f32 attribute would. */
  return s ? (double)(float)s->dflt_float : 0.0;
}

const char *kr_op_attr_string(const kr_op *op, const char *name) {
  kr_attr a = kr_op_get_attr(op, name);
  if (a && a->kind == KR_ATTR_STRING) return a->u.string.str;
  const kr_op_attr_spec *s = find_attr_spec(op, name);
  return s ? s->dflt_string : NULL;
}

unsigned kr_op_attr_ints(const kr_op *op, const char *name, const int64_t **vals) {
  kr_attr a = kr_op_get_attr(op, name);
  if (a && a->kind == KR_ATTR_DENSE_ARRAY && kr_type_is_integer(a->type, 64)) {
    *vals = a->u.dense_array.data;
    return a->u.dense_array.num;
  }
  const kr_op_attr_spec *s = find_attr_spec(op, name);
  *vals = s && s->has_default ? s->dflt_ints : NULL;
  return s && s->has_default ? s->num_dflt_ints : 0;
}

unsigned kr_op_attr_floats(const kr_op *op, const char *name, const float **vals) {
  kr_attr a = kr_op_get_attr(op, name);
  if (a && a->kind == KR_ATTR_DENSE_ARRAY && a->type->kind == KR_TYPE_FLOAT && a->type->u.fkind == KR_F32) {
    *vals = a->u.dense_array.data;
    return a->u.dense_array.num;
  }
  *vals = NULL;
  return 0;
}

kr_type kr_op_attr_type(const kr_op *op, const char *name) {
  kr_attr a = kr_op_get_attr(op, name);
  return a && a->kind == KR_ATTR_TYPE ? a->type : NULL;
}

kr_attr kr_op_attr_tensor(const kr_op *op, const char *name) {
  kr_attr a = kr_op_get_attr(op, name);
  return a && (a->kind == KR_ATTR_DENSE || a->kind == KR_ATTR_RESOURCE) ? a : NULL;
}

bool kr_op_attr_present(const kr_op *op, const char *name) { return kr_op_get_attr(op, name) != NULL; }

/* ---------------------------------------------------------------------------------------------
 * Operands. */

bool kr_op_operand_present(kr_op *op, unsigned i) {
  return i < op->num_operands && kr_value_type(kr_op_operand(op, i))->kind != KR_TYPE_NONE;
}

kr_attr kr_op_constant_operand(kr_op *op, unsigned i) {
  if (!kr_op_operand_present(op, i)) return NULL;
  kr_op *d = kr_value_defining_op(kr_op_operand(op, i));
  if (!d || !kr_op_has_trait(d, KR_TRAIT_CONSTANT_LIKE)) return NULL;
  kr_attr v = kr_op_get_attr(d, "value");
  if (!v || (v->kind != KR_ATTR_DENSE && v->kind != KR_ATTR_RESOURCE)) return NULL;
  return v;
}

static int64_t constant_elems(kr_op *op, unsigned i, int64_t cap, kr_attr *out) {
  kr_attr v = kr_op_constant_operand(op, i);
  if (!v) {
    kr_op_emit_error(op, "operand #%u ('%s') must be a constant (its value decides the result shape)", i,
                     kr_schema_operand_name(op, i));
    return -1;
  }
  int64_t n = kr_type_num_elements(v->type);
  if (n < 0 || n > cap) {
    kr_op_emit_error(op, "operand #%u ('%s') has %lld elements, at most %lld supported", i,
                     kr_schema_operand_name(op, i), (long long)n, (long long)cap);
    return -1;
  }
  *out = v;
  return n;
}

int64_t kr_op_constant_ints(kr_op *op, unsigned i, int64_t *out, int64_t cap) {
  kr_attr v;
  int64_t n = constant_elems(op, i, cap, &v);
  if (n < 0) return -1;
  kr_type e = kr_type_element(v->type);
  if (e->kind != KR_TYPE_INTEGER && e->kind != KR_TYPE_INDEX) {
    kr_op_emit_error(op, "operand #%u ('%s') must hold integers", i, kr_schema_operand_name(op, i));
    return -1;
  }
  kr_tensor t;
  if (kr_tensor_from_attr(&t, v)) {
    kr_op_emit_error(op, "operand #%u ('%s'): unreadable constant", i, kr_schema_operand_name(op, i));
    return -1;
  }
  for (int64_t k = 0; k < n; k++) out[k] = kr_tensor_get_i64(&t, k);
  kr_tensor_free(&t);
  return n;
}

int64_t kr_op_constant_floats(kr_op *op, unsigned i, double *out, int64_t cap) {
  kr_attr v;
  int64_t n = constant_elems(op, i, cap, &v);
  if (n < 0) return -1;
  kr_tensor t;
  if (kr_tensor_from_attr(&t, v)) {
    kr_op_emit_error(op, "operand #%u ('%s'): unreadable constant", i, kr_schema_operand_name(op, i));
    return -1;
  }
  for (int64_t k = 0; k < n; k++) out[k] = kr_tensor_get_f64(&t, k);
  kr_tensor_free(&t);
  return n;
}

/* ---------------------------------------------------------------------------------------------
 * Shape helpers. */

kr_status kr_op_normalize_axis(kr_op *op, const char *what, int64_t axis, int64_t rank, int64_t *out) {
  if (axis < -rank || axis >= rank)
    return kr_op_emit_error(op, "%s %lld is out of range [%lld, %lld)", what, (long long)axis, (long long)-rank,
                            (long long)rank);
  *out = axis < 0 ? axis + rank : axis;
  return KR_SUCCESS;
}

kr_status kr_op_broadcast_shapes(kr_op *op, const kr_type *types, unsigned n, int64_t *out_dims, unsigned *out_rank) {
  unsigned rank = 0;
  for (unsigned i = 0; i < n; i++)
    if (types[i]->u.shaped.rank > rank) rank = types[i]->u.shaped.rank;
  if (rank > KR_OP_MAX_RANK) return kr_op_emit_error(op, "rank %u exceeds the supported maximum %d", rank, KR_OP_MAX_RANK);
  /* from[d]: the operand that fixed out_dims[d] (not 1), so an error names the two operands
   * that actually conflict rather than operand 0. */
  unsigned from[KR_OP_MAX_RANK];
  for (unsigned d = 0; d < rank; d++) out_dims[d] = 1, from[d] = 0;
  for (unsigned i = 0; i < n; i++) {
    unsigned r = types[i]->u.shaped.rank;
    for (unsigned d = 0; d < r; d++) {
      int64_t x = types[i]->u.shaped.dims[d];
      int64_t *o = &out_dims[rank - r + d];
      if (x == *o || x == 1) continue;
      if (*o == 1) {
        *o = x;
        from[rank - r + d] = i;
        continue;
      }
      char *a = kr_type_to_cstr(types[from[rank - r + d]]), *b = kr_type_to_cstr(types[i]);
      kr_op_emit_error(op, "operands have incompatible shapes for broadcasting: '%s' and '%s'", a, b);
      free(a), free(b);
      return KR_FAILURE;
    }
  }
  *out_rank = rank;
  return KR_SUCCESS;
}

kr_status kr_op_operand_tensor(kr_op *op, unsigned i, kr_type *out) {
  if (i >= op->num_operands)
    return kr_op_emit_error(op, "missing operand #%u ('%s')", i, kr_schema_operand_name(op, i));
  kr_type t = kr_value_type(kr_op_operand(op, i));
  if (t->kind != KR_TYPE_TENSOR || !kr_type_has_static_shape(t) || t->u.shaped.rank > KR_OP_MAX_RANK) {
    char *s = kr_type_to_cstr(t);
    kr_op_emit_error(op, "operand #%u ('%s') must be a tensor with a static shape, got '%s'", i,
                     kr_schema_operand_name(op, i), s);
    free(s);
    return KR_FAILURE;
  }
  if (kr_type_num_elements(t) < 0) {
    char *s = kr_type_to_cstr(t);
    kr_op_emit_error(op, "operand #%u ('%s') of type '%s' has more than 2^63 - 1 elements", i,
                     kr_schema_operand_name(op, i), s);
    free(s);
    return KR_FAILURE;
  }
  *out = t;
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Verification. */

static const char *attr_kind_name(kr_op_attr_kind k) {
  static const char *const n[] = {"an integer", "a float", "a string", "an array<i64>", "an array<f32>",
                                  "dense elements", "a type"};
  return n[k];
}

static bool attr_matches(kr_attr a, kr_op_attr_kind k) {
  switch (k) {
  case KR_OPATTR_INT: return a->kind == KR_ATTR_INTEGER;
  case KR_OPATTR_FLOAT: return a->kind == KR_ATTR_FLOAT;
  case KR_OPATTR_STRING: return a->kind == KR_ATTR_STRING;
  case KR_OPATTR_INTS: return a->kind == KR_ATTR_DENSE_ARRAY && kr_type_is_integer(a->type, 64);
  case KR_OPATTR_FLOATS: return a->kind == KR_ATTR_DENSE_ARRAY && a->type->kind == KR_TYPE_FLOAT;
  case KR_OPATTR_TENSOR: return a->kind == KR_ATTR_DENSE || a->kind == KR_ATTR_RESOURCE;
  case KR_OPATTR_TYPE: return a->kind == KR_ATTR_TYPE;
  }
  return false;
}

/* Operand/result counts and attributes against the schema. */
static kr_status check_schema(kr_op *op, const kr_op_schema *s) {
  /* " (ONNX Conv)" after counts for ops that mirror an ONNX operator; nothing for prim ops. */
  char origin[64] = "";
  if (s->onnx_name) snprintf(origin, sizeof origin, " (ONNX %s)", s->onnx_name);
  if (op->num_operands < s->min_operands || op->num_operands > s->max_operands) {
    if (s->min_operands == s->max_operands)
      return kr_op_emit_error(op, "expects %u operands%s, got %u", s->min_operands, origin, op->num_operands);
    if (s->max_operands == UINT32_MAX)
      return kr_op_emit_error(op, "expects at least %u operands%s, got %u", s->min_operands, origin, op->num_operands);
    return kr_op_emit_error(op, "expects %u to %u operands%s, got %u", s->min_operands, s->max_operands,
                            origin, op->num_operands);
  }
  if (op->num_results < s->min_results || op->num_results > s->max_results)
    return kr_op_emit_error(op, "expects %u to %u results%s, got %u", s->min_results,
                            s->max_results == UINT32_MAX ? 0xffffu : s->max_results, origin, op->num_results);
  for (unsigned i = 0; i < op->num_operands; i++) {
    kr_type t = kr_value_type(kr_op_operand(op, i));
    bool optional = i < s->num_operands && s->operands[i].optional;
    if (t->kind == KR_TYPE_NONE) {
      if (!optional)
        return kr_op_emit_error(op, "operand #%u ('%s') is required but is 'none'", i, kr_schema_operand_name(op, i));
      continue;
    }
    kr_type dummy;
    if (kr_op_operand_tensor(op, i, &dummy)) return KR_FAILURE;
  }
  kr_attr dict = op->attrs;
  for (unsigned i = 0; i < dict->u.dict.num; i++) {
    const kr_named_attr *na = &dict->u.dict.entries[i];
    if (kr_attr_name_has_dialect_prefix(na->name)) continue;   /* discardable (e.g. onnx.name) */
    const kr_op_attr_spec *spec = NULL;
    for (unsigned k = 0; k < s->num_attrs; k++)
      if (!strcmp(s->attrs[k].name, na->name)) spec = &s->attrs[k];
    if (!spec) {
      if (s->onnx_name) return kr_op_emit_error(op, "unknown attribute '%s' (ONNX %s opset 17)", na->name, s->onnx_name);
      return kr_op_emit_error(op, "unknown attribute '%s'", na->name);
    }
    if (!attr_matches(na->value, spec->kind))
      return kr_op_emit_error(op, "attribute '%s' must be %s", na->name, attr_kind_name(spec->kind));
  }
  for (unsigned k = 0; k < s->num_attrs; k++)
    if (s->attrs[k].required && !kr_op_get_attr(op, s->attrs[k].name))
      return kr_op_emit_error(op, "requires attribute '%s'", s->attrs[k].name);
  return KR_SUCCESS;
}

kr_status kr_op_infer_result_types(kr_op *op, kr_type *results) {
  const kr_op_schema *s = kr_op_get_schema(op);
  if (!s) return kr_op_emit_error(op, "is not an op of the op dialect");
  if (check_schema(op, s)) return KR_FAILURE;
  for (unsigned i = 0; i < op->num_results; i++) results[i] = NULL;
  if (s->infer(op, results)) return KR_FAILURE;
  for (unsigned i = 0; i < op->num_results; i++)
    if (!results[i]) return kr_op_emit_error(op, "shape inference left result #%u without a type", i);
  return KR_SUCCESS;
}

kr_status kr_op_infer_and_set_types(kr_op *op) {
  kr_type small[8];
  kr_type *types = op->num_results <= 8 ? small : malloc(op->num_results * sizeof *types);
  kr_status st = kr_op_infer_result_types(op, types);
  if (!st)
    for (unsigned i = 0; i < op->num_results; i++) kr_value_set_type(kr_op_result(op, i), types[i]);
  if (types != small) free(types);
  return st;
}

kr_status kr_op_verify_generic(kr_op *op) {
  const kr_op_schema *s = kr_op_get_schema(op);
  if (check_schema(op, s)) return KR_FAILURE;
  /* With a non-constant shape operand the result shape is data-dependent: the declared types are
   * kept as written (constant folding turns such operands into constants). */
  for (unsigned i = 0; i < op->num_operands; i++) {
    const kr_op_operand_spec *o = i < s->num_operands ? &s->operands[i] : &s->operands[s->num_operands - 1];
    if (o->shape && kr_op_operand_present(op, i) && !kr_op_constant_operand(op, i)) return KR_SUCCESS;
  }
  kr_type small[8];
  kr_type *types = op->num_results <= 8 ? small : malloc(op->num_results * sizeof *types);
  kr_status st = kr_op_infer_result_types(op, types);
  for (unsigned i = 0; !st && i < op->num_results; i++) {
    kr_type declared = kr_value_type(kr_op_result(op, i));
    if (declared != types[i]) {
      char *a = kr_type_to_cstr(types[i]), *b = kr_type_to_cstr(declared);
      kr_op_emit_error(op, "result #%u ('%s') has type '%s' but shape inference gives '%s'", i,
                       i < s->num_results ? s->results[i].name : s->results[s->num_results - 1].name, b, a);
      free(a), free(b);
      st = KR_FAILURE;
    }
  }
  if (types != small) free(types);
  return st;
}

/* ---------------------------------------------------------------------------------------------
 * Registration. */

extern const kr_pattern kr_op_canonical_patterns[];
extern const unsigned kr_op_num_canonical_patterns;

static kr_dialect_def op_dialect = {
    .name = "op",
    .summary = "operator level: one op per ONNX operator (opset 17 form), static shapes",
    .materialize_constant = kr_op_materialize_constant,
};

kr_status kr_register_op_dialect(kr_context *ctx) {
  build_tables();
  op_dialect.ops = op_defs;
  op_dialect.num_ops = NUM_ROWS + 2;
  op_dialect.patterns = kr_op_canonical_patterns;
  op_dialect.num_patterns = kr_op_num_canonical_patterns;
  return kr_context_register_dialect(ctx, &op_dialect);
}
