/* tools/korch-run/korch-run.c - runs a compiled korch artifact on an NVIDIA GPU through the tiny
 * runtime (runtime/runtime.h, docs/Runtime.md).  Links libc, libdl and libxml2 only, so the
 * binary can be copied alone to a GPU machine.
 *
 * Exit status: 0 success; 1 an error (bad plan, bad input, a CUDA call failed, a dry-run check
 * failed, outputs differ from --expect / the references); 2 a command-line mistake; 77 no usable
 * CUDA driver (libcuda.so.1 missing, cuInit failed): ctest's "skipped". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"

#define EXIT_USAGE 2
#define EXIT_NO_DRIVER 77

static const char USAGE[] =
    "USAGE: korch-run DIR|DIR/model.plan.xml [options]\n"
    "       korch-run --check-list FILE [--dry-run] [tolerance options] [--bench N]\n"
    "\n"
    "Runs a compiled korch artifact (model.ptx + model.plan.xml + model.weights, docs/PlanFormat.md)\n"
    "on an NVIDIA GPU through the CUDA driver (dlopen'ed libcuda.so.1; $KORCH_CUDA_LIBRARY overrides).\n"
    "\n"
    "OPTIONS:\n"
    "  --input NAME=FILE.npy    an input of the plan (every input is required; shape and dtype must\n"
    "                           match the plan exactly)\n"
    "  --fill-inputs            inputs not given get deterministic values (floats in [-1, 1), integers 0)\n"
    "  --output NAME=FILE.npy   write output NAME (atomically)\n"
    "  --output-dir D           write every output as D/NAME.npy (characters other than letters,\n"
    "                           digits, '-', '_' and '.' in NAME become '_'; D must exist; two\n"
    "                           names that map to one file are an error before running)\n"
    "  --expect NAME=REF.npy    compare output NAME with a reference (exit 1 when it differs)\n"
    "  --rtol R, --atol A       tolerance |y - r| <= A + R*|r| per element (ONNX style; default\n"
    "                           1e-3 and 1e-7); integers and bools must be equal\n"
    "  --scaled-tol T           instead: max|y - r| / max|r| <= T over the tensor\n"
    "  --bench N                time N runs with CUDA events after warm-up; print median/min/max ms\n"
    "  --warmup W               untimed runs before --bench (default 10)\n"
    "  --dry-run                no GPU: check the launches against the PTX .entry parameter lists,\n"
    "                           region bounds, buffer lifetimes, block/grid/shared-memory/register\n"
    "                           limits, the PTX header, the weights file's size, and the given\n"
    "                           --input/--expect files' dtype and shape (excludes --bench, --output)\n"
    "  --device N               the CUDA device ordinal (default 0)\n"
    "  --check-list FILE        one process, one CUDA context, many artifacts: FILE lists one DIR per\n"
    "                           line (relative to FILE's directory; '#' comments); each DIR holds\n"
    "                           input_<i>.npy and the references output_<i>.npy; prints PASS/FAIL per\n"
    "                           DIR and a summary (with --dry-run: the dry-run checks of each DIR)\n"
    "  --profile DIR --db FILE  time every candidate artifact under DIR, record in the profile\n"
    "                           database FILE (--bench N runs each, default 20); with --dry-run\n"
    "                           (--db optional): the dry-run checks of every candidate, no write\n"
    "  --help                   this text\n"
    "\n"
    "ENVIRONMENT:\n"
    "  KORCH_CUDA_LIBRARY       the driver library to dlopen instead of libcuda.so.1\n"
    "  KORCH_RUN_SYNC=1         synchronise after every launch (names the kernel of an async fault)\n"
    "\n"
    "EXIT STATUS: 0 success, 1 error or mismatch, 2 usage error, 77 no CUDA driver (skipped).\n";

typedef struct binding {
  const char *name, *file;
} binding;

typedef struct options {
  const char *plan, *output_dir, *check_list, *profile_dir, *db;
  binding inputs[64], outputs[64], expects[64];
  unsigned num_inputs, num_outputs, num_expects;
  double rtol, atol, scaled_tol;
  bool scaled, dry_run, fill_inputs;
  unsigned bench, warmup, device;
} options;

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "korch-run: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(korch-run --help lists the options)\n");
  return EXIT_USAGE;
}

static bool parse_uint(const char *s, unsigned *v) {
  if (!s || !*s) return false;
  char *end;
  errno = 0;
  unsigned long x = strtoul(s, &end, 10);
  if (*end || errno || x > 1000000000ul || s[0] == '-') return false;
  *v = (unsigned)x;
  return true;
}

static bool parse_double(const char *s, double *v) {
  if (!s || !*s) return false;
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return !*end && !errno && *v >= 0;
}

static int parse_binding(const char *flag, const char *arg, binding *list, unsigned *n) {
  const char *eq = arg ? strchr(arg, '=') : NULL;
  if (!eq || eq == arg || !eq[1]) {
    fprintf(stderr, "korch-run: %s expects NAME=FILE.npy, got '%s'\n", flag, arg ? arg : "");
    return EXIT_USAGE;
  }
  if (*n == 64) {
    fprintf(stderr, "korch-run: too many %s options (at most 64)\n", flag);
    return EXIT_USAGE;
  }
  /* The name is the text before '=': keep a NUL-terminated copy. */
  char *name = strndup(arg, (size_t)(eq - arg));
  if (!name) return 1;
  for (unsigned i = 0; i < *n; i++)
    if (!strcmp(list[i].name, name)) {
      fprintf(stderr, "korch-run: %s %s: given twice\n", flag, name);
      free(name);
      return EXIT_USAGE;
    }
  list[*n].name = name;
  list[*n].file = eq + 1;
  (*n)++;
  return 0;
}

static int parse_args(int argc, char **argv, options *o) {
  o->rtol = 1e-3;
  o->atol = 1e-7;
  o->warmup = 10;
  bool have_rtol = false, have_atol = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = 0;
#define NEED_VALUE()                                                                                            \
  do {                                                                                                          \
    if (!v) return usage_error("%s needs a value", a);                                                          \
    i++;                                                                                                        \
  } while (0)
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(USAGE, stdout);
      exit(0);
    } else if (!strcmp(a, "--input")) {
      NEED_VALUE();
      rc = parse_binding(a, v, o->inputs, &o->num_inputs);
    } else if (!strcmp(a, "--output")) {
      NEED_VALUE();
      rc = parse_binding(a, v, o->outputs, &o->num_outputs);
    } else if (!strcmp(a, "--expect")) {
      NEED_VALUE();
      rc = parse_binding(a, v, o->expects, &o->num_expects);
    } else if (!strcmp(a, "--output-dir")) {
      NEED_VALUE();
      o->output_dir = v;
    } else if (!strcmp(a, "--check-list")) {
      NEED_VALUE();
      o->check_list = v;
    } else if (!strcmp(a, "--profile")) {
      NEED_VALUE();
      o->profile_dir = v;
    } else if (!strcmp(a, "--db")) {
      NEED_VALUE();
      o->db = v;
    } else if (!strcmp(a, "--rtol") || !strcmp(a, "--atol") || !strcmp(a, "--scaled-tol")) {
      NEED_VALUE();
      double d;
      if (!parse_double(v, &d)) return usage_error("expected a non-negative number, got '%s'", v);
      if (a[2] == 'r') o->rtol = d, have_rtol = true;
      if (a[2] == 'a') o->atol = d, have_atol = true;
      if (a[2] == 's') o->scaled_tol = d, o->scaled = true;
    } else if (!strcmp(a, "--bench") || !strcmp(a, "--warmup") || !strcmp(a, "--device")) {
      NEED_VALUE();
      unsigned u;
      if (!parse_uint(v, &u)) return usage_error("expected a non-negative integer, got '%s'", v);
      if (a[2] == 'b') {
        if (u == 0) return usage_error("--bench needs at least 1 run, got '%s'", v);
        o->bench = u;
      }
      if (a[2] == 'w') o->warmup = u;
      if (a[2] == 'd') o->device = u;
    } else if (!strcmp(a, "--dry-run")) {
      o->dry_run = true;
    } else if (!strcmp(a, "--fill-inputs")) {
      o->fill_inputs = true;
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option '%s'", a);
    } else if (o->plan) {
      return usage_error("more than one artifact given ('%s')", a);
    } else {
      o->plan = a;
    }
    if (rc) return rc;
#undef NEED_VALUE
  }
  if (o->scaled && (have_rtol || have_atol)) return usage_error("%s", "--scaled-tol excludes --rtol/--atol");
  int modes = !!o->plan + !!o->check_list + !!o->profile_dir;
  if (modes == 0) return usage_error("%s", "no artifact given (DIR, DIR/model.plan.xml, --check-list or --profile)");
  if (modes > 1) return usage_error("%s", "give one of: an artifact, --check-list, --profile");
  if (o->db && !o->profile_dir) return usage_error("%s", "--db FILE goes with --profile DIR");
  if (o->profile_dir && !o->db && !o->dry_run)
    return usage_error("%s", "--profile DIR needs --db FILE (only a --dry-run of the candidates goes without)");
  /* Options a dry run would otherwise silently ignore. */
  if (o->dry_run && o->bench) return usage_error("%s", "--bench times runs on a GPU: it excludes --dry-run");
  if (o->dry_run && (o->num_outputs || o->output_dir))
    return usage_error("%s", "--output/--output-dir write what a run computed: they exclude --dry-run");
  if ((o->check_list || o->profile_dir) && (o->num_inputs || o->num_outputs || o->num_expects || o->output_dir))
    return usage_error("%s", "--input/--output/--expect/--output-dir apply to a single artifact");
  if (o->output_dir && o->num_outputs) return usage_error("%s", "--output and --output-dir exclude each other");
  return 0;
}

/* D/NAME.npy for --output-dir: characters other than letters, digits, '-', '_' and '.' (not
 * leading) become '_' (ONNX names may hold '/', PyTorch's "/layer/Add_output_0"). */
static void output_file(const char *dir, const char *name, char *buf, size_t size) {
  int w = snprintf(buf, size, "%s/", dir);
  for (const char *c = name; *c && w + 5 < (int)size; c++)
    buf[w++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
                       *c == '_' || (*c == '.' && c != name)
                   ? *c
                   : '_';
  snprintf(buf + w, size - (size_t)w, ".npy");
}

/* --output-dir, before anything runs: D is an existing, writable directory (korch-run does not
 * create it: a typo should not scatter outputs), and no two outputs map to the same file name
 * (`a/b` and `a_b` both become a_b.npy: the second would overwrite the first). */
static bool check_output_dir(const char *dir, const kr_rt_plan *plan) {
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    fprintf(stderr, "korch-run: --output-dir %s: not an existing directory (korch-run does not create it)\n", dir);
    return false;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    fprintf(stderr, "korch-run: --output-dir %s: not writable: %s\n", dir, strerror(errno));
    return false;
  }
  bool ok = true;
  for (unsigned i = 0; i < plan->num_outputs; i++)
    for (unsigned j = 0; j < i; j++) {
      char a[4096], b[4096];
      output_file(dir, plan->outputs[i].name, a, sizeof a);
      output_file(dir, plan->outputs[j].name, b, sizeof b);
      if (!strcmp(a, b)) {
        fprintf(stderr, "korch-run: --output-dir: outputs '%s' and '%s' would both be written to %s\n",
                plan->outputs[j].name, plan->outputs[i].name, a);
        ok = false;
      }
    }
  return ok;
}

/* DIR/model.plan.xml for a directory, the path itself otherwise (malloc'd). */
static char *plan_path(const char *arg) {
  struct stat sb;
  if (stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    size_t n = strlen(arg) + 32;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/model.plan.xml", arg);
    return p;
  }
  return strdup(arg);
}

/* ---- Comparison ----------------------------------------------------------------------------- */

static double half_to_double(uint16_t h) {
  int e = (h >> 10) & 0x1f;
  double m = h & 0x3ff, v;
  if (e == 0)
    v = m / 1024.0 / 16384.0; /* 2^-14 * m/1024 */
  else if (e == 31)
    v = m ? 0.0 / 0.0 : 1.0 / 0.0;
  else {
    v = 1.0 + m / 1024.0;
    for (; e > 15; e--) v *= 2;
    for (; e < 15; e++) v /= 2;
  }
  return h & 0x8000 ? -v : v;
}

static bool is_float(const char *dtype) { return dtype[0] == 'f' || !strcmp(dtype, "bf16"); }

/* Element k as a double (floats) or as an exact 64-bit pattern (integers). */
static double elem(const char *dtype, const void *data, size_t k) {
  const unsigned char *b = (const unsigned char *)data;
  if (!strcmp(dtype, "f32")) {
    float f;
    memcpy(&f, b + 4 * k, 4);
    return f;
  }
  if (!strcmp(dtype, "f64")) {
    double d;
    memcpy(&d, b + 8 * k, 8);
    return d;
  }
  if (!strcmp(dtype, "f16")) {
    uint16_t h;
    memcpy(&h, b + 2 * k, 2);
    return half_to_double(h);
  }
  if (!strcmp(dtype, "bf16")) {
    uint16_t h;
    memcpy(&h, b + 2 * k, 2);
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
  }
  return 0;
}

static double dabs(double x) { return x < 0 ? -x : x; }

typedef struct cmp_result {
  bool ok;
  double max_abs, max_rel;
  size_t worst, bad;
  double got, want;
} cmp_result;

static cmp_result compare(const options *o, const char *dtype, const void *y, const void *r, size_t bytes) {
  cmp_result c = {true, 0, 0, 0, 0, 0, 0};
  unsigned es = kr_rt_dtype_size(dtype);
  size_t n = bytes / es;
  if (!is_float(dtype)) {
    for (size_t k = 0; k < n; k++)
      if (memcmp((const char *)y + k * es, (const char *)r + k * es, es)) {
        if (!c.bad++) c.worst = k;
        c.ok = false;
        c.max_abs = 1;
      }
    return c;
  }
  double max_ref = 0, worst_excess = -1;
  for (size_t k = 0; k < n; k++) {
    double a = elem(dtype, y, k), b = elem(dtype, r, k);
    if (dabs(b) > max_ref && b == b) max_ref = dabs(b);
    bool a_nan = a != a, b_nan = b != b;
    double diff = (a_nan && b_nan) || a == b ? 0 : (a_nan || b_nan) ? 1.0 / 0.0 : dabs(a - b);
    if (diff != diff) diff = 1.0 / 0.0;
    double rel = diff == 0 ? 0 : b != 0 ? diff / dabs(b) : 1.0 / 0.0;
    if (diff > c.max_abs) c.max_abs = diff;
    if (rel > c.max_rel) c.max_rel = rel;
    double excess = o->scaled ? diff : diff - (o->atol + o->rtol * dabs(b));
    if (!o->scaled && excess > 0) {
      c.ok = false;
      c.bad++;
    }
    if (excess > worst_excess) {
      worst_excess = excess;
      c.worst = k;
      c.got = a;
      c.want = b;
    }
  }
  if (o->scaled) {
    double scaled = max_ref > 0 ? c.max_abs / max_ref : c.max_abs;
    c.max_rel = scaled; /* reported as the scaled error */
    c.ok = scaled <= o->scaled_tol;
    c.bad = c.ok ? 0 : 1;
  }
  return c;
}

/* "max abs error .., max rel error .." (or the scaled error); returns ok. */
static bool report_compare(const options *o, FILE *f, const char *prefix, const char *name, const char *dtype,
                           const void *y, const void *r, size_t bytes) {
  cmp_result c = compare(o, dtype, y, r, bytes);
  if (!is_float(dtype))
    fprintf(f, "%soutput '%s': %s (%s, %zu of %zu elements differ)\n", prefix, name, c.ok ? "PASS" : "FAIL", dtype,
            c.bad, bytes / kr_rt_dtype_size(dtype));
  else if (o->scaled)
    fprintf(f, "%soutput '%s': %s (scaled error %.3g, tolerance %.3g; max abs error %.3g at element %zu: got %.9g, want %.9g)\n",
            prefix, name, c.ok ? "PASS" : "FAIL", c.max_rel, o->scaled_tol, c.max_abs, c.worst, c.got, c.want);
  else
    fprintf(f, "%soutput '%s': %s (max abs error %.3g, max rel error %.3g; %zu elements outside rtol=%g atol=%g%s",
            prefix, name, c.ok ? "PASS" : "FAIL", c.max_abs, c.max_rel, c.bad, o->rtol, o->atol, c.ok ? ")\n" : "; ");
  if (!c.ok && is_float(dtype) && !o->scaled) fprintf(f, "worst element %zu: got %.9g, want %.9g)\n", c.worst, c.got, c.want);
  return c.ok;
}

/* ---- One artifact --------------------------------------------------------------------------- */

/* Exact dtype and shape; a bf16 tensor's file holds its raw bits as ui16 (NumPy has no
 * bfloat16; the ONNX test data stores it so). */
static bool same_shape(const kr_rt_tensor *t, const kr_rt_array *a) {
  bool bf16_bits = !strcmp(t->dtype, "bf16") && !strcmp(a->dtype, "ui16");
  if ((strcmp(t->dtype, a->dtype) && !bf16_bits) || t->rank != a->rank) return false;
  for (unsigned i = 0; i < t->rank; i++)
    if (t->dims[i] != a->dims[i]) return false;
  return true;
}

static void shape_str(char *buf, size_t n, const char *dtype, unsigned rank, const int64_t *dims) {
  int w = snprintf(buf, n, "%s[", dtype);
  for (unsigned i = 0; i < rank && (size_t)w < n; i++) w += snprintf(buf + w, n - (size_t)w, "%s%lld", i ? "x" : "", (long long)dims[i]);
  if ((size_t)w < n) snprintf(buf + w, n - (size_t)w, "]");
}

/* Reads `file` for plan tensor `t` (shape and dtype must match exactly). */
static kr_rt_status read_for(const kr_rt_tensor *t, const char *kind, const char *file, kr_rt_array *a, kr_rt_error *err) {
  if (kr_rt_npy_read(file, a, err) != KR_RT_OK) return KR_RT_ERROR;
  if (!same_shape(t, a)) {
    char want[160], got[160];
    shape_str(want, sizeof want, t->dtype, t->rank, t->dims);
    shape_str(got, sizeof got, a->dtype, a->rank, a->dims);
    snprintf(err->msg, sizeof err->msg, "%s '%s': %s holds %s, the plan expects %s", kind, t->name, file, got, want);
    kr_rt_array_free(a);
    return KR_RT_ERROR;
  }
  return KR_RT_OK;
}

static int find_tensor(const kr_rt_tensor *ts, unsigned n, const char *name) {
  for (unsigned i = 0; i < n; i++)
    if (!strcmp(ts[i].name, name)) return (int)i;
  return -1;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static kr_rt_status bench(const options *o, kr_rt_session *s, const char *label, kr_rt_error *err) {
  double *ms = calloc(o->bench, sizeof *ms);
  if (!ms) return KR_RT_ERROR;
  kr_rt_status st = kr_rt_session_time(s, -1, o->warmup, o->bench, ms, err);
  if (st == KR_RT_OK) {
    qsort(ms, o->bench, sizeof *ms, cmp_double);
    double median = o->bench % 2 ? ms[o->bench / 2] : (ms[o->bench / 2 - 1] + ms[o->bench / 2]) / 2;
    printf("korch-run: bench %s: %u runs after %u warm-up: median %.4f ms, min %.4f ms, max %.4f ms\n", label, o->bench,
           o->warmup, median, ms[0], ms[o->bench - 1]);
  }
  free(ms);
  return st;
}

static int fail(const kr_rt_error *err) {
  fprintf(stderr, "korch-run: %s\n", err->msg);
  return 1;
}

static int open_device(const options *o, kr_rt_device **dev) {
  kr_rt_error err = {{0}};
  kr_rt_status st = kr_rt_device_open((int)o->device, dev, &err);
  if (st == KR_RT_NO_DRIVER) {
    fprintf(stderr, "korch-run: %s\n", err.msg);
    return EXIT_NO_DRIVER;
  }
  if (st != KR_RT_OK) return fail(&err);
  return 0;
}

static int run_one(const options *o) {
  kr_rt_error err = {{0}};
  char *path = plan_path(o->plan);
  kr_rt_plan plan;
  if (!path || kr_rt_plan_load(path, &plan, &err) != KR_RT_OK) {
    free(path);
    return fail(&err);
  }
  free(path);
  int rc = 0;
  kr_rt_array *in = calloc(plan.num_inputs + 1, sizeof *in), *ref = calloc(plan.num_outputs + 1, sizeof *ref);
  kr_rt_device *dev = NULL;
  kr_rt_session *s = NULL;
  if (!in || !ref) {
    rc = 1;
    goto done;
  }
  if (o->dry_run) {
    unsigned checks = 0;
    bool ok = kr_rt_dry_run(&plan, &err, &checks) == KR_RT_OK;
    if (!ok) fprintf(stderr, "%s\n", err.msg);
    /* The given --input and --expect files are read and checked against the plan (dtype and
     * shape), which needs no GPU either; inputs not given are not required here. */
    for (unsigned pass = 0; pass < 2; pass++) {
      const binding *bs = pass ? o->expects : o->inputs;
      unsigned nb = pass ? o->num_expects : o->num_inputs;
      const kr_rt_tensor *ts = pass ? plan.outputs : plan.inputs;
      unsigned nt = pass ? plan.num_outputs : plan.num_inputs;
      for (unsigned b = 0; b < nb; b++, checks++) {
        int i = find_tensor(ts, nt, bs[b].name);
        kr_rt_array a = {{0}, 0, {0}, NULL, 0};
        if (i < 0) {
          fprintf(stderr, "korch-run: %s %s: the plan has no %s of that name\n", pass ? "--expect" : "--input",
                  bs[b].name, pass ? "output" : "input");
          ok = false;
        } else if (read_for(&ts[i], pass ? "reference for output" : "input", bs[b].file, &a, &err) != KR_RT_OK) {
          fprintf(stderr, "korch-run: %s\n", err.msg);
          ok = false;
        }
        kr_rt_array_free(&a);
      }
    }
    if (!ok) {
      fprintf(stderr, "korch-run: dry run of %s: FAILED\n", plan.path);
      rc = 1;
    } else
      printf("korch-run: dry run of %s: %u checks passed (%u kernels, %u launches)\n", plan.path, checks,
             plan.num_kernels, plan.num_launches);
    goto done;
  }
  if (o->output_dir && !check_output_dir(o->output_dir, &plan)) {
    rc = 1;
    goto done;
  }
  /* Everything on the host first: a bad input is reported without touching the GPU. */
  for (unsigned b = 0; b < o->num_inputs; b++)
    if (find_tensor(plan.inputs, plan.num_inputs, o->inputs[b].name) < 0) {
      fprintf(stderr, "korch-run: --input %s: the plan has no input of that name\n", o->inputs[b].name);
      rc = 1;
      goto done;
    }
  for (unsigned b = 0; b < o->num_outputs; b++)
    if (find_tensor(plan.outputs, plan.num_outputs, o->outputs[b].name) < 0) {
      fprintf(stderr, "korch-run: --output %s: the plan has no output of that name\n", o->outputs[b].name);
      rc = 1;
      goto done;
    }
  for (unsigned i = 0; i < plan.num_inputs; i++) {
    const binding *b = NULL;
    for (unsigned k = 0; k < o->num_inputs; k++)
      if (!strcmp(o->inputs[k].name, plan.inputs[i].name)) b = &o->inputs[k];
    if (!b && !o->fill_inputs) {
      fprintf(stderr, "korch-run: input '%s' is not given (--input %s=FILE.npy, or --fill-inputs)\n",
              plan.inputs[i].name, plan.inputs[i].name);
      rc = 1;
      goto done;
    }
    if (b && read_for(&plan.inputs[i], "input", b->file, &in[i], &err) != KR_RT_OK) {
      rc = fail(&err);
      goto done;
    }
  }
  for (unsigned b = 0; b < o->num_expects; b++) {
    int i = find_tensor(plan.outputs, plan.num_outputs, o->expects[b].name);
    if (i < 0) {
      fprintf(stderr, "korch-run: --expect %s: the plan has no output of that name\n", o->expects[b].name);
      rc = 1;
      goto done;
    }
    if (read_for(&plan.outputs[i], "reference for output", o->expects[b].file, &ref[i], &err) != KR_RT_OK) {
      rc = fail(&err);
      goto done;
    }
  }
  if ((rc = open_device(o, &dev))) goto done;
  if (kr_rt_session_create(dev, &plan, &s, &err) != KR_RT_OK) {
    rc = fail(&err);
    goto done;
  }
  if (o->fill_inputs && kr_rt_session_fill_inputs(s, &err) != KR_RT_OK) {
    rc = fail(&err);
    goto done;
  }
  for (unsigned i = 0; i < plan.num_inputs; i++)
    if (in[i].data && kr_rt_session_set_input(s, i, in[i].data, in[i].bytes, &err) != KR_RT_OK) {
      rc = fail(&err);
      goto done;
    }
  if (kr_rt_session_run(s, &err) != KR_RT_OK) {
    rc = fail(&err);
    goto done;
  }
  for (unsigned i = 0; i < plan.num_outputs && !rc; i++) {
    const kr_rt_tensor *t = &plan.outputs[i];
    const char *file = NULL;
    char buf[4096];
    for (unsigned k = 0; k < o->num_outputs; k++)
      if (!strcmp(o->outputs[k].name, t->name)) file = o->outputs[k].file;
    if (o->output_dir) {
      output_file(o->output_dir, t->name, buf, sizeof buf);
      file = buf;
    }
    if (!file && !ref[i].data) continue;
    void *y = malloc(t->ref.bytes ? t->ref.bytes : 1);
    if (!y || kr_rt_session_get_output(s, i, y, t->ref.bytes, &err) != KR_RT_OK ||
        (file && kr_rt_npy_write(file, t->dtype, t->rank, t->dims, y, t->ref.bytes, &err) != KR_RT_OK)) {
      free(y);
      rc = fail(&err);
      break;
    }
    if (ref[i].data && !report_compare(o, stdout, "korch-run: ", t->name, t->dtype, y, ref[i].data, t->ref.bytes)) rc = 1;
    free(y);
  }
  if (!rc && o->bench && bench(o, s, plan.path, &err) != KR_RT_OK) rc = fail(&err);
done:
  kr_rt_session_destroy(s);
  kr_rt_device_close(dev);
  for (unsigned i = 0; in && i < plan.num_inputs; i++) kr_rt_array_free(&in[i]);
  for (unsigned i = 0; ref && i < plan.num_outputs; i++) kr_rt_array_free(&ref[i]);
  free(in);
  free(ref);
  kr_rt_plan_free(&plan);
  return rc;
}

/* ---- --check-list --------------------------------------------------------------------------- */

/* One listed artifact: PASS/FAIL line on stdout; returns true on PASS. */
static bool check_dir(const options *o, kr_rt_device *dev, const char *dir) {
  kr_rt_error err = {{0}};
  char path[8400];
  snprintf(path, sizeof path, "%s/model.plan.xml", dir);
  kr_rt_plan plan;
  if (kr_rt_plan_load(path, &plan, &err) != KR_RT_OK) {
    printf("FAIL %s: %s\n", dir, err.msg);
    return false;
  }
  bool ok = true;
  if (o->dry_run) {
    unsigned checks = 0;
    if (kr_rt_dry_run(&plan, &err, &checks) != KR_RT_OK) {
      printf("FAIL %s:\n%s\n", dir, err.msg);
      ok = false;
    } else
      printf("PASS %s (%u checks)\n", dir, checks);
    kr_rt_plan_free(&plan);
    return ok;
  }
  kr_rt_session *s = NULL;
  kr_rt_array a = {{0}, 0, {0}, NULL, 0};
  void *y = NULL;
  char detail[4096] = "";
  size_t dlen = 0;
  if (kr_rt_session_create(dev, &plan, &s, &err) != KR_RT_OK) goto failed;
  for (unsigned i = 0; i < plan.num_inputs; i++) {
    char file[8400];
    snprintf(file, sizeof file, "%s/input_%u.npy", dir, i);
    if (read_for(&plan.inputs[i], "input", file, &a, &err) != KR_RT_OK) goto failed;
    kr_rt_status st = kr_rt_session_set_input(s, i, a.data, a.bytes, &err);
    kr_rt_array_free(&a);
    if (st != KR_RT_OK) goto failed;
  }
  if (kr_rt_session_run(s, &err) != KR_RT_OK) goto failed;
  double worst_abs = 0, worst_rel = 0;
  for (unsigned i = 0; i < plan.num_outputs; i++) {
    const kr_rt_tensor *t = &plan.outputs[i];
    char file[8400];
    snprintf(file, sizeof file, "%s/output_%u.npy", dir, i);
    if (read_for(t, "reference for output", file, &a, &err) != KR_RT_OK) goto failed;
    y = malloc(t->ref.bytes ? t->ref.bytes : 1);
    if (!y || kr_rt_session_get_output(s, i, y, t->ref.bytes, &err) != KR_RT_OK) goto failed;
    cmp_result c = compare(o, t->dtype, y, a.data, t->ref.bytes);
    if (c.max_abs > worst_abs) worst_abs = c.max_abs;
    if (c.max_rel > worst_rel) worst_rel = c.max_rel;
    if (!c.ok) {
      ok = false;
      if (dlen < sizeof detail)
        dlen += (size_t)snprintf(detail + dlen, sizeof detail - dlen,
                                 is_float(t->dtype) ? "; output %u '%s': element %zu got %.9g, want %.9g"
                                                    : "; output %u '%s': %zu elements differ",
                                 i, t->name, is_float(t->dtype) ? c.worst : c.bad, c.got, c.want);
    }
    free(y);
    y = NULL;
    kr_rt_array_free(&a);
  }
  printf("%s %s (max abs error %.3g, max %s error %.3g)%s\n", ok ? "PASS" : "FAIL", dir, worst_abs,
         o->scaled ? "scaled" : "rel", worst_rel, detail);
  if (ok && o->bench && bench(o, s, dir, &err) != KR_RT_OK) {
    printf("FAIL %s: %s\n", dir, err.msg);
    ok = false;
  }
  kr_rt_session_destroy(s);
  kr_rt_plan_free(&plan);
  return ok;
failed:
  printf("FAIL %s: %s\n", dir, err.msg);
  free(y);
  kr_rt_array_free(&a);
  kr_rt_session_destroy(s);
  kr_rt_plan_free(&plan);
  return false;
}

static int run_check_list(const options *o) {
  struct stat sb;
  if (stat(o->check_list, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    fprintf(stderr, "korch-run: %s: not a regular file (--check-list takes a file listing one DIR per line)\n",
            o->check_list);
    return 1;
  }
  FILE *f = fopen(o->check_list, "r");
  if (!f) {
    fprintf(stderr, "korch-run: %s: cannot open: %s\n", o->check_list, strerror(errno));
    return 1;
  }
  kr_rt_device *dev = NULL;
  if (!o->dry_run) {
    int rc = open_device(o, &dev);
    if (rc) {
      fclose(f);
      return rc;
    }
    printf("korch-run: device %s\n", kr_rt_device_name(dev));
  }
  const char *slash = strrchr(o->check_list, '/');
  int base_len = slash ? (int)(slash - o->check_list) : 1;
  const char *base = slash ? o->check_list : ".";
  char line[4096];
  unsigned passed = 0, failed = 0;
  while (fgets(line, sizeof line, f)) {
    size_t n = strcspn(line, "\r\n");
    line[n] = '\0';
    char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || *p == '#') continue;
    char dir[8300];
    if (*p == '/')
      snprintf(dir, sizeof dir, "%s", p);
    else
      snprintf(dir, sizeof dir, "%.*s/%s", base_len, base, p);
    if (check_dir(o, dev, dir))
      passed++;
    else
      failed++;
    fflush(stdout);
  }
  bool read_error = ferror(f) != 0;
  fclose(f);
  kr_rt_device_close(dev);
  if (read_error) {
    fprintf(stderr, "korch-run: %s: read error\n", o->check_list);
    return 1;
  }
  if (passed + failed == 0) {
    /* Nothing checked is not a success: an empty or all-comment list is a mistake. */
    fprintf(stderr, "korch-run: %s lists no artifact directory\n", o->check_list);
    return 1;
  }
  printf("korch-run: %u passed, %u failed of %u%s\n", passed, failed, passed + failed, o->dry_run ? " (dry run)" : "");
  return failed ? 1 : 0;
}

int main(int argc, char **argv) {
  options o;
  memset(&o, 0, sizeof o);
  int rc = parse_args(argc, argv, &o);
  if (rc != 0) {
    /* usage error: already reported */
  } else if (o.check_list) {
    rc = run_check_list(&o);
  } else if (o.profile_dir) {
#ifdef KORCH_RUNTIME_HAS_PROFILE
    kr_rt_device *dev = NULL;
    if (o.dry_run) {
      /* Every candidate's dry-run checks (and the database path and the hashes), no GPU, no
       * database write. */
      kr_rt_error err = {{0}};
      if (kr_rt_profile_dry_run(o.profile_dir, o.db, stdout, &err) != KR_RT_OK) rc = fail(&err);
    } else if ((rc = open_device(&o, &dev)) == 0) {
      kr_rt_error err = {{0}};
      if (kr_rt_profile(dev, o.profile_dir, o.db, o.warmup, o.bench ? o.bench : 20, stdout, &err) != KR_RT_OK) rc = fail(&err);
      kr_rt_device_close(dev);
    }
#else
    fprintf(stderr, "korch-run: --profile is not built into this korch-run (runtime/profile.c missing)\n");
    rc = 1;
#endif
  } else {
    rc = run_one(&o);
  }
  for (unsigned i = 0; i < o.num_inputs; i++) free((char *)o.inputs[i].name);
  for (unsigned i = 0; i < o.num_outputs; i++) free((char *)o.outputs[i].name);
  for (unsigned i = 0; i < o.num_expects; i++) free((char *)o.expects[i].name);
  return rc;
}
