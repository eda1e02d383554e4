/* Unit tests: NaN sign and payload bits survive float attributes and the f16/bf16/f32/f64
 * conversions (korch/ir.h kr_attr_float, kr_float_to_bits / kr_float_from_bits, kr_f32_to_f16 ...).
 * x86 float <-> double conversions set the quiet bit, so a signalling NaN (quiet bit clear) is the
 * sharp case.  Expected patterns come from the IEEE 754 layouts and from what mlir-opt 19 keeps
 * (APFloat stores the exact bits), not from korch. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/ir.h"

static kr_context *ctx;
static void setup(void) { ctx = kr_context_create(); }
static void teardown(void) { kr_context_destroy(ctx); }

static double d_from(uint64_t b) {
  double d;
  memcpy(&d, &b, 8);
  return d;
}
static uint64_t d_bits(double d) {
  uint64_t b;
  memcpy(&b, &d, 8);
  return b;
}
static float f_from(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}
static uint32_t f_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

/* The attribute printed in full ("0x7F800001 : f32"), into `buf`. */
static const char *print_attr(kr_attr a, char *buf, size_t n) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_attr_print(&os, a);
  strncpy(buf, kr_ostream_str(&os), n - 1);
  buf[n - 1] = 0;
  kr_ostream_close(&os);
  return buf;
}

/* The brief's case: a double holding an f32 signalling NaN (0x7F800001: mantissa 1, shifted up by
 * 52 - 23 = 29 bits) given to kr_attr_float keeps its bits, reads back as 0x7F800001 and prints
 * as mlir-opt prints it. */
START_TEST(f32_snan_attr) {
  kr_type f32 = kr_type_float(ctx, KR_F32);
  double v = d_from(0x7FF0000020000000ull);
  kr_attr a = kr_attr_float(ctx, f32, v);
  ck_assert_ptr_nonnull(a);
  ck_assert_uint_eq(d_bits(a->u.f), 0x7FF0000020000000ull);
  ck_assert_uint_eq(kr_float_to_bits(KR_F32, a->u.f), 0x7F800001u);
  char buf[64];
  ck_assert_str_eq(print_attr(a, buf, sizeof buf), "0x7F800001 : f32");
  /* Negative, largest signalling payload. */
  kr_attr n = kr_attr_float(ctx, f32, kr_float_from_bits(KR_F32, 0xFFBFFFFFu));
  ck_assert_uint_eq(d_bits(n->u.f), 0xFFF7FFFFE0000000ull);
  ck_assert_str_eq(print_attr(n, buf, sizeof buf), "0xFFBFFFFF : f32");
  /* Payload bits below f32's mantissa are dropped (rounding to the type), keeping it signalling. */
  kr_attr t = kr_attr_float(ctx, f32, d_from(0x7FF0000030000001ull));
  ck_assert_ptr_eq(t, a);
}
END_TEST

START_TEST(f16_bf16_snan_attr) {
  char buf[64];
  kr_type f16 = kr_type_float(ctx, KR_F16), bf16 = kr_type_float(ctx, KR_BF16);
  kr_attr h = kr_attr_float(ctx, f16, kr_float_from_bits(KR_F16, 0x7C01));
  ck_assert_uint_eq(d_bits(h->u.f), 0x7FF0040000000000ull); /* mantissa << 42 */
  ck_assert_str_eq(print_attr(h, buf, sizeof buf), "0x7C01 : f16");
  kr_attr b = kr_attr_float(ctx, bf16, kr_float_from_bits(KR_BF16, 0xFF81));
  ck_assert_uint_eq(d_bits(b->u.f), 0xFFF0200000000000ull); /* mantissa << 45 */
  ck_assert_str_eq(print_attr(b, buf, sizeof buf), "0xFF81 : bf16");
  /* The same double under different types gives different attributes. */
  kr_attr g = kr_attr_float(ctx, kr_type_float(ctx, KR_F64), h->u.f);
  ck_assert_ptr_ne(g, h);
  ck_assert_str_eq(print_attr(g, buf, sizeof buf), "0x7FF0040000000000 : f64");
}
END_TEST

/* Every NaN pattern of f16 and bf16 round-trips through an attribute, distinct payloads give
 * distinct attributes and the same payload the same one. */
START_TEST(all_half_nans_unique) {
  static const kr_float_kind kinds[2] = {KR_F16, KR_BF16};
  static const uint16_t exp_mask[2] = {0x7C00, 0x7F80};
  for (int k = 0; k < 2; k++) {
    kr_type t = kr_type_float(ctx, kinds[k]);
    kr_attr prev = NULL;
    unsigned count = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
      if ((h & exp_mask[k]) != exp_mask[k] || !(h & (0x7FFFu & ~exp_mask[k]))) continue;
      kr_attr a = kr_attr_float(ctx, t, kr_float_from_bits(kinds[k], h));
      ck_assert_msg(isnan(a->u.f), "pattern 0x%04X", (unsigned)h);
      ck_assert_msg(kr_float_to_bits(kinds[k], a->u.f) == h, "pattern 0x%04X", (unsigned)h);
      ck_assert_ptr_ne(a, prev);
      ck_assert_ptr_eq(kr_attr_float(ctx, t, kr_float_from_bits(kinds[k], h)), a);
      prev = a;
      count++;
    }
    ck_assert_uint_eq(count, k == 0 ? 2 * 1023 : 2 * 127);
  }
}
END_TEST

/* f32: each single payload bit, both signs, and a few mixed payloads. */
START_TEST(f32_nans) {
  kr_type f32 = kr_type_float(ctx, KR_F32);
  for (uint32_t sign = 0; sign < 2; sign++) {
    for (int bit = 0; bit < 23; bit++) {
      uint32_t pats[2] = {(sign << 31) | 0x7F800000u | (1u << bit), (sign << 31) | 0x7FC00000u | (0x2AAAAAu >> bit)};
      for (int i = 0; i < 2; i++) {
        kr_attr a = kr_attr_float(ctx, f32, kr_float_from_bits(KR_F32, pats[i]));
        ck_assert_msg(kr_float_to_bits(KR_F32, a->u.f) == pats[i], "pattern 0x%08X", (unsigned)pats[i]);
        /* Same sign, all-ones exponent, mantissa << 29. */
        ck_assert_uint_eq(d_bits(a->u.f), ((uint64_t)sign << 63) | (0x7FFull << 52) | ((uint64_t)(pats[i] & 0x7FFFFFu) << 29));
      }
    }
  }
  ck_assert_ptr_ne(kr_attr_float(ctx, f32, kr_float_from_bits(KR_F32, 0x7F800001u)),
                   kr_attr_float(ctx, f32, kr_float_from_bits(KR_F32, 0x7F800002u)));
}
END_TEST

START_TEST(f64_nans) {
  kr_type f64 = kr_type_float(ctx, KR_F64);
  static const uint64_t pats[] = {0x7FF0000000000001ull, 0xFFF0000000000001ull, 0x7FF7FFFFFFFFFFFFull,
                                  0x7FF8000000000000ull, 0xFFFFFFFFFFFFFFFFull, 0x7FFAAAAAAAAAAAAAull};
  for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
    kr_attr a = kr_attr_float(ctx, f64, d_from(pats[i]));
    ck_assert_uint_eq(d_bits(a->u.f), pats[i]);
    ck_assert_uint_eq(kr_float_to_bits(KR_F64, a->u.f), pats[i]);
  }
}
END_TEST

/* The narrowing/widening helpers keep sign and the top payload bits without quieting; the quiet
 * bit is set only when the kept bits would be zero (which would spell infinity). */
START_TEST(conversions_keep_payload) {
  ck_assert_uint_eq(kr_f32_to_f16(f_from(0x7F802000u)), 0x7C01);   /* 0x2000 >> 13 */
  ck_assert_uint_eq(kr_f32_to_f16(f_from(0xFF9FE000u)), 0xFCFF);
  ck_assert_uint_eq(kr_f32_to_f16(f_from(0x7F800001u)), 0x7E00);   /* payload lost: quiet */
  ck_assert_uint_eq(kr_f32_to_f16(f_from(0xFF800001u)), 0xFE00);
  ck_assert_uint_eq(kr_f32_to_bf16(f_from(0x7F810000u)), 0x7F81);
  ck_assert_uint_eq(kr_f32_to_bf16(f_from(0xFFA50000u)), 0xFFA5);
  ck_assert_uint_eq(kr_f32_to_bf16(f_from(0x7F800001u)), 0x7FC0);
  ck_assert_uint_eq(kr_f64_to_f16(d_from(0x7FF0040000000000ull)), 0x7C01);
  ck_assert_uint_eq(kr_f64_to_f16(d_from(0xFFF0000000000001ull)), 0xFE00);
  ck_assert_uint_eq(kr_f64_to_bf16(d_from(0x7FF0200000000000ull)), 0x7F81);
  ck_assert_uint_eq(f_bits(kr_f16_to_f32(0x7C01)), 0x7F802000u);
  ck_assert_uint_eq(f_bits(kr_f16_to_f32(0xFD55)), 0xFFAAA000u);
  ck_assert_uint_eq(f_bits(kr_bf16_to_f32(0x7F81)), 0x7F810000u);
  ck_assert_uint_eq(kr_float_to_bits(KR_F32, d_from(0x7FF0000000000001ull)), 0x7FC00000u);
  ck_assert_uint_eq(kr_float_to_bits(KR_F16, d_from(0xFFF4000000000000ull)), 0xFD00);
  ck_assert_uint_eq(d_bits(kr_float_from_bits(KR_BF16, 0xFFC1)), 0xFFF8200000000000ull);
}
END_TEST

/* Non-NaN values are unaffected: every f16 pattern converts exactly both ways, and rounding to
 * f32 is the usual ties-to-even. */
START_TEST(non_nan_unchanged) {
  for (uint32_t h = 0; h < 0x10000; h++) {
    double d = kr_float_from_bits(KR_F16, h);
    ck_assert_uint_eq(kr_float_to_bits(KR_F16, d), h);
    if (!isnan(d)) ck_assert(d == (double)kr_f16_to_f32((uint16_t)h));
  }
  ck_assert_uint_eq(kr_float_to_bits(KR_F32, 0.1), f_bits(0.1f));
  ck_assert_uint_eq(kr_float_to_bits(KR_F32, -INFINITY), 0xFF800000u);
  ck_assert_uint_eq(d_bits(kr_float_from_bits(KR_F32, 0x3F800000u)), d_bits(1.0));
  ck_assert_uint_eq(kr_float_to_bits(KR_BF16, 1.0), 0x3F80);
}
END_TEST

/* Dense elements read back as doubles use the same NaN-preserving storage. */
START_TEST(dense_get_f64_keeps_payload) {
  int64_t dims[1] = {2};
  uint16_t data[2] = {0x7C01, 0xFE01};
  kr_attr d = kr_attr_dense(ctx, kr_type_tensor(ctx, dims, 1, kr_type_float(ctx, KR_F16)), data, sizeof data);
  ck_assert_ptr_nonnull(d);
  ck_assert_uint_eq(kr_float_to_bits(KR_F16, kr_dense_get_f64(d, 0)), 0x7C01);
  ck_assert_uint_eq(kr_float_to_bits(KR_F16, kr_dense_get_f64(d, 1)), 0xFE01);
  uint32_t f[1] = {0x7F800001u};
  kr_attr s = kr_attr_dense(ctx, kr_type_tensor(ctx, dims, 1, kr_type_float(ctx, KR_F32)), f, sizeof f);
  ck_assert_uint_eq(kr_float_to_bits(KR_F32, kr_dense_get_f64(s, 1)), 0x7F800001u);
}
END_TEST

int main(void) {
  Suite *s = suite_create("nan_payloads");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, f32_snan_attr);
  tcase_add_test(tc, f16_bf16_snan_attr);
  tcase_add_test(tc, all_half_nans_unique);
  tcase_add_test(tc, f32_nans);
  tcase_add_test(tc, f64_nans);
  tcase_add_test(tc, conversions_keep_payload);
  tcase_add_test(tc, non_nan_unchanged);
  tcase_add_test(tc, dense_get_f64_keeps_payload);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
