/* ir/dominance.h - dominator trees of regions' control-flow graphs (private to libkorch; the
 * verifier's dominance check uses it).
 *
 * A region's CFG has its blocks as nodes and, as in MLIR's Block::getSuccessors, the successors of
 * each block's last op as edges (a single-block region has no edges).  Trees are built lazily per
 * region with the Cooper-Harvey-Kennedy iterative algorithm ("A Simple, Fast Dominance
 * Algorithm", 2001) over reverse postorder, then numbered by a DFS of the tree so that a
 * dominance query is two comparisons.  Only regions with more than one block are stored. */
#ifndef KORCH_IR_DOMINANCE_H
#define KORCH_IR_DOMINANCE_H

#include "korch/adt.h"
#include "korch/ir.h"

typedef struct kr_dom_node {
  uint32_t pre, post;   /* DFS interval in the dominator tree */
  bool reachable;       /* from the region's entry block */
} kr_dom_node;

typedef struct kr_dominance {
  kr_hmap index;        /* kr_block * -> node index + 1 */
  kr_vec nodes;         /* kr_dom_node */
  kr_vec scratch[8];    /* uint32_t work arrays, reused across regions */
} kr_dominance;

void kr_dominance_init(kr_dominance *d);
void kr_dominance_free(kr_dominance *d);
/* Whether `b` (in a region) can be reached from its region's entry block. */
bool kr_dominance_reachable(kr_dominance *d, kr_block *b);
/* Whether block `a` properly dominates block `b` (same region, a != b).  As in LLVM's
 * DominatorTree, an unreachable `b` is dominated by every block and an unreachable `a`
 * dominates nothing. */
bool kr_dominance_properly_dominates(kr_dominance *d, kr_block *a, kr_block *b);

#endif
