/* Unit tests: kr_vec, kr_hmap, hashing (korch/adt.h) and kr_ostream (korch/ostream.h). */
#include <check.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "korch/adt.h"
#include "korch/ostream.h"

START_TEST(vec_basic) {
  kr_vec v = {0};
  for (int i = 0; i < 1000; i++) KR_VEC_PUSH(&v, int, i * 3);
  ck_assert_uint_eq(v.len, 1000);
  ck_assert_uint_ge(v.cap, 1000);
  for (int i = 0; i < 1000; i++) ck_assert_int_eq(KR_VEC_AT(&v, int, i), i * 3);
  kr_vec_reserve(&v, 5000, sizeof(int));
  ck_assert_uint_ge(v.cap, 5000);
  ck_assert_int_eq(KR_VEC_DATA(&v, int)[999], 2997);
  double d = 2.5;
  kr_vec w = {0};
  double *stored = kr_vec_push(&w, &d, sizeof d);
  ck_assert(*stored == 2.5);
  kr_vec_free(&v);
  kr_vec_free(&w);
  ck_assert_ptr_null(v.data);
  ck_assert_uint_eq(v.len, 0);
}
END_TEST

/* Keys are small integers boxed as pointers; a deliberately bad hash forces long probe runs. */
static uint64_t bad_hash(uintptr_t k) { return k % 7; }

START_TEST(hmap_identity_keys) {
  kr_hmap m = {0};
  enum { N = 3000 };
  for (uintptr_t k = 1; k <= N; k++) {
    bool ins;
    kr_hmap_entry *e = kr_hmap_insert(&m, bad_hash(k), (void *)k, &ins);
    ck_assert(ins);
    e->value = (void *)(k * 10);
  }
  ck_assert_uint_eq(m.len, N);
  bool ins;
  kr_hmap_entry *e = kr_hmap_insert(&m, bad_hash(5), (void *)5, &ins);
  ck_assert(!ins);
  ck_assert_ptr_eq(e->value, (void *)50);
  /* Remove every third key, then check membership of all. */
  for (uintptr_t k = 1; k <= N; k += 3) ck_assert(kr_hmap_remove(&m, bad_hash(k), (void *)k));
  ck_assert(!kr_hmap_remove(&m, bad_hash(1), (void *)1));
  for (uintptr_t k = 1; k <= N; k++) {
    kr_hmap_entry *f = kr_hmap_find(&m, bad_hash(k), (void *)k);
    if ((k - 1) % 3 == 0)
      ck_assert_ptr_null(f);
    else {
      ck_assert_ptr_nonnull(f);
      ck_assert_ptr_eq(f->value, (void *)(k * 10));
    }
  }
  ck_assert_uint_eq(m.len, N - (N + 2) / 3);
  kr_hmap_clear(&m);
  ck_assert_uint_eq(m.len, 0);
  ck_assert_ptr_null(kr_hmap_find(&m, bad_hash(2), (void *)2));
  kr_hmap_free(&m);
}
END_TEST

START_TEST(hmap_zero_hash_and_real_hash) {
  kr_hmap m = {0};
  /* Hash 0 is allowed (the map reserves it internally). */
  kr_hmap_insert(&m, 0, (void *)1, NULL)->value = (void *)11;
  ck_assert_ptr_eq(kr_hmap_find(&m, 0, (void *)1)->value, (void *)11);
  ck_assert_ptr_null(kr_hmap_find(&m, 0, (void *)2));
  for (uintptr_t k = 2; k < 20000; k++) kr_hmap_insert(&m, kr_hash_ptr((void *)k), (void *)k, NULL)->value = (void *)k;
  for (uintptr_t k = 2; k < 20000; k += 2) ck_assert(kr_hmap_remove(&m, kr_hash_ptr((void *)k), (void *)k));
  for (uintptr_t k = 2; k < 20000; k++) {
    kr_hmap_entry *e = kr_hmap_find(&m, kr_hash_ptr((void *)k), (void *)k);
    ck_assert(k % 2 ? e != NULL && e->value == (void *)k : e == NULL);
  }
  ck_assert_uint_le(m.len * 4, m.cap * 3);
  kr_hmap_free(&m);
}
END_TEST

static bool str_eq(const void *a, const void *b) { return strcmp(a, b) == 0; }

START_TEST(hmap_content_keys) {
  kr_hmap m = {.eq = str_eq};
  char k1[] = "alpha", k2[] = "alpha";
  kr_hmap_insert(&m, kr_hash_bytes("alpha", 5), k1, NULL)->value = (void *)1;
  bool ins;
  kr_hmap_entry *e = kr_hmap_insert(&m, kr_hash_bytes("alpha", 5), k2, &ins);
  ck_assert(!ins);
  ck_assert_ptr_eq(e->key, k1);
  ck_assert_ptr_null(kr_hmap_find(&m, kr_hash_bytes("beta", 4), "beta"));
  kr_hmap_free(&m);
}
END_TEST

START_TEST(hashing) {
  ck_assert_uint_eq(kr_hash_bytes("abcdefghijk", 11), kr_hash_bytes("abcdefghijk", 11));
  ck_assert_uint_ne(kr_hash_bytes("abcdefghijk", 11), kr_hash_bytes("abcdefghijl", 11));
  ck_assert_uint_ne(kr_hash_bytes("", 0), kr_hash_bytes("\0", 1));
  ck_assert_uint_ne(kr_hash_combine(1, 2), kr_hash_combine(2, 1));
  ck_assert_uint_eq(kr_hash_combine(7, 9), kr_hash_combine(7, 9));
}
END_TEST

START_TEST(ostream_mem) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  ck_assert_str_eq(kr_ostream_str(&os), "");
  kr_ostream_puts(&os, "a=");
  kr_ostream_print_i64(&os, 0);
  kr_ostream_putc(&os, ' ');
  kr_ostream_print_i64(&os, -1);
  kr_ostream_putc(&os, ' ');
  kr_ostream_print_i64(&os, LLONG_MIN);
  kr_ostream_putc(&os, ' ');
  kr_ostream_print_i64(&os, LLONG_MAX);
  kr_ostream_printf(&os, " %s-%d", "x", 42);
  kr_ostream_write(&os, "zz", 1);
  ck_assert_str_eq(kr_ostream_str(&os), "a=0 -1 -9223372036854775808 9223372036854775807 x-42z");
  /* A formatted string longer than any internal scratch buffer. */
  char big[1000];
  memset(big, 'q', sizeof big - 1);
  big[sizeof big - 1] = 0;
  kr_ostream_printf(&os, "[%s]", big);
  ck_assert_uint_eq(strlen(kr_ostream_str(&os)), 53 + 1001);
  ck_assert(kr_ostream_close(&os));
}
END_TEST

START_TEST(ostream_file) {
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  kr_ostream os;
  kr_ostream_init_file(&os, f);
  long long sum = 0;
  for (int i = 0; i < 50000; i++) { /* well over the 64 KiB buffer */
    kr_ostream_print_i64(&os, i);
    kr_ostream_putc(&os, '\n');
    sum += i;
  }
  static char chunk[200000];
  memset(chunk, 'x', sizeof chunk);
  kr_ostream_write(&os, chunk, sizeof chunk);
  ck_assert(kr_ostream_close(&os));
  rewind(f);
  long long got = 0, v;
  int n = 0;
  while (n < 50000 && fscanf(f, "%lld\n", &v) == 1) {
    ck_assert_int_eq(v, n);
    got += v;
    n++;
  }
  ck_assert_int_eq(n, 50000);
  ck_assert_int_eq(got, sum);
  size_t xs = 0;
  int c;
  while ((c = fgetc(f)) != EOF) {
    ck_assert_int_eq(c, 'x');
    xs++;
  }
  ck_assert_uint_eq(xs, sizeof chunk);
  fclose(f);
}
END_TEST

int main(void) {
  Suite *s = suite_create("adt");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, vec_basic);
  tcase_add_test(tc, hmap_identity_keys);
  tcase_add_test(tc, hmap_zero_hash_and_real_hash);
  tcase_add_test(tc, hmap_content_keys);
  tcase_add_test(tc, hashing);
  tcase_add_test(tc, ostream_mem);
  tcase_add_test(tc, ostream_file);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
