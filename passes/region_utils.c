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

bool kr__erase_unreachable_blocks(kr_rewriter *rw, kr_region *r) {
  bool changed = false;
  if (r->first && r->first->next) {
    kr_hmap seen = {0};
    mark_reachable(r->first, &seen);
    kr_vec dead = {0};
    for (kr_block *b = r->first; b; b = b->next)
      if (!kr_hmap_find(&seen, kr_hash_ptr(b), b)) KR_VEC_PUSH(&dead, kr_block *, b);
    kr_hmap_free(&seen);
    /* Values of a dead block can only be used in dead blocks (dominance), so once every dead op
     * has dropped its operands nothing refers to them. */
    for (size_t i = 0; i < dead.len; i++) {
      kr_block *b = KR_VEC_AT(&dead, kr_block *, i);
      for (kr_op *o = b->first; o; o = o->next) {
        if (rw) kr__rewriter_notify_erased(rw, o);
        kr_op_drop_all_references(o);
      }
    }
    for (size_t i = 0; i < dead.len; i++) kr_block_erase(KR_VEC_AT(&dead, kr_block *, i));
    changed = dead.len > 0;
    kr_vec_free(&dead);
  }
  for (kr_block *b = r->first; b; b = b->next)
    for (kr_op *o = b->first; o; o = o->next)
      for (uint32_t i = 0; i < o->num_regions; i++)
        if (kr__erase_unreachable_blocks(rw, &o->regions[i])) changed = true;
  return changed;
}
