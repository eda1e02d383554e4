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
 * coordinate transforms and taps come from the same code (dialects/op/resize_coords.[ch]), axes
 * are filtered from the last to the first, taps are summed in the kernel's order and zero
 * weights are applied as the kernel applies them.  The kernel accumulates in double; here
 * linear/cubic accumulate in f32 for f32/f16/bf16 input and in f64 for f64 and integer input
 * (then converted as the kernel's store converts), which stays far inside the conformance
 * tolerance. */
#include <stdlib.h>

#include "dialects/op/resize_coords.h"
#include "dialects/op/shape_layout.h"
#include "passes/fission/fission.h"

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

  kr_resize_params p;
  if (!kr_resize_read_params(op, &p)) return fx_fail(f, "unsupported Resize mode combination"), KR_FAILURE;
  bool crop = p.ctm == KR_RESIZE_TF_CROP_AND_RESIZE;
  if (crop) {
    int64_t nr = given(op, 1) ? kr_op_constant_floats(op, 1, roi, 2 * KR_OP_MAX_RANK) : 0;
    if (nr < 0) return f->failed = true, KR_FAILURE;
    if (nr != 2 * (int64_t)rank) return fx_fail(f, "tf_crop_and_resize needs 'roi' with 2 * rank values"), KR_FAILURE;
  }
  unsigned n = p.ntaps;
  /* The element type linear/cubic accumulate in. */
  kr_type acc_t = fx_is_float(elem) && elem->u.fkind != KR_F64 ? kr_type_float(f->ctx, KR_F32)
                                                                : kr_type_float(f->ctx, KR_F64);

  kr_value y = x;
  int64_t maxo = 1;
  for (unsigned d = 0; d < rank; d++)
    if (od[d] > maxo) maxo = od[d];
  kr_resize_taps *taps = malloc((size_t)maxo * sizeof *taps);
  int64_t *idx = malloc((size_t)maxo * sizeof *idx), *mask = malloc((size_t)maxo * sizeof *mask);
  double *w = malloc((size_t)maxo * sizeof *w);
  if (!taps || !idx || !mask || !w) {
    free(taps), free(idx), free(mask), free(w);
    return fx_fail(f, "out of memory"), KR_FAILURE;
  }
  for (int d = (int)rank - 1; d >= 0 && !f->failed; d--) {
    int64_t len = od[d], in = id[d];
    bool any_outside = kr_resize_axis_taps(&p, sc[d], in, len, crop ? roi[d] : 0, crop ? roi[rank + d] : 1, taps);
    for (int64_t o = 0; o < len; o++) mask[o] = taps[o].extrapolate;
    int64_t wd[KR_OP_MAX_RANK];   /* [len, 1, ..., 1]: weights broadcast along axis d */
    unsigned wr = rank - (unsigned)d;
    wd[0] = len;
    for (unsigned k = 1; k < wr; k++) wd[k] = 1;
    if (p.mode == KR_RESIZE_NEAREST) {
      bool identity = len == in && !any_outside;
      for (int64_t o = 0; o < len; o++) {
        idx[o] = taps[o].extrapolate ? 0 : kr_resize_nearest_index(&taps[o], in);
        if (idx[o] != o) identity = false;
      }
      if (identity) continue;
      y = fx_gather(f, y, fx_const_i64(f, fx_i64(f), idx, &len, 1), d);
    } else {
      if (kr_resize_identity_taps(taps, len, n, in)) continue;
      y = fx_cast(f, y, acc_t);
      kr_value sum = NULL;
      for (unsigned k = 0; k < n; k++) {
        for (int64_t o = 0; o < len; o++) {
          idx[o] = kr_resize_clamp_index(taps[o].base + (int64_t)k, in);
          w[o] = taps[o].w[k];
        }
        kr_value g = fx_gather(f, y, fx_const_i64(f, fx_i64(f), idx, &len, 1), d);
        kr_value term = fx_binary(f, "prim.mul", g, fx_const_f64(f, acc_t, w, wd, wr));
        sum = sum ? fx_binary(f, "prim.add", sum, term) : term;
      }
      y = sum;
    }
    if (any_outside) y = extrapolate(f, y, (unsigned)d, mask, len, p.extrapolation_value);
  }
  free(taps), free(idx), free(mask), free(w);
  results[0] = fx_cast(f, y, elem);
  return fx_status(f);
}
