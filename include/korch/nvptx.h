/* korch/nvptx.h - code generation for NVIDIA GPUs through LLVM's NVPTX backend (issue #7, work in
 * progress; docs/Codegen.md).  Input: a module at the scheduled kernel level
 * (--schedule; kernel.map may remain: it is lowered first).  No nvcc: LLVM 19's NVPTX backend
 * writes the PTX; ptxas (CUDA) is only used by tests to validate it. */
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

#ifdef __cplusplus
}
#endif
#endif
