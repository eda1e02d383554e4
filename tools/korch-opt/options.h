/* tools/korch-opt/options.h - korch-opt's command line (spellings after mlir-opt's). */
#ifndef KORCH_TOOLS_KORCH_OPT_OPTIONS_H
#define KORCH_TOOLS_KORCH_OPT_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "korch/adt.h"
#include "korch/ir.h"

/* A pass given as its own flag (`-cse`, `--canonicalize=max-iterations=4`), in command-line order.
 * Whether `name` is a registered pass is checked once the passes are registered. */
typedef struct kr_opt_pass_flag {
  const char *name;      /* malloc'd, without dashes */
  const char *options;   /* malloc'd option string ("max-iterations=4 top-down=false"), or NULL */
  const char *spelling;  /* the argument as written, for error messages (not owned) */
} kr_opt_pass_flag;

typedef struct kr_opt_options {
  const char *input;             /* "-" is standard input */
  const char *output;            /* "-" is standard output */
  bool allow_unregistered;
  bool split_input;
  const char *split_marker;      /* KR_TOOL_SPLIT_MARKER unless --split-input-file=MARKER */
  bool verify_diagnostics;
  bool verify_each;              /* default true */
  const char *pass_pipeline;     /* NULL: none */
  kr_vec pass_flags;             /* kr_opt_pass_flag */
  bool print_ir_after_all;
  bool print_ir_after_change;
  kr_vec print_ir_after;         /* const char * (malloc'd pass names) */
  bool timing;
  bool print_op_generic;
  bool print_debuginfo;
  kr_vec plugins;                /* const char * (argv strings, not owned) */
  bool dump_pass_pipeline;
  /* --verify-numerics: interpret every function before and after the pipeline on the same random
   * inputs and fail when outputs differ (tools/support/numerics.h). */
  bool verify_numerics;
  double numerics_rtol;          /* default 1e-4 */
  double numerics_atol;          /* default 1e-5 */
  uint64_t numerics_seed;        /* default 1 */
  unsigned numerics_trials;      /* default 1 */
  bool help;
  bool version;
} kr_opt_options;

/* Parses argv into `o` (which it initialises).  Prints `korch-opt: <problem>` to stderr and returns
 * KR_FAILURE on a malformed option (a missing value, a bad boolean, two inputs). */
kr_status kr_opt_parse_args(kr_opt_options *o, int argc, char **argv);
void kr_opt_options_free(kr_opt_options *o);

/* Writes the --help text: overview, usage, the tool's own options, then every pass registered in
 * `ctx` with its summary and options (mlir-opt's "Compiler passes to run" group). */
void kr_opt_print_help(FILE *f, kr_context *ctx);

#endif
