/* backend/interp/kernels_reduce.c - CPU reference kernels of the reduce ops (ONNX opset 17):
 * ReduceX-13 (ReduceSum-13 with its axes operand), ArgMax/ArgMin-13, CumSum-14.
 *
 * Reductions make one row-major pass over the input.  Dimensions of size 1 are dropped and
 * neighbouring dimensions that are both reduced or both kept are merged, so the common cases
 * (the last axis, the spatial axes of NCHW, everything) become one or two long contiguous loops;
 * an odometer over the outer merged dimensions tracks the output element.  Floats accumulate in
 * double (f32 read directly, other float types through a double copy), integers in 64 bits with
 * two's complement wrap-around (ONNX leaves overflow undefined; numpy wraps). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "backend/interp/f64_buffer.h"
#include "backend/interp/prim_shared.h"
#include "dialects/op/shape_reduce.h"

/* ---------------------------------------------------------------------------------------------
 * Reduction plan: merged dimensions of the input. */
typedef struct plan {
  int64_t m[KR_OP_MAX_RANK];        /* merged dims, size-1 dims dropped (at least one entry) */
  int64_t ostride[KR_OP_MAX_RANK];  /* output stride of each merged dim; 0 for reduced ones */
  bool red[KR_OP_MAX_RANK];
  unsigned k;
  int64_t in_numel, out_numel, count;   /* count: input elements per output element */
} plan;

static void make_plan(const int64_t *dims, unsigned rank, const bool *mask, plan *p) {
  p->k = 0;
  p->in_numel = p->out_numel = p->count = 1;
  for (unsigned d = 0; d < rank; d++) {
    p->in_numel *= dims[d];
    if (mask[d]) p->count *= dims[d];
    else p->out_numel *= dims[d];
    if (dims[d] == 1) continue;
    if (p->k && p->red[p->k - 1] == mask[d]) {
      p->m[p->k - 1] *= dims[d];
    } else {
      p->m[p->k] = dims[d];
      p->red[p->k] = mask[d];
      p->k++;
    }
  }
  if (!p->k) {
    p->m[0] = 1;
    p->red[0] = false;
    p->k = 1;
  }
  int64_t s = 1;
  for (unsigned i = p->k; i-- > 0;) {
    p->ostride[i] = p->red[i] ? 0 : s;
    if (!p->red[i]) s *= p->m[i];
  }
}

/* One pass over the input (p->in_numel > 0): COMBINE(acc, v, shift) folds element v into its
 * output's accumulator; `shift` (the per-output maximum) is only evaluated by LogSumExp. */
#define DEFINE_PASS(NAME, T, A, COMBINE)                                                           \
  static void NAME(const T *x, A *acc, const double *shift, const plan *p) {                       \
    int64_t idx[KR_OP_MAX_RANK] = {0};                                                             \
    const unsigned k = p->k;                                                                       \
    const int64_t inner = p->m[k - 1], outer = p->in_numel / inner;                                \
    int64_t o = 0;                                                                                 \
    (void)shift;                                                                                   \
    for (int64_t r = 0; r < outer; r++, x += inner) {                                              \
      if (p->red[k - 1]) {                                                                         \
        A a = acc[o];                                                                              \
        for (int64_t j = 0; j < inner; j++) {                                                      \
          A v = (A)x[j];                                                                           \
          COMBINE(a, v, shift[o]);                                                                 \
        }                                                                                          \
        acc[o] = a;                                                                                \
      } else {                                                                                     \
        for (int64_t j = 0; j < inner; j++) {                                                      \
          A v = (A)x[j];                                                                           \
          COMBINE(acc[o + j], v, shift[o + j]);                                                    \
        }                                                                                          \
      }                                                                                            \
      for (unsigned d = k - 1; d-- > 0;) {                                                         \
        o += p->ostride[d];                                                                        \
        if (++idx[d] < p->m[d]) break;                                                             \
        o -= p->ostride[d] * p->m[d];                                                              \
        idx[d] = 0;                                                                                \
      }                                                                                            \
    }                                                                                              \
  }

#define C_SUM(a, v, s) a += v
#define C_SUMSQ(a, v, s) a += v * v
#define C_L1(a, v, s) a += fabs(v)
#define C_PROD(a, v, s) a *= v
/* NaN propagates (numpy's max/min). */
#define C_MAX(a, v, s) a = (v > a || v != v) ? v : a
#define C_MIN(a, v, s) a = (v < a || v != v) ? v : a
#define C_EXPSUM(a, v, s) a += exp(v - s)
#define C_IL1(a, v, s) a += ((int64_t)v < 0 ? 0 - v : v)
#define C_IMAX(a, v, s) a = v > a ? v : a
#define C_IMIN(a, v, s) a = v < a ? v : a

typedef enum combine { K_SUM, K_SUMSQ, K_L1, K_PROD, K_MAX, K_MIN, K_EXPSUM, NUM_COMBINE } combine;
typedef enum finish { F_NONE, F_MEAN, F_SQRT, F_LOG, F_LSE } finish;

DEFINE_PASS(pass_f_sum, float, double, C_SUM)
DEFINE_PASS(pass_f_sumsq, float, double, C_SUMSQ)
DEFINE_PASS(pass_f_l1, float, double, C_L1)
DEFINE_PASS(pass_f_prod, float, double, C_PROD)
DEFINE_PASS(pass_f_max, float, double, C_MAX)
DEFINE_PASS(pass_f_min, float, double, C_MIN)
DEFINE_PASS(pass_f_expsum, float, double, C_EXPSUM)
DEFINE_PASS(pass_d_sum, double, double, C_SUM)
DEFINE_PASS(pass_d_sumsq, double, double, C_SUMSQ)
DEFINE_PASS(pass_d_l1, double, double, C_L1)
DEFINE_PASS(pass_d_prod, double, double, C_PROD)
DEFINE_PASS(pass_d_max, double, double, C_MAX)
DEFINE_PASS(pass_d_min, double, double, C_MIN)
DEFINE_PASS(pass_d_expsum, double, double, C_EXPSUM)
DEFINE_PASS(pass_i_sum, int64_t, uint64_t, C_SUM)
DEFINE_PASS(pass_i_sumsq, int64_t, uint64_t, C_SUMSQ)
DEFINE_PASS(pass_i_l1, int64_t, uint64_t, C_IL1)
DEFINE_PASS(pass_i_prod, int64_t, uint64_t, C_PROD)
DEFINE_PASS(pass_i_max, int64_t, int64_t, C_IMAX)
DEFINE_PASS(pass_i_min, int64_t, int64_t, C_IMIN)

typedef void (*pass_f)(const float *, double *, const double *, const plan *);
typedef void (*pass_d)(const double *, double *, const double *, const plan *);
static const pass_f passes_f[NUM_COMBINE] = {pass_f_sum, pass_f_sumsq, pass_f_l1, pass_f_prod,
                                             pass_f_max, pass_f_min, pass_f_expsum};
static const pass_d passes_d[NUM_COMBINE] = {pass_d_sum, pass_d_sumsq, pass_d_l1, pass_d_prod,
                                             pass_d_max, pass_d_min, pass_d_expsum};

static bool is_int_elem(kr_type e) { return e->kind == KR_TYPE_INTEGER || e->kind == KR_TYPE_INDEX; }

/* Integer inputs of the exact reductions: 64-bit accumulation, result wrapped to the type. */
static kr_status reduce_int(kr_op *op, const kr_tensor *x, kr_tensor *y, const plan *p, combine c, finish f) {
  int64_t *xi = kr_load_i64(x);
  int64_t *acc = malloc((size_t)(p->out_numel ? p->out_numel : 1) * sizeof *acc);
  if (!xi || !acc) {
    free(xi), free(acc);
    return kr_op_emit_error(op, "out of memory");
  }
  /* ui64 max/min: compare with the sign bit flipped (an order-preserving map onto int64). */
  bool flip = (c == K_MAX || c == K_MIN) && kr_type_is_unsigned_int(kr_tensor_elem(x)) &&
              kr_tensor_elem(x)->u.integer.width == 64;
  if (flip)
    for (int64_t i = 0; i < x->numel; i++) xi[i] ^= INT64_MIN;
  int64_t init = c == K_PROD ? 1 : c == K_MAX ? INT64_MIN : c == K_MIN ? INT64_MAX : 0;
  for (int64_t i = 0; i < p->out_numel; i++) acc[i] = init;
  if (p->in_numel) {
    switch (c) {
    case K_SUM: pass_i_sum(xi, (uint64_t *)acc, NULL, p); break;
    case K_SUMSQ: pass_i_sumsq(xi, (uint64_t *)acc, NULL, p); break;
    /* |x| = x for unsigned types (a ui64 >= 2^63 is negative only as int64). */
    case K_L1:
      if (kr_type_is_unsigned_int(kr_tensor_elem(x)))
        pass_i_sum(xi, (uint64_t *)acc, NULL, p);
      else
        pass_i_l1(xi, (uint64_t *)acc, NULL, p);
      break;
    case K_PROD: pass_i_prod(xi, (uint64_t *)acc, NULL, p); break;
    case K_MAX: pass_i_max(xi, acc, NULL, p); break;
    case K_MIN: pass_i_min(xi, acc, NULL, p); break;
    default: break;
    }
  }
  if (f == F_MEAN)
    for (int64_t i = 0; i < p->out_numel; i++) acc[i] = p->count ? acc[i] / p->count : 0;
  if ((c == K_MAX || c == K_MIN) && p->count == 0) {
    /* ONNX-18: the max (min) of nothing is the type's smallest (largest) value; set_f64
     * saturates to the element type's range. */
    for (int64_t i = 0; i < p->out_numel; i++) kr_tensor_set_f64(y, i, c == K_MAX ? -INFINITY : INFINITY);
  } else {
    if (flip)
      for (int64_t i = 0; i < p->out_numel; i++) acc[i] ^= INT64_MIN;
    kr_store_i64(y, acc);
  }
  free(xi), free(acc);
  return KR_SUCCESS;
}

/* Runs ONNX ReduceX: combine `c` over the reduced axes, then `f` on each accumulator.  Reducing
 * zero elements gives the identity of the combination (ONNX-18 semantics: sum 0, prod 1,
 * max -inf, min +inf, log-sum(-exp) -inf; the mean of nothing is NaN). */
static kr_status reduce_masked(kr_op *op, const kr_tensor *x, kr_tensor *y, const bool *mask, combine c, finish f) {
  plan p;
  make_plan(kr_tensor_dims(x), kr_tensor_rank(x), mask, &p);
  if (p.out_numel != y->numel) return kr_op_emit_error(op, "result has %lld elements, the reduction gives %lld",
                                                       (long long)y->numel, (long long)p.out_numel);
  kr_type e = kr_tensor_elem(x);
  if (is_int_elem(e) && c != K_EXPSUM && (f == F_NONE || f == F_MEAN)) return reduce_int(op, x, y, &p, c, f);

  bool f32 = kr_elem_is_fkind(e, KR_F32);
  double *xd = f32 ? NULL : kr_load_f64(x);
  size_t n = (size_t)(p.out_numel ? p.out_numel : 1);
  double *acc = malloc(n * sizeof *acc), *shift = NULL;
  if (c == K_EXPSUM) shift = malloc(n * sizeof *shift);
  if ((!f32 && !xd) || !acc || (c == K_EXPSUM && !shift)) {
    free(xd), free(acc), free(shift);
    return kr_op_emit_error(op, "out of memory");
  }
  if (c == K_EXPSUM) {
    /* log(sum(e^x)) = m + log(sum(e^(x - m))) with m the maximum: no overflow. */
    for (int64_t i = 0; i < p.out_numel; i++) shift[i] = -INFINITY;
    if (p.in_numel) {
      if (f32) pass_f_max(x->data, shift, NULL, &p);
      else pass_d_max(xd, shift, NULL, &p);
    }
    for (int64_t i = 0; i < p.out_numel; i++)
      if (!isfinite(shift[i])) shift[i] = shift[i] != shift[i] ? shift[i] : 0.0;
  }
  double init = c == K_PROD ? 1.0 : c == K_MAX ? -INFINITY : c == K_MIN ? INFINITY : 0.0;
  for (int64_t i = 0; i < p.out_numel; i++) acc[i] = init;
  if (p.in_numel) {
    if (f32) passes_f[c](x->data, acc, shift, &p);
    else passes_d[c](xd, acc, shift, &p);
  }
  for (int64_t i = 0; i < p.out_numel; i++) {
    switch (f) {
    case F_NONE: break;
    case F_MEAN: acc[i] = p.count ? acc[i] / (double)p.count : NAN; break;
    case F_SQRT: acc[i] = sqrt(acc[i]); break;
    case F_LOG: acc[i] = log(acc[i]); break;
    case F_LSE: acc[i] = shift[i] + log(acc[i]); break;
    }
  }
  kr_store_f64(y, acc);
  free(xd), free(acc), free(shift);
  return KR_SUCCESS;
}

static kr_status reduce(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs, combine c, finish f) {
  const kr_tensor *x = ins[0];
  kr_tensor *y = outs[0];
  unsigned rank = kr_tensor_rank(x);
  bool mask[KR_OP_MAX_RANK], noop;
  if (rank > KR_OP_MAX_RANK) return kr_op_emit_error(op, "rank %u exceeds the supported maximum %d", rank, KR_OP_MAX_RANK);
  if (kr_reduce_axes(op, rank, op->num_operands > 1 ? ins[1] : NULL, mask, &noop)) return KR_FAILURE;
  if (noop) {
    memcpy(y->data, x->data, y->nbytes < x->nbytes ? y->nbytes : x->nbytes);
    return KR_SUCCESS;
  }
  return reduce_masked(op, x, y, mask, c, f);
}

kr_status kr_interp_reduce(kr_op *op, const kr_tensor *x, kr_tensor *y, const bool *mask, kr_interp_reduce_kind kind) {
  static const combine map[] = {[KR_INTERP_REDUCE_SUM] = K_SUM, [KR_INTERP_REDUCE_MAX] = K_MAX,
                                [KR_INTERP_REDUCE_MIN] = K_MIN, [KR_INTERP_REDUCE_PROD] = K_PROD};
  return reduce_masked(op, x, y, mask, map[kind], F_NONE);
}

kr_status kr_eval_reduce_sum(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, K_SUM, F_NONE);
}

kr_status kr_eval_reduce_mean(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, K_SUM, F_MEAN);
}

kr_status kr_eval_reduce_max(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, K_MAX, F_NONE);
}

kr_status kr_eval_reduce_min(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, K_MIN, F_NONE);
}

kr_status kr_eval_reduce_prod(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, K_PROD, F_NONE);
}

kr_status kr_eval_reduce_sum_square(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, K_SUMSQ, F_NONE);
}

kr_status kr_eval_reduce_l1(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, K_L1, F_NONE);
}

kr_status kr_eval_reduce_l2(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, K_SUMSQ, F_SQRT);
}

kr_status kr_eval_reduce_log_sum(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, K_SUM, F_LOG);
}

kr_status kr_eval_reduce_log_sum_exp(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return reduce(op, ins, outs, K_EXPSUM, F_LSE);
}

/* ---------------------------------------------------------------------------------------------
 * ArgMax / ArgMin: for each (outer, inner) position the index along `axis` of the first extremum
 * (the last one with select_last_index = 1).  Rows are scanned along the contiguous inner
 * dimension with running best values. */
#define DEFINE_ARG(NAME, T)                                                                        \
  static void NAME(const T *x, int64_t *out, int64_t outer, int64_t n, int64_t inner, bool is_max, \
                   bool last, T *best) {                                                           \
    for (int64_t o = 0; o < outer; o++) {                                                          \
      const T *xo = x + o * n * inner;                                                             \
      int64_t *yo = out + o * inner;                                                               \
      for (int64_t i = 0; i < inner; i++) best[i] = xo[i], yo[i] = 0;                              \
      for (int64_t j = 1; j < n; j++) {                                                            \
        const T *row = xo + j * inner;                                                             \
        for (int64_t i = 0; i < inner; i++) {                                                      \
          T v = row[i], b = best[i];                                                               \
          /* numpy: a NaN is the extreme (the first, or with select_last_index the last, one). */   \
          bool better = b != b   ? (last && v != v)                                                \
                        : v != v ? true                                                            \
                        : is_max ? (last ? v >= b : v > b) : (last ? v <= b : v < b);              \
          if (better) best[i] = v, yo[i] = j;                                                      \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }

DEFINE_ARG(arg_f, float)
DEFINE_ARG(arg_d, double)
DEFINE_ARG(arg_i, int64_t)

static kr_status arg_extremum(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs, bool is_max) {
  const kr_tensor *x = ins[0];
  unsigned rank = kr_tensor_rank(x);
  int64_t axis;
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), rank, &axis)) return KR_FAILURE;
  const int64_t *dims = kr_tensor_dims(x);
  int64_t outer = 1, inner = 1, n = dims[axis];
  for (int64_t d = 0; d < axis; d++) outer *= dims[d];
  for (unsigned d = (unsigned)axis + 1; d < rank; d++) inner *= dims[d];
  if (n == 0) return kr_op_emit_error(op, "cannot take the index of an extremum over the empty dimension %lld", (long long)axis);
  if (x->numel == 0) return KR_SUCCESS;
  bool last = kr_op_attr_int(op, "select_last_index") != 0;
  kr_type e = kr_tensor_elem(x);
  int64_t *out = outs[0]->data;
  void *best = malloc((size_t)inner * 8);
  if (!best) return kr_op_emit_error(op, "out of memory");
  kr_status st = KR_SUCCESS;
  if (kr_elem_is_fkind(e, KR_F32)) {
    arg_f(x->data, out, outer, n, inner, is_max, last, best);
  } else if (kr_elem_is_fkind(e, KR_F64)) {
    arg_d(x->data, out, outer, n, inner, is_max, last, best);
  } else if (is_int_elem(e)) {
    int64_t *xi = kr_load_i64(x);
    /* ui64 orders like int64 once the sign bit is flipped (ui8..ui32 load non-negative). */
    if (xi && kr_type_is_unsigned_int(e) && e->u.integer.width == 64)
      for (int64_t i = 0; i < x->numel; i++) xi[i] ^= INT64_MIN;
    if (xi) arg_i(xi, out, outer, n, inner, is_max, last, best);
    else st = kr_op_emit_error(op, "out of memory");
    free(xi);
  } else {
    double *xd = kr_load_f64(x);
    if (xd) arg_d(xd, out, outer, n, inner, is_max, last, best);
    else st = kr_op_emit_error(op, "out of memory");
    free(xd);
  }
  free(best);
  return st;
}

kr_status kr_eval_arg_max(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return arg_extremum(op, ins, outs, true);
}

kr_status kr_eval_arg_min(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return arg_extremum(op, ins, outs, false);
}

/* ---------------------------------------------------------------------------------------------
 * CumSum-14: running sums along `axis`, from the end with reverse = 1; exclusive = 1 leaves the
 * current element out (the first output is 0).  `run` holds one accumulator per inner position. */
#define DEFINE_CUMSUM(NAME, T, A)                                                                  \
  static void NAME(const T *x, T *y, int64_t outer, int64_t n, int64_t inner, bool excl, bool rev, A *run) { \
    for (int64_t o = 0; o < outer; o++) {                                                          \
      for (int64_t i = 0; i < inner; i++) run[i] = 0;                                              \
      for (int64_t jj = 0; jj < n; jj++) {                                                         \
        int64_t j = rev ? n - 1 - jj : jj;                                                         \
        const T *xr = x + (o * n + j) * inner;                                                     \
        T *yr = y + (o * n + j) * inner;                                                           \
        if (excl)                                                                                  \
          for (int64_t i = 0; i < inner; i++) yr[i] = (T)run[i], run[i] += (A)xr[i];               \
        else                                                                                       \
          for (int64_t i = 0; i < inner; i++) run[i] += (A)xr[i], yr[i] = (T)run[i];               \
      }                                                                                            \
    }                                                                                              \
  }

DEFINE_CUMSUM(cumsum_f, float, double)
DEFINE_CUMSUM(cumsum_d, double, double)
DEFINE_CUMSUM(cumsum_i, int64_t, uint64_t)

kr_status kr_eval_cum_sum(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *x = ins[0];
  kr_tensor *y = outs[0];
  unsigned rank = kr_tensor_rank(x);
  if (ins[1]->numel != 1 || !is_int_elem(kr_tensor_elem(ins[1])))
    return kr_op_emit_error(op, "operand 'axis' must be a 0-d or 1-element integer tensor");
  int64_t axis;
  if (kr_op_normalize_axis(op, "operand 'axis' value", kr_tensor_get_i64(ins[1], 0), rank, &axis)) return KR_FAILURE;
  return kr_interp_cum_sum(op, x, y, axis);
}

kr_status kr_interp_cum_sum(kr_op *op, const kr_tensor *x, kr_tensor *y, int64_t axis) {
  unsigned rank = kr_tensor_rank(x);
  const int64_t *dims = kr_tensor_dims(x);
  int64_t outer = 1, inner = 1, n = dims[axis];
  for (int64_t d = 0; d < axis; d++) outer *= dims[d];
  for (unsigned d = (unsigned)axis + 1; d < rank; d++) inner *= dims[d];
  if (x->numel == 0) return KR_SUCCESS;
  bool excl = kr_op_attr_int(op, "exclusive") != 0, rev = kr_op_attr_int(op, "reverse") != 0;
  kr_type e = kr_tensor_elem(x);
  void *run = malloc((size_t)inner * 8);
  if (!run) return kr_op_emit_error(op, "out of memory");
  kr_status st = KR_SUCCESS;
  if (kr_elem_is_fkind(e, KR_F32)) {
    cumsum_f(x->data, y->data, outer, n, inner, excl, rev, run);
  } else if (kr_elem_is_fkind(e, KR_F64)) {
    cumsum_d(x->data, y->data, outer, n, inner, excl, rev, run);
  } else if (is_int_elem(e)) {
    int64_t *xi = kr_load_i64(x), *yi = malloc((size_t)x->numel * sizeof *yi);
    if (xi && yi) {
      cumsum_i(xi, yi, outer, n, inner, excl, rev, run);
      kr_store_i64(y, yi);
    } else {
      st = kr_op_emit_error(op, "out of memory");
    }
    free(xi), free(yi);
  } else {
    double *xd = kr_load_f64(x), *yd = malloc((size_t)x->numel * sizeof *yd);
    if (xd && yd) {
      cumsum_d(xd, yd, outer, n, inner, excl, rev, run);
      kr_store_f64(y, yd);
    } else {
      st = kr_op_emit_error(op, "out of memory");
    }
    free(xd), free(yd);
  }
  free(run);
  return st;
}
