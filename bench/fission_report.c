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
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "korch/korch.h"
#include "korch/onnx.h"
#include "korch/prim.h"

#ifndef KORCH_BENCH_MODELS
#define KORCH_BENCH_MODELS "../shared/models"
#endif
#define DEFAULT_PIPELINE "op-to-prim,canonicalize"

typedef struct counts {
  unsigned ops;                          /* op-level, without op.constant / op.none */
  unsigned op_constants;
  unsigned prims[KR_PRIM_NUM_CLASSES];   /* by class, constants included */
  unsigned op_left;                      /* op.* after the pipeline */
} counts;

typedef struct capture {
  kr_ostream os;
  bool verbose;
} capture;

static void capture_handler(const kr_diagnostic *d, void *user) {
  capture *c = user;
  kr_diag_print(&c->os, d);
  if (c->verbose) kr_diag_print_handler(d, stderr);
}

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

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The first line of the captured diagnostics. */
static void first_line(capture *c, char *out, size_t cap) {
  const char *s = c->os.len ? kr_ostream_str(&c->os) : "failed without a diagnostic";
  if (!strncmp(s, "<unknown>:0: ", 13)) s += 13;
  size_t n = strcspn(s, "\n");
  if (n >= cap) n = cap - 1;
  memcpy(out, s, n);
  out[n] = 0;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static void print_header(void) {
  printf("%-32s %6s %6s %11s %9s %6s %6s %9s %7s %9s\n", "model", "ops", "prims", "elementwise", "reduction", "layout",
         "linear", "constants", "op left", "ms");
}

/* One model: prints its row; returns whether it was lowered completely. */
static bool report(const char *path, const char *pipeline, bool verbose, counts *total) {
  kr_context *ctx = kr_context_create();
  capture cap = {.verbose = verbose};
  kr_ostream_init_mem(&cap.os);
  kr_context_set_diag_handler(ctx, capture_handler, &cap);
  char name[64];
  snprintf(name, sizeof name, "%s", base_name(path));
  size_t nl = strlen(name);
  if (nl > 5 && !strcmp(name + nl - 5, ".onnx")) name[nl - 5] = 0;
  bool ok = false;
  char why[512];
  counts before = {0}, after = {0};
  kr_pass_manager *pm = NULL;
  kr_op *module = NULL;
  if (KR_FAILED(kr_register_core_dialects(ctx)) || KR_FAILED(kr_register_core_passes(ctx))) goto fail;
  module = kr_onnx_import_file(ctx, path, NULL);
  if (!module) goto fail;
  kr_op_walk(module, KR_WALK_PRE_ORDER, count_op, &before);
  pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  if (!pm || KR_FAILED(kr_pass_manager_parse_pipeline(pm, pipeline))) goto fail;
  kr_pass_manager_set_verify_each(pm, true);
  double t0 = now_ms();
  kr_status st = kr_pass_manager_run(pm, module);
  double ms = now_ms() - t0;
  if (KR_FAILED(st)) goto fail;
  kr_op_walk(module, KR_WALK_PRE_ORDER, count_op, &after);
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
fail:
  first_line(&cap, why, sizeof why);
  printf("%-32s FAILED: %s\n", name, why);
done:
  fflush(stdout);
  if (pm) kr_pass_manager_destroy(pm);
  kr_context_destroy(ctx);
  kr_ostream_close(&cap.os);
  return ok;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The *.onnx files of `dir`, sorted (malloc'd paths); NULL when the folder cannot be read. */
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
    v[*n] = malloc(pl);
    if (!v[*n]) break;
    snprintf(v[*n], pl, "%s/%s", dir, e->d_name);
    (*n)++;
  }
  closedir(d);
  if (v) qsort(v, *n, sizeof *v, cmp_str);
  return v;
}

int main(int argc, char **argv) {
  const char *pipeline = DEFAULT_PIPELINE, *dir = KORCH_BENCH_MODELS;
  bool verbose = false;
  char **files = calloc((size_t)argc + 1, sizeof *files);
  unsigned nfiles = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--pipeline") && i + 1 < argc)
      pipeline = argv[++i];
    else if (!strncmp(a, "--pipeline=", 11))
      pipeline = a + 11;
    else if (!strcmp(a, "--models") && i + 1 < argc)
      dir = argv[++i];
    else if (!strncmp(a, "--models=", 9))
      dir = a + 9;
    else if (!strcmp(a, "-v"))
      verbose = true;
    else if (a[0] == '-') {
      fprintf(stderr,
              "usage: fission_report [--pipeline STR] [--models DIR] [-v] [FILE.onnx ...]\n"
              "  --pipeline STR  the pass pipeline (default %s)\n"
              "  --models DIR    the models to report when no file is given (default %s)\n"
              "  -v              print every diagnostic to stderr\n",
              DEFAULT_PIPELINE, KORCH_BENCH_MODELS);
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
  for (unsigned i = 0; i < nfiles; i++) free(files[i]);
  free(files);
  return failed ? 1 : 0;
}
