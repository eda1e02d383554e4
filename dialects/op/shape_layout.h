/* dialects/op/shape_layout.h - private to the layout ops: the index rules that shape inference
 * (dialects/op/shape_layout*.c) and the CPU kernels (backend/interp/kernels_layout*.c) share, so
 * that the result types and the values of an op can never disagree.  Every helper reports its
 * errors at `op` (kr_op_emit_error) and returns KR_FAILURE; rules are ONNX opset 17. */
#ifndef KORCH_DIALECTS_OP_SHAPE_LAYOUT_H
#define KORCH_DIALECTS_OP_SHAPE_LAYOUT_H

#include "dialects/op/op_impl.h"

/* The most values a shape operand may hold (Split's `split`, Slice's `starts`, ...). */
#define KR_LAYOUT_MAX_VALUES 4096

/* Slice-13: the per-axis start, step and count of Slice over `dims` (rank `rank`) given the
 * operand values: `starts`/`ends` (n each), `axes` (NULL: 0..n-1; negative ones count from the
 * back; repeats are errors) and `steps` (NULL: all 1; 0 is an error).  Axes not named keep
 * start 0, step 1, count dims[d].  Starts and ends are clamped as Operators.md Slice says:
 * negative values add dims[d], then [0, dims[d]] for positive steps and [0, dims[d]-1] /
 * [-1, dims[d]-1] for negative steps; INT64_MAX / INT64_MIN ends mean "to the end". */
kr_status kr_slice_resolve(kr_op *op, const int64_t *dims, unsigned rank, const int64_t *starts,
                           const int64_t *ends, int64_t n, const int64_t *axes, const int64_t *steps,
                           int64_t *start_out, int64_t *step_out, int64_t *count_out);

/* Transpose-13: `perm`, checked to be a permutation of [0, rank), or the reversed axes when
 * the attribute is absent. */
kr_status kr_layout_transpose_perm(kr_op *op, unsigned rank, int64_t *perm);

/* Split-13: the sizes of `num_outputs` parts of a dim of size `dim`: the `split` values (n of
 * them, NULL when the operand is absent) or equal parts, which Split-13..17 require to divide
 * `dim` exactly. */
kr_status kr_split_sizes(kr_op *op, int64_t dim, unsigned num_outputs, const int64_t *split, int64_t n,
                         int64_t *sizes);

/* Resize-13: output dims and per-axis scale factors of resizing `in_dims` (rank `rank`) by
 * `scales` (ns values, 0: absent) or to `sizes` (nz values, 0: absent); exactly one must be
 * given, with `rank` values.  Output dim = floor(in * scale) for scales; the scale of an axis
 * given by sizes is size / in (the rule onnx/reference uses for the coordinate transforms). */
kr_status kr_resize_dims(kr_op *op, const int64_t *in_dims, unsigned rank, const double *scales, int64_t ns,
                         const int64_t *sizes, int64_t nz, int64_t *out_dims, double *out_scales);

/* Shape-15: [start, end) of the dims of a rank-`rank` tensor that Shape returns (negative
 * values add rank, then both are clamped to [0, rank]; end < start gives an empty range). */
void kr_shape_range(kr_op *op, int64_t rank, int64_t *start, int64_t *end);

/* Pad-13 pads (2*rank values: all begins, then all ends) checked: every output dim
 * d + begin + end must be >= 0. */
kr_status kr_pad_check(kr_op *op, const int64_t *dims, unsigned rank, const int64_t *pads, int64_t n);

/* OneHot-11 depth as an integer (a float depth is truncated, as the reference does); > 0. */
kr_status kr_one_hot_depth(kr_op *op, double depth, int64_t *out);

/* Range-11 element count max(ceil((limit - start) / delta), 0); integer types are computed in
 * integer arithmetic, floats in double.  delta 0 is an error. */
kr_status kr_range_count(kr_op *op, bool is_float, double fstart, double flimit, double fdelta, int64_t istart,
                         int64_t ilimit, int64_t idelta, int64_t *count);

#endif
