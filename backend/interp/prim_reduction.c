/* backend/interp/prim_reduction.c - CPU reference kernels of the reduction primitives
 * (dialects/prim/ops.def; Korch, ASPLOS'24, §3).
 *
 * reduce_sum/max/min/prod, arg_max/min and cum_sum run the op-level kernels of ReduceX-13,
 * ArgMax/ArgMin-13 and CumSum-14 (kernels_reduce.c, through prim_shared.h), so they agree bit for
 * bit with the ops they come from: floats accumulate in double and round once, integers in 64
 * bits wrapping, max/min propagate NaN, an empty reduced set gives the identity.
 * reduce_window is pooling's reduction (MaxPool-12 / AveragePool-11 after prim.pad) and is
 * computed here: every output element folds the elements of its window through a precomputed
 * table of input offsets; f32 and f64 are read in place, other types through a double or int64
 * copy (f64_buffer.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/interp/f64_buffer.h"
#include "backend/interp/prim_shared.h"
#include "dialects/op/op_impl.h"
#include "dialects/prim/prim_impl.h"

/* The reduced-axis mask of the `axes` attribute (strictly increasing, in [0, rank)). */
static kr_status axes_mask(kr_op *op, unsigned rank, bool *mask) {
  const int64_t *axes;
  unsigned n = kr_op_attr_ints(op, "axes", &axes);
  for (unsigned d = 0; d < rank; d++) mask[d] = false;
  for (unsigned i = 0; i < n; i++) {
    if (axes[i] < 0 || axes[i] >= (int64_t)rank || (i && axes[i] <= axes[i - 1]))
      return kr_op_emit_error(op, "attribute 'axes' must be strictly increasing in [0, %u)", rank);
    mask[axes[i]] = true;
  }
  return KR_SUCCESS;
}

static kr_status reduce(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs, kr_interp_reduce_kind kind) {
  bool mask[KR_OP_MAX_RANK];
  unsigned rank = kr_tensor_rank(ins[0]);
  if (rank > KR_OP_MAX_RANK) return kr_op_emit_error(op, "rank %u exceeds the supported maximum %d", rank, KR_OP_MAX_RANK);
  if (axes_mask(op, rank, mask)) return KR_FAILURE;
  return kr_interp_reduce(op, ins[0], outs[0], mask, kind);
}

kr_status kr_prim_eval_reduce_sum(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, KR_INTERP_REDUCE_SUM);
}
kr_status kr_prim_eval_reduce_max(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, KR_INTERP_REDUCE_MAX);
}
kr_status kr_prim_eval_reduce_min(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, KR_INTERP_REDUCE_MIN);
}
kr_status kr_prim_eval_reduce_prod(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, KR_INTERP_REDUCE_PROD);
}

/* ArgMax/ArgMin-13: `axis`, `select_last_index` as the op's attributes (keepdims only shapes the
 * result), through the op-level kernel: the first (with select_last_index the last) extreme, a
 * NaN counting as the extreme (numpy's argmax). */
kr_status kr_prim_eval_arg_max(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return kr_eval_arg_max(op, ins, outs);
}
kr_status kr_prim_eval_arg_min(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return kr_eval_arg_min(op, ins, outs);
}

/* CumSum-14 with the axis as an attribute; `exclusive` and `reverse` as the op's. */
kr_status kr_prim_eval_cum_sum(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  int64_t axis = kr_op_attr_int(op, "axis");
  unsigned rank = kr_tensor_rank(ins[0]);
  if (axis < 0 || axis >= (int64_t)rank)
    return kr_op_emit_error(op, "attribute 'axis' %lld is out of range [0, %u)", (long long)axis, rank);
  return kr_interp_cum_sum(op, ins[0], outs[0], axis);
}

/* ---------------------------------------------------------------------------------------------
 * reduce_window. */

typedef enum win_kind { WIN_SUM, WIN_MAX, WIN_MIN } win_kind;

/* The iteration: output dims, the input offset step of each output axis (stride * input
 * stride) and the offsets of the window's elements relative to its first one. */
typedef struct window {
  unsigned rank;
  int64_t odims[KR_OP_MAX_RANK], ostep[KR_OP_MAX_RANK];
  int64_t numel, kp;
  const int64_t *woff;
} window;

/* One typed loop: the accumulator A starts at INIT and folds each window element with COMBINE;
 * the output element is (T)acc.  The odometer moves the window's base offset. */
#define DEFINE_WINDOW(NAME, T, A, INIT, COMBINE)                                                  \
  static void NAME(const T *x, T *y, const window *w) {                                           \
    int64_t idx[KR_OP_MAX_RANK] = {0}, base = 0;                                                  \
    for (int64_t o = 0; o < w->numel; o++) {                                                      \
      A a = INIT;                                                                                 \
      const T *xb = x + base;                                                                     \
      for (int64_t k = 0; k < w->kp; k++) {                                                       \
        A v = (A)xb[w->woff[k]];                                                                  \
        COMBINE(a, v);                                                                            \
      }                                                                                           \
      y[o] = (T)a;                                                                                \
      for (unsigned d = w->rank; d-- > 0;) {                                                      \
        base += w->ostep[d];                                                                      \
        if (++idx[d] < w->odims[d]) break;                                                        \
        base -= w->ostep[d] * w->odims[d];                                                        \
        idx[d] = 0;                                                                               \
      }                                                                                           \
    }                                                                                             \
  }

/* As kernels_reduce.c: NaN propagates through max/min; integer sums wrap (uint64). */
#define W_SUM(a, v) a += v
#define W_MAX(a, v) a = (v > a || v != v) ? v : a
#define W_MIN(a, v) a = (v < a || v != v) ? v : a
#define W_IMAX(a, v) a = v > a ? v : a
#define W_IMIN(a, v) a = v < a ? v : a

DEFINE_WINDOW(win_f_sum, float, double, 0.0, W_SUM)
DEFINE_WINDOW(win_f_max, float, float, -INFINITY, W_MAX)
DEFINE_WINDOW(win_f_min, float, float, INFINITY, W_MIN)
DEFINE_WINDOW(win_d_sum, double, double, 0.0, W_SUM)
DEFINE_WINDOW(win_d_max, double, double, -INFINITY, W_MAX)
DEFINE_WINDOW(win_d_min, double, double, INFINITY, W_MIN)
DEFINE_WINDOW(win_i_sum, int64_t, uint64_t, 0, W_SUM)
DEFINE_WINDOW(win_i_max, int64_t, int64_t, INT64_MIN, W_IMAX)
DEFINE_WINDOW(win_i_min, int64_t, int64_t, INT64_MAX, W_IMIN)

typedef void (*win_f_fn)(const float *, float *, const window *);
typedef void (*win_d_fn)(const double *, double *, const window *);
typedef void (*win_i_fn)(const int64_t *, int64_t *, const window *);

/* Integers go through int64 copies; unsigned ones are ordered for max/min by flipping the sign
 * bit (an order-preserving map of uint64 onto int64), and flipped back. */
static kr_status window_int(kr_op *op, const kr_tensor *x, kr_tensor *y, const window *w, win_kind kind) {
  static const win_i_fn fns[] = {win_i_sum, win_i_max, win_i_min};
  int64_t *xi = kr_load_i64(x), *yi = malloc((size_t)w->numel * sizeof *yi);
  if (!xi || !yi) {
    free(xi), free(yi);
    return kr_op_emit_error(op, "out of memory");
  }
  bool flip = kind != WIN_SUM && kr_type_is_unsigned_int(kr_tensor_elem(x));
  if (flip)
    for (int64_t i = 0; i < x->numel; i++) xi[i] = (int64_t)((uint64_t)xi[i] ^ (UINT64_C(1) << 63));
  fns[kind](xi, yi, w);
  if (flip)
    for (int64_t i = 0; i < w->numel; i++) yi[i] = (int64_t)((uint64_t)yi[i] ^ (UINT64_C(1) << 63));
  kr_store_i64(y, yi);
  free(xi), free(yi);
  return KR_SUCCESS;
}

/* `kind` sum, max or min over windows of `window` elements spaced `dilations` apart, moved by
 * `strides`, one entry of each per axis of x; no padding.  y.dims[d] must be
 * floor((dim - dilation*(window-1) - 1) / stride) + 1 (or 0 with an empty x). */
kr_status kr_prim_eval_reduce_window(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *x = ins[0];
  kr_tensor *y = outs[0];
  unsigned rank = kr_tensor_rank(x);
  const char *ks = kr_op_attr_string(op, "kind");
  win_kind kind;
  if (ks && !strcmp(ks, "sum")) kind = WIN_SUM;
  else if (ks && !strcmp(ks, "max")) kind = WIN_MAX;
  else if (ks && !strcmp(ks, "min")) kind = WIN_MIN;
  else return kr_op_emit_error(op, "attribute 'kind' must be sum, max or min, got \"%s\"", ks ? ks : "");
  const int64_t *wd, *st, *dl;
  if (kr_op_attr_ints(op, "window", &wd) != rank || kr_op_attr_ints(op, "strides", &st) != rank ||
      kr_op_attr_ints(op, "dilations", &dl) != rank || kr_tensor_rank(y) != rank)
    return kr_op_emit_error(op, "'window', 'strides', 'dilations' and the result need one entry per axis of x (%u)", rank);
  const int64_t *xd = kr_tensor_dims(x), *yd = kr_tensor_dims(y);
  window w = {.rank = rank, .numel = y->numel, .kp = 1};
  int64_t istride[KR_OP_MAX_RANK];
  kr_dims_strides(xd, rank, istride);
  for (unsigned d = 0; d < rank; d++) {
    if (wd[d] < 1 || st[d] < 1 || dl[d] < 1)
      return kr_op_emit_error(op, "window, stride and dilation on axis %u must be positive", d);
    int64_t span = xd[d] - dl[d] * (wd[d] - 1) - 1;
    int64_t want = span < 0 ? 0 : span / st[d] + 1;
    if (yd[d] != want)
      return kr_op_emit_error(op, "result dim %lld on axis %u does not match the window geometry (%lld)",
                              (long long)yd[d], d, (long long)want);
    w.odims[d] = yd[d];
    w.ostep[d] = st[d] * istride[d];
    w.kp *= wd[d];
  }
  if (y->numel == 0) return KR_SUCCESS;
  int64_t *woff = malloc((size_t)w.kp * sizeof *woff);
  if (!woff) return kr_op_emit_error(op, "out of memory");
  for (int64_t k = 0; k < w.kp; k++) {
    int64_t r = k, off = 0;
    for (unsigned d = rank; d-- > 0;) {
      off += (r % wd[d]) * dl[d] * istride[d];
      r /= wd[d];
    }
    woff[k] = off;
  }
  w.woff = woff;
  kr_status s = KR_SUCCESS;
  kr_type e = kr_tensor_elem(x);
  static const win_f_fn ffns[] = {win_f_sum, win_f_max, win_f_min};
  static const win_d_fn dfns[] = {win_d_sum, win_d_max, win_d_min};
  if (kr_elem_is_fkind(e, KR_F32)) {
    ffns[kind](x->data, y->data, &w);
  } else if (kr_elem_is_fkind(e, KR_F64)) {
    dfns[kind](x->data, y->data, &w);
  } else if (e->kind == KR_TYPE_FLOAT) {
    double *xb = kr_load_f64(x), *yb = malloc((size_t)w.numel * sizeof *yb);
    if (xb && yb) {
      dfns[kind](xb, yb, &w);
      kr_store_f64(y, yb);
    } else {
      s = kr_op_emit_error(op, "out of memory");
    }
    free(xb), free(yb);
  } else {
    s = window_int(op, x, y, &w, kind);
  }
  free(woff);
  return s;
}
