/* korch/kernel.h - the `kernel` dialect (kernel level): the result of kernel orchestration
 * (Korch, ASPLOS'24, §4-5; docs/Dialects/kernel.md).
 *
 * A kernel-level module holds one `kernel.func` per selected kernel (a callable symbol whose body
 * is the kernel's primitives, ending in `kernel.return`) and host `func.func`s that run them in
 * order with `kernel.launch`:
 *
 *   kernel.func @main_k0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {korch.kind = "injective"} {
 *     %0 = "prim.exp"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
 *     kernel.return %0 : tensor<4xf32>
 *   }
 *   func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
 *     %0 = kernel.launch @main_k0(%x) : (tensor<4xf32>) -> tensor<4xf32>
 *     return %0 : tensor<4xf32>
 *   }
 *
 * The CPU interpreter (korch/interp.h) runs kernel.launch by running the callee's body.  The
 * scheduling level (issue #6) adds the SIMT ops to the same dialect. */
#ifndef KORCH_KERNEL_H
#define KORCH_KERNEL_H

#include "korch/dialect.h"
#include "korch/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the kernel dialect (kr_register_core_dialects calls it). */
kr_status kr_register_kernel_dialect(kr_context *ctx);

/* Op names. */
#define KR_KERNEL_FUNC_OP "kernel.func"     /* attributes as func.func's: sym_name, function_type, ... */
#define KR_KERNEL_RETURN_OP "kernel.return"
#define KR_KERNEL_LAUNCH_OP "kernel.launch" /* `callee`: flat symbol reference to a kernel.func */

/* Discardable attributes the orchestrate pass sets on each kernel.func (passes/orchestrate/orch.h,
 * emission).  All optional; when present the kernel.func verifier checks their form. */
#define KR_KERNEL_ATTR_KIND "korch.kind"             /* string: one of the KR_KERNEL_KIND_* names */
#define KR_KERNEL_ATTR_HASH "korch.hash"             /* string: the candidate's canonical hash, 16 hex digits */
#define KR_KERNEL_ATTR_COST_US "korch.cost_us"       /* float: modelled or measured cost in microseconds */
#define KR_KERNEL_ATTR_RECOMPUTED "korch.recomputed" /* array of non-negative integers: local indices (as
                                                      * orch.h numbers them) of the primitives another
                                                      * kernel also computes; absent when none */

/* The kernel kinds of the schedulability contract (passes/orchestrate/orch.h, kr_kernel_kind). */
#define KR_KERNEL_KIND_INJECTIVE "injective" /* elementwise and layout primitives only */
#define KR_KERNEL_KIND_REDUCTION "reduction" /* one reduction domain with elementwise/broadcast around it */
#define KR_KERNEL_KIND_LINEAR "linear"       /* one matmul or conv with its prologues and epilogues */

#ifdef __cplusplus
}
#endif
#endif
