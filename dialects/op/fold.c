/* dialects/op/fold.c - constant folding of every op-dialect op through its CPU reference kernel
 * (MLIR's constant folding, with the interpreter as the single definition of each op's
 * semantics).  This is what collapses the int64 shape sub-graphs exporters emit
 * (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, ConstantOfShape, Range, ...) once their
 * inputs are static. */
#include <stdlib.h>
#include <string.h>

#include "dialects/op/op_impl.h"
#include "dialects/op/shape_layout.h"

/* Shape-15 and Size-13 depend only on their operand's static type, not on its value, so they
 * fold whether or not the operand is a constant (the importer and --canonicalize both reach this
 * through the fold hook).  NULL when the types are not the static ones shape inference gives. */
static kr_attr fold_from_type(kr_op *op) {
  bool shape = !strcmp(op->name, "op.shape");
  if ((!shape && strcmp(op->name, "op.size")) || op->num_operands != 1 || op->num_results != 1) return NULL;
  kr_type in = kr_value_type(kr_op_operand(op, 0)), rt = kr_value_type(kr_op_result(op, 0));
  if (in->kind != KR_TYPE_TENSOR || !kr_type_has_static_shape(in) || rt->kind != KR_TYPE_TENSOR ||
      !kr_type_has_static_shape(rt) || !kr_type_is_integer(kr_type_element(rt), 64))
    return NULL;
  kr_context *ctx = kr_op_context(op);
  if (!shape) {
    int64_t n = kr_type_num_elements(in);
    return n >= 0 && kr_type_num_elements(rt) == 1 ? kr_attr_dense(ctx, rt, &n, sizeof n) : NULL;
  }
  int64_t start, end;
  kr_shape_range(op, in->u.shaped.rank, &start, &end);
  int64_t n = end > start ? end - start : 0;
  if (kr_type_num_elements(rt) != n) return NULL;
  static const int64_t zero;
  return kr_attr_dense(ctx, rt, n ? (const void *)(in->u.shaped.dims + start) : &zero, (size_t)n * sizeof(int64_t));
}

kr_status kr_op_fold_generic(kr_op *op, const kr_attr *operands, kr_fold_result *results) {
  const kr_op_schema *s = kr_op_get_schema(op);
  if (!s || op->num_results > 64 || op->num_operands > 64) return KR_FAILURE;
  if ((results[0].attr = fold_from_type(op))) return KR_SUCCESS;
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
  /* The kernel runs over the operands' logical elements: a reduction of a splat stored as one
   * element would still take that many steps, so bound the work on the operands too. */
  for (unsigned i = 0; i < op->num_operands; i++) {
    int64_t n = operands[i] ? kr_type_num_elements(operands[i]->type) : 0;
    if (n < 0 || n > KR_OP_FOLD_MAX_ELEMENTS) return KR_FAILURE;
  }
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
