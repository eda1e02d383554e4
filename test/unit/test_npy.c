/* Unit tests: NumPy .npy read/write (tools/support/npy.c).  Expected bytes and rules come from
 * numpy/lib/format.py (NEP 1): magic, version, little-endian header length, the dict literal
 * padded with spaces to a multiple of 64 bytes and ended by '\n'. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "korch/korch.h"
#include "korch/interp.h"
#include "support/npy.h"

static char tmpdir[256];
static char last_error[1024];
static unsigned num_errors;

static void handler(const kr_diagnostic *d, void *user) {
  (void)user;
  snprintf(last_error, sizeof last_error, "%s", d->message);
  num_errors++;
}

static kr_context *make_ctx(void) {
  kr_context *ctx = kr_context_create();
  kr_context_set_diag_handler(ctx, handler, NULL);
  last_error[0] = 0;
  num_errors = 0;
  return ctx;
}

static void setup(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/korch-test-npy-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  ck_assert_int_eq(system(cmd), 0);
}

static const char *tmp_path(const char *name) {
  static char buf[512];
  snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
  return buf;
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)n + 1);
  ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return b;
}

/* Writes a raw .npy: magic, version major.0, header length (2 or 4 bytes), header, data. */
static void write_raw(const char *path, unsigned major, const char *header, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fwrite("\x93NUMPY", 1, 6, f);
  fputc((int)major, f);
  fputc(0, f);
  size_t hl = strlen(header);
  fputc((int)(hl & 0xff), f);
  fputc((int)((hl >> 8) & 0xff), f);
  if (major >= 2) {
    fputc((int)((hl >> 16) & 0xff), f);
    fputc((int)((hl >> 24) & 0xff), f);
  }
  fwrite(header, 1, hl, f);
  if (n) fwrite(data, 1, n, f);
  fclose(f);
}

/* ---- round trips -------------------------------------------------------------------------- */

static kr_type elem_of(kr_context *ctx, int which) {
  switch (which) {
  case 0: return kr_type_float(ctx, KR_F16);
  case 1: return kr_type_float(ctx, KR_F32);
  case 2: return kr_type_float(ctx, KR_F64);
  case 3: return kr_type_integer(ctx, 1, KR_SIGNLESS);
  case 4: return kr_type_integer(ctx, 8, KR_SIGNLESS);
  case 5: return kr_type_integer(ctx, 16, KR_SIGNLESS);
  case 6: return kr_type_integer(ctx, 32, KR_SIGNLESS);
  case 7: return kr_type_integer(ctx, 64, KR_SIGNLESS);
  case 8: return kr_type_integer(ctx, 8, KR_UNSIGNED);
  case 9: return kr_type_integer(ctx, 16, KR_UNSIGNED);
  case 10: return kr_type_integer(ctx, 32, KR_UNSIGNED);
  default: return kr_type_integer(ctx, 64, KR_UNSIGNED);
  }
}

static const char *const descrs[] = {"<f2", "<f4", "<f8", "|b1", "|i1", "<i2",
                                     "<i4", "<i8", "|u1", "<u2", "<u4", "<u8"};

START_TEST(round_trip_every_dtype) {
  kr_context *ctx = make_ctx();
  kr_type elem = elem_of(ctx, _i);
  int64_t dims[2] = {2, 3};
  kr_tensor t;
  ck_assert_int_eq(kr_tensor_alloc(&t, kr_type_tensor(ctx, dims, 2, elem)), KR_SUCCESS);
  for (int64_t i = 0; i < t.numel; i++) {
    if (kr_type_is_float(elem))
      kr_tensor_set_f64(&t, i, (double)i * 0.5 - 1.0);
    else
      kr_tensor_set_i64(&t, i, (i * 37) % 5 == 0 ? -1 : i); /* -1: all bits set */
  }
  const char *p = tmp_path("rt.npy");
  ck_assert_int_eq(kr_npy_write(ctx, p, &t), KR_SUCCESS);
  /* The header format.py writes for this dtype and shape (2, 3). */
  size_t len;
  unsigned char *raw = slurp(p, &len);
  char expect[128];
  int n = snprintf(expect, sizeof expect, "{'descr': '%s', 'fortran_order': False, 'shape': (2, 3), }", descrs[_i]);
  ck_assert(memcmp(raw, "\x93NUMPY\x01\x00", 8) == 0);
  ck_assert_uint_eq(raw[8] | raw[9] << 8, 118); /* 10 + 118 = 128, a multiple of 64 */
  ck_assert(memcmp(raw + 10, expect, (size_t)n) == 0);
  for (size_t i = 10 + (size_t)n; i < 127; i++) ck_assert_uint_eq(raw[i], ' ');
  ck_assert_uint_eq(raw[127], '\n');
  ck_assert_uint_eq(len, 128 + t.nbytes);
  free(raw);

  kr_tensor back;
  ck_assert_int_eq(kr_npy_read(ctx, p, &back), KR_SUCCESS);
  ck_assert_ptr_eq(back.type, t.type);
  ck_assert_uint_eq(back.nbytes, t.nbytes);
  ck_assert(memcmp(back.data, t.data, t.nbytes) == 0);
  kr_tensor_free(&back);
  kr_tensor_free(&t);
  ck_assert_uint_eq(num_errors, 0);
  kr_context_destroy(ctx);
}
END_TEST

START_TEST(round_trip_scalar_vector_and_empty) {
  kr_context *ctx = make_ctx();
  kr_type f32 = kr_type_float(ctx, KR_F32);
  int64_t d1[1] = {3}, d2[2] = {0, 2};
  kr_type types[3] = {kr_type_tensor(ctx, NULL, 0, f32), kr_type_tensor(ctx, d1, 1, f32),
                      kr_type_tensor(ctx, d2, 2, f32)};
  const char *shapes[3] = {"()", "(3,)", "(0, 2)"};
  for (int k = 0; k < 3; k++) {
    kr_tensor t, back;
    ck_assert_int_eq(kr_tensor_alloc(&t, types[k]), KR_SUCCESS);
    for (int64_t i = 0; i < t.numel; i++) kr_tensor_set_f64(&t, i, 1.5 + (double)i);
    const char *p = tmp_path("s.npy");
    ck_assert_int_eq(kr_npy_write(ctx, p, &t), KR_SUCCESS);
    size_t len;
    unsigned char *raw = slurp(p, &len);
    char expect[128];
    int n = snprintf(expect, sizeof expect, "'shape': %s, }", shapes[k]);
    bool found = false;
    for (size_t i = 10; i + (size_t)n <= len && !found; i++) found = memcmp(raw + i, expect, (size_t)n) == 0;
    ck_assert(found);
    free(raw);
    ck_assert_int_eq(kr_npy_read(ctx, p, &back), KR_SUCCESS);
    ck_assert_ptr_eq(back.type, t.type);
    ck_assert(t.nbytes == 0 || memcmp(back.data, t.data, t.nbytes) == 0);
    kr_tensor_free(&back);
    kr_tensor_free(&t);
  }
  kr_context_destroy(ctx);
}
END_TEST

START_TEST(bf16_cannot_be_written_and_old_file_stays) {
  kr_context *ctx = make_ctx();
  const char *p = tmp_path("keep.npy");
  FILE *f = fopen(p, "w");
  fputs("old", f);
  fclose(f);
  int64_t d[1] = {2};
  kr_tensor t;
  ck_assert_int_eq(kr_tensor_alloc(&t, kr_type_tensor(ctx, d, 1, kr_type_float(ctx, KR_BF16))), KR_SUCCESS);
  ck_assert_int_eq(kr_npy_write(ctx, p, &t), KR_FAILURE);
  ck_assert(strstr(last_error, "element type bf16 has no NumPy dtype") != NULL);
  size_t len;
  unsigned char *raw = slurp(p, &len);
  ck_assert_uint_eq(len, 3);
  free(raw);
  kr_tensor_free(&t);
  kr_context_destroy(ctx);
}
END_TEST

START_TEST(write_to_missing_directory_fails) {
  kr_context *ctx = make_ctx();
  int64_t d[1] = {1};
  kr_tensor t;
  ck_assert_int_eq(kr_tensor_alloc(&t, kr_type_tensor(ctx, d, 1, kr_type_float(ctx, KR_F32))), KR_SUCCESS);
  ck_assert_int_eq(kr_npy_write(ctx, tmp_path("no/such/dir.npy"), &t), KR_FAILURE);
  ck_assert(strstr(last_error, "cannot create") != NULL);
  kr_tensor_free(&t);
  kr_context_destroy(ctx);
}
END_TEST

/* ---- reading what numpy may write --------------------------------------------------------- */

START_TEST(reads_big_endian_versions_2_and_3_and_key_order) {
  kr_context *ctx = make_ctx();
  const unsigned char be[8] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe}; /* >i4: 1, -2 */
  const char *p = tmp_path("be.npy");
  write_raw(p, 1, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }          \n", be, 8);
  kr_tensor t;
  ck_assert_int_eq(kr_npy_read(ctx, p, &t), KR_SUCCESS);
  ck_assert_int_eq(kr_tensor_get_i64(&t, 0), 1);
  ck_assert_int_eq(kr_tensor_get_i64(&t, 1), -2);
  kr_tensor_free(&t);
  float v[2] = {0.25f, -3.0f};
  for (unsigned major = 2; major <= 3; major++) {
    write_raw(p, major, "{\"shape\": (1, 2), \"fortran_order\": False, \"descr\": \"<f4\"}\n", v, 8);
    ck_assert_int_eq(kr_npy_read(ctx, p, &t), KR_SUCCESS);
    ck_assert_uint_eq(kr_tensor_rank(&t), 2);
    ck_assert_int_eq(kr_tensor_dims(&t)[1], 2);
    ck_assert(kr_tensor_get_f64(&t, 0) == 0.25 && kr_tensor_get_f64(&t, 1) == -3.0);
    kr_tensor_free(&t);
  }
  /* A 0-d array: shape (). */
  double s = 42.0;
  write_raw(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }\n", &s, 8);
  ck_assert_int_eq(kr_npy_read(ctx, p, &t), KR_SUCCESS);
  ck_assert_uint_eq(kr_tensor_rank(&t), 0);
  ck_assert_int_eq(t.numel, 1);
  ck_assert(kr_tensor_get_f64(&t, 0) == 42.0);
  kr_tensor_free(&t);
  /* Booleans are normalised to 0/1. */
  unsigned char b[3] = {0, 1, 7};
  write_raw(p, 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }\n", b, 3);
  ck_assert_int_eq(kr_npy_read(ctx, p, &t), KR_SUCCESS);
  ck_assert_uint_eq(((unsigned char *)t.data)[2], 1);
  kr_tensor_free(&t);
  ck_assert_uint_eq(num_errors, 0);
  kr_context_destroy(ctx);
}
END_TEST

/* ---- malformed files: one diagnostic each ------------------------------------------------- */

static void expect_read_error(const char *path, const char *substring) {
  kr_context *ctx = make_ctx();
  kr_tensor t;
  ck_assert_int_eq(kr_npy_read(ctx, path, &t), KR_FAILURE);
  ck_assert_uint_eq(num_errors, 1);
  if (!strstr(last_error, substring)) ck_abort_msg("diagnostic '%s' lacks '%s'", last_error, substring);
  ck_assert_ptr_null(t.data);
  kr_context_destroy(ctx);
}

START_TEST(malformed_headers) {
  const char *p = tmp_path("bad.npy");
  float v[2] = {1, 2};
  FILE *f = fopen(p, "wb");
  fputs("PK\x03\x04 this is a zip file", f);
  fclose(f);
  expect_read_error(p, "is not a NumPy .npy file (bad magic)");
  write_raw(p, 1, "['descr', '<f4']\n", v, 8);
  expect_read_error(p, "malformed .npy header: the header is not a Python dict literal");
  write_raw(p, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }\n", v, 8);
  expect_read_error(p, "is in Fortran order (fortran_order: True); only C order is supported");
  write_raw(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n", v, 8);
  expect_read_error(p, "has 8 data bytes but its shape and dtype '<f4' need 12");
  write_raw(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n", v, 8);
  expect_read_error(p, "has 8 data bytes but its shape and dtype '<f4' need 4");
  write_raw(p, 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }\n", v, 8);
  expect_read_error(p, "has unsupported dtype '<c8' (korch reads f2 f4 f8 b1 i1 i2 i4 i8 u1 u2 u4 u8)");
  write_raw(p, 1, "{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }\n", v, 8);
  expect_read_error(p, "has dtype '|f4' with no byte order ('|' is for one-byte types only)");
  write_raw(p, 1, "{'descr': '<f4', 'shape': (2,), }\n", v, 8);
  expect_read_error(p, "the header lacks the key 'fortran_order'");
  write_raw(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}\n", v, 8);
  expect_read_error(p, "the header has an unexpected key 'extra'");
  write_raw(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }\n", v, 8);
  expect_read_error(p, "the header's 'shape' is not a tuple of non-negative integers");
  write_raw(p, 4, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", v, 8);
  expect_read_error(p, "has unsupported .npy format version 4.0");
  /* Header length beyond the end of the file. */
  f = fopen(p, "wb");
  fwrite("\x93NUMPY\x01\x00\x40\x00{'descr'", 1, 17, f);
  fclose(f);
  expect_read_error(p, "is truncated in its .npy header");
  f = fopen(p, "wb");
  fwrite("\x93NUMPY\x01", 1, 7, f);
  fclose(f);
  expect_read_error(p, "(bad magic)");
  expect_read_error(tmp_path("missing.npy"), "cannot read");
  expect_read_error(tmpdir, "Is a directory");
}
END_TEST

int main(void) {
  Suite *s = suite_create("npy");
  TCase *tc = tcase_create("npy");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, round_trip_every_dtype, 0, 12);
  tcase_add_test(tc, round_trip_scalar_vector_and_empty);
  tcase_add_test(tc, bf16_cannot_be_written_and_old_file_stays);
  tcase_add_test(tc, write_to_missing_directory_fails);
  tcase_add_test(tc, reads_big_endian_versions_2_and_3_and_key_order);
  tcase_add_test(tc, malformed_headers);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
