/* korch/artifact.h - the compiled artifact (issue 7, docs/PlanFormat.md): a directory with
 * model.ptx, model.plan.xml and model.weights that korch-run executes on a GPU machine with
 * neither LLVM nor CBC installed; and the per-candidate artifacts that korch-run --profile
 * measures for the profile database (docs/Targets.md).
 *
 * Lives in libkorch_codegen (with backend/nvptx/), which links LLVM; libkorch does not. */
#ifndef KORCH_ARTIFACT_H
#define KORCH_ARTIFACT_H

#include "korch/ir.h"
#include "korch/nvptx.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_artifact_options {
  kr_nvptx_options nvptx;
  /* ptxas for the resource figures and validation: NULL = kr_nvptx_find_ptxas() (figures
   * omitted with a warning when none is found); "" = do not run ptxas. */
  const char *ptxas;
} kr_artifact_options;

kr_artifact_options kr_artifact_default_options(void);

/* Writes DIR/model.ptx, DIR/model.plan.xml and DIR/model.weights for `module`, which must be at
 * the planned level: every kernel.func scheduled (kr_kernel_is_scheduled), exactly one host
 * function, planned (korch/plan.h; kr_plan_read's checks apply).  DIR is created when missing
 * (its parent must exist).  All content is produced first and each file written atomically
 * (temporary + rename), so on any error no file in DIR changes.  Deterministic: the same module
 * and options give byte-identical files.  Errors are diagnostics (the op or module location;
 * I/O errors name the path). */
kr_status kr_artifact_write(kr_op *module, const char *dir, const kr_artifact_options *options);

/* Korch (ASPLOS'24) section 5 measures candidate kernels on the GPU: for every candidate of
 * every region of the prim-level `module` (the enumeration --orchestrate uses, with its
 * max-size option), builds a one-kernel module (the candidate as a kernel.func, a host function
 * launching it), schedules and plans it, and writes it as an artifact into DIR/<hash>/ with a
 * <profile target hash name> element; DIR/candidates.txt lists "<hash> <name> <prims>" per
 * line.  Candidates sharing a hash are written once.  `max_candidates` > 0 stops after that
 * many (a note says so).  *num_written receives the count.  Errors as kr_artifact_write; a
 * candidate the scheduler rejects is skipped with a warning. */
kr_status kr_artifact_emit_candidates(kr_op *module, const char *dir, const kr_artifact_options *options,
                                      int64_t max_size, int64_t max_candidates, unsigned *num_written);

#ifdef __cplusplus
}
#endif
#endif
