/* backend/nvptx/lower.h - state shared by the kernel-level lowering (lower.c) and the arith
 * lowering (lower_arith.c) of the NVPTX backend (nvptx_impl.h describes the whole). */
#ifndef KORCH_BACKEND_NVPTX_LOWER_H
#define KORCH_BACKEND_NVPTX_LOWER_H

#include <llvm-c/Core.h>

#include "korch/adt.h"
#include "korch/ir.h"
#include "korch/kernel.h"

/* The lowering of one kernel.func: the LLVM builder, the value map (korch SSA value -> LLVM
 * value) and the buffer map (korch buffer value -> its base pointer and layout). */
typedef struct nv_lower {
  LLVMContextRef C;
  LLVMModuleRef M;
  LLVMBuilderRef B;
  LLVMValueRef fn;            /* the LLVM kernel being built */
  LLVMBasicBlockRef entry;    /* allocas go here (LLVM LangRef: static allocas in the entry block) */
  kr_op *func;                /* the kernel.func */
  int64_t block[3];           /* korch.block */
  int64_t grid[3];            /* korch.grid */
  LLVMValueRef dyn_smem;      /* the extern dynamic shared array, or NULL (static shared globals) */
  int64_t dyn_offset;         /* next free byte of dynamic shared memory */
  unsigned num_smem;          /* static shared globals made so far (for their names) */
  kr_hmap vals;               /* kr_value -> LLVMValueRef */
  kr_hmap bufs;               /* kr_value -> nv_buffer * (malloc'd) */
  LLVMTypeRef i1, i8, i16, i32, i64, f16, bf16, f32, f64, vd;
} nv_lower;

/* Records the LLVM value of a korch value / returns it (NULL when not yet defined). */
void nv_set(nv_lower *L, kr_value v, LLVMValueRef llv);
LLVMValueRef nv_get(nv_lower *L, kr_value v);
/* The LLVM type of a scalar korch type (index: i64; si/ui: the signless integer of their
 * width) or of vector<N x scalar>; NULL when there is none. */
LLVMTypeRef nv_type(nv_lower *L, kr_type t);
/* Calls intrinsic `name` (overloaded on `over`, n_over types) with `args`. */
LLVMValueRef nv_intrinsic(nv_lower *L, const char *name, LLVMTypeRef *over, unsigned n_over, LLVMValueRef *args,
                          unsigned nargs);
/* Calls the external function `name` (declared on first use, e.g. a libdevice __nv_* function)
 * of type ret(args' types). */
LLVMValueRef nv_call_extern(nv_lower *L, const char *name, LLVMTypeRef ret, LLVMValueRef *args, unsigned nargs);

/* Lowers one arith op (lower_arith.c); errors at the op when it or its types are unsupported. */
kr_status nv_lower_arith(nv_lower *L, kr_op *op);

#endif
