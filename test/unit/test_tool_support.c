/* Unit tests: the command-line tools' support library (tools/support): --split-input-file
 * chunking, whole-file input, atomic output, and the --verify-diagnostics engine. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "korch/korch.h"
#include "support/file_io.h"
#include "support/split_input.h"
#include "support/verify_diagnostics.h"

/* ---- split_input -------------------------------------------------------------------------- */

static kr_vec split(const char *text, const char *marker) {
  kr_vec v = {0};
  kr_tool_split_input(text, strlen(text), marker, &v);
  return v;
}

static void assert_chunk(const char *text, kr_vec *v, size_t i, const char *expected, unsigned first_line) {
  ck_assert_uint_lt(i, v->len);
  kr_tool_chunk c = KR_VEC_AT(v, kr_tool_chunk, i);
  ck_assert_uint_eq(c.len, strlen(expected));
  ck_assert(memcmp(text + c.start, expected, c.len) == 0);
  ck_assert_uint_eq(c.first_line, first_line);
}

START_TEST(split_without_marker_is_one_chunk) {
  const char *t = "a\nb\n";
  kr_vec v = split(t, KR_TOOL_SPLIT_MARKER);
  ck_assert_uint_eq(v.len, 1);
  assert_chunk(t, &v, 0, "a\nb\n", 1);
  kr_vec_free(&v);
  kr_vec e = split("", KR_TOOL_SPLIT_MARKER);
  ck_assert_uint_eq(e.len, 1);
  kr_vec_free(&e);
}
END_TEST

START_TEST(split_at_marker_lines) {
  /* blanks around the marker, CRLF, a marker on the last line without a newline */
  const char *t = "a\n// -----\nb\nc\n  // -----  \r\nd\n// -----";
  kr_vec v = split(t, KR_TOOL_SPLIT_MARKER);
  ck_assert_uint_eq(v.len, 4);
  assert_chunk(t, &v, 0, "a\n", 1);
  assert_chunk(t, &v, 1, "b\nc\n", 3);
  assert_chunk(t, &v, 2, "d\n", 6);
  assert_chunk(t, &v, 3, "", 8);
  kr_vec_free(&v);
}
END_TEST

START_TEST(split_ignores_near_markers) {
  /* more dashes, text after the marker, a marker inside a longer comment: not separators */
  const char *t = "// ------\n// ----- x\n// CHECK: // -----\n//-----\n";
  kr_vec v = split(t, KR_TOOL_SPLIT_MARKER);
  ck_assert_uint_eq(v.len, 1);
  kr_vec_free(&v);
  const char *u = "a\n;; ===\nb\n";
  kr_vec w = split(u, ";; ===");
  ck_assert_uint_eq(w.len, 2);
  assert_chunk(u, &w, 1, "b\n", 3);
  kr_vec_free(&w);
}
END_TEST

START_TEST(chunk_text_keeps_line_numbers) {
  const char *t = "x\n// -----\n  y z\n";
  kr_vec v = split(t, KR_TOOL_SPLIT_MARKER);
  size_t n;
  char *c = kr_tool_chunk_text(t, &KR_VEC_AT(&v, kr_tool_chunk, 1), &n);
  ck_assert_str_eq(c, "\n\n  y z\n");   /* line 3, column 3 as in the file */
  ck_assert_uint_eq(n, strlen(c));
  free(c);
  kr_vec_free(&v);
}
END_TEST

/* ---- file_io ------------------------------------------------------------------------------ */

static char tmpdir[64];

static void make_tmpdir(void) {
  strcpy(tmpdir, "/tmp/korch-unit-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  ck_assert_int_eq(system(cmd), 0);
}

static void write_file(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(text, 1, len, f), len);
  fclose(f);
}

static char *slurp(const char *path, size_t *len) { return kr_tool_read_file("unit", path, len); }

static unsigned count_entries(const char *dir) {
  char cmd[160];
  snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
  FILE *p = popen(cmd, "r");
  unsigned n = 0;
  ck_assert_int_eq(fscanf(p, "%u", &n), 1);
  pclose(p);
  return n;
}

START_TEST(read_file_whole) {
  make_tmpdir();
  char path[128];
  snprintf(path, sizeof path, "%s/in.kir", tmpdir);
  write_file(path, "ab\0cd", 5);   /* embedded NUL: the length is what counts */
  size_t len;
  char *s = slurp(path, &len);
  ck_assert_ptr_nonnull(s);
  ck_assert_uint_eq(len, 5);
  ck_assert(memcmp(s, "ab\0cd", 6) == 0);   /* and a terminating NUL */
  free(s);
  snprintf(path, sizeof path, "%s/missing.kir", tmpdir);
  ck_assert_ptr_null(slurp(path, &len));
  ck_assert_ptr_null(slurp(tmpdir, &len));   /* a directory */
  remove_tmpdir();
}
END_TEST

START_TEST(output_commit_replaces_abort_keeps) {
  make_tmpdir();
  char path[128];
  snprintf(path, sizeof path, "%s/out.kir", tmpdir);
  write_file(path, "old", 3);
  chmod(path, 0640);

  kr_tool_output out;
  ck_assert(kr_tool_output_open(&out, "unit", path));
  fputs("partial", out.file);
  ck_assert_uint_eq(count_entries(tmpdir), 2);   /* the temporary sits next to the target */
  kr_tool_output_abort(&out);
  size_t len;
  char *s = slurp(path, &len);
  ck_assert_str_eq(s, "old");
  free(s);
  ck_assert_uint_eq(count_entries(tmpdir), 1);

  ck_assert(kr_tool_output_open(&out, "unit", path));
  fputs("new", out.file);
  ck_assert(kr_tool_output_commit(&out, "unit"));
  s = slurp(path, &len);
  ck_assert_str_eq(s, "new");
  free(s);
  ck_assert_uint_eq(count_entries(tmpdir), 1);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_uint_eq(st.st_mode & 0777, 0640);   /* the replaced file's permissions are kept */
  remove_tmpdir();
}
END_TEST

START_TEST(output_follows_symlinks_and_writes_devices) {
  make_tmpdir();
  char target[128], link[128], missing[128];
  snprintf(target, sizeof target, "%s/target.kir", tmpdir);
  snprintf(link, sizeof link, "%s/link.kir", tmpdir);
  snprintf(missing, sizeof missing, "%s/no/such/dir.kir", tmpdir);
  write_file(target, "old", 3);
  ck_assert_int_eq(symlink(target, link), 0);
  kr_tool_output out;
  ck_assert(kr_tool_output_open(&out, "unit", link));
  fputs("via link", out.file);
  ck_assert(kr_tool_output_commit(&out, "unit"));
  struct stat st;
  ck_assert_int_eq(lstat(link, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));   /* still a link */
  size_t len;
  char *s = slurp(target, &len);
  ck_assert_str_eq(s, "via link");
  free(s);

  ck_assert(!kr_tool_output_open(&out, "unit", missing));
  kr_tool_output_abort(&out);   /* harmless after a failed open */

  ck_assert(kr_tool_output_open(&out, "unit", "/dev/null"));
  ck_assert_ptr_null(out.tmp_path);
  fputs("discarded", out.file);
  ck_assert(kr_tool_output_commit(&out, "unit"));
  ck_assert_int_eq(stat("/dev/null", &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
  remove_tmpdir();
}
END_TEST

/* ---- verify_diagnostics ------------------------------------------------------------------- */

static const char src[] =
    "line one\n"                                   /* 1 */
    "// expected-error @+1 {{first}}\n"            /* 2 */
    "line three\n"                                 /* 3 */
    "x // expected-warning {{same line}}\n"        /* 4 */
    "// expected-note @-1 {{a note}}\n"            /* 5 */
    "// expected-remark @unknown {{nowhere}}\n"    /* 6 */
    "// expected-error-re @below {{n{{[0-9]+}} ok}}\n" /* 7: literal text with a regex part */
    "line eight\n";                                /* 8 */

static char *run_verifier(bool (*emit)(kr_context *), kr_status *st) {
  kr_context *ctx = kr_context_create();
  kr_context_add_source(ctx, "t.kir", src, sizeof src - 1);
  FILE *err = tmpfile();
  kr_diag_verifier *v = kr_diag_verifier_create(ctx, "t.kir", src, sizeof src - 1, err);
  ck_assert_ptr_nonnull(v);
  emit(ctx);
  *st = kr_diag_verifier_finish(v);
  kr_diag_verifier_destroy(v);
  kr_context_destroy(ctx);
  long n = ftell(err);
  rewind(err);
  char *out = calloc(1, (size_t)n + 1);
  ck_assert_uint_eq(fread(out, 1, (size_t)n, err), (size_t)n);
  fclose(err);
  return out;
}

static bool emit_all_expected(kr_context *ctx) {
  kr_emit_error(ctx, kr_loc_file(ctx, "t.kir", 3, 1), "the first error");
  kr_diagnostic *d = kr_diag_begin(ctx, KR_SEV_WARNING, kr_loc_file(ctx, "t.kir", 4, 1), "on the same line");
  kr_diag_note(d, kr_loc_file(ctx, "t.kir", 4, 3), "with a note");
  kr_diag_report(d);
  kr_emit_remark(ctx, kr_loc_unknown(ctx), "from nowhere");
  kr_emit_error(ctx, kr_loc_name(ctx, "named", 5, kr_loc_file(ctx, "t.kir", 8, 2)), "n42 ok");
  return true;
}

START_TEST(verifier_accepts_exact_diagnostics) {
  kr_status st;
  char *out = run_verifier(emit_all_expected, &st);
  ck_assert_str_eq(out, "");
  ck_assert_int_eq(st, KR_SUCCESS);
  free(out);
}
END_TEST

static bool emit_wrong(kr_context *ctx) {
  kr_emit_error(ctx, kr_loc_file(ctx, "t.kir", 2, 1), "the first error");    /* wrong line */
  kr_emit_error(ctx, kr_loc_file(ctx, "t.kir", 4, 1), "on the same line");   /* wrong severity */
  kr_emit_remark(ctx, kr_loc_file(ctx, "other.kir", 6, 1), "from nowhere");  /* has a location */
  kr_emit_error(ctx, kr_loc_file(ctx, "t.kir", 8, 1), "n[0-9]+ ok");         /* the regex part is not literal */
  return true;
}

START_TEST(verifier_reports_missing_and_unexpected) {
  kr_status st;
  char *out = run_verifier(emit_wrong, &st);
  ck_assert_int_eq(st, KR_FAILURE);
  ck_assert_ptr_nonnull(strstr(out, "t.kir:2:1: error: unexpected error: the first error"));
  ck_assert_ptr_nonnull(strstr(out, "t.kir:4:1: error: unexpected error: on the same line"));
  ck_assert_ptr_nonnull(strstr(out, "other.kir:6:1: error: unexpected remark: from nowhere"));
  ck_assert_ptr_nonnull(strstr(out, "t.kir:8:1: error: unexpected error: n[0-9]+ ok"));
  ck_assert_ptr_nonnull(strstr(out, "t.kir:2:4: error: expected error \"first\" was not produced"));
  ck_assert_ptr_nonnull(strstr(out, "t.kir:4:6: error: expected warning \"same line\" was not produced"));
  ck_assert_ptr_nonnull(strstr(out, "t.kir:5:4: error: expected note \"a note\" was not produced"));
  ck_assert_ptr_nonnull(strstr(out, "t.kir:6:4: error: expected remark \"nowhere\" was not produced"));
  ck_assert_ptr_nonnull(strstr(out, "t.kir:7:4: error: expected error matching regex"));
  free(out);
}
END_TEST

static bool emit_twice(kr_context *ctx) {
  /* one expectation matches one diagnostic only */
  kr_emit_error(ctx, kr_loc_file(ctx, "t.kir", 3, 1), "the first error");
  kr_emit_error(ctx, kr_loc_file(ctx, "t.kir", 3, 5), "the first error again");
  return true;
}

START_TEST(verifier_one_match_per_expectation) {
  kr_status st;
  char *out = run_verifier(emit_twice, &st);
  ck_assert_int_eq(st, KR_FAILURE);
  ck_assert_ptr_nonnull(strstr(out, "t.kir:3:5: error: unexpected error: the first error again"));
  free(out);
}
END_TEST

int main(void) {
  Suite *s = suite_create("tool_support");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, split_without_marker_is_one_chunk);
  tcase_add_test(tc, split_at_marker_lines);
  tcase_add_test(tc, split_ignores_near_markers);
  tcase_add_test(tc, chunk_text_keeps_line_numbers);
  tcase_add_test(tc, read_file_whole);
  tcase_add_test(tc, output_commit_replaces_abort_keeps);
  tcase_add_test(tc, output_follows_symlinks_and_writes_devices);
  tcase_add_test(tc, verifier_accepts_exact_diagnostics);
  tcase_add_test(tc, verifier_reports_missing_and_unexpected);
  tcase_add_test(tc, verifier_one_match_per_expectation);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
