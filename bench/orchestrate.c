/* bench/orchestrate.c - kernel orchestration on whole networks (issue 5: candidate count, BLP
 * size and solve time per model; modelled cost of the unfused, greedy and optimal plans; ONNX
 * import through orchestration wall time).
 *
 *   bench_orchestrate [--pipeline STR] [--models DIR] [--options STR] [--repeat N] [--regions] [-v]
 *                     [FILE.onnx ...]
 *
 * For each model (the FILE.onnx given, else every *.onnx of DIR, default ../shared/models, in
 * name order): import it (kr_onnx_import_file), run the standard pipeline through orchestration
 * (default `op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,
 * canonicalize,cse,orchestrate{report=TMP OPTIONS}`) with the verifier after each pass, read the
 * figures back from the orchestration report and print one row:
 *   model | prims | regions | candidates | vars | rows | cuts | solve s (sum) | max region s |
 *   status | gap | unfused us | greedy us | optimal us | x unfused | x greedy | total s
 * `x unfused` and `x greedy` are the modelled speedups of the optimal plan (cost ratios); `total s`
 * is the wall time from the start of the import to the end of orchestration (the issue's
 * "import through orchestration").  A model that fails gets its first diagnostic instead.
 * `--regions` adds one line per region of every function: primitives, candidates, BLP
 * variables, rows, cycle cuts, solve time, status and gap (the per-region figures).
 * `--repeat N` runs every model N times and prints the median of each time (solve s, max
 * region s, total s, every region's solve ms; the machine may be loaded); everything else must
 * be equal across the runs (the plan is deterministic), else the row is marked NONDETERMINISTIC.
 * Numbers, not pass/fail: the exit status is 1 only when a model fails to import or orchestrate
 * (2 on a usage error, 77 when the model folder is absent and no file is given). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_models.h"
#include "support/flag_value.h"
#include "korch/korch.h"

#define DEFAULT_PIPELINE "op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse"

/* One region row of the report. */
typedef struct region_fig {
  unsigned prims, vars, rows, cuts;
  char cands[64], status[64];
  double ms, gap;
} region_fig;

#define MAX_REGIONS 1024

/* The figures of one model, summed over its functions (from the report). */
typedef struct figures {
  unsigned prims, regions, cands, vars, rows, cuts;
  double solve_s, max_region_s, gap, unfused, greedy, optimal, total_s;
  bool all_optimal;
  unsigned num_region_figs;          /* region rows (over all functions, in report order) */
  region_fig region[MAX_REGIONS];
} figures;

/* Reads the report at `path` (report.c's format: a `function` line, region rows, a `total` row). */
static bool parse_report(const char *path, figures *f) {
  FILE *in = fopen(path, "r");
  if (!in) return false;
  memset(f, 0, sizeof *f);
  f->all_optimal = true;
  char line[4096];
  bool in_table = false;
  while (fgets(line, sizeof line, in)) {
    unsigned a, b;
    if (sscanf(line, "function @%*s %u primitives in %u region", &a, &b) == 2) {
      f->regions += b;
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    char first[64], cands[64], status[64];
    unsigned prims, vars, rows, cuts;
    double ms, gap, cu, cg, co;
    if (sscanf(line, "%63s %u %63s %u %u %u %lf %63s %lf %lf %lf %lf", first, &prims, cands, &vars, &rows, &cuts, &ms,
               status, &gap, &cu, &cg, &co) != 12)
      continue;
    if (!strcmp(first, "total")) {
      f->prims += prims;
      f->cands += (unsigned)strtoul(cands, NULL, 10);
      f->vars += vars;
      f->rows += rows;
      f->cuts += cuts;
      f->solve_s += ms / 1e3;
      if (gap > f->gap) f->gap = gap;
      f->unfused += cu;
      f->greedy += cg;
      f->optimal += co;
      if (strcmp(status, "optimal")) f->all_optimal = false;
      in_table = false;
    } else {
      if (ms / 1e3 > f->max_region_s) f->max_region_s = ms / 1e3;
      if (f->num_region_figs < MAX_REGIONS) {
        region_fig *rf = &f->region[f->num_region_figs++];
        *rf = (region_fig){.prims = prims, .vars = vars, .rows = rows, .cuts = cuts, .ms = ms, .gap = gap};
        snprintf(rf->cands, sizeof rf->cands, "%s", cands);
        snprintf(rf->status, sizeof rf->status, "%s", status);
      }
    }
  }
  fclose(in);
  return true;
}

static void print_header(void) {
  printf("%-30s %6s %4s %7s %7s %7s %4s %8s %8s %-10s %6s %10s %10s %10s %7s %7s %7s\n", "model", "prims", "regs",
         "cands", "vars", "rows", "cuts", "solve-s", "max-reg", "status", "gap", "unfused-us", "greedy-us",
         "optimal-us", "x-unf", "x-grd", "total-s");
}

/* One run of one model: fills *f (f->total_s: import through orchestration); on failure puts
 * the reason into why and returns false. */
static bool run_once(const char *path, const char *pipeline, const char *extra, bool verbose, const char *tmp,
                     figures *f, char *why, size_t why_cap) {
  bench_model b;
  bool ok = false;
  size_t plen = strlen(pipeline) + strlen(tmp) + strlen(extra) + 64;
  char *full = malloc(plen);
  if (full) {
    snprintf(full, plen, "%s,orchestrate{report=%s%s%s}", pipeline, tmp, extra[0] ? " " : "", extra);
    unlink(tmp);
  }
  if (!bench_model_open(&b, path, verbose) || !full || !bench_model_run(&b, full)) goto fail;
  double secs = bench_now_s() - b.import_start_s;
  if (!parse_report(tmp, f)) {
    snprintf(why, why_cap, "no orchestration report at %s", tmp);
    goto done;
  }
  f->total_s = secs;
  ok = true;
  goto done;
fail:;
  const char *s = bench_model_diags(&b), *e = strstr(s, "error: ");
  bench_first_line(e ? e : s, why, why_cap);
done:
  free(full);
  bench_model_close(&b);
  unlink(tmp);
  return ok;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorts v). */
static double median(double *v, unsigned n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Whether two runs agree on everything but the times. */
static bool same_plan(const figures *a, const figures *b) {
  if (a->prims != b->prims || a->regions != b->regions || a->cands != b->cands || a->vars != b->vars ||
      a->rows != b->rows || a->cuts != b->cuts || a->optimal != b->optimal || a->greedy != b->greedy ||
      a->unfused != b->unfused || a->all_optimal != b->all_optimal || a->num_region_figs != b->num_region_figs)
    return false;
  for (unsigned i = 0; i < a->num_region_figs; i++) {
    const region_fig *x = &a->region[i], *y = &b->region[i];
    if (x->vars != y->vars || x->rows != y->rows || x->cuts != y->cuts || strcmp(x->status, y->status)) return false;
  }
  return true;
}

/* One model, `repeat` runs: prints its row (medians of the times) and, with `regions`, a line
 * per region; returns whether it was orchestrated. */
static bool bench(const char *path, const char *pipeline, const char *extra, bool verbose, unsigned repeat,
                  bool regions, const char *tmp, figures *total) {
  char name[64], why[512];
  bench_model_name(path, name, sizeof name);
  figures *runs = calloc(repeat, sizeof *runs);
  double *v = malloc(repeat * sizeof *v);
  bool ok = runs && v;
  if (!ok) snprintf(why, sizeof why, "out of memory");
  for (unsigned i = 0; i < repeat && ok; i++) ok = run_once(path, pipeline, extra, verbose, tmp, &runs[i], why, sizeof why);
  if (!ok) {
    printf("%-30s FAILED: %s\n", name, why);
    fflush(stdout);
    free(runs);
    free(v);
    return false;
  }
  figures f = runs[0];
  bool deterministic = true;
  for (unsigned i = 1; i < repeat; i++) deterministic &= same_plan(&runs[0], &runs[i]);
#define MEDIAN_OF(field)                                  \
  do {                                                    \
    for (unsigned i = 0; i < repeat; i++) v[i] = runs[i].field; \
    f.field = median(v, repeat);                          \
  } while (0)
  MEDIAN_OF(solve_s);
  MEDIAN_OF(max_region_s);
  MEDIAN_OF(total_s);
  for (unsigned r = 0; r < f.num_region_figs; r++) MEDIAN_OF(region[r].ms);
#undef MEDIAN_OF
  printf("%-30s %6u %4u %7u %7u %7u %4u %8.3f %8.3f %-10s %6.2g %10.3f %10.3f %10.3f %7.3f %7.3f %7.3f%s\n", name, f.prims,
         f.regions, f.cands, f.vars, f.rows, f.cuts, f.solve_s, f.max_region_s, f.all_optimal ? "optimal" : "not-proven",
         f.gap, f.unfused, f.greedy, f.optimal, f.optimal > 0 ? f.unfused / f.optimal : 0,
         f.optimal > 0 ? f.greedy / f.optimal : 0, f.total_s, deterministic ? "" : " NONDETERMINISTIC");
  if (regions)
    for (unsigned r = 0; r < f.num_region_figs; r++) {
      const region_fig *rf = &f.region[r];
      printf("  region %-3u prims %4u cands %7s vars %6u rows %6u cuts %3u solve-ms %9.1f %-11s gap %.2g\n", r,
             rf->prims, rf->cands, rf->vars, rf->rows, rf->cuts, rf->ms, rf->status, rf->gap);
    }
  fflush(stdout);
  total->prims += f.prims;
  total->regions += f.regions;
  total->cands += f.cands;
  total->unfused += f.unfused;
  total->greedy += f.greedy;
  total->optimal += f.optimal;
  free(runs);
  free(v);
  return true;
}

int main(int argc, char **argv) {
  const char *pipeline = DEFAULT_PIPELINE, *dir = KORCH_BENCH_MODELS, *extra = "";
  bool verbose = false, regions = false;
  unsigned repeat = 1;
  char **files = calloc((size_t)argc + 1, sizeof *files);
  unsigned nfiles = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (kr_tool_flag_value(argc, argv, &i, "--pipeline", &v) && v)
      pipeline = v;
    else if (kr_tool_flag_value(argc, argv, &i, "--models", &v) && v)
      dir = v;
    else if (kr_tool_flag_value(argc, argv, &i, "--options", &v) && v)
      extra = v;
    else if (kr_tool_flag_value(argc, argv, &i, "--repeat", &v) && v)
      repeat = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--regions"))
      regions = true;
    else if (!strcmp(a, "-v"))
      verbose = true;
    else if (a[0] == '-') {
      fprintf(stderr,
              "usage: bench_orchestrate [--pipeline STR] [--models DIR] [--options STR] [--repeat N] [--regions] [-v]\n"
              "                         [FILE.onnx ...]\n"
              "  --pipeline STR  the pipeline before orchestrate (default %s)\n"
              "  --models DIR    the models when no file is given (default %s)\n"
              "  --options STR   more orchestrate options, e.g. 'max-region=64 time-limit=1'\n"
              "  --repeat N      run every model N times; times are the medians (default 1)\n"
              "  --regions       also print one line per region (vars, rows, cuts, solve time, status, gap)\n"
              "  -v              print every diagnostic to stderr\n",
              DEFAULT_PIPELINE, KORCH_BENCH_MODELS);
      bench_free_models(files, nfiles);
      return !strcmp(a, "-h") || !strcmp(a, "--help") ? 0 : 2;
    } else
      files[nfiles++] = strdup(a);
  }
  if (repeat == 0 || repeat > 1000) {
    fprintf(stderr, "bench_orchestrate: --repeat wants 1..1000\n");
    bench_free_models(files, nfiles);
    return 2;
  }
  if (!(files = bench_models(files, &nfiles, dir))) return 77;
  char tmp[64];
  snprintf(tmp, sizeof tmp, "/tmp/bench_orchestrate.%ld.txt", (long)getpid());
  printf("orchestration benchmark: pipeline '%s,orchestrate%s%s'; costs are the modelled kernel times (us) of "
         "the target; x-unf / x-grd = modelled speedup of the optimal plan; total-s = import through orchestration%s\n",
         pipeline, extra[0] ? " " : "", extra, repeat > 1 ? "; times are medians of the runs" : "");
  print_header();
  figures total;
  memset(&total, 0, sizeof total);
  unsigned failed = 0;
  for (unsigned i = 0; i < nfiles; i++)
    if (!bench(files[i], pipeline, extra, verbose, repeat, regions, tmp, &total)) failed++;
  printf("%u of %u models orchestrated; modelled total: unfused %.3f us, greedy %.3f us, optimal %.3f us\n",
         nfiles - failed, nfiles, total.unfused, total.greedy, total.optimal);
  bench_free_models(files, nfiles);
  return failed ? 1 : 0;
}
