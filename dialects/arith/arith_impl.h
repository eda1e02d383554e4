/* dialects/arith/arith_impl.h - what the files of the arith dialect share (private). */
#ifndef KORCH_DIALECTS_ARITH_ARITH_IMPL_H
#define KORCH_DIALECTS_ARITH_ARITH_IMPL_H

#include "dialects/dialect_macros.h"
#include "korch/ir.h"
#include "korch/rewrite.h"

/* Prototypes of every hook ops.def names. */
#define KR_OP KR_OP_DECLARE_HOOKS
#include "dialects/arith/ops.def"
#undef KR_OP

/* Type classes of MLIR's ArithOps.td, each also admitting tensors and vectors of the class:
 *   signless-integer-like               iN (signless) or index
 *   signless-fixed-width-integer-like   iN (signless)
 *   floating-point-like                 f16 bf16 f32 f64
 *   bool-like                           i1 */
bool kr_arith_is_int_like(kr_type t, bool allow_index);
bool kr_arith_is_float_like(kr_type t);
bool kr_arith_is_bool_like(kr_type t);
/* `t` with its element type replaced by `elem` (tensor/vector keep their shape), or `elem` for
 * a scalar `t`. */
kr_type kr_arith_with_element(kr_context *ctx, kr_type t, kr_type elem);

/* Predicate spellings indexed by MLIR's numbering (ops.def lists them). */
#define KR_ARITH_NUM_CMPI_PREDICATES 10
#define KR_ARITH_NUM_CMPF_PREDICATES 16
extern const char *const kr_arith_cmpi_predicates[KR_ARITH_NUM_CMPI_PREDICATES];
extern const char *const kr_arith_cmpf_predicates[KR_ARITH_NUM_CMPF_PREDICATES];
enum {
  KR_CMPI_EQ,
  KR_CMPI_NE,
  KR_CMPI_SLT,
  KR_CMPI_SLE,
  KR_CMPI_SGT,
  KR_CMPI_SGE,
  KR_CMPI_ULT,
  KR_CMPI_ULE,
  KR_CMPI_UGT,
  KR_CMPI_UGE,
};
enum {
  KR_CMPF_FALSE,
  KR_CMPF_OEQ,
  KR_CMPF_OGT,
  KR_CMPF_OGE,
  KR_CMPF_OLT,
  KR_CMPF_OLE,
  KR_CMPF_ONE,
  KR_CMPF_ORD,
  KR_CMPF_UEQ,
  KR_CMPF_UGT,
  KR_CMPF_UGE,
  KR_CMPF_ULT,
  KR_CMPF_ULE,
  KR_CMPF_UNE,
  KR_CMPF_UNO,
  KR_CMPF_TRUE,
};

/* The type a constant attribute carries: its own type, i1 for a bool; NULL if it has none. */
kr_type kr_arith_const_attr_type(kr_context *ctx, kr_attr value);
/* Whether arith.constant can hold `value`: integer, float, bool, dense elements or resource. */
bool kr_arith_is_valid_const_attr(kr_attr value);
/* A bool attribute becomes the equivalent i1 integer attribute; others are returned as is. */
kr_attr kr_arith_canonical_const_attr(kr_context *ctx, kr_attr value);

/* The dialect's materialize_constant hook: an arith.constant of `value` at the builder, or NULL
 * when `value` is not a valid constant of `type`. */
kr_op *kr_arith_materialize_constant(kr_builder *b, kr_attr value, kr_type type, kr_attr loc);

/* Rounds a double to the nearest value of float kind `k` (ties to even, overflow to infinity),
 * returned as a double; one rounding (f16/bf16 through kr_f64_to_f16/bf16). */
double kr_arith_round_to_float(double v, kr_float_kind k);

#endif
