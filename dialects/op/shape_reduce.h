/* dialects/op/shape_reduce.h - private to the op dialect and its kernels: which dimensions a
 * reduction op reduces (shared by shape_reduce.c, kernels_reduce.c and kernels_norm.c). */
#ifndef KORCH_DIALECTS_OP_SHAPE_REDUCE_H
#define KORCH_DIALECTS_OP_SHAPE_REDUCE_H

#include "dialects/op/op_impl.h"

/* Resolves the axes of a ReduceX op (opset 13 forms; ReduceSum's are operand #1) against an
 * input of rank `rank`: sets mask[0..rank) to true for the reduced dimensions.
 *   - ReduceSum: `axes_in` is the kernel's view of operand #1 (NULL in shape inference, which
 *     reads the constant operand).  Absent or empty axes reduce every dimension, or none when
 *     noop_with_empty_axes = 1, in which case *noop is set (the op is the identity).
 *   - the others read the `axes` attribute; absent or empty reduces every dimension.
 * Axes may be negative (counted from the end); one out of [-rank, rank) or given twice is an
 * error reported at the op (ONNX: "duplicate axes are not allowed"). */
kr_status kr_reduce_axes(kr_op *op, unsigned rank, const kr_tensor *axes_in, bool *mask, bool *noop);

/* Resolves a list of `n` axes (attribute or operand values) into `mask` (rank entries):
 * normalises negative axes, rejects out-of-range and duplicate ones with an error at the op.
 * `what` names the list in messages ("attribute 'axes'"): "attribute 'axes' value 3 is out of
 * range [-2, 2)", "attribute 'axes' names dimension 1 twice". */
kr_status kr_axes_to_mask(kr_op *op, const char *what, const int64_t *axes, int64_t n, unsigned rank, bool *mask);

#endif
