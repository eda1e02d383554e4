/* dialects/op/shape_binary.c - shape inference of the binary and n-ary elementwise ops (ONNX
 * opset 17, Operators.md): operands of one element type broadcast multidirectionally
 * (docs/Broadcasting.md) to the result; comparisons give i1; Pow's result has X's type; PRelu's
 * slope broadcasts unidirectionally to X; Expand broadcasts input with its constant `shape`. */
#include <stdlib.h>

#include "dialects/dialect_util.h"
#include "dialects/op/shape_elementwise.h"

/* All operands one element type in `classes`, broadcast; result element type `elem` or the
 * operands' when NULL. */
static kr_status broadcast_op(kr_op *op, kr_type *results, unsigned classes, kr_type elem) {
  kr_type types[KR_EW_MAX_OPERANDS];
  if (kr_ew_operands_same(op, 0, op->num_operands, classes, types)) return KR_FAILURE;
  return kr_ew_broadcast_type(op, types, op->num_operands, elem ? elem : kr_type_element(types[0]), &results[0]);
}

/* Add-14, Sub-14, Mul-14, Div-14: numeric (every integer type and float). */
kr_status kr_infer_add(kr_op *op, kr_type *results) { return broadcast_op(op, results, KR_EW_NUMERIC, NULL); }
kr_status kr_infer_sub(kr_op *op, kr_type *results) { return broadcast_op(op, results, KR_EW_NUMERIC, NULL); }
kr_status kr_infer_mul(kr_op *op, kr_type *results) { return broadcast_op(op, results, KR_EW_NUMERIC, NULL); }
kr_status kr_infer_div(kr_op *op, kr_type *results) { return broadcast_op(op, results, KR_EW_NUMERIC, NULL); }

/* Mod-13: "If the input type is floating point, then fmod attribute must be set to 1". */
kr_status kr_infer_mod(kr_op *op, kr_type *results) {
  int64_t fmod = kr_op_attr_int(op, "fmod");
  if (fmod != 0 && fmod != 1) return kr_op_emit_error(op, "attribute 'fmod' must be 0 or 1, got %lld", (long long)fmod);
  if (broadcast_op(op, results, KR_EW_NUMERIC, NULL)) return KR_FAILURE;
  if (!fmod && kr_type_is_float(kr_type_element(results[0])))
    return kr_op_emit_error(op, "floating-point Mod requires attribute 'fmod' = 1 (ONNX Mod-13)");
  return KR_SUCCESS;
}

/* Pow-15: X and Y may have different numeric types; Z has X's element type. */
kr_status kr_infer_pow(kr_op *op, kr_type *results) {
  kr_type t[2];
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &t[0]) || kr_ew_operand(op, 1, KR_EW_NUMERIC, &t[1])) return KR_FAILURE;
  return kr_ew_broadcast_type(op, t, 2, kr_type_element(t[0]), &results[0]);
}

/* PRelu-16: slope broadcasts to X (unidirectional): the result is X's type. */
kr_status kr_infer_prelu(kr_op *op, kr_type *results) {
  kr_type t[2], b;
  if (kr_ew_operands_same(op, 0, 2, KR_EW_NUMERIC, t)) return KR_FAILURE;
  if (kr_ew_broadcast_type(op, t, 2, kr_type_element(t[0]), &b)) return KR_FAILURE;
  if (b != t[0]) {
    char *x = kr_type_to_cstr(t[0]), *s = kr_type_to_cstr(t[1]);
    kr_op_emit_error(op, "'slope' of type '%s' does not broadcast to 'X' of type '%s' (unidirectional broadcasting)", s,
                     x);
    free(x), free(s);
    return KR_FAILURE;
  }
  results[0] = t[0];
  return KR_SUCCESS;
}

/* Max-13, Min-13: numeric; Sum-13, Mean-13: float in ONNX, any numeric here (the kernels are
 * exact for integers).  One or more operands. */
kr_status kr_infer_max(kr_op *op, kr_type *results) { return broadcast_op(op, results, KR_EW_NUMERIC, NULL); }
kr_status kr_infer_min(kr_op *op, kr_type *results) { return broadcast_op(op, results, KR_EW_NUMERIC, NULL); }
kr_status kr_infer_sum(kr_op *op, kr_type *results) { return broadcast_op(op, results, KR_EW_NUMERIC, NULL); }
kr_status kr_infer_mean(kr_op *op, kr_type *results) { return broadcast_op(op, results, KR_EW_FLOAT, NULL); }

/* Equal-13 (bool or numeric), Less-13, Greater-13, LessOrEqual-16, GreaterOrEqual-16 (numeric):
 * the result is i1. */
kr_status kr_infer_equal(kr_op *op, kr_type *results) { return broadcast_op(op, results, KR_EW_ANY, kr_ew_bool(op)); }
kr_status kr_infer_less(kr_op *op, kr_type *results) {
  return broadcast_op(op, results, KR_EW_NUMERIC, kr_ew_bool(op));
}
kr_status kr_infer_greater(kr_op *op, kr_type *results) {
  return broadcast_op(op, results, KR_EW_NUMERIC, kr_ew_bool(op));
}
kr_status kr_infer_less_or_equal(kr_op *op, kr_type *results) {
  return broadcast_op(op, results, KR_EW_NUMERIC, kr_ew_bool(op));
}
kr_status kr_infer_greater_or_equal(kr_op *op, kr_type *results) {
  return broadcast_op(op, results, KR_EW_NUMERIC, kr_ew_bool(op));
}

/* And-7, Or-7, Xor-7: bool. */
kr_status kr_infer_and(kr_op *op, kr_type *results) { return broadcast_op(op, results, KR_EW_BOOL, NULL); }
kr_status kr_infer_or(kr_op *op, kr_type *results) { return broadcast_op(op, results, KR_EW_BOOL, NULL); }
kr_status kr_infer_xor(kr_op *op, kr_type *results) { return broadcast_op(op, results, KR_EW_BOOL, NULL); }

/* Where-16: condition is bool; X and Y one type; all three broadcast. */
kr_status kr_infer_where(kr_op *op, kr_type *results) {
  kr_type t[3];
  if (kr_ew_operand(op, 0, KR_EW_BOOL, &t[0]) || kr_ew_operands_same(op, 1, 2, KR_EW_ANY, &t[1])) return KR_FAILURE;
  return kr_ew_broadcast_type(op, t, 3, kr_type_element(t[1]), &results[0]);
}

/* Expand-13: the result shape is broadcast(input's shape, shape) - bidirectional, so a 1 in
 * `shape` keeps input's dim and `shape` may have fewer dims than input. */
kr_status kr_infer_expand(kr_op *op, kr_type *results) {
  kr_type t[2];
  if (kr_ew_operand(op, 0, KR_EW_ANY, &t[0]) || kr_ew_operand(op, 1, KR_EW_INT, &t[1])) return KR_FAILURE;
  if (t[1]->u.shaped.rank != 1) return kr_op_emit_error(op, "operand #1 ('shape') must be 1-D");
  int64_t dims[KR_OP_MAX_RANK];
  int64_t n = kr_op_constant_ints(op, 1, dims, KR_OP_MAX_RANK);
  if (n < 0) return KR_FAILURE;
  for (int64_t i = 0; i < n; i++)
    if (dims[i] < 0) return kr_op_emit_error(op, "'shape' has a negative dimension %lld", (long long)dims[i]);
  t[1] = kr_type_tensor(kr_op_context(op), dims, (unsigned)n, kr_type_element(t[0]));
  return kr_ew_broadcast_type(op, t, 2, kr_type_element(t[0]), &results[0]);
}
