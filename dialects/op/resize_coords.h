/* dialects/op/resize_coords.h - coordinate transforms and filter taps of ONNX Resize (Resize-13,
 * the version of opset 17; Resize-13..17 share these rules), shared by the op-level CPU kernel
 * (backend/interp/kernels_layout_resize.c) and the fission rule of op.resize
 * (passes/fission/rules_resize.c), so that the two compute bit-identical taps and weights.
 *
 * The rules are those of Operators.md Resize and of the reference implementation ONNX's test
 * data comes from (onnx/reference/ops/op_resize.py, onnx 1.12 backend/test/case/node/resize.py):
 *  - an axis is resized independently of the others (separable filter): output coordinate x
 *    (an integer in [0, out)) maps to a real input coordinate x_original
 *    (kr_resize_to_original), and the output is a weighted sum of n input elements ("taps")
 *    around x_original: nearest 2 taps of which one has weight 1, linear 2, cubic 4;
 *  - taps outside [0, in) read the border element (edge padding, kr_resize_clamp_index);
 *  - tf_crop_and_resize gives extrapolation_value where x_original leaves [0, in - 1].
 * Coordinates are in elements of the axis (input or output); scales are output / input.
 * Private to the op dialect, backend/interp and the fission rules. */
#ifndef KORCH_DIALECTS_OP_RESIZE_COORDS_H
#define KORCH_DIALECTS_OP_RESIZE_COORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "korch/op.h"

/* Attribute `mode`. */
typedef enum kr_resize_mode { KR_RESIZE_NEAREST, KR_RESIZE_LINEAR, KR_RESIZE_CUBIC } kr_resize_mode;

/* Attribute `coordinate_transformation_mode` (the formulas are at kr_resize_to_original). */
typedef enum kr_resize_ctm {
  KR_RESIZE_HALF_PIXEL,
  KR_RESIZE_PYTORCH_HALF_PIXEL,
  KR_RESIZE_ALIGN_CORNERS,
  KR_RESIZE_ASYMMETRIC,
  KR_RESIZE_TF_HALF_PIXEL_FOR_NN,
  KR_RESIZE_TF_CROP_AND_RESIZE,
} kr_resize_ctm;

/* Attribute `nearest_mode`: how mode "nearest" rounds a fractional x_original. */
typedef enum kr_resize_nearest_mode {
  KR_RESIZE_ROUND_PREFER_FLOOR,
  KR_RESIZE_ROUND_PREFER_CEIL,
  KR_RESIZE_FLOOR,
  KR_RESIZE_CEIL,
} kr_resize_nearest_mode;

/* The attributes of one Resize op that shape the filter. */
typedef struct kr_resize_params {
  kr_resize_mode mode;
  kr_resize_ctm ctm;
  kr_resize_nearest_mode nearest;
  double cubic_coeff_a;          /* A of the cubic convolution kernel (default -0.75) */
  bool exclude_outside;          /* linear/cubic: zero the taps outside the input, renormalise */
  double extrapolation_value;    /* tf_crop_and_resize: the value outside the input */
  unsigned ntaps;                /* taps per output coordinate: 4 for cubic, 2 otherwise */
} kr_resize_params;

/* One output coordinate of one axis: `ntaps` taps at input indices base, base + 1, ...
 * (unclamped: clamp each with kr_resize_clamp_index) with weights w[k], or, when `extrapolate`
 * is set, the extrapolation value instead. */
typedef struct kr_resize_taps {
  int64_t base;
  double w[4];
  bool extrapolate;
} kr_resize_taps;

/* Reads `mode`, `coordinate_transformation_mode`, `nearest_mode`, `cubic_coeff_a`,
 * `exclude_outside` and `extrapolation_value` of `op` (schema defaults apply) into `p`.
 * Returns false, emitting nothing, when a string names no mode listed above (the caller reports
 * it); `p` is then partly filled. */
bool kr_resize_read_params(kr_op *op, kr_resize_params *p);

/* The input coordinate x_original of output coordinate `x` of an axis of `in` input and `out`
 * output elements at scale `scale` (scales[d], or out / in when `sizes` was given; see
 * kr_resize_dims).  With output_width = scale * in (real, not rounded):
 *   half_pixel            (x + 0.5) / scale - 0.5
 *   pytorch_half_pixel    (x + 0.5) / scale - 0.5 when out > 1, else 0
 *   align_corners         x * (in - 1) / (output_width - 1), 0 when output_width == 1
 *   asymmetric            x / scale
 *   tf_half_pixel_for_nn  (x + 0.5) / scale
 *   tf_crop_and_resize    roi_s * (in - 1) + x * (roi_e - roi_s) * (in - 1) / (output_width - 1),
 *                         or roi_s * (in - 1) + (roi_e - roi_s) * (in - 1) / 2 when
 *                         output_width == 1; *outside is set when the result leaves [0, in - 1].
 * `roi_s`/`roi_e` (this axis' roi start and end, normalised) matter only to tf_crop_and_resize;
 * *outside is false for every other mode. */
double kr_resize_to_original(kr_resize_ctm ctm, double x, double scale, int64_t in, int64_t out, double roi_s,
                             double roi_e, bool *outside);

/* The taps of input coordinate `x` (x_original) on an axis of `in` elements under p->mode,
 * p->nearest, p->cubic_coeff_a and p->exclude_outside.  With ratio = x - floor(x), or 1 when x
 * is integral (an integral x takes ratio 1 on the taps ending at it):
 *   nearest  2 taps from floor(x); weights [0, 1] when rounding up, else [1, 0]
 *   linear   2 taps from floor(x); weights [1 - ratio, ratio]
 *   cubic    4 taps from floor(x) - 1; the cubic convolution weights of A at distances
 *            1 + ratio, ratio, 1 - ratio, 2 - ratio
 * (base is one lower for an integral x).  exclude_outside (linear/cubic) zeroes the weights of
 * taps outside [0, in) and divides the rest by their sum when it is not 0.  `extrapolate` is
 * left false.  An x far outside the input (or NaN) is clamped to [-16, in + 16] first, which
 * changes no clamped tap and keeps floor(x) within int64. */
kr_resize_taps kr_resize_make_taps(const kr_resize_params *p, double x, int64_t in);

/* Fills taps[0 .. out) for one axis of `in` input and `out` output elements at scale `scale`:
 * kr_resize_to_original then kr_resize_make_taps for each output coordinate, `extrapolate`
 * set where tf_crop_and_resize leaves the input.  Returns whether any coordinate extrapolates. */
bool kr_resize_axis_taps(const kr_resize_params *p, double scale, int64_t in, int64_t out, double roi_s,
                         double roi_e, kr_resize_taps *taps);

/* Index i clamped into [0, in) (edge padding); `in` > 0. */
static inline int64_t kr_resize_clamp_index(int64_t i, int64_t in) { return i < 0 ? 0 : i >= in ? in - 1 : i; }

/* The input index mode "nearest" reads for taps `t` (the tap of weight 1), clamped into
 * [0, in); ignores t->extrapolate. */
static inline int64_t kr_resize_nearest_index(const kr_resize_taps *t, int64_t in) {
  return kr_resize_clamp_index(t->base + (t->w[1] != 0), in);
}

/* Whether filtering an axis with taps[0 .. len) (`ntaps` each) copies its input of `in`
 * elements: len == in, nothing extrapolates, and every output x puts total weight exactly 1 on
 * input x and 0 elsewhere (half_pixel at scale 1, or an axis the resize leaves alone). */
bool kr_resize_identity_taps(const kr_resize_taps *taps, int64_t len, unsigned ntaps, int64_t in);

#endif
