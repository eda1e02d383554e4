/* ir/walk.c - pre- and post-order traversal of nested operations.
 *
 * The next op of a block is fetched before the current one is visited, so a post-order callback
 * may erase the op it is given (and a pre-order callback may erase it when returning SKIP). */
#include "ir/context_impl.h"

static kr_walk_result walk_regions(kr_op *op, kr_walk_order order, kr_walk_fn fn, void *user) {
  for (unsigned r = 0; r < op->num_regions; r++) {
    for (kr_block *b = op->regions[r].first; b;) {
      kr_block *nb = b->next;
      for (kr_op *o = b->first; o;) {
        kr_op *next = o->next;
        if (kr_op_walk(o, order, fn, user) == KR_WALK_INTERRUPT) return KR_WALK_INTERRUPT;
        o = next;
      }
      b = nb;
    }
  }
  return KR_WALK_ADVANCE;
}

kr_walk_result kr_op_walk(kr_op *op, kr_walk_order order, kr_walk_fn fn, void *user) {
  if (order == KR_WALK_PRE_ORDER) {
    kr_walk_result r = fn(op, user);
    if (r == KR_WALK_INTERRUPT) return r;
    if (r == KR_WALK_SKIP) return KR_WALK_ADVANCE;
    return walk_regions(op, order, fn, user);
  }
  if (walk_regions(op, order, fn, user) == KR_WALK_INTERRUPT) return KR_WALK_INTERRUPT;
  kr_walk_result r = fn(op, user);
  return r == KR_WALK_INTERRUPT ? r : KR_WALK_ADVANCE;
}
