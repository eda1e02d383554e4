/* Unit tests: bump-pointer arenas (korch/arena.h). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "korch/arena.h"

START_TEST(alignment) {
  kr_arena a = {0};
  static const size_t aligns[] = {1, 2, 4, 8, 16, 64, 256, 4096};
  for (int round = 0; round < 50; round++) {
    for (size_t k = 0; k < sizeof aligns / sizeof aligns[0]; k++) {
      char *p = kr_arena_alloc(&a, (size_t)round * 7 + 1, aligns[k]);
      ck_assert_ptr_nonnull(p);
      ck_assert_uint_eq((uintptr_t)p % aligns[k], 0);
    }
  }
  kr_arena_release(&a);
}
END_TEST

START_TEST(no_overlap) {
  /* Fill many blocks of varying size with distinct bytes and check none was overwritten. */
  kr_arena a = {0};
  enum { N = 5000 };
  unsigned char *ptrs[N];
  size_t sizes[N];
  for (int i = 0; i < N; i++) {
    sizes[i] = (size_t)(i * 37 % 997) + (i % 100 == 0 ? 70000 : 0);
    ptrs[i] = kr_arena_alloc(&a, sizes[i], 8);
    memset(ptrs[i], i & 0xff, sizes[i]);
  }
  size_t bad = 0;
  for (int i = 0; i < N; i++)
    for (size_t k = 0; k < sizes[i]; k++) bad += ptrs[i][k] != (unsigned)(i & 0xff);
  ck_assert_uint_eq(bad, 0);
  ck_assert_uint_ge(a.total, 50 * 70000); /* i % 100 == 0: 50 big blocks */
  kr_arena_release(&a);
  ck_assert_ptr_null(a.head);
  ck_assert_uint_eq(a.total, 0);
}
END_TEST

START_TEST(large_keeps_current_chunk) {
  kr_arena a = {0};
  char *p1 = kr_arena_alloc(&a, 16, 8);
  char *big = kr_arena_alloc(&a, 10 * 1024 * 1024, 64);
  ck_assert_uint_eq((uintptr_t)big % 64, 0);
  memset(big, 1, 10 * 1024 * 1024);
  char *p2 = kr_arena_alloc(&a, 16, 8);
  /* The small allocation after the big one still bumps in the first chunk. */
  ck_assert_ptr_eq(p2, p1 + 16);
  kr_arena_release(&a);
}
END_TEST

START_TEST(zalloc_dup_strndup) {
  kr_arena a = {0};
  /* Dirty memory first, then release and re-allocate: zalloc must clear. */
  for (int i = 0; i < 100; i++) memset(kr_arena_alloc(&a, 1000, 8), 0xAB, 1000);
  kr_arena_release(&a);
  unsigned char *z = kr_arena_zalloc(&a, 5000, 16);
  for (int i = 0; i < 5000; i++) ck_assert_uint_eq(z[i], 0);
  int src[4] = {1, 2, 3, 4};
  int *d = kr_arena_dup(&a, src, sizeof src, _Alignof(int));
  ck_assert_ptr_ne(d, src);
  ck_assert_mem_eq(d, src, sizeof src);
  char *s = kr_arena_strndup(&a, "hello world", 5);
  ck_assert_str_eq(s, "hello");
  char *e = kr_arena_strndup(&a, "", 0);
  ck_assert_str_eq(e, "");
  struct pt {
    double x;
    int y;
  } *p = KR_NEW(&a, struct pt);
  ck_assert(p->x == 0 && p->y == 0);
  long *arr = KR_NEW_ARRAY(&a, long, 100);
  for (int i = 0; i < 100; i++) ck_assert_int_eq(arr[i], 0);
  kr_arena_release(&a);
}
END_TEST

int main(void) {
  Suite *s = suite_create("arena");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, alignment);
  tcase_add_test(tc, no_overlap);
  tcase_add_test(tc, large_keeps_current_chunk);
  tcase_add_test(tc, zalloc_dup_strndup);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
