/* passes/fission/rules_resize.c - fission rule of op.resize (ONNX Resize-13, the version of
 * opset 17; Korch, ASPLOS'24, §3 "operator fission").
 *
 * Resize is separable: every axis is a 1-D filter with taps at input positions that depend only
 * on the output coordinate, and `roi`/`scales`/`sizes` are constants at this level, so the taps
 * and their weights are computed here, at compile time, and each resized axis becomes
 *   nearest           one prim.gather with a constant index table;
 *   linear / cubic    2 / 4 gathers (tap k: the clamped input index base + k) and
 *                     y = sum_k gather_k * w_k, w_k a constant [out, 1, ..., 1] broadcast along
 *                     the axis (cubic_coeff_a and exclude_outside's renormalisation are in w_k);
 *   tf_crop_and_resize  output coordinates outside the input then take extrapolation_value
 *                     through prim.select with a constant i1 mask of the same shape.
 * An axis whose filter is the identity (same size and weight 1 on the same index, as half_pixel
 * at scale 1) is skipped.
 *
 * This follows the op-level kernel (backend/interp/kernels_layout_resize.c) step for step: the
 * coordinate transforms and tap rules are the same formulas (to_original / make_taps below are
 * that file's, kept in sync by hand), axes are filtered from the last to the first, taps are
 * summed in the kernel's order and zero weights are applied as the kernel applies them.  The
 * kernel accumulates in double; here linear/cubic accumulate in f32 for f32/f16/bf16 input and in
 * f64 for f64 and integer input (then converted as the kernel's store converts), which stays far
 * inside the conformance tolerance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/op/shape_layout.h"
#include "passes/fission/fission.h"

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

/* The input coordinate of output coordinate x (kernels_layout_resize.c, to_original). */
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

/* The taps of input coordinate x (kernels_layout_resize.c, make_taps): mode 0 nearest, 1 linear,
 * 2 cubic. */
static tap_set make_taps(double x, unsigned n, int mode, enum nearest nm, double A, bool exclude, int64_t in) {
  tap_set t = {0};
  double lim = (double)in + 16.0;
  if (!(x > -16.0)) x = -16.0;
  if (x > lim) x = lim;
  double fl = floor(x);
  double ratio = x == fl ? 1.0 : x - fl;
  t.base = x == fl ? (int64_t)fl - (int64_t)(n / 2) : (int64_t)fl - (int64_t)(n / 2 - 1);
  if (mode == 0) {
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

/* Whether filtering an axis would copy it (kernels_layout_resize.c, identity_taps). */
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

static int find(const char *s, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (s && !strcmp(s, names[i])) return i;
  return -1;
}

/* Operand i is present and holds at least one element (exporters write empty constants for an
 * absent roi/scales). */
static bool given(kr_op *op, unsigned i) {
  return kr_op_operand_present(op, i) && kr_type_num_elements(kr_value_type(kr_op_operand(op, i))) != 0;
}

/* y with the rows of `axis` whose mask entry is set replaced by `value` (mask: `len` flags). */
static kr_value extrapolate(kr_fission *f, kr_value y, unsigned axis, const int64_t *mask, int64_t len,
                            double value) {
  if (f->failed || !y) return NULL;
  int64_t dims[KR_OP_MAX_RANK];
  unsigned r = fx_rank(y) - axis;
  dims[0] = len;
  for (unsigned k = 1; k < r; k++) dims[k] = 1;
  kr_value m = fx_const_i64(f, fx_i1(f), mask, dims, r);
  return fx_select(f, m, fx_scalar(f, fx_elem(y), value), y);
}

/* Resize-13 (see the file comment).  X [d_0..d_{r-1}] -> Y of the result type (shape inference
 * already applied scales/sizes).  Errors: non-constant roi/scales/sizes, unsupported modes (the
 * verifier rejects them first). */
kr_status kr_fission_resize(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = fx_operand(f, 0);
  if (!x) return fx_status(f);
  unsigned rank = fx_rank(x);
  const int64_t *id = fx_dims(x);
  kr_type rt = kr_value_type(kr_op_result(op, 0));
  const int64_t *od = rt->u.shaped.dims;
  kr_type elem = fx_elem(x);

  double scales[KR_OP_MAX_RANK], sc[KR_OP_MAX_RANK], roi[2 * KR_OP_MAX_RANK];
  int64_t sizes[KR_OP_MAX_RANK], dims[KR_OP_MAX_RANK], ns = 0, nz = 0;
  if (given(op, 2) && (ns = kr_op_constant_floats(op, 2, scales, KR_OP_MAX_RANK)) < 0) return f->failed = true, KR_FAILURE;
  if (given(op, 3) && (nz = kr_op_constant_ints(op, 3, sizes, KR_OP_MAX_RANK)) < 0) return f->failed = true, KR_FAILURE;
  if (kr_resize_dims(op, id, rank, scales, ns, sizes, nz, dims, sc)) return f->failed = true, KR_FAILURE;
  for (unsigned d = 0; d < rank; d++)
    if (dims[d] != od[d]) return fx_fail(f, "the result type does not match 'scales'/'sizes'"), KR_FAILURE;

  static const char *const mode_names[] = {"nearest", "linear", "cubic"};
  static const char *const ctm_names[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                          "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  static const char *const nm_names[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  int mode = find(kr_op_attr_string(op, "mode"), mode_names, 3);
  int ctm = find(kr_op_attr_string(op, "coordinate_transformation_mode"), ctm_names, 6);
  int nm = find(kr_op_attr_string(op, "nearest_mode"), nm_names, 4);
  if (mode < 0 || ctm < 0 || nm < 0) return fx_fail(f, "unsupported Resize mode combination"), KR_FAILURE;
  bool crop = ctm == CTM_TF_CROP_AND_RESIZE;
  if (crop) {
    int64_t nr = given(op, 1) ? kr_op_constant_floats(op, 1, roi, 2 * KR_OP_MAX_RANK) : 0;
    if (nr < 0) return f->failed = true, KR_FAILURE;
    if (nr != 2 * (int64_t)rank) return fx_fail(f, "tf_crop_and_resize needs 'roi' with 2 * rank values"), KR_FAILURE;
  }
  double A = kr_op_attr_float(op, "cubic_coeff_a"), extrap = kr_op_attr_float(op, "extrapolation_value");
  bool exclude = kr_op_attr_int(op, "exclude_outside") != 0;
  unsigned n = mode == 2 ? 4 : 2;
  /* The element type linear/cubic accumulate in. */
  kr_type acc_t = fx_is_float(elem) && elem->u.fkind != KR_F64 ? kr_type_float(f->ctx, KR_F32)
                                                                : kr_type_float(f->ctx, KR_F64);

  kr_value y = x;
  int64_t maxo = 1;
  for (unsigned d = 0; d < rank; d++)
    if (od[d] > maxo) maxo = od[d];
  tap_set *taps = malloc((size_t)maxo * sizeof *taps);
  int64_t *idx = malloc((size_t)maxo * sizeof *idx), *mask = malloc((size_t)maxo * sizeof *mask);
  double *w = malloc((size_t)maxo * sizeof *w);
  if (!taps || !idx || !mask || !w) {
    free(taps), free(idx), free(mask), free(w);
    return fx_fail(f, "out of memory"), KR_FAILURE;
  }
  for (int d = (int)rank - 1; d >= 0 && !f->failed; d--) {
    int64_t len = od[d], in = id[d];
    bool any_outside = false;
    for (int64_t o = 0; o < len; o++) {
      bool outside;
      double xo = to_original((enum ctm)ctm, (double)o, sc[d], in, len, crop ? roi[d] : 0, crop ? roi[rank + d] : 1,
                              &outside);
      taps[o] = make_taps(xo, n, mode, (enum nearest)nm, A, exclude, in);
      taps[o].extrapolate = outside;
      mask[o] = outside;
      any_outside |= outside;
    }
    int64_t wd[KR_OP_MAX_RANK];   /* [len, 1, ..., 1]: weights broadcast along axis d */
    unsigned wr = rank - (unsigned)d;
    wd[0] = len;
    for (unsigned k = 1; k < wr; k++) wd[k] = 1;
    if (mode == 0) {
      bool identity = len == in && !any_outside;
      for (int64_t o = 0; o < len; o++) {
        idx[o] = taps[o].extrapolate ? 0 : clamp_index(taps[o].base + (taps[o].w[1] != 0), in);
        if (idx[o] != o) identity = false;
      }
      if (identity) continue;
      y = fx_gather(f, y, fx_const_i64(f, fx_i64(f), idx, &len, 1), d);
    } else {
      if (identity_taps(taps, len, n, in)) continue;
      y = fx_cast(f, y, acc_t);
      kr_value sum = NULL;
      for (unsigned k = 0; k < n; k++) {
        for (int64_t o = 0; o < len; o++) {
          idx[o] = clamp_index(taps[o].base + (int64_t)k, in);
          w[o] = taps[o].w[k];
        }
        kr_value g = fx_gather(f, y, fx_const_i64(f, fx_i64(f), idx, &len, 1), d);
        kr_value term = fx_binary(f, "prim.mul", g, fx_const_f64(f, acc_t, w, wd, wr));
        sum = sum ? fx_binary(f, "prim.add", sum, term) : term;
      }
      y = sum;
    }
    if (any_outside) y = extrapolate(f, y, (unsigned)d, mask, len, extrap);
  }
  free(taps), free(idx), free(mask), free(w);
  results[0] = fx_cast(f, y, elem);
  return fx_status(f);
}
