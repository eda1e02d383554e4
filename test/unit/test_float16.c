/* Unit tests: f16 / bf16 conversions against IEEE 754-2008 binary16 and bfloat16 bit patterns.
 * Expected patterns are derived from the formats (sign | exponent | mantissa), not from korch. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "korch/ir.h"

static float from_bits(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}
static uint32_t to_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

START_TEST(f16_exact_values) {
  ck_assert_uint_eq(kr_f32_to_f16(1.0f), 0x3C00);
  ck_assert_uint_eq(kr_f32_to_f16(-2.0f), 0xC000);
  ck_assert_uint_eq(kr_f32_to_f16(0.5f), 0x3800);
  ck_assert_uint_eq(kr_f32_to_f16(65504.0f), 0x7BFF);          /* largest finite */
  ck_assert_uint_eq(kr_f32_to_f16(ldexpf(1, -14)), 0x0400);    /* smallest normal */
  ck_assert_uint_eq(kr_f32_to_f16(ldexpf(1, -24)), 0x0001);    /* smallest subnormal */
  ck_assert_uint_eq(kr_f32_to_f16(ldexpf(1023, -24)), 0x03FF); /* largest subnormal */
  ck_assert_uint_eq(kr_f32_to_f16(0.0f), 0x0000);
  ck_assert_uint_eq(kr_f32_to_f16(-0.0f), 0x8000);
  ck_assert_uint_eq(kr_f32_to_f16(INFINITY), 0x7C00);
  ck_assert_uint_eq(kr_f32_to_f16(-INFINITY), 0xFC00);
}
END_TEST

START_TEST(f16_rounding) {
  /* 1/3 = 0x3555 (0.333251953125), 0.1 = 0x2E66 (0.0999755859375). */
  ck_assert_uint_eq(kr_f32_to_f16(1.0f / 3.0f), 0x3555);
  ck_assert_uint_eq(kr_f64_to_f16(0.1), 0x2E66);
  /* Ties to even: 1 + 2^-11 lies halfway between 0x3C00 and 0x3C01. */
  ck_assert_uint_eq(kr_f32_to_f16(1.0f + ldexpf(1, -11)), 0x3C00);
  ck_assert_uint_eq(kr_f32_to_f16(1.0f + 3 * ldexpf(1, -11)), 0x3C02);
  ck_assert_uint_eq(kr_f32_to_f16(1.0f + ldexpf(1, -11) + ldexpf(1, -20)), 0x3C01);
  /* Overflow: 65520 is halfway between 65504 and 2^16 and rounds to even = infinity. */
  ck_assert_uint_eq(kr_f32_to_f16(65519.0f), 0x7BFF);
  ck_assert_uint_eq(kr_f32_to_f16(65520.0f), 0x7C00);
  ck_assert_uint_eq(kr_f32_to_f16(1e10f), 0x7C00);
  ck_assert_uint_eq(kr_f32_to_f16(-1e10f), 0xFC00);
  /* Subnormal ties: 2^-25 halfway between 0 and 2^-24 -> 0; 3*2^-25 -> 2*2^-24. */
  ck_assert_uint_eq(kr_f32_to_f16(ldexpf(1, -25)), 0x0000);
  ck_assert_uint_eq(kr_f32_to_f16(-ldexpf(1, -25)), 0x8000);
  ck_assert_uint_eq(kr_f32_to_f16(ldexpf(3, -25)), 0x0002);
  ck_assert_uint_eq(kr_f32_to_f16(ldexpf(1.5f, -25)), 0x0001);
  ck_assert_uint_eq(kr_f32_to_f16(ldexpf(1, -30)), 0x0000);
  /* Largest subnormal + half ulp rounds up into the smallest normal. */
  ck_assert_uint_eq(kr_f32_to_f16(ldexpf(2047, -25)), 0x0400);
  /* Rounding once from double: via float this would hit the tie and give 0x3C00. */
  ck_assert_uint_eq(kr_f64_to_f16(1.0 + ldexp(1, -11) + ldexp(1, -40)), 0x3C01);
  ck_assert_uint_eq(kr_f64_to_f16(ldexp(1, -1074)), 0x0000); /* double subnormal input */
}
END_TEST

START_TEST(f16_nan) {
  uint16_t h = kr_f32_to_f16(NAN);
  ck_assert_uint_eq(h & 0x7C00, 0x7C00);
  ck_assert_uint_ne(h & 0x03FF, 0);
  ck_assert_uint_eq(kr_f32_to_f16(from_bits(0x7FC00000)), 0x7E00);
  /* A signalling NaN whose payload sits below the kept bits must still be a NaN. */
  uint16_t s = kr_f32_to_f16(from_bits(0x7F800001));
  ck_assert_uint_eq(s & 0x7C00, 0x7C00);
  ck_assert_uint_ne(s & 0x03FF, 0);
  ck_assert(isnan(kr_f16_to_f32(0x7E00)));
  ck_assert(isnan(kr_f16_to_f32(0xFC01)));
}
END_TEST

START_TEST(f16_to_f32) {
  ck_assert(kr_f16_to_f32(0x3C00) == 1.0f);
  ck_assert(kr_f16_to_f32(0xC000) == -2.0f);
  ck_assert(kr_f16_to_f32(0x7BFF) == 65504.0f);
  ck_assert(kr_f16_to_f32(0x0001) == ldexpf(1, -24));
  ck_assert(kr_f16_to_f32(0x03FF) == ldexpf(1023, -24));
  ck_assert(kr_f16_to_f32(0x0400) == ldexpf(1, -14));
  ck_assert(kr_f16_to_f32(0x3555) == 0.333251953125f);
  ck_assert(kr_f16_to_f32(0x7C00) == INFINITY);
  ck_assert(kr_f16_to_f32(0xFC00) == -INFINITY);
  ck_assert_uint_eq(to_bits(kr_f16_to_f32(0x8000)), 0x80000000u);
  ck_assert_uint_eq(to_bits(kr_f16_to_f32(0x8001)), to_bits(-ldexpf(1, -24)));
}
END_TEST

START_TEST(f16_roundtrip_all) {
  /* Every binary16 value is exact in binary32, so half -> float -> half is the identity. */
  for (uint32_t h = 0; h < 0x10000; h++) {
    float f = kr_f16_to_f32((uint16_t)h);
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) {
      ck_assert(isnan(f));
      continue;
    }
    ck_assert_uint_eq(kr_f32_to_f16(f), h);
    ck_assert_uint_eq(kr_f64_to_f16((double)f), h);
  }
}
END_TEST

START_TEST(f16_midpoints) {
  /* Midpoints between consecutive positive finite halves round to the even neighbour; points
   * just above them round up.  The midpoint of a and a+1 is exact in binary32. */
  for (uint32_t h = 0; h < 0x7BFF; h++) {
    double a = kr_f16_to_f32((uint16_t)h), b = kr_f16_to_f32((uint16_t)(h + 1));
    double mid = (a + b) / 2;
    uint32_t even = (h & 1) ? h + 1 : h;
    ck_assert_uint_eq(kr_f64_to_f16(mid), even);
    ck_assert_uint_eq(kr_f64_to_f16(nextafter(mid, INFINITY)), h + 1);
    ck_assert_uint_eq(kr_f64_to_f16(nextafter(mid, 0)), h);
  }
}
END_TEST

START_TEST(bf16_values) {
  ck_assert_uint_eq(kr_f32_to_bf16(1.0f), 0x3F80);
  ck_assert_uint_eq(kr_f32_to_bf16(-2.0f), 0xC000);
  ck_assert_uint_eq(kr_f32_to_bf16(from_bits(0x40490FDB)), 0x4049); /* pi */
  ck_assert_uint_eq(kr_f32_to_bf16(from_bits(0x3F808000)), 0x3F80); /* tie -> even */
  ck_assert_uint_eq(kr_f32_to_bf16(from_bits(0x3F818000)), 0x3F82); /* tie -> even (up) */
  ck_assert_uint_eq(kr_f32_to_bf16(from_bits(0x3F808001)), 0x3F81);
  ck_assert_uint_eq(kr_f32_to_bf16(from_bits(0x7F7FFFFF)), 0x7F80); /* FLT_MAX -> inf */
  ck_assert_uint_eq(kr_f32_to_bf16(from_bits(0x00000001)), 0x0000); /* tiny subnormal */
  ck_assert_uint_eq(kr_f32_to_bf16(from_bits(0x00010000)), 0x0001); /* bf16 subnormal */
  ck_assert_uint_eq(kr_f32_to_bf16(-0.0f), 0x8000);
  ck_assert_uint_eq(kr_f32_to_bf16(INFINITY), 0x7F80);
  ck_assert_uint_eq(kr_f32_to_bf16(from_bits(0x7FC00000)), 0x7FC0);
  uint16_t s = kr_f32_to_bf16(from_bits(0x7F800001));
  ck_assert_uint_eq(s & 0x7F80, 0x7F80);
  ck_assert_uint_ne(s & 0x007F, 0);
  ck_assert(kr_bf16_to_f32(0x3F80) == 1.0f);
  ck_assert_uint_eq(to_bits(kr_bf16_to_f32(0x4049)), 0x40490000u);
  ck_assert(kr_bf16_to_f32(0xFF80) == -INFINITY);
  for (uint32_t h = 0; h < 0x10000; h++) {
    float f = kr_bf16_to_f32((uint16_t)h);
    if (isnan(f)) continue;
    ck_assert_uint_eq(kr_f32_to_bf16(f), h);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("float16");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, f16_exact_values);
  tcase_add_test(tc, f16_rounding);
  tcase_add_test(tc, f16_nan);
  tcase_add_test(tc, f16_to_f32);
  tcase_add_test(tc, f16_roundtrip_all);
  tcase_add_test(tc, f16_midpoints);
  tcase_add_test(tc, bf16_values);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
