/* Unit tests: the SIMT interpreter through the C API (korch/interp.h kr_interp_run_with,
 * backend/interp/simt*.c): the default options, scalar semantics the team contract fixes (integer
 * division by zero gives 0, INT_MIN / -1 wraps, fptosi/fptoui saturate with NaN -> 0, shifts by
 * the width or more clamp, f32 arithmetic rounds to float, f16 arithmetic rounds to f16, truncf
 * toward zero), the memory-report statistics, the 0xFF fill of unwritten outputs (an error in
 * checked mode) and an out-of-bounds error.
 * Expected numbers are IEEE 754 / two's-complement facts worked out in the comments. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "korch/interp.h"
#include "korch/korch.h"
#include "korch/op.h"
#include "test/unit/unit_fixture.h"

static void setup(void) { unit_context_setup(true); }
static void teardown(void) { unit_context_teardown(); }

/* One thread computes edge cases into %o (i64) and %f (f32); @partial writes only element 0. */
static const char program[] =
    "kernel.func @k(%o: !kernel.buffer<global, 10xi64>, %f: !kernel.buffer<global, 4xf32>) attributes "
    "{korch.template = \"injective\", korch.grid = array<i64: 1, 1, 1>, korch.block = array<i64: 1, 1, 1>} {\n"
    "  %c0 = arith.constant 0 : index\n %c1 = arith.constant 1 : index\n %c2 = arith.constant 2 : index\n"
    "  %c3 = arith.constant 3 : index\n %c4 = arith.constant 4 : index\n %c5 = arith.constant 5 : index\n"
    "  %c6 = arith.constant 6 : index\n %c7 = arith.constant 7 : index\n %c8 = arith.constant 8 : index\n"
    "  %c9 = arith.constant 9 : index\n"
    "  %seven = arith.constant 7 : i64\n %zero = arith.constant 0 : i64\n %m1 = arith.constant -1 : i64\n"
    "  %min = arith.constant -9223372036854775808 : i64\n"
    "  %d0 = arith.divsi %seven, %zero : i64\n" /* 7 / 0 -> 0 */
    "  kernel.store %d0, %o[%c0] : i64, !kernel.buffer<global, 10xi64>\n"
    "  %d1 = arith.divsi %min, %m1 : i64\n" /* INT64_MIN / -1 wraps to INT64_MIN */
    "  kernel.store %d1, %o[%c1] : i64, !kernel.buffer<global, 10xi64>\n"
    "  %d2 = arith.remui %seven, %zero : i64\n" /* 7 % 0 -> 0 */
    "  kernel.store %d2, %o[%c2] : i64, !kernel.buffer<global, 10xi64>\n"
    "  %i32min = arith.constant -2147483648 : i32\n %i32m1 = arith.constant -1 : i32\n"
    "  %d3 = arith.divsi %i32min, %i32m1 : i32\n" /* INT32_MIN / -1 wraps at 32 bits */
    "  %e3 = arith.extsi %d3 : i32 to i64\n"
    "  kernel.store %e3, %o[%c3] : i64, !kernel.buffer<global, 10xi64>\n"
    "  %nan = arith.constant 0x7FC00000 : f32\n %big = arith.constant 1.0e30 : f32\n"
    "  %neg = arith.constant -1.0e30 : f32\n %m5 = arith.constant -5.0 : f32\n"
    "  %s4 = arith.fptosi %nan : f32 to i32\n %e4 = arith.extsi %s4 : i32 to i64\n" /* NaN -> 0 */
    "  kernel.store %e4, %o[%c4] : i64, !kernel.buffer<global, 10xi64>\n"
    "  %s5 = arith.fptosi %big : f32 to i32\n %e5 = arith.extsi %s5 : i32 to i64\n" /* INT32_MAX */
    "  kernel.store %e5, %o[%c5] : i64, !kernel.buffer<global, 10xi64>\n"
    "  %s6 = arith.fptosi %neg : f32 to i32\n %e6 = arith.extsi %s6 : i32 to i64\n" /* INT32_MIN */
    "  kernel.store %e6, %o[%c6] : i64, !kernel.buffer<global, 10xi64>\n"
    "  %s7 = arith.fptoui %m5 : f32 to i8\n %e7 = arith.extui %s7 : i8 to i64\n" /* 0 */
    "  kernel.store %e7, %o[%c7] : i64, !kernel.buffer<global, 10xi64>\n"
    "  %s8 = arith.fptoui %big : f32 to i8\n %e8 = arith.extui %s8 : i8 to i64\n" /* 255 */
    "  kernel.store %e8, %o[%c8] : i64, !kernel.buffer<global, 10xi64>\n"
    "  %seventy = arith.constant 70 : i64\n %s9 = arith.shli %seven, %seventy : i64\n" /* clamps: 0 */
    "  kernel.store %s9, %o[%c9] : i64, !kernel.buffer<global, 10xi64>\n"
    /* f32: 2^24 + 1 rounds to 2^24 in float (a double computation would keep it). */
    "  %p24 = arith.constant 16777216.0 : f32\n %one = arith.constant 1.0 : f32\n"
    "  %a0 = arith.addf %p24, %one : f32\n"
    "  kernel.store %a0, %f[%c0] : f32, !kernel.buffer<global, 4xf32>\n"
    /* f16: 2048 + 1 = 2049 is a tie between 2048 and 2050 (f16 spacing 2 there): even -> 2048. */
    "  %h2048 = arith.constant 2048.0 : f16\n %h1 = arith.constant 1.0 : f16\n"
    "  %a1 = arith.addf %h2048, %h1 : f16\n %x1 = arith.extf %a1 : f16 to f32\n"
    "  kernel.store %x1, %f[%c1] : f32, !kernel.buffer<global, 4xf32>\n"
    /* truncf of 2051 to f16: the tie 2050 / 2052 goes to even 2052; toward zero gives 2050. */
    "  %v2051 = arith.constant 2051.0 : f32\n"
    "  %t2 = arith.truncf %v2051 : f32 to f16\n %x2 = arith.extf %t2 : f16 to f32\n"
    "  kernel.store %x2, %f[%c2] : f32, !kernel.buffer<global, 4xf32>\n"
    "  %t3 = arith.truncf %v2051 {roundingmode = \"toward_zero\"} : f32 to f16\n %x3 = arith.extf %t3 : f16 to f32\n"
    "  kernel.store %x3, %f[%c3] : f32, !kernel.buffer<global, 4xf32>\n"
    "  kernel.return\n"
    "}\n";
/* (Two literals: ISO C limits one to 4095 characters.) */
static const char program_rest[] =
    "kernel.func @partial(%y: !kernel.buffer<global, 4xf32>) attributes {korch.template = \"injective\", "
    "korch.grid = array<i64: 1, 1, 1>, korch.block = array<i64: 32, 1, 1>} {\n"
    "  %t = kernel.thread_id x\n %c0 = arith.constant 0 : index\n %one = arith.constant 1.0 : f32\n"
    "  %first = arith.cmpi eq, %t, %c0 : index\n"
    "  kernel.if %first {\n    kernel.store %one, %y[%t] : f32, !kernel.buffer<global, 4xf32>\n  }\n"
    "  kernel.return\n"
    "}\n"
    "kernel.func @oob(%y: !kernel.buffer<global, 4xf32>) attributes {korch.template = \"injective\", "
    "korch.grid = array<i64: 1, 1, 1>, korch.block = array<i64: 8, 1, 1>} {\n"
    "  %t = kernel.thread_id x\n %one = arith.constant 1.0 : f32\n"
    "  kernel.store %one, %y[%t] : f32, !kernel.buffer<global, 4xf32>\n"
    "  kernel.return\n"
    "}\n"
    "func.func @main() -> (tensor<10xi64>, tensor<4xf32>) {\n"
    "  %o, %f = kernel.launch @k() : () -> (tensor<10xi64>, tensor<4xf32>)\n"
    "  return %o, %f : tensor<10xi64>, tensor<4xf32>\n"
    "}\n"
    "func.func @main_partial() -> tensor<4xf32> {\n"
    "  %y = kernel.launch @partial() : () -> tensor<4xf32>\n"
    "  return %y : tensor<4xf32>\n"
    "}\n"
    "func.func @main_oob() -> tensor<4xf32> {\n"
    "  %y = kernel.launch @oob() : () -> tensor<4xf32>\n"
    "  return %y : tensor<4xf32>\n"
    "}\n";

static kr_op *parse_program(void) {
  static char text[sizeof program + sizeof program_rest];
  snprintf(text, sizeof text, "%s%s", program, program_rest);
  kr_op *m = kr_parse_source(ctx, "simt.kir", text, strlen(text), true);
  ck_assert_msg(m != NULL, "parse failed: %s", last_error);
  return m;
}

START_TEST(default_options) {
  kr_interp_options o = kr_interp_default_options();
  ck_assert(o.simt_checks);
  ck_assert_uint_eq(o.simt_seed, 1);
  ck_assert(!o.memory_report);
  ck_assert_ptr_null(o.stats);
  ck_assert_ptr_null(o.num_stats);
}
END_TEST

START_TEST(scalar_semantics) {
  kr_op *m = parse_program();
  for (int checks = 0; checks < 2; checks++) {
    kr_interp_options o = kr_interp_default_options();
    o.simt_checks = checks;
    kr_tensor out[2];
    ck_assert_msg(kr_interp_run_with(unit_func_named(m, "main"), NULL, 0, out, 2, &o) == KR_SUCCESS, "%s", last_error);
    const int64_t *v = out[0].data;
    ck_assert_int_eq(v[0], 0);
    ck_assert(v[1] == INT64_MIN);
    ck_assert_int_eq(v[2], 0);
    ck_assert_int_eq(v[3], INT32_MIN);
    ck_assert_int_eq(v[4], 0);
    ck_assert_int_eq(v[5], INT32_MAX);
    ck_assert_int_eq(v[6], INT32_MIN);
    ck_assert_int_eq(v[7], 0);
    ck_assert_int_eq(v[8], 255);
    ck_assert_int_eq(v[9], 0);
    const float *f = out[1].data;
    ck_assert(f[0] == 16777216.0f);
    ck_assert(f[1] == 2048.0f);
    ck_assert(f[2] == 2052.0f);
    ck_assert(f[3] == 2050.0f);
    kr_tensor_free(&out[0]);
    kr_tensor_free(&out[1]);
  }
}
END_TEST

START_TEST(unwritten_outputs_and_report) {
  kr_op *m = parse_program();
  kr_interp_options o = kr_interp_default_options();
  kr_tensor y;
  /* Checked mode: an output element nobody writes is an error at the launch. */
  ck_assert_int_eq(kr_interp_run_with(unit_func_named(m, "main_partial"), NULL, 0, &y, 1, &o), KR_FAILURE);
  ck_assert_msg(strstr(last_error, "the kernel never wrote 3 of the 4 elements of global buffer #0 (output #0) "
                                   "(the first: [1])") != NULL,
                "%s", last_error);
  /* Fast mode runs it; the unwritten elements keep the fill. */
  o.simt_checks = false;
  kr_simt_kernel_stats *stats = NULL;
  unsigned n = 0;
  o.memory_report = true;
  o.stats = &stats;
  o.num_stats = &n;
  ck_assert_msg(kr_interp_run_with(unit_func_named(m, "main_partial"), NULL, 0, &y, 1, &o) == KR_SUCCESS, "%s",
                last_error);
  /* Element 0 written; elements 1..3 keep the 0xFF fill: the NaN 0xFFFFFFFF. */
  const float *f = y.data;
  ck_assert(f[0] == 1.0f);
  uint32_t bits;
  memcpy(&bits, &f[3], 4);
  ck_assert_uint_eq(bits, 0xFFFFFFFFu);
  ck_assert(isnan(f[1]));
  kr_tensor_free(&y);
  /* One kernel, one launch, one warp-level store by one lane: 1 sector of 4 bytes, minimum 1. */
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(stats[0].kernel, "partial");
  ck_assert_str_eq(stats[0].template_name, "injective");
  ck_assert_int_eq(stats[0].launches, 1);
  ck_assert_int_eq(stats[0].global_accesses, 1);
  ck_assert_int_eq(stats[0].global_sectors, 1);
  ck_assert_int_eq(stats[0].global_min_sectors, 1);
  ck_assert_int_eq(stats[0].shared_accesses, 0);
  free(stats);
}
END_TEST

START_TEST(out_of_bounds_error) {
  kr_op *m = parse_program();
  kr_interp_options o = kr_interp_default_options();
  o.simt_checks = false; /* threads in order: thread 4 is the first out of bounds */
  kr_tensor y;
  ck_assert_int_eq(kr_interp_run_with(unit_func_named(m, "main_oob"), NULL, 0, &y, 1, &o), KR_FAILURE);
  ck_assert_uint_eq(num_errors, 1);
  ck_assert_msg(strstr(last_error, "out-of-bounds store: index [4]") != NULL, "%s", last_error);
  ck_assert_msg(strstr(last_error, "thread (4, 0, 0)") != NULL, "%s", last_error);
  ck_assert_ptr_null(y.data); /* outputs are cleared on failure */
}
END_TEST

int main(void) {
  Suite *s = suite_create("simt");
  TCase *tc = tcase_create("simt");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, default_options);
  tcase_add_test(tc, scalar_semantics);
  tcase_add_test(tc, unwritten_outputs_and_report);
  tcase_add_test(tc, out_of_bounds_error);
  suite_add_tcase(s, tc);
  return unit_run_suite(s);
}
