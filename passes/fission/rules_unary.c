/* passes/fission/rules_unary.c - fission rules of the unary family (dialects/op/ops.def, Abs ..
 * Dropout; ONNX opset 17; Korch, ASPLOS'24, §3 "operator fission").
 *
 * Each rule computes what the op-level kernel (backend/interp/kernels_unary.c) computes:
 *  - ops with a primitive of their own map 1:1 (prim.abs, prim.exp, ...): the primitive runs
 *    the same kernel, bit for bit;
 *  - activation formulas become elementwise chains in the numerically safe forms of the kernel
 *    (Softplus = max(x, 0) + log1p(e^-|x|), Elu/Celu through expm1), with log1p and expm1
 *    themselves built from exp/log by the classic accurate identities (Goldberg, Kahan) because
 *    the primitive set has neither.  The kernel evaluates a formula in double and rounds once;
 *    a chain rounds at each step, so chains on f16/bf16 run in f32 and are cast back at the end
 *    with prim.cast's default rounding to nearest even, as the kernel stores its results (a few
 *    f32 ulps before the final rounding, far inside the conformance tolerance);
 *  - IR is built in a fixed order: builder calls that both create primitives are never
 *    arguments of one call (C leaves their order unspecified);
 *  - Dropout in training mode evaluates the op-level kernel at compile time (the mask depends
 *    only on seed, ratio and shape) and selects with the constant mask. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/fission/fission.h"

/* ---------------------------------------------------------------------------------------------
 * Helpers. */

static bool is_half(kr_type elem) {
  return fx_is_float(elem) && (elem->u.fkind == KR_F16 || elem->u.fkind == KR_BF16);
}

/* x itself, or x cast to f32 when it is f16/bf16 (the element type chains compute in). */
static kr_value widen(kr_fission *f, kr_value x) {
  if (f->failed || !x) return NULL;
  return is_half(fx_elem(x)) ? fx_cast(f, x, kr_type_float(f->ctx, KR_F32)) : x;
}

/* a (op) b where b is a scalar constant on the left: c - x, c / x. */
static kr_value scalar_binary(kr_fission *f, const char *name, double c, kr_value x) {
  if (f->failed || !x) return NULL;
  return fx_binary(f, name, fx_splat_like(f, x, c), x);
}

static kr_value cmp_scalar(kr_fission *f, const char *pred, kr_value x, double c) {
  if (f->failed || !x) return NULL;
  return fx_cmp(f, pred, x, fx_splat_like(f, x, c));
}

/* log(1 + e) accurate for small e (Goldberg, "What every computer scientist should know about
 * floating-point arithmetic", Theorem 4): u = 1 + e; u == 1 ? e : log(u) * (e / (u - 1)).  The
 * subtraction u - 1 is exact, so the quotient corrects the rounding of u. */
static kr_value log1p_chain(kr_fission *f, kr_value e) {
  kr_value u = fx_binary_scalar(f, "prim.add", e, 1.0);
  kr_value d = fx_binary_scalar(f, "prim.sub", u, 1.0);
  kr_value l = fx_unary(f, "prim.log", u);
  kr_value q = fx_binary(f, "prim.mul", l, fx_binary(f, "prim.div", e, d));
  return fx_select(f, cmp_scalar(f, "eq", u, 1.0), e, q);
}

/* e^x - 1 accurate near 0 (Kahan): u = e^x; u == 1 ? x : (u - 1 == -1 or u == inf) ? u - 1 :
 * (u - 1) * x / log(u). */
static kr_value expm1_chain(kr_fission *f, kr_value x) {
  kr_value u = fx_unary(f, "prim.exp", x);
  kr_value d = fx_binary_scalar(f, "prim.sub", u, 1.0);
  kr_value l = fx_unary(f, "prim.log", u);
  kr_value q = fx_binary(f, "prim.div", fx_binary(f, "prim.mul", d, x), l);
  kr_value minus1 = cmp_scalar(f, "eq", d, -1.0);
  kr_value sat = fx_binary(f, "prim.or", minus1, cmp_scalar(f, "eq", u, INFINITY));
  kr_value r = fx_select(f, sat, d, q);
  return fx_select(f, cmp_scalar(f, "eq", u, 1.0), x, r);
}

/* ln(1 + e^x) = max(x, 0) + log1p(e^-|x|): never overflows (Softplus-1, as softplus_f). */
static kr_value softplus_chain(kr_fission *f, kr_value x) {
  kr_value e = fx_unary(f, "prim.exp", fx_unary(f, "prim.neg", fx_unary(f, "prim.abs", x)));
  kr_value pos = fx_binary_scalar(f, "prim.max", x, 0.0);
  return fx_binary(f, "prim.add", pos, log1p_chain(f, e));
}

/* numpy's clip(v, 0, 1) with NaN kept: min(max(v, 0), 1) (prim.max/min propagate NaN). */
static kr_value clamp01(kr_fission *f, kr_value v) {
  return fx_binary_scalar(f, "prim.min", fx_binary_scalar(f, "prim.max", v, 0.0), 1.0);
}

/* results[0] = y cast back to result 0's element type (chains on f16/bf16 ran in f32). */
static kr_status finish(kr_fission *f, kr_op *op, kr_value *results, kr_value y) {
  results[0] = fx_cast(f, y, kr_type_element(kr_value_type(kr_op_result(op, 0))));
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * One primitive each (Abs-13, Neg-13, Exp-13, Log-13, Sqrt-13, Tanh-13, Erf-13, Floor-13,
 * Ceil-13, Round-11, Sign-13, Sin-7, Cos-7, Not-1): the primitive's kernel is the op's. */

#define ONE_TO_ONE(stem)                                                                       \
  kr_status kr_fission_##stem(kr_fission *f, kr_op *op, kr_value *results) {                  \
    (void)op;                                                                                  \
    results[0] = fx_unary(f, "prim." #stem, fx_operand(f, 0));                                 \
    return fx_status(f);                                                                       \
  }

ONE_TO_ONE(abs)
ONE_TO_ONE(neg)
ONE_TO_ONE(exp)
ONE_TO_ONE(log)
ONE_TO_ONE(sqrt)
ONE_TO_ONE(tanh)
ONE_TO_ONE(erf)
ONE_TO_ONE(floor)
ONE_TO_ONE(ceil)
ONE_TO_ONE(round)
ONE_TO_ONE(sign)
ONE_TO_ONE(sin)
ONE_TO_ONE(cos)
ONE_TO_ONE(not)

/* ---------------------------------------------------------------------------------------------
 * Activations. */

/* Reciprocal-13: 1 / x (one correctly rounded division, as the kernel's rounded double). */
kr_status kr_fission_reciprocal(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op;
  results[0] = scalar_binary(f, "prim.div", 1.0, fx_operand(f, 0));
  return fx_status(f);
}

/* Relu-14: max(x, 0) (NaN stays NaN; unsigned integers unchanged). */
kr_status kr_fission_relu(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op;
  results[0] = fx_binary_scalar(f, "prim.max", fx_operand(f, 0), 0.0);
  return fx_status(f);
}

/* Sigmoid-13: 1 / (1 + e^-x).  Safe in IEEE arithmetic: e^-x = inf gives 0, e^-x = 0 gives 1. */
kr_status kr_fission_sigmoid(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = widen(f, fx_operand(f, 0));
  kr_value d = fx_binary_scalar(f, "prim.add", fx_unary(f, "prim.exp", fx_unary(f, "prim.neg", x)), 1.0);
  return finish(f, op, results, scalar_binary(f, "prim.div", 1.0, d));
}

/* Softplus-1: max(x, 0) + log1p(e^-|x|). */
kr_status kr_fission_softplus(kr_fission *f, kr_op *op, kr_value *results) {
  return finish(f, op, results, softplus_chain(f, widen(f, fx_operand(f, 0))));
}

/* Softsign-1: x / (1 + |x|). */
kr_status kr_fission_softsign(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = widen(f, fx_operand(f, 0));
  kr_value d = fx_binary_scalar(f, "prim.add", fx_unary(f, "prim.abs", x), 1.0);
  return finish(f, op, results, fx_binary(f, "prim.div", x, d));
}

/* HardSigmoid-6: clip(alpha * x + beta, 0, 1).  On f16/bf16 in f64, exactly the kernel's
 * double arithmetic (rounded once to the result type): in f32, alpha * x + beta rounds twice and
 * lands on a bf16 tie often enough (about 2% of uniform inputs) to round the other way. */
kr_status kr_fission_hard_sigmoid(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = fx_operand(f, 0);
  if (x && is_half(fx_elem(x))) x = fx_cast(f, x, kr_type_float(f->ctx, KR_F64));
  kr_value v = fx_binary_scalar(f, "prim.add", fx_binary_scalar(f, "prim.mul", x, kr_op_attr_float(op, "alpha")),
                                kr_op_attr_float(op, "beta"));
  return finish(f, op, results, clamp01(f, v));
}

/* HardSwish-14: x * clip(x / 6 + 1/2, 0, 1), with ONNX's f32 constant 1/6 (as the kernel). */
kr_status kr_fission_hard_swish(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = widen(f, fx_operand(f, 0));
  kr_value v = fx_binary_scalar(f, "prim.add", fx_binary_scalar(f, "prim.mul", x, (double)(1.0f / 6.0f)), 0.5);
  return finish(f, op, results, fx_binary(f, "prim.mul", x, clamp01(f, v)));
}

/* LeakyRelu-16: x < 0 ? alpha * x : x. */
kr_status kr_fission_leaky_relu(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = widen(f, fx_operand(f, 0));
  kr_value neg = fx_binary_scalar(f, "prim.mul", x, kr_op_attr_float(op, "alpha"));
  return finish(f, op, results, fx_select(f, cmp_scalar(f, "lt", x, 0.0), neg, x));
}

/* Elu-6: x < 0 ? alpha * expm1(x) : x. */
kr_status kr_fission_elu(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = widen(f, fx_operand(f, 0));
  kr_value neg = fx_binary_scalar(f, "prim.mul", expm1_chain(f, x), kr_op_attr_float(op, "alpha"));
  return finish(f, op, results, fx_select(f, cmp_scalar(f, "lt", x, 0.0), neg, x));
}

/* Selu-6: x <= 0 ? gamma * (alpha * e^x - alpha) : gamma * x (the kernel's association). */
kr_status kr_fission_selu(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = widen(f, fx_operand(f, 0));
  double alpha = kr_op_attr_float(op, "alpha"), gamma = kr_op_attr_float(op, "gamma");
  kr_value ax = fx_binary_scalar(f, "prim.mul", fx_unary(f, "prim.exp", x), alpha);
  kr_value neg = fx_binary_scalar(f, "prim.mul", fx_binary_scalar(f, "prim.sub", ax, alpha), gamma);
  kr_value pos = fx_binary_scalar(f, "prim.mul", x, gamma);
  return finish(f, op, results, fx_select(f, cmp_scalar(f, "le", x, 0.0), neg, pos));
}

/* Celu-12: fmax(0, x) + fmin(0, alpha * expm1(x / alpha)).  C's fmax/fmin (the kernel's) return
 * the other operand for a NaN, so they are built as selects: fmax(0, v) = v > 0 ? v : 0,
 * fmin(0, v) = v < 0 ? v : 0. */
kr_status kr_fission_celu(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = widen(f, fx_operand(f, 0));
  double alpha = kr_op_attr_float(op, "alpha");
  kr_value zero = fx_splat_like(f, x, 0.0);
  kr_value pos = fx_select(f, cmp_scalar(f, "gt", x, 0.0), x, zero);
  kr_value v = fx_binary_scalar(f, "prim.mul", expm1_chain(f, fx_binary_scalar(f, "prim.div", x, alpha)), alpha);
  kr_value neg = fx_select(f, cmp_scalar(f, "lt", v, 0.0), v, zero);
  return finish(f, op, results, fx_binary(f, "prim.add", pos, neg));
}

/* ThresholdedRelu-10: x > alpha ? x : 0. */
kr_status kr_fission_thresholded_relu(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = widen(f, fx_operand(f, 0));
  kr_value keep = cmp_scalar(f, "gt", x, kr_op_attr_float(op, "alpha"));
  return finish(f, op, results, fx_select(f, keep, x, fx_splat_like(f, x, 0.0)));
}

/* Mish-18: x * tanh(softplus(x)). */
kr_status kr_fission_mish(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = widen(f, fx_operand(f, 0));
  return finish(f, op, results, fx_binary(f, "prim.mul", x, fx_unary(f, "prim.tanh", softplus_chain(f, x))));
}

/* Clip-13: min(max(x, min), max), an absent bound skipped.  The bounds hold one element (rank 0
 * or [1]; they may be computed at run time): reshaped to rank 0, then broadcast.  NaN in x stays
 * NaN; min > max gives max everywhere (numpy's clip, as the kernel). */
kr_status kr_fission_clip(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op;
  kr_value y = fx_operand(f, 0), lo = fx_operand(f, 1), hi = fx_operand(f, 2);
  if (lo && fx_numel(lo) != 1) return fx_fail(f, "'min' must hold one element"), KR_FAILURE;
  if (hi && fx_numel(hi) != 1) return fx_fail(f, "'max' must hold one element"), KR_FAILURE;
  if (lo) y = fx_binary(f, "prim.max", y, fx_reshape(f, lo, NULL, 0));
  if (hi) y = fx_binary(f, "prim.min", y, fx_reshape(f, hi, NULL, 0));
  results[0] = y;
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * Identity, predicates, casts, Dropout. */

/* Identity-16: the operand itself. */
kr_status kr_fission_identity(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op;
  results[0] = fx_operand(f, 0);
  return fx_status(f);
}

/* IsNaN-13: x != x. */
kr_status kr_fission_is_nan(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op;
  kr_value x = fx_operand(f, 0);
  results[0] = fx_cmp(f, "ne", x, x);
  return fx_status(f);
}

/* IsInf-10: |x| == inf (both signs), x == inf, x == -inf, or all false (neither). */
kr_status kr_fission_is_inf(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = fx_operand(f, 0);
  bool neg = kr_op_attr_int(op, "detect_negative") != 0, pos = kr_op_attr_int(op, "detect_positive") != 0;
  if (!x) return fx_status(f);
  if (neg && pos) results[0] = cmp_scalar(f, "eq", fx_unary(f, "prim.abs", x), INFINITY);
  else if (pos) results[0] = cmp_scalar(f, "eq", x, INFINITY);
  else if (neg) results[0] = cmp_scalar(f, "eq", x, -INFINITY);
  else results[0] = fx_splat(f, fx_i1(f), 0, fx_dims(x), fx_rank(x));
  return fx_status(f);
}

/* x converted as op.cast converts it to result 0's element type: prim.cast has op.cast's
 * conversion table (ops.def) except to bf16, where op.cast truncates (its kernel, after ONNX's
 * Cast test data, e.g. test_cast_FLOAT_to_BFLOAT16) and prim.cast rounds to nearest unless
 * told rounding = "toward_zero"; a bf16 x needs no conversion (x itself). */
static kr_value op_cast(kr_fission *f, kr_op *op) {
  kr_value x = fx_operand(f, 0);
  kr_type to = kr_type_element(kr_value_type(kr_op_result(op, 0)));
  if (f->failed || !x) return NULL;
  if (fx_elem(x) == to || !(to->kind == KR_TYPE_FLOAT && to->u.fkind == KR_BF16)) return fx_cast(f, x, to);
  return fx_prim(f, "prim.cast", &x, 1,
                 fx_dict(f, 2, "to", fx_attr_type(f, to), "rounding", fx_attr_str(f, "toward_zero")));
}

/* Cast-13. */
kr_status kr_fission_cast(kr_fission *f, kr_op *op, kr_value *results) {
  results[0] = op_cast(f, op);
  return fx_status(f);
}

/* CastLike-15: Cast to target_type's element type (target_type's values are not read). */
kr_status kr_fission_cast_like(kr_fission *f, kr_op *op, kr_value *results) {
  results[0] = op_cast(f, op);
  return fx_status(f);
}

/* The constant operand i of op as a tensor (t->data NULL when absent or not constant). */
static void constant_tensor(kr_op *op, unsigned i, kr_tensor *t) {
  memset(t, 0, sizeof *t);
  kr_attr a = i < op->num_operands ? kr_op_constant_operand(op, i) : NULL;
  if (a && kr_tensor_from_attr(t, a)) memset(t, 0, sizeof *t);
}

/* Dropout-13 (opset 17).  Inference (training_mode absent or false) or ratio 0: output = data and
 * an all-true mask.  Training: the kernel draws mask = uniform(0, 1) >= ratio from numpy's
 * MT19937 seeded with `seed`, so the mask is a function of (seed, ratio, shape) and is computed
 * here by running the op-level kernel on a tensor of ones (kept element <=> output != 0, since
 * the scale 1 / (1 - ratio) is finite and positive); then output = mask ? data * scale : 0, in
 * data's type as the kernel (f32: data * (float)scale).  The kernel's errors (no seed, ratio
 * out of [0, 1)) are reported at the op.  ratio and training_mode are constants (`#` operands). */
kr_status kr_fission_dropout(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = fx_operand(f, 0);
  if (!x) return fx_status(f);
  kr_tensor ratio_t, train_t;
  constant_tensor(op, 1, &ratio_t);
  constant_tensor(op, 2, &train_t);
  bool training = train_t.data && train_t.numel == 1 && kr_tensor_get_i64(&train_t, 0) != 0;
  double ratio = ratio_t.data && ratio_t.numel == 1 ? kr_tensor_get_f64(&ratio_t, 0) : 0.5;
  if ((fx_operand(f, 1) && !ratio_t.data) || (fx_operand(f, 2) && !train_t.data)) {
    kr_tensor_free(&ratio_t), kr_tensor_free(&train_t);
    return fx_fail(f, "'ratio' and 'training_mode' must be constants"), KR_FAILURE;
  }
  kr_value mask;
  if (!training || ratio == 0) {
    kr_tensor_free(&ratio_t), kr_tensor_free(&train_t);
    results[0] = x;
    mask = op->num_results > 1 ? fx_splat(f, fx_i1(f), 1, fx_dims(x), fx_rank(x)) : NULL;
  } else {
    /* Run the kernel on ones: ins follow op's operands (absent: NULL). */
    kr_tensor ones;
    if (kr_tensor_alloc(&ones, fx_type(x))) {
      kr_tensor_free(&ratio_t), kr_tensor_free(&train_t);
      return fx_fail(f, "out of memory"), KR_FAILURE;
    }
    for (int64_t i = 0; i < ones.numel; i++) kr_tensor_set_f64(&ones, i, 1.0);
    kr_tensor *ins[3] = {&ones, op->num_operands > 1 && ratio_t.data ? &ratio_t : NULL,
                         op->num_operands > 2 && train_t.data ? &train_t : NULL};
    kr_tensor outs[2] = {{0}, {0}};
    kr_status st = kr_interp_eval_op(op, ins, outs);
    kr_tensor_free(&ones), kr_tensor_free(&ratio_t), kr_tensor_free(&train_t);
    if (st) {
      for (unsigned i = 0; i < op->num_results && i < 2; i++) kr_tensor_free(&outs[i]);
      f->failed = true;   /* the kernel reported why */
      return KR_FAILURE;
    }
    int64_t n = outs[0].numel;
    int64_t *keep = malloc((size_t)(n ? n : 1) * sizeof *keep);
    if (keep)
      for (int64_t i = 0; i < n; i++) keep[i] = kr_tensor_get_f64(&outs[0], i) != 0;
    for (unsigned i = 0; i < op->num_results && i < 2; i++) kr_tensor_free(&outs[i]);
    if (!keep) return fx_fail(f, "out of memory"), KR_FAILURE;
    mask = fx_const_i64(f, fx_i1(f), keep, fx_dims(x), fx_rank(x));
    free(keep);
    double scale = 1.0 / (1.0 - ratio);
    kr_value scaled = fx_binary_scalar(f, "prim.mul", x, scale);
    results[0] = fx_select(f, mask, scaled, fx_splat_like(f, x, 0.0));
  }
  if (op->num_results > 1) results[1] = mask;
  return fx_status(f);
}
