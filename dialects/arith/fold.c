/* dialects/arith/fold.c - folders of the arith dialect (MLIR's ArithOps.cpp fold methods).
 *
 * Constant folding works element by element on scalars and on dense tensors/vectors (a splat
 * stays a splat).  Integers are handled as their bit patterns in a uint64_t masked to the type's
 * width (index: 64), so wrap-around is two's complement at that width; signed ops sign-extend
 * first.  Floats are computed in double and rounded once to the result type (see
 * kr_arith_round_to_float), except the math functions (exp, log, ..., fma), which compute in
 * the type's compute precision (f64: double; f32, f16, bf16: float, as the kernels do) and then
 * round once.  Undefined results are never folded: division or remainder by zero, signed
 * INT_MIN / -1, shifts by >= the width, and truncf that would lose information (as MLIR).
 * fptosi/fptoui are defined everywhere in korch (saturating, NaN -> 0; ops.def) and always fold. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/arith/arith_impl.h"

typedef union scalar {
  uint64_t i;   /* integer bits, masked to the width */
  double f;     /* float value, exactly representable in its type */
} scalar;

static uint64_t mask_of(unsigned w) { return w >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1); }

static int64_t sext(uint64_t x, unsigned w) {
  x &= mask_of(w);
  if (w < 64 && ((x >> (w - 1)) & 1)) x |= ~mask_of(w);
  return (int64_t)x;
}

/* Two's complement bits of a signed value at width w (no signed overflow in C). */
static uint64_t bits_of(int64_t v, unsigned w) { return (uint64_t)v & mask_of(w); }

/* ---------------------------------------------------------------------------------------------
 * Float rounding. */

double kr_arith_round_to_float(double v, kr_float_kind k) {
  switch (k) {
  case KR_F64: return v;
  case KR_F32: return (double)(float)v;
  case KR_F16: return (double)kr_f16_to_f32(kr_f64_to_f16(v));
  case KR_BF16: return (double)kr_bf16_to_f32(kr_f64_to_bf16(v));
  }
  return v;
}

/* An integer magnitude as a float rounded to odd: the neighbour toward zero, with its last bit
 * set when bits were dropped.  A float keeps more than 2 bits beyond f16's and bf16's precision,
 * so rounding it again to them gives the correctly rounded result (the round-to-odd lemma),
 * where going through a round-to-nearest float or double could round twice. */
static float u64_to_f32_round_odd(uint64_t m) {
  if (m < ((uint64_t)1 << 24)) return (float)m;
  unsigned bits = 64;
  while (!(m >> (bits - 1))) bits--;
  unsigned shift = bits - 24;
  uint64_t top = m >> shift;
  if (m & mask_of(shift)) top |= 1;
  return ldexpf((float)top, (int)shift);
}

/* sitofp: a signed integer rounded once to float kind k (ties to even). */
static double int_to_float(int64_t v, kr_float_kind k) {
  switch (k) {
  case KR_F64: return (double)v;
  case KR_F32: return (double)(float)v;
  case KR_F16:
  case KR_BF16: {
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    float f = u64_to_f32_round_odd(mag);
    if (v < 0) f = -f;
    return k == KR_F16 ? (double)kr_f16_to_f32(kr_f32_to_f16(f)) : (double)kr_bf16_to_f32(kr_f32_to_bf16(f));
  }
  }
  return (double)v;
}

/* uitofp: an unsigned integer rounded once to float kind k (ties to even). */
static double uint_to_float(uint64_t v, kr_float_kind k) {
  switch (k) {
  case KR_F64: return (double)v;
  case KR_F32: return (double)(float)v;
  case KR_F16: return (double)kr_f16_to_f32(kr_f32_to_f16(u64_to_f32_round_odd(v)));
  case KR_BF16: return (double)kr_bf16_to_f32(kr_f32_to_bf16(u64_to_f32_round_odd(v)));
  }
  return (double)v;
}

/* ---------------------------------------------------------------------------------------------
 * Reading and writing constant elements. */

static bool is_foldable_attr(kr_attr a) {
  return a && (a->kind == KR_ATTR_INTEGER || a->kind == KR_ATTR_FLOAT || a->kind == KR_ATTR_BOOL ||
               a->kind == KR_ATTR_DENSE);
}

static bool is_float_elem(kr_type et) { return et->kind == KR_TYPE_FLOAT; }

/* Element i of a scalar or dense constant whose element type is `et`. */
static scalar read_elem(kr_attr a, size_t i, kr_type et) {
  scalar s;
  if (is_float_elem(et)) {
    s.f = a->kind == KR_ATTR_DENSE ? kr_dense_get_f64(a, i) : a->kind == KR_ATTR_FLOAT ? a->u.f : 0.0;
  } else {
    int64_t v = a->kind == KR_ATTR_DENSE ? kr_dense_get_i64(a, i) : a->kind == KR_ATTR_BOOL ? (int64_t)a->u.b : a->u.i;
    s.i = bits_of(v, kr_type_bitwidth(et));
  }
  return s;
}

/* Dense storage of one element: little-endian, kr_type_storage_bytes(et) bytes, f16/bf16 as
 * their bit patterns, i1 as one byte 0/1 (korch/ir.h, KR_ATTR_DENSE). */
static void write_elem(unsigned char *dst, kr_type et, scalar s) {
  uint64_t bits = s.i;
  if (is_float_elem(et)) {
    switch (et->u.fkind) {
    case KR_F16: bits = kr_f32_to_f16((float)s.f); break;
    case KR_BF16: bits = kr_f32_to_bf16((float)s.f); break;
    case KR_F32: {
      float f = (float)s.f;
      uint32_t u;
      memcpy(&u, &f, sizeof u);
      bits = u;
      break;
    }
    case KR_F64: memcpy(&bits, &s.f, sizeof bits); break;
    }
  }
  size_t nb = kr_type_storage_bytes(et);
  for (size_t b = 0; b < nb; b++) dst[b] = (unsigned char)(b < 8 ? bits >> (8 * b) : 0);
}

static kr_attr scalar_attr(kr_context *ctx, kr_type et, scalar s) {
  if (is_float_elem(et)) return kr_attr_float(ctx, et, s.f);
  return kr_attr_integer(ctx, et, (int64_t)s.i);
}

/* A constant of `type` whose every element is `s` (scalar attribute or dense splat); NULL if the
 * shape is not static. */
static kr_attr splat_attr(kr_context *ctx, kr_type type, scalar s) {
  kr_type et = kr_type_element(type);
  if (!kr_type_is_shaped(type)) return scalar_attr(ctx, et, s);
  if (!kr_type_has_static_shape(type)) return NULL;
  unsigned char buf[16] = {0};
  write_elem(buf, et, s);
  return kr_attr_dense(ctx, type, buf, kr_type_storage_bytes(et));
}

/* Whether `a` is a constant usable for an operand of type `t`: the attribute's own type is `t`
 * (an i1 operand also takes a bool).  Constant-like ops of other dialects may hold anything, so
 * folders check this instead of trusting the operand's constant. */
static bool const_matches(kr_attr a, kr_type t) {
  if (!is_foldable_attr(a)) return false;
  if (a->kind == KR_ATTR_BOOL) return kr_type_is_integer(t, 1);
  return a->type == t;
}

/* Whether constant `a` (for an operand of type `t`) is the integer `v` in every element,
 * compared at the element width. */
static bool is_int_splat(kr_attr a, kr_type t, uint64_t v) {
  kr_type et = kr_type_element(t);
  if (!const_matches(a, t) || is_float_elem(et)) return false;
  if (a->kind == KR_ATTR_DENSE && !a->u.dense.splat) return false;
  return read_elem(a, 0, et).i == (v & mask_of(kr_type_bitwidth(et)));
}

/* Whether constant float `a` (for an operand of type `t`) is exactly `v` in every element, the
 * sign of zero included. */
static bool is_float_splat(kr_attr a, kr_type t, double v) {
  kr_type et = kr_type_element(t);
  if (!const_matches(a, t) || !is_float_elem(et)) return false;
  if (a->kind == KR_ATTR_DENSE && !a->u.dense.splat) return false;
  double x = read_elem(a, 0, et).f;
  return x == v && signbit(x) == signbit(v);
}

static kr_status fold_to_value(kr_fold_result *res, kr_value v) {
  res[0].attr = NULL;
  res[0].value = v;
  return KR_SUCCESS;
}

static kr_status fold_to_attr(kr_fold_result *res, kr_attr a) {
  if (!a) return KR_FAILURE;
  res[0].attr = a;
  res[0].value = NULL;
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * The elementwise constant folder. */

typedef struct elem_op elem_op;
/* Computes one result element; false: this element must not be folded (undefined result). */
typedef bool (*elem_fn)(const elem_op *e, const scalar *in, scalar *out);

struct elem_op {
  elem_fn fn;
  kr_type in_elem[3];   /* element type of each operand */
  kr_type out_elem;
  unsigned in_width, out_width;   /* bit widths of in_elem[0] and out_elem */
  int64_t predicate;    /* cmpi / cmpf */
};

/* Folds `op` when all its operands are constants, applying e->fn to each element. */
static kr_status fold_elementwise(kr_op *op, const kr_attr *operands, elem_fn fn, int64_t predicate,
                                  kr_fold_result *res) {
  elem_op e;
  memset(&e, 0, sizeof e);
  e.fn = fn;
  e.predicate = predicate;
  unsigned n = op->num_operands;
  if (n == 0 || n > 3 || op->num_results != 1) return KR_FAILURE;
  bool splat = true;
  for (unsigned i = 0; i < n; i++) {
    kr_type t = kr_value_type(kr_op_operand(op, i));
    if (!const_matches(operands[i], t)) return KR_FAILURE;
    e.in_elem[i] = kr_type_element(t);
    if (operands[i]->kind == KR_ATTR_DENSE && !operands[i]->u.dense.splat) splat = false;
  }
  kr_type rt = kr_value_type(kr_op_result(op, 0));
  e.out_elem = kr_type_element(rt);
  e.in_width = kr_type_bitwidth(e.in_elem[0]);
  e.out_width = kr_type_bitwidth(e.out_elem);
  kr_context *ctx = kr_op_context(op);
  scalar in[3], out;

  if (!kr_type_is_shaped(rt)) {
    for (unsigned i = 0; i < n; i++) {
      if (operands[i]->kind == KR_ATTR_DENSE) return KR_FAILURE;
      in[i] = read_elem(operands[i], 0, e.in_elem[i]);
    }
    if (!fn(&e, in, &out)) return KR_FAILURE;
    return fold_to_attr(res, scalar_attr(ctx, e.out_elem, out));
  }

  int64_t num = kr_type_num_elements(rt);
  if (num < 0) return KR_FAILURE;
  size_t count = splat ? 1 : (size_t)num;
  size_t eb = kr_type_storage_bytes(e.out_elem);
  unsigned char *buf = calloc(count ? count : 1, eb);
  if (!buf) return KR_FAILURE;
  for (size_t k = 0; k < count; k++) {
    for (unsigned i = 0; i < n; i++) in[i] = read_elem(operands[i], k, e.in_elem[i]);
    if (!fn(&e, in, &out)) {
      free(buf);
      return KR_FAILURE;
    }
    write_elem(buf + k * eb, e.out_elem, out);
  }
  kr_attr a = kr_attr_dense(ctx, rt, buf, count * eb);
  free(buf);
  return fold_to_attr(res, a);
}

/* ---------------------------------------------------------------------------------------------
 * Element functions. */

#define A (in[0].i)
#define B (in[1].i)
#define W (e->out_width)
#define SA sext(A, W)
#define SB sext(B, W)

static bool e_addi(const elem_op *e, const scalar *in, scalar *out) { out->i = (A + B) & mask_of(W); return true; }
static bool e_subi(const elem_op *e, const scalar *in, scalar *out) { out->i = (A - B) & mask_of(W); return true; }
static bool e_muli(const elem_op *e, const scalar *in, scalar *out) { out->i = (A * B) & mask_of(W); return true; }

static bool e_divsi(const elem_op *e, const scalar *in, scalar *out) {
  int64_t min = sext((uint64_t)1 << (W - 1), W);
  if (B == 0 || (SB == -1 && SA == min)) return false;
  out->i = bits_of(SA / SB, W);
  return true;
}
static bool e_divui(const elem_op *e, const scalar *in, scalar *out) {
  (void)e;
  if (B == 0) return false;
  out->i = A / B;
  return true;
}
/* The remainder has the dividend's sign (C's %, APInt::srem); x % -1 is 0 even for INT_MIN. */
static bool e_remsi(const elem_op *e, const scalar *in, scalar *out) {
  if (B == 0) return false;
  out->i = SB == -1 ? 0 : bits_of(SA % SB, W);
  return true;
}
static bool e_remui(const elem_op *e, const scalar *in, scalar *out) {
  (void)e;
  if (B == 0) return false;
  out->i = A % B;
  return true;
}
static bool e_andi(const elem_op *e, const scalar *in, scalar *out) { (void)e; out->i = A & B; return true; }
static bool e_ori(const elem_op *e, const scalar *in, scalar *out) { (void)e; out->i = A | B; return true; }
static bool e_xori(const elem_op *e, const scalar *in, scalar *out) { (void)e; out->i = A ^ B; return true; }
static bool e_shli(const elem_op *e, const scalar *in, scalar *out) {
  if (B >= W) return false;
  out->i = (A << B) & mask_of(W);
  return true;
}
static bool e_shrui(const elem_op *e, const scalar *in, scalar *out) {
  if (B >= W) return false;
  out->i = A >> B;
  return true;
}
static bool e_shrsi(const elem_op *e, const scalar *in, scalar *out) {
  if (B >= W) return false;
  /* Arithmetic shift without relying on >> of a negative number: shift the complement. */
  uint64_t x = (uint64_t)SA;
  uint64_t r = SA < 0 ? ~(~x >> B) : x >> B;
  out->i = r & mask_of(W);
  return true;
}
static bool e_maxsi(const elem_op *e, const scalar *in, scalar *out) { out->i = SA > SB ? A : B; return true; }
static bool e_minsi(const elem_op *e, const scalar *in, scalar *out) { out->i = SA < SB ? A : B; return true; }
static bool e_maxui(const elem_op *e, const scalar *in, scalar *out) { (void)e; out->i = A > B ? A : B; return true; }
static bool e_minui(const elem_op *e, const scalar *in, scalar *out) { (void)e; out->i = A < B ? A : B; return true; }

#define FA (in[0].f)
#define FB (in[1].f)
#define ROUND(x) kr_arith_round_to_float((x), e->out_elem->u.fkind)

/* An invalid operation on numbers (0/0, inf-inf, 0*inf) gives the default NaN, which IEEE 754
 * leaves unspecified: x86 makes it negative, LLVM's APFloat (and so MLIR's folder) positive.
 * Fold to the positive quiet NaN so the result does not depend on the host. */
static double default_nan(double r, double a, double b) {
  return isnan(r) && !isnan(a) && !isnan(b) ? fabs(r) : r;
}
static bool e_addf(const elem_op *e, const scalar *in, scalar *out) { out->f = ROUND(default_nan(FA + FB, FA, FB)); return true; }
static bool e_subf(const elem_op *e, const scalar *in, scalar *out) { out->f = ROUND(default_nan(FA - FB, FA, FB)); return true; }
static bool e_mulf(const elem_op *e, const scalar *in, scalar *out) { out->f = ROUND(default_nan(FA * FB, FA, FB)); return true; }
static bool e_divf(const elem_op *e, const scalar *in, scalar *out) { out->f = ROUND(default_nan(FA / FB, FA, FB)); return true; }
static bool e_negf(const elem_op *e, const scalar *in, scalar *out) { (void)e; out->f = -FA; return true; }
/* IEEE 754-2019 maximum/minimum: NaN wins, and -0.0 < +0.0. */
static bool e_maximumf(const elem_op *e, const scalar *in, scalar *out) {
  (void)e;
  if (isnan(FA) || isnan(FB)) out->f = isnan(FA) ? FA : FB;
  else if (FA == FB) out->f = signbit(FA) ? FB : FA;
  else out->f = FA > FB ? FA : FB;
  return true;
}
static bool e_minimumf(const elem_op *e, const scalar *in, scalar *out) {
  (void)e;
  if (isnan(FA) || isnan(FB)) out->f = isnan(FA) ? FA : FB;
  else if (FA == FB) out->f = signbit(FA) ? FA : FB;
  else out->f = FA < FB ? FA : FB;
  return true;
}

static bool cmpi_eval(int64_t pred, uint64_t a, uint64_t b, unsigned w) {
  int64_t sa = sext(a, w), sb = sext(b, w);
  switch (pred) {
  case KR_CMPI_EQ: return a == b;
  case KR_CMPI_NE: return a != b;
  case KR_CMPI_SLT: return sa < sb;
  case KR_CMPI_SLE: return sa <= sb;
  case KR_CMPI_SGT: return sa > sb;
  case KR_CMPI_SGE: return sa >= sb;
  case KR_CMPI_ULT: return a < b;
  case KR_CMPI_ULE: return a <= b;
  case KR_CMPI_UGT: return a > b;
  case KR_CMPI_UGE: return a >= b;
  }
  return false;
}
static bool e_cmpi(const elem_op *e, const scalar *in, scalar *out) {
  out->i = cmpi_eval(e->predicate, A, B, e->in_width);
  return true;
}

static bool e_cmpf(const elem_op *e, const scalar *in, scalar *out) {
  double a = FA, b = FB;
  bool uno = isnan(a) || isnan(b);
  bool r;
  switch (e->predicate) {
  case KR_CMPF_FALSE: r = false; break;
  case KR_CMPF_OEQ: r = !uno && a == b; break;
  case KR_CMPF_OGT: r = !uno && a > b; break;
  case KR_CMPF_OGE: r = !uno && a >= b; break;
  case KR_CMPF_OLT: r = !uno && a < b; break;
  case KR_CMPF_OLE: r = !uno && a <= b; break;
  case KR_CMPF_ONE: r = !uno && a != b; break;
  case KR_CMPF_ORD: r = !uno; break;
  case KR_CMPF_UEQ: r = uno || a == b; break;
  case KR_CMPF_UGT: r = uno || a > b; break;
  case KR_CMPF_UGE: r = uno || a >= b; break;
  case KR_CMPF_ULT: r = uno || a < b; break;
  case KR_CMPF_ULE: r = uno || a <= b; break;
  case KR_CMPF_UNE: r = uno || a != b; break;
  case KR_CMPF_UNO: r = uno; break;
  case KR_CMPF_TRUE: r = true; break;
  default: return false;
  }
  out->i = r;
  return true;
}

/* Math functions in the compute precision of the result's float kind (f64: double; f32, f16,
 * bf16: float, as the schedule's emitters compute f16/bf16 in f32), rounded once to the type.
 * A NaN made from non-NaN operands is the positive quiet NaN (see default_nan). */
typedef float (*math_f)(float);
typedef double (*math_d)(double);
typedef float (*math2_f)(float, float);
typedef double (*math2_d)(double, double);

static double math1(const elem_op *e, math_f ff, math_d fd, double x) {
  kr_float_kind k = e->out_elem->u.fkind;
  double r = k == KR_F64 ? fd(x) : (double)ff((float)x);
  if (isnan(r) && !isnan(x)) r = fabs(r);
  return kr_arith_round_to_float(r, k);
}
static double math2(const elem_op *e, math2_f ff, math2_d fd, double x, double y) {
  kr_float_kind k = e->out_elem->u.fkind;
  double r = k == KR_F64 ? fd(x, y) : (double)ff((float)x, (float)y);
  return kr_arith_round_to_float(default_nan(r, x, y), k);
}

static float rsqrt_f(float x) { return 1.0f / sqrtf(x); }
static double rsqrt_d(double x) { return 1.0 / sqrt(x); }
/* nearbyint in the default rounding mode (to nearest, ties to even; the library never changes
 * it) is C23's roundeven. */
#define MATH1(name, ff, fd)                                                       \
  static bool e_##name(const elem_op *e, const scalar *in, scalar *out) {        \
    out->f = math1(e, ff, fd, FA);                                                \
    return true;                                                                  \
  }
MATH1(exp, expf, exp)
MATH1(log, logf, log)
MATH1(sqrt, sqrtf, sqrt)
MATH1(rsqrt, rsqrt_f, rsqrt_d)
MATH1(tanh, tanhf, tanh)
MATH1(erf, erff, erf)
MATH1(sin, sinf, sin)
MATH1(cos, cosf, cos)
MATH1(floor, floorf, floor)
MATH1(ceil, ceilf, ceil)
MATH1(roundeven, nearbyintf, nearbyint)
MATH1(absf, fabsf, fabs)
#undef MATH1
static bool e_powf(const elem_op *e, const scalar *in, scalar *out) { out->f = math2(e, powf, pow, FA, FB); return true; }
static bool e_remf(const elem_op *e, const scalar *in, scalar *out) { out->f = math2(e, fmodf, fmod, FA, FB); return true; }
static bool e_fma(const elem_op *e, const scalar *in, scalar *out) {
  kr_float_kind k = e->out_elem->u.fkind;
  double c = in[2].f;
  double r = k == KR_F64 ? fma(FA, FB, c) : (double)fmaf((float)FA, (float)FB, (float)c);
  if (isnan(r) && !isnan(FA) && !isnan(FB) && !isnan(c)) r = fabs(r);
  out->f = kr_arith_round_to_float(r, k);
  return true;
}
/* |x| modulo 2^W: the most negative value stays itself. */
static bool e_absi(const elem_op *e, const scalar *in, scalar *out) {
  out->i = SA < 0 ? (0 - A) & mask_of(W) : A;
  return true;
}

static bool e_select(const elem_op *e, const scalar *in, scalar *out) {
  (void)e;
  *out = (in[0].i & 1) ? in[1] : in[2];
  return true;
}

/* Casts: e->in_width is the source width, W the destination's. */
static bool e_sext(const elem_op *e, const scalar *in, scalar *out) {
  out->i = bits_of(sext(A, e->in_width), W);
  return true;
}
static bool e_zext(const elem_op *e, const scalar *in, scalar *out) { (void)e; out->i = A; return true; }
static bool e_trunc(const elem_op *e, const scalar *in, scalar *out) { out->i = A & mask_of(W); return true; }
static bool e_index_cast(const elem_op *e, const scalar *in, scalar *out) {
  return W > e->in_width ? e_sext(e, in, out) : e_trunc(e, in, out);
}
static bool e_sitofp(const elem_op *e, const scalar *in, scalar *out) {
  out->f = int_to_float(sext(A, e->in_width), e->out_elem->u.fkind);
  return true;
}
static bool e_uitofp(const elem_op *e, const scalar *in, scalar *out) {
  out->f = uint_to_float(A & mask_of(e->in_width), e->out_elem->u.fkind);
  return true;
}
/* Truncation toward zero, saturating to [-2^(W-1), 2^(W-1) - 1], NaN -> 0 (korch's fptosi,
 * PTX cvt.rzi.sat). */
static bool e_fptosi(const elem_op *e, const scalar *in, scalar *out) {
  double t = trunc(FA), lim = ldexp(1.0, (int)W - 1);
  if (isnan(FA)) out->i = 0;
  else if (t < -lim) out->i = (uint64_t)1 << (W - 1);              /* INT_MIN of width W */
  else if (t >= lim) out->i = mask_of(W) >> 1;                       /* INT_MAX */
  else out->i = bits_of((int64_t)t, W);
  return true;
}
/* Truncation toward zero, saturating to [0, 2^W - 1], NaN -> 0 (korch's fptoui). */
static bool e_fptoui(const elem_op *e, const scalar *in, scalar *out) {
  double t = trunc(FA), lim = ldexp(1.0, (int)W);
  if (isnan(FA) || t <= 0) out->i = 0;
  else if (t >= lim) out->i = mask_of(W);
  else out->i = (uint64_t)t;
  return true;
}
static bool e_extf(const elem_op *e, const scalar *in, scalar *out) { (void)e; out->f = FA; return true; }
/* Folded only when exact, as MLIR's convertFloatValue (losesInfo => no fold). */
static bool e_truncf(const elem_op *e, const scalar *in, scalar *out) {
  if (isnan(FA)) return false;
  out->f = ROUND(FA);
  return out->f == FA;
}

#undef A
#undef B
#undef W
#undef SA
#undef SB
#undef FA
#undef FB
#undef ROUND

/* ---------------------------------------------------------------------------------------------
 * Helpers for identities. */

static kr_type result_elem(kr_op *op) { return kr_type_element(kr_value_type(kr_op_result(op, 0))); }
static unsigned result_width(kr_op *op) { return kr_type_bitwidth(result_elem(op)); }
static bool same_operands(kr_op *op) { return kr_op_operand(op, 0) == kr_op_operand(op, 1); }

/* Result `v` in every element of the result type. */
static kr_status fold_to_splat(kr_op *op, kr_fold_result *res, uint64_t v) {
  scalar s;
  s.i = v & mask_of(result_width(op));
  return fold_to_attr(res, splat_attr(kr_op_context(op), kr_value_type(kr_op_result(op, 0)), s));
}

static uint64_t smax_of(unsigned w) { return mask_of(w) >> 1; }
static uint64_t smin_of(unsigned w) { return (uint64_t)1 << (w - 1); }

/* The defining op of operand i if it is named `name`. */
static kr_op *operand_def(kr_op *op, unsigned i, const char *name) {
  kr_op *d = kr_value_defining_op(kr_op_operand(op, i));
  return d && strcmp(d->name, name) == 0 ? d : NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Folders named in ops.def. */

kr_status kr_arith_constant_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  (void)operands;
  return fold_to_attr(res, kr_op_get_attr(op, "value"));
}

#define TRY_CONSTANT(fn) \
  if (fold_elementwise(op, operands, fn, 0, res) == KR_SUCCESS) return KR_SUCCESS
#define RHS_IS(v) is_int_splat(operands[1], kr_value_type(kr_op_operand(op, 1)), (v))

kr_status kr_arith_addi_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_addi);
  if (RHS_IS(0)) return fold_to_value(res, kr_op_operand(op, 0));   /* x + 0 */
  return KR_FAILURE;
}

kr_status kr_arith_subi_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_subi);
  if (same_operands(op)) return fold_to_splat(op, res, 0);          /* x - x */
  if (RHS_IS(0)) return fold_to_value(res, kr_op_operand(op, 0));   /* x - 0 */
  return KR_FAILURE;
}

kr_status kr_arith_muli_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_muli);
  if (RHS_IS(0)) return fold_to_attr(res, operands[1]);             /* x * 0 */
  if (RHS_IS(1)) return fold_to_value(res, kr_op_operand(op, 0));   /* x * 1 */
  return KR_FAILURE;
}

kr_status kr_arith_divsi_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_divsi);
  if (RHS_IS(1)) return fold_to_value(res, kr_op_operand(op, 0));   /* x / 1 */
  return KR_FAILURE;
}

kr_status kr_arith_divui_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_divui);
  if (RHS_IS(1)) return fold_to_value(res, kr_op_operand(op, 0));   /* x / 1 */
  return KR_FAILURE;
}

kr_status kr_arith_remsi_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_remsi);
  if (RHS_IS(1)) return fold_to_splat(op, res, 0);                  /* x % 1 */
  return KR_FAILURE;
}

kr_status kr_arith_remui_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_remui);
  if (RHS_IS(1)) return fold_to_splat(op, res, 0);                  /* x % 1 */
  return KR_FAILURE;
}

kr_status kr_arith_andi_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_andi);
  if (same_operands(op)) return fold_to_value(res, kr_op_operand(op, 0));   /* x & x */
  if (RHS_IS(0)) return fold_to_attr(res, operands[1]);                     /* x & 0 */
  if (RHS_IS(~(uint64_t)0)) return fold_to_value(res, kr_op_operand(op, 0)); /* x & -1 */
  return KR_FAILURE;
}

kr_status kr_arith_ori_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_ori);
  if (same_operands(op)) return fold_to_value(res, kr_op_operand(op, 0));   /* x | x */
  if (RHS_IS(0)) return fold_to_value(res, kr_op_operand(op, 0));           /* x | 0 */
  if (RHS_IS(~(uint64_t)0)) return fold_to_attr(res, operands[1]);          /* x | -1 */
  return KR_FAILURE;
}

kr_status kr_arith_xori_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_xori);
  if (same_operands(op)) return fold_to_splat(op, res, 0);                  /* x ^ x */
  if (RHS_IS(0)) return fold_to_value(res, kr_op_operand(op, 0));           /* x ^ 0 */
  return KR_FAILURE;
}

kr_status kr_arith_shli_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_shli);
  if (RHS_IS(0)) return fold_to_value(res, kr_op_operand(op, 0));
  return KR_FAILURE;
}

kr_status kr_arith_shrsi_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_shrsi);
  if (RHS_IS(0)) return fold_to_value(res, kr_op_operand(op, 0));
  return KR_FAILURE;
}

kr_status kr_arith_shrui_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_shrui);
  if (RHS_IS(0)) return fold_to_value(res, kr_op_operand(op, 0));
  return KR_FAILURE;
}

/* max/min: x op x = x; against the extreme value the result is either the extreme or x. */
static kr_status fold_minmax(kr_op *op, const kr_attr *operands, kr_fold_result *res, uint64_t absorbing,
                             uint64_t neutral) {
  if (same_operands(op)) return fold_to_value(res, kr_op_operand(op, 0));
  if (RHS_IS(absorbing)) return fold_to_attr(res, operands[1]);
  if (RHS_IS(neutral)) return fold_to_value(res, kr_op_operand(op, 0));
  return KR_FAILURE;
}

kr_status kr_arith_maxsi_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_maxsi);
  unsigned w = result_width(op);
  return fold_minmax(op, operands, res, smax_of(w), smin_of(w));
}

kr_status kr_arith_minsi_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_minsi);
  unsigned w = result_width(op);
  return fold_minmax(op, operands, res, smin_of(w), smax_of(w));
}

kr_status kr_arith_maxui_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_maxui);
  return fold_minmax(op, operands, res, mask_of(result_width(op)), 0);
}

kr_status kr_arith_minui_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_minui);
  return fold_minmax(op, operands, res, 0, mask_of(result_width(op)));
}

#define RHS_IS_F(v) is_float_splat(operands[1], kr_value_type(kr_op_operand(op, 1)), (v))

/* The IEEE identities MLIR folds: x + -0.0, x - +0.0, x * 1.0, x / 1.0 are x for every x
 * (including NaN, infinities and signed zeros); x + +0.0 is not (-0.0 + +0.0 = +0.0). */
kr_status kr_arith_addf_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_addf);
  if (RHS_IS_F(-0.0)) return fold_to_value(res, kr_op_operand(op, 0));
  return KR_FAILURE;
}

kr_status kr_arith_subf_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_subf);
  if (RHS_IS_F(0.0)) return fold_to_value(res, kr_op_operand(op, 0));
  return KR_FAILURE;
}

kr_status kr_arith_mulf_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_mulf);
  if (RHS_IS_F(1.0)) return fold_to_value(res, kr_op_operand(op, 0));
  return KR_FAILURE;
}

kr_status kr_arith_divf_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_divf);
  if (RHS_IS_F(1.0)) return fold_to_value(res, kr_op_operand(op, 0));
  return KR_FAILURE;
}

/* maximumf(x, x) = x and maximumf(x, -inf) = x (NaN propagates either way); dually for min. */
kr_status kr_arith_maximumf_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_maximumf);
  if (same_operands(op) || RHS_IS_F(-INFINITY)) return fold_to_value(res, kr_op_operand(op, 0));
  return KR_FAILURE;
}

kr_status kr_arith_minimumf_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_minimumf);
  if (same_operands(op) || RHS_IS_F(INFINITY)) return fold_to_value(res, kr_op_operand(op, 0));
  return KR_FAILURE;
}

kr_status kr_arith_negf_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_negf);
  kr_op *inner = operand_def(op, 0, "arith.negf");   /* -(-x) = x, bit for bit */
  if (inner) return fold_to_value(res, kr_op_operand(inner, 0));
  return KR_FAILURE;
}

/* Math functions: constants only (floor, ceil, roundeven, absf and absi are idempotent: the
 * driver folds f(f(x)) through the trait). */
#define MATH_FOLD(name)                                                                    \
  kr_status kr_arith_##name##_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) { \
    return fold_elementwise(op, operands, e_##name, 0, res);                               \
  }
MATH_FOLD(exp)
MATH_FOLD(log)
MATH_FOLD(sqrt)
MATH_FOLD(rsqrt)
MATH_FOLD(tanh)
MATH_FOLD(erf)
MATH_FOLD(sin)
MATH_FOLD(cos)
MATH_FOLD(floor)
MATH_FOLD(ceil)
MATH_FOLD(roundeven)
MATH_FOLD(absf)
MATH_FOLD(powf)
MATH_FOLD(remf)
MATH_FOLD(fma)
MATH_FOLD(absi)
#undef MATH_FOLD

static int64_t predicate_of(kr_op *op) {
  kr_attr p = kr_op_get_attr(op, "predicate");
  return p && p->kind == KR_ATTR_INTEGER ? p->u.i : -1;
}

kr_status kr_arith_cmpi_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  int64_t pred = predicate_of(op);
  if (pred < 0 || pred >= KR_ARITH_NUM_CMPI_PREDICATES) return KR_FAILURE;
  if (fold_elementwise(op, operands, e_cmpi, pred, res) == KR_SUCCESS) return KR_SUCCESS;
  /* x cmp x: true exactly for the predicates that include equality. */
  if (same_operands(op)) return fold_to_splat(op, res, cmpi_eval(pred, 0, 0, 64));
  return KR_FAILURE;
}

kr_status kr_arith_cmpf_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  int64_t pred = predicate_of(op);
  if (pred < 0 || pred >= KR_ARITH_NUM_CMPF_PREDICATES) return KR_FAILURE;
  if (fold_elementwise(op, operands, e_cmpf, pred, res) == KR_SUCCESS) return KR_SUCCESS;
  /* Whatever x is, NaN included, these two do not depend on it. */
  if (pred == KR_CMPF_FALSE) return fold_to_splat(op, res, 0);
  if (pred == KR_CMPF_TRUE) return fold_to_splat(op, res, 1);
  return KR_FAILURE;
}

kr_status kr_arith_select_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  kr_attr c = operands[0];
  kr_type ct = kr_value_type(kr_op_operand(op, 0));
  /* select(c, a, a) = a */
  if (kr_op_operand(op, 1) == kr_op_operand(op, 2)) return fold_to_value(res, kr_op_operand(op, 1));
  /* A constant condition that is the same everywhere picks a whole operand. */
  if (is_int_splat(c, ct, 1)) return fold_to_value(res, kr_op_operand(op, 1));
  if (is_int_splat(c, ct, 0)) return fold_to_value(res, kr_op_operand(op, 2));
  /* select(c, true, false) = c for i1 results of the condition's type. */
  kr_type rt = kr_value_type(kr_op_result(op, 0));
  if (rt == ct && is_int_splat(operands[1], rt, 1) && is_int_splat(operands[2], rt, 0))
    return fold_to_value(res, kr_op_operand(op, 0));
  return fold_elementwise(op, operands, e_select, 0, res);
}

kr_status kr_arith_index_cast_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  return fold_elementwise(op, operands, e_index_cast, 0, res);
}

kr_status kr_arith_extsi_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  return fold_elementwise(op, operands, e_sext, 0, res);
}

kr_status kr_arith_extui_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  return fold_elementwise(op, operands, e_zext, 0, res);
}

/* trunci(extsi(x)) and trunci(extui(x)) back to x's type are x. */
kr_status kr_arith_trunci_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_trunc);
  kr_op *ext = operand_def(op, 0, "arith.extsi");
  if (!ext) ext = operand_def(op, 0, "arith.extui");
  if (ext && kr_value_type(kr_op_operand(ext, 0)) == kr_value_type(kr_op_result(op, 0)))
    return fold_to_value(res, kr_op_operand(ext, 0));
  return KR_FAILURE;
}

kr_status kr_arith_sitofp_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  return fold_elementwise(op, operands, e_sitofp, 0, res);
}

kr_status kr_arith_uitofp_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  return fold_elementwise(op, operands, e_uitofp, 0, res);
}

kr_status kr_arith_fptosi_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  return fold_elementwise(op, operands, e_fptosi, 0, res);
}

kr_status kr_arith_fptoui_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  return fold_elementwise(op, operands, e_fptoui, 0, res);
}

kr_status kr_arith_extf_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  return fold_elementwise(op, operands, e_extf, 0, res);
}

/* truncf(extf(x)) back to x's type is x. */
kr_status kr_arith_truncf_fold(kr_op *op, const kr_attr *operands, kr_fold_result *res) {
  TRY_CONSTANT(e_truncf);
  kr_op *ext = operand_def(op, 0, "arith.extf");
  if (ext && kr_value_type(kr_op_operand(ext, 0)) == kr_value_type(kr_op_result(op, 0)))
    return fold_to_value(res, kr_op_operand(ext, 0));
  return KR_FAILURE;
}
