/* Unit tests: the arith dialect's folders, called through kr_op_def::fold.
 *
 * Every expected value is computed here independently, by C arithmetic on the fixed-width types
 * (int8_t/uint8_t ... int64_t/uint64_t, float, double) or by hand for f16/bf16, and compared with
 * the folded attribute.  "No fold" is expected exactly where the result is undefined: division
 * or remainder by zero, signed INT_MIN / -1, shifts by >= the width, inexact truncf (MLIR's
 * rules).  korch's fptosi/fptoui saturate (NaN -> 0) and always fold. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "korch/dialect.h"
#include "korch/ir.h"

static kr_context *ctx;
static kr_block *args;   /* detached block whose arguments stand for non-constant operands */

static void setup(void) {
  ctx = kr_context_create();
  ck_assert_int_eq(kr_register_core_dialects(ctx), KR_SUCCESS);
  args = kr_block_create(ctx);
}
static void teardown(void) { kr_context_destroy(ctx); }

static kr_type intt(unsigned w) { return kr_type_integer(ctx, w, KR_SIGNLESS); }
static kr_type flt_t(kr_float_kind k) { return kr_type_float(ctx, k); }

/* Builds `name` over fresh arguments of `in_types` (operand i repeats argument same[i] when
 * same[i] >= 0), folds it with constant operands `consts`, erases it.  Returns the fold status. */
static kr_status fold_full(const char *name, const kr_type *in_types, const int *same, unsigned n, const kr_attr *consts,
                           kr_type rt, kr_attr pred, kr_fold_result *res) {
  kr_value vals[3] = {0};
  for (unsigned i = 0; i < n; i++)
    vals[i] = same && same[i] >= 0 ? vals[same[i]] : kr_block_add_arg(args, in_types[i], NULL);
  kr_op_state st;
  kr_op_state_init(&st, ctx, name, NULL);
  kr_op_state_add_operands(&st, vals, n);
  kr_op_state_add_results(&st, &rt, 1);
  if (pred) kr_op_state_add_attr(&st, "predicate", pred);
  kr_op *op = kr_op_create(&st);
  kr_op_state_free(&st);
  ck_assert_ptr_nonnull(op);
  ck_assert_ptr_nonnull(op->def);
  ck_assert(op->def->fold != NULL);
  res->attr = NULL;
  res->value = NULL;
  kr_status s = op->def->fold(op, consts, res);
  /* A folded value is one of the operands: report which by index through res->value's number. */
  if (s == KR_SUCCESS && res->value)
    for (unsigned i = 0; i < n; i++)
      if (res->value == vals[i]) res->value = (kr_value)(uintptr_t)(i + 1);
  kr_op_erase(op);
  return s;
}

/* What fold_full leaves in res->value when the op folded to its operand i. */
#define OPERAND(i) ((kr_value)(uintptr_t)(i + 1))

static kr_status fold_bin(const char *name, kr_type t, kr_attr a, kr_attr b, kr_fold_result *res) {
  kr_type ts[2] = {t, t};
  kr_attr c[2] = {a, b};
  return fold_full(name, ts, NULL, 2, c, t, NULL, res);
}

static kr_attr ival(kr_type t, int64_t v) { return kr_attr_integer(ctx, t, v); }
static kr_attr fval(kr_type t, double v) { return kr_attr_float(ctx, t, v); }
static kr_attr i64_attr(int64_t v) { return kr_attr_integer(ctx, intt(64), v); }

/* ---------------------------------------------------------------------------------------------
 * Integer binary ops, all widths: expected results from C arithmetic on the width's types. */

static const char *const int_ops[] = {
  "arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
  "arith.andi", "arith.ori", "arith.xori", "arith.shli", "arith.shrsi", "arith.shrui",
  "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui",
};
#define NUM_INT_OPS (sizeof int_ops / sizeof int_ops[0])

/* expect_W(op, a, b, &r): false when the op must not fold. */
#define DEFINE_EXPECT(W, S, U, SMIN)                                                 \
  static bool expect_##W(unsigned op, S a, S b, S *r) {                              \
    U ua = (U)a, ub = (U)b;                                                          \
    switch (op) {                                                                    \
    case 0: *r = (S)(U)(ua + ub); return true;                                       \
    case 1: *r = (S)(U)(ua - ub); return true;                                       \
    case 2: *r = (S)(U)((uint64_t)ua * (uint64_t)ub); return true;                   \
    case 3: if (b == 0 || (a == SMIN && b == -1)) return false;                      \
            *r = (S)(a / b); return true;                                            \
    case 4: if (ub == 0) return false; *r = (S)(U)(ua / ub); return true;            \
    case 5: if (b == 0) return false; *r = b == -1 ? 0 : (S)(a % b); return true;    \
    case 6: if (ub == 0) return false; *r = (S)(U)(ua % ub); return true;            \
    case 7: *r = (S)(U)(ua & ub); return true;                                       \
    case 8: *r = (S)(U)(ua | ub); return true;                                       \
    case 9: *r = (S)(U)(ua ^ ub); return true;                                       \
    case 10: if (ub >= W) return false; *r = (S)(U)((uint64_t)ua << ub); return true; \
    case 11: if (ub >= W) return false; *r = (S)(a >> ub); return true;              \
    case 12: if (ub >= W) return false; *r = (S)(U)(ua >> ub); return true;          \
    case 13: *r = a > b ? a : b; return true;                                        \
    case 14: *r = a < b ? a : b; return true;                                        \
    case 15: *r = (S)(ua > ub ? ua : ub); return true;                               \
    case 16: *r = (S)(ua < ub ? ua : ub); return true;                               \
    }                                                                                \
    return false;                                                                    \
  }
DEFINE_EXPECT(8, int8_t, uint8_t, INT8_MIN)
DEFINE_EXPECT(16, int16_t, uint16_t, INT16_MIN)
DEFINE_EXPECT(32, int32_t, uint32_t, INT32_MIN)
DEFINE_EXPECT(64, int64_t, uint64_t, INT64_MIN)

/* Interesting operands: identities, extremes, neighbours of the extremes, and the shift amounts
 * W-1 and W (W itself must not fold). */
static unsigned int_values(unsigned w, int64_t *out) {
  int64_t max = w == 64 ? INT64_MAX : (int64_t)((1ull << (w - 1)) - 1), min = -max - 1;
  int64_t v[] = {0, 1, -1, 2, -2, 3, 7, -7, 100, -100, 0x55, max, min, max - 1, min + 1, (int64_t)w - 1, (int64_t)w};
  unsigned n = 0;
  for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
    /* keep values representable at this width (100 and 0x55 do not fit i8 unchanged otherwise) */
    if (v[i] > max || v[i] < min) continue;
    out[n++] = v[i];
  }
  return n;
}

static void check_int_ops(unsigned w, bool use_index) {
  kr_type t = use_index ? kr_type_index(ctx) : intt(w);
  int64_t vals[32];
  unsigned nv = int_values(w, vals);
  unsigned folded = 0, refused = 0;
  for (unsigned op = 0; op < NUM_INT_OPS; op++) {
    for (unsigned i = 0; i < nv; i++) {
      for (unsigned j = 0; j < nv; j++) {
        int64_t a = vals[i], b = vals[j], r = 0;
        bool ok;
        switch (w) {
        case 8: { int8_t x = 0; ok = expect_8(op, (int8_t)a, (int8_t)b, &x); r = x; break; }
        case 16: { int16_t x = 0; ok = expect_16(op, (int16_t)a, (int16_t)b, &x); r = x; break; }
        case 32: { int32_t x = 0; ok = expect_32(op, (int32_t)a, (int32_t)b, &x); r = x; break; }
        default: { int64_t x; ok = expect_64(op, a, b, &x); r = x; break; }
        }
        kr_fold_result res;
        kr_status s = fold_bin(int_ops[op], t, ival(t, a), ival(t, b), &res);
        if (!ok) {
          ck_assert_msg(s == KR_FAILURE, "%s i%u %lld, %lld must not fold", int_ops[op], w, (long long)a, (long long)b);
          refused++;
          continue;
        }
        ck_assert_msg(s == KR_SUCCESS, "%s i%u %lld, %lld did not fold", int_ops[op], w, (long long)a, (long long)b);
        ck_assert_msg(res.attr == ival(t, r), "%s i%u %lld, %lld: got %lld, expected %lld", int_ops[op], w,
                      (long long)a, (long long)b, res.attr && res.attr->kind == KR_ATTR_INTEGER ? (long long)res.attr->u.i : -999LL,
                      (long long)r);
        folded++;
      }
    }
  }
  ck_assert_uint_gt(folded, 1000);
  ck_assert_uint_gt(refused, 20);
}

START_TEST(int_ops_i8) { check_int_ops(8, false); }
END_TEST
START_TEST(int_ops_i16) { check_int_ops(16, false); }
END_TEST
START_TEST(int_ops_i32) { check_int_ops(32, false); }
END_TEST
START_TEST(int_ops_i64) { check_int_ops(64, false); }
END_TEST
START_TEST(int_ops_index) { check_int_ops(64, true); }
END_TEST

/* Hand-picked cases that name the rules. */
START_TEST(int_rules) {
  kr_type i32 = intt(32), i8 = intt(8);
  kr_fold_result r;
  /* wrap: INT32_MAX + 1 = INT32_MIN; 200 * 2 in i8 = 144 = -112 */
  ck_assert_int_eq(fold_bin("arith.addi", i32, ival(i32, INT32_MAX), ival(i32, 1), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i32, INT32_MIN));
  ck_assert_int_eq(fold_bin("arith.muli", i8, ival(i8, -56), ival(i8, 2), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, -112));
  /* divsi rounds toward zero, remsi takes the dividend's sign */
  ck_assert_int_eq(fold_bin("arith.divsi", i32, ival(i32, -7), ival(i32, 2), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i32, -3));
  ck_assert_int_eq(fold_bin("arith.remsi", i32, ival(i32, -7), ival(i32, 2), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i32, -1));
  /* unsigned ops see the bits: -1 (0xFFFFFFFF) / 2 = 0x7FFFFFFF; 0xFF % 10 = 5 in i8 */
  ck_assert_int_eq(fold_bin("arith.divui", i32, ival(i32, -1), ival(i32, 2), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i32, INT32_MAX));
  ck_assert_int_eq(fold_bin("arith.remui", i8, ival(i8, -1), ival(i8, 10), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, 5));
  /* undefined: not folded */
  ck_assert_int_eq(fold_bin("arith.divsi", i32, ival(i32, 1), ival(i32, 0), &r), KR_FAILURE);
  ck_assert_int_eq(fold_bin("arith.divui", i32, ival(i32, 1), ival(i32, 0), &r), KR_FAILURE);
  ck_assert_int_eq(fold_bin("arith.remsi", i32, ival(i32, 1), ival(i32, 0), &r), KR_FAILURE);
  ck_assert_int_eq(fold_bin("arith.remui", i32, ival(i32, 1), ival(i32, 0), &r), KR_FAILURE);
  ck_assert_int_eq(fold_bin("arith.divsi", i32, ival(i32, INT32_MIN), ival(i32, -1), &r), KR_FAILURE);
  ck_assert_int_eq(fold_bin("arith.shli", i32, ival(i32, 1), ival(i32, 32), &r), KR_FAILURE);
  /* INT_MIN % -1 is 0 (defined, unlike the division) */
  ck_assert_int_eq(fold_bin("arith.remsi", i32, ival(i32, INT32_MIN), ival(i32, -1), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i32, 0));
  /* shifts */
  ck_assert_int_eq(fold_bin("arith.shrsi", i8, ival(i8, -128), ival(i8, 7), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, -1));
  ck_assert_int_eq(fold_bin("arith.shrui", i8, ival(i8, -128), ival(i8, 7), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, 1));
  ck_assert_int_eq(fold_bin("arith.shli", i8, ival(i8, 1), ival(i8, 7), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, -128));
}
END_TEST

/* i1 arithmetic is arithmetic modulo 2; true is -1 as a signed i1. */
START_TEST(i1_ops) {
  kr_type i1 = intt(1);
  kr_fold_result r;
  kr_attr t = ival(i1, 1), f = ival(i1, 0);
  ck_assert_int_eq(fold_bin("arith.addi", i1, t, t, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, f);
  ck_assert_int_eq(fold_bin("arith.xori", i1, t, f, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, t);
  ck_assert_int_eq(fold_bin("arith.muli", i1, t, t, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, t);
  ck_assert_int_eq(fold_bin("arith.maxsi", i1, t, f, &r), KR_SUCCESS);   /* -1 < 0 */
  ck_assert_ptr_eq(r.attr, f);
  ck_assert_int_eq(fold_bin("arith.maxui", i1, t, f, &r), KR_SUCCESS);   /* 1 > 0 */
  ck_assert_ptr_eq(r.attr, t);
  /* -1 / -1 overflows in i1 (INT_MIN / -1), so there is no constant; x / 1 = x applies instead
   * (1 is all ones in i1, as in MLIR's m_One match), and any value refines the overflow. */
  ck_assert_int_eq(fold_bin("arith.divsi", i1, t, t, &r), KR_SUCCESS);
  ck_assert_ptr_null(r.attr);
  ck_assert_ptr_eq(r.value, OPERAND(0));
  /* a bool attribute works as an i1 constant too */
  ck_assert_int_eq(fold_bin("arith.andi", i1, kr_attr_bool(ctx, true), kr_attr_bool(ctx, true), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, t);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Comparisons. */

static bool expect_cmpi32(int64_t pred, int32_t a, int32_t b) {
  uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
  switch (pred) {
  case 0: return a == b;
  case 1: return a != b;
  case 2: return a < b;
  case 3: return a <= b;
  case 4: return a > b;
  case 5: return a >= b;
  case 6: return ua < ub;
  case 7: return ua <= ub;
  case 8: return ua > ub;
  case 9: return ua >= ub;
  }
  return false;
}

static kr_status fold_cmp(const char *name, int64_t pred, kr_type t, kr_attr a, kr_attr b, bool same_value,
                          kr_fold_result *r) {
  kr_type ts[2] = {t, t};
  kr_attr c[2] = {a, b};
  int same[2] = {-1, 0};
  return fold_full(name, ts, same_value ? same : NULL, 2, c, intt(1), i64_attr(pred), r);
}

START_TEST(cmpi_all_predicates) {
  kr_type i32 = intt(32), i1 = intt(1);
  int32_t v[] = {0, 1, -1, INT32_MAX, INT32_MIN, 42};
  for (int64_t pred = 0; pred < 10; pred++)
    for (unsigned i = 0; i < 6; i++)
      for (unsigned j = 0; j < 6; j++) {
        kr_fold_result r;
        ck_assert_int_eq(fold_cmp("arith.cmpi", pred, i32, ival(i32, v[i]), ival(i32, v[j]), false, &r), KR_SUCCESS);
        ck_assert_msg(r.attr == ival(i1, expect_cmpi32(pred, v[i], v[j])), "cmpi %lld %d, %d", (long long)pred, v[i], v[j]);
      }
  /* x cmp x without constants: true exactly for eq, sle, sge, ule, uge */
  for (int64_t pred = 0; pred < 10; pred++) {
    kr_fold_result r;
    ck_assert_int_eq(fold_cmp("arith.cmpi", pred, i32, NULL, NULL, true, &r), KR_SUCCESS);
    bool want = pred == 0 || pred == 3 || pred == 5 || pred == 7 || pred == 9;
    ck_assert_ptr_eq(r.attr, ival(i1, want));
  }
  kr_fold_result r;
  ck_assert_int_eq(fold_cmp("arith.cmpi", 2, i32, NULL, NULL, false, &r), KR_FAILURE);
}
END_TEST

static bool expect_cmpf(int64_t pred, double a, double b) {
  bool ord = !isnan(a) && !isnan(b);
  switch (pred) {
  case 0: return false;
  case 1: return ord && a == b;
  case 2: return ord && a > b;
  case 3: return ord && a >= b;
  case 4: return ord && a < b;
  case 5: return ord && a <= b;
  case 6: return ord && a != b;
  case 7: return ord;
  case 8: return !ord || a == b;
  case 9: return !ord || a > b;
  case 10: return !ord || a >= b;
  case 11: return !ord || a < b;
  case 12: return !ord || a <= b;
  case 13: return !ord || a != b;
  case 14: return !ord;
  case 15: return true;
  }
  return false;
}

START_TEST(cmpf_all_predicates) {
  kr_type f32 = flt_t(KR_F32), i1 = intt(1);
  double v[] = {0.0, -0.0, 1.5, -INFINITY, NAN};
  for (int64_t pred = 0; pred < 16; pred++)
    for (unsigned i = 0; i < 5; i++)
      for (unsigned j = 0; j < 5; j++) {
        kr_fold_result r;
        ck_assert_int_eq(fold_cmp("arith.cmpf", pred, f32, fval(f32, v[i]), fval(f32, v[j]), false, &r), KR_SUCCESS);
        ck_assert_msg(r.attr == ival(i1, expect_cmpf(pred, v[i], v[j])), "cmpf %lld %g, %g", (long long)pred, v[i], v[j]);
      }
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Floats. */

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float expect_maximum(float a, float b) {
  if (isnan(a) || isnan(b)) return NAN;
  if (a == 0 && b == 0) return signbit(a) ? b : a;
  return a > b ? a : b;
}
static float expect_minimum(float a, float b) {
  if (isnan(a) || isnan(b)) return NAN;
  if (a == 0 && b == 0) return signbit(a) ? a : b;
  return a < b ? a : b;
}

START_TEST(f32_ops) {
  kr_type f32 = flt_t(KR_F32);
  static const char *const ops[] = {"arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.maximumf",
                                    "arith.minimumf"};
  volatile float v[] = {0.0f, -0.0f, 1.0f, -1.5f, 0.1f, 3.0f, 3.4e38f, 1e-45f, INFINITY, -INFINITY, NAN};
  unsigned nv = sizeof v / sizeof v[0];
  for (unsigned op = 0; op < 6; op++)
    for (unsigned i = 0; i < nv; i++)
      for (unsigned j = 0; j < nv; j++) {
        float a = v[i], b = v[j], want;
        switch (op) {
        case 0: want = a + b; break;
        case 1: want = a - b; break;
        case 2: want = a * b; break;
        case 3: want = a / b; break;
        case 4: want = expect_maximum(a, b); break;
        default: want = expect_minimum(a, b); break;
        }
        kr_fold_result r;
        ck_assert_int_eq(fold_bin(ops[op], f32, fval(f32, a), fval(f32, b), &r), KR_SUCCESS);
        ck_assert_ptr_nonnull(r.attr);
        ck_assert_int_eq(r.attr->kind, KR_ATTR_FLOAT);
        ck_assert_ptr_eq(r.attr->type, f32);
        float got = (float)r.attr->u.f;
        if (isnan(want)) ck_assert_msg(isnan(got), "%s %g, %g: got %g, expected NaN", ops[op], a, b, got);
        else ck_assert_msg(f32_bits(got) == f32_bits(want), "%s %a, %a: got %a, expected %a", ops[op], a, b, got, want);
      }
}
END_TEST

/* f16 and bf16 results round once, to nearest even, in the result type. */
START_TEST(f16_bf16_rounding) {
  kr_type f16 = flt_t(KR_F16), bf16 = flt_t(KR_BF16);
  kr_fold_result r;
  /* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even gives 1 */
  ck_assert_int_eq(fold_bin("arith.addf", f16, fval(f16, 1.0), fval(f16, 0x1p-11), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == 1.0);
  /* 1 + 3*2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even) */
  ck_assert_int_eq(fold_bin("arith.addf", f16, fval(f16, 1.0), fval(f16, 0x3p-11), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == 1.0 + 0x1p-9);
  /* 65504 + 16 = 65520 rounds to infinity, 65504 + 8 = 65512 back to 65504 */
  ck_assert_int_eq(fold_bin("arith.addf", f16, fval(f16, 65504.0), fval(f16, 16.0), &r), KR_SUCCESS);
  ck_assert(isinf(r.attr->u.f) && r.attr->u.f > 0);
  ck_assert_int_eq(fold_bin("arith.addf", f16, fval(f16, 65504.0), fval(f16, 8.0), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == 65504.0);
  /* 1/3 in f16: 0x3555 = 0.333251953125 */
  ck_assert_int_eq(fold_bin("arith.divf", f16, fval(f16, 1.0), fval(f16, 3.0), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == 0.333251953125);
  /* bf16: 1 + 2^-8 ties to 1; 1 + 3*2^-8 ties to 1 + 2^-6 */
  ck_assert_int_eq(fold_bin("arith.addf", bf16, fval(bf16, 1.0), fval(bf16, 0x1p-8), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == 1.0);
  ck_assert_int_eq(fold_bin("arith.addf", bf16, fval(bf16, 1.0), fval(bf16, 0x3p-8), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == 1.0 + 0x1p-6);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Math functions: f32 and f16 compute with C's float functions, f64 with the double ones
 * (expected values from the same C functions, computed here, rounded by C's conversions). */

static kr_status fold_un(const char *name, kr_type t, kr_attr a, kr_fold_result *res) {
  return fold_full(name, &t, NULL, 1, &a, t, NULL, res);
}

static double f16_round(float f) { return (double)kr_f16_to_f32(kr_f32_to_f16(f)); }

START_TEST(math_ops) {
  kr_type f16 = flt_t(KR_F16), f32 = flt_t(KR_F32), f64 = flt_t(KR_F64), i8 = intt(8), i32 = intt(32);
  kr_fold_result r;
  static const char *const un[] = {"arith.exp", "arith.log", "arith.sqrt", "arith.rsqrt", "arith.tanh", "arith.erf",
                                   "arith.sin", "arith.cos", "arith.floor", "arith.ceil", "arith.roundeven",
                                   "arith.absf"};
  volatile float v[] = {0.5f, -2.5f, 3.5f, 0.1f, 100.0f, -0.0f};
  for (unsigned op = 0; op < 12; op++)
    for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
      float a = v[i], wf;
      double ad = (double)a, wd;
      switch (op) {
      case 0: wf = expf(a); wd = exp(ad); break;
      case 1: wf = logf(a); wd = log(ad); break;
      case 2: wf = sqrtf(a); wd = sqrt(ad); break;
      case 3: wf = 1.0f / sqrtf(a); wd = 1.0 / sqrt(ad); break;
      case 4: wf = tanhf(a); wd = tanh(ad); break;
      case 5: wf = erff(a); wd = erf(ad); break;
      case 6: wf = sinf(a); wd = sin(ad); break;
      case 7: wf = cosf(a); wd = cos(ad); break;
      case 8: wf = floorf(a); wd = floor(ad); break;
      case 9: wf = ceilf(a); wd = ceil(ad); break;
      case 10: wf = nearbyintf(a); wd = nearbyint(ad); break;
      default: wf = fabsf(a); wd = fabs(ad); break;
      }
      ck_assert_int_eq(fold_un(un[op], f32, fval(f32, a), &r), KR_SUCCESS);
      if (isnan(wf)) ck_assert_msg(isnan(r.attr->u.f) && !signbit(r.attr->u.f), "%s(%g): want +NaN", un[op], a);
      else ck_assert_msg(f32_bits((float)r.attr->u.f) == f32_bits(wf), "%s(%a): got %a want %a", un[op], a, r.attr->u.f, wf);
      ck_assert_int_eq(fold_un(un[op], f64, fval(f64, ad), &r), KR_SUCCESS);
      if (isnan(wd)) ck_assert(isnan(r.attr->u.f));
      else ck_assert_msg(r.attr->u.f == wd && signbit(r.attr->u.f) == signbit(wd), "%s f64(%a): got %a want %a", un[op],
                         ad, r.attr->u.f, wd);
    }
  /* roundeven ties to even; floor/ceil of negatives */
  ck_assert_int_eq(fold_un("arith.roundeven", f32, fval(f32, 2.5), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == 2.0);
  ck_assert_int_eq(fold_un("arith.roundeven", f32, fval(f32, -3.5), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == -4.0);
  /* f16 computes in f32, then rounds once to f16 */
  ck_assert_int_eq(fold_un("arith.exp", f16, fval(f16, 1.0), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == f16_round(expf(1.0f)) && r.attr->u.f == 2.71875);
  /* binary and ternary */
  ck_assert_int_eq(fold_bin("arith.powf", f32, fval(f32, 2.0), fval(f32, 10.0), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == 1024.0);
  ck_assert_int_eq(fold_bin("arith.powf", f32, fval(f32, -8.0), fval(f32, 1.0 / 3.0), &r), KR_SUCCESS);
  ck_assert(isnan(r.attr->u.f) && !signbit(r.attr->u.f));
  ck_assert_int_eq(fold_bin("arith.remf", f32, fval(f32, -7.5), fval(f32, 2.0), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == -1.5);
  ck_assert_int_eq(fold_bin("arith.remf", f64, fval(f64, 7.0), fval(f64, 0.0), &r), KR_SUCCESS);
  ck_assert(isnan(r.attr->u.f));
  /* fma rounds once: (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly, while a*b rounds to 1 in f32 */
  kr_type t3[3] = {f32, f32, f32};
  kr_attr c3[3] = {fval(f32, 1.0 + 0x1p-23), fval(f32, 1.0 - 0x1p-23), fval(f32, -1.0)};
  ck_assert_int_eq(fold_full("arith.fma", t3, NULL, 3, c3, f32, NULL, &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == -0x1p-46);
  /* absi wraps at the most negative value */
  ck_assert_int_eq(fold_un("arith.absi", i8, ival(i8, -5), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, 5));
  ck_assert_int_eq(fold_un("arith.absi", i8, ival(i8, -128), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, -128));
  ck_assert_int_eq(fold_un("arith.absi", i32, ival(i32, 7), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i32, 7));
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Casts. */

static kr_status fold_cast(const char *name, kr_type from, kr_type to, kr_attr a, kr_fold_result *r) {
  return fold_full(name, &from, NULL, 1, &a, to, NULL, r);
}

START_TEST(int_casts) {
  kr_type i8 = intt(8), i32 = intt(32), i64 = intt(64), idx = kr_type_index(ctx);
  kr_fold_result r;
  ck_assert_int_eq(fold_cast("arith.extsi", i8, i32, ival(i8, -1), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i32, -1));
  ck_assert_int_eq(fold_cast("arith.extui", i8, i32, ival(i8, -1), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i32, 255));
  ck_assert_int_eq(fold_cast("arith.trunci", i32, i8, ival(i32, 0x1FF), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, -1));
  ck_assert_int_eq(fold_cast("arith.trunci", i64, i32, ival(i64, (int64_t)0x180000000LL), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i32, INT32_MIN));
  /* index_cast sign-extends to index and truncates from it */
  ck_assert_int_eq(fold_cast("arith.index_cast", i8, idx, ival(i8, -128), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(idx, -128));
  ck_assert_int_eq(fold_cast("arith.index_cast", idx, i32, ival(idx, (int64_t)1 << 40 | 7), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i32, 7));
}
END_TEST

START_TEST(float_casts) {
  kr_type i8 = intt(8), i32 = intt(32), i64 = intt(64);
  kr_type f16 = flt_t(KR_F16), bf16 = flt_t(KR_BF16), f32 = flt_t(KR_F32), f64 = flt_t(KR_F64);
  kr_fold_result r;
  /* sitofp rounds once: 2^24 + 1 -> 2^24 in f32 (as C's conversion); in bf16 the integer
   * 2^40 + 2^32 + 1 lies just above a tie and must round up to 2^40 + 2^33 (going through a
   * rounded float would land on the tie and round down to 2^40). */
  ck_assert_int_eq(fold_cast("arith.sitofp", i32, f32, ival(i32, 16777217), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == (double)(float)16777217);
  ck_assert_int_eq(fold_cast("arith.sitofp", i64, bf16, ival(i64, ((int64_t)1 << 40) + ((int64_t)1 << 32) + 1), &r),
                   KR_SUCCESS);
  ck_assert(r.attr->u.f == 0x1p40 + 0x1p33);
  ck_assert_int_eq(fold_cast("arith.sitofp", i8, f16, ival(i8, -128), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == -128.0);
  /* fptosi truncates toward zero and saturates; NaN gives 0 (PTX cvt.rzi.sat) */
  ck_assert_int_eq(fold_cast("arith.fptosi", f32, i8, fval(f32, 127.9), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, 127));
  ck_assert_int_eq(fold_cast("arith.fptosi", f32, i8, fval(f32, -128.5), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, -128));
  ck_assert_int_eq(fold_cast("arith.fptosi", f32, i8, fval(f32, -2.5), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, -2));
  ck_assert_int_eq(fold_cast("arith.fptosi", f32, i8, fval(f32, 128.0), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, 127));
  ck_assert_int_eq(fold_cast("arith.fptosi", f32, i8, fval(f32, -129.0), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, -128));
  ck_assert_int_eq(fold_cast("arith.fptosi", f64, i32, fval(f64, 1e300), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i32, INT32_MAX));
  ck_assert_int_eq(fold_cast("arith.fptosi", f32, i64, fval(f32, -INFINITY), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i64, INT64_MIN));
  ck_assert_int_eq(fold_cast("arith.fptosi", f32, i32, fval(f32, NAN), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i32, 0));
  /* fptoui: negative and NaN -> 0, above the range -> all ones */
  ck_assert_int_eq(fold_cast("arith.fptoui", f32, i8, fval(f32, 255.9), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, 255));
  ck_assert_int_eq(fold_cast("arith.fptoui", f32, i8, fval(f32, 256.0), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, 255));
  ck_assert_int_eq(fold_cast("arith.fptoui", f32, i8, fval(f32, -0.9), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, 0));
  ck_assert_int_eq(fold_cast("arith.fptoui", f32, i8, fval(f32, -7.0), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i8, 0));
  ck_assert_int_eq(fold_cast("arith.fptoui", f64, i32, fval(f64, NAN), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i32, 0));
  ck_assert_int_eq(fold_cast("arith.fptoui", f64, i64, fval(f64, 0x1.8p63), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i64, (int64_t)0xC000000000000000ULL));
  ck_assert_int_eq(fold_cast("arith.fptoui", f64, i64, fval(f64, 0x1p64), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ival(i64, -1));
  /* uitofp reads the bits unsigned: i8 -1 is 255; 2^64 - 1 rounds to 2^64 in f32 */
  ck_assert_int_eq(fold_cast("arith.uitofp", i8, f32, ival(i8, -1), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == 255.0);
  ck_assert_int_eq(fold_cast("arith.uitofp", i64, f32, ival(i64, -1), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == 0x1p64);
  ck_assert_int_eq(fold_cast("arith.uitofp", i32, f16, ival(i32, 2049), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == 2048.0); /* 2049 ties between 2048 and 2050: even mantissa */
  /* extf is exact; truncf folds only when exact (MLIR) */
  ck_assert_int_eq(fold_cast("arith.extf", f16, f32, fval(f16, 0.333251953125), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == 0.333251953125 && r.attr->type == f32);
  ck_assert_int_eq(fold_cast("arith.truncf", f64, f32, fval(f64, 0.5), &r), KR_SUCCESS);
  ck_assert(r.attr->u.f == 0.5 && r.attr->type == f32);
  ck_assert_int_eq(fold_cast("arith.truncf", f64, f32, fval(f64, 0.1), &r), KR_FAILURE);
  ck_assert_int_eq(fold_cast("arith.truncf", f64, f32, fval(f64, 1e300), &r), KR_FAILURE);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Dense operands, identities, select. */

START_TEST(dense_elementwise) {
  kr_type i32 = intt(32);
  int64_t dims[1] = {4};
  kr_type t = kr_type_tensor(ctx, dims, 1, i32);
  int32_t a[4] = {1, 2, 3, INT32_MAX}, one[1] = {1}, want[4] = {2, 3, 4, INT32_MIN};
  kr_attr da = kr_attr_dense(ctx, t, a, sizeof a), d1 = kr_attr_dense(ctx, t, one, sizeof one);
  ck_assert_ptr_nonnull(da);
  ck_assert_ptr_nonnull(d1);
  kr_fold_result r;
  ck_assert_int_eq(fold_bin("arith.addi", t, da, d1, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, kr_attr_dense(ctx, t, want, sizeof want));
  /* splat op splat stays a splat */
  int32_t seven[1] = {7}, fourteen[1] = {14};
  kr_attr d7 = kr_attr_dense(ctx, t, seven, sizeof seven);
  ck_assert_int_eq(fold_bin("arith.addi", t, d7, d7, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, kr_attr_dense(ctx, t, fourteen, sizeof fourteen));
  ck_assert(r.attr->u.dense.splat);
  /* one zero divisor anywhere: no fold */
  int32_t z[4] = {1, 1, 0, 1};
  ck_assert_int_eq(fold_bin("arith.divsi", t, da, kr_attr_dense(ctx, t, z, sizeof z), &r), KR_FAILURE);
}
END_TEST

static kr_status fold_same(const char *name, kr_type t, kr_fold_result *r) {
  kr_type ts[2] = {t, t};
  kr_attr c[2] = {NULL, NULL};
  int same[2] = {-1, 0};
  return fold_full(name, ts, same, 2, c, t, NULL, r);
}

START_TEST(identities) {
  kr_type i32 = intt(32), f32 = flt_t(KR_F32);
  kr_fold_result r;
  kr_attr zero = ival(i32, 0), one = ival(i32, 1), ones = ival(i32, -1);
  /* x op c with x unknown */
  ck_assert_int_eq(fold_bin("arith.addi", i32, NULL, zero, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.value, OPERAND(0));
  ck_assert_int_eq(fold_bin("arith.subi", i32, NULL, zero, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.value, OPERAND(0));
  ck_assert_int_eq(fold_bin("arith.muli", i32, NULL, one, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.value, OPERAND(0));
  ck_assert_int_eq(fold_bin("arith.muli", i32, NULL, zero, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, zero);
  ck_assert_int_eq(fold_bin("arith.andi", i32, NULL, zero, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, zero);
  ck_assert_int_eq(fold_bin("arith.andi", i32, NULL, ones, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.value, OPERAND(0));
  ck_assert_int_eq(fold_bin("arith.ori", i32, NULL, ones, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, ones);
  ck_assert_int_eq(fold_bin("arith.divsi", i32, NULL, one, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.value, OPERAND(0));
  ck_assert_int_eq(fold_bin("arith.divsi", i32, NULL, zero, &r), KR_FAILURE);
  ck_assert_int_eq(fold_bin("arith.addi", i32, NULL, one, &r), KR_FAILURE);
  /* x op x */
  ck_assert_int_eq(fold_same("arith.subi", i32, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, zero);
  ck_assert_int_eq(fold_same("arith.xori", i32, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.attr, zero);
  ck_assert_int_eq(fold_same("arith.andi", i32, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.value, OPERAND(0));
  ck_assert_int_eq(fold_same("arith.ori", i32, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.value, OPERAND(0));
  ck_assert_int_eq(fold_same("arith.addi", i32, &r), KR_FAILURE);
  /* floats: x + -0.0 and x * 1.0 are x; x + 0.0 is not (x may be -0.0); x - x is not 0 (NaN, inf) */
  ck_assert_int_eq(fold_bin("arith.addf", f32, NULL, fval(f32, -0.0), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.value, OPERAND(0));
  ck_assert_int_eq(fold_bin("arith.addf", f32, NULL, fval(f32, 0.0), &r), KR_FAILURE);
  ck_assert_int_eq(fold_bin("arith.mulf", f32, NULL, fval(f32, 1.0), &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.value, OPERAND(0));
  ck_assert_int_eq(fold_bin("arith.mulf", f32, NULL, fval(f32, 0.0), &r), KR_FAILURE);
  ck_assert_int_eq(fold_same("arith.subf", f32, &r), KR_FAILURE);
  /* A constant whose attribute does not have the operand's type (another dialect's constant op
   * may hold anything) is not used. */
  ck_assert_int_eq(fold_bin("arith.addi", i32, fval(f32, 1.5), ival(i32, 1), &r), KR_FAILURE);
  ck_assert_int_eq(fold_bin("arith.addi", i32, NULL, ival(intt(64), 0), &r), KR_FAILURE);
  ck_assert_int_eq(fold_bin("arith.mulf", f32, NULL, fval(flt_t(KR_F64), 1.0), &r), KR_FAILURE);
}
END_TEST

START_TEST(select_folds) {
  kr_type i1 = intt(1), i32 = intt(32);
  kr_type ts[3] = {i1, i32, i32};
  kr_fold_result r;
  kr_attr c[3] = {ival(i1, 1), NULL, NULL};
  ck_assert_int_eq(fold_full("arith.select", ts, NULL, 3, c, i32, NULL, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.value, OPERAND(1));
  c[0] = kr_attr_bool(ctx, false);
  ck_assert_int_eq(fold_full("arith.select", ts, NULL, 3, c, i32, NULL, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.value, OPERAND(2));
  /* select(c, a, a) = a */
  c[0] = NULL;
  int same[3] = {-1, -1, 1};
  ck_assert_int_eq(fold_full("arith.select", ts, same, 3, c, i32, NULL, &r), KR_SUCCESS);
  ck_assert_ptr_eq(r.value, OPERAND(1));
  /* select(c, 3, 4) with c unknown: no fold */
  kr_attr c2[3] = {NULL, ival(i32, 3), ival(i32, 4)};
  ck_assert_int_eq(fold_full("arith.select", ts, NULL, 3, c2, i32, NULL, &r), KR_FAILURE);
}
END_TEST

int main(void) {
  Suite *s = suite_create("arith_fold");
  TCase *tc = tcase_create("fold");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, int_ops_i8);
  tcase_add_test(tc, int_ops_i16);
  tcase_add_test(tc, int_ops_i32);
  tcase_add_test(tc, int_ops_i64);
  tcase_add_test(tc, int_ops_index);
  tcase_add_test(tc, int_rules);
  tcase_add_test(tc, i1_ops);
  tcase_add_test(tc, cmpi_all_predicates);
  tcase_add_test(tc, cmpf_all_predicates);
  tcase_add_test(tc, f32_ops);
  tcase_add_test(tc, f16_bf16_rounding);
  tcase_add_test(tc, math_ops);
  tcase_add_test(tc, int_casts);
  tcase_add_test(tc, float_casts);
  tcase_add_test(tc, dense_elementwise);
  tcase_add_test(tc, identities);
  tcase_add_test(tc, select_folds);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
