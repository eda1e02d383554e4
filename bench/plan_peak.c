/* bench/plan_peak.c - what the memory plan (passes/plan, docs/MemoryPlan.md) saves on whole
 * networks (issue 7: "the arena peak <= 0.5x the no-reuse total on the CNNs").
 *
 *   plan_peak [--pipeline STR] [--models DIR] [-v] [FILE.onnx ...]
 *
 * For each model (the FILE.onnx given, else every *.onnx of DIR, default ../shared/models, in
 * name order): import it, run the pipeline (default: the standard scheduled pipeline, then
 * plan-buffers), read the plan of each host function back (kr_plan_read, which checks it) and
 * print one row:
 *   model | buffers | launches | arena | no-reuse | ratio | live peak | arena/live | weights | ms
 * buffers = inputs + launch results (the arena's tensors); arena = korch.arena_bytes (the plan's
 * peak); no-reuse = korch.no_reuse_bytes (every tensor its own aligned range); ratio =
 * arena / no-reuse; live peak = the most bytes (unaligned) live at any one launch, a lower bound
 * no plan can beat, so arena/live says how far the greedy planner is from optimal; weights =
 * korch.weights_bytes; ms = the pipeline's wall time.  Sizes in KiB.
 * Exit status: 0 when every model was planned, 1 otherwise, 2 on a usage error, 77 when the
 * model folder is absent and no file is given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_models.h"
#include "korch/kernel.h"
#include "korch/korch.h"
#include "korch/plan.h"

#define DEFAULT_PIPELINE                                                                                              \
  "op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse,orchestrate,schedule," \
  "lower-task-mappings,plan-buffers"

typedef struct figures {
  uint64_t arena, no_reuse, weights, live_peak;
  unsigned buffers, launches;
} figures;

static uint64_t value_bytes(kr_value v) {
  kr_type t = kr_value_type(v);
  int64_t n = kr_type_num_elements(t);
  return n > 0 ? (uint64_t)n * kr_type_storage_bytes(kr_type_element(t)) : 0;
}

/* Position of `op` in its block (ops[] by position). */
static int64_t pos_of(kr_op **ops, unsigned n, kr_op *op) {
  for (unsigned i = 0; i < n; i++)
    if (ops[i] == op) return i;
  return -1;
}

/* The most bytes live at one time point of host function `func` (the lifetimes of korch/plan.h:
 * an argument from the upload, a launch result from its launch, each until its last use). */
static uint64_t live_peak(kr_op *func) {
  kr_block *b = kr_op_region(func, 0)->first;
  unsigned n = (unsigned)kr_block_num_ops(b), k = 0;
  kr_op **ops = malloc(sizeof(kr_op *) * (n ? n : 1));
  for (kr_op *o = b->first; o; o = o->next) ops[k++] = o;
  int64_t *delta = calloc((size_t)n + 2, sizeof(int64_t)); /* time t at index t + 1 */
  for (unsigned i = 0; i < b->num_args + n; i++) {
    kr_value v;
    int64_t start;
    if (i < b->num_args) {
      v = b->args[i];
      start = -1;
    } else {
      kr_op *o = ops[i - b->num_args];
      if (strcmp(o->name, KR_KERNEL_LAUNCH_OP)) continue;
      for (unsigned r = 0; r < o->num_results; r++) {
        v = kr_op_result(o, r);
        int64_t end = i - b->num_args;
        for (kr_use *u = v->first_use; u; u = u->next) {
          int64_t t = pos_of(ops, n, u->owner);
          if (t > end) end = t;
        }
        delta[i - b->num_args + 1] += (int64_t)value_bytes(v);
        delta[end + 2] -= (int64_t)value_bytes(v);
      }
      continue;
    }
    int64_t end = start;
    for (kr_use *u = v->first_use; u; u = u->next) {
      int64_t t = pos_of(ops, n, u->owner);
      if (t > end) end = t;
    }
    delta[start + 1] += (int64_t)value_bytes(v);
    delta[end + 2] -= (int64_t)value_bytes(v);
  }
  int64_t cur = 0, peak = 0;
  for (unsigned t = 0; t <= n; t++) {
    cur += delta[t];
    if (cur > peak) peak = cur;
  }
  free(ops);
  free(delta);
  return (uint64_t)peak;
}

/* One model: prints its row; returns whether it was planned. */
static bool report(const char *path, const char *pipeline, bool verbose, double *worst_cnn_ratio) {
  char name[64], why[512];
  bench_model_name(path, name, sizeof name);
  bool ok = false;
  bench_model b;
  if (!bench_model_open(&b, path, verbose) || !bench_model_run(&b, pipeline)) goto fail;
  figures f = {0};
  unsigned planned = 0;
  kr_block *mb = b.module->regions[0].first;
  for (kr_op *op = mb ? mb->first : NULL; op; op = op->next) {
    if (strcmp(op->name, "func.func") || !kr_plan_is_planned(op)) continue;
    kr_arena a = {0};
    kr_plan p;
    if (KR_FAILED(kr_plan_read(op, &a, &p))) {
      kr_arena_release(&a);
      goto fail;
    }
    planned++;
    f.arena += p.arena_bytes;
    f.no_reuse += p.no_reuse_bytes;
    f.weights += p.weights_bytes;
    f.launches += p.num_launches;
    f.buffers += p.num_inputs;
    for (unsigned l = 0; l < p.num_launches; l++) f.buffers += p.launches[l].op->num_results;
    f.live_peak += live_peak(op);
    kr_arena_release(&a);
  }
  if (!planned) {
    printf("%-28s FAILED: no planned host function after the pipeline\n", name);
    goto done;
  }
  double ratio = f.no_reuse ? (double)f.arena / (double)f.no_reuse : 0;
  printf("%-28s %7u %8u %10.1f %10.1f %6.3f %10.1f %10.3f %10.1f %8.0f\n", name, f.buffers, f.launches,
         f.arena / 1024.0, f.no_reuse / 1024.0, ratio, f.live_peak / 1024.0,
         f.live_peak ? (double)f.arena / (double)f.live_peak : 0, f.weights / 1024.0, b.pipeline_s * 1e3);
  static const char *const cnns[] = {"mobilenet_v2", "yolo_like", "style_transfer_candy", "efficientvit_like",
                                     "segformer_like"};
  for (size_t i = 0; i < sizeof cnns / sizeof *cnns; i++)
    if (!strncmp(name, cnns[i], strlen(cnns[i])) && ratio > *worst_cnn_ratio) *worst_cnn_ratio = ratio;
  ok = true;
  goto done;
fail:;
  bench_model_failure(&b, why, sizeof why);
  printf("%-28s FAILED: %s\n", name, why);
done:
  fflush(stdout);
  bench_model_close(&b);
  return ok;
}

int main(int argc, char **argv) {
  const char *pipeline = DEFAULT_PIPELINE, *dir = KORCH_BENCH_MODELS;
  bool verbose = false;
  unsigned nfiles;
  int status;
  char **files = bench_table_args(argc, argv, "plan_peak", "the pass pipeline, ending in plan-buffers", &pipeline, &dir,
                                  &verbose, &nfiles, &status);
  if (!files) return status;
  if (!(files = bench_models(files, &nfiles, dir))) return 77;
  printf("memory plan peak: pipeline '%s'; sizes in KiB; ratio = arena / no-reuse; live = the most bytes live "
         "at one launch (a lower bound)\n",
         pipeline);
  printf("%-28s %7s %8s %10s %10s %6s %10s %10s %10s %8s\n", "model", "buffers", "launches", "arena", "no-reuse",
         "ratio", "live peak", "arena/live", "weights", "ms");
  unsigned failed = 0;
  double worst = 0;
  for (unsigned i = 0; i < nfiles; i++)
    if (!report(files[i], pipeline, verbose, &worst)) failed++;
  if (worst > 0) printf("worst arena / no-reuse ratio on the CNNs: %.3f (goal <= 0.5)\n", worst);
  printf("%u of %u models planned\n", nfiles - failed, nfiles);
  bench_free_models(files, nfiles);
  return failed ? 1 : 0;
}
