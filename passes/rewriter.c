/* passes/rewriter.c - the pattern rewriter (MLIR's RewriterBase): every IR change a pattern makes
 * goes through these functions, which tell the listener (the greedy driver) what changed. */
#include <stdlib.h>

#include "passes/pass_impl.h"

void kr_rewriter_init(kr_rewriter *rw, kr_context *ctx) {
  kr_builder_init(&rw->builder, ctx);
  rw->listener.op_inserted = NULL;
  rw->listener.op_erased = NULL;
  rw->listener.op_modified = NULL;
  rw->listener.user = NULL;
}

void kr_rewriter_set_insertion_point_before(kr_rewriter *rw, kr_op *op) {
  kr_builder_set_insertion_point_before(&rw->builder, op);
}

void kr_rewriter_set_insertion_point_after(kr_rewriter *rw, kr_op *op) {
  kr_builder_set_insertion_point_after(&rw->builder, op);
}

void kr__rewriter_notify_inserted(kr_rewriter *rw, kr_op *op) {
  if (rw->listener.op_inserted) rw->listener.op_inserted(op, rw->listener.user);
}

kr_op *kr_rewriter_create(kr_rewriter *rw, const kr_op_state *st) {
  kr_op *op = kr_builder_create(&rw->builder, st);
  if (op && op->block) kr__rewriter_notify_inserted(rw, op);
  return op;
}

/* Tells the listener about `op` and everything nested in it, innermost first (MLIR's eraseOp
 * order), so a worklist can forget all of them. */
void kr__rewriter_notify_erased(kr_rewriter *rw, kr_op *op) {
  if (!rw->listener.op_erased) return;
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kr_block *b = op->regions[r].first; b; b = b->next)
      for (kr_op *o = b->last; o; o = o->prev) kr__rewriter_notify_erased(rw, o);
  rw->listener.op_erased(op, rw->listener.user);
}

void kr_rewriter_erase_op(kr_rewriter *rw, kr_op *op) {
  kr__rewriter_notify_erased(rw, op);
  kr_op_erase(op);
}

void kr_rewriter_modified(kr_rewriter *rw, kr_op *op) {
  if (rw->listener.op_modified) rw->listener.op_modified(op, rw->listener.user);
}

void kr_rewriter_replace_all_uses(kr_rewriter *rw, kr_value from, kr_value to) {
  if (from == to) return;
  if (!rw->listener.op_modified) {
    kr_value_replace_all_uses(from, to);
    return;
  }
  /* The users change (their operand does), so they are reported after the change. */
  kr_vec users = {0};
  for (kr_use *u = from->first_use; u; u = u->next) KR_VEC_PUSH(&users, kr_op *, u->owner);
  kr_value_replace_all_uses(from, to);
  for (size_t i = 0; i < users.len; i++) kr_rewriter_modified(rw, KR_VEC_AT(&users, kr_op *, i));
  kr_vec_free(&users);
}

void kr_rewriter_replace_op(kr_rewriter *rw, kr_op *op, const kr_value *vals) {
  for (uint32_t i = 0; i < op->num_results; i++) kr_rewriter_replace_all_uses(rw, kr_op_result(op, i), vals[i]);
  kr_rewriter_erase_op(rw, op);
}

void kr_rewriter_inline_block_before(kr_rewriter *rw, kr_block *src, kr_op *before, const kr_value *args) {
  for (uint32_t i = 0; i < src->num_args; i++) kr_rewriter_replace_all_uses(rw, src->args[i], args[i]);
  while (src->first) {
    kr_op *o = src->first;
    kr_op_remove(o);
    kr_op_insert_before(o, before);
    kr__rewriter_notify_inserted(rw, o);
  }
  if (src->region) kr_region_remove_block(src->region, src);
  kr_block_erase(src);
}
