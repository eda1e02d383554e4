/* backend/interp/kernels_layout_resize.c - CPU reference kernel of ONNX Resize-13 (the version
 * of opset 17): nearest (4 rounding modes), N-d linear and cubic (cubic_coeff_a,
 * exclude_outside) interpolation under every coordinate_transformation_mode, with
 * tf_crop_and_resize's roi and extrapolation_value.
 *
 * The rules are those of Operators.md Resize and of the reference implementation ONNX's test
 * data comes from (onnx/reference/ops/op_resize.py, onnx 1.12 backend/test/case/node/resize.py):
 *  - the scale of an axis is the `scales` value, or size / in for `sizes`; "output_width" in the
 *    align_corners and tf_crop_and_resize formulas is scale * in (not rounded), which is what
 *    the test data of test_resize_downsample_scales_linear_align_corners shows;
 *  - interpolation is separable: each axis is a 1-D filter of n taps (nearest 2 choosing one,
 *    linear 2, cubic 4) around x_original, taps outside the input read the border element
 *    (edge padding), and an integral x_original takes ratio 1 on the taps ending at it;
 *  - tf_crop_and_resize gives extrapolation_value where x_original leaves [0, in - 1].
 * Linear and cubic run one axis at a time on a double buffer (the last axis first, as the
 * reference's recursion does); nearest is a gather with one index table per axis. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/interp/kernels_layout.h"

enum ctm { CTM_HALF_PIXEL, CTM_PYTORCH_HALF_PIXEL, CTM_ALIGN_CORNERS, CTM_ASYMMETRIC, CTM_TF_HALF_PIXEL_FOR_NN,
           CTM_TF_CROP_AND_RESIZE };
enum nearest { NEAREST_ROUND_PREFER_FLOOR, NEAREST_ROUND_PREFER_CEIL, NEAREST_FLOOR, NEAREST_CEIL };

/* One output coordinate of one axis: `n` taps from `base` (unclamped) with weights, or the
 * extrapolation value. */
typedef struct tap_set {
  int64_t base;
  double w[4];
  bool extrapolate;
} tap_set;

static double to_original(enum ctm m, double x, double scale, int64_t in, int64_t out, double roi_s, double roi_e,
                          bool *outside) {
  double ow = scale * (double)in;
  double r;
  *outside = false;
  switch (m) {
  case CTM_ALIGN_CORNERS: return ow == 1 ? 0.0 : x * (double)(in - 1) / (ow - 1);
  case CTM_ASYMMETRIC: return x / scale;
  case CTM_TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / scale;
  case CTM_PYTORCH_HALF_PIXEL: return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  case CTM_TF_CROP_AND_RESIZE:
    r = ow == 1 ? (roi_e - roi_s) * (double)(in - 1) / 2 : x * (roi_e - roi_s) * (double)(in - 1) / (ow - 1);
    r += roi_s * (double)(in - 1);
    *outside = r < 0 || r > (double)(in - 1);
    return r;
  case CTM_HALF_PIXEL: break;
  }
  return (x + 0.5) / scale - 0.5;
}

/* The taps of one output coordinate (see the file comment). */
static tap_set make_taps(double x, unsigned n, int mode, enum nearest nm, double A, bool exclude, int64_t in) {
  tap_set t = {0};
  /* Far outside the input every tap clamps to an edge pixel, so clamping x there changes nothing,
   * and keeps floor(x) convertible to int64 (a huge or infinite ROI; NaN goes to the low edge). */
  double lim = (double)in + 16.0;
  if (!(x > -16.0)) x = -16.0;
  if (x > lim) x = lim;
  double fl = floor(x);
  double ratio = x == fl ? 1.0 : x - fl;
  t.base = x == fl ? (int64_t)fl - (int64_t)(n / 2) : (int64_t)fl - (int64_t)(n / 2 - 1);
  if (mode == 0) {   /* nearest: coefficients [1, 0] or [0, 1] */
    bool up;
    if (ratio == 1.0) up = true;
    else if (nm == NEAREST_ROUND_PREFER_FLOOR) up = ratio > 0.5;
    else if (nm == NEAREST_ROUND_PREFER_CEIL) up = ratio >= 0.5;
    else up = nm == NEAREST_CEIL;
    t.w[0] = up ? 0 : 1;
    t.w[1] = up ? 1 : 0;
  } else if (mode == 1) {
    t.w[0] = 1 - ratio;
    t.w[1] = ratio;
  } else {
    double r1 = ratio + 1, s = 1 - ratio, s1 = s + 1;
    t.w[0] = ((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A;
    t.w[1] = ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1;
    t.w[2] = ((A + 2) * s - (A + 3)) * s * s + 1;
    t.w[3] = ((A * s1 - 5 * A) * s1 + 8 * A) * s1 - 4 * A;
  }
  if (exclude && mode != 0) {
    double sum = 0;
    for (unsigned k = 0; k < n; k++) {
      int64_t i = t.base + (int64_t)k;
      if (i < 0 || i >= in) t.w[k] = 0;
      sum += t.w[k];
    }
    if (sum != 0)
      for (unsigned k = 0; k < n; k++) t.w[k] /= sum;
  }
  return t;
}

static int64_t clamp_index(int64_t i, int64_t in) { return i < 0 ? 0 : i >= in ? in - 1 : i; }

/* Nearest: out[o] = in[idx_0[o_0], ..., idx_{r-1}[o_{r-1}]] or the extrapolation value; the
 * index tables hold -1 for extrapolated coordinates. */
static void resize_nearest(const kr_tensor *in, kr_tensor *out, int64_t *const *tables, double extrap) {
  unsigned rank = kr_tensor_rank(in);
  const int64_t *od = kr_tensor_dims(out);
  int64_t istride[KR_OP_MAX_RANK], idx[KR_OP_MAX_RANK] = {0};
  kr_dims_strides(kr_tensor_dims(in), rank, istride);
  size_t eb = kr_layout_elem_bytes(in);
  if (out->numel == 0) return;
  if (rank == 0) {
    memcpy(out->data, in->data, eb);
    return;
  }
  int64_t last = od[rank - 1], rows = out->numel / last;
  const int64_t *lt = tables[rank - 1];
  const char *sp = in->data;
  char *dp = out->data;
  for (int64_t r = 0, o = 0; r < rows; r++) {
    int64_t off = 0;
    bool ext = false;
    for (unsigned d = 0; d + 1 < rank; d++) {
      int64_t s = tables[d][idx[d]];
      if (s < 0) ext = true;
      else off += s * istride[d];
    }
    for (int64_t j = 0; j < last; j++, o++) {
      if (ext || lt[j] < 0) kr_tensor_set_f64(out, o, extrap);
      else if (eb == 4) ((uint32_t *)(void *)dp)[o] = ((const uint32_t *)(const void *)sp)[off + lt[j]];
      else memcpy(dp + (size_t)o * eb, sp + (off + lt[j]) * (int64_t)eb, eb);
    }
    for (int d = (int)rank - 2; d >= 0; d--) {
      if (++idx[d] < od[d]) break;
      idx[d] = 0;
    }
  }
}

/* One separable pass along axis d: src has dims cur (cur[d] = in size), dst gets cur[d] = out. */
static void filter_axis(const double *src, double *dst, const int64_t *cur, unsigned rank, unsigned d, int64_t out_len,
                        const tap_set *taps, unsigned n, double extrap) {
  int64_t outer = 1, inner = 1, in_len = cur[d];
  for (unsigned k = 0; k < d; k++) outer *= cur[k];
  for (unsigned k = d + 1; k < rank; k++) inner *= cur[k];
  for (int64_t o = 0; o < outer; o++) {
    const double *s = src + o * in_len * inner;
    for (int64_t x = 0; x < out_len; x++) {
      double *q = dst + (o * out_len + x) * inner;
      const tap_set *t = &taps[x];
      if (t->extrapolate) {
        for (int64_t i = 0; i < inner; i++) q[i] = extrap;
        continue;
      }
      if (inner == 1) {   /* the last axis: one dot product per output */
        double acc = 0;
        for (unsigned k = 0; k < n; k++) acc += t->w[k] * s[clamp_index(t->base + (int64_t)k, in_len)];
        *q = acc;
        continue;
      }
      for (int64_t i = 0; i < inner; i++) q[i] = 0;
      for (unsigned k = 0; k < n; k++) {
        /* Zero weights are applied too: the reference's dot product turns an inf tap into NaN. */
        double w = t->w[k];
        const double *row = s + clamp_index(t->base + (int64_t)k, in_len) * inner;
        for (int64_t i = 0; i < inner; i++) q[i] += w * row[i];
      }
    }
  }
}

/* Whether the pass along an axis would copy its input: every output x puts weight exactly 1
 * on input x and 0 elsewhere (half_pixel at scale 1, or an axis the resize leaves alone). */
static bool identity_taps(const tap_set *taps, int64_t len, unsigned n, int64_t in) {
  if (len != in) return false;
  for (int64_t x = 0; x < len; x++) {
    if (taps[x].extrapolate) return false;
    double on = 0, off = 0;
    for (unsigned k = 0; k < n; k++) {
      if (clamp_index(taps[x].base + (int64_t)k, in) == x) on += taps[x].w[k];
      else off += fabs(taps[x].w[k]);
    }
    if (on != 1.0 || off != 0.0) return false;
  }
  return true;
}

static kr_status resize_interp(kr_op *op, const kr_tensor *in, kr_tensor *out, tap_set *const *taps, unsigned n,
                               double extrap) {
  unsigned rank = kr_tensor_rank(in);
  const int64_t *id = kr_tensor_dims(in), *od = kr_tensor_dims(out);
  int64_t cur[KR_OP_MAX_RANK], maxn = in->numel;
  memcpy(cur, id, rank * sizeof *cur);
  /* The largest intermediate: the input with some axes already at their output size. */
  for (int d = (int)rank - 1; d >= 0; d--) {
    cur[d] = od[d];
    int64_t p = 1;
    for (unsigned k = 0; k < rank; k++) p *= cur[k];
    if (p > maxn) maxn = p;
  }
  memcpy(cur, id, rank * sizeof *cur);
  double *a = malloc((size_t)(maxn ? maxn : 1) * sizeof *a), *b = malloc((size_t)(maxn ? maxn : 1) * sizeof *b);
  if (!a || !b) {
    free(a), free(b);
    return kr_op_emit_error(op, "out of memory");
  }
  bool f32 = kr_tensor_elem(in)->kind == KR_TYPE_FLOAT && kr_tensor_elem(in)->u.fkind == KR_F32;
  for (int64_t i = 0; i < in->numel; i++) a[i] = f32 ? ((const float *)in->data)[i] : kr_tensor_get_f64(in, i);
  for (int d = (int)rank - 1; d >= 0; d--) {
    if (identity_taps(taps[d], od[d], n, id[d])) {
      cur[d] = od[d];
      continue;
    }
    filter_axis(a, b, cur, rank, (unsigned)d, od[d], taps[d], n, extrap);
    cur[d] = od[d];
    double *t = a;
    a = b, b = t;
  }
  for (int64_t i = 0; i < out->numel; i++) {
    if (f32) ((float *)out->data)[i] = (float)a[i];
    else kr_tensor_set_f64(out, i, a[i]);
  }
  free(a), free(b);
  return KR_SUCCESS;
}

static bool given(kr_op *op, kr_tensor *const *ins, unsigned i) { return i < op->num_operands && ins[i] && ins[i]->numel; }

kr_status kr_eval_resize(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *in = ins[0];
  kr_tensor *out = outs[0];
  unsigned rank = kr_tensor_rank(in);
  const int64_t *id = kr_tensor_dims(in), *od = kr_tensor_dims(out);
  double scales[KR_OP_MAX_RANK], sc[KR_OP_MAX_RANK], roi[2 * KR_OP_MAX_RANK];
  int64_t sizes[KR_OP_MAX_RANK], dims[KR_OP_MAX_RANK], ns = 0, nz = 0;
  if (given(op, ins, 2)) {
    if (ins[2]->numel > KR_OP_MAX_RANK) return kr_op_emit_error(op, "'scales' has too many values");
    ns = ins[2]->numel;
    for (int64_t i = 0; i < ns; i++) scales[i] = kr_tensor_get_f64(ins[2], i);
  }
  if (given(op, ins, 3) && (nz = kr_layout_read_ints(op, ins[3], sizes, KR_OP_MAX_RANK, "sizes")) < 0) return KR_FAILURE;
  if (kr_resize_dims(op, id, rank, scales, ns, sizes, nz, dims, sc)) return KR_FAILURE;
  for (unsigned d = 0; d < rank; d++)
    if (dims[d] != od[d]) return kr_op_emit_error(op, "the result type does not match 'scales'/'sizes'");

  const char *ms = kr_op_attr_string(op, "mode"), *cs = kr_op_attr_string(op, "coordinate_transformation_mode");
  const char *ns_ = kr_op_attr_string(op, "nearest_mode");
  int mode = !strcmp(ms, "nearest") ? 0 : !strcmp(ms, "linear") ? 1 : !strcmp(ms, "cubic") ? 2 : -1;
  static const char *const ctm_names[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                          "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  static const char *const nm_names[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  int ctm = -1, nm = -1;
  for (int i = 0; i < 6; i++)
    if (!strcmp(cs, ctm_names[i])) ctm = i;
  for (int i = 0; i < 4; i++)
    if (!strcmp(ns_, nm_names[i])) nm = i;
  if (mode < 0 || ctm < 0 || nm < 0) return kr_op_emit_error(op, "unsupported Resize mode combination");
  bool crop = ctm == CTM_TF_CROP_AND_RESIZE;
  if (crop) {
    if (!given(op, ins, 1) || ins[1]->numel != 2 * (int64_t)rank)
      return kr_op_emit_error(op, "tf_crop_and_resize needs 'roi' with 2 * rank values");
    for (int64_t i = 0; i < 2 * (int64_t)rank; i++) roi[i] = kr_tensor_get_f64(ins[1], i);
  }
  double A = kr_op_attr_float(op, "cubic_coeff_a"), extrap = kr_op_attr_float(op, "extrapolation_value");
  bool exclude = kr_op_attr_int(op, "exclude_outside") != 0;
  unsigned n = mode == 2 ? 4 : 2;

  /* Per-axis tables. */
  tap_set *taps[KR_OP_MAX_RANK] = {0};
  int64_t *nearest[KR_OP_MAX_RANK] = {0};
  kr_status st = KR_SUCCESS;
  for (unsigned d = 0; d < rank && !st; d++) {
    taps[d] = malloc((size_t)(od[d] ? od[d] : 1) * sizeof *taps[d]);
    nearest[d] = malloc((size_t)(od[d] ? od[d] : 1) * sizeof *nearest[d]);
    if (!taps[d] || !nearest[d]) {
      st = kr_op_emit_error(op, "out of memory");
      break;
    }
    for (int64_t x = 0; x < od[d]; x++) {
      bool outside;
      double xo = to_original((enum ctm)ctm, (double)x, sc[d], id[d], od[d], crop ? roi[d] : 0, crop ? roi[rank + d] : 1,
                              &outside);
      taps[d][x] = make_taps(xo, n, mode, (enum nearest)nm, A, exclude, id[d]);
      taps[d][x].extrapolate = outside;
      nearest[d][x] = outside ? -1 : clamp_index(taps[d][x].base + (taps[d][x].w[1] != 0), id[d]);
    }
  }
  if (!st && out->numel) {
    if (mode == 0) resize_nearest(in, out, nearest, extrap);
    else st = resize_interp(op, in, out, taps, n, extrap);
  }
  for (unsigned d = 0; d < rank; d++) free(taps[d]), free(nearest[d]);
  return st;
}
