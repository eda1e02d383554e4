/* backend/interp/prim_shared.h - private to backend/interp: the parts of the op-level kernels
 * (kernels_binary.c, kernels_reduce.c) that the prim kernels (prim_*.c) run too, so that a
 * primitive and the op it mirrors compute bit-identical results (same f32/f64 arithmetic, NaN
 * handling, integer wrap-around).  The op-level kernels are themselves thin wrappers over these.
 * Primitives that mirror an op without any attribute difference call its kr_eval_<stem>
 * directly (dialects/op/op_impl.h). */
#ifndef KORCH_BACKEND_INTERP_PRIM_SHARED_H
#define KORCH_BACKEND_INTERP_PRIM_SHARED_H

#include "korch/interp.h"

/* The combinations of kr_interp_reduce. */
typedef enum kr_interp_reduce_kind {
  KR_INTERP_REDUCE_SUM,
  KR_INTERP_REDUCE_MAX,
  KR_INTERP_REDUCE_MIN,
  KR_INTERP_REDUCE_PROD,
} kr_interp_reduce_kind;

/* ReduceSum/Max/Min/Prod-13 (kernels_reduce.c) over the axes d with mask[d] (one entry per axis
 * of x, rank <= KR_OP_MAX_RANK).  y is preallocated with the reduced element count (keepdims
 * only changes y's dims, not its storage).  Floats accumulate in double and round once; integers
 * in 64 bits, wrapping; an empty reduced set gives the identity (0, 1, -inf / the type's lowest,
 * +inf / the type's highest); max/min propagate NaN.  Errors (result size mismatch, out of
 * memory) are reported at op. */
kr_status kr_interp_reduce(kr_op *op, const kr_tensor *x, kr_tensor *y, const bool *mask, kr_interp_reduce_kind kind);

/* CumSum-14 (kernels_reduce.c) along the non-negative `axis` of x into y (x's type and shape),
 * with op's integer attributes `exclusive` and `reverse`.  Reports out of memory at op. */
kr_status kr_interp_cum_sum(kr_op *op, const kr_tensor *x, kr_tensor *y, int64_t axis);

/* Mod-13 with fmod = 1 (kernels_binary.c): lhs and rhs broadcast to outs[0]; floats C fmod in
 * double (the sign of the dividend), integers C's % with x % 0 = 0 (and x % -1 = 0). */
kr_status kr_interp_rem(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs);

/* The comparisons of kr_interp_compare. */
typedef enum kr_interp_cmp {
  KR_INTERP_CMP_EQ,
  KR_INTERP_CMP_NE,
  KR_INTERP_CMP_LT,
  KR_INTERP_CMP_LE,
  KR_INTERP_CMP_GT,
  KR_INTERP_CMP_GE,
} kr_interp_cmp;

/* Equal/Less/Greater/LessOrEqual/GreaterOrEqual (and their negation `ne`) as kernels_binary.c
 * computes them: ins[0], ins[1] broadcast to outs[0] (i1); floats compare as IEEE 754 (f32
 * directly, f16/bf16 as double), ui* as uint64, other integers as int64. */
kr_status kr_interp_compare(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs, kr_interp_cmp c);

#endif
