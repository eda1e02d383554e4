/* backend/nvptx/nvptx_impl.h - the NVPTX backend's internal contract (issue #7; docs/Codegen.md).
 *
 *   lower.c (+ lower_*.c)  scheduled kernel/arith IR -> an LLVM module through the LLVM-C API:
 *                          one function per scheduled kernel.func (PTX kernel calling convention,
 *                          LLVMPTXKernelCallConv), its global !kernel.buffer arguments as
 *                          `ptr addrspace(1)` (noalias, align 16; inputs readonly), .maxntid from
 *                          korch.block, thread/block ids via the
 *                          llvm.nvvm.read.ptx.sreg.* intrinsics, kernel.barrier via
 *                          llvm.nvvm.barrier0, kernel.shuffle via llvm.nvvm.shfl.sync.*, shared
 *                          kernel.allocs as addrspace(3) globals (or offsets into one extern
 *                          dynamic-shared array when korch.dynamic_shared_bytes is set), local
 *                          allocs as allocas, kernel.for/if/map as basic blocks (kernel.map must be
 *                          lowered first: the driver runs lower-task-mappings), vector loads and
 *                          stores with their natural alignment (at most 16), arith ops as LLVM instructions or
 *                          libdevice calls (__nv_expf, __nv_erff, ...; never __nv_fast_tanhf),
 *                          fptosi/fptoui as llvm.fpto[su]i.sat.
 *   codegen.c              libdevice linking, lazy and only of what is called
 *                          (/usr/local/cuda/nvvm/libdevice/libdevice.10.bc),
 *                          internalize all but the kernels, O3 (LLVMRunPasses "default<O3>"),
 *                          the NVPTX target machine (triple nvptx64-nvidia-cuda, CPU = sm_XX,
 *                          features +ptx80), PTX text; kr_nvptx_resolve_arch.
 *   ptxas.c                kr_nvptx_find_ptxas / kr_nvptx_ptxas: CUDA's ptxas run as a separate
 *                          program (posix_spawnp) on a temporary file, its -v report parsed.
 *
 * The public entry points are in include/korch/nvptx.h. */
#ifndef KORCH_BACKEND_NVPTX_IMPL_H
#define KORCH_BACKEND_NVPTX_IMPL_H

#include <llvm-c/Core.h>

#include "korch/ir.h"

/* Lowers every scheduled kernel.func of `module` (kernel.map already lowered) into a new LLVM
 * module in `llctx` named after the module.  Reports unsupported ops/types as errors at the op
 * and returns NULL. */
LLVMModuleRef kr_nvptx_lower_module(kr_op *module, LLVMContextRef llctx);

#endif
