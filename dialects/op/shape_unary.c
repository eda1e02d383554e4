/* dialects/op/shape_unary.c - shape inference of the unary elementwise ops (ONNX opset 17,
 * Operators.md): the result has the input's shape; its element type is the input's, i1 for the
 * predicates (IsNaN, IsInf), `to` for Cast, target_type's for CastLike.  Element type classes
 * follow each operator's type constraint `T`.  Also the class helpers shape_binary.c shares. */
#include <stdlib.h>

#include "dialects/dialect_util.h"
#include "dialects/op/shape_elementwise.h"
#include "dialects/schema.h"

/* ---------------------------------------------------------------------------------------------
 * Shared helpers (shape_elementwise.h). */

unsigned kr_ew_class(kr_type e) {
  if (e->kind == KR_TYPE_FLOAT) return KR_EW_FLOAT;
  if (e->kind != KR_TYPE_INTEGER) return 0;
  if (e->u.integer.width == 1) return e->u.integer.sign == KR_SIGNLESS ? KR_EW_BOOL : 0;
  switch (e->u.integer.width) {
  case 8:
  case 16:
  case 32:
  case 64: break;
  default: return 0;
  }
  return e->u.integer.sign == KR_UNSIGNED ? KR_EW_UINT : KR_EW_SINT;
}

static const char *class_name(unsigned classes) {
  switch (classes) {
  case KR_EW_FLOAT: return "floating-point (f16, bf16, f32, f64)";
  case KR_EW_BOOL: return "boolean (i1)";
  case KR_EW_INT: return "integer";
  case KR_EW_NUMERIC: return "numeric (integer or floating-point)";
  case KR_EW_FLOAT | KR_EW_SINT: return "signed numeric (signed integer or floating-point)";
  case KR_EW_ANY: return "numeric or boolean";
  default: return "supported";
  }
}

kr_status kr_ew_operand(kr_op *op, unsigned i, unsigned classes, kr_type *out) {
  if (kr_op_operand_tensor(op, i, out)) return KR_FAILURE;
  if (kr_ew_class(kr_type_element(*out)) & classes) return KR_SUCCESS;
  char *s = kr_type_to_cstr(*out);
  kr_op_emit_error(op, "operand #%u ('%s') of ONNX %s must have %s elements, got '%s'", i,
                   kr_schema_operand_name(op, i), kr_op_get_schema(op)->onnx_name, class_name(classes), s);
  free(s);
  return KR_FAILURE;
}

kr_status kr_ew_operands_same(kr_op *op, unsigned first, unsigned n, unsigned classes, kr_type *types) {
  if (n > KR_EW_MAX_OPERANDS)
    return kr_op_emit_error(op, "has %u operands, at most %d supported", n, KR_EW_MAX_OPERANDS);
  for (unsigned k = 0; k < n; k++) {
    if (kr_ew_operand(op, first + k, classes, &types[k])) return KR_FAILURE;
    if (kr_type_element(types[k]) == kr_type_element(types[0])) continue;
    char *a = kr_type_to_cstr(types[0]), *b = kr_type_to_cstr(types[k]);
    kr_op_emit_error(op, "operands #%u ('%s') and #%u ('%s') must have the same element type, got '%s' and '%s'", first,
                     kr_schema_operand_name(op, first), first + k, kr_schema_operand_name(op, first + k), a, b);
    free(a), free(b);
    return KR_FAILURE;
  }
  return KR_SUCCESS;
}

kr_status kr_ew_broadcast_type(kr_op *op, const kr_type *types, unsigned n, kr_type elem, kr_type *out) {
  int64_t dims[KR_OP_MAX_RANK];
  unsigned rank;
  if (kr_op_broadcast_shapes(op, types, n, dims, &rank)) return KR_FAILURE;
  *out = kr_type_tensor(kr_op_context(op), dims, rank, elem);
  return KR_SUCCESS;
}

kr_type kr_ew_with_elem(kr_op *op, kr_type t, kr_type elem) {
  return kr_type_tensor(kr_op_context(op), t->u.shaped.dims, t->u.shaped.rank, elem);
}

kr_type kr_ew_bool(kr_op *op) { return kr_type_integer(kr_op_context(op), 1, KR_SIGNLESS); }

/* ---------------------------------------------------------------------------------------------
 * The ops. */

/* Y has X's type; X's element type must be in `classes`. */
static kr_status same_type(kr_op *op, kr_type *results, unsigned classes) {
  kr_type x;
  if (kr_ew_operand(op, 0, classes, &x)) return KR_FAILURE;
  results[0] = x;
  return KR_SUCCESS;
}

/* Y has X's shape and i1 elements. */
static kr_status predicate(kr_op *op, kr_type *results, unsigned classes) {
  kr_type x;
  if (kr_ew_operand(op, 0, classes, &x)) return KR_FAILURE;
  results[0] = kr_ew_with_elem(op, x, kr_ew_bool(op));
  return KR_SUCCESS;
}

/* Abs-13, Neg-13, Sign-13: numeric (Neg's T has no unsigned type; Neg of an unsigned integer
 * wraps here, as two's complement). */
kr_status kr_infer_abs(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_NUMERIC); }
kr_status kr_infer_neg(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT | KR_EW_SINT); }
kr_status kr_infer_sign(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_NUMERIC); }
/* Relu-14 (float and signed integers), Erf-13 (numeric). */
kr_status kr_infer_relu(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT | KR_EW_SINT); }
kr_status kr_infer_erf(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_NUMERIC); }

/* The floating-point-only ops (their T is tensor(float16|float|double|bfloat16)). */
kr_status kr_infer_exp(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_log(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_sqrt(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_reciprocal(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_sigmoid(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_tanh(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_floor(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_ceil(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_round(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_sin(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_cos(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_softplus(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_softsign(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_hard_sigmoid(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_hard_swish(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_leaky_relu(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_elu(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_selu(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_thresholded_relu(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }
kr_status kr_infer_mish(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_FLOAT); }

/* Celu-12: alpha must not be 0 (the formula divides by it). */
kr_status kr_infer_celu(kr_op *op, kr_type *results) {
  if (kr_op_attr_float(op, "alpha") == 0.0)
    return kr_op_emit_error(op, "attribute 'alpha' must not be 0 (ONNX Celu divides by it)");
  return same_type(op, results, KR_EW_FLOAT);
}

/* Identity-16 (any tensor; sequences and optionals are not korch types). */
kr_status kr_infer_identity(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_ANY); }
/* Not-1: bool only. */
kr_status kr_infer_not(kr_op *op, kr_type *results) { return same_type(op, results, KR_EW_BOOL); }
/* IsNaN-13, IsInf-10: float input, bool output. */
kr_status kr_infer_is_nan(kr_op *op, kr_type *results) { return predicate(op, results, KR_EW_FLOAT); }
kr_status kr_infer_is_inf(kr_op *op, kr_type *results) { return predicate(op, results, KR_EW_FLOAT); }

/* Clip-13: min and max, when present, are scalars of input's element type (a one-element
 * tensor of any rank is accepted: exporters write [1]). */
kr_status kr_infer_clip(kr_op *op, kr_type *results) {
  kr_type x, b;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &x)) return KR_FAILURE;
  for (unsigned i = 1; i < op->num_operands; i++) {
    if (!kr_op_operand_present(op, i)) continue;
    if (kr_ew_operand(op, i, KR_EW_NUMERIC, &b)) return KR_FAILURE;
    char *s = kr_type_to_cstr(b), *t = kr_type_to_cstr(x);
    kr_status st = KR_SUCCESS;
    if (kr_type_element(b) != kr_type_element(x))
      st = kr_op_emit_error(op, "operand #%u ('%s') must have the element type of 'input' ('%s'), got '%s'", i,
                            i == 1 ? "min" : "max", t, s);
    else if (kr_type_num_elements(b) != 1)
      st = kr_op_emit_error(op, "operand #%u ('%s') must be a scalar (one element), got '%s'", i,
                            i == 1 ? "min" : "max", s);
    free(s), free(t);
    if (st) return st;
  }
  results[0] = x;
  return KR_SUCCESS;
}

/* The `to` of Cast-13: any tensor element type korch holds (strings are not). */
static kr_status cast_to(kr_op *op, kr_type x, kr_type to, kr_type *results) {
  if (!to) return kr_op_emit_error(op, "requires attribute 'to' (the target element type)");
  if (!kr_ew_class(to)) {
    char *s = kr_type_to_cstr(to);
    kr_op_emit_error(op,
                     "cannot cast to '%s': the target must be a tensor element type (f16, bf16, f32, f64, i1, "
                     "i8..i64, ui8..ui64)",
                     s);
    free(s);
    return KR_FAILURE;
  }
  results[0] = kr_ew_with_elem(op, x, to);
  return KR_SUCCESS;
}

kr_status kr_infer_cast(kr_op *op, kr_type *results) {
  kr_type x;
  if (kr_ew_operand(op, 0, KR_EW_ANY, &x)) return KR_FAILURE;
  return cast_to(op, x, kr_op_attr_type(op, "to"), results);
}

/* CastLike-15: the element type of target_type (its values are not read). */
kr_status kr_infer_cast_like(kr_op *op, kr_type *results) {
  kr_type x, t;
  if (kr_ew_operand(op, 0, KR_EW_ANY, &x) || kr_ew_operand(op, 1, KR_EW_ANY, &t)) return KR_FAILURE;
  return cast_to(op, x, kr_type_element(t), results);
}

/* Dropout-13.  ratio is a float scalar (default 0.5, in [0, 1)), training_mode a bool scalar
 * (default false).  Inference (or ratio 0) is the identity with an all-true mask.  Training with
 * ratio > 0 drops random elements: korch reproduces it only with the `seed` attribute, as ONNX's
 * reference does (numpy's RandomState(seed).uniform), and rejects it without one when
 * training_mode is a constant (otherwise the kernel reports it). */
kr_status kr_infer_dropout(kr_op *op, kr_type *results) {
  kr_type x, r, t;
  if (kr_ew_operand(op, 0, KR_EW_FLOAT, &x)) return KR_FAILURE;
  double ratio = 0.5;
  if (kr_op_operand_present(op, 1)) {
    if (kr_ew_operand(op, 1, KR_EW_FLOAT, &r)) return KR_FAILURE;
    if (kr_type_num_elements(r) != 1) return kr_op_emit_error(op, "operand #1 ('ratio') must be a scalar");
    if (kr_op_constant_operand(op, 1)) {
      if (kr_op_constant_floats(op, 1, &ratio, 1) < 0) return KR_FAILURE;
      if (!(ratio >= 0 && ratio < 1)) return kr_op_emit_error(op, "ratio %g is out of range [0, 1)", ratio);
    }
  }
  if (kr_op_operand_present(op, 2)) {
    if (kr_ew_operand(op, 2, KR_EW_BOOL, &t)) return KR_FAILURE;
    if (kr_type_num_elements(t) != 1) return kr_op_emit_error(op, "operand #2 ('training_mode') must be a scalar");
    int64_t training = 0;
    if (kr_op_constant_operand(op, 2) && kr_op_constant_ints(op, 2, &training, 1) < 0) return KR_FAILURE;
    if (training && ratio > 0 && !kr_op_attr_present(op, "seed"))
      return kr_op_emit_error(op,
                              "training mode with ratio %g needs the 'seed' attribute: random dropout without a "
                              "seed cannot be reproduced",
                              ratio);
  }
  results[0] = x;
  if (op->num_results > 1) results[1] = kr_ew_with_elem(op, x, kr_ew_bool(op));
  return KR_SUCCESS;
}
