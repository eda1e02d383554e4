/* korch/nvptx.h - code generation for NVIDIA GPUs through LLVM's NVPTX backend (issue #7,
 * docs/Codegen.md).  Input: a module at the scheduled kernel level
 * (--schedule; kernel.map may remain: it is lowered first).  No nvcc: LLVM 19's NVPTX backend
 * writes the PTX; ptxas (CUDA), when installed, validates it and reports register use for the
 * artifact (korch/artifact.h). */
#ifndef KORCH_NVPTX_H
#define KORCH_NVPTX_H

#include "korch/ir.h"
#include "korch/ostream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_nvptx_options {
  const char *gpu_arch;  /* "sm_80" | "sm_86" | "sm_89" | "sm_90"; NULL: the module's target's arch */
  const char *libdevice; /* NULL: /usr/local/cuda/nvvm/libdevice/libdevice.10.bc */
  int opt_level;         /* 0..3 (default 3) */
} kr_nvptx_options;

/* The defaults above. */
kr_nvptx_options kr_nvptx_default_options(void);

/* Writes the module's kernels as LLVM IR text (after libdevice linking and optimisation) /
 * as PTX text to `os`.  Deterministic: the same module and options give the same bytes.
 * Errors (unscheduled kernels, unsupported ops, LLVM failures) are diagnostics; nothing is
 * written then. */
kr_status kr_nvptx_emit_llvm(kr_op *module, const kr_nvptx_options *options, kr_ostream *os);
kr_status kr_nvptx_emit_ptx(kr_op *module, const kr_nvptx_options *options, kr_ostream *os);

/* The architecture kr_nvptx_emit_* would use: options->gpu_arch when set, else the module's
 * target's (korch.target, docs/Targets.md), copied into arch[16].  Reports (diagnostic at the
 * module) an unknown target or an architecture outside sm_80 / sm_86 / sm_89 / sm_90. */
kr_status kr_nvptx_resolve_arch(kr_op *module, const kr_nvptx_options *options, char arch[16]);

/* ---------------------------------------------------------------------------------------------
 * ptxas (CUDA toolkit), run as a separate program: it validates PTX and reports each kernel's
 * resources ("ptxas -v"), which the artifact records for korch-run --dry-run (docs/PlanFormat.md).
 * korch never needs it to produce PTX. */

/* The ptxas to use: $KORCH_PTXAS when set and non-empty, else /usr/local/cuda/bin/ptxas when
 * executable, else the first `ptxas` on PATH; NULL when none.  Returns a static buffer. */
const char *kr_nvptx_find_ptxas(void);

/* Per-kernel resources from `ptxas -v` ("Used N registers, ... N bytes smem"; "N bytes stack
 * frame, N bytes spill stores, N bytes spill loads"). */
typedef struct kr_ptxas_info {
  char name[128];          /* the .entry name */
  int64_t registers;       /* per thread */
  int64_t shared_bytes;    /* static shared memory per block */
  int64_t local_bytes;     /* stack frame per thread */
  int64_t spill_bytes;     /* spill stores per thread */
} kr_ptxas_info;

/* Runs `ptxas -v -arch=<arch> -o /dev/null` on `ptx` (NUL-terminated PTX text) and parses its
 * report into *infos (malloc'd, caller frees; one per .entry, in the order ptxas reports them)
 * and *num_infos.  Errors (diagnostic at `loc` of ctx): ptxas cannot be run, exits non-zero
 * (its first error lines are quoted), or its report cannot be parsed. */
kr_status kr_nvptx_ptxas(kr_context *ctx, kr_attr loc, const char *ptxas, const char *arch, const char *ptx,
                         kr_ptxas_info **infos, unsigned *num_infos);

#ifdef __cplusplus
}
#endif
#endif
