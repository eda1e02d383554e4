/* passes/schedule/injective.c - the "injective" and "window" templates (schedule.h;
 * docs/Scheduling.md "Injective and window kernels").
 *
 * Injective kernels (elementwise and layout primitives, Hidet ASPLOS'23 §5's injective
 * operators) and window kernels (one cum_sum or reduce_window with elementwise prologues and
 * epilogues, docs/Orchestration.md "The schedulability contract") are scheduled alike: every
 * written tensor is computed over its own index space by compute-inline (the element emitter,
 * emit*.c), one thread per element, or per vector of 2/4 consecutive elements along the last
 * axis when every written tensor allows vector loads (ks_emit_vectorizable) and stores.
 *
 *   grid   = ceil(items / threads) blocks of threads = min(256, items rounded up to a warp),
 *            items = the largest written tensor's elements / width (a 1-D grid, one item per
 *            thread, no grid-stride loop; grid.x <= 2^31 - 1 as CUDA allows)
 *   worker = block_id.x * threads + thread_id.x, mapped by spatial(grid) * spatial(threads)
 *            (kernel.map: worker w owns task w / threads * threads + w % threads = w)
 *   task i = the i-th item of every written tensor that has one (kernel.if i < items_t when a
 *            tensor has fewer): its row-major index, so consecutive threads of a warp touch
 *            consecutive elements and global accesses are coalesced.
 *
 * Written tensors of one shape share a guard, so sub-expressions they share are emitted once
 * (the emitter memoises per index).  In a window kernel each thread runs the window loop of
 * its element (emit_reduction.c); window kernels are never vectorised.
 *
 * Two kernel shapes get a shared-memory variant first, for coalescing: a transpose that moves
 * the last axis (injective_transpose.c: a 32x33 tile, or a slab when layout ops follow it) and
 * a reduce_window over small trailing planes (injective_window.c: whole planes staged). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/schedule/emit_impl.h"

#define INJ_MAX_THREADS 256

typedef struct out_group {
  unsigned rank;
  const int64_t *dims;
  int64_t numel;
  unsigned *members; /* output numbers */
  unsigned n;
} out_group;

static bool has_window(ks_kernel *k) {
  for (kr_op *op = k->old_body->first; op; op = op->next)
    if (!strcmp(op->name, "prim.cum_sum") || !strcmp(op->name, "prim.reduce_window")) return true;
  return false;
}

static bool same_dims(const int64_t *a, unsigned ra, const int64_t *b, unsigned rb) {
  if (ra != rb) return false;
  for (unsigned i = 0; i < ra; i++)
    if (a[i] != b[i]) return false;
  return true;
}

/* The widest vector width (4, 2 or 1) every written tensor allows. */
static unsigned pick_width(ks_kernel *k, ks_emitter *e) {
  static const unsigned widths[] = {4, 2};
  for (unsigned w = 0; w < 2; w++) {
    bool ok = true;
    for (unsigned i = 0; i < k->num_outputs && ok; i++) {
      unsigned r;
      const int64_t *d = es_dims(k->outputs[i], &r);
      ok = r >= 1 && d[r - 1] % widths[w] == 0 && kr_type_num_elements(kr_value_type(k->outputs[i])) > 0 &&
           ks_emit_vectorizable(e, k->outputs[i], widths[w]);
    }
    if (ok) return widths[w];
  }
  return 1;
}

/* Dead-code removal on the new body: the index builders materialise a constant per literal and
 * the emitter may leave a lane index or a constant unused; pure ops with results but without
 * uses and regions go (users before their operands: ops are visited in reverse program order,
 * nested ones included). */
typedef struct op_list {
  kr_op **ops;
  size_t n, cap;
} op_list;

static kr_walk_result collect(kr_op *op, void *user) {
  op_list *l = user;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 256;
    kr_op **o = realloc(l->ops, cap * sizeof *o);
    if (!o) return KR_WALK_INTERRUPT;
    l->ops = o;
    l->cap = cap;
  }
  l->ops[l->n++] = op;
  return KR_WALK_ADVANCE;
}

static void drop_dead_code(kr_block *body) {
  op_list l = {0};
  for (kr_op *op = body->first; op; op = op->next)
    if (kr_op_walk(op, KR_WALK_PRE_ORDER, collect, &l) == KR_WALK_INTERRUPT) break;
  for (size_t i = l.n; i-- > 0;) {
    kr_op *op = l.ops[i];
    if (op->num_regions == 0 && op->num_results > 0 && kr_op_has_trait(op, KR_TRAIT_PURE) && kr_op_use_empty(op))
      kr_op_erase(op);
  }
  free(l.ops);
}

/* Stores `width` consecutive elements of output `o` at `index` (last component a multiple of
 * width). */
static kr_status store_output(ks_kernel *k, ks_emitter *e, unsigned o, const kr_value *index, unsigned width) {
  kr_value vals[4];
  if (ks_emit_elements(e, k->outputs[o], index, width, vals)) return KR_FAILURE;
  ks_builder *kb = ks_emitter_builder(e);
  kr_value v = width > 1 ? ks_vector_from_elements(kb, vals, width) : vals[0];
  ks_store(kb, v, k->out_bufs[o], index);
  return KR_SUCCESS;
}

kr_status ks_schedule_injective(ks_kernel *k) {
  bool window = has_window(k);
  const char *tmpl = window ? "window" : "injective";
  ks_builder kb;
  ks_builder_init(&kb, k->ctx, k->body, k->func->loc);
  ks_emitter *e = ks_emitter_create(k, &kb);
  out_group *groups = calloc(k->num_outputs + 1, sizeof *groups);
  unsigned *members = calloc(k->num_outputs + 1, sizeof *members);
  kr_status st = KR_SUCCESS;
  if (!e || !groups || !members) {
    st = kr_op_emit_error(k->func, "schedule: out of memory");
    goto done;
  }
  for (unsigned i = 0; i < k->num_outputs; i++)
    if (!ks_emit_supported(e, k->outputs[i])) {
      kr_op *d = kr_value_defining_op(k->outputs[i]);
      st = kr_op_emit_error(d ? d : k->func,
                            "schedule: the %s template cannot compute this written tensor by compute-inline "
                            "(a primitive on its way back to the kernel's inputs has no element rule)",
                            tmpl);
      goto done;
    }
  {
    bool tiled = false;
    st = window ? ks_schedule_window_staged(k, &tiled) : ks_schedule_injective_transpose(k, &tiled);
    if (KR_FAILED(st) || tiled) goto done;
  }
  unsigned width = window ? 1 : pick_width(k, e);

  /* Group the written tensors by shape. */
  unsigned ng = 0;
  for (unsigned i = 0; i < k->num_outputs; i++) {
    unsigned r;
    const int64_t *d = es_dims(k->outputs[i], &r);
    unsigned g = 0;
    while (g < ng && !same_dims(groups[g].dims, groups[g].rank, d, r)) g++;
    if (g == ng) {
      groups[ng].rank = r;
      groups[ng].dims = d;
      groups[ng].numel = kr_type_num_elements(kr_value_type(k->outputs[i]));
      groups[ng].members = members + i; /* filled below, contiguous per group */
      ng++;
    }
  }
  unsigned at = 0;
  for (unsigned g = 0; g < ng; g++) {
    groups[g].members = members + at;
    for (unsigned i = 0; i < k->num_outputs; i++) {
      unsigned r;
      const int64_t *d = es_dims(k->outputs[i], &r);
      if (same_dims(groups[g].dims, groups[g].rank, d, r)) members[at++] = i;
    }
    groups[g].n = (unsigned)(members + at - groups[g].members);
  }

  int64_t items = 0;
  for (unsigned g = 0; g < ng; g++)
    if (groups[g].numel / width > items) items = groups[g].numel / width;
  int64_t max_threads = ks_block_threads(k, INJ_MAX_THREADS);
  int64_t threads = items < max_threads ? (items + 31) / 32 * 32 : max_threads;
  if (threads < 32) threads = 32;
  int64_t blocks = items ? (items + threads - 1) / threads : 1;
  if (blocks > 2147483647LL) {
    st = kr_op_emit_error(k->func, "schedule: %lld blocks exceed CUDA's grid limit 2^31 - 1", (long long)blocks);
    goto done;
  }

  /* worker = block_id.x * threads + thread_id.x; mapping spatial(blocks) * spatial(threads). */
  kr_value tid = ks_thread_id(&kb), bid = ks_block_id(&kb, 0);
  kr_value worker = ks_add(&kb, ks_mulc(&kb, bid, threads), tid);
  kr_task_mapping grid_m = kr_task_spatial(1, &blocks), block_m = kr_task_spatial(1, &threads), m;
  if (!kr_task_compose(&grid_m, &block_m, &m)) {
    st = kr_op_emit_error(k->func, "schedule: the task mapping spatial(%lld) * spatial(%lld) is not valid",
                          (long long)blocks, (long long)threads);
    goto done;
  }
  ks_scope map_scope;
  kr_value task[1];
  ks_map(&kb, worker, &m, task, &map_scope);
  for (unsigned g = 0; g < ng && !KR_FAILED(st); g++) {
    out_group *gr = &groups[g];
    int64_t gitems = gr->numel / width;
    if (gitems == 0) continue;
    ks_scope if_scope;
    bool guarded = gitems < blocks * threads;
    if (guarded) ks_if(&kb, es_index_cmp(e, "slt", task[0], gitems), &if_scope);
    int64_t dims[KR_KERNEL_MAX_RANK];
    kr_value index[KR_KERNEL_MAX_RANK];
    for (unsigned d = 0; d < gr->rank; d++) dims[d] = gr->dims[d];
    if (gr->rank) dims[gr->rank - 1] /= width;
    ks_delinearize(&kb, task[0], dims, gr->rank, index);
    if (gr->rank && width > 1) index[gr->rank - 1] = ks_mulc(&kb, index[gr->rank - 1], width);
    for (unsigned i = 0; i < gr->n && !KR_FAILED(st); i++) st = store_output(k, e, gr->members[i], index, width);
    if (guarded) ks_end(&kb, &if_scope);
  }
  ks_end(&kb, &map_scope);
  if (KR_FAILED(st)) goto done;
  ks_create(&kb, KR_KERNEL_RETURN_OP, NULL, 0, NULL, 0);
  char desc[160];
  snprintf(desc, sizeof desc, "%lld blocks x %lld threads, %s per thread, %u written tensor%s", (long long)blocks,
           (long long)threads, width == 4 ? "vector<4> (4 elements)" : width == 2 ? "vector<2> (2 elements)" : "1 element",
           k->num_outputs, k->num_outputs == 1 ? "" : "s");
  int64_t grid[3] = {blocks, 1, 1};
  st = ks_set_launch(k, tmpl, grid, threads, 0, desc);
done:
  if (!KR_FAILED(st)) drop_dead_code(k->body);
  ks_emitter_destroy(e);
  free(groups);
  free(members);
  return st;
}
