/* passes/dce.c - `dce`: dead-code elimination without patterns or folding.
 *
 * Erases blocks of multi-block regions that their entry block cannot reach, then trivially dead
 * ops (kr_op_is_trivially_dead: effect-free and unused).  Blocks are visited last to first and ops
 * bottom-up, nested regions before the op holding them, so a chain of dead ops goes in one sweep;
 * sweeps repeat until nothing changes (a use in an earlier block can keep an op alive only until
 * that user is gone).  MLIR has no pass of this name: the result equals what its canonicalize
 * does on IR without folds or patterns. */
#include "passes/pass_impl.h"

static bool dce_region(kr_region *r);

static bool dce_block(kr_block *b) {
  bool changed = false;
  kr_op *prev;
  for (kr_op *op = b->last; op; op = prev) {
    prev = op->prev;
    for (uint32_t i = 0; i < op->num_regions; i++)
      if (dce_region(&op->regions[i])) changed = true;
    if (kr_op_is_trivially_dead(op)) {
      kr_op_erase(op);
      changed = true;
    }
  }
  return changed;
}

static bool dce_region(kr_region *r) {
  bool changed = false;
  for (kr_block *b = r->last; b; b = b->prev)
    if (dce_block(b)) changed = true;
  return changed;
}

static kr_status dce_run(kr_op *op, const void *options, kr_pass_run *run) {
  bool any = false;
  for (uint32_t i = 0; i < op->num_regions; i++)
    if (kr__erase_unreachable_blocks(NULL, &op->regions[i])) any = true;
  for (;;) {
    bool changed = false;
    for (uint32_t i = 0; i < op->num_regions; i++)
      if (dce_region(&op->regions[i])) changed = true;
    if (!changed) break;
    any = true;
  }
  if (!any) kr_pass_run_mark_unchanged(run);
  return KR_SUCCESS;
}

const kr_pass_def kr_dce_pass = {
  .argument = "dce",
  .summary = "Eliminate dead operations and unreachable blocks",
  .run = dce_run,
  .display_name = "DCE",
};
