/* dialects/arith/canonicalize.c - canonicalization patterns of the arith dialect (beyond the
 * folders in fold.c), after MLIR's ArithCanonicalization.td.
 * Each function is one pattern rooted at the op whose ops.def row names it. */
#include <string.h>

#include "dialects/arith/arith_impl.h"

/* The constant `v` is known to be (its defining op is constant-like), or NULL. */
static kr_attr constant_of(kr_value v) {
  kr_op *d = kr_value_defining_op(v);
  return d ? kr_op_constant_value(d) : NULL;
}

/* op(op(x, c1), c2) -> op(x, c1 op c2) for an associative op: the two constants fold into one
 * (MLIR's AddIAddConstant, and the same for muli).  `fold` is the op's folder, used on the two
 * constants so the arithmetic (wrap-around included) is the folder's. */
static kr_status reassociate_constants(kr_rewriter *rw, kr_op *op,
                                       kr_status (*fold)(kr_op *, const kr_attr *, kr_fold_result *)) {
  kr_attr c2 = constant_of(kr_op_operand(op, 1));
  kr_op *inner = kr_value_defining_op(kr_op_operand(op, 0));
  if (!c2 || !inner || inner->name != op->name || inner->num_operands != 2) return KR_FAILURE;
  kr_attr c1 = constant_of(kr_op_operand(inner, 1));
  if (!c1) return KR_FAILURE;
  kr_attr consts[2] = {c1, c2};
  kr_fold_result r = {NULL, NULL};
  if (fold(op, consts, &r) || !r.attr) return KR_FAILURE;

  kr_type type = kr_value_type(kr_op_result(op, 0));
  kr_op_state st;
  kr_op_state_init(&st, kr_op_context(op), "arith.constant", op->loc);
  kr_op_state_add_attr(&st, "value", r.attr);
  kr_op_state_add_results(&st, &type, 1);
  kr_rewriter_set_insertion_point_before(rw, op);
  kr_op *c = kr_rewriter_create(rw, &st);
  kr_op_state_free(&st);
  if (!c) return KR_FAILURE;

  /* A new op rather than an in-place update, so the driver revisits `inner` (now possibly
   * dead) in the same sweep, as MLIR's DRR-generated patterns do. */
  kr_value operands[2] = {kr_op_operand(inner, 0), kr_op_result(c, 0)};
  kr_op_state_init(&st, kr_op_context(op), op->name, op->loc);
  kr_op_state_add_operands(&st, operands, 2);
  kr_op_state_add_results(&st, &type, 1);
  kr_op *repl = kr_rewriter_create(rw, &st);
  kr_op_state_free(&st);
  if (!repl) return KR_FAILURE;
  kr_value v = kr_op_result(repl, 0);
  kr_rewriter_replace_op(rw, op, &v);
  return KR_SUCCESS;
}

kr_status kr_arith_addi_canonicalize(kr_rewriter *rw, kr_op *op) {
  return reassociate_constants(rw, op, kr_arith_addi_fold);
}

kr_status kr_arith_muli_canonicalize(kr_rewriter *rw, kr_op *op) {
  return reassociate_constants(rw, op, kr_arith_muli_fold);
}
