/* bench/fission_report.c - what operator fission does to whole networks (issue 4, "a report
 * prints, per shared model, the number of ops before and the number of primitives after fission,
 * by class").
 *
 *   fission_report [--pipeline STR] [--models DIR] [-v] [FILE.onnx ...]
 *
 * For each model (the FILE.onnx given, else every *.onnx of DIR, default ../shared/models, in
 * name order): import it (kr_onnx_import_file, no bindings: the shared models are static), count
 * the op-level ops other than op.constant / op.none ("ops"), run the pipeline (default
 * `op-to-prim,canonicalize`, the standard prim pipeline) through the pass manager with the
 * verifier after each pass, and count the primitives by orchestration class (kr_prim_op_class,
 * korch/prim.h).  One table row per model:
 *   model | ops | prims | elementwise | reduction | layout | linear | constants | op left | ms
 * where prims = elementwise + reduction + layout + linear (constants, i.e. prim.constant, are
 * counted apart, as op.constant is on the op side), `op left` counts op.* ops the pipeline left
 * (0 after a complete fission) and ms is the pipeline's wall time (import excluded).  A model
 * whose import or pipeline fails gets a row with the first diagnostic instead (-v: all of them,
 * on stderr).
 * Exit status: 0 when every model was imported and lowered with no op left, 1 otherwise, 2 on a
 * usage error, 77 when the model folder is absent and no file is given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_models.h"
#include "korch/korch.h"
#include "korch/prim.h"

#define DEFAULT_PIPELINE "op-to-prim,canonicalize"

typedef struct counts {
  unsigned ops;                          /* op-level, without op.constant / op.none */
  unsigned op_constants;
  unsigned prims[KR_PRIM_NUM_CLASSES];   /* by class, constants included */
  unsigned op_left;                      /* op.* after the pipeline */
} counts;

static kr_walk_result count_op(kr_op *op, void *user) {
  counts *c = user;
  if (!strncmp(op->name, "op.", 3)) {
    if (!strcmp(op->name, "op.constant") || !strcmp(op->name, "op.none"))
      c->op_constants++;
    else
      c->ops++;
    return KR_WALK_ADVANCE;
  }
  kr_prim_class k = kr_prim_op_class(op);
  if (k != KR_PRIM_NOT_PRIM) c->prims[k]++;
  return KR_WALK_ADVANCE;
}

static void print_header(void) {
  printf("%-32s %6s %6s %11s %9s %6s %6s %9s %7s %9s\n", "model", "ops", "prims", "elementwise", "reduction", "layout",
         "linear", "constants", "op left", "ms");
}

/* One model: prints its row; returns whether it was lowered completely. */
static bool report(const char *path, const char *pipeline, bool verbose, counts *total) {
  char name[64];
  bench_model_name(path, name, sizeof name);
  bool ok = false;
  char why[512];
  counts before = {0}, after = {0};
  bench_model b;
  if (!bench_model_open(&b, path, verbose)) goto fail;
  kr_op_walk(b.module, KR_WALK_PRE_ORDER, count_op, &before);
  if (!bench_model_run(&b, pipeline)) goto fail;
  double ms = b.pipeline_s * 1e3;
  kr_op_walk(b.module, KR_WALK_PRE_ORDER, count_op, &after);
  unsigned prims = 0;
  for (int k = 0; k < KR_PRIM_NUM_CLASSES; k++)
    if (k != KR_PRIM_CONSTANT) prims += after.prims[k];
  unsigned left = after.ops + after.op_constants;
  printf("%-32s %6u %6u %11u %9u %6u %6u %9u %7u %9.1f\n", name, before.ops, prims, after.prims[KR_PRIM_ELEMENTWISE],
         after.prims[KR_PRIM_REDUCTION], after.prims[KR_PRIM_LAYOUT], after.prims[KR_PRIM_LINEAR],
         after.prims[KR_PRIM_CONSTANT], left, ms);
  total->ops += before.ops;
  for (int k = 0; k < KR_PRIM_NUM_CLASSES; k++) total->prims[k] += after.prims[k];
  total->op_left += left;
  ok = left == 0;
  goto done;
fail:;
  bench_model_failure(&b, why, sizeof why);
  printf("%-32s FAILED: %s\n", name, why);
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
  char **files =
      bench_table_args(argc, argv, "fission_report", "the pass pipeline", &pipeline, &dir, &verbose, &nfiles, &status);
  if (!files) return status;
  if (!(files = bench_models(files, &nfiles, dir))) return 77;
  printf("fission report: pipeline '%s'; ops = op-level ops without op.constant/op.none, prims = "
         "elementwise + reduction + layout + linear\n",
         pipeline);
  print_header();
  counts total = {0};
  unsigned failed = 0;
  for (unsigned i = 0; i < nfiles; i++)
    if (!report(files[i], pipeline, verbose, &total)) failed++;
  unsigned prims = 0;
  for (int k = 0; k < KR_PRIM_NUM_CLASSES; k++)
    if (k != KR_PRIM_CONSTANT) prims += total.prims[k];
  printf("%-32s %6u %6u %11u %9u %6u %6u %9u %7u\n", "total", total.ops, prims,
         total.prims[KR_PRIM_ELEMENTWISE], total.prims[KR_PRIM_REDUCTION], total.prims[KR_PRIM_LAYOUT],
         total.prims[KR_PRIM_LINEAR], total.prims[KR_PRIM_CONSTANT], total.op_left);
  printf("%u of %u models lowered completely\n", nfiles - failed, nfiles);
  bench_free_models(files, nfiles);
  return failed ? 1 : 0;
}
