/* Unit tests: GPU target descriptions and the profile database (korch/target.h,
 * backend/target/).  Expected figures are the vendors' (NVIDIA datasheets and the CUDA C++
 * Programming Guide's compute capability table), written here independently of the XML files;
 * the FP32 peaks are also cross-checked against SMs x FP32 lanes x 2 x clock.  Error tests
 * write small files whose broken line is known by construction. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "korch/asm.h"
#include "korch/korch.h"
#include "korch/target.h"
#include "backend/target/profile_db_file.h"
#include "test/unit/unit_fixture.h"

static char dir[64];

static void setup(void) {
  unit_context_setup(true);
  snprintf(dir, sizeof dir, "/tmp/korch-test-target-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void) {
  unit_context_teardown();
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(dir);
}

/* dir/name, in a static buffer per call site (two at a time are enough). */
static const char *path_of(const char *name) {
  static char buf[2][512];
  static int which;
  which ^= 1;
  snprintf(buf[which], sizeof buf[which], "%s/%s", dir, name);
  return buf[which];
}

static const char *write_file(const char *name, const char *text) {
  const char *p = path_of(name);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return p;
}

static void expect_error(const char *want1, const char *want2) {
  ck_assert_uint_ge(num_errors, 1);
  ck_assert_msg(strstr(last_error, want1) != NULL, "expected '%s' in: %s", want1, last_error);
  if (want2) ck_assert_msg(strstr(last_error, want2) != NULL, "expected '%s' in: %s", want2, last_error);
  num_errors = 0;
  last_error[0] = 0;
}

/* ------------------------------------------------------------------------------------------- */
/* Built-in targets. */

typedef struct expected {
  const char *name, *arch;
  int sms, fp32_lanes_per_sm;
  double clock_mhz, bw_gbs, fp32, tf32, fp16;
  int64_t l2, smem_optin, smem_sm;
} expected;

/* NVIDIA datasheets (SM count, clocks, bandwidth, L2, dense peaks: the sparse tensor figures
 * halved) and the CUDA C++ Programming Guide (shared memory per compute capability). */
static const expected want[] = {
    {"a100", "sm_80", 108, 64, 1410, 2039, 19.5, 156, 312, 40 << 20, 163 << 10, 164 << 10},
    {"h100", "sm_90", 132, 128, 1980, 3350, 67, 494.7, 989.4, 50 << 20, 227 << 10, 228 << 10},
    {"h200", "sm_90", 132, 128, 1980, 4800, 67, 494.7, 989.4, 50 << 20, 227 << 10, 228 << 10},
    {"v100", "sm_70", 80, 64, 1530, 900, 15.7, 15.7 /* no TF32: FP32 */, 125, 6 << 20, 96 << 10, 96 << 10},
};

START_TEST(builtins_load_with_vendor_figures) {
  const char *const *names = kr_target_builtin_names();
  unsigned n = 0;
  while (names[n]) n++;
  ck_assert_uint_eq(n, 4);
  for (unsigned i = 0; i < n; i++) {
    ck_assert_str_eq(names[i], want[i].name); /* sorted */
    kr_target t;
    memset(&t, 0xff, sizeof t);
    ck_assert_int_eq(kr_target_load(ctx, names[i], NULL, &t), KR_SUCCESS);
    ck_assert_str_eq(t.name, want[i].name);
    ck_assert_str_eq(t.arch, want[i].arch);
    ck_assert_msg(strstr(t.gpu, "NVIDIA") != NULL, "gpu: %s", t.gpu);
    ck_assert_int_eq(t.sm_count, want[i].sms);
    ck_assert_double_eq_tol(t.sm_clock_mhz, want[i].clock_mhz, 1e-9);
    ck_assert_double_eq_tol(t.dram_bandwidth_gbs, want[i].bw_gbs, 1e-9);
    ck_assert_int_eq(t.l2_bytes, want[i].l2);
    ck_assert_int_eq(t.smem_per_block_bytes, 48 << 10);
    ck_assert_int_eq(t.smem_per_block_optin_bytes, want[i].smem_optin);
    ck_assert_int_eq(t.smem_per_sm_bytes, want[i].smem_sm);
    ck_assert_int_le(t.smem_per_block_bytes, t.smem_per_block_optin_bytes);
    ck_assert_int_le(t.smem_per_block_optin_bytes, t.smem_per_sm_bytes);
    ck_assert_int_eq(t.regs_per_sm, 65536);
    ck_assert_int_eq(t.regs_per_block, 65536);
    ck_assert_int_eq(t.max_regs_per_thread, 255);
    ck_assert_int_eq(t.max_threads_per_block, 1024);
    ck_assert_int_eq(t.max_threads_per_sm, 2048);
    ck_assert_int_eq(t.warp_size, 32);
    /* Datasheet peaks within the datasheet's rounding (67 for 66.9). */
    ck_assert_double_eq_tol(t.peak_fp32_tflops, want[i].fp32, 0.15);
    ck_assert_double_eq_tol(t.peak_tf32_tflops, want[i].tf32, 0.15);
    ck_assert_double_eq_tol(t.peak_fp16_tflops, want[i].fp16, 0.15);
    /* FP32 peak = SMs x lanes x 2 (FMA) x clock, within 1%. */
    double derived = want[i].sms * want[i].fp32_lanes_per_sm * 2.0 * want[i].clock_mhz * 1e6 / 1e12;
    ck_assert_msg(fabs(t.peak_fp32_tflops - derived) <= 0.01 * derived, "%s fp32 %g vs derived %g", t.name,
                  t.peak_fp32_tflops, derived);
    ck_assert(t.peak_fp16_tflops >= t.peak_tf32_tflops && t.peak_tf32_tflops >= t.peak_fp32_tflops);
    ck_assert(t.dram_bytes >= ((int64_t)16 << 30));
    ck_assert(t.launch_overhead_us > 0.5 && t.launch_overhead_us < 20);
  }
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

START_TEST(unknown_name_lists_builtins) {
  kr_target t;
  ck_assert_int_eq(kr_target_load(ctx, "b200", NULL, &t), KR_FAILURE);
  expect_error("unknown target 'b200'", "a100, h100, h200, v100");
  ck_assert_int_eq(kr_target_load(ctx, "", NULL, &t), KR_FAILURE);
  expect_error("empty target", NULL);
  /* A path (contains '/') that does not exist. */
  ck_assert_int_eq(kr_target_load(ctx, path_of("none.xml"), NULL, &t), KR_FAILURE);
  expect_error("cannot read target file", "none.xml");
}
END_TEST

/* A complete target file; `skip` drops the field with that element name, `extra` is inserted
 * before the closing tag.  The fields start on line 3. */
static const char *target_text(const char *skip, const char *override_name, const char *override_value,
                               const char *extra) {
  static char buf[4096];
  static const char *const f[][2] = {
      {"gpu", "Test GPU"},
      {"arch", "sm_90"},
      {"sm_count", "4"},
      {"sm_clock_mhz", "1000"},
      {"dram_bandwidth_gbs", "100"},
      {"dram_bytes", "1073741824"},
      {"l2_bytes", "1048576"},
      {"smem_per_block_bytes", "49152"},
      {"smem_per_block_optin_bytes", "65536"},
      {"smem_per_sm_bytes", "65536"},
      {"regs_per_sm", "65536"},
      {"regs_per_block", "65536"},
      {"max_regs_per_thread", "255"},
      {"max_threads_per_block", "1024"},
      {"max_threads_per_sm", "2048"},
      {"warp_size", "32"},
      {"peak_fp32_tflops", "1.5"},
      {"peak_tf32_tflops", "2"},
      {"peak_fp16_tflops", "4"},
      {"launch_overhead_us", "2.5"},
  };
  int n = snprintf(buf, sizeof buf, "<?xml version=\"1.0\"?>\n<korch-target version=\"1\" name=\"mygpu\">\n");
  for (unsigned i = 0; i < sizeof f / sizeof f[0]; i++) {
    if (skip && strcmp(skip, f[i][0]) == 0) continue;
    const char *v = override_name && strcmp(override_name, f[i][0]) == 0 ? override_value : f[i][1];
    n += snprintf(buf + n, sizeof buf - n, "  <%s>%s</%s>\n", f[i][0], v, f[i][0]);
  }
  snprintf(buf + n, sizeof buf - n, "%s</korch-target>\n", extra ? extra : "");
  return buf;
}

START_TEST(file_targets_and_their_errors) {
  kr_target t;
  /* A valid file loads, named by its name attribute. */
  const char *p = write_file("ok.xml", target_text(NULL, NULL, NULL, NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_SUCCESS);
  ck_assert_str_eq(t.name, "mygpu");
  ck_assert_int_eq(t.sm_count, 4);
  ck_assert_double_eq(t.peak_fp32_tflops, 1.5);
  ck_assert_int_eq(t.dram_bytes, (int64_t)1 << 30);

  /* Malformed XML: the tag on line 3 is not closed; libxml2's error carries file:line. */
  p = write_file("bad.xml", "<?xml version=\"1.0\"?>\n<korch-target version=\"1\" name=\"x\">\n  <gpu>X</gpx>\n"
                            "</korch-target>\n");
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  char want_loc[600];
  snprintf(want_loc, sizeof want_loc, "%s:3:", p);
  expect_error(want_loc, "gpu");

  /* A missing field. */
  p = write_file("missing.xml", target_text("launch_overhead_us", NULL, NULL, NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("lacks the field <launch_overhead_us>", p);

  /* Non-positive, non-numeric and trailing-garbage values; line 5 is sm_count. */
  p = write_file("zero.xml", target_text(NULL, "sm_count", "0", NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  snprintf(want_loc, sizeof want_loc, "%s:5:", p);
  expect_error(want_loc, "must be positive");
  p = write_file("neg.xml", target_text(NULL, "peak_fp16_tflops", "-4", NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("<peak_fp16_tflops> must be positive", NULL);
  p = write_file("junk.xml", target_text(NULL, "l2_bytes", "40MB", NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("<l2_bytes> must be an integer", "40MB");
  p = write_file("nan.xml", target_text(NULL, "sm_clock_mhz", "nan", NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("<sm_clock_mhz> must be a finite decimal number", NULL);

  /* Unknown and duplicate fields, inconsistent limits, a bad arch, a wrong root. */
  p = write_file("unknown.xml", target_text(NULL, NULL, NULL, "  <tensor_cores>4</tensor_cores>\n"));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("unknown target field <tensor_cores>", NULL);
  p = write_file("dup.xml", target_text(NULL, NULL, NULL, "  <sm_count>8</sm_count>\n"));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("<sm_count> given twice (first at line 5)", NULL);
  p = write_file("smem.xml", target_text(NULL, "smem_per_block_optin_bytes", "131072", NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("smem_per_block_optin_bytes (131072) <= smem_per_sm_bytes (65536)", NULL);
  p = write_file("arch.xml", target_text(NULL, "arch", "hopper", NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("<arch> must be sm_", NULL);
  p = write_file("root.xml", "<gpu-target version=\"1\" name=\"x\"/>\n");
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("root element is <gpu-target>", NULL);
  p = write_file("version.xml", "<korch-target version=\"2\" name=\"x\"/>\n");
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("version=\"1\"", NULL);
}
END_TEST

/* Implausible figures are errors (they used to reach CBC as costs of 1e30 us and abort it):
 * each field has a plausible range, docs/Targets.md.  Line 7 is dram_bandwidth_gbs. */
START_TEST(file_target_ranges) {
  kr_target t;
  const char *p = write_file("bw.xml", target_text(NULL, "dram_bandwidth_gbs", "1e-25", NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  char want_loc[600];
  snprintf(want_loc, sizeof want_loc, "%s:7:", p);
  expect_error(want_loc, "<dram_bandwidth_gbs> = 1e-25 is outside its plausible range [1, 1e+06]");
  p = write_file("launch.xml", target_text(NULL, "launch_overhead_us", "1e30", NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("<launch_overhead_us> = 1e+30 is outside its plausible range [0, 10000]", NULL);
  p = write_file("tflops.xml", target_text(NULL, "peak_fp32_tflops", "1e-4", NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("<peak_fp32_tflops> = 0.0001 is outside its plausible range", NULL);
  p = write_file("sms.xml", target_text(NULL, "sm_count", "1000000", NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("<sm_count> = 1000000 is outside its plausible range [1, 100000]", NULL);
  p = write_file("warp.xml", target_text(NULL, "warp_size", "2048", NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_FAILURE);
  expect_error("<warp_size> = 2048 is outside its plausible range [1, 1024]", NULL);
  /* The ends of a range are inside it. */
  p = write_file("edge.xml", target_text(NULL, "dram_bandwidth_gbs", "1", NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_SUCCESS);
  p = write_file("edge2.xml", target_text(NULL, "launch_overhead_us", "1e4", NULL));
  ck_assert_int_eq(kr_target_load(ctx, p, NULL, &t), KR_SUCCESS);
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

START_TEST(module_attribute_round_trip) {
  static const char src[] = "module {\n}\n";
  kr_op *m = kr_parse_source(ctx, "m.kir", src, sizeof src - 1, true);
  ck_assert_ptr_nonnull(m);
  kr_target t;
  /* Absent: the default, h200. */
  ck_assert_ptr_null(kr_op_get_attr(m, KR_TARGET_ATTR));
  ck_assert_int_eq(kr_target_of_module(m, &t), KR_SUCCESS);
  ck_assert_str_eq(t.name, "h200");
  /* Set: a string attribute that reads back. */
  kr_target_set_module(m, "a100");
  kr_attr a = kr_op_get_attr(m, KR_TARGET_ATTR);
  ck_assert_ptr_nonnull(a);
  ck_assert_int_eq(a->kind, KR_ATTR_STRING);
  ck_assert_str_eq(a->u.string.str, "a100");
  ck_assert_int_eq(kr_target_of_module(m, &t), KR_SUCCESS);
  ck_assert_str_eq(t.name, "a100");
  ck_assert_int_eq(t.sm_count, 108);
  /* A path works the same way. */
  const char *p = write_file("mine.xml", target_text(NULL, NULL, NULL, NULL));
  kr_target_set_module(m, p);
  ck_assert_int_eq(kr_target_of_module(m, &t), KR_SUCCESS);
  ck_assert_str_eq(t.name, "mygpu");
  /* A relative path is stored absolute, so it still resolves from another directory. */
  char cwd[1024];
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
  ck_assert_int_eq(chdir(dir), 0);
  kr_target_set_module(m, "./mine.xml");
  ck_assert_int_eq(chdir("/"), 0);
  a = kr_op_get_attr(m, KR_TARGET_ATTR);
  char *abs = realpath(p, NULL);
  ck_assert_ptr_nonnull(abs);
  ck_assert_str_eq(a->u.string.str, abs);
  free(abs);
  ck_assert_int_eq(kr_target_of_module(m, &t), KR_SUCCESS);
  ck_assert_str_eq(t.name, "mygpu");
  ck_assert_int_eq(chdir(cwd), 0);
  /* Errors: an unknown name, a non-string attribute. */
  kr_target_set_module(m, "tpu");
  ck_assert_int_eq(kr_target_of_module(m, &t), KR_FAILURE);
  expect_error("unknown target 'tpu'", NULL);
  kr_op_set_attr(m, KR_TARGET_ATTR, kr_attr_integer(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), 7));
  ck_assert_int_eq(kr_target_of_module(m, &t), KR_FAILURE);
  expect_error("must be a string", NULL);
  kr_op_erase(m);
}
END_TEST

/* ------------------------------------------------------------------------------------------- */
/* Profile database. */

static kr_profile_entry entry(const char *target, uint64_t hash, double t, int64_t runs, const char *name) {
  kr_profile_entry e;
  memset(&e, 0, sizeof e);
  snprintf(e.target, sizeof e.target, "%s", target);
  e.hash = hash;
  e.time_us = t;
  e.runs = runs;
  snprintf(e.name, sizeof e.name, "%s", name);
  return e;
}

START_TEST(profile_record_load_lookup_replace) {
  const char *p = path_of("prof.xml");
  kr_profile_db db;
  /* Missing file: empty, no error. */
  ck_assert_int_eq(kr_profile_db_load(ctx, p, NULL, &db), KR_SUCCESS);
  ck_assert_uint_eq(db.num_entries, 0);
  ck_assert(kr_profile_db_lookup(&db, "h200", 1) < 0);
  kr_profile_db_free(&db);

  kr_profile_entry in[] = {
      entry("h200", 0xffffffffffffffffull, 7.25, 100, "k1"), entry("a100", 0x0123456789abcdefull, 0.1, 10, ""),
      entry("h200", 0x1ull, 12.5, 3, "k<&\">"), /* escaped on write */
  };
  ck_assert_int_eq(kr_profile_db_record(ctx, p, in, 3, NULL), KR_SUCCESS);
  ck_assert_int_eq(kr_profile_db_load(ctx, p, NULL, &db), KR_SUCCESS);
  ck_assert_uint_eq(db.num_entries, 3);
  /* Sorted by (target, hash). */
  ck_assert_str_eq(db.entries[0].target, "a100");
  ck_assert_str_eq(db.entries[1].target, "h200");
  ck_assert(db.entries[1].hash == 1);
  ck_assert(db.entries[2].hash == 0xffffffffffffffffull);
  ck_assert_str_eq(db.entries[1].name, "k<&\">");
  ck_assert_int_eq(db.entries[2].runs, 100);
  ck_assert_double_eq(kr_profile_db_lookup(&db, "a100", 0x0123456789abcdefull), 0.1); /* exact round trip */
  ck_assert_double_eq(kr_profile_db_lookup(&db, "h200", 1), 12.5);
  ck_assert_double_eq(kr_profile_db_lookup(&db, "h200", 0xffffffffffffffffull), 7.25);
  ck_assert(kr_profile_db_lookup(&db, "h100", 1) < 0);
  ck_assert(kr_profile_db_lookup(&db, "h200", 2) < 0);
  kr_profile_db_free(&db);

  /* Re-recording (h200, 1) replaces it; a new key is added; the rest is kept. */
  kr_profile_entry again[] = {entry("h200", 1, 9.0, 50, "k1b"), entry("v100", 5, 30.0, 1, "")};
  ck_assert_int_eq(kr_profile_db_record(ctx, p, again, 2, NULL), KR_SUCCESS);
  ck_assert_int_eq(kr_profile_db_load(ctx, p, NULL, &db), KR_SUCCESS);
  ck_assert_uint_eq(db.num_entries, 4);
  ck_assert_double_eq(kr_profile_db_lookup(&db, "h200", 1), 9.0);
  ck_assert_double_eq(kr_profile_db_lookup(&db, "v100", 5), 30.0);
  ck_assert_double_eq(kr_profile_db_lookup(&db, "a100", 0x0123456789abcdefull), 0.1);
  kr_profile_db_free(&db);

  /* Invalid new entries are refused before anything is written. */
  kr_profile_entry bad = entry("h200", 2, -1.0, 1, "");
  ck_assert_int_eq(kr_profile_db_record(ctx, p, &bad, 1, NULL), KR_FAILURE);
  expect_error("time_us must be positive", NULL);
  bad = entry("", 2, 1.0, 1, "");
  ck_assert_int_eq(kr_profile_db_record(ctx, p, &bad, 1, NULL), KR_FAILURE);
  expect_error("bad target", NULL);
  ck_assert_int_eq(kr_profile_db_load(ctx, p, NULL, &db), KR_SUCCESS);
  ck_assert_uint_eq(db.num_entries, 4);
  kr_profile_db_free(&db);
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

/* Loads `text` as a database and expects an error mentioning "path:line:" and `want`. */
static void expect_corrupt(const char *name, const char *text, int line, const char *want) {
  const char *p = write_file(name, text);
  kr_profile_db db = {0};
  ck_assert_int_eq(kr_profile_db_load(ctx, p, NULL, &db), KR_FAILURE);
  ck_assert_ptr_null(db.entries);
  char loc[600];
  snprintf(loc, sizeof loc, "%s:%d:", p, line);
  expect_error(loc, want);
}

START_TEST(profile_corrupt_files) {
  expect_corrupt("binary.xml",
                 "\x7f"
                 "ELF\x02\x01\x01",
                 1, "Start tag expected");
  expect_corrupt("empty.xml", "", 1, NULL);
  expect_corrupt("truncated.xml",
                 "<korch-profile version=\"1\">\n  <kernel target=\"h200\" hash=\"0000000000000001\" time_us=\"1\"/>\n",
                 3, NULL);
  expect_corrupt("root.xml", "<?xml version=\"1.0\"?>\n<profile version=\"1\"/>\n", 2, "expected <korch-profile>");
  expect_corrupt("version.xml", "<korch-profile version=\"7\"/>\n", 1, "version");
  const char *head = "<korch-profile version=\"1\">\n";
  char buf[1024];
  snprintf(buf, sizeof buf,
           "%s  <kernel target=\"h200\" hash=\"0000000000000001\" time_us=\"1\"/>\n"
           "  <kernel target=\"h200\" hash=\"00000000000000AB\" time_us=\"1\"/>\n</korch-profile>\n",
           head);
  expect_corrupt("upper.xml", buf, 3, "bad hash '00000000000000AB'");
  snprintf(buf, sizeof buf, "%s  <kernel target=\"h200\" hash=\"abc\" time_us=\"1\"/>\n</korch-profile>\n", head);
  expect_corrupt("short.xml", buf, 2, "bad hash 'abc'");
  snprintf(buf, sizeof buf,
           "%s\n  <kernel target=\"h200\" hash=\"0000000000000001\" time_us=\"-3.5\"/>\n</korch-profile>\n", head);
  expect_corrupt("negative.xml", buf, 3, "bad time_us '-3.5'");
  snprintf(buf, sizeof buf, "%s  <kernel target=\"h200\" hash=\"0000000000000001\" time_us=\"0\"/>\n</korch-profile>\n",
           head);
  expect_corrupt("zero.xml", buf, 2, "bad time_us '0'");
  /* More than 1e9 us (1000 s) for one kernel is no measurement (and 1e30 aborted CBC). */
  snprintf(buf, sizeof buf,
           "%s  <kernel target=\"h200\" hash=\"0000000000000001\" time_us=\"1e30\"/>\n</korch-profile>\n", head);
  expect_corrupt("huge.xml", buf, 2, "bad time_us '1e30' (more than 1e+09 us");
  snprintf(buf, sizeof buf,
           "%s  <kernel target=\"h200\" hash=\"0000000000000001\" time_us=\"1e9\"/>\n</korch-profile>\n", head);
  {
    kr_profile_db db = {0};
    ck_assert_int_eq(kr_profile_db_load(ctx, write_file("edge.xml", buf), NULL, &db), KR_SUCCESS);
    ck_assert_double_eq(kr_profile_db_lookup(&db, "h200", 1), 1e9);
    kr_profile_db_free(&db);
  }
  snprintf(buf, sizeof buf, "%s  <kernel target=\"h200\" hash=\"0000000000000001\"/>\n</korch-profile>\n", head);
  expect_corrupt("notime.xml", buf, 2, "lacks the attribute 'time_us'");
  snprintf(buf, sizeof buf,
           "%s  <kernel target=\"h200\" hash=\"0000000000000001\" time_us=\"1\" speed=\"2\"/>\n</korch-profile>\n",
           head);
  expect_corrupt("attr.xml", buf, 2, "unknown attribute 'speed'");
  snprintf(buf, sizeof buf, "%s  <entry/>\n</korch-profile>\n", head);
  expect_corrupt("elem.xml", buf, 2, "unexpected element <entry>");
  snprintf(buf, sizeof buf,
           "%s  <kernel target=\"h200\" hash=\"0000000000000001\" time_us=\"1\"/>\n"
           "  <kernel target=\"a100\" hash=\"0000000000000001\" time_us=\"1\"/>\n"
           "  <kernel target=\"h200\" hash=\"0000000000000001\" time_us=\"2\"/>\n</korch-profile>\n",
           head);
  expect_corrupt("dup.xml", buf, 4, "duplicate entry for target 'h200' hash 0000000000000001 (first at line 2)");

  /* Line numbers stay exact past 65535 (libxml2 caps them there without XML_PARSE_BIG_LINES):
   * 70000 good entries on lines 2..70001, a bad one on line 70002. */
  {
    const char *big = path_of("big.xml");
    FILE *f = fopen(big, "w");
    ck_assert_ptr_nonnull(f);
    fputs(head, f);
    for (unsigned i = 0; i < 70000; i++) fprintf(f, "  <kernel target=\"h200\" hash=\"%016x\" time_us=\"1\"/>\n", i);
    fputs("  <kernel target=\"h200\" hash=\"nothex\" time_us=\"1\"/>\n</korch-profile>\n", f);
    fclose(f);
    kr_profile_db db = {0};
    ck_assert_int_eq(kr_profile_db_load(ctx, big, NULL, &db), KR_FAILURE);
    char loc[600];
    snprintf(loc, sizeof loc, "%s:70002:", big);
    expect_error(loc, "bad hash 'nothex'");
  }

  /* Recording into a corrupt database fails with the same error and leaves the file alone. */
  const char *p = write_file("keep.xml", "not xml\n");
  kr_profile_entry e = entry("h200", 1, 1.0, 1, "");
  ck_assert_int_eq(kr_profile_db_record(ctx, p, &e, 1, NULL), KR_FAILURE);
  expect_error(p, NULL);
  FILE *f = fopen(p, "r");
  char got[32] = {0};
  ck_assert_ptr_nonnull(fgets(got, sizeof got, f));
  fclose(f);
  ck_assert_str_eq(got, "not xml\n");
}
END_TEST

/* N processes record distinct entries into one file at the same time, one record call per
 * entry (so the writers interleave); afterwards every entry is there with its time. */
enum { WRITERS = 8, PER_WRITER = 20 };

START_TEST(profile_concurrent_writers) {
  const char *p = path_of("shared.xml");
  char path[512];
  snprintf(path, sizeof path, "%s", p);
  pid_t pids[WRITERS];
  for (int w = 0; w < WRITERS; w++) {
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      kr_context *c = kr_context_create();
      int rc = 0;
      for (int i = 0; i < PER_WRITER && rc == 0; i++) {
        kr_profile_entry e = entry(w % 2 ? "h200" : "a100", (uint64_t)(w * 1000 + i), 1.0 + w + i / 100.0, 1 + i, "");
        if (kr_profile_db_record(c, path, &e, 1, NULL) != KR_SUCCESS) rc = 1;
      }
      kr_context_destroy(c);
      _exit(rc);
    }
    pids[w] = pid;
  }
  for (int w = 0; w < WRITERS; w++) {
    int status = 0;
    ck_assert_int_eq(waitpid(pids[w], &status, 0), pids[w]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed (status %d)", w, status);
  }
  kr_profile_db db;
  ck_assert_int_eq(kr_profile_db_load(ctx, path, NULL, &db), KR_SUCCESS);
  ck_assert_uint_eq(db.num_entries, WRITERS * PER_WRITER);
  for (int w = 0; w < WRITERS; w++)
    for (int i = 0; i < PER_WRITER; i++)
      ck_assert_double_eq(kr_profile_db_lookup(&db, w % 2 ? "h200" : "a100", (uint64_t)(w * 1000 + i)),
                          1.0 + w + i / 100.0);
  kr_profile_db_free(&db);
  /* No temporary file is left behind: only the database and its lock file. */
  DIR *d = opendir(dir);
  unsigned files = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (e->d_name[0] != '.') files++;
  closedir(d);
  ck_assert_uint_eq(files, 2);
}
END_TEST

/* The context-free core (backend/target/profile_db_file.h) that korch-run --profile compiles:
 * errors are strings "path:line: message", the files are the ones libkorch reads, and the writer
 * refuses a time it could not read back. */
START_TEST(profile_db_file_core) {
  const char *p = path_of("core.xml");
  kr_pdb_entry e;
  memset(&e, 0, sizeof e);
  snprintf(e.target, sizeof e.target, "h100");
  e.hash = 0xabcdef0123456789ull;
  e.time_us = 42.25;
  e.runs = 3;
  snprintf(e.name, sizeof e.name, "main_r0_c7");
  kr_pdb_error err;
  ck_assert(kr_pdb_record(p, &e, 1, &err));
  kr_profile_db db;
  ck_assert_int_eq(kr_profile_db_load(ctx, p, NULL, &db), KR_SUCCESS);
  ck_assert_uint_eq(db.num_entries, 1);
  ck_assert_double_eq(kr_profile_db_lookup(&db, "h100", 0xabcdef0123456789ull), 42.25);
  ck_assert_str_eq(db.entries[0].name, "main_r0_c7");
  kr_profile_db_free(&db);
  kr_pdb pdb;
  ck_assert(kr_pdb_load(p, &pdb, &err));
  ck_assert_double_eq(kr_pdb_lookup(&pdb, "h100", 0xabcdef0123456789ull), 42.25);
  ck_assert(kr_pdb_lookup(&pdb, "h200", 0xabcdef0123456789ull) < 0);
  kr_pdb_free(&pdb);

  e.time_us = 2e9;
  ck_assert(!kr_pdb_record(p, &e, 1, &err));
  ck_assert_ptr_nonnull(strstr(err.msg, "time_us 2e+09 is more than"));

  const char *bad = write_file("core-bad.xml", "<korch-profile version=\"1\">\n  <kernel hash=\"x\"/>\n</korch-profile>\n");
  ck_assert(!kr_pdb_load(bad, &pdb, &err));
  ck_assert_ptr_null(pdb.entries);
  char want[600];
  snprintf(want, sizeof want, "%s:2: bad hash 'x'", bad);
  ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "got '%s'", err.msg);
  ck_assert_uint_eq(num_errors, 0); /* no diagnostics: the core has no context */
}
END_TEST

int main(void) {
  Suite *s = suite_create("target");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, builtins_load_with_vendor_figures);
  tcase_add_test(tc, unknown_name_lists_builtins);
  tcase_add_test(tc, file_targets_and_their_errors);
  tcase_add_test(tc, file_target_ranges);
  tcase_add_test(tc, module_attribute_round_trip);
  tcase_add_test(tc, profile_record_load_lookup_replace);
  tcase_add_test(tc, profile_corrupt_files);
  tcase_add_test(tc, profile_concurrent_writers);
  tcase_add_test(tc, profile_db_file_core);
  suite_add_tcase(s, tc);
  return unit_run_suite(s);
}
