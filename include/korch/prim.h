/* korch/prim.h - the `prim` dialect (primitive level): Korch's primitive algebra (ASPLOS'24,
 * §3) and operator fission into it (docs/Dialects/prim.md, docs/Passes.md).
 *
 * Every primitive is a row of dialects/prim/ops.def and is read like an op-dialect op: the
 * schema accessors of korch/op.h (kr_op_get_schema, kr_op_attr_int/ints/string/type, ...) work on
 * prim ops too, with the row's attribute defaults.  Shapes are static, row-major; axes are
 * non-negative; elementwise ops take operands of one shape (broadcasting is prim.broadcast). */
#ifndef KORCH_PRIM_H
#define KORCH_PRIM_H

#include "korch/dialect.h"
#include "korch/ir.h"
#include "korch/op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the prim dialect (kr_register_core_dialects calls it). */
kr_status kr_register_prim_dialect(kr_context *ctx);

/* The orchestration class of a primitive (ops.def's CLASS column). */
typedef enum kr_prim_class {
  KR_PRIM_NOT_PRIM = -1,   /* not an op of the prim dialect */
  KR_PRIM_ELEMENTWISE = 0,
  KR_PRIM_REDUCTION,
  KR_PRIM_LAYOUT,
  KR_PRIM_LINEAR,
  KR_PRIM_CONSTANT,
  KR_PRIM_NUM_CLASSES
} kr_prim_class;

kr_prim_class kr_prim_op_class(const kr_op *op);
/* "elementwise", "reduction", "layout", "linear", "constant"; "?" otherwise. */
const char *kr_prim_class_name(kr_prim_class c);

/* Builds the prim `name` ("prim.add") at the builder's insertion point with `operands`, the
 * attributes `attrs` (a dictionary attribute or NULL) and `loc`, infers its result types from
 * the row's shape rule and returns the op.  On a rule violation reports the error at `loc`
 * (the op is not inserted) and returns NULL.  The IR stays owned by the builder's block. */
kr_op *kr_prim_build(kr_builder *b, const char *name, const kr_value *operands, unsigned num_operands,
                     kr_attr attrs, kr_attr loc);

/* Builds a prim.constant holding `value` (dense or dense_resource; its type is the result type)
 * at the builder's insertion point; NULL when `value` is not such an attribute of `type`.  Also
 * the dialect's materialize_constant hook (folding). */
kr_op *kr_prim_materialize_constant(kr_builder *b, kr_attr value, kr_type type, kr_attr loc);

/* Well-known op names. */
#define KR_PRIM_CONSTANT_OP "prim.constant"   /* `value`: dense or dense_resource, typed like the result */

#ifdef __cplusplus
}
#endif
#endif
