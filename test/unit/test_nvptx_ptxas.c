/* test/unit/test_nvptx_ptxas.c - kr_nvptx_find_ptxas / kr_nvptx_ptxas (backend/nvptx/ptxas.c,
 * include/korch/nvptx.h).
 *
 * Two kinds of ptxas:
 *   - the real one (CUDA's, found by kr_nvptx_find_ptxas): a hand-written PTX module with two
 *     entries (one with 512 bytes of shared memory and a barrier) and a device function is
 *     assembled and its report parsed; an invalid PTX is refused with ptxas's error quoted.
 *     These tests skip (pass without asserting) when no ptxas is installed.
 *   - fake ones: small shell scripts printing a fixed report in the formats of other ptxas
 *     versions, so the parser is checked everywhere, and one exiting with an error.
 * The parallel runs on groups of entries ($KORCH_PTXAS_JOBS): a fake ptxas that reports the
 * entries of the file it is given and logs each run checks how the PTX is split (and that it is
 * not split when it holds anything but entries); the real one must give the same figures split
 * and whole. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "korch/nvptx.h"
#include "unit_fixture.h"

static void setup(void) { unit_context_setup(true); }
static void teardown(void) { unit_context_teardown(); }

/* Two entries ("copy": 512 bytes of shared memory, one barrier, calls the device function
 * "twice"; "empty") for sm_80. */
static const char good_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".shared .align 16 .b8 tile[512];\n"
    ".func (.reg .f32 r) twice(.reg .f32 x)\n"
    "{\n"
    "  add.f32 r, x, x;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry copy(.param .u64 copy_param_0, .param .u64 copy_param_1)\n"
    ".maxntid 128, 1, 1\n"
    "{\n"
    "  .reg .b32 %r<4>;\n"
    "  .reg .f32 %f<3>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [copy_param_0];\n"
    "  ld.param.u64 %rd2, [copy_param_1];\n"
    "  cvta.to.global.u64 %rd3, %rd1;\n"
    "  cvta.to.global.u64 %rd4, %rd2;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd5, %r1, 4;\n"
    "  add.s64 %rd6, %rd3, %rd5;\n"
    "  ld.global.f32 %f1, [%rd6];\n"
    "  mov.u32 %r2, tile;\n"
    "  shl.b32 %r3, %r1, 2;\n"
    "  add.s32 %r2, %r2, %r3;\n"
    "  st.shared.f32 [%r2], %f1;\n"
    "  bar.sync 0;\n"
    "  xor.b32 %r2, %r2, 4;\n"
    "  ld.shared.f32 %f2, [%r2];\n"
    "  call.uni (%f2), twice, (%f2);\n"
    "  add.s64 %rd7, %rd4, %rd5;\n"
    "  st.global.f32 [%rd7], %f2;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry empty()\n"
    "{\n"
    "  ret;\n"
    "}\n";

static const kr_ptxas_info *find_info(const kr_ptxas_info *infos, unsigned n, const char *name) {
  for (unsigned i = 0; i < n; i++)
    if (!strcmp(infos[i].name, name)) return &infos[i];
  return NULL;
}

START_TEST(real_ptxas_report) {
  const char *ptxas = kr_nvptx_find_ptxas();
  if (!ptxas) return;   /* no CUDA toolkit here */
  kr_ptxas_info *infos = NULL;
  unsigned n = 0;
  for (int a = 0; a < 2; a++) {
    const char *arch = a ? "sm_90" : "sm_80";
    ck_assert_int_eq(kr_nvptx_ptxas(ctx, NULL, ptxas, arch, good_ptx, &infos, &n), KR_SUCCESS);
    ck_assert_uint_eq(num_errors, 0);
    /* The two entries, not the device function. */
    ck_assert_uint_eq(n, 2);
    const kr_ptxas_info *copy = find_info(infos, n, "copy"), *empty = find_info(infos, n, "empty");
    ck_assert_ptr_nonnull(copy);
    ck_assert_ptr_nonnull(empty);
    ck_assert_int_eq(copy->shared_bytes, 512);
    ck_assert_int_eq(empty->shared_bytes, 0);
    ck_assert_int_gt(copy->registers, 0);
    ck_assert_int_le(copy->registers, 255);
    ck_assert_int_ge(empty->registers, 0);
    ck_assert_int_eq(copy->spill_bytes, 0);
    ck_assert_int_eq(empty->local_bytes, 0);
    free(infos);
  }
}
END_TEST

START_TEST(real_ptxas_rejects_invalid_ptx) {
  const char *ptxas = kr_nvptx_find_ptxas();
  if (!ptxas) return;
  char *bad = strdup(good_ptx);
  char *p = strstr(bad, "add.f32");
  memcpy(p, "add.q32", 7);   /* no such type */
  kr_ptxas_info *infos = (kr_ptxas_info *)1;
  unsigned n = 7;
  ck_assert_int_eq(kr_nvptx_ptxas(ctx, NULL, ptxas, "sm_90", bad, &infos, &n), KR_FAILURE);
  ck_assert_ptr_null(infos);
  ck_assert_uint_eq(n, 0);
  ck_assert_uint_eq(num_errors, 1);
  ck_assert_msg(strstr(last_error, "ptxas -arch=sm_90 failed") != NULL, "%s", last_error);
  /* ptxas's own error line, with the temporary file named <ptx>. */
  ck_assert_msg(strstr(last_error, "ptxas <ptx>, line 7; error") != NULL, "%s", last_error);
  ck_assert_msg(strstr(last_error, ".q32") != NULL, "%s", last_error);
  free(bad);
}
END_TEST

/* Writes an executable shell script printing `report` to stderr and exiting with `status`;
 * returns its path (static buffer). */
static const char *fake_ptxas(const char *report, int status) {
  static char path[256];
  snprintf(path, sizeof path, "%s/korch-fake-ptxas-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "#!/bin/sh\ncat >&2 <<'EOF'\n%sEOF\nexit %d\n", report, status);
  fclose(f);
  chmod(path, 0700);
  return path;
}

/* The order of CUDA 13 with a device function reported first, and an older format (no
 * "used N barriers", no compile time, smem after cmem) for a second entry. */
START_TEST(parses_report_formats) {
  const char *sh = fake_ptxas("ptxas info    : 0 bytes gmem\n"
                              "ptxas info    : Function properties for helper\n"
                              "    24 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
                              "ptxas info    : Compiling entry function 'k_a' for 'sm_90'\n"
                              "ptxas info    : Function properties for k_a\n"
                              "    16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
                              "ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]\n"
                              "ptxas info    : Compile time = 1.000 ms\n"
                              "ptxas info    : Compiling entry function 'k_b' for 'sm_90'\n"
                              "ptxas info    : Function properties for k_b\n"
                              "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                              "ptxas info    : Used 8 registers, 352 bytes cmem[0], 64 bytes smem\n",
                              0);
  static const char ptx[] = ".visible .entry k_a()\n{ ret; }\n.visible .entry k_b()\n{ ret; }\n";
  kr_ptxas_info *infos = NULL;
  unsigned n = 0;
  ck_assert_int_eq(kr_nvptx_ptxas(ctx, NULL, sh, "sm_90", ptx, &infos, &n), KR_SUCCESS);
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(infos[0].name, "k_a");
  ck_assert_int_eq(infos[0].registers, 40);
  ck_assert_int_eq(infos[0].shared_bytes, 1024);
  ck_assert_int_eq(infos[0].local_bytes, 16);
  ck_assert_int_eq(infos[0].spill_bytes, 4);
  ck_assert_str_eq(infos[1].name, "k_b");
  ck_assert_int_eq(infos[1].registers, 8);
  ck_assert_int_eq(infos[1].shared_bytes, 64);
  ck_assert_int_eq(infos[1].local_bytes, 0);
  ck_assert_int_eq(infos[1].spill_bytes, 0);
  free(infos);
  /* The PTX has a third entry the report does not mention: refused. */
  static const char ptx3[] = ".visible .entry k_a()\n.visible .entry k_b()\n.visible .entry k_c()\n";
  ck_assert_int_eq(kr_nvptx_ptxas(ctx, NULL, sh, "sm_90", ptx3, &infos, &n), KR_FAILURE);
  ck_assert_msg(strstr(last_error, "reported 2 entry functions, the PTX has 3") != NULL, "%s", last_error);
  ck_assert_ptr_null(infos);
  unlink(sh);
}
END_TEST

START_TEST(entry_without_used_line_is_an_error) {
  const char *sh = fake_ptxas("ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
                              "ptxas info    : Function properties for k\n"
                              "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n",
                              0);
  kr_ptxas_info *infos = NULL;
  unsigned n = 0;
  ck_assert_int_eq(kr_nvptx_ptxas(ctx, NULL, sh, "sm_80", ".entry k()\n", &infos, &n), KR_FAILURE);
  ck_assert_msg(strstr(last_error, "without a \"Used N registers\" line") != NULL, "%s", last_error);
  unlink(sh);
}
END_TEST

START_TEST(failing_and_missing_ptxas) {
  const char *sh = fake_ptxas("ptxas info    : 0 bytes gmem\nptxas fatal   : Unresolved extern function 'f'\n", 255);
  kr_ptxas_info *infos = NULL;
  unsigned n = 0;
  ck_assert_int_eq(kr_nvptx_ptxas(ctx, NULL, sh, "sm_80", ".entry k()\n", &infos, &n), KR_FAILURE);
  ck_assert_msg(strstr(last_error, "exit status 255") != NULL, "%s", last_error);
  ck_assert_msg(strstr(last_error, "ptxas fatal   : Unresolved extern function 'f'") != NULL, "%s", last_error);
  ck_assert_msg(strstr(last_error, "gmem") == NULL, "%s", last_error);   /* info lines are not errors */
  unlink(sh);
  unit_reset_errors();
  ck_assert_int_eq(kr_nvptx_ptxas(ctx, NULL, "/nonexistent/ptxas", "sm_80", ".entry k()\n", &infos, &n), KR_FAILURE);
  ck_assert_uint_eq(num_errors, 1);
  ck_assert_msg(strstr(last_error, "cannot run '/nonexistent/ptxas'") != NULL, "%s", last_error);
  unit_reset_errors();
  ck_assert_int_eq(kr_nvptx_ptxas(ctx, NULL, "/bin/true", "80", ".entry k()\n", &infos, &n), KR_FAILURE);
  ck_assert_msg(strstr(last_error, "bad architecture '80'") != NULL, "%s", last_error);
}
END_TEST

/* Sets $KORCH_PTXAS_JOBS (NULL: unsets it). */
static void set_jobs(const char *n) {
  if (n)
    setenv("KORCH_PTXAS_JOBS", n, 1);
  else
    unsetenv("KORCH_PTXAS_JOBS");
}

/* The number of lines of `path` (0 when missing). */
static int count_lines(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  int n = 0, c;
  while ((c = fgetc(f)) != EOF) n += c == '\n';
  fclose(f);
  return n;
}

/* A fake ptxas that appends a line to `log` per run and reports every ".visible .entry NAME(" of
 * the PTX file it gets, with NAME's length x 10 registers; returns its path (static buffer). */
static const char *echo_ptxas(const char *log) {
  static char path[256];
  snprintf(path, sizeof path, "%s/korch-fake-ptxas-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f,
          "#!/bin/sh\n"
          "echo run >> '%s'\n"
          "echo 'ptxas info    : 0 bytes gmem' >&2\n"
          "for k in $(sed -n 's/^\\.visible \\.entry \\([A-Za-z0-9_]*\\)(.*/\\1/p' \"$5\"); do\n"
          "  echo \"ptxas info    : Compiling entry function '$k' for 'sm_90'\" >&2\n"
          "  echo \"ptxas info    : Function properties for $k\" >&2\n"
          "  echo '    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads' >&2\n"
          "  echo \"ptxas info    : Used $((${#k} * 10)) registers, 352 bytes cmem[0]\" >&2\n"
          "done\n",
          log);
  fclose(f);
  chmod(path, 0700);
  return path;
}

/* Three entries and nothing else at module scope: what the NVPTX backend emits for korch's
 * kernels. */
static const char three_entries[] =
    "//\n// Generated by LLVM NVPTX Back-End\n//\n\n"
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n\n"
    "\t// .globl\tk_a\n"
    "// k_a_smem0 has been demoted\n\n"
    ".visible .entry k_a(\n"
    "\t.param .u64 k_a_param_0\n"
    ")\n"
    ".maxntid 128, 1, 1\n"
    "{\n"
    "\t.reg .b32 %r<3>;\n"
    "\t.reg .b64 %rd<5>;\n"
    "\t// demoted variable\n"
    "\t.shared .align 4 .b8 k_a_smem0[512];\n"
    "\tld.param.u64 %rd1, [k_a_param_0];\n"
    "\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tmul.wide.u32 %rd3, %r1, 4;\n"
    "\tadd.s64 %rd4, %rd2, %rd3;\n"
    "\t{ // a scope\n"
    "\tst.global.u32 [%rd4], %r1;\n"
    "\t}\n"
    "\tret;\n"
    "\n}\n"
    "\t// .globl\tk_bb\n"
    ".visible .entry k_bb(\n"
    "\t.param .u64 k_bb_param_0\n"
    ")\n"
    "{\n"
    "\t.reg .b64 %rd<3>;\n"
    "\t.reg .f32 %f<3>;\n"
    "\tld.param.u64 %rd1, [k_bb_param_0];\n"
    "\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tld.global.f32 %f1, [%rd2];\n"
    "\tadd.f32 %f2, %f1, %f1;\n"
    "\tst.global.f32 [%rd2], %f2;\n"
    "\tret;\n"
    "\n}\n"
    "\t// .globl\tk_ccc\n"
    ".visible .entry k_ccc()\n"
    "{\n"
    "\tret;\n"
    "\n}\n";

START_TEST(parallel_runs_split_the_entries) {
  char log[256];
  snprintf(log, sizeof log, "%s/korch-ptxas-log-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  int fd = mkstemp(log);
  ck_assert_int_ge(fd, 0);
  close(fd);
  const char *sh = echo_ptxas(log);
  const char *old = getenv("KORCH_PTXAS_JOBS");
  char *saved = old ? strdup(old) : NULL;
  /* jobs, PTX, runs expected: 1 = one run on the whole file. */
  static const char with_global[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                                    ".global .align 4 .b32 counter;\n"
                                    ".visible .entry k_a()\n{\n\tret;\n}\n.visible .entry k_bb()\n{\n\tret;\n}\n"
                                    ".visible .entry k_ccc()\n{\n\tret;\n}\n";
  static const char with_func[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                                  ".visible .entry k_a()\n{\n\tret;\n}\n.visible .entry k_bb()\n{\n\tret;\n}\n"
                                  ".func helper()\n{\n\tret;\n}\n.visible .entry k_ccc()\n{\n\tret;\n}\n";
  struct {
    const char *jobs, *ptx;
    int runs;
  } cases[] = {{"1", three_entries, 1}, {"2", three_entries, 2}, {"3", three_entries, 3},
               {"8", three_entries, 3}, {"2", with_global, 1}, {"2", with_func, 1}};
  for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    truncate(log, 0);
    set_jobs(cases[c].jobs);
    kr_ptxas_info *infos = NULL;
    unsigned n = 0;
    ck_assert_int_eq(kr_nvptx_ptxas(ctx, NULL, sh, "sm_80", cases[c].ptx, &infos, &n), KR_SUCCESS);
    ck_assert_msg(count_lines(log) == cases[c].runs, "case %u: %d runs, expected %d", c, count_lines(log),
                  cases[c].runs);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(infos[0].name, "k_a");
    ck_assert_str_eq(infos[1].name, "k_bb");
    ck_assert_str_eq(infos[2].name, "k_ccc");
    ck_assert_int_eq(infos[0].registers, 30);
    ck_assert_int_eq(infos[1].registers, 40);
    ck_assert_int_eq(infos[2].registers, 50);
    free(infos);
  }
  /* A fixed report (every run names both entries): the split runs disagree with their groups,
   * and the whole file's run decides. */
  const char *fixed = fake_ptxas("ptxas info    : Compiling entry function 'k_a' for 'sm_90'\n"
                                 "ptxas info    : Used 7 registers\n"
                                 "ptxas info    : Compiling entry function 'k_b' for 'sm_90'\n"
                                 "ptxas info    : Used 9 registers\n",
                                 0);
  set_jobs("2");
  kr_ptxas_info *infos = NULL;
  unsigned n = 0;
  ck_assert_int_eq(kr_nvptx_ptxas(ctx, NULL, fixed, "sm_90", ".visible .entry k_a()\n{\n}\n.visible .entry k_b()\n{\n}\n",
                                  &infos, &n),
                   KR_SUCCESS);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(infos[0].registers, 7);
  ck_assert_int_eq(infos[1].registers, 9);
  free(infos);
  unlink(fixed);
  set_jobs(saved);
  free(saved);
  unlink(sh);
  unlink(log);
}
END_TEST

/* CUDA's ptxas: the same figures from one run and from a run per entry. */
START_TEST(real_ptxas_parallel_same_figures) {
  const char *ptxas = kr_nvptx_find_ptxas();
  if (!ptxas) return;   /* no CUDA toolkit here */
  const char *old = getenv("KORCH_PTXAS_JOBS");
  char *saved = old ? strdup(old) : NULL;
  kr_ptxas_info *one = NULL, *split = NULL;
  unsigned n1 = 0, n3 = 0;
  set_jobs("1");
  ck_assert_int_eq(kr_nvptx_ptxas(ctx, NULL, ptxas, "sm_80", three_entries, &one, &n1), KR_SUCCESS);
  set_jobs("3");
  ck_assert_int_eq(kr_nvptx_ptxas(ctx, NULL, ptxas, "sm_80", three_entries, &split, &n3), KR_SUCCESS);
  set_jobs(saved);
  free(saved);
  ck_assert_uint_eq(n1, 3);
  ck_assert_uint_eq(n3, 3);
  for (unsigned i = 0; i < 3; i++) {
    const kr_ptxas_info *b = find_info(split, n3, one[i].name);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(one[i].registers, b->registers);
    ck_assert_int_eq(one[i].shared_bytes, b->shared_bytes);
    ck_assert_int_eq(one[i].local_bytes, b->local_bytes);
    ck_assert_int_eq(one[i].spill_bytes, b->spill_bytes);
  }
  ck_assert_int_eq(find_info(one, n1, "k_a")->shared_bytes, 512);
  free(one);
  free(split);
}
END_TEST

START_TEST(find_ptxas_honours_korch_ptxas) {
  const char *old = getenv("KORCH_PTXAS");
  char *saved = old ? strdup(old) : NULL;
  setenv("KORCH_PTXAS", "/opt/somewhere/ptxas", 1);
  ck_assert_str_eq(kr_nvptx_find_ptxas(), "/opt/somewhere/ptxas");
  /* Empty means unset: the default location or PATH (whatever this machine has). */
  setenv("KORCH_PTXAS", "", 1);
  const char *p = kr_nvptx_find_ptxas();
  if (p) ck_assert_int_eq(access(p, X_OK), 0);
  if (saved) {
    setenv("KORCH_PTXAS", saved, 1);
    free(saved);
  } else {
    unsetenv("KORCH_PTXAS");
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("nvptx_ptxas");
  TCase *tc = tcase_create("ptxas");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, real_ptxas_report);
  tcase_add_test(tc, real_ptxas_rejects_invalid_ptx);
  tcase_add_test(tc, parses_report_formats);
  tcase_add_test(tc, entry_without_used_line_is_an_error);
  tcase_add_test(tc, failing_and_missing_ptxas);
  tcase_add_test(tc, find_ptxas_honours_korch_ptxas);
  tcase_add_test(tc, parallel_runs_split_the_entries);
  tcase_add_test(tc, real_ptxas_parallel_same_figures);
  suite_add_tcase(s, tc);
  return unit_run_suite(s);
}
