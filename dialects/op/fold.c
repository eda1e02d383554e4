/* dialects/op/fold.c - constant folding of every op-dialect op through its CPU reference kernel
 * (MLIR's constant folding, with the interpreter as the single definition of each op's
 * semantics).  This is what collapses the int64 shape sub-graphs exporters emit
 * (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, ConstantOfShape, Range, ...) once their
 * inputs are static. */
#include <stdlib.h>

#include "dialects/op/op_impl.h"

kr_status kr_op_fold_generic(kr_op *op, const kr_attr *operands, kr_fold_result *results) {
  const kr_op_schema *s = kr_op_get_schema(op);
  if (!s || op->num_results > 64 || op->num_operands > 64) return KR_FAILURE;
  for (unsigned i = 0; i < op->num_operands; i++)
    if (!operands[i] && kr_op_operand_present(op, i)) return KR_FAILURE;
  int64_t total = 0;
  for (unsigned i = 0; i < op->num_results; i++) {
    kr_type t = kr_value_type(kr_op_result(op, i));
    int64_t n = kr_type_num_elements(t);
    if (t->kind != KR_TYPE_TENSOR || n < 0) return KR_FAILURE;
    total += n;
  }
  if (total > KR_OP_FOLD_MAX_ELEMENTS) return KR_FAILURE;
  kr_tensor in[64], *inp[64] = {0}, out[64];
  kr_status st = KR_SUCCESS;
  unsigned made = 0;
  for (; made < op->num_operands; made++) {
    inp[made] = NULL;
    if (!operands[made]) continue;
    if (kr_tensor_from_attr(&in[made], operands[made])) {
      st = KR_FAILURE;
      break;
    }
    inp[made] = &in[made];
  }
  /* A kernel error on constants is a real error of the program, but folding is speculative:
   * the op stays and the interpreter or the verifier reports it in context. */
  kr_context *ctx = kr_op_context(op);
  if (!st) {
    kr_diag_handler h;
    void *ud;
    kr_context_get_diag_handler(ctx, &h, &ud);
    kr_context_set_diag_handler(ctx, NULL, NULL);
    st = kr_interp_eval_op(op, inp, out);
    kr_context_set_diag_handler(ctx, h, ud);
    if (!st) {
      for (unsigned i = 0; i < op->num_results; i++) {
        results[i].attr = kr_tensor_to_attr(ctx, &out[i]);
        if (!results[i].attr) st = KR_FAILURE;
        kr_tensor_free(&out[i]);
      }
    }
  }
  for (unsigned i = 0; i < made; i++)
    if (inp[i]) kr_tensor_free(inp[i]);
  return st;
}
