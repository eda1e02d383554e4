/* passes/pass_impl.h - private layout of the pass manager and helpers shared by the passes/ sources.
 * Only libkorch sources include this. */
#ifndef KORCH_PASSES_PASS_IMPL_H
#define KORCH_PASSES_PASS_IMPL_H

#include "korch/diag.h"
#include "korch/pass.h"
#include "korch/rewrite.h"

/* One configured pass in a pipeline: the registered def and its options struct (malloc'd,
 * def->options_size bytes, NULL when the pass has no options). */
typedef struct kr_pass_instance {
  const kr_pass_def *def;
  void *options;
} kr_pass_instance;

/* A pipeline entry: a pass, or a nested pass manager (MLIR's OpToOpPassAdaptor). */
typedef struct kr_pm_entry {
  kr_pass_instance pass;        /* valid when nested == NULL */
  kr_pass_manager *nested;      /* owned */
  double seconds;               /* --timing: accumulated wall time of this entry */
  uint64_t runs;                /* how many ops it ran on */
} kr_pm_entry;

/* Instrumentation settings; they live in the outermost manager and nested managers point at it. */
typedef struct kr_pm_config {
  bool verify_each;
  kr_ir_print_mode print_mode;
  kr_ostream *print_os;         /* NULL: an internal stream on stderr */
  kr_ostream default_os;        /* that internal stream (initialised lazily) */
  bool default_os_init;
  kr_vec print_after;           /* kr_ident: --print-ir-after=NAME */
  kr_ostream *timing_os;        /* NULL: timing off */
  kr_print_flags print_flags;
} kr_pm_config;

struct kr_pass_manager {
  kr_context *ctx;
  kr_ident anchor;
  kr_vec entries;               /* kr_pm_entry */
  kr_pass_manager *parent;      /* NULL for the outermost manager */
  kr_pm_config *config;         /* owned by the outermost manager */
  kr_pm_config own_config;
};

struct kr_pass_run {
  kr_context *ctx;
  kr_pass_manager *pm;
  bool unchanged;               /* the pass called kr_pass_run_mark_unchanged */
};

/* --- pipeline.c ------------------------------------------------------------------------------ */

/* Fills `inst` for `def`: allocates the options struct, applies every option's default and then
 * the text `opts` (`name=value name2=value`; may be NULL).  Errors are reported at
 * loc("<pipeline>":1:col) where col = col0 + offset in `opts` (col0 is the column of opts[0]). */
kr_status kr__pass_instance_init(kr_context *ctx, kr_pass_instance *inst, const kr_pass_def *def,
                                 const char *opts, size_t len, unsigned col0);
void kr__pass_instance_free(kr_pass_instance *inst);
/* Prints `argument{opt=value ...}` with every option spelled out (sorted by name). */
void kr__pass_instance_print(const kr_pass_instance *inst, kr_ostream *os);
/* Appends a new nested manager at the end of `pm` (never reuses the last entry). */
kr_pass_manager *kr__pass_manager_nest_new(kr_pass_manager *pm, const char *anchor, size_t len);

/* --- instrumentation.c ----------------------------------------------------------------------- */

/* MLIR's pass class name for the instrumentation headers ("CSE"); the argument when unset. */
const char *kr__pass_display_name(const kr_pass_def *def);
/* A structural hash of `op` and everything nested (names, attribute, location and type identities,
 * operand value identities, block structure), to tell whether a pass changed the IR. */
uint64_t kr__op_fingerprint(kr_op *op);
/* Whether the IR may be printed after `def` runs (--print-ir-after-all, or `def` named by
 * --print-ir-after); *need_fingerprint tells that it is printed only if the pass changed the op
 * (--print-ir-after-change), to be decided by comparing fingerprints. */
bool kr__should_print_after(const kr_pm_config *cfg, const kr_pass_def *def, bool *need_fingerprint);
/* `failed`: the pass failed; the header says "After NAME Failed" as MLIR's. */
void kr__print_ir_after(kr_pm_config *cfg, const kr_pass_def *def, kr_op *op, bool failed);
/* Writes the --timing table for `pm` (total = seconds of the whole run). */
void kr__print_timing(kr_pass_manager *pm, double total, kr_ostream *os);
double kr__now_seconds(void);

/* --- folding.c ------------------------------------------------------------------------------- */

/* kr_op_try_fold, telling an in-place fold (op kept, *in_place = true) from a replacement. */
kr_status kr__op_try_fold(kr_rewriter *rw, kr_op *op, bool *in_place);
/* The region constants are hoisted into: the nearest region (walking up from `block`) whose parent
 * op is isolated from above, unregistered, or top-level (MLIR's OperationFolder). */
kr_region *kr__constant_insertion_region(kr_block *block);

/* --- rewriter.c ------------------------------------------------------------------------------ */

void kr__rewriter_notify_inserted(kr_rewriter *rw, kr_op *op);
/* Reports `op` and every op nested in it (innermost first) as about to be erased. */
void kr__rewriter_notify_erased(kr_rewriter *rw, kr_op *op);

/* --- region_utils.c -------------------------------------------------------------------------- */

/* Removes blocks of multi-block regions nested in `op` (recursively) that the entry block cannot
 * reach through successors; returns whether any was removed.  Uses of values of removed blocks
 * are dropped first (they can only come from other unreachable blocks). */
bool kr__erase_unreachable_blocks(kr_rewriter *rw, kr_region *r);

/* --- symbol_dce.c ---------------------------------------------------------------------------- */

/* Appends every symbol reference nested in attribute `a` (arrays, dictionaries, dialect
 * attribute parameters) to `out` (kr_attr). */
void kr__collect_symbol_refs(kr_attr a, kr_vec *out);

/* --- registration of the core passes (one file each) ----------------------------------------- */

extern const kr_pass_def kr_canonicalize_pass;
extern const kr_pass_def kr_cse_pass;
extern const kr_pass_def kr_dce_pass;
extern const kr_pass_def kr_op_to_prim_pass;       /* passes/fission/op_to_prim.c */
extern const kr_pass_def kr_symbol_dce_pass;
extern const kr_pass_def kr_inline_pass;
/* passes/prim/: Korch's algebraic rewrites of the primitive graph (docs/Passes.md). */
extern const kr_pass_def kr_prim_reduce_as_matvec_pass;
extern const kr_pass_def kr_prim_normalize_after_matmul_pass;
/* passes/orchestrate/orchestrate.c: kernel orchestration (docs/Orchestration.md). */
extern const kr_pass_def kr_orchestrate_pass;
extern const kr_pass_def kr_schedule_pass;            /* passes/schedule/schedule.c */
extern const kr_pass_def kr_lower_task_mappings_pass; /* passes/schedule/lower_task_mappings.c */
extern const kr_pass_def kr_plan_buffers_pass;        /* passes/plan/plan.c */
extern const kr_pass_def kr_plan_verify_pass;         /* passes/plan/plan.c */

#endif
