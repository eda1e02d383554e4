/* passes/fission/rules_reduce.c - fission rules of the reduce family (dialects/op/ops.def):
 * ReduceX-13 (ReduceSum-13 with its axes operand), ArgMax/ArgMin-13, CumSum-14 (ONNX opset 17),
 * into the reduction primitives of dialects/prim/ops.def (Korch, ASPLOS'24, §3).
 *
 * Each rule computes what the op-level kernel (backend/interp/kernels_reduce.c) computes:
 *   - ReduceSum/Max/Min/Prod are one primitive (the prim kernels share the op kernels'
 *     accumulation: floats in double, integers in 64 bits with wrap-around; an empty reduced set
 *     gives the identity, ONNX-18).
 *   - The composite reductions (Mean, SumSquare, L1, L2, LogSum, LogSumExp) evaluate their
 *     elementwise steps in f32 for f16/bf16 inputs (the kernel works in double: one rounding to
 *     the narrow type at the end, not one per step) and cast back.  Integer inputs: Mean sums in
 *     i64 and divides with truncation (the kernel's int64 accumulator; x/0 = 0 as the kernel's
 *     empty mean); L2, LogSum and LogSumExp go through f64 as the kernel does; SumSquare and L1
 *     stay in the element type (wrap-around arithmetic is exact modulo 2^width).
 *   - ReduceLogSumExp is m + log(sum(exp(x - m))) with m = reduce_max, where an infinite m is
 *     replaced by 0 exactly as the kernel does: an all -inf row gives -inf (not NaN), a row with
 *     +inf gives +inf.
 * Reductions that need their result broadcast back keep the reduced dims (keepdims = 1) and end
 * with a reshape to the op's result shape. */
#include <math.h>

#include "dialects/op/shape_reduce.h"
#include "passes/fission/fission.h"

typedef enum rkind { R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD, R_SUMSQ, R_L1, R_L2, R_LOGSUM, R_LSE } rkind;

/* The float type composite steps are computed in: f64 for f64, f32 for the other floats. */
static kr_type calc_float(kr_fission *f, kr_type e) {
  return kr_type_float(f->ctx, fx_is_float(e) && e->u.fkind == KR_F64 ? KR_F64 : KR_F32);
}

/* The reduced axes of the ReduceX op being split (kr_reduce_axes: ReduceSum's constant axes
 * operand or the `axes` attribute; empty = all axes unless noop_with_empty_axes), ascending and
 * non-negative.  *noop: the op is the identity.  false after an error (reported at the op). */
static bool reduced_axes(kr_fission *f, kr_value x, int64_t *axes, unsigned *n, int64_t *count, bool *noop) {
  bool mask[KR_OP_MAX_RANK];
  unsigned rank = fx_rank(x);
  if (rank > KR_OP_MAX_RANK || kr_reduce_axes(f->op, rank, NULL, mask, noop)) {
    f->failed = true;
    return false;
  }
  *n = 0;
  *count = 1;
  for (unsigned d = 0; d < rank; d++)
    if (mask[d]) axes[(*n)++] = d, *count *= fx_dims(x)[d];
  return true;
}

static kr_status reduce_rule(kr_fission *f, kr_op *op, kr_value *results, rkind k) {
  kr_value x = fx_operand(f, 0);
  int64_t axes[KR_OP_MAX_RANK], count;
  unsigned n;
  bool noop;
  if (!x || !reduced_axes(f, x, axes, &n, &count, &noop)) return KR_FAILURE;
  if (noop) {
    results[0] = x;   /* ReduceSum with empty axes and noop_with_empty_axes = 1 */
    return KR_SUCCESS;
  }
  bool keep = kr_op_attr_int(op, "keepdims") != 0;
  kr_type e = fx_elem(x), rt = kr_value_type(kr_op_result(op, 0));
  static const char *const single[] = {[R_SUM] = "prim.reduce_sum", [R_MAX] = "prim.reduce_max",
                                       [R_MIN] = "prim.reduce_min", [R_PROD] = "prim.reduce_prod"};
  if (k == R_SUM || k == R_MAX || k == R_MIN || k == R_PROD) {
    results[0] = fx_reduce(f, single[k], x, axes, n, keep);   /* n == 0 (rank 0): x itself */
    return fx_status(f);
  }

  /* The type the composite is computed in. */
  kr_type c = e;
  if (fx_is_float(e)) c = calc_float(f, e);
  else if (k == R_MEAN) c = fx_i64(f);
  else if (k == R_L2 || k == R_LOGSUM || k == R_LSE) c = kr_type_float(f->ctx, KR_F64);
  kr_value xc = fx_cast(f, x, c), y = NULL;
  switch (k) {
  case R_MEAN:
    y = fx_binary_scalar(f, "prim.div", fx_reduce(f, "prim.reduce_sum", xc, axes, n, true), (double)count);
    break;
  case R_SUMSQ: y = fx_reduce(f, "prim.reduce_sum", fx_binary(f, "prim.mul", xc, xc), axes, n, true); break;
  case R_L1: y = fx_reduce(f, "prim.reduce_sum", fx_unary(f, "prim.abs", xc), axes, n, true); break;
  case R_L2:
    y = fx_unary(f, "prim.sqrt", fx_reduce(f, "prim.reduce_sum", fx_binary(f, "prim.mul", xc, xc), axes, n, true));
    break;
  case R_LOGSUM: y = fx_unary(f, "prim.log", fx_reduce(f, "prim.reduce_sum", xc, axes, n, true)); break;
  case R_LSE: {
    /* m = max over the axes, 0 where infinite (NaN stays: it propagates as in the kernel). */
    kr_value m = fx_reduce(f, "prim.reduce_max", xc, axes, n, true);
    kr_value am = fx_unary(f, "prim.abs", m);
    kr_value inf = fx_cmp(f, "eq", am, fx_splat_like(f, m, INFINITY));
    m = fx_select(f, inf, fx_splat_like(f, m, 0), m);
    kr_value s = fx_reduce(f, "prim.reduce_sum", fx_unary(f, "prim.exp", fx_binary(f, "prim.sub", xc, m)), axes, n, true);
    y = fx_binary(f, "prim.add", m, fx_unary(f, "prim.log", s));
    break;
  }
  default: return fx_fail(f, "internal: unknown reduction"), KR_FAILURE;
  }
  y = fx_reshape(f, fx_cast(f, y, e), rt->u.shaped.dims, rt->u.shaped.rank);
  results[0] = y;
  return fx_status(f);
}

/* The hooks (fission.h), one reduction kind each. */
#define REDUCE(stem, kind)                                                                     \
  kr_status kr_fission_##stem(kr_fission *f, kr_op *op, kr_value *results) {                  \
    return reduce_rule(f, op, results, kind);                                                  \
  }

/* ReduceSum-13: prim.reduce_sum over the constant axes operand. */
REDUCE(reduce_sum, R_SUM)
/* ReduceMean-13: reduce_sum / (number of reduced elements); the mean of nothing is NaN for
 * floats (0/0) and 0 for integers (the kernel's x/0 = 0). */
REDUCE(reduce_mean, R_MEAN)
REDUCE(reduce_max, R_MAX)
REDUCE(reduce_min, R_MIN)
REDUCE(reduce_prod, R_PROD)
/* ReduceSumSquare-13: reduce_sum(x * x). */
REDUCE(reduce_sum_square, R_SUMSQ)
/* ReduceL1-13: reduce_sum(|x|). */
REDUCE(reduce_l1, R_L1)
/* ReduceL2-13: sqrt(reduce_sum(x * x)). */
REDUCE(reduce_l2, R_L2)
/* ReduceLogSum-13: log(reduce_sum(x)). */
REDUCE(reduce_log_sum, R_LOGSUM)
/* ReduceLogSumExp-13: m + log(reduce_sum(exp(x - m))), m the (finite) maximum. */
REDUCE(reduce_log_sum_exp, R_LSE)

/* ArgMax/ArgMin-13: prim.arg_max/arg_min with the axis normalised. */
static kr_status arg_rule(kr_fission *f, kr_op *op, kr_value *results, const char *name) {
  kr_value x = fx_operand(f, 0);
  int64_t axis;
  if (!x) return fx_fail(f, "missing operand 'data'"), KR_FAILURE;
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), fx_rank(x), &axis)) {
    f->failed = true;
    return KR_FAILURE;
  }
  results[0] = fx_prim(f, name, &x, 1,
                       fx_dict(f, 3, "axis", fx_attr_i(f, axis), "keepdims", fx_attr_i(f, kr_op_attr_int(op, "keepdims") != 0),
                               "select_last_index", fx_attr_i(f, kr_op_attr_int(op, "select_last_index") != 0)));
  return fx_status(f);
}

kr_status kr_fission_arg_max(kr_fission *f, kr_op *op, kr_value *results) {
  return arg_rule(f, op, results, "prim.arg_max");
}
kr_status kr_fission_arg_min(kr_fission *f, kr_op *op, kr_value *results) {
  return arg_rule(f, op, results, "prim.arg_min");
}

/* CumSum-14: prim.cum_sum, whose axis is static: the `axis` operand must be a constant (a 0-d or
 * 1-element integer tensor; negative values count from the end). */
kr_status kr_fission_cum_sum(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = fx_operand(f, 0);
  if (!x) return fx_fail(f, "missing operand 'x'"), KR_FAILURE;
  if (!kr_op_constant_operand(op, 1))
    return fx_fail(f, "operand 'axis' must be a constant: prim.cum_sum takes a static axis"), KR_FAILURE;
  int64_t a, axis;
  int64_t n = kr_op_constant_ints(op, 1, &a, 1);
  if (n != 1) {
    if (n == 0) fx_fail(f, "operand 'axis' must hold one integer, got none");
    f->failed = true;
    return KR_FAILURE;
  }
  if (kr_op_normalize_axis(op, "operand 'axis' value", a, fx_rank(x), &axis)) {
    f->failed = true;
    return KR_FAILURE;
  }
  results[0] = fx_prim(f, "prim.cum_sum", &x, 1,
                       fx_dict(f, 3, "axis", fx_attr_i(f, axis), "exclusive", fx_attr_i(f, kr_op_attr_int(op, "exclusive") != 0),
                               "reverse", fx_attr_i(f, kr_op_attr_int(op, "reverse") != 0)));
  return fx_status(f);
}
