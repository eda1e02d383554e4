/* passes/schedule/reduction_impl.h - internals of the reduction template (reduction.c): the
 * scalar algebra of one axis reduction (reduction_combine.c).
 *
 * A reduction is folded in an accumulator type wide enough for a warp shuffle (32 or 64 bits):
 * f16/bf16/f32 accumulate in f32 (Hidet and cuDNN practice; the CPU kernel accumulates in double
 * and rounds once, so sums and products agree to the f32 rounding of a tree of partial results),
 * f64 in f64, integers of fewer than 32 bits in i32 (sign- or zero-extended by the element's
 * signedness) and wider ones in their own width.  Integer sums and products wrap: arithmetic
 * modulo 2^32 or 2^64 truncated to the element's width equals the CPU kernel's 64-bit wrapping
 * result truncated to it (backend/interp/kernels_reduce.c).
 *
 * Every combine is associative and commutative, so threads may fold their elements in any
 * grouping (per-thread partials, warp butterflies, a cross-warp pass) and reach the CPU kernel's
 * result:
 *   sum, prod  a + b, a * b (floats: up to rounding)
 *   max, min   NaN-propagating (ONNX ReduceMax/Min-18, numpy): (b > a || b != b) ? b : a
 *   arg_*      (value, index) pairs ordered by value, ties by index (the smaller one wins, the
 *              larger with select_last_index); a NaN is the extreme, and between two NaNs the
 *              index decides the same way (numpy's argmax; kernels_reduce.c arg_extremum). */
#ifndef KORCH_PASSES_SCHEDULE_REDUCTION_IMPL_H
#define KORCH_PASSES_SCHEDULE_REDUCTION_IMPL_H

#include "passes/schedule/schedule.h"

typedef enum ks_red_kind { KS_RED_SUM, KS_RED_PROD, KS_RED_MAX, KS_RED_MIN, KS_RED_ARGMAX, KS_RED_ARGMIN } ks_red_kind;

typedef struct ks_red_acc {
  ks_red_kind kind;
  bool last;        /* arg_*: select_last_index */
  bool is_float;    /* the input element type is a float type */
  bool is_unsigned; /* the input element type is an unsigned integer (or i1) */
  unsigned width;   /* bits of the input element */
  kr_type acc;      /* accumulator scalar type (signless for integers) */
  kr_type out;      /* scalar type of the result element (signless; i64 for arg_*) */
} ks_red_acc;

/* Fills *a for reduction primitive `op` (prim.reduce_sum/max/min/prod, prim.arg_max/min) whose
 * input element type is `in_elem` and result element type `out_elem`.  Returns false for an
 * op or element type it has no rule for (the caller reports). */
bool ks_red_acc_init(ks_red_acc *a, kr_context *ctx, kr_op *op, kr_type in_elem, kr_type out_elem);
/* Whether the reduction is arg_max/arg_min (it carries an i64 index next to the value). */
bool ks_red_is_arg(const ks_red_acc *a);
/* The identity of the combine in the accumulator type: sum 0, prod 1, max -inf / the smallest
 * integer (0 unsigned), min +inf / the largest integer; arg_*: the value identity of max or min. */
kr_value ks_red_identity(ks_builder *kb, const ks_red_acc *a);
/* arg_*: the index paired with the identity, one that any real index beats on a tie:
 * INT64_MAX (first index wins) or -1 (select_last_index). i64. */
kr_value ks_red_index_identity(ks_builder *kb, const ks_red_acc *a);
/* An element (the emitter's scalar, integers signless) converted to the accumulator type. */
kr_value ks_red_to_acc(ks_builder *kb, const ks_red_acc *a, kr_value v);
/* The accumulator converted to the result element type (reduce_*; arg_* return the index). */
kr_value ks_red_from_acc(ks_builder *kb, const ks_red_acc *a, kr_value v);
/* The combination of (av, ai) with (bv, bi) into *ov (and *oi for arg_*; ai/bi/oi are unused
 * otherwise and may be NULL). */
void ks_red_combine(ks_builder *kb, const ks_red_acc *a, kr_value av, kr_value ai, kr_value bv, kr_value bi,
                    kr_value *ov, kr_value *oi);
/* arith.cmpi / arith.cmpf with the predicate's number (dialects/arith/arith.c tables). */
kr_value ks_red_cmpi(ks_builder *kb, int64_t pred, kr_value x, kr_value y);
kr_value ks_red_cmpf(ks_builder *kb, int64_t pred, kr_value x, kr_value y);

#endif
