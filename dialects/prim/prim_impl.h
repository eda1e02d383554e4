/* dialects/prim/prim_impl.h - private to the prim dialect: the ops.def expansion. */
#ifndef KORCH_DIALECTS_PRIM_PRIM_IMPL_H
#define KORCH_DIALECTS_PRIM_PRIM_IMPL_H

#include "korch/diag.h"
#include "korch/interp.h"
#include "korch/prim.h"

/* Prototypes of every hook named by ops.def: shape inference in dialects/prim/shape_<CLASS>.c,
 * CPU reference kernels in backend/interp/prim_<CLASS>.c. */
#define KR_PRIM_OP(stem, cls, operands, results, attrs, summary) \
  kr_status kr_prim_infer_##stem(kr_op *op, kr_type *results_out);  \
  kr_status kr_prim_eval_##stem(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs);
#include "dialects/prim/ops.def"
#undef KR_PRIM_OP

/* Folding (fold.c): through the kernel, under a size policy that never turns a cheap layout
 * primitive (broadcast of a small constant) into a large materialised constant. */
kr_status kr_prim_fold(kr_op *op, const kr_attr *operands, kr_fold_result *results);

#endif
