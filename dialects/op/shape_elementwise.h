/* dialects/op/shape_elementwise.h - private to the dialects: element type classes of ONNX's
 * type constraints (also the prim dialect's, dialects/prim/shape_util.h) and the checks
 * shape_unary.c / shape_binary.c share (defined in shape_unary.c). */
#ifndef KORCH_DIALECTS_OP_SHAPE_ELEMENTWISE_H
#define KORCH_DIALECTS_OP_SHAPE_ELEMENTWISE_H

#include "dialects/op/op_impl.h"

/* Element type classes (bit set).  ONNX's `tensor(float16|float|double|bfloat16)` is FLOAT, its
 * `tensor(int8..int64)` SINT, `tensor(uint8..uint64)` UINT, `tensor(bool)` BOOL. */
enum {
  KR_EW_FLOAT = 1,
  KR_EW_SINT = 2,
  KR_EW_UINT = 4,
  KR_EW_BOOL = 8,
  KR_EW_INT = KR_EW_SINT | KR_EW_UINT,
  KR_EW_NUMERIC = KR_EW_FLOAT | KR_EW_INT,
  KR_EW_ANY = KR_EW_NUMERIC | KR_EW_BOOL,
};

/* The class of an element type; 0 for a type ONNX tensors cannot hold (index, none, ...). */
unsigned kr_ew_class(kr_type elem);
/* Operand i must be a static tensor whose element type is in `classes`; *out receives its type.
 * Error at the op: "operand #i ('X') of ONNX Op must have <class> elements, got 'T'". */
kr_status kr_ew_operand(kr_op *op, unsigned i, unsigned classes, kr_type *out);
/* Operands first..first+n-1 must be static tensors of one element type in `classes`; *types
 * receives their types (n <= KR_EW_MAX_OPERANDS).  Error names the two differing operands. */
kr_status kr_ew_operands_same(kr_op *op, unsigned first, unsigned n, unsigned classes, kr_type *types);
/* The most operands a variadic elementwise op may have (Max/Min/Sum/Mean). */
#define KR_EW_MAX_OPERANDS 64
/* The broadcast shape of `types` (multidirectional) as a tensor of element type `elem`. */
kr_status kr_ew_broadcast_type(kr_op *op, const kr_type *types, unsigned n, kr_type elem, kr_type *out);
/* Type `t`'s shape with element type `elem`. */
kr_type kr_ew_with_elem(kr_op *op, kr_type t, kr_type elem);
/* The i1 element type (ONNX bool). */
kr_type kr_ew_bool(kr_op *op);

#endif
