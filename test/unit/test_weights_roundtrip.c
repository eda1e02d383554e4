/* test/unit/test_weights_roundtrip.c - a 100 MB weight set survives .kir text without loss.
 *
 * Issue #2 asks that large constants (weights) round-trip through a .kir file: they are
 * `dense_resource<key>` attributes whose bytes are written once, as hex, in the file's
 * `{-# dialect_resources #-}` section (docs/LangRef.md).  This builds a module holding a
 * 100 MB f32 tensor of pseudo-random bits (every byte value, NaN and denormal patterns included),
 * prints it, parses the text in a fresh context, compares the bytes with the originals, and
 * prints again to check that print∘parse is a fixed point.  KORCH_WEIGHTS_MB overrides the size. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "korch/korch.h"

static size_t weight_bytes(void) {
  const char *mb = getenv("KORCH_WEIGHTS_MB");
  size_t n = mb ? strtoull(mb, NULL, 10) : 100;
  if (n == 0) n = 1;
  return n * 1000 * 1000;   /* 100 MB, a multiple of 4 (f32) */
}

/* xorshift64*: a fixed, independent source of bytes (not korch code). */
static void fill_random(unsigned char *p, size_t n) {
  uint64_t x = 0x9E3779B97F4A7C15ULL;
  for (size_t i = 0; i < n; i += 8) {
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    uint64_t v = x * 0x2545F4914F6CDD1DULL;
    memcpy(p + i, &v, n - i < 8 ? n - i : 8);
  }
}

static void fail_handler(const kr_diagnostic *d, void *user) {
  (void)user;
  ck_abort_msg("unexpected diagnostic: %s", d->message);
}

static char *print_module(kr_op *module, size_t *len) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_print_flags flags = {0};
  kr_op_print(module, &os, &flags);
  const char *s = kr_ostream_str(&os);
  *len = os.len;
  char *copy = malloc(os.len + 1);
  ck_assert_ptr_nonnull(copy);
  memcpy(copy, s, os.len + 1);
  kr_ostream_close(&os);
  return copy;
}

START_TEST(weights_round_trip) {
  size_t n = weight_bytes();
  unsigned char *w = malloc(n);
  ck_assert_ptr_nonnull(w);
  fill_random(w, n);

  /* Build: module { "test.weights"() {w = dense_resource<weights> : tensor<Nxf32>} }. */
  kr_context *ctx = kr_context_create();
  kr_context_set_diag_handler(ctx, fail_handler, NULL);
  kr_context_set_allow_unregistered(ctx, true);
  ck_assert_int_eq(kr_register_core_dialects(ctx), KR_SUCCESS);
  const kr_resource *r = kr_resource_create(ctx, "weights", w, n, 16);
  ck_assert_ptr_nonnull(r);
  int64_t dim = (int64_t)(n / 4);
  kr_type t = kr_type_tensor(ctx, &dim, 1, kr_type_float(ctx, KR_F32));
  kr_op_state st;
  kr_op_state_init(&st, ctx, KR_MODULE_OP, NULL);
  kr_region *body = kr_op_state_add_region(&st);
  kr_block *b = kr_block_create(ctx);
  kr_region_append_block(body, b);
  kr_op *module = kr_op_create(&st);
  kr_op_state_free(&st);
  kr_op_state_init(&st, ctx, "test.weights", NULL);
  kr_op_state_add_attr(&st, "w", kr_attr_resource(ctx, t, r));
  kr_block_append_op(kr_op_region(module, 0)->first, kr_op_create(&st));
  kr_op_state_free(&st);
  ck_assert_int_eq(kr_op_verify(module), KR_SUCCESS);

  size_t len1;
  char *text1 = print_module(module, &len1);
  kr_context_destroy(ctx);
  /* Hex doubles the bytes: the text is the only copy of the weights from here on. */
  ck_assert_uint_ge(len1, 2 * n);

  kr_context *ctx2 = kr_context_create();
  kr_context_set_diag_handler(ctx2, fail_handler, NULL);
  kr_context_set_allow_unregistered(ctx2, true);
  ck_assert_int_eq(kr_register_core_dialects(ctx2), KR_SUCCESS);
  kr_op *m2 = kr_parse_source(ctx2, "weights.kir", text1, len1, true);
  ck_assert_ptr_nonnull(m2);
  kr_op *op = kr_op_region(m2, 0)->first->first;
  ck_assert_ptr_nonnull(op);
  kr_attr a = kr_op_get_attr(op, "w");
  ck_assert_ptr_nonnull(a);
  ck_assert_int_eq(a->kind, KR_ATTR_RESOURCE);
  ck_assert_ptr_eq(a->type, kr_type_tensor(ctx2, &dim, 1, kr_type_float(ctx2, KR_F32)));
  const kr_resource *r2 = a->u.resource;
  ck_assert_str_eq(r2->key, "weights");
  ck_assert_uint_eq(r2->size, n);
  ck_assert_uint_eq(r2->alignment, 16);
  ck_assert_int_eq(memcmp(r2->data, w, n), 0);

  size_t len2;
  char *text2 = print_module(m2, &len2);
  ck_assert_uint_eq(len1, len2);
  ck_assert_int_eq(memcmp(text1, text2, len1), 0);

  free(text2);
  kr_context_destroy(ctx2);
  free(text1);
  free(w);
}
END_TEST

int main(void) {
  Suite *s = suite_create("weights_roundtrip");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, weights_round_trip);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
