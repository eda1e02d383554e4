/* Unit tests: the interpreter's broadcasting iterator (backend/interp/broadcast.h) against a
 * direct evaluation of numpy's rule (unravel the output index, clamp broadcast dims to 0). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "backend/interp/broadcast.h"
#include "korch/korch.h"

/* The offset into input (dims, rank) of output element o of (odims, orank), by the definition. */
static int64_t reference_offset(const int64_t *odims, unsigned orank, const int64_t *dims, unsigned rank, int64_t o) {
  int64_t idx[KR_OP_MAX_RANK];
  for (unsigned d = orank; d-- > 0;) {
    idx[d] = o % odims[d];
    o /= odims[d];
  }
  int64_t off = 0, stride = 1;
  for (unsigned d = rank; d-- > 0;) {
    int64_t i = dims[d] == 1 ? 0 : idx[d + (orank - rank)];
    off += i * stride;
    stride *= dims[d];
  }
  return off;
}

typedef struct shape {
  unsigned rank;
  int64_t dims[6];
} shape;

typedef struct bcase {
  shape out;
  unsigned n;
  shape in[3];
} bcase;

static const bcase cases[] = {
    {{4, {2, 3, 4, 5}}, 2, {{4, {2, 3, 4, 5}}, {4, {1, 3, 1, 1}}}}, /* per-channel bias */
    {{4, {2, 3, 4, 5}}, 2, {{4, {2, 3, 4, 5}}, {1, {5}}}},          /* trailing vector */
    {{3, {3, 1, 4}}, 2, {{2, {1, 4}}, {3, {3, 1, 1}}}},             /* size-1 output dim */
    {{2, {3, 4}}, 3, {{2, {3, 1}}, {1, {4}}, {0, {0}}}},            /* Where: column, row, scalar */
    {{0, {0}}, 2, {{0, {0}}, {0, {0}}}},                            /* scalars */
    {{5, {2, 1, 3, 1, 2}}, 2, {{3, {3, 1, 2}}, {5, {2, 1, 1, 1, 1}}}},
    {{3, {2, 0, 3}}, 2, {{3, {2, 0, 3}}, {1, {3}}}}, /* empty */
    {{6, {2, 2, 2, 2, 2, 2}}, 3, {{6, {2, 1, 2, 1, 2, 1}}, {6, {1, 2, 1, 2, 1, 2}}, {2, {2, 2}}}},
};

START_TEST(rows_match_reference) {
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const bcase *t = &cases[c];
    const int64_t *dims[3];
    unsigned ranks[3];
    for (unsigned k = 0; k < t->n; k++) {
      dims[k] = t->in[k].dims;
      ranks[k] = t->in[k].rank;
    }
    kr_bcast b;
    ck_assert_int_eq(kr_bcast_init(&b, t->out.dims, t->out.rank, dims, ranks, t->n), KR_SUCCESS);
    int64_t numel = 1;
    for (unsigned d = 0; d < t->out.rank; d++) numel *= t->out.dims[d];
    ck_assert_int_eq(b.rows * b.inner, numel);
    kr_bcast r = b;
    int64_t o = 0;
    for (int64_t row = 0; row < r.rows; row++, kr_bcast_next_row(&r))
      for (int64_t j = 0; j < r.inner; j++, o++)
        for (unsigned k = 0; k < t->n; k++) {
          int64_t want = reference_offset(t->out.dims, t->out.rank, dims[k], ranks[k], o);
          ck_assert_int_eq(r.off[k] + j * r.inner_stride[k], want);
          ck_assert_int_eq(kr_bcast_offset(&b, k, o), want);
        }
    ck_assert_int_eq(o, numel);
  }
}
END_TEST

START_TEST(coalesces) {
  /* [2,3,4,5] + [1,3,1,1]: rows of 4*5 elements, one per (n, c). */
  const bcase *t = &cases[0];
  const int64_t *dims[2] = {t->in[0].dims, t->in[1].dims};
  unsigned ranks[2] = {4, 4};
  kr_bcast b;
  ck_assert_int_eq(kr_bcast_init(&b, t->out.dims, 4, dims, ranks, 2), KR_SUCCESS);
  ck_assert_int_eq(b.inner, 20);
  ck_assert_int_eq(b.rows, 6);
  ck_assert_int_eq(b.inner_stride[0], 1);
  ck_assert_int_eq(b.inner_stride[1], 0);
  /* Same shapes: one row. */
  const int64_t *same[2] = {t->in[0].dims, t->in[0].dims};
  ck_assert_int_eq(kr_bcast_init(&b, t->out.dims, 4, same, ranks, 2), KR_SUCCESS);
  ck_assert_int_eq(b.rows, 1);
  ck_assert_int_eq(b.inner, 120);
}
END_TEST

START_TEST(rejects) {
  int64_t out[2] = {3, 4}, bad[1] = {3}, big[3] = {2, 3, 4};
  const int64_t *dims[1] = {bad};
  unsigned ranks[1] = {1};
  kr_bcast b;
  ck_assert_int_eq(kr_bcast_init(&b, out, 2, dims, ranks, 1), KR_FAILURE); /* 3 vs 4 */
  dims[0] = big;
  ranks[0] = 3;
  ck_assert_int_eq(kr_bcast_init(&b, out, 2, dims, ranks, 1), KR_FAILURE); /* rank grows */
}
END_TEST

START_TEST(copy) {
  kr_context *ctx = kr_context_create();
  kr_type i32 = kr_type_integer(ctx, 32, KR_SIGNLESS);
  int64_t in_dims[2] = {3, 1}, out_dims[3] = {2, 3, 2};
  kr_tensor in, out;
  ck_assert_int_eq(kr_tensor_alloc(&in, kr_type_tensor(ctx, in_dims, 2, i32)), KR_SUCCESS);
  ck_assert_int_eq(kr_tensor_alloc(&out, kr_type_tensor(ctx, out_dims, 3, i32)), KR_SUCCESS);
  int32_t *a = in.data;
  a[0] = 7, a[1] = 8, a[2] = 9;
  ck_assert_int_eq(kr_bcast_copy(&out, &in), KR_SUCCESS);
  const int32_t want[12] = {7, 7, 8, 8, 9, 9, 7, 7, 8, 8, 9, 9};
  ck_assert_mem_eq(out.data, want, sizeof want);
  kr_tensor_free(&in);
  kr_tensor_free(&out);
  kr_context_destroy(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("broadcast");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, rows_match_reference);
  tcase_add_test(tc, coalesces);
  tcase_add_test(tc, rejects);
  tcase_add_test(tc, copy);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
