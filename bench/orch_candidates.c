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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_models.h"
#include "korch/korch.h"
#include "passes/orchestrate/orch.h"

#define PIPELINE "op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse"

static double now_ms(void) { return bench_now_s() * 1e3; }

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
  char name[64];
  bench_model_name(path, name, sizeof name);
  bool ok = false;
  row r = {0};
  bench_model b;
  if (!bench_model_open(&b, path, verbose) || !bench_model_run(&b, PIPELINE)) goto done;
  ok = true;
  for (kr_op *op = b.module->regions[0].first->first; op && ok; op = op->next)
    if (!strcmp(op->name, "func.func")) ok = run_func(op, o, &r);
done:
  if (ok)
    printf("%-30s %6u %7u %7u %10zu %9zu %6u %10.1f %9.1f %8.1f\n", name, r.nodes, r.regions, r.largest, r.cands,
           r.most, r.capped, r.enum_ms, r.slowest_ms, r.cost_ms);
  else
    printf("%-30s FAILED (-v shows the diagnostics)\n", name);
  fflush(stdout);
  bench_model_close(&b);
  return ok;
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
      bench_free_models(files, nfiles);
      return !strcmp(a, "-h") || !strcmp(a, "--help") ? 0 : 2;
    } else
      files[nfiles++] = strdup(a);
  }
  if (!(files = bench_models(files, &nfiles, dir))) return 77;
  printf("candidate enumeration: max-size %u, max-region %u, max-candidates %u (pipeline %s)\n", o.max_size,
         o.max_region, o.max_candidates, PIPELINE);
  printf("%-30s %6s %7s %7s %10s %9s %6s %10s %9s %8s\n", "model", "nodes", "regions", "largest", "candidates",
         "most/reg", "capped", "enum ms", "max ms", "cost ms");
  unsigned failed = 0;
  for (unsigned i = 0; i < nfiles; i++) failed += !report(files[i], &o, verbose);
  bench_free_models(files, nfiles);
  return failed ? 1 : 0;
}
