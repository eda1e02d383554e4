/* test/unit/unit_fixture.h - the context fixture the Check unit tests share: one kr_context per
 * test, whose diagnostic handler keeps the message of the last error in `last_error` and counts
 * the errors in `num_errors`, and the suite runner every main() ends with.
 *
 * Include it once, from the test's .c file only: every test/unit/test_*.c is its own executable
 * (test/CMakeLists.txt), so the file-scope `ctx`, `last_error` and `num_errors` below are that
 * test's own.  Typical use:
 *   static void setup(void) { unit_context_setup(true); }
 *   static void teardown(void) { unit_context_teardown(); }
 *   ...
 *   ck_assert_uint_eq(num_errors, 1);
 *   ck_assert(strstr(last_error, "expected text") != NULL);
 * Warnings, remarks and notes are not recorded (only KR_SEV_ERROR diagnostics). */
#ifndef KORCH_TEST_UNIT_FIXTURE_H
#define KORCH_TEST_UNIT_FIXTURE_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/korch.h"

static kr_context *ctx;          /* the test's context (unit_context_setup .. unit_context_teardown) */
static char last_error[4096];    /* message of the last error reported on ctx ("" when none) */
static unsigned num_errors;      /* errors reported since the last unit_reset_errors */

/* Forgets the errors seen so far. */
static inline void unit_reset_errors(void) {
  last_error[0] = 0;
  num_errors = 0;
}

/* The diagnostic handler of ctx: records errors, ignores the other severities. */
static inline void unit_diag_handler(const kr_diagnostic *d, void *user) {
  (void)user;
  if (d->severity != KR_SEV_ERROR) return;
  snprintf(last_error, sizeof last_error, "%s", d->message);
  num_errors++;
}

/* Creates ctx with unit_diag_handler installed and no errors seen; with `core_dialects` it also
 * registers the core dialects (asserted to succeed).  For a Check fixture's setup. */
static inline void unit_context_setup(bool core_dialects) {
  ctx = kr_context_create();
  kr_context_set_diag_handler(ctx, unit_diag_handler, NULL);
  if (core_dialects) ck_assert_int_eq(kr_register_core_dialects(ctx), KR_SUCCESS);
  unit_reset_errors();
}

/* The type written as `text` (e.g. "tensor<2x3xf32>"), parsed in ctx; fails the test when it
 * does not parse. */
static inline kr_type unit_type(const char *text) {
  kr_type t = kr_parse_type_str(ctx, text);
  ck_assert_msg(t != NULL, "cannot parse type %s", text);
  return t;
}

/* The symbol `name` of `module` (a func.func or kernel.func); fails the test when absent. */
static inline kr_op *unit_func_named(kr_op *module, const char *name) {
  kr_op *f = kr_symbol_lookup_in(module, kr_ident_cstr(ctx, name));
  ck_assert_ptr_nonnull(f);
  return f;
}

/* Attributes the op and prim schemas take: i64, array<i64: ...>, string. */
static inline kr_attr unit_i64_attr(int64_t v) {
  return kr_attr_integer(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), v);
}
static inline kr_attr unit_i64s_attr(const int64_t *v, unsigned n) {
  return kr_attr_dense_array(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), v, n);
}
static inline kr_attr unit_str_attr(const char *s) { return kr_attr_string(ctx, s, strlen(s)); }

/* Destroys ctx (and everything it owns).  For a Check fixture's teardown. */
static inline void unit_context_teardown(void) { kr_context_destroy(ctx); }

/* Runs the suite `s` (CK_NORMAL output) and frees it; returns main()'s exit status:
 * EXIT_FAILURE when a test failed, else EXIT_SUCCESS. */
static inline int unit_run_suite(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
