/* passes/schedule/emit_impl.h - private to the element emitter (emit*.c): its state and the
 * per-class element rules.
 *
 *   emit.c              the public API (schedule.h): dispatch, memoisation, overrides, kernel
 *                       argument loads, constants, the vector path and the support checks
 *   emit_elementwise.c  elementwise primitives as scalar arith with the CPU kernels' semantics
 *                       (backend/interp/prim_elementwise.c, kernels_unary.c, kernels_binary.c)
 *   emit_layout.c       layout primitives as index maps (backend/interp/prim_layout.c)
 *   emit_reduction.c    reductions as per-element loops with a register accumulator
 *                       (backend/interp/prim_reduction.c, kernels_reduce.c)
 *
 * Scalars: an element of a tensor with element type T is an arith scalar of es_scalar_type(T):
 * T itself for floats and signless integers (i1 included), the signless integer of the same
 * width for si* and ui* types (arith computes on signless integers; signedness is a property of the op,
 * which the rules pick from the tensor's type). */
#ifndef KORCH_PASSES_SCHEDULE_EMIT_IMPL_H
#define KORCH_PASSES_SCHEDULE_EMIT_IMPL_H

#include "korch/diag.h"
#include "korch/op.h"
#include "korch/prim.h"
#include "passes/schedule/schedule.h"

/* A memoised element (width 1) or run of `width` consecutive elements along the last dim. */
typedef struct es_memo {
  kr_value v;
  unsigned rank, width;
  kr_value index[KR_KERNEL_MAX_RANK];
  kr_value out[4];
  kr_block *block; /* the insertion block at emission: valid there and in blocks nested in it */
} es_memo;

typedef struct es_override {
  kr_value v;
  ks_element_fn fn;
  void *user;
} es_override;

struct ks_emitter {
  ks_kernel *k;
  ks_builder *kb;
  es_memo *memo;
  size_t num_memo, cap_memo;
  es_override *overrides;
  size_t num_overrides, cap_overrides;
  bool failed; /* an error was reported */
};

/* ---- emit.c: shared helpers ---- */
kr_type es_scalar_type(ks_emitter *e, kr_type elem);
bool es_is_unsigned(kr_type elem);              /* ui* (tensor element types) */
kr_type es_elem_of(kr_value tensor);            /* element type of a tensor value */
const int64_t *es_dims(kr_value tensor, unsigned *rank);
kr_value es_error(ks_emitter *e, kr_op *op, const char *fmt, ...);

/* Scalar arith builders at the emitter's insertion point. */
kr_value es_op1(ks_emitter *e, const char *name, kr_value a, kr_type result);
kr_value es_op2(ks_emitter *e, const char *name, kr_value a, kr_value b);
kr_value es_cmpi(ks_emitter *e, const char *pred, kr_value a, kr_value b); /* eq ne slt ... uge */
kr_value es_cmpf(ks_emitter *e, const char *pred, kr_value a, kr_value b); /* oeq ogt ... uno */
kr_value es_select(ks_emitter *e, kr_value c, kr_value a, kr_value b);
kr_value es_const_int(ks_emitter *e, kr_type t, int64_t v);
kr_value es_const_float(ks_emitter *e, kr_type t, double v);
kr_value es_bool(ks_emitter *e, bool v);
kr_value es_or(ks_emitter *e, kr_value a, kr_value b);
kr_value es_clamp_index(ks_emitter *e, kr_value i, int64_t lo, int64_t hi); /* index in [lo, hi] */
kr_value es_index_cmp(ks_emitter *e, const char *pred, kr_value a, int64_t c); /* index vs constant */

/* kernel.load of `width` (1: a scalar) elements of any buffer as the emitter's scalar type
 * (si* and ui* elements load as signless integers). */
kr_value es_load(ks_emitter *e, kr_value buf, const kr_value *index, unsigned width);

/* A register accumulator: a local 1-element buffer of type t (values flow through buffers in
 * SIMT regions, kernel/ops.def). */
kr_value es_acc_alloc(ks_emitter *e, kr_type t);
kr_value es_acc_load(ks_emitter *e, kr_value acc);
void es_acc_store(ks_emitter *e, kr_value acc, kr_value v);

/* The type NaN-exact float arithmetic of a tensor type runs in: f32 for f16/bf16/f32, f64 for
 * f64; es_to_compute / es_from_compute convert (extf / truncf). */
kr_type es_compute_type(ks_emitter *e, kr_type elem);
kr_value es_to_compute(ks_emitter *e, kr_value x, kr_type elem);
kr_value es_from_compute(ks_emitter *e, kr_value x, kr_type elem);
/* numpy maximum/minimum on floats of one type: (a > b || isnan(a)) ? a : b (backend/interp
 * kernels_binary.c NAN_MAX), which also fixes the sign of a zero result as the CPU does. */
kr_value es_fmax(ks_emitter *e, kr_value a, kr_value b, bool is_max);

/* ---- per class ---- */
kr_value es_elementwise(ks_emitter *e, kr_op *op, const kr_value *index);
/* The element rule of an elementwise op on already emitted operand scalars (vector path):
 * `index` is needed only by prim.iota. */
kr_value es_elementwise_apply(ks_emitter *e, kr_op *op, const kr_value *operands, const kr_value *index);
kr_value es_layout(ks_emitter *e, kr_op *op, const kr_value *index);
kr_value es_reduction(ks_emitter *e, kr_op *op, const kr_value *index);
/* For the vector path: the operand index of a layout op whose last axis stays contiguous, or
 * false when the op's index map moves the last axis (then lanes are emitted one by one).
 * *scalar_bcast is set when every lane reads the same operand element (a broadcast along the
 * last axis). */
bool es_layout_vector_map(ks_emitter *e, kr_op *op, const kr_value *index, unsigned width, kr_value *operand_index,
                          bool *scalar_bcast, bool build);

/* ---- injective_transpose.c ---- */
/* The shared-memory tiled variant of the injective template for a kernel whose one written
 * tensor is an elementwise function of a transpose that moves the last axis: builds k's body
 * and sets *applied, or leaves both alone when the kernel is not of that form. */
kr_status ks_schedule_injective_transpose(ks_kernel *k, bool *applied);

/* ---- injective_window.c ---- */
/* The shared-memory staged variant of the window template for a reduce_window over trailing
 * axes whose written tensors all have the window's output shape: builds k's body and sets
 * *applied, or leaves both alone when the kernel is not of that form or its planes do not fit
 * 48 KiB of static shared memory. */
kr_status ks_schedule_window_staged(ks_kernel *k, bool *applied);

#endif
