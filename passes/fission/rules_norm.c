/* passes/fission/rules_norm.c - fission rules of the norm family (dialects/op/ops.def):
 * Softmax/LogSoftmax/Hardmax-13, LayerNormalization-17, BatchNormalization-15,
 * InstanceNormalization-6, LpNormalization-1, MeanVarianceNormalization-13 (ONNX opset 17), into
 * reductions and elementwise primitives (Korch, ASPLOS'24, §3: Softmax and the normalisations
 * are the paper's examples of operators fission splits into reduce + elementwise primitives).
 *
 * The op-level kernels (backend/interp/kernels_norm.c) compute in double and round once; the
 * rules compute in f32 for f16/bf16/f32 inputs and in f64 for f64 ones (LayerNormalization's
 * stash_type and BatchNormalization's parameter types may widen to f64), casting back at the
 * end.  Statistics are two-pass like the kernels: mean = reduce_sum(x) / count, then
 * var = reduce_sum((x - mean)^2) / count (never negative).  Reductions keep their dims so the
 * statistic broadcasts back (fx_binary inserts the prim.broadcast); per-channel [C] parameters
 * are reshaped to [C, 1, ..., 1] first.  Primitives are built in the order of the statements
 * (never two building calls as arguments of one call: C leaves their order unspecified). */
#include <math.h>

#include "dialects/op/shape_reduce.h"
#include "passes/fission/fission.h"

/* The float type the rule computes in: f64 when any of `vals` is f64, else f32. */
static kr_type calc_type(kr_fission *f, const kr_value *vals, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (vals[i] && fx_elem(vals[i])->kind == KR_TYPE_FLOAT && fx_elem(vals[i])->u.fkind == KR_F64)
      return kr_type_float(f->ctx, KR_F64);
  return kr_type_float(f->ctx, KR_F32);
}

/* Normalises the op's `axis` attribute against rank(x); false after an error at the op. */
static bool op_axis(kr_fission *f, kr_value x, int64_t *axis) {
  if (!x) return fx_fail(f, "missing operand #0"), false;
  if (kr_op_normalize_axis(f->op, "attribute 'axis' value", kr_op_attr_int(f->op, "axis"), fx_rank(x), axis)) {
    f->failed = true;
    return false;
  }
  return true;
}

/* reduce_sum(x, axes, keepdims = 1) / count. */
static kr_value mean_over(kr_fission *f, kr_value x, const int64_t *axes, unsigned n, int64_t count) {
  return fx_binary_scalar(f, "prim.div", fx_reduce(f, "prim.reduce_sum", x, axes, n, true), (double)count);
}

/* The biased variance over the axes of d = x - mean (d given): reduce_sum(d * d) / count. */
static kr_value var_over(kr_fission *f, kr_value d, const int64_t *axes, unsigned n, int64_t count) {
  return mean_over(f, fx_binary(f, "prim.mul", d, d), axes, n, count);
}

/* A per-channel [C] parameter cast to `c` and reshaped to [C, 1, ..., 1] (rank - 1 dims), so
 * that it broadcasts against [N, C, D1, ...] of rank `rank`. */
static kr_value channel_param(kr_fission *f, kr_value p, unsigned rank, kr_type c) {
  if (f->failed || !p) return NULL;
  int64_t dims[KR_OP_MAX_RANK];
  dims[0] = fx_numel(p);
  for (unsigned d = 1; d + 1 < rank; d++) dims[d] = 1;
  return fx_reshape(f, fx_cast(f, p, c), dims, rank - 1);
}

/* The element type of result i of the op being split. */
static kr_type result_elem(kr_fission *f, unsigned i) { return kr_type_element(kr_value_type(kr_op_result(f->op, i))); }

/* Operands 0..n-1 of the op being split into v; false (after fx_fail) when one is missing. */
static bool all_operands(kr_fission *f, kr_value *v, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (!(v[i] = fx_operand(f, i))) return fx_fail(f, "missing operand #%u", i), false;
  return true;
}

/* The per-channel affine form of BatchNormalization and InstanceNormalization on xc (computed
 * in its type), cast to `elem`:
 *   a = scale / sqrt(var + eps); b = bias - mean * a; Y = xc * a + b. */
static kr_value scale_shift(kr_fission *f, kr_value xc, kr_value mean, kr_value var, kr_value scale, kr_value bias,
                            double eps, kr_type elem) {
  kr_value a = fx_binary(f, "prim.div", scale, fx_unary(f, "prim.sqrt", fx_binary_scalar(f, "prim.add", var, eps)));
  kr_value b = fx_binary(f, "prim.sub", bias, fx_binary(f, "prim.mul", mean, a));
  return fx_cast(f, fx_binary(f, "prim.add", fx_binary(f, "prim.mul", xc, a), b), elem);
}

/* ---------------------------------------------------------------------------------------------
 * Softmax family (opset 13: one axis, any position). */

/* x (in the compute type) minus its maximum along `axis`: cast, m = reduce_max(xc, [axis],
 * keepdims = 1), xc - broadcast(m).  The shifted input of Softmax and LogSoftmax. */
static kr_value minus_max(kr_fission *f, kr_value x, int64_t axis) {
  kr_value xc = fx_cast(f, x, calc_type(f, &x, 1));
  kr_value m = fx_reduce(f, "prim.reduce_max", xc, &axis, 1, true);
  return fx_binary(f, "prim.sub", xc, m);
}

/* Softmax-13, the numerically safe form other passes pattern-match (keep it):
 *   m = reduce_max(x, [axis], keepdims = 1); e = exp(x - broadcast(m));
 *   y = e / broadcast(reduce_sum(e, [axis], keepdims = 1)).
 * Like ONNX's reference (x - max first), a row holding +inf or only -inf gives NaN. */
kr_status kr_fission_softmax(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op;
  kr_value x = fx_operand(f, 0);
  int64_t axis;
  if (!op_axis(f, x, &axis)) return KR_FAILURE;
  kr_value e = fx_unary(f, "prim.exp", minus_max(f, x, axis));
  kr_value s = fx_reduce(f, "prim.reduce_sum", e, &axis, 1, true);
  results[0] = fx_cast(f, fx_binary(f, "prim.div", e, s), fx_elem(x));
  return fx_status(f);
}

/* LogSoftmax-13: t = x - reduce_max(x); y = t - log(reduce_sum(exp(t))) (axis as Softmax). */
kr_status kr_fission_log_softmax(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op;
  kr_value x = fx_operand(f, 0);
  int64_t axis;
  if (!op_axis(f, x, &axis)) return KR_FAILURE;
  kr_value t = minus_max(f, x, axis);
  kr_value s = fx_reduce(f, "prim.reduce_sum", fx_unary(f, "prim.exp", t), &axis, 1, true);
  results[0] = fx_cast(f, fx_binary(f, "prim.sub", t, fx_unary(f, "prim.log", s)), fx_elem(x));
  return fx_status(f);
}

/* Hardmax-13: 1 at the first maximum along the axis, else 0:
 *   cast(iota(shape(x), axis) == broadcast(arg_max(x, axis, keepdims = 1)), elem(x)). */
kr_status kr_fission_hardmax(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op;
  kr_value x = fx_operand(f, 0);
  int64_t axis;
  if (!op_axis(f, x, &axis)) return KR_FAILURE;
  if (fx_numel(x) == 0) {
    results[0] = x;   /* nothing to compute (arg_max rejects an empty axis) */
    return KR_SUCCESS;
  }
  kr_value am = fx_prim(f, "prim.arg_max", &x, 1,
                        fx_dict(f, 2, "axis", fx_attr_i(f, axis), "keepdims", fx_attr_i(f, 1)));
  kr_value idx = fx_iota(f, fx_dims(x), fx_rank(x), axis, fx_i64(f));
  results[0] = fx_cast(f, fx_cmp(f, "eq", idx, am), fx_elem(x));
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * Normalisations. */

/* LayerNormalization-17 over the axes [axis, rank):
 *   mean = E[x]; d = x - mean; inv = 1 / sqrt(E[d^2] + epsilon); Y = d * inv * Scale (+ B)
 * with Scale and B broadcast (numpy) against X.  Computed in f32 (f64 when X or the stash type
 * is f64; the kernel works in double); Mean and InvStdDev, [d0..d(axis-1), 1, ..., 1], are cast
 * to the stash type (their declared element type). */
kr_status kr_fission_layer_normalization(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = fx_operand(f, 0), scale = fx_operand(f, 1), b = fx_operand(f, 2);
  int64_t axis;
  if (!op_axis(f, x, &axis)) return KR_FAILURE;
  if (!scale) return fx_fail(f, "missing operand 'Scale'"), KR_FAILURE;
  unsigned rank = fx_rank(x), n = 0;
  int64_t axes[KR_OP_MAX_RANK], count = 1;
  for (unsigned d = (unsigned)axis; d < rank; d++) axes[n++] = d, count *= fx_dims(x)[d];
  kr_value wide[2] = {x, op->num_results > 1 ? kr_op_result(op, 1) : NULL};   /* X, a stash-typed value */
  kr_type c = calc_type(f, wide, 2);
  kr_value xc = fx_cast(f, x, c);
  kr_value mean = mean_over(f, xc, axes, n, count);
  kr_value d = fx_binary(f, "prim.sub", xc, mean);
  kr_value var = var_over(f, d, axes, n, count);
  kr_value inv = fx_unary(f, "prim.sqrt", fx_binary_scalar(f, "prim.add", var, kr_op_attr_float(op, "epsilon")));
  inv = fx_binary(f, "prim.div", fx_splat_like(f, inv, 1.0), inv);
  kr_value y = fx_binary(f, "prim.mul", d, inv);
  y = fx_binary(f, "prim.mul", y, fx_cast(f, scale, c));
  if (b) y = fx_binary(f, "prim.add", y, fx_cast(f, b, c));
  results[0] = fx_cast(f, y, fx_elem(x));
  if (op->num_results > 1) results[1] = fx_cast(f, mean, result_elem(f, 1));
  if (op->num_results > 2) results[2] = fx_cast(f, inv, result_elem(f, 2));
  return fx_status(f);
}

/* BatchNormalization-15 on X [N, C, D1, ...] with [C] parameters, in the kernel's form:
 *   a = scale / sqrt(var + epsilon); b = B - mean * a; Y = X * a + b   (a, b: [C, 1, ..., 1])
 * Inference (training_mode = 0): mean/var are input_mean/input_var, which the optional
 * running_mean/running_var results repeat.  training_mode = 1: mean and the biased variance of
 * X over N and the spatial dims, and running_x = input_x * momentum + x * (1 - momentum), as
 * ONNX's reference (_batchnorm_training_mode) and the kernel. */
kr_status kr_fission_batch_normalization(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value v[5];
  if (!all_operands(f, v, 5)) return KR_FAILURE;
  kr_value x = v[0];
  unsigned rank = fx_rank(x);
  if (rank < 2) return fx_fail(f, "X must have rank >= 2 ([N, C, ...]), got rank %u", rank), KR_FAILURE;
  kr_type c = calc_type(f, v, 5);
  double eps = kr_op_attr_float(op, "epsilon"), mom = kr_op_attr_float(op, "momentum");
  bool training = kr_op_attr_int(op, "training_mode") != 0;
  kr_value xc = fx_cast(f, x, c), scale = channel_param(f, v[1], rank, c), bias = channel_param(f, v[2], rank, c);
  kr_value mean, var;
  if (training) {
    int64_t axes[KR_OP_MAX_RANK], count = fx_dims(x)[0];
    unsigned n = 0;
    axes[n++] = 0;
    for (unsigned d = 2; d < rank; d++) axes[n++] = d, count *= fx_dims(x)[d];
    mean = mean_over(f, xc, axes, n, count);                       /* [1, C, 1, ...] */
    var = var_over(f, fx_binary(f, "prim.sub", xc, mean), axes, n, count);
  } else {
    mean = channel_param(f, v[3], rank, c);                         /* [C, 1, ...] */
    var = channel_param(f, v[4], rank, c);
  }
  results[0] = scale_shift(f, xc, mean, var, scale, bias, eps, fx_elem(x));
  for (unsigned k = 1; k < 3 && k < op->num_results; k++) {
    kr_value in = v[2 + k];   /* input_mean, input_var */
    if (!training) {
      results[k] = in;
      continue;
    }
    int64_t C = fx_numel(in);
    kr_value stat = fx_reshape(f, k == 1 ? mean : var, &C, 1);
    kr_value old = fx_binary_scalar(f, "prim.mul", fx_cast(f, in, c), mom);
    kr_value run = fx_binary(f, "prim.add", old, fx_binary_scalar(f, "prim.mul", stat, 1 - mom));
    results[k] = fx_cast(f, run, result_elem(f, k));
  }
  return fx_status(f);
}

/* InstanceNormalization-6: each (n, c) plane of [N, C, D1, ...] over the spatial axes:
 *   a = scale / sqrt(var + epsilon); b = B - mean * a; Y = X * a + b   (a, b: [N, C, 1, ...]). */
kr_status kr_fission_instance_normalization(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value v[3];
  if (!all_operands(f, v, 3)) return KR_FAILURE;
  kr_value x = v[0];
  unsigned rank = fx_rank(x), n = 0;
  if (rank < 2) return fx_fail(f, "input must have rank >= 2 ([N, C, ...]), got rank %u", rank), KR_FAILURE;
  kr_type c = calc_type(f, v, 3);
  int64_t axes[KR_OP_MAX_RANK], count = 1;
  for (unsigned d = 2; d < rank; d++) axes[n++] = d, count *= fx_dims(x)[d];
  kr_value xc = fx_cast(f, x, c);
  kr_value mean = mean_over(f, xc, axes, n, count);
  kr_value var = var_over(f, fx_binary(f, "prim.sub", xc, mean), axes, n, count);
  kr_value scale = channel_param(f, v[1], rank, c), bias = channel_param(f, v[2], rank, c);
  results[0] = scale_shift(f, xc, mean, var, scale, bias, kr_op_attr_float(op, "epsilon"), fx_elem(x));
  return fx_status(f);
}

/* LpNormalization-1 along `axis`: norm = reduce_sum(|x|) (p = 1) or sqrt(reduce_sum(x * x))
 * (p = 2); y = x / norm, where a zero norm (an all-zero slice) divides by 1 instead, leaving the
 * zeros (the kernel's no-0/0 rule). */
kr_status kr_fission_lp_normalization(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = fx_operand(f, 0);
  int64_t axis, p = kr_op_attr_int(op, "p");
  if (!op_axis(f, x, &axis)) return KR_FAILURE;
  if (p != 1 && p != 2) return fx_fail(f, "attribute 'p' must be 1 or 2, got %lld", (long long)p), KR_FAILURE;
  kr_value xc = fx_cast(f, x, calc_type(f, &x, 1)), norm;
  if (p == 1) norm = fx_reduce(f, "prim.reduce_sum", fx_unary(f, "prim.abs", xc), &axis, 1, true);
  else norm = fx_unary(f, "prim.sqrt", fx_reduce(f, "prim.reduce_sum", fx_binary(f, "prim.mul", xc, xc), &axis, 1, true));
  kr_value zero = fx_cmp(f, "eq", norm, fx_splat_like(f, norm, 0));
  norm = fx_select(f, zero, fx_splat_like(f, norm, 1), norm);
  results[0] = fx_cast(f, fx_binary(f, "prim.div", xc, norm), fx_elem(x));
  return fx_status(f);
}

/* MeanVarianceNormalization-13 (ONNX's function body, as the kernel): over `axes` (default
 * [0, 2, 3]), y = (x - E[x]) / (sqrt(E[(x - E[x])^2]) + 1e-9). */
kr_status kr_fission_mean_variance_normalization(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = fx_operand(f, 0);
  if (!x) return fx_fail(f, "missing operand 'X'"), KR_FAILURE;
  unsigned rank = fx_rank(x), n = 0;
  const int64_t *list;
  unsigned nl = kr_op_attr_ints(op, "axes", &list);
  bool mask[KR_OP_MAX_RANK];
  if (rank > KR_OP_MAX_RANK || kr_axes_to_mask(op, "attribute 'axes'", list, nl, rank, mask)) {
    f->failed = true;
    return KR_FAILURE;
  }
  int64_t axes[KR_OP_MAX_RANK], count = 1;
  for (unsigned d = 0; d < rank; d++)
    if (mask[d]) axes[n++] = d, count *= fx_dims(x)[d];
  kr_value xc = fx_cast(f, x, calc_type(f, &x, 1));
  kr_value d = fx_binary(f, "prim.sub", xc, mean_over(f, xc, axes, n, count));
  kr_value den = fx_binary_scalar(f, "prim.add", fx_unary(f, "prim.sqrt", var_over(f, d, axes, n, count)), 1e-9);
  results[0] = fx_cast(f, fx_binary(f, "prim.div", d, den), fx_elem(x));
  return fx_status(f);
}
