/* dialects/prim/shape_elementwise.c - shape rules of the elementwise primitives (ops.def,
 * Korch ASPLOS'24 §3): the result has the operands' one shape (no implicit broadcasting:
 * prim.broadcast makes it explicit); its element type is the operands' (cmp: i1; cast: `to`;
 * iota: `elem`).  Element type constraints are the ops.def summaries' (floats-only math,
 * i1-only logic, signed/float neg); the ONNX operators they come from are opset 17's. */
#include <stdlib.h>
#include <string.h>

#include "dialects/prim/shape_util.h"

/* y has x's type; x's element type in `classes`. */
static kr_status unary(kr_op *op, kr_type *results, unsigned classes) {
  return kr_ps_operand(op, 0, classes, &results[0]);
}

/* The integers and floats (no i1): -x for signed integers and floats (ONNX Neg-13's T). */
kr_status kr_prim_infer_neg(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_FLOAT | KR_EW_SINT); }
kr_status kr_prim_infer_abs(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_NUMERIC); }
kr_status kr_prim_infer_sign(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_NUMERIC); }
/* Transcendental and rounding functions: floats only. */
kr_status kr_prim_infer_exp(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_FLOAT); }
kr_status kr_prim_infer_log(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_FLOAT); }
kr_status kr_prim_infer_sqrt(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_FLOAT); }
kr_status kr_prim_infer_tanh(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_FLOAT); }
kr_status kr_prim_infer_erf(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_FLOAT); }
kr_status kr_prim_infer_sin(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_FLOAT); }
kr_status kr_prim_infer_cos(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_FLOAT); }
kr_status kr_prim_infer_floor(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_FLOAT); }
kr_status kr_prim_infer_ceil(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_FLOAT); }
kr_status kr_prim_infer_round(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_FLOAT); }
/* Logic: i1 only. */
kr_status kr_prim_infer_not(kr_op *op, kr_type *r) { return unary(op, r, KR_EW_BOOL); }

/* lhs and rhs have one type with elements in `classes`; the result has it too. */
static kr_status binary(kr_op *op, kr_type *results, unsigned classes) {
  kr_type a, b;
  if (kr_ps_operand(op, 0, classes, &a) || kr_ps_operand(op, 1, classes, &b) || kr_ps_same_type(op, 0, a, 1, b))
    return KR_FAILURE;
  results[0] = a;
  return KR_SUCCESS;
}

kr_status kr_prim_infer_add(kr_op *op, kr_type *r) { return binary(op, r, KR_EW_NUMERIC); }
kr_status kr_prim_infer_sub(kr_op *op, kr_type *r) { return binary(op, r, KR_EW_NUMERIC); }
kr_status kr_prim_infer_mul(kr_op *op, kr_type *r) { return binary(op, r, KR_EW_NUMERIC); }
kr_status kr_prim_infer_div(kr_op *op, kr_type *r) { return binary(op, r, KR_EW_NUMERIC); }
kr_status kr_prim_infer_rem(kr_op *op, kr_type *r) { return binary(op, r, KR_EW_NUMERIC); }
kr_status kr_prim_infer_pow(kr_op *op, kr_type *r) { return binary(op, r, KR_EW_NUMERIC); }
kr_status kr_prim_infer_max(kr_op *op, kr_type *r) { return binary(op, r, KR_EW_NUMERIC); }
kr_status kr_prim_infer_min(kr_op *op, kr_type *r) { return binary(op, r, KR_EW_NUMERIC); }
kr_status kr_prim_infer_and(kr_op *op, kr_type *r) { return binary(op, r, KR_EW_BOOL); }
kr_status kr_prim_infer_or(kr_op *op, kr_type *r) { return binary(op, r, KR_EW_BOOL); }
kr_status kr_prim_infer_xor(kr_op *op, kr_type *r) { return binary(op, r, KR_EW_BOOL); }

/* cmp: any element type (i1 included: eq/ne of booleans, ONNX Equal-13); `predicate` one of
 * eq ne lt le gt ge; the result is i1 of the operands' shape. */
kr_status kr_prim_infer_cmp(kr_op *op, kr_type *results) {
  static const char *const preds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  const char *p = kr_op_attr_string(op, "predicate");
  bool known = false;
  for (unsigned i = 0; p && i < sizeof preds / sizeof *preds; i++)
    if (!strcmp(p, preds[i])) known = true;
  if (!known)
    return kr_op_emit_error(op, "attribute 'predicate' must be one of eq, ne, lt, le, gt, ge; got \"%s\"", p ? p : "");
  kr_type a;
  if (binary(op, &a, KR_EW_ANY)) return KR_FAILURE;
  results[0] = kr_type_tensor(kr_op_context(op), a->u.shaped.dims, a->u.shaped.rank,
                              kr_type_integer(kr_op_context(op), 1, KR_SIGNLESS));
  return KR_SUCCESS;
}

/* select: cond i1 of the branches' shape; on_true and on_false of one type, the result's. */
kr_status kr_prim_infer_select(kr_op *op, kr_type *results) {
  kr_type c, t, f;
  if (kr_ps_operand(op, 0, KR_EW_BOOL, &c) || kr_ps_operand(op, 1, KR_EW_ANY, &t) ||
      kr_ps_operand(op, 2, KR_EW_ANY, &f) || kr_ps_same_type(op, 1, t, 2, f))
    return KR_FAILURE;
  if (c->u.shaped.rank != t->u.shaped.rank ||
      memcmp(c->u.shaped.dims, t->u.shaped.dims, t->u.shaped.rank * sizeof(int64_t))) {
    char *a = kr_type_to_cstr(c), *b = kr_type_to_cstr(t);
    kr_op_emit_error(op,
                     "operand #0 ('cond') must have the shape of the branches (no implicit broadcast), "
                     "got '%s' and '%s'",
                     a, b);
    free(a), free(b);
    return KR_FAILURE;
  }
  results[0] = t;
  return KR_SUCCESS;
}

/* cast: any element type to `to`, an element type of the same classes (ONNX Cast-13);
 * `rounding` is "nearest_even" (the default) or "toward_zero", the latter only with `to` = bf16
 * (op.cast's truncating conversion to bf16). */
kr_status kr_prim_infer_cast(kr_op *op, kr_type *results) {
  kr_type x, to = kr_op_attr_type(op, "to");
  if (kr_ps_operand(op, 0, KR_EW_ANY, &x)) return KR_FAILURE;
  if (!to || !kr_ew_class(to)) {
    char *s = to ? kr_type_to_cstr(to) : NULL;
    kr_op_emit_error(op,
                     "attribute 'to' must be an element type (f16, bf16, f32, f64, i1, i8..i64, ui8..ui64), "
                     "got '%s'",
                     s ? s : "");
    free(s);
    return KR_FAILURE;
  }
  const char *rounding = kr_op_attr_string(op, "rounding");
  if (!rounding || (strcmp(rounding, "nearest_even") && strcmp(rounding, "toward_zero")))
    return kr_op_emit_error(op, "attribute 'rounding' must be nearest_even or toward_zero, got \"%s\"",
                            rounding ? rounding : "");
  if (!strcmp(rounding, "toward_zero") && !(to->kind == KR_TYPE_FLOAT && to->u.fkind == KR_BF16)) {
    char *s = kr_type_to_cstr(to);
    kr_op_emit_error(op, "attribute 'rounding' toward_zero is only allowed with 'to' = bf16, got '%s'", s ? s : "");
    free(s);
    return KR_FAILURE;
  }
  results[0] = kr_type_tensor(kr_op_context(op), x->u.shaped.dims, x->u.shaped.rank, to);
  return KR_SUCCESS;
}

/* iota: tensor<shape x elem>; shape's entries >= 0, `axis` in [0, rank), `elem` numeric (the
 * index converts to it as prim.cast would: no i1). */
kr_status kr_prim_infer_iota(kr_op *op, kr_type *results) {
  const int64_t *shape;
  int64_t rank = kr_op_attr_ints(op, "shape", &shape), axis;
  kr_type elem = kr_op_attr_type(op, "elem");
  if (kr_ps_ints_min(op, "shape", shape, rank, 0)) return KR_FAILURE;
  if (rank > KR_OP_MAX_RANK)
    return kr_op_emit_error(op, "result rank %lld exceeds the supported maximum %d", (long long)rank, KR_OP_MAX_RANK);
  if (kr_ps_axis(op, "axis", (unsigned)rank, &axis)) return KR_FAILURE;
  if (!elem || !(kr_ew_class(elem) & KR_EW_NUMERIC)) {
    char *s = elem ? kr_type_to_cstr(elem) : NULL;
    kr_op_emit_error(op,
                     "attribute 'elem' must be a numeric element type (f16, bf16, f32, f64, i8..i64, "
                     "ui8..ui64), got '%s'",
                     s ? s : "");
    free(s);
    return KR_FAILURE;
  }
  return kr_ps_result(op, shape, rank, elem, &results[0]);
}
