/* dialects/op/shape_reduce.c - shape inference of the reduce ops (ONNX opset 17): ReduceX
 * (ReduceSum-13 with an axes operand, the others -13 with an `axes` attribute), ArgMax/ArgMin-13,
 * CumSum-14. */
#include <stdio.h>
#include <string.h>

#include "dialects/op/shape_elementwise.h"
#include "dialects/op/shape_reduce.h"

kr_status kr_axes_to_mask(kr_op *op, const char *what, const int64_t *axes, int64_t n, unsigned rank, bool *mask) {
  char value[96];
  snprintf(value, sizeof value, "%s value", what);
  for (unsigned d = 0; d < rank; d++) mask[d] = false;
  for (int64_t k = 0; k < n; k++) {
    int64_t a;
    if (kr_op_normalize_axis(op, value, axes[k], (int64_t)rank, &a)) return KR_FAILURE;
    if (mask[a]) return kr_op_emit_error(op, "%s names dimension %lld twice", what, (long long)a);
    mask[a] = true;
  }
  return KR_SUCCESS;
}

/* Axes lists longer than this are certainly invalid (duplicates): rank is at most KR_OP_MAX_RANK. */
#define MAX_AXES 64

kr_status kr_reduce_axes(kr_op *op, unsigned rank, const kr_tensor *axes_in, bool *mask, bool *noop) {
  int64_t axes[MAX_AXES];
  int64_t n = 0;
  const char *what;
  *noop = false;
  const kr_op_schema *schema = kr_op_get_schema(op);
  if (!schema) return kr_op_emit_error(op, "is not an op of the op dialect");
  bool operand_form = !strcmp(schema->onnx_name, "ReduceSum");
  if (operand_form) {
    what = "operand 'axes'";
    if (axes_in) {
      if (axes_in->numel > MAX_AXES) return kr_op_emit_error(op, "operand 'axes' has %lld elements, at most %d supported",
                                                             (long long)axes_in->numel, MAX_AXES);
      if (kr_tensor_elem(axes_in)->kind != KR_TYPE_INTEGER) return kr_op_emit_error(op, "operand 'axes' must hold integers");
      n = axes_in->numel;
      for (int64_t k = 0; k < n; k++) axes[k] = kr_tensor_get_i64(axes_in, k);
    } else if (kr_op_operand_present(op, 1)) {
      n = kr_op_constant_ints(op, 1, axes, MAX_AXES);
      if (n < 0) return KR_FAILURE;
    }
    if (n == 0 && kr_op_attr_int(op, "noop_with_empty_axes")) {
      *noop = true;
      for (unsigned d = 0; d < rank; d++) mask[d] = false;
      return KR_SUCCESS;
    }
  } else {
    what = "attribute 'axes'";
    const int64_t *vals;
    n = kr_op_attr_ints(op, "axes", &vals);
    if (n > MAX_AXES) return kr_op_emit_error(op, "attribute 'axes' has %lld elements, at most %d supported", (long long)n, MAX_AXES);
    if (n) memcpy(axes, vals, (size_t)n * sizeof *axes);
  }
  if (n == 0) {
    for (unsigned d = 0; d < rank; d++) mask[d] = true;
    return KR_SUCCESS;
  }
  return kr_axes_to_mask(op, what, axes, n, rank, mask);
}

/* ReduceX: the input's element type; reduced dimensions become 1 (keepdims = 1) or are dropped.
 * Reducing a zero-size dimension is allowed (ONNX-18 gives the identity of the reduction). */
static kr_status infer_reduce(kr_op *op, kr_type *results) {
  kr_type x;
  if (kr_op_operand_tensor(op, 0, &x)) return KR_FAILURE;
  unsigned rank = x->u.shaped.rank;
  bool mask[KR_OP_MAX_RANK], noop;
  if (kr_reduce_axes(op, rank, NULL, mask, &noop)) return KR_FAILURE;
  int64_t keepdims = kr_op_attr_int(op, "keepdims");
  if (keepdims != 0 && keepdims != 1)
    return kr_op_emit_error(op, "attribute 'keepdims' must be 0 or 1, got %lld", (long long)keepdims);
  bool keep = keepdims != 0;
  int64_t dims[KR_OP_MAX_RANK];
  unsigned n = 0;
  for (unsigned d = 0; d < rank; d++) {
    if (!mask[d]) dims[n++] = x->u.shaped.dims[d];
    else if (keep) dims[n++] = 1;
  }
  results[0] = kr_type_tensor(kr_op_context(op), dims, n, x->u.shaped.elem);
  return KR_SUCCESS;
}

kr_status kr_infer_reduce_sum(kr_op *op, kr_type *results) {
  /* ONNX Reduce*-13 T: numeric types, not bool. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  return infer_reduce(op, results);
}
kr_status kr_infer_reduce_mean(kr_op *op, kr_type *results) {
  /* ONNX Reduce*-13 T: numeric types, not bool. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  return infer_reduce(op, results);
}
kr_status kr_infer_reduce_max(kr_op *op, kr_type *results) {
  /* ONNX Reduce*-13 T: numeric types, not bool. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  return infer_reduce(op, results);
}
kr_status kr_infer_reduce_min(kr_op *op, kr_type *results) {
  /* ONNX Reduce*-13 T: numeric types, not bool. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  return infer_reduce(op, results);
}
kr_status kr_infer_reduce_prod(kr_op *op, kr_type *results) {
  /* ONNX Reduce*-13 T: numeric types, not bool. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  return infer_reduce(op, results);
}
kr_status kr_infer_reduce_sum_square(kr_op *op, kr_type *results) {
  /* ONNX Reduce*-13 T: numeric types, not bool. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  return infer_reduce(op, results);
}
kr_status kr_infer_reduce_l1(kr_op *op, kr_type *results) {
  /* ONNX Reduce*-13 T: numeric types, not bool. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  return infer_reduce(op, results);
}
kr_status kr_infer_reduce_l2(kr_op *op, kr_type *results) {
  /* ONNX Reduce*-13 T: numeric types, not bool. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  return infer_reduce(op, results);
}
kr_status kr_infer_reduce_log_sum(kr_op *op, kr_type *results) {
  /* ONNX Reduce*-13 T: numeric types, not bool. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  return infer_reduce(op, results);
}
kr_status kr_infer_reduce_log_sum_exp(kr_op *op, kr_type *results) {
  /* ONNX Reduce*-13 T: numeric types, not bool. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  return infer_reduce(op, results);
}

/* ArgMax/ArgMin-13: i64 indices; dimension `axis` becomes 1 or is dropped.  An empty axis has
 * no extremum (ONNX leaves it undefined): an error. */
static kr_status infer_arg(kr_op *op, kr_type *results) {
  kr_type x;
  if (kr_op_operand_tensor(op, 0, &x)) return KR_FAILURE;
  unsigned rank = x->u.shaped.rank;
  int64_t axis;
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), rank, &axis)) return KR_FAILURE;
  if (x->u.shaped.dims[axis] == 0)
    return kr_op_emit_error(op, "cannot take the index of an extremum over the empty dimension %lld", (long long)axis);
  int64_t keepdims = kr_op_attr_int(op, "keepdims");
  if (keepdims != 0 && keepdims != 1)
    return kr_op_emit_error(op, "attribute 'keepdims' must be 0 or 1, got %lld", (long long)keepdims);
  bool keep = keepdims != 0;
  int64_t dims[KR_OP_MAX_RANK];
  unsigned n = 0;
  for (unsigned d = 0; d < rank; d++) {
    if ((int64_t)d != axis) dims[n++] = x->u.shaped.dims[d];
    else if (keep) dims[n++] = 1;
  }
  kr_context *ctx = kr_op_context(op);
  results[0] = kr_type_tensor(ctx, dims, n, kr_type_integer(ctx, 64, KR_SIGNLESS));
  return KR_SUCCESS;
}

kr_status kr_infer_arg_max(kr_op *op, kr_type *results) {
  /* ONNX ArgMax-13 T: numeric types. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  return infer_arg(op, results);
}
kr_status kr_infer_arg_min(kr_op *op, kr_type *results) {
  /* ONNX ArgMin-13 T: numeric types. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  return infer_arg(op, results);
}

/* CumSum-14: y has x's type.  `axis` is a 0-d (or one-element 1-D) integer tensor in
 * [-rank, rank); checked here when it is a constant (the result shape does not depend on it). */
kr_status kr_infer_cum_sum(kr_op *op, kr_type *results) {
  /* ONNX CumSum-14 T: numeric types. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  kr_type x, a;
  if (kr_op_operand_tensor(op, 0, &x) || kr_op_operand_tensor(op, 1, &a)) return KR_FAILURE;
  if (a->u.shaped.rank > 1 || kr_type_num_elements(a) != 1 || a->u.shaped.elem->kind != KR_TYPE_INTEGER)
    return kr_op_emit_error(op, "operand 'axis' must be a 0-d or 1-element integer tensor");
  if (kr_op_constant_operand(op, 1)) {
    int64_t axis, norm;
    if (kr_op_constant_ints(op, 1, &axis, 1) < 0) return KR_FAILURE;
    if (kr_op_normalize_axis(op, "operand 'axis' value", axis, x->u.shaped.rank, &norm)) return KR_FAILURE;
  }
  results[0] = x;
  return KR_SUCCESS;
}
