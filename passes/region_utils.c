/* passes/region_utils.c - control-flow clean-ups shared by canonicalize and dce (MLIR's
 * eraseUnreachableBlocks in RegionUtils.cpp). */
#include "passes/pass_impl.h"

/* Successor edges leave a block through its last op (the terminator; an unregistered last op
 * may carry successors too). */
static void mark_reachable(kr_block *entry, kr_hmap *seen) {
  kr_vec stack = {0};
  bool ins;
  kr_hmap_insert(seen, kr_hash_ptr(entry), entry, &ins);
  KR_VEC_PUSH(&stack, kr_block *, entry);
  while (stack.len) {
    kr_block *b = KR_VEC_AT(&stack, kr_block *, --stack.len);
    kr_op *t = b->last;
    if (!t) continue;
    for (uint32_t i = 0; i < t->num_successors; i++) {
      kr_block *s = t->successors[i];
      kr_hmap_insert(seen, kr_hash_ptr(s), s, &ins);
      if (ins) KR_VEC_PUSH(&stack, kr_block *, s);
    }
  }
  kr_vec_free(&stack);
}

static bool in_dead_block(kr_op *op, const kr_hmap *dead) {
  for (kr_op *o = op; o; o = kr_op_parent_op(o))
    if (o->block && kr_hmap_find(dead, kr_hash_ptr(o->block), o->block)) return true;
  return false;
}

/* Collects (once each) the producers outside dead blocks of the values `op` and the ops nested in
 * it use: they lose a use, so the greedy driver should look at them again. */
static void collect_live_producers(kr_op *op, const kr_hmap *dead, kr_hmap *seen, kr_vec *out) {
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kr_value v = kr_op_operand(op, i);
    kr_op *d = v ? kr_value_defining_op(v) : NULL;
    if (!d || in_dead_block(d, dead)) continue;
    bool ins;
    kr_hmap_insert(seen, kr_hash_ptr(d), d, &ins);
    if (ins) KR_VEC_PUSH(out, kr_op *, d);
  }
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kr_block *b = op->regions[r].first; b; b = b->next)
      for (kr_op *o = b->first; o; o = o->next) collect_live_producers(o, dead, seen, out);
}

bool kr__erase_unreachable_blocks(kr_rewriter *rw, kr_region *r) {
  bool changed = false;
  if (r->first && r->first->next) {
    kr_hmap seen = {0};
    mark_reachable(r->first, &seen);
    kr_vec dead = {0};
    kr_hmap dead_set = {0};
    bool ins;
    for (kr_block *b = r->first; b; b = b->next)
      if (!kr_hmap_find(&seen, kr_hash_ptr(b), b)) {
        KR_VEC_PUSH(&dead, kr_block *, b);
        kr_hmap_insert(&dead_set, kr_hash_ptr(b), b, &ins);
      }
    kr_hmap_free(&seen);
    kr_vec producers = {0};
    kr_hmap producers_seen = {0};
    if (rw)
      for (size_t i = 0; i < dead.len; i++)
        for (kr_op *o = KR_VEC_AT(&dead, kr_block *, i)->first; o; o = o->next)
          collect_live_producers(o, &dead_set, &producers_seen, &producers);
    /* Values of a dead block can only be used in dead blocks (dominance), so once every dead op
     * has dropped its operands nothing refers to them.  Dropping first also keeps the listener
     * from queueing a dead op for a lost use while its block is being erased. */
    for (size_t i = 0; i < dead.len; i++)
      for (kr_op *o = KR_VEC_AT(&dead, kr_block *, i)->first; o; o = o->next) kr_op_drop_all_references(o);
    for (size_t i = 0; i < dead.len; i++) {
      kr_block *b = KR_VEC_AT(&dead, kr_block *, i);
      if (rw)
        for (kr_op *o = b->first; o; o = o->next) kr__rewriter_notify_erased(rw, o);
      kr_block_erase(b);
    }
    for (size_t i = 0; i < producers.len; i++) kr_rewriter_modified(rw, KR_VEC_AT(&producers, kr_op *, i));
    changed = dead.len > 0;
    kr_vec_free(&dead);
    kr_hmap_free(&dead_set);
    kr_vec_free(&producers);
    kr_hmap_free(&producers_seen);
  }
  for (kr_block *b = r->first; b; b = b->next)
    for (kr_op *o = b->first; o; o = o->next)
      for (uint32_t i = 0; i < o->num_regions; i++)
        if (kr__erase_unreachable_blocks(rw, &o->regions[i])) changed = true;
  return changed;
}
