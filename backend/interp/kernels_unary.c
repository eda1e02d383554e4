/* backend/interp/kernels_unary.c - CPU reference kernels of the unary elementwise ops (ONNX
 * opset 17, Operators.md formulas; NaN and integer behaviour as ONNX's numpy reference).
 *
 * Float ops compute in double and round once to the result type; f32 and f64 run typed loops
 * with the formula inlined (the models are f32), f16/bf16 go through kr_tensor_get/set_f64.
 * Integer inputs of the numeric ops (Abs, Neg, Sign, Relu, Clip) are computed exactly in int64
 * (uint64 for unsigned types) and wrap modulo 2^width. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/interp/elementwise.h"
#include "dialects/op/op_impl.h"

/* Attribute values of the op, read once per call. */
typedef struct uparams {
  double alpha, beta, gamma;
} uparams;

typedef double (*float_fn)(double x, const uparams *p);
typedef void (*f32_loop)(const float *x, float *y, int64_t n, const uparams *p);
typedef void (*f64_loop)(const double *x, double *y, int64_t n, const uparams *p);
/* On the integer's bits (sign-extended, or zero-extended when `uns`); the result is stored
 * modulo 2^width. */
typedef int64_t (*int_fn)(int64_t x, bool uns);

typedef struct unary_fns {
  float_fn f;
  f32_loop f32;
  f64_loop f64;
  int_fn i; /* NULL: integers go through f (Erf of an integer tensor) */
} unary_fns;

static kr_status run_unary(const kr_tensor *x, kr_tensor *y, const unary_fns *fn, const uparams *p) {
  int64_t n = x->numel;
  switch (kr_elem_kind_of(kr_tensor_elem(x))) {
  case KR_EK_F32: fn->f32(x->data, y->data, n, p); return KR_SUCCESS;
  case KR_EK_F64: fn->f64(x->data, y->data, n, p); return KR_SUCCESS;
  case KR_EK_HALF:
    for (int64_t i = 0; i < n; i++) kr_tensor_set_f64(y, i, fn->f(kr_tensor_get_f64(x, i), p));
    return KR_SUCCESS;
  case KR_EK_SINT:
  case KR_EK_BOOL:
  case KR_EK_UINT: {
    bool uns = kr_type_is_unsigned_int(kr_tensor_elem(x));
    if (fn->i)
      for (int64_t i = 0; i < n; i++) kr_tensor_set_i64(y, i, fn->i(kr_tensor_get_i64(x, i), uns));
    else
      for (int64_t i = 0; i < n; i++) kr_tensor_set_f64(y, i, fn->f(kr_tensor_get_f64(x, i), p));
    return KR_SUCCESS;
  }
  }
  return KR_FAILURE;
}

static void read_params(kr_op *op, uparams *p) {
  p->alpha = kr_op_attr_float(op, "alpha");
  p->beta = kr_op_attr_float(op, "beta");
  p->gamma = kr_op_attr_float(op, "gamma");
}

/* One float unary op: its formula as an expression of double `x` and `p`, typed loops that
 * inline it, and the kernel.  INT is the integer function or NULL. */
#define FLOAT_UNARY(stem, INT, EXPR)                                                                                   \
  static double f_##stem(double x, const uparams *p) {                                                                 \
    (void)p;                                                                                                           \
    return EXPR;                                                                                                       \
  }                                                                                                                    \
  static void f32_##stem(const float *x, float *y, int64_t n, const uparams *p) {                                      \
    for (int64_t i = 0; i < n; i++) y[i] = (float)f_##stem(x[i], p);                                                   \
  }                                                                                                                    \
  static void f64_##stem(const double *x, double *y, int64_t n, const uparams *p) {                                    \
    for (int64_t i = 0; i < n; i++) y[i] = f_##stem(x[i], p);                                                          \
  }                                                                                                                    \
  kr_status kr_eval_##stem(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {                                 \
    static const unary_fns fns = {f_##stem, f32_##stem, f64_##stem, INT};                                              \
    uparams p;                                                                                                         \
    read_params(op, &p);                                                                                               \
    if (run_unary(ins[0], outs[0], &fns, &p)) return kr_op_emit_error(op, "unsupported element type");                 \
    return KR_SUCCESS;                                                                                                 \
  }

/* Integer forms: two's complement, so negation goes through uint64 (INT64_MIN stays). */
static int64_t i_abs(int64_t x, bool uns) { return uns || x >= 0 ? x : (int64_t)(0 - (uint64_t)x); }
static int64_t i_neg(int64_t x, bool uns) {
  (void)uns;
  return (int64_t)(0 - (uint64_t)x);
}
static int64_t i_sign(int64_t x, bool uns) { return uns ? x != 0 : (x > 0) - (x < 0); }
static int64_t i_relu(int64_t x, bool uns) { return uns || x > 0 ? x : 0; }

/* numpy's sign: NaN stays NaN, zero stays zero. */
static double sign_f(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }
/* ln(1 + e^x) without overflow for large x. */
static double softplus_f(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }
/* 1 / (1 + e^-x) without overflow of e^-x for very negative x. */
static double sigmoid_f(double x) {
  if (x >= 0) return 1.0 / (1.0 + exp(-x));
  double e = exp(x);
  return e / (1.0 + e);
}
/* numpy's clip(v, 0, 1): NaN stays NaN. */
static double clamp01(double v) { return v < 0 ? 0.0 : v > 1 ? 1.0 : v; }

/* Abs-13, Neg-13, Exp-13, Log-13, Sqrt-13, Reciprocal-13, Relu-14, Sigmoid-13, Tanh-13, Erf-13,
 * Floor-13, Ceil-13, Round-11 (half to even: nearbyint in the default rounding mode), Sign-13,
 * Sin-7, Cos-7. */
FLOAT_UNARY(abs, i_abs, fabs(x))
FLOAT_UNARY(neg, i_neg, -x)
FLOAT_UNARY(exp, NULL, exp(x))
FLOAT_UNARY(log, NULL, log(x))
FLOAT_UNARY(sqrt, NULL, sqrt(x))
FLOAT_UNARY(reciprocal, NULL, 1.0 / x)
FLOAT_UNARY(relu, i_relu, x < 0 ? 0.0 : x)
FLOAT_UNARY(sigmoid, NULL, sigmoid_f(x))
FLOAT_UNARY(tanh, NULL, tanh(x))
FLOAT_UNARY(erf, NULL, erf(x))
FLOAT_UNARY(floor, NULL, floor(x))
FLOAT_UNARY(ceil, NULL, ceil(x))
FLOAT_UNARY(round, NULL, nearbyint(x))
FLOAT_UNARY(sign, i_sign, sign_f(x))
FLOAT_UNARY(sin, NULL, sin(x))
FLOAT_UNARY(cos, NULL, cos(x))
/* Softplus-1: ln(e^x + 1); Softsign-1: x / (1 + |x|). */
FLOAT_UNARY(softplus, NULL, softplus_f(x))
FLOAT_UNARY(softsign, NULL, x / (1.0 + fabs(x)))
/* HardSigmoid-6: max(0, min(1, alpha*x + beta)); HardSwish-14: x * HardSigmoid(x) with
 * alpha = 1/6, beta = 0.5 (ONNX's float constants). */
FLOAT_UNARY(hard_sigmoid, NULL, clamp01(p->alpha * x + p->beta))
FLOAT_UNARY(hard_swish, NULL, x * clamp01((double)(1.0f / 6.0f) * x + 0.5))
/* LeakyRelu-16: x < 0 ? alpha*x : x.  Elu-6: x < 0 ? alpha*(e^x - 1) : x.
 * Selu-6: gamma * (x <= 0 ? alpha*e^x - alpha : x).
 * Celu-12: max(0, x) + min(0, alpha*(e^(x/alpha) - 1)).
 * ThresholdedRelu-10: x > alpha ? x : 0.  Mish-18 (same formula since its introduction):
 * x * tanh(softplus(x)). */
FLOAT_UNARY(leaky_relu, NULL, x < 0 ? p->alpha * x : x)
FLOAT_UNARY(elu, NULL, x < 0 ? p->alpha * expm1(x) : x)
FLOAT_UNARY(selu, NULL, x <= 0 ? p->gamma * (p->alpha * exp(x) - p->alpha) : p->gamma * x)
FLOAT_UNARY(celu, NULL, fmax(0.0, x) + fmin(0.0, p->alpha * expm1(x / p->alpha)))
FLOAT_UNARY(thresholded_relu, NULL, x > p->alpha ? x : 0.0)
FLOAT_UNARY(mish, NULL, x * tanh(softplus_f(x)))

/* Clip-13: min(max(x, min), max) with absent bounds ignored; NaN stays NaN (numpy's clip);
 * when min > max every element becomes max, as numpy's clip.  Integers compare exactly. */
kr_status kr_eval_clip(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *x = ins[0], *lo = op->num_operands > 1 ? ins[1] : NULL, *hi = op->num_operands > 2 ? ins[2] : NULL;
  kr_tensor *y = outs[0];
  int64_t n = x->numel;
  if ((lo && lo->numel != 1) || (hi && hi->numel != 1)) return kr_op_emit_error(op, "'min' and 'max' must be scalars");
  kr_elem_kind k = kr_elem_kind_of(kr_tensor_elem(x));
  if (k == KR_EK_F32) {
    const float *a = x->data;
    float *o = y->data;
    float l = lo ? *(const float *)lo->data : -INFINITY, h = hi ? *(const float *)hi->data : INFINITY;
    for (int64_t i = 0; i < n; i++) {
      float v = a[i];
      if (v < l) v = l;
      if (v > h) v = h;
      o[i] = v;
    }
  } else if (kr_elem_kind_is_float(k)) {
    double l = lo ? kr_tensor_get_f64(lo, 0) : -INFINITY, h = hi ? kr_tensor_get_f64(hi, 0) : INFINITY;
    for (int64_t i = 0; i < n; i++) {
      double v = kr_tensor_get_f64(x, i);
      if (v < l) v = l;
      if (v > h) v = h;
      kr_tensor_set_f64(y, i, v);
    }
  } else if (k == KR_EK_UINT) {
    uint64_t l = lo ? kr_tensor_get_u64(lo, 0) : 0, h = hi ? kr_tensor_get_u64(hi, 0) : UINT64_MAX;
    for (int64_t i = 0; i < n; i++) {
      uint64_t v = kr_tensor_get_u64(x, i);
      if (v < l) v = l;
      if (v > h) v = h;
      kr_tensor_set_u64(y, i, v);
    }
  } else {
    int64_t l = lo ? kr_tensor_get_i64(lo, 0) : INT64_MIN, h = hi ? kr_tensor_get_i64(hi, 0) : INT64_MAX;
    for (int64_t i = 0; i < n; i++) {
      int64_t v = kr_tensor_get_i64(x, i);
      if (v < l) v = l;
      if (v > h) v = h;
      kr_tensor_set_i64(y, i, v);
    }
  }
  return KR_SUCCESS;
}

/* Identity-16: a copy. */
kr_status kr_eval_identity(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)op;
  memcpy(outs[0]->data, ins[0]->data, outs[0]->nbytes);
  return KR_SUCCESS;
}

/* Not-1 on i1 (one byte, 0 or 1). */
kr_status kr_eval_not(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)op;
  const uint8_t *a = ins[0]->data;
  uint8_t *o = outs[0]->data;
  for (int64_t i = 0; i < ins[0]->numel; i++) o[i] = !a[i];
  return KR_SUCCESS;
}

/* IsNaN-13. */
kr_status kr_eval_is_nan(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)op;
  uint8_t *o = outs[0]->data;
  for (int64_t i = 0; i < ins[0]->numel; i++) o[i] = isnan(kr_tensor_get_f64(ins[0], i)) != 0;
  return KR_SUCCESS;
}

/* IsInf-10: detect_negative / detect_positive select which infinities count. */
kr_status kr_eval_is_inf(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  bool neg = kr_op_attr_int(op, "detect_negative") != 0, pos = kr_op_attr_int(op, "detect_positive") != 0;
  uint8_t *o = outs[0]->data;
  for (int64_t i = 0; i < ins[0]->numel; i++) {
    double v = kr_tensor_get_f64(ins[0], i);
    o[i] = isinf(v) && ((v > 0 && pos) || (v < 0 && neg));
  }
  return KR_SUCCESS;
}

/* f32 -> bf16 as ONNX's Cast test data (opset <= 17 reference) defines it: the upper 16 bits
 * (truncation, not rounding); a NaN stays a quiet NaN. */
static uint16_t f32_to_bf16_truncate(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if (isnan(f)) return (uint16_t)((u >> 16) | 0x40);
  return (uint16_t)(u >> 16);
}

/* Element conversion of Cast-13 / CastLike-15 from x to y's element type (same shape):
 *   float -> float   one rounding to nearest even (f16 through kr_f64_to_f16); to bf16 the f32
 *                    value truncated, as ONNX's test data;
 *   float -> int     truncation toward zero (out of range and NaN are undefined in ONNX: they
 *                    saturate, NaN gives 0, as kr_tensor_set_f64);
 *   any -> i1        x != 0 (NaN is true);
 *   int -> int       two's complement wrap-around (numpy's astype);
 *   int -> float     nearest value. */
static void cast(const kr_tensor *x, kr_tensor *y) {
  kr_type from = kr_tensor_elem(x), to = kr_tensor_elem(y);
  int64_t n = x->numel;
  if (from == to) {
    memcpy(y->data, x->data, y->nbytes);
    return;
  }
  kr_elem_kind fk = kr_elem_kind_of(from), tk = kr_elem_kind_of(to);
  if (fk == KR_EK_F32 && tk == KR_EK_F64) {
    const float *a = x->data;
    double *o = y->data;
    for (int64_t i = 0; i < n; i++) o[i] = a[i];
    return;
  }
  if (to->kind == KR_TYPE_FLOAT && to->u.fkind == KR_BF16) {
    uint16_t *o = y->data;
    for (int64_t i = 0; i < n; i++) {
      float f = fk == KR_EK_UINT            ? (float)kr_tensor_get_u64(x, i)
                : kr_elem_kind_is_float(fk) ? (float)kr_tensor_get_f64(x, i)
                                            : (float)kr_tensor_get_i64(x, i);
      o[i] = f32_to_bf16_truncate(f);
    }
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    if (kr_elem_kind_is_float(fk))
      kr_tensor_set_f64(y, i, kr_tensor_get_f64(x, i));
    else if (kr_elem_kind_is_float(tk) && fk == KR_EK_UINT)
      kr_tensor_set_f64(y, i, (double)kr_tensor_get_u64(x, i));
    else if (kr_elem_kind_is_float(tk))
      kr_tensor_set_f64(y, i, (double)kr_tensor_get_i64(x, i));
    else
      kr_tensor_set_i64(y, i, kr_tensor_get_i64(x, i));
  }
}

kr_status kr_eval_cast(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)op;
  cast(ins[0], outs[0]);
  return KR_SUCCESS;
}

kr_status kr_eval_cast_like(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)op;
  cast(ins[0], outs[0]);
  return KR_SUCCESS;
}

/* MT19937 (Matsumoto & Nishimura 1998) as numpy's legacy RandomState: seeded with
 * init_genrand(seed), doubles from two outputs with 53 random bits (genrand_res53). */
typedef struct mt19937 {
  uint32_t s[624];
  unsigned pos;
} mt19937;

static void mt_seed(mt19937 *m, uint32_t seed) {
  m->s[0] = seed;
  for (unsigned i = 1; i < 624; i++) m->s[i] = 1812433253u * (m->s[i - 1] ^ (m->s[i - 1] >> 30)) + i;
  m->pos = 624;
}

static uint32_t mt_next(mt19937 *m) {
  if (m->pos == 624) {
    for (unsigned i = 0; i < 624; i++) {
      uint32_t y = (m->s[i] & 0x80000000u) | (m->s[(i + 1) % 624] & 0x7fffffffu);
      m->s[i] = m->s[(i + 397) % 624] ^ (y >> 1) ^ (y & 1 ? 0x9908b0dfu : 0);
    }
    m->pos = 0;
  }
  uint32_t y = m->s[m->pos++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  return y ^ (y >> 18);
}

static double mt_double(mt19937 *m) {
  uint32_t a = mt_next(m) >> 5, b = mt_next(m) >> 6;
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

/* Dropout-13.  Inference, or ratio 0: output = data, mask all true.  Training with ratio > 0
 * and a `seed`: ONNX's reference (onnx/backend/test/case/node/dropout.py), i.e.
 *   np.random.seed(seed); mask = np.random.uniform(0, 1, shape) >= ratio
 *   output = mask * data * (1 / (1 - ratio))      (in data's type)
 * with the uniform draws in row-major order.  Without a seed it is random and rejected. */
kr_status kr_eval_dropout(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  bool training = op->num_operands > 2 && ins[2] && ins[2]->numel == 1 && kr_tensor_get_i64(ins[2], 0) != 0;
  double ratio = op->num_operands > 1 && ins[1] && ins[1]->numel == 1 ? kr_tensor_get_f64(ins[1], 0) : 0.5;
  kr_tensor *y = outs[0], *mask = op->num_results > 1 ? outs[1] : NULL;
  if (!training || ratio == 0) {
    memcpy(y->data, ins[0]->data, y->nbytes);
    if (mask) memset(mask->data, 1, mask->nbytes);
    return KR_SUCCESS;
  }
  if (!(ratio >= 0 && ratio < 1)) return kr_op_emit_error(op, "ratio %g is out of range [0, 1)", ratio);
  if (!kr_op_attr_present(op, "seed"))
    return kr_op_emit_error(op, "training mode with ratio %g needs the 'seed' attribute: random dropout without a "
                                "seed cannot be reproduced", ratio);
  int64_t seed = kr_op_attr_int(op, "seed");
  if (seed < 0 || seed > UINT32_MAX)
    return kr_op_emit_error(op, "seed %lld is out of range [0, 2^32) (numpy's RandomState seed)", (long long)seed);
  mt19937 *m = malloc(sizeof *m);
  if (!m) return kr_op_emit_error(op, "out of memory");
  mt_seed(m, (uint32_t)seed);
  double scale = 1.0 / (1.0 - ratio);
  bool f32 = kr_elem_kind_of(kr_tensor_elem(y)) == KR_EK_F32;
  for (int64_t i = 0; i < y->numel; i++) {
    bool keep = mt_double(m) >= ratio;
    if (mask) ((uint8_t *)mask->data)[i] = keep;
    if (f32) ((float *)y->data)[i] = keep ? ((const float *)ins[0]->data)[i] * (float)scale : 0.0f;
    else kr_tensor_set_f64(y, i, keep ? kr_tensor_get_f64(ins[0], i) * scale : 0.0);
  }
  free(m);
  return KR_SUCCESS;
}
