/* passes/fission/rules_pool.c - fission rules of the pool family (Korch, ASPLOS'24, §3):
 * MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool (ONNX opset 17) into prim.pad +
 * prim.reduce_window (windowed pools) or prim.reduce_* (global pools).
 *
 * The window geometry (explicit and auto pads, ceil_mode, strides, dilations) comes from
 * kr_window_geom_forward, the function shape inference and the reference kernels
 * (backend/interp/kernels_pool.c) use.  Every rule computes what that kernel computes; where the
 * kernel's per-output arithmetic (window counts, windows lying entirely in padding, MaxPool's
 * Indices) is data-independent, it is computed here at compile time into constants. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/op/conv_pool_geom.h"
#include "passes/fission/fission.h"

static int64_t prod(const int64_t *d, unsigned n) {
  int64_t p = 1;
  for (unsigned i = 0; i < n; i++) p *= d[i];
  return p;
}

/* The geometry of a windowed pool on x [N, C, D...]; false (reported) on error. */
static bool pool_geom(kr_fission *f, kr_op *op, kr_value x, kr_window_geom *g) {
  const int64_t *kernel;
  unsigned nk = kr_op_attr_ints(op, "kernel_shape", &kernel);
  unsigned nsp = fx_rank(x) - 2;
  if (nk != nsp) return fx_fail(f, "kernel_shape has %u values for %u spatial axes", nk, nsp), false;
  if (kr_window_geom_forward(op, KR_WINDOW_POOL, fx_dims(x) + 2, kernel, nsp, g)) {
    f->failed = true;   /* reported at the op */
    return false;
  }
  return true;
}

/* Pads x [N, C, D...] with `value` so that a stride/dilation window walk over the padded input
 * yields exactly g->out windows: pad_begin at the start, and at the end whatever makes the
 * last window fit, (out-1)*s + d*(k-1) + 1 - D - pad_begin, which covers the explicit end pad
 * and ceil_mode's overhang and crops (negative) end pads no window reaches. */
static kr_value pool_pad(kr_fission *f, kr_value x, const kr_window_geom *g, kr_value value) {
  unsigned r = fx_rank(x);
  int64_t pads[2 * KR_OP_MAX_RANK] = {0};
  for (unsigned i = 0; i < g->nsp; i++) {
    int64_t eff = (g->kernel[i] - 1) * g->dilation[i] + 1;
    pads[2 + i] = g->pad_begin[i];
    pads[r + 2 + i] = (g->out[i] - 1) * g->stride[i] + eff - g->in[i] - g->pad_begin[i];
  }
  return fx_pad(f, x, pads, NULL, "constant", value);
}

/* prim.reduce_window(kind) over the spatial axes of the padded xp with g's window. */
static kr_value pool_window(kr_fission *f, kr_value xp, const kr_window_geom *g, const char *kind) {
  if (f->failed || !xp) return NULL;
  unsigned r = fx_rank(xp);
  int64_t win[KR_OP_MAX_RANK], str[KR_OP_MAX_RANK], dil[KR_OP_MAX_RANK];
  for (unsigned i = 0; i < r; i++) {
    bool sp = i >= 2;
    win[i] = sp ? g->kernel[i - 2] : 1;
    str[i] = sp ? g->stride[i - 2] : 1;
    dil[i] = sp ? g->dilation[i - 2] : 1;
  }
  return fx_prim(f, "prim.reduce_window", &xp, 1,
                 fx_dict(f, 4, "kind", fx_attr_str(f, kind), "window", fx_attr_ints(f, win, r), "strides",
                         fx_attr_ints(f, str, r), "dilations", fx_attr_ints(f, dil, r)));
}

/* The window walk of the kernel: for output position o (row-major over g->out) and window
 * element k (row-major over g->kernel), the input position on each spatial axis; returns
 * whether it lies inside the input and sets *in_padded (inside input or explicit pads, which
 * excludes ceil_mode's overhang), *row / *col the row- / column-major spatial offsets. */
static bool window_pos(const kr_window_geom *g, int64_t o, int64_t k, bool *in_padded, int64_t *row, int64_t *col) {
  unsigned n = g->nsp;
  int64_t start[KR_OP_MAX_RANK], rem = o;
  for (unsigned d = n; d-- > 0;) start[d] = (rem % g->out[d]) * g->stride[d] - g->pad_begin[d], rem /= g->out[d];
  bool inside = true;
  *in_padded = true;
  int64_t r = 0, c = 0, rs = 1, cs = 1;
  int64_t cstr[KR_OP_MAX_RANK];
  for (unsigned d = 0; d < n; d++) cstr[d] = cs, cs *= g->in[d];
  rem = k;
  for (unsigned d = n; d-- > 0;) {
    int64_t pos = start[d] + (rem % g->kernel[d]) * g->dilation[d];
    rem /= g->kernel[d];
    if (pos < 0 || pos >= g->in[d]) inside = false;
    if (pos < -g->pad_begin[d] || pos >= g->in[d] + g->pad_end[d]) *in_padded = false;
    r += pos * rs;
    c += pos * cstr[d];
    rs *= g->in[d];
  }
  *row = r;
  *col = c;
  return inside;
}

/* The lowest value of an element type: -inf for floats, the minimum for integers. */
static kr_value lowest_scalar(kr_fission *f, kr_type elem) {
  if (fx_is_float(elem)) return fx_scalar(f, elem, -INFINITY);
  unsigned w = elem->u.integer.width;
  int64_t v = elem->u.integer.sign == KR_UNSIGNED || w == 1 ? 0 : (w >= 64 ? INT64_MIN : -((int64_t)1 << (w - 1)));
  return fx_const_i64(f, elem, &v, NULL, 0);
}

/* ---------------------------------------------------------------------------------------------
 * MaxPool-12.
 *
 * Y: prim.pad with the lowest value (-inf; the minimum for integers) over the explicit/auto pads
 * and the ceil_mode overhang, then prim.reduce_window(max).  A window lying entirely in padding
 * (possible only with pads >= the window) gives what the kernel gives: Y = 0 and Indices = -1,
 * by a prim.select with a constant mask (built only when such windows exist).
 *
 * Indices (optional second result; ONNX: flat over N, C, D...; storage_order 1 makes the spatial
 * part column-major, as the kernel: (n*C + c)*prod(D) + spatial offset): gather-based, all index
 * arithmetic at compile time.  For every output position o and window slot j a constant table
 * holds the flat spatial input index (row-major) to read, or prod(D) (an appended lowest
 * element) for padding; the slots list the window's inside elements first, in window order,
 * then its padding ones, so that prim.arg_max's first-maximum rule picks what the kernel's
 * strict `>` scan picks, ties with the padding value included.  Then
 *   X [N, C, D...] -> reshape [N, C, P] -> pad one lowest element -> [N, C, P+1]
 *   -> prim.gather(axis 2, table [O, K]) -> [N, C, O, K] -> prim.arg_max(axis 3) = slot j
 *   -> j + o*K -> prim.gather of the constant [O*K] table of reported spatial offsets
 *   -> + (n*C + c)*P (constant [N, C, 1]) -> reshape [N, C, O...].
 * Known divergence: NaN.  The kernel skips a NaN unless it is a window's first inside element;
 * prim.reduce_window(max) and prim.arg_max propagate/select the first NaN. */
kr_status kr_fission_max_pool(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = fx_operand(f, 0);
  kr_window_geom g;
  if (!pool_geom(f, op, x, &g)) return KR_FAILURE;
  unsigned r = fx_rank(x), nsp = g.nsp;
  kr_type elem = fx_elem(x);
  kr_value low = lowest_scalar(f, elem);
  kr_value y = pool_window(f, pool_pad(f, x, &g, low), &g, "max");
  int64_t opl = prod(g.out, nsp), kp = prod(g.kernel, nsp), ip = prod(g.in, nsp);
  bool col_major = kr_op_attr_int(op, "storage_order") == 1;
  bool want_indices = op->num_results > 1 && kr_value_has_uses(kr_op_result(op, 1));
  /* Which windows hold an input element, and (for Indices) the slot tables. */
  int64_t n_tab = want_indices ? opl * kp : 0;
  int64_t *gidx = malloc((size_t)(n_tab ? n_tab : 1) * sizeof *gidx);
  int64_t *rep = malloc((size_t)(n_tab ? n_tab : 1) * sizeof *rep);
  int64_t *mask = malloc((size_t)(opl ? opl : 1) * sizeof *mask);
  if (!gidx || !rep || !mask) {
    free(gidx), free(rep), free(mask);
    return fx_fail(f, "out of memory"), KR_FAILURE;
  }
  bool any_empty = false, any_pad = false;
  for (int64_t o = 0; o < opl; o++) {
    int64_t slot = 0;
    mask[o] = 0;
    for (int pass = 0; pass < 2; pass++)
      for (int64_t k = 0; k < kp; k++) {
        bool in_padded;
        int64_t row, col;
        bool inside = window_pos(&g, o, k, &in_padded, &row, &col);
        if (inside) mask[o] = 1;
        if (!want_indices || inside != (pass == 0)) continue;
        gidx[o * kp + slot] = inside ? row : ip;
        rep[o * kp + slot] = inside ? (col_major ? col : row) : -1;
        if (!inside) any_pad = true;
        slot++;
      }
    if (!mask[o]) any_empty = true;
  }
  int64_t mdims[KR_OP_MAX_RANK];
  mdims[0] = mdims[1] = 1;
  memcpy(mdims + 2, g.out, nsp * sizeof *mdims);
  kr_value keep = any_empty ? fx_const_i64(f, fx_i1(f), mask, mdims, r) : NULL;
  if (keep) y = fx_select(f, keep, y, fx_splat_like(f, y, 0.0));
  results[0] = y;
  if (want_indices) {
    const int64_t *dx = fx_dims(x);
    int64_t nb = dx[0], nc = dx[1];
    int64_t d3[3] = {nb, nc, ip}, tdims[2] = {opl, kp};
    kr_value xf = fx_reshape(f, x, d3, 3);
    if (any_pad) {
      int64_t pads[6] = {0, 0, 0, 0, 0, 1};
      xf = fx_pad(f, xf, pads, NULL, "constant", low);
    }
    kr_value win = fx_gather(f, xf, fx_const_i64(f, fx_i64(f), gidx, tdims, 2), 2);   /* [N, C, O, K] */
    kr_value slot = fx_prim(f, "prim.arg_max", &win, 1,
                            fx_dict(f, 2, "axis", fx_attr_i(f, 3), "keepdims", fx_attr_i(f, 0)));   /* [N, C, O] */
    int64_t nbase = opl > nb * nc ? opl : nb * nc;
    int64_t *base = malloc((size_t)(nbase ? nbase : 1) * sizeof *base);
    if (!base) {
      free(gidx), free(rep), free(mask);
      return fx_fail(f, "out of memory"), KR_FAILURE;
    }
    for (int64_t o = 0; o < opl; o++) base[o] = o * kp;
    kr_value lin = fx_binary(f, "prim.add", slot, fx_const_i64(f, fx_i64(f), base, &opl, 1));
    int64_t ntab = opl * kp;
    kr_value sp = fx_gather(f, fx_const_i64(f, fx_i64(f), rep, &ntab, 1), lin, 0);   /* [N, C, O] */
    for (int64_t p = 0; p < nb * nc; p++) base[p] = p * ip;
    int64_t bdims[3] = {nb, nc, 1};
    kr_value idx = nb * nc == 1 ? sp : fx_binary(f, "prim.add", sp, fx_const_i64(f, fx_i64(f), base, bdims, 3));
    free(base);
    int64_t odims[KR_OP_MAX_RANK];
    odims[0] = nb, odims[1] = nc;
    memcpy(odims + 2, g.out, nsp * sizeof *odims);
    idx = fx_reshape(f, idx, odims, r);
    if (keep) idx = fx_select(f, keep, idx, fx_splat_like(f, idx, -1.0));
    results[1] = idx;
  }
  free(gidx), free(rep), free(mask);
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * AveragePool-11: prim.pad with 0, prim.reduce_window(sum), then a division by the kernel's
 * per-output window count, a compile-time constant: count_include_pad=0 counts the window
 * elements inside the input; count_include_pad=1 also those in the explicit/auto pads, but not
 * in ceil_mode's overhang (the kernel's rule, ONNX's reference implementation's too).  A count
 * of 0 (a window entirely in padding) divides 0 by 1 (the kernel stores 0).  A uniform count is
 * a splat; otherwise a [1, 1, O...] constant broadcast over N and C. */
kr_status kr_fission_average_pool(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = fx_operand(f, 0);
  kr_window_geom g;
  if (!pool_geom(f, op, x, &g)) return KR_FAILURE;
  unsigned r = fx_rank(x), nsp = g.nsp;
  bool include_pad = kr_op_attr_int(op, "count_include_pad") != 0;
  kr_value sum = pool_window(f, pool_pad(f, x, &g, NULL), &g, "sum");
  int64_t opl = prod(g.out, nsp), kp = prod(g.kernel, nsp);
  double *cnt = malloc((size_t)(opl ? opl : 1) * sizeof *cnt);
  if (!cnt) return fx_fail(f, "out of memory"), KR_FAILURE;
  bool uniform = true;
  for (int64_t o = 0; o < opl; o++) {
    int64_t c = 0;
    for (int64_t k = 0; k < kp; k++) {
      bool in_padded;
      int64_t row, col;
      bool inside = window_pos(&g, o, k, &in_padded, &row, &col);
      if (include_pad ? in_padded : inside) c++;
    }
    cnt[o] = c ? (double)c : 1.0;
    if (cnt[o] != cnt[0]) uniform = false;
  }
  kr_value div;
  if (uniform && (!opl || cnt[0] == 1.0)) {
    free(cnt);
    results[0] = sum;
    return fx_status(f);
  }
  if (uniform) {
    div = fx_splat_like(f, sum, opl ? cnt[0] : 1.0);
  } else {
    int64_t cdims[KR_OP_MAX_RANK];
    cdims[0] = cdims[1] = 1;
    memcpy(cdims + 2, g.out, nsp * sizeof *cdims);
    div = fx_const_f64(f, fx_elem(x), cnt, cdims, r);
  }
  free(cnt);
  results[0] = fx_binary(f, "prim.div", sum, div);
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * GlobalAveragePool-1 / GlobalMaxPool-1: a reduction over every spatial axis (keepdims), the
 * average divided by the plane size (an empty plane averages to 0, as the kernel; the maximum
 * of an empty plane is -inf, prim.reduce_max's identity, as the kernel). */
static kr_status global_pool(kr_fission *f, bool average, kr_value *results) {
  kr_value x = fx_operand(f, 0);
  unsigned r = fx_rank(x);
  int64_t axes[KR_OP_MAX_RANK];
  for (unsigned i = 2; i < r; i++) axes[i - 2] = i;
  kr_value y = fx_reduce(f, average ? "prim.reduce_sum" : "prim.reduce_max", x, axes, r - 2, true);
  if (average) {
    int64_t plane = prod(fx_dims(x) + 2, r - 2);
    y = plane == 1 ? y : plane ? fx_binary_scalar(f, "prim.div", y, (double)plane) : fx_splat_like(f, y, 0.0);
  }
  results[0] = y;
  return fx_status(f);
}

kr_status kr_fission_global_average_pool(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op;
  return global_pool(f, true, results);
}

kr_status kr_fission_global_max_pool(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op;
  return global_pool(f, false, results);
}
