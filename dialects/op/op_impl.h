/* dialects/op/op_impl.h - private to the op dialect: the ops.def expansion. */
#ifndef KORCH_DIALECTS_OP_OP_IMPL_H
#define KORCH_DIALECTS_OP_OP_IMPL_H

#include "korch/diag.h"
#include "korch/interp.h"
#include "korch/op.h"

/* Prototypes of every hook named by ops.def. */
#define KR_ONNX_OP(stem, family, onnx, operands, results, attrs, summary) \
  kr_status kr_infer_##stem(kr_op *op, kr_type *results_out);              \
  kr_status kr_eval_##stem(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs);
#include "dialects/op/ops.def"
#undef KR_ONNX_OP

/* Generic hooks shared by every op of the dialect (op.c, fold.c). */
kr_status kr_op_verify_generic(kr_op *op);
kr_status kr_op_fold_generic(kr_op *op, const kr_attr *operands, kr_fold_result *results);
kr_op *kr_op_materialize_constant(kr_builder *b, kr_attr value, kr_type type, kr_attr loc);
/* op.constant's hooks; prim.constant shares them.  Verify: `value` is a dense or
 * dense_resource attribute of the result's (static) type; fold: that attribute; interpret: its
 * elements copied into the preallocated result. */
kr_status kr_op_constant_verify(kr_op *op);
kr_status kr_op_constant_fold(kr_op *op, const kr_attr *operands, kr_fold_result *results);
extern const kr_interp_hooks kr_op_constant_hooks;
/* The constant op `name` (KR_OP_CONSTANT or KR_PRIM_CONSTANT_OP) holding `value` with result
 * type `type`, created through b at `loc`: the body of both dialects' materialize_constant
 * hooks.  NULL (nothing created) unless value is a dense or dense_resource attribute of type
 * `type`. */
kr_op *kr_constant_materialize(kr_builder *b, const char *name, kr_attr value, kr_type type, kr_attr loc);
/* The largest result (elements) constant folding produces; bigger ones stay ops. */
#define KR_OP_FOLD_MAX_ELEMENTS (1 << 22)

#endif
