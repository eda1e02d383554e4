/* passes/prim/prim_passes.c - the driver the prim-level rewrite passes share (prim_passes.h). */
#include "passes/pass_impl.h"
#include "passes/prim/prim_passes.h"

typedef struct collect {
  const char *name;
  kr_vec ops;   /* kr_op *: the ops named `name`, in walk order */
} collect;

static kr_walk_result collect_named(kr_op *op, void *user) {
  collect *c = user;
  if (kr__pp_named(op, c->name)) KR_VEC_PUSH(&c->ops, kr_op *, op);
  return KR_WALK_ADVANCE;
}

kr_status kr__pp_rewrite_each(kr_op *op, kr_pass_run *run, const char *name, kr__pp_rewrite_fn rewrite,
                              const void *arg) {
  collect c = {name, {0}};
  for (uint32_t i = 0; i < op->num_regions; i++)
    for (kr_block *b = op->regions[i].first; b; b = b->next)
      for (kr_op *nested = b->first; nested; nested = nested->next)
        kr_op_walk(nested, KR_WALK_PRE_ORDER, collect_named, &c);
  kr_rewriter rw;
  kr_rewriter_init(&rw, kr_pass_run_context(run));
  bool changed = false;
  for (size_t i = 0; i < c.ops.len; i++)
    if (rewrite(&rw, KR_VEC_DATA(&c.ops, kr_op *)[i], arg)) changed = true;
  kr_vec_free(&c.ops);
  if (!changed) kr_pass_run_mark_unchanged(run);
  return KR_SUCCESS;
}
