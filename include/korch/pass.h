/* korch/pass.h - passes and the pass manager (after MLIR's PassManagement.md).
 *
 * A pass is a registered kr_pass_def: a name (its pipeline/flag spelling), an options table, and
 * a run function applied to one op.  A pass manager is anchored on an op name and holds passes
 * and nested pass managers; nesting is allowed on ops with KR_TRAIT_ISOLATED_FROM_ABOVE.
 * Pipelines are text: `builtin.module(func.func(cse,canonicalize{max-iterations=4}))`. */
#ifndef KORCH_PASS_H
#define KORCH_PASS_H

#include <stdio.h>
#include "korch/ir.h"
#include "korch/ostream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kr_option_kind { KR_OPT_BOOL, KR_OPT_INT, KR_OPT_UINT, KR_OPT_DOUBLE, KR_OPT_STRING } kr_option_kind;

/* One pass option, stored at `offset` in the pass's options struct (bool, int64_t, uint64_t,
 * double, or const char * interned in the context). */
typedef struct kr_pass_option {
  const char *name;          /* "max-iterations" */
  kr_option_kind kind;
  size_t offset;
  const char *default_value; /* text, parsed like user input */
  const char *description;
} kr_pass_option;

typedef struct kr_pass_run kr_pass_run;   /* per-run state handed to the pass */

typedef struct kr_pass_def {
  const char *argument;      /* "canonicalize" */
  const char *summary;
  const char *anchor;        /* op name the pass must run on; NULL: any op */
  size_t options_size;       /* size of the options struct (0: none) */
  const kr_pass_option *options;
  unsigned num_options;
  /* Runs on `op`.  Reports errors as diagnostics and returns KR_FAILURE to stop the pipeline. */
  kr_status (*run)(kr_op *op, const void *options, kr_pass_run *run);
  /* The name --print-ir-after-all headers and --timing rows show, MLIR's pass class name
   * ("CSE", "Canonicalizer"); NULL: the argument. */
  const char *display_name;
} kr_pass_def;

/* Lets a pass declare that it changed nothing (skips --print-ir-after-change fingerprinting). */
void kr_pass_run_mark_unchanged(kr_pass_run *run);
kr_context *kr_pass_run_context(kr_pass_run *run);

/* Registers a pass in `ctx` (the def must outlive it).  Fails on a duplicate name. */
kr_status kr_context_register_pass(kr_context *ctx, const kr_pass_def *def);
const kr_pass_def *kr_context_lookup_pass(kr_context *ctx, const char *name, size_t len);
unsigned kr_context_num_passes(kr_context *ctx);
const kr_pass_def *kr_context_pass_at(kr_context *ctx, unsigned i);   /* sorted by name */
/* Registers korch's passes: the generic ones (canonicalize, cse, dce, symbol-dce, inline) and the
 * lowering ones (op-to-prim, prim-reduce-as-matvec, prim-normalize-after-matmul, orchestrate,
 * schedule, lower-task-mappings, plan-buffers, plan-verify); docs/Passes.md lists them with their options. */
kr_status kr_register_core_passes(kr_context *ctx);

typedef struct kr_pass_manager kr_pass_manager;

typedef enum kr_ir_print_mode {
  KR_PRINT_IR_NONE = 0,
  KR_PRINT_IR_AFTER_ALL = 1,      /* --print-ir-after-all */
  KR_PRINT_IR_AFTER_CHANGE = 2,   /* --print-ir-after-change */
} kr_ir_print_mode;

/* A pass manager anchored on `anchor` (e.g. KR_MODULE_OP). */
kr_pass_manager *kr_pass_manager_create(kr_context *ctx, const char *anchor);
/* Frees a manager made by kr_pass_manager_create and everything nested in it; a nested manager
 * (from kr_pass_manager_nest) belongs to its parent and is left alone. */
void kr_pass_manager_destroy(kr_pass_manager *pm);
/* Parses a pipeline and appends it.  Accepts `anchor(p1,p2{opt=v},nested(p3))` (outer anchor must
 * match the manager's) or a bare `p1,p2,nested(p3)` list.  Reports `pipeline:col: error` on
 * unknown passes, bad options or misplaced nesting. */
kr_status kr_pass_manager_parse_pipeline(kr_pass_manager *pm, const char *text);
/* Appends one pass with an option string like "max-iterations=4 top-down=false". */
kr_status kr_pass_manager_add_pass(kr_pass_manager *pm, const char *name, const char *options);
/* Returns (creating if needed at the end) the nested manager for `anchor`: the last entry when it
 * is a nested manager for `anchor`, else a new one appended.  It is owned by `pm` (never destroy
 * it) and shares `pm`'s instrumentation settings. */
kr_pass_manager *kr_pass_manager_nest(kr_pass_manager *pm, const char *anchor);
/* The textual pipeline, with every option spelled out. */
void kr_pass_manager_print_pipeline(kr_pass_manager *pm, kr_ostream *os);

/* Instrumentation. */
void kr_pass_manager_set_verify_each(kr_pass_manager *pm, bool on);    /* default on */
/* `os` (NULL: stderr) also receives the dumps of kr_pass_manager_add_print_ir_after; the mode
 * KR_PRINT_IR_NONE with a stream only sets the stream.  With names added, AFTER_CHANGE restricts
 * them to passes that changed the IR.  Headers are MLIR's
 * `// -----// IR Dump After CSE (cse) //----- //`, followed by the op the pass ran on. */
void kr_pass_manager_set_ir_printing(kr_pass_manager *pm, kr_ir_print_mode mode, kr_ostream *os);
/* --print-ir-after=NAME: print after passes named `name` (may be called repeatedly). */
void kr_pass_manager_add_print_ir_after(kr_pass_manager *pm, const char *name);
/* --timing: a per-pass wall-time table is written to `os` after the run. */
void kr_pass_manager_enable_timing(kr_pass_manager *pm, kr_ostream *os);
/* Flags used when printing IR from instrumentation. */
void kr_pass_manager_set_print_flags(kr_pass_manager *pm, bool generic, bool debuginfo);

/* Runs the pipeline on `root` (an op named like the anchor).  Stops at the first failure of a pass
 * or of the verifier (which reports "... after pass 'NAME'"). */
kr_status kr_pass_manager_run(kr_pass_manager *pm, kr_op *root);

#ifdef __cplusplus
}
#endif
#endif
