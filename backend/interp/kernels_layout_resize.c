/* backend/interp/kernels_layout_resize.c - CPU reference kernel of ONNX Resize-13 (the version
 * of opset 17): nearest (4 rounding modes), N-d linear and cubic (cubic_coeff_a,
 * exclude_outside) interpolation under every coordinate_transformation_mode, with
 * tf_crop_and_resize's roi and extrapolation_value.
 *
 * The coordinate transforms and the taps of each axis (the rules of Operators.md Resize and of
 * onnx/reference/ops/op_resize.py, which ONNX's test data comes from) are computed by
 * dialects/op/resize_coords.[ch], shared with the fission rule of op.resize; the scale of an axis
 * is the `scales` value, or size / in for `sizes` (kr_resize_dims).
 * Linear and cubic run one axis at a time on a double buffer (the last axis first, as the
 * reference's recursion does); nearest is a gather with one index table per axis. */
#include <stdlib.h>
#include <string.h>

#include "backend/interp/kernels_layout.h"
#include "dialects/op/resize_coords.h"

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
                        const kr_resize_taps *taps, unsigned n, double extrap) {
  int64_t outer = 1, inner = 1, in_len = cur[d];
  for (unsigned k = 0; k < d; k++) outer *= cur[k];
  for (unsigned k = d + 1; k < rank; k++) inner *= cur[k];
  for (int64_t o = 0; o < outer; o++) {
    const double *s = src + o * in_len * inner;
    for (int64_t x = 0; x < out_len; x++) {
      double *q = dst + (o * out_len + x) * inner;
      const kr_resize_taps *t = &taps[x];
      if (t->extrapolate) {
        for (int64_t i = 0; i < inner; i++) q[i] = extrap;
        continue;
      }
      if (inner == 1) {   /* the last axis: one dot product per output */
        double acc = 0;
        for (unsigned k = 0; k < n; k++) acc += t->w[k] * s[kr_resize_clamp_index(t->base + (int64_t)k, in_len)];
        *q = acc;
        continue;
      }
      for (int64_t i = 0; i < inner; i++) q[i] = 0;
      for (unsigned k = 0; k < n; k++) {
        /* Zero weights are applied too: the reference's dot product turns an inf tap into NaN. */
        double w = t->w[k];
        const double *row = s + kr_resize_clamp_index(t->base + (int64_t)k, in_len) * inner;
        for (int64_t i = 0; i < inner; i++) q[i] += w * row[i];
      }
    }
  }
}

static kr_status resize_interp(kr_op *op, const kr_tensor *in, kr_tensor *out, kr_resize_taps *const *taps, unsigned n,
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
    if (kr_resize_identity_taps(taps[d], od[d], n, id[d])) {
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

  kr_resize_params p;
  if (!kr_resize_read_params(op, &p)) return kr_op_emit_error(op, "unsupported Resize mode combination");
  bool crop = p.ctm == KR_RESIZE_TF_CROP_AND_RESIZE;
  if (crop) {
    if (!given(op, ins, 1) || ins[1]->numel != 2 * (int64_t)rank)
      return kr_op_emit_error(op, "tf_crop_and_resize needs 'roi' with 2 * rank values");
    for (int64_t i = 0; i < 2 * (int64_t)rank; i++) roi[i] = kr_tensor_get_f64(ins[1], i);
  }

  /* Per-axis tables. */
  kr_resize_taps *taps[KR_OP_MAX_RANK] = {0};
  int64_t *nearest[KR_OP_MAX_RANK] = {0};
  kr_status st = KR_SUCCESS;
  for (unsigned d = 0; d < rank && !st; d++) {
    taps[d] = malloc((size_t)(od[d] ? od[d] : 1) * sizeof *taps[d]);
    nearest[d] = malloc((size_t)(od[d] ? od[d] : 1) * sizeof *nearest[d]);
    if (!taps[d] || !nearest[d]) {
      st = kr_op_emit_error(op, "out of memory");
      break;
    }
    kr_resize_axis_taps(&p, sc[d], id[d], od[d], crop ? roi[d] : 0, crop ? roi[rank + d] : 1, taps[d]);
    for (int64_t x = 0; x < od[d]; x++)
      nearest[d][x] = taps[d][x].extrapolate ? -1 : kr_resize_nearest_index(&taps[d][x], id[d]);
  }
  if (!st && out->numel) {
    if (p.mode == KR_RESIZE_NEAREST) resize_nearest(in, out, nearest, p.extrapolation_value);
    else st = resize_interp(op, in, out, taps, p.ntaps, p.extrapolation_value);
  }
  for (unsigned d = 0; d < rank; d++) free(taps[d]), free(nearest[d]);
  return st;
}
