/* dialects/prim/shape_util.h - private to dialects/prim/shape_*.c: the operand, element-type and
 * attribute checks the primitives' shape rules (ops.def) share.  Every check reports its error at
 * the op (kr_op_emit_error, "'prim.x' op ...") naming the operand or attribute, and returns
 * KR_FAILURE; nothing here allocates beyond kr_type_to_cstr strings it frees itself. */
#ifndef KORCH_DIALECTS_PRIM_SHAPE_UTIL_H
#define KORCH_DIALECTS_PRIM_SHAPE_UTIL_H

#include <stddef.h>

#include "dialects/dialect_util.h"
#include "dialects/op/shape_elementwise.h"
#include "dialects/prim/prim_impl.h"

/* Element type classes: the op dialect's (shape_elementwise.h), one bit set for both levels:
 * KR_EW_FLOAT f16/bf16/f32/f64, KR_EW_SINT signless (two's complement) i8..i64, KR_EW_UINT
 * ui8..ui64, KR_EW_BOOL i1, and their unions KR_EW_INT, KR_EW_NUMERIC, KR_EW_ANY.
 * kr_ew_class(elem) is an element type's class, 0 for one a prim tensor cannot hold (index,
 * none, i4, ...). */

/* Operand i as a static tensor (kr_op_operand_tensor) whose element type is in `classes`:
 * "operand #i ('x') must have floating-point elements, got 'tensor<4xi32>'". */
kr_status kr_ps_operand(kr_op *op, unsigned i, unsigned classes, kr_type *out);
/* Operands i and j must have one type (same shape and element type, no implicit broadcast):
 * "operands #0 ('lhs') and #1 ('rhs') must have the same type, got 'A' and 'B'". */
kr_status kr_ps_same_type(kr_op *op, unsigned i, kr_type ti, unsigned j, kr_type tj);
/* The element types of operands i and j must be equal (shapes may differ). */
kr_status kr_ps_same_elem(kr_op *op, unsigned i, kr_type ti, unsigned j, kr_type tj);

/* "[2, 3, -1]" into buf (truncated with ", ..." when long); returns buf. */
const char *kr_ps_fmt(char *buf, size_t cap, const int64_t *v, int64_t n);
/* A result shape: rank <= KR_OP_MAX_RANK, every dim >= 0 (callers check) and an element count
 * that fits in int64; reports "result rank R exceeds ..." / "result shape [..] has more than
 * 2^63-1 elements".  *out receives tensor<dims x elem>. */
kr_status kr_ps_result(kr_op *op, const int64_t *dims, int64_t rank, kr_type elem, kr_type *out);

/* Integer attribute `name` (schema default when absent) must be 0 or 1: "attribute 'keepdims'
 * must be 0 or 1, got 2". */
kr_status kr_ps_flag(kr_op *op, const char *name, int64_t *out);
/* Integer attribute `name` must be an axis in [0, rank): "attribute 'axis' value 3 is out of
 * range [0, 3)" (prim axes are normalised: no negative values). */
kr_status kr_ps_axis(kr_op *op, const char *name, unsigned rank, int64_t *out);
/* List attribute `name` must have exactly `n` entries (absent: 0 entries): "attribute 'window'
 * has 2 values, expected 3 (one per axis of operand 'x')"; `per` says what the count follows. */
kr_status kr_ps_ints_len(kr_op *op, const char *name, int64_t n, const char *per, const int64_t **vals);
/* Every entry of list `name` must be >= `min`: "attribute 'strides' value 0 at index 1 must be
 * >= 1". */
kr_status kr_ps_ints_min(kr_op *op, const char *name, const int64_t *v, int64_t n, int64_t min);

#endif
