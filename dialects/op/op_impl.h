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
/* op.constant's hooks; prim.constant shares them. */
kr_status kr_op_constant_verify(kr_op *op);
kr_status kr_op_constant_fold(kr_op *op, const kr_attr *operands, kr_fold_result *results);
/* The largest result (elements) constant folding produces; bigger ones stay ops. */
#define KR_OP_FOLD_MAX_ELEMENTS (1 << 22)

#endif
