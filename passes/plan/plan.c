/* passes/plan/plan.c - kr_plan_buffers and the passes `plan-buffers` and `plan-verify`
 * (korch/plan.h, docs/MemoryPlan.md).
 *
 * Arena offsets: the "greedy by size" planner (Pisarchyk & Lee, "Efficient Memory Management for
 * Deep Neural Net Inference", 2020, section 4.2; TensorFlow Lite's simple_memory_arena): buffers
 * are placed largest first, each at the lowest offset where it overlaps no already placed buffer
 * whose lifetime intersects its own.  Sizes are rounded up to the alignment so that every offset
 * stays aligned.  Ties go to the earlier-defined buffer, so the plan is deterministic. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/diag.h"
#include "korch/dialect.h"
#include "korch/kernel.h"
#include "korch/pass.h"
#include "passes/pass_impl.h"
#include "passes/plan/plan_impl.h"

kr_plan_options kr_plan_default_options(void) {
  kr_plan_options o = {KR_PLAN_DEFAULT_ALIGNMENT, true};
  return o;
}

typedef struct placed {
  uint64_t offset, size;
  int64_t start, end;
} placed;

static int cmp_placed_offset(const void *a, const void *b) {
  const placed *x = *(const placed *const *)a, *y = *(const placed *const *)b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Order of placement: larger aligned size first, then definition order. */
typedef struct to_place {
  uint64_t size;
  unsigned index;
} to_place;
static int cmp_by_size(const void *a, const void *b) {
  const to_place *x = a, *y = b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Offsets of the arena buffers (args and launch results) of `h` into offsets[]; returns the
 * arena size (aligned).  *no_reuse: the sum of the aligned sizes. */
static kr_status place_arena(kr__plan_host *h, uint64_t align, bool reuse, uint64_t *offsets, uint64_t *arena,
                             uint64_t *no_reuse) {
  unsigned n = h->num_bufs;
  to_place *order = malloc(sizeof(to_place) * (n ? n : 1));
  placed *done = malloc(sizeof(placed) * (n ? n : 1));
  placed **live = malloc(sizeof(placed *) * (n ? n : 1));
  if (!order || !done || !live) {
    free(order), free(done), free(live);
    return kr_op_emit_error(h->func, "out of memory while planning");
  }
  unsigned m = 0;
  *no_reuse = 0;
  for (unsigned i = 0; i < n; i++) {
    if (h->bufs[i].kind == KR__PLAN_CONST) continue;
    offsets[i] = 0;
    if (!h->bufs[i].bytes) continue;   /* zero-sized: offset 0, size 0 */
    uint64_t size = kr__plan_align_up(h->bufs[i].bytes, align);
    if (!reuse) offsets[i] = *no_reuse;
    *no_reuse += size;
    order[m++] = (to_place){size, i};
  }
  uint64_t top = reuse ? 0 : *no_reuse;
  if (reuse) {
    qsort(order, m, sizeof *order, cmp_by_size);
    unsigned nd = 0;
    for (unsigned k = 0; k < m; k++) {
      const kr__plan_buf *b = &h->bufs[order[k].index];
      uint64_t size = order[k].size;
      unsigned nl = 0;
      for (unsigned d = 0; d < nd; d++)
        if (!(done[d].end < b->start || b->end < done[d].start)) live[nl++] = &done[d];
      qsort(live, nl, sizeof *live, cmp_placed_offset);
      /* The lowest gap between the live buffers (sorted by offset) that holds `size`. */
      uint64_t at = 0;
      for (unsigned d = 0; d < nl; d++) {
        if (at + size <= live[d]->offset) break;
        uint64_t e = live[d]->offset + live[d]->size;
        if (e > at) at = e;
      }
      offsets[order[k].index] = at;
      done[nd++] = (placed){at, size, b->start, b->end};
      if (at + size > top) top = at + size;
    }
  }
  *arena = top;
  free(order), free(done), free(live);
  return KR_SUCCESS;
}

static kr_attr i64_attr(kr_context *ctx, uint64_t v) {
  return kr_attr_integer(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), (int64_t)v);
}

/* arg_attrs with korch.offset set in each dictionary (other entries kept). */
static kr_attr with_arg_offsets(kr_context *ctx, kr_arena *scratch, kr_op *func, const uint64_t *offsets,
                                unsigned nargs) {
  kr_attr old = kr_op_get_attr(func, "arg_attrs");
  kr_attr *dicts = KR_NEW_ARRAY(scratch, kr_attr, nargs);
  kr_ident key = kr_ident_cstr(ctx, KR_PLAN_OFFSET);
  for (unsigned i = 0; i < nargs; i++) {
    kr_attr d = old && old->kind == KR_ATTR_ARRAY && i < old->u.array.num ? old->u.array.elems[i] : NULL;
    unsigned ne = d && d->kind == KR_ATTR_DICT ? d->u.dict.num : 0;
    kr_named_attr *e = KR_NEW_ARRAY(scratch, kr_named_attr, ne + 1);
    unsigned k = 0;
    for (unsigned j = 0; j < ne; j++)
      if (d->u.dict.entries[j].name != key) e[k++] = d->u.dict.entries[j];
    e[k++] = (kr_named_attr){key, i64_attr(ctx, offsets[i])};
    dicts[i] = kr_attr_dict(ctx, e, k);
  }
  return kr_attr_array(ctx, dicts, nargs);
}

/* Plans one host function. */
static kr_status plan_func(kr_op *func, const kr_plan_options *o) {
  kr_context *ctx = kr_op_context(func);
  kr__plan_host h;
  if (KR_FAILED(kr__plan_host_init(&h, func))) return KR_FAILURE;
  uint64_t align = (uint64_t)o->alignment;
  uint64_t *offsets = calloc(h.num_bufs ? h.num_bufs : 1, sizeof(uint64_t));
  uint64_t arena = 0, no_reuse = 0, weights = 0;
  kr_status st = offsets ? place_arena(&h, align, o->reuse, offsets, &arena, &no_reuse)
                         : kr_op_emit_error(func, "out of memory while planning");
  if (KR_FAILED(st)) goto done;
  /* Weights: every used constant in program order, each at the next aligned offset. */
  for (unsigned i = 0; i < h.num_bufs; i++)
    if (h.bufs[i].kind == KR__PLAN_CONST) {
      offsets[i] = h.bufs[i].bytes ? weights : 0;
      weights += kr__plan_align_up(h.bufs[i].bytes, align);
    }

  /* Replace any earlier plan: stale weight offsets on constants no launch uses any more go. */
  for (unsigned p = 0; p < h.num_ops; p++) kr_op_set_attr(h.ops[p], KR_PLAN_WEIGHT_OFFSET, NULL);
  kr_op_set_attr(func, KR_PLAN_ARENA_BYTES, i64_attr(ctx, arena));
  kr_op_set_attr(func, KR_PLAN_NO_REUSE_BYTES, i64_attr(ctx, no_reuse));
  kr_op_set_attr(func, KR_PLAN_WEIGHTS_BYTES, i64_attr(ctx, weights));
  kr_op_set_attr(func, KR_PLAN_ALIGNMENT, i64_attr(ctx, align));
  kr_arena scratch = {0};
  if (h.body->num_args)
    kr_op_set_attr(func, "arg_attrs", with_arg_offsets(ctx, &scratch, func, offsets, h.body->num_args));
  for (unsigned i = 0; i < h.num_bufs; i++) {
    kr__plan_buf *b = &h.bufs[i];
    if (b->kind == KR__PLAN_CONST) {
      kr_op_set_attr(b->def, KR_PLAN_WEIGHT_OFFSET, i64_attr(ctx, offsets[i]));
    } else if (b->kind == KR__PLAN_RESULT && b->index == 0) {
      int64_t *v = KR_NEW_ARRAY(&scratch, int64_t, b->def->num_results);
      for (unsigned r = 0; r < b->def->num_results; r++) v[r] = (int64_t)offsets[i + r];
      kr_op_set_attr(b->def, KR_PLAN_OFFSETS,
                     kr_attr_dense_array(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), v, b->def->num_results));
    }
  }
  /* The plan must read back: a planner bug is an internal error here, not wrong numbers later. */
  kr_plan plan;
  st = kr_plan_read(func, &scratch, &plan);
  kr_arena_release(&scratch);
done:
  free(offsets);
  kr__plan_host_free(&h);
  return st;
}

kr_status kr_plan_buffers(kr_op *module, const kr_plan_options *options) {
  kr_plan_options o = options ? *options : kr_plan_default_options();
  if (!o.alignment) o.alignment = KR_PLAN_DEFAULT_ALIGNMENT;
  /* 4096 (a page) bounds it: more buys nothing on a GPU and would let the aligned sizes overflow. */
  if (o.alignment < 16 || o.alignment > 4096 || (o.alignment & (o.alignment - 1)))
    return kr_op_emit_error(module, "the plan alignment must be a power of two in [16, 4096] (bytes), got %lld",
                            (long long)o.alignment);
  kr_status st = KR_SUCCESS;
  kr_block *mb = module->num_regions ? module->regions[0].first : NULL;
  for (kr_op *op = mb ? mb->first : NULL; op; op = op->next)
    if (kr__plan_is_host(op) && KR_FAILED(plan_func(op, &o))) st = KR_FAILURE;
  return st;
}

/* --- the passes --------------------------------------------------------------------------- */

typedef struct plan_buffers_options {
  int64_t alignment;
  bool reuse;
} plan_buffers_options;

static const kr_pass_option plan_buffers_options_table[] = {
  {"alignment", KR_OPT_INT, offsetof(plan_buffers_options, alignment), "256",
   "Alignment of every offset in bytes: a power of two in [16, 4096] (256: cudaMalloc's)"},
  {"reuse", KR_OPT_BOOL, offsetof(plan_buffers_options, reuse), "true",
   "Reuse the bytes of dead tensors; false gives every tensor its own range (the no-reuse baseline)"},
};

static kr_status plan_buffers_run(kr_op *module, const void *options, kr_pass_run *run) {
  const plan_buffers_options *po = options;
  kr_plan_options o = {po->alignment, po->reuse};
  (void)run;
  /* 0 means "the default" to kr_plan_buffers only; as a pass option it is a mistake. */
  if (!po->alignment)
    return kr_op_emit_error(module, "plan-buffers: alignment must be a power of two in [16, 4096] (bytes), got 0");
  return kr_plan_buffers(module, &o);
}

const kr_pass_def kr_plan_buffers_pass = {
  .argument = "plan-buffers",
  .summary = "Plan the memory of every host function: one arena (offsets of the tensors passed between kernels, "
             "reused when lifetimes are disjoint) and one weights region, as korch.* attributes",
  .anchor = KR_MODULE_OP,
  .options_size = sizeof(plan_buffers_options),
  .options = plan_buffers_options_table,
  .num_options = sizeof plan_buffers_options_table / sizeof *plan_buffers_options_table,
  .run = plan_buffers_run,
  .display_name = "PlanBuffers",
};

static kr_status plan_verify_run(kr_op *module, const void *options, kr_pass_run *run) {
  (void)options;
  kr_pass_run_mark_unchanged(run);
  kr_status st = KR_SUCCESS;
  kr_block *mb = module->num_regions ? module->regions[0].first : NULL;
  for (kr_op *op = mb ? mb->first : NULL; op; op = op->next) {
    if (!kr__plan_is_host(op)) continue;
    if (!kr_plan_is_planned(op)) {
      st = kr_op_emit_error(op, "host function has no memory plan (attribute '%s'): run plan-buffers",
                            KR_PLAN_ARENA_BYTES);
      continue;
    }
    kr_arena scratch = {0};
    kr_plan plan;
    if (KR_FAILED(kr_plan_read(op, &scratch, &plan))) st = KR_FAILURE;
    kr_arena_release(&scratch);
  }
  return st;
}

const kr_pass_def kr_plan_verify_pass = {
  .argument = "plan-verify",
  .summary = "Check the memory plan of every host function (kr_plan_read: attributes, alignment, ranges, and no "
             "overlap of buffers live at the same launch); changes nothing",
  .anchor = KR_MODULE_OP,
  .run = plan_verify_run,
  .display_name = "PlanVerify",
};
