/* dialects/prim/shape_reduction.c - shape rules of the reduction primitives (ops.def, Korch
 * ASPLOS'24 §3): reduce_* over a set of axes (ONNX Reduce*-13/18 with normalised, non-empty
 * axes), arg_max/arg_min (ONNX ArgMax/ArgMin-13), cum_sum (ONNX CumSum-14) and reduce_window
 * (the reduction of ONNX MaxPool/AveragePool-11 without padding).  Reductions take numeric
 * elements: fission casts booleans first. */
#include <string.h>

#include "dialects/prim/shape_util.h"

/* axes: not empty, strictly increasing, in [0, rank); keepdims 0/1.  y drops the axes, or keeps
 * them as size 1 under keepdims. */
static kr_status reduce(kr_op *op, kr_type *results) {
  kr_type x;
  const int64_t *axes;
  int64_t keep;
  char buf[256];
  if (kr_ps_operand(op, 0, KR_EW_NUMERIC, &x) || kr_ps_flag(op, "keepdims", &keep)) return KR_FAILURE;
  unsigned rank = x->u.shaped.rank;
  int64_t n = kr_op_attr_ints(op, "axes", &axes);
  if (n == 0) return kr_op_emit_error(op, "attribute 'axes' must not be empty");
  for (int64_t i = 0; i < n; i++) {
    if (axes[i] < 0 || axes[i] >= (int64_t)rank)
      return kr_op_emit_error(op, "attribute 'axes' %s has %lld out of range [0, %u)",
                              kr_ps_fmt(buf, sizeof buf, axes, n), (long long)axes[i], rank);
    if (i && axes[i] <= axes[i - 1])
      return kr_op_emit_error(op, "attribute 'axes' %s must be strictly increasing",
                              kr_ps_fmt(buf, sizeof buf, axes, n));
  }
  int64_t out[KR_OP_MAX_RANK];
  unsigned k = 0;
  int64_t j = 0;
  for (unsigned d = 0; d < rank; d++) {
    if (j < n && axes[j] == d) {
      j++;
      if (keep) out[k++] = 1;
    } else {
      out[k++] = x->u.shaped.dims[d];
    }
  }
  results[0] = kr_type_tensor(kr_op_context(op), out, k, kr_type_element(x));
  return KR_SUCCESS;
}

kr_status kr_prim_infer_reduce_sum(kr_op *op, kr_type *r) { return reduce(op, r); }
kr_status kr_prim_infer_reduce_max(kr_op *op, kr_type *r) { return reduce(op, r); }
kr_status kr_prim_infer_reduce_min(kr_op *op, kr_type *r) { return reduce(op, r); }
kr_status kr_prim_infer_reduce_prod(kr_op *op, kr_type *r) { return reduce(op, r); }

/* arg_max/arg_min: axis in [0, rank); keepdims and select_last_index 0/1; y is i64 with the
 * axis dropped or kept as size 1.  An empty axis has no extreme: rejected (ONNX leaves it
 * undefined). */
static kr_status arg(kr_op *op, kr_type *results) {
  kr_type x;
  int64_t axis, keep;
  if (kr_ps_operand(op, 0, KR_EW_NUMERIC, &x) || kr_ps_axis(op, "axis", x->u.shaped.rank, &axis) ||
      kr_ps_flag(op, "keepdims", &keep) || kr_ps_flag(op, "select_last_index", NULL))
    return KR_FAILURE;
  if (x->u.shaped.dims[axis] == 0)
    return kr_op_emit_error(op, "axis %lld of operand 'x' is empty: no extreme to index", (long long)axis);
  int64_t out[KR_OP_MAX_RANK];
  unsigned k = 0;
  for (unsigned d = 0; d < x->u.shaped.rank; d++) {
    if (d != axis)
      out[k++] = x->u.shaped.dims[d];
    else if (keep)
      out[k++] = 1;
  }
  results[0] = kr_type_tensor(kr_op_context(op), out, k, kr_type_integer(kr_op_context(op), 64, KR_SIGNLESS));
  return KR_SUCCESS;
}

kr_status kr_prim_infer_arg_max(kr_op *op, kr_type *r) { return arg(op, r); }
kr_status kr_prim_infer_arg_min(kr_op *op, kr_type *r) { return arg(op, r); }

/* cum_sum: axis in [0, rank); exclusive and reverse 0/1; y has x's type. */
kr_status kr_prim_infer_cum_sum(kr_op *op, kr_type *results) {
  kr_type x;
  int64_t axis;
  if (kr_ps_operand(op, 0, KR_EW_NUMERIC, &x) || kr_ps_axis(op, "axis", x->u.shaped.rank, &axis) ||
      kr_ps_flag(op, "exclusive", NULL) || kr_ps_flag(op, "reverse", NULL))
    return KR_FAILURE;
  results[0] = x;
  return KR_SUCCESS;
}

/* reduce_window: kind sum, max or min; window, strides and dilations one per axis of x, all >= 1;
 * the dilated window fits every axis: y.dims[d] = (dim - dilation*(window-1) - 1) / stride + 1. */
kr_status kr_prim_infer_reduce_window(kr_op *op, kr_type *results) {
  kr_type x;
  const int64_t *win, *str, *dil;
  if (kr_ps_operand(op, 0, KR_EW_NUMERIC, &x)) return KR_FAILURE;
  const char *kind = kr_op_attr_string(op, "kind");
  if (strcmp(kind, "sum") && strcmp(kind, "max") && strcmp(kind, "min"))
    return kr_op_emit_error(op, "attribute 'kind' must be sum, max or min, got \"%s\"", kind);
  unsigned rank = x->u.shaped.rank;
  const char *per = "one per axis of operand 'x'";
  if (kr_ps_ints_len(op, "window", rank, per, &win) || kr_ps_ints_len(op, "strides", rank, per, &str) ||
      kr_ps_ints_len(op, "dilations", rank, per, &dil) || kr_ps_ints_min(op, "window", win, rank, 1) ||
      kr_ps_ints_min(op, "strides", str, rank, 1) || kr_ps_ints_min(op, "dilations", dil, rank, 1))
    return KR_FAILURE;
  int64_t out[KR_OP_MAX_RANK];
  for (unsigned d = 0; d < rank; d++) {
    int64_t dim = x->u.shaped.dims[d], span;
    /* span = dilation * (window - 1) + 1, the extent the window covers */
    if (__builtin_mul_overflow(dil[d], win[d] - 1, &span) || span >= dim)
      return kr_op_emit_error(op, "the window of axis %u (window %lld, dilation %lld) does not fit its size %lld", d,
                              (long long)win[d], (long long)dil[d], (long long)dim);
    out[d] = (dim - span - 1) / str[d] + 1;
  }
  results[0] = kr_type_tensor(kr_op_context(op), out, rank, kr_type_element(x));
  return KR_SUCCESS;
}
