/* dialects/op/conv_pool_geom.h - sliding-window geometry shared by the shape inference and the
 * CPU kernels of Conv, ConvTranspose, MaxPool and AveragePool (ONNX opset 17).
 *
 * Shape inference and the kernels derive the pads, strides and output sizes from the same
 * attributes through these functions, so the two can never disagree.  Private to the op dialect
 * and backend/interp. */
#ifndef KORCH_DIALECTS_OP_CONV_POOL_GEOM_H
#define KORCH_DIALECTS_OP_CONV_POOL_GEOM_H

#include "dialects/op/op_impl.h"

/* The geometry of the spatial axes (the axes after N and C) of one windowed op. */
typedef struct kr_window_geom {
  unsigned nsp;                                  /* number of spatial axes */
  int64_t in[KR_OP_MAX_RANK];                    /* input spatial sizes */
  int64_t kernel[KR_OP_MAX_RANK];
  int64_t stride[KR_OP_MAX_RANK];
  int64_t dilation[KR_OP_MAX_RANK];
  int64_t pad_begin[KR_OP_MAX_RANK];             /* may be negative for ConvTranspose */
  int64_t pad_end[KR_OP_MAX_RANK];
  int64_t out_padding[KR_OP_MAX_RANK];           /* ConvTranspose only; 0 otherwise */
  int64_t out[KR_OP_MAX_RANK];                   /* output spatial sizes */
} kr_window_geom;

/* What kind of window the attributes describe: the output-size rule differs. */
typedef enum kr_window_kind {
  KR_WINDOW_CONV,            /* Conv: floor, auto_pad, dilations */
  KR_WINDOW_POOL,            /* MaxPool/AveragePool: floor or ceil (ceil_mode), auto_pad */
} kr_window_kind;

/* Fills `g` for Conv (kind CONV) or a pool (kind POOL) from the op's attributes `strides`,
 * `dilations` (1 when absent or not in the schema, as for AveragePool-17), `pads`, `auto_pad`
 * and `ceil_mode` (pools), given the input spatial sizes `in` and the kernel sizes `kernel`
 * (`nsp` of each).  Rules (ONNX Operators.md, Conv-11 / MaxPool-12 / AveragePool-11):
 *   NOTSET: out = floor_or_ceil((in + pb + pe - ((k-1)*d+1)) / s) + 1; with ceil_mode a last
 *           window starting past the input plus the left pad is dropped (PyTorch's rule, which
 *           ONNX adopted in MaxPool-19's clarification);
 *   VALID:  pads 0, out = floor((in - ((k-1)*d+1)) / s) + 1;
 *   SAME_UPPER / SAME_LOWER: out = ceil(in / s), total pad = max(0, (out-1)*s + (k-1)*d+1 - in)
 *           split in halves, the odd element at the end (UPPER) or the beginning (LOWER).
 * Reports an attribute of the wrong length, a non-positive stride/dilation/kernel, a negative
 * pad, an unknown auto_pad or an empty output at the op and returns KR_FAILURE. */
kr_status kr_window_geom_forward(kr_op *op, kr_window_kind kind, const int64_t *in, const int64_t *kernel,
                                 unsigned nsp, kr_window_geom *g);

/* Fills `g` for ConvTranspose-11 from `strides`, `dilations`, `pads`, `auto_pad`,
 * `output_padding` and `output_shape` (spatial sizes, or N, C and the spatial sizes).
 * Output size: s*(in-1) + output_padding + ((k-1)*d+1) - pb - pe.  With `output_shape`
 * (or auto_pad SAME_*, whose output is in*s) the pads come from
 * total = s*(in-1) + output_padding + ((k-1)*d+1) - out: SAME_UPPER puts floor(total/2) first,
 * otherwise total - floor(total/2) goes first (floor division: a negative total grows the
 * output at the end with zeros, as ONNX's reference implementation does). */
kr_status kr_window_geom_transpose(kr_op *op, const int64_t *in, const int64_t *kernel, unsigned nsp,
                                   kr_window_geom *g);

#endif
