/* ir/builder.c - an insertion point plus kr_op_create (MLIR's OpBuilder). */
#include "ir/context_impl.h"

void kr_builder_init(kr_builder *b, kr_context *ctx) {
  b->ctx = ctx;
  b->block = NULL;
  b->before = NULL;
}

void kr_builder_set_insertion_point_before(kr_builder *b, kr_op *op) {
  b->block = op->block;
  b->before = op;
}

void kr_builder_set_insertion_point_after(kr_builder *b, kr_op *op) {
  b->block = op->block;
  b->before = op->next;
}

void kr_builder_set_insertion_point_to_end(kr_builder *b, kr_block *block) {
  b->block = block;
  b->before = NULL;
}

void kr_builder_set_insertion_point_to_start(kr_builder *b, kr_block *block) {
  b->block = block;
  b->before = block->first;
}

void kr_builder_insert(kr_builder *b, kr_op *op) {
  if (!b->block) return;
  if (b->before)
    kr_op_insert_before(op, b->before);
  else
    kr_block_append_op(b->block, op);
}

kr_op *kr_builder_create(kr_builder *b, const kr_op_state *st) {
  kr_op *op = kr_op_create(st);
  if (op) kr_builder_insert(b, op);
  return op;
}
