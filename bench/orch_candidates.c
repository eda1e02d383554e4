/* bench/orch_candidates.c - candidate enumeration (issue 5, "Benchmarks in bench/: candidate
 * count ... per model"; passes/orchestrate/orch.h) on whole networks.
 *
 *   orch_candidates [--max-size N] [--max-region N] [--max-candidates N] [--models DIR] [-v] [FILE.onnx ...]
 *
 * For each model (the FILE.onnx given, else every *.onnx of DIR, default ../shared/models, in
 * name order): import it, run the standard prim pipeline (op-to-prim, canonicalize,
 * prim-normalize-after-matmul, prim-reduce-as-matvec, canonicalize, cse), build the prim graph
 * of every function (kr_orch_graph_build) and enumerate the candidates of every region
 * (kr_orch_enumerate), then cost them on the built-in h200 target (kr_orch_cost, no profile
 * database; only to time it).  One row per model:
 *   model | nodes | regions | largest region | candidates | most in a region | capped regions |
 *   enumerate ms (all regions) | slowest region ms | cost ms
 * Exit status: 0 when every model went through, 1 otherwise, 2 on a usage error, 77 when the
 * model folder is absent and no file is given. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "korch/korch.h"
#include "korch/onnx.h"
#include "passes/orchestrate/orch.h"

#ifndef KORCH_BENCH_MODELS
#define KORCH_BENCH_MODELS "../shared/models"
#endif
#define PIPELINE "op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

typedef struct row {
  unsigned nodes, regions, largest, capped;
  size_t cands, most;
  double enum_ms, slowest_ms, cost_ms;
} row;

static bool run_func(kr_op *func, const kr_orch_options *o, row *r) {
  kr_orch_graph g;
  if (KR_FAILED(kr_orch_graph_build(func, o->max_region, &g))) return false;
  /* The built-in h200 target; H200 figures by hand when it cannot be loaded (only times the model). */
  kr_target t = {.name = "h200", .dram_bandwidth_gbs = 4800, .peak_fp32_tflops = 66.9, .peak_tf32_tflops = 494.7,
                 .peak_fp16_tflops = 989.4, .launch_overhead_us = 3};
  kr_context *ctx = kr_op_context(func);
  kr_target loaded;
  if (!KR_FAILED(kr_target_load(ctx, "h200", kr_loc_unknown(ctx), &loaded))) t = loaded;
  kr_cost_model m = {.target = &t};
  r->nodes += g.num_nodes;
  r->regions += g.num_regions;
  bool ok = true;
  kr_vec v = {0};
  for (unsigned i = 0; i < g.num_regions && ok; i++) {
    if (g.regions[i].n > r->largest) r->largest = g.regions[i].n;
    bool trunc = false;
    v.len = 0;
    double t0 = now_ms();
    ok = !KR_FAILED(kr_orch_enumerate(&g, i, o, &v, &trunc));
    double dt = now_ms() - t0;
    r->enum_ms += dt;
    if (dt > r->slowest_ms) r->slowest_ms = dt;
    r->cands += v.len;
    if (v.len > r->most) r->most = v.len;
    r->capped += trunc;
    t0 = now_ms();
    for (size_t k = 0; k < v.len; k++) kr_orch_cost(&g, &KR_VEC_AT(&v, kr_candidate, k), &m);
    r->cost_ms += now_ms() - t0;
  }
  kr_vec_free(&v);
  kr_orch_graph_free(&g);
  return ok;
}

static bool report(const char *path, const kr_orch_options *o, bool verbose) {
  kr_context *ctx = kr_context_create();
  if (verbose) kr_context_set_diag_handler(ctx, kr_diag_print_handler, NULL);
  char name[64];
  snprintf(name, sizeof name, "%s", base_name(path));
  size_t nl = strlen(name);
  if (nl > 5 && !strcmp(name + nl - 5, ".onnx")) name[nl - 5] = 0;
  bool ok = false;
  kr_pass_manager *pm = NULL;
  kr_op *module = NULL;
  row r = {0};
  if (KR_FAILED(kr_register_core_dialects(ctx)) || KR_FAILED(kr_register_core_passes(ctx))) goto done;
  module = kr_onnx_import_file(ctx, path, NULL);
  if (!module) goto done;
  pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  if (!pm || KR_FAILED(kr_pass_manager_parse_pipeline(pm, PIPELINE)) || KR_FAILED(kr_pass_manager_run(pm, module)))
    goto done;
  ok = true;
  for (kr_op *op = module->regions[0].first->first; op && ok; op = op->next)
    if (!strcmp(op->name, "func.func")) ok = run_func(op, o, &r);
done:
  if (ok)
    printf("%-30s %6u %7u %7u %10zu %9zu %6u %10.1f %9.1f %8.1f\n", name, r.nodes, r.regions, r.largest, r.cands,
           r.most, r.capped, r.enum_ms, r.slowest_ms, r.cost_ms);
  else
    printf("%-30s FAILED (-v shows the diagnostics)\n", name);
  fflush(stdout);
  if (pm) kr_pass_manager_destroy(pm);
  kr_context_destroy(ctx);
  return ok;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char **list_models(const char *dir, unsigned *n) {
  DIR *d = opendir(dir);
  *n = 0;
  if (!d) return NULL;
  unsigned cap = 16;
  char **v = malloc(cap * sizeof *v);
  for (struct dirent *e; v && (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (l <= 5 || strcmp(e->d_name + l - 5, ".onnx")) continue;
    if (*n == cap) {
      char **nv = realloc(v, (cap *= 2) * sizeof *v);
      if (!nv) break;
      v = nv;
    }
    size_t pl = strlen(dir) + l + 2;
    if (!(v[*n] = malloc(pl))) break;
    snprintf(v[*n], pl, "%s/%s", dir, e->d_name);
    (*n)++;
  }
  closedir(d);
  if (v) qsort(v, *n, sizeof *v, cmp_str);
  return v;
}

int main(int argc, char **argv) {
  kr_orch_options o = {.max_size = 16, .max_region = 128, .max_candidates = 20000};
  const char *dir = KORCH_BENCH_MODELS;
  bool verbose = false;
  char **files = calloc((size_t)argc + 1, sizeof *files);
  unsigned nfiles = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--max-size") && i + 1 < argc) o.max_size = (unsigned)atoi(argv[++i]);
    else if (!strcmp(a, "--max-region") && i + 1 < argc) o.max_region = (unsigned)atoi(argv[++i]);
    else if (!strcmp(a, "--max-candidates") && i + 1 < argc) o.max_candidates = (unsigned)atoi(argv[++i]);
    else if (!strcmp(a, "--models") && i + 1 < argc) dir = argv[++i];
    else if (!strcmp(a, "-v")) verbose = true;
    else if (a[0] == '-') {
      fprintf(stderr, "usage: orch_candidates [--max-size N] [--max-region N] [--max-candidates N] [--models DIR] [-v] "
                      "[FILE.onnx ...]\n");
      for (unsigned k = 0; k < nfiles; k++) free(files[k]);
      free(files);
      return !strcmp(a, "-h") || !strcmp(a, "--help") ? 0 : 2;
    } else
      files[nfiles++] = strdup(a);
  }
  if (!nfiles) {
    free(files);
    files = list_models(dir, &nfiles);
    if (!files) {
      printf("SKIP: no model folder %s\n", dir);
      return 77;
    }
  }
  printf("candidate enumeration: max-size %u, max-region %u, max-candidates %u (pipeline %s)\n", o.max_size,
         o.max_region, o.max_candidates, PIPELINE);
  printf("%-30s %6s %7s %7s %10s %9s %6s %10s %9s %8s\n", "model", "nodes", "regions", "largest", "candidates",
         "most/reg", "capped", "enum ms", "max ms", "cost ms");
  unsigned failed = 0;
  for (unsigned i = 0; i < nfiles; i++) failed += !report(files[i], &o, verbose);
  for (unsigned i = 0; i < nfiles; i++) free(files[i]);
  free(files);
  return failed ? 1 : 0;
}
