/* dialects/op/resize_coords.c - coordinate transforms and filter taps of ONNX Resize-13 (opset
 * 17); the rules are quoted in resize_coords.h. */
#include <math.h>
#include <string.h>

#include "dialects/op/resize_coords.h"

/* The index of `s` in names[0 .. n), or -1 (also for a NULL s). */
static int find(const char *s, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (s && !strcmp(s, names[i])) return i;
  return -1;
}

bool kr_resize_read_params(kr_op *op, kr_resize_params *p) {
  static const char *const mode_names[] = {"nearest", "linear", "cubic"};
  static const char *const ctm_names[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                          "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  static const char *const nm_names[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  int mode = find(kr_op_attr_string(op, "mode"), mode_names, 3);
  int ctm = find(kr_op_attr_string(op, "coordinate_transformation_mode"), ctm_names, 6);
  int nm = find(kr_op_attr_string(op, "nearest_mode"), nm_names, 4);
  if (mode < 0 || ctm < 0 || nm < 0) return false;
  p->mode = (kr_resize_mode)mode;
  p->ctm = (kr_resize_ctm)ctm;
  p->nearest = (kr_resize_nearest_mode)nm;
  p->cubic_coeff_a = kr_op_attr_float(op, "cubic_coeff_a");
  p->exclude_outside = kr_op_attr_int(op, "exclude_outside") != 0;
  p->extrapolation_value = kr_op_attr_float(op, "extrapolation_value");
  p->ntaps = p->mode == KR_RESIZE_CUBIC ? 4 : 2;
  return true;
}

double kr_resize_to_original(kr_resize_ctm ctm, double x, double scale, int64_t in, int64_t out, double roi_s,
                             double roi_e, bool *outside) {
  double ow = scale * (double)in;
  double r;
  *outside = false;
  switch (ctm) {
  case KR_RESIZE_ALIGN_CORNERS: return ow == 1 ? 0.0 : x * (double)(in - 1) / (ow - 1);
  case KR_RESIZE_ASYMMETRIC: return x / scale;
  case KR_RESIZE_TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / scale;
  case KR_RESIZE_PYTORCH_HALF_PIXEL: return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  case KR_RESIZE_TF_CROP_AND_RESIZE:
    r = ow == 1 ? (roi_e - roi_s) * (double)(in - 1) / 2 : x * (roi_e - roi_s) * (double)(in - 1) / (ow - 1);
    r += roi_s * (double)(in - 1);
    *outside = r < 0 || r > (double)(in - 1);
    return r;
  case KR_RESIZE_HALF_PIXEL: break;
  }
  return (x + 0.5) / scale - 0.5;
}

kr_resize_taps kr_resize_make_taps(const kr_resize_params *p, double x, int64_t in) {
  kr_resize_taps t = {0};
  unsigned n = p->ntaps;
  double A = p->cubic_coeff_a;
  /* Far outside the input every tap clamps to an edge pixel, so clamping x there changes nothing,
   * and keeps floor(x) convertible to int64 (a huge or infinite ROI; NaN goes to the low edge). */
  double lim = (double)in + 16.0;
  if (!(x > -16.0)) x = -16.0;
  if (x > lim) x = lim;
  double fl = floor(x);
  double ratio = x == fl ? 1.0 : x - fl;
  t.base = x == fl ? (int64_t)fl - (int64_t)(n / 2) : (int64_t)fl - (int64_t)(n / 2 - 1);
  if (p->mode == KR_RESIZE_NEAREST) {   /* coefficients [1, 0] or [0, 1] */
    kr_resize_nearest_mode nm = p->nearest;
    bool up;
    if (ratio == 1.0) up = true;
    else if (nm == KR_RESIZE_ROUND_PREFER_FLOOR) up = ratio > 0.5;
    else if (nm == KR_RESIZE_ROUND_PREFER_CEIL) up = ratio >= 0.5;
    else up = nm == KR_RESIZE_CEIL;
    t.w[0] = up ? 0 : 1;
    t.w[1] = up ? 1 : 0;
  } else if (p->mode == KR_RESIZE_LINEAR) {
    t.w[0] = 1 - ratio;
    t.w[1] = ratio;
  } else {
    double r1 = ratio + 1, s = 1 - ratio, s1 = s + 1;
    t.w[0] = ((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A;
    t.w[1] = ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1;
    t.w[2] = ((A + 2) * s - (A + 3)) * s * s + 1;
    t.w[3] = ((A * s1 - 5 * A) * s1 + 8 * A) * s1 - 4 * A;
  }
  if (p->exclude_outside && p->mode != KR_RESIZE_NEAREST) {
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

bool kr_resize_axis_taps(const kr_resize_params *p, double scale, int64_t in, int64_t out, double roi_s,
                         double roi_e, kr_resize_taps *taps) {
  bool any_outside = false;
  for (int64_t x = 0; x < out; x++) {
    bool outside;
    double xo = kr_resize_to_original(p->ctm, (double)x, scale, in, out, roi_s, roi_e, &outside);
    taps[x] = kr_resize_make_taps(p, xo, in);
    taps[x].extrapolate = outside;
    any_outside |= outside;
  }
  return any_outside;
}

bool kr_resize_identity_taps(const kr_resize_taps *taps, int64_t len, unsigned ntaps, int64_t in) {
  if (len != in) return false;
  for (int64_t x = 0; x < len; x++) {
    if (taps[x].extrapolate) return false;
    double on = 0, off = 0;
    for (unsigned k = 0; k < ntaps; k++) {
      if (kr_resize_clamp_index(taps[x].base + (int64_t)k, in) == x) on += taps[x].w[k];
      else off += fabs(taps[x].w[k]);
    }
    if (on != 1.0 || off != 0.0) return false;
  }
  return true;
}
