/* bench/bench_models.h - what the whole-network benchmarks (fission_report, orch_candidates,
 * bench_orchestrate) share: the models to run (the files given, else every *.onnx of a folder,
 * default ../shared/models), and one model's ONNX import and pass pipeline in a fresh context
 * whose diagnostics are captured.  Bench code: it prints (the SKIP line), the library does not. */
#ifndef KORCH_BENCH_MODELS_H
#define KORCH_BENCH_MODELS_H

#include <stdbool.h>
#include <stddef.h>

#include "korch/korch.h"

#ifndef KORCH_BENCH_MODELS
#define KORCH_BENCH_MODELS "../shared/models"
#endif

/* The command line of the table benchmarks (fission_report, plan_peak):
 *   PROG [--pipeline STR] [--models DIR] [-v] [FILE.onnx ...]
 * *pipeline and *dir hold the defaults on entry and get the values given.  Returns the files named
 * (malloc'd strings in a malloc'd array, *n of them: bench_models' `given`), or NULL after printing
 * the usage to stderr (`pipeline_help` describes --pipeline), with *status 0 for -h/--help and 2
 * for another option (1 when out of memory). */
char **bench_table_args(int argc, char **argv, const char *prog, const char *pipeline_help, const char **pipeline,
                        const char **dir, bool *verbose, unsigned *n, int *status);

/* The models to run.  `given` holds the *n paths named on the command line (malloc'd strings in a
 * malloc'd array, taken over); when *n is 0 it is freed and replaced by the *.onnx files of `dir`
 * (malloc'd "dir/file" paths), sorted by name.  Returns NULL when *n is 0 and `dir` cannot be read,
 * after printing "SKIP: no model folder DIR" on stdout (the benchmarks then exit 77).  Free the
 * result with bench_free_models. */
char **bench_models(char **given, unsigned *n, const char *dir);
void bench_free_models(char **files, unsigned n);

/* `path` without its folder and its .onnx suffix (the table's model column), into name[cap]. */
void bench_model_name(const char *path, char *name, size_t cap);

/* Seconds on the monotonic clock. */
double bench_now_s(void);

/* One model in its own context.  Every diagnostic is printed (kr_diag_print) into `diags`, and
 * with `verbose` also to stderr.  The context's handler points at the struct: it stays where it
 * is from bench_model_open to bench_model_close. */
typedef struct bench_model {
  kr_context *ctx;         /* owned; core dialects and passes registered */
  kr_op *module;           /* the imported module (owned by ctx); NULL when the import failed */
  kr_pass_manager *pm;     /* the last bench_model_run's pass manager, or NULL */
  kr_ostream diags;        /* the captured diagnostics (an in-memory stream) */
  bool verbose;
  double import_start_s;   /* bench_now_s() when the import started */
  double pipeline_s;       /* wall time of the last bench_model_run's kr_pass_manager_run */
} bench_model;

/* Creates b's context, registers the core dialects and passes and imports `path`
 * (kr_onnx_import_file, no input bindings: the shared models are static).  Returns false when a
 * step failed (b->diags says why); b must be closed with bench_model_close either way. */
bool bench_model_open(bench_model *b, const char *path, bool verbose);

/* Parses `pipeline` (the pass manager's textual form, anchored on builtin.module) and runs it on
 * b->module with the verifier after each pass (the pass manager's default); b->pipeline_s is the
 * time of the run alone.  Returns false when parsing or a pass failed (b->diags says why). */
bool bench_model_run(bench_model *b, const char *pipeline);

/* Destroys b's pass manager and context and frees the captured diagnostics. */
void bench_model_close(bench_model *b);

/* The captured diagnostics as text, or "failed without a diagnostic" when there are none. */
const char *bench_model_diags(bench_model *b);

/* Copies the first line of `s` (without its newline) into out[cap], truncated to cap - 1. */
void bench_first_line(const char *s, char *out, size_t cap);

/* Why b failed, for a table's FAILED column: the first line of bench_model_diags without the
 * "<unknown>:0: " of a diagnostic that has no location, into why[cap]. */
void bench_model_failure(bench_model *b, char *why, size_t cap);

#endif
