/* passes/schedule/lower_task_mappings.c - --lower-task-mappings: rewrites every kernel.map into
 * index arithmetic and kernel.for loops (Hidet, ASPLOS'23 §4.1; korch/kernel.h for the algebra,
 * docs/TaskMappings.md for worked examples and the IR this produces).
 *
 *   kernel.map %w by #kernel.task<spatial(4, 8) * repeat(2, 2)> (%i, %j) { BODY }
 *
 * becomes, with W = num_workers = 32 (the guard only when %w < 32 is not provable):
 *
 *   kernel.if (%w <u 32) {                         unsigned: negative workers own no task either
 *     %s0 = %w / 8 ; %s1 = %w % 8                  spatial(4, 8): worker -> (s0, s1), row-major
 *     %b0 = %s0 * 2 ; %b1 = %s1 * 2                scaled by the inner atoms' dims (repeat(2, 2))
 *     kernel.for %r0 = 0 to 2 step 1 {unroll = 2}  repeat(2, 2): one loop per dim, rank 0 outermost
 *       %i = %b0 + %r0
 *       kernel.for %r1 = 0 to 2 step 1 {unroll = 2}
 *         %j = %b1 + %r1
 *         BODY
 *
 * Worker split: the last atom is the fastest-varying part of the worker (f * g: w = w_f * W_g +
 * w_g), so spatial atoms take w % W_a from the innermost outwards; the outermost spatial atom
 * takes the quotient that is left without a remainder (the guard bounds it).  Within an atom the
 * dim with the largest rank varies fastest.  Repeat atoms become loops in atom order (outer atom
 * = outer loops) and, within an atom, in rank order, which is the mapping's task order.  Loops
 * of trip count <= 8 get an `unroll` hint equal to the trip count.  Dims of size 1 produce no
 * arithmetic and no loop.
 *
 * Maps are lowered innermost first, so an inner map whose worker is an outer map's task
 * coordinate still sees that coordinate as a block argument with a known bound when its guard is
 * decided.  The guard is omitted only when a small range analysis (below) proves 0 <= w < W. */
#include <string.h>

#include "korch/diag.h"
#include "passes/pass_impl.h"
#include "passes/schedule/schedule.h"

#define UNROLL_MAX 8                     /* trip counts up to this get an unroll hint */
#define BOUND_CAP ((int64_t)1 << 50)     /* larger bounds are treated as unknown (no overflow) */

/* ---------------------------------------------------------------------------------------------
 * Range analysis: an exclusive upper bound B with 0 <= v < B, or -1 when none is provable.  It
 * knows the launch geometry (korch.block / korch.grid of the enclosing kernel.func), constants,
 * loop and map coordinates, and non-negative index arithmetic.  Depth-limited: it only has to
 * see through the few ops templates put between a thread id and a worker. */

static bool launch_dims(kr_op *op, const char *name, int64_t dims[3]) {
  while (op && strcmp(op->name, KR_KERNEL_FUNC_OP)) op = kr_op_parent_op(op);
  kr_attr a = op ? kr_op_get_attr(op, name) : NULL;
  if (!a || a->kind != KR_ATTR_DENSE_ARRAY || a->u.dense_array.num != 3 ||
      a->u.dense_array.size != 3 * sizeof(int64_t))
    return false;
  memcpy(dims, a->u.dense_array.data, 3 * sizeof(int64_t));
  for (int i = 0; i < 3; i++)
    if (dims[i] < 1 || dims[i] > BOUND_CAP) return false;
  return true;
}

static int64_t dim_attr(kr_op *op) {
  kr_attr a = kr_op_get_attr(op, KR_KERNEL_ATTR_DIM);
  return a && a->kind == KR_ATTR_INTEGER && a->u.i >= 0 && a->u.i < 3 ? a->u.i : -1;
}

static int64_t cap(int64_t b) { return b < 0 || b > BOUND_CAP ? -1 : b; }

static int64_t upper_bound(kr_value v, int depth) {
  if (depth > 12) return -1;
  int64_t c;
  if (ks_const_value(v, &c)) return c >= 0 && c < BOUND_CAP ? c + 1 : -1;
  if (v->is_block_arg) {
    kr_op *owner = kr_block_parent_op(v->owner.block);
    if (!owner) return -1;
    if (!strcmp(owner->name, KR_KERNEL_FOR_OP)) {
      /* lb <= i < ub with a positive step: non-negative when lb is, below ub's bound minus one. */
      int64_t step;
      if (!ks_const_value(kr_op_operand(owner, 2), &step) || step < 1) return -1;
      int64_t lb = upper_bound(kr_op_operand(owner, 0), depth + 1);
      int64_t ub = upper_bound(kr_op_operand(owner, 1), depth + 1);
      return lb > 0 && ub > 1 ? ub - 1 : -1;
    }
    if (!strcmp(owner->name, KR_KERNEL_MAP_OP)) {
      kr_task_mapping m;
      if (!kr_task_mapping_from_attr(kr_op_get_attr(owner, KR_KERNEL_ATTR_MAPPING), &m) || v->index >= m.rank)
        return -1;
      int64_t shape[KR_KERNEL_MAX_RANK];
      kr_task_mapping_shape(&m, shape);
      return shape[v->index];
    }
    return -1;
  }
  kr_op *d = kr_value_defining_op(v);
  const char *n = d->name;
  int64_t block[3], grid[3];
  if (!strcmp(n, KR_KERNEL_THREAD_ID_OP) || !strcmp(n, KR_KERNEL_BLOCK_DIM_OP)) {
    int64_t k = dim_attr(d);
    if (k < 0 || !launch_dims(d, KR_KERNEL_ATTR_BLOCK, block)) return -1;
    return block[k] + !strcmp(n, KR_KERNEL_BLOCK_DIM_OP);
  }
  if (!strcmp(n, KR_KERNEL_BLOCK_ID_OP) || !strcmp(n, KR_KERNEL_GRID_DIM_OP)) {
    int64_t k = dim_attr(d);
    if (k < 0 || !launch_dims(d, KR_KERNEL_ATTR_GRID, grid)) return -1;
    return grid[k] + !strcmp(n, KR_KERNEL_GRID_DIM_OP);
  }
  if (!strcmp(n, KR_KERNEL_LANE_ID_OP) || !strcmp(n, KR_KERNEL_WARP_ID_OP)) {
    if (!launch_dims(d, KR_KERNEL_ATTR_BLOCK, block)) return -1;
    int64_t threads = block[0] * block[1] * block[2];
    if (!strcmp(n, KR_KERNEL_LANE_ID_OP)) return threads < KR_KERNEL_WARP_SIZE ? threads : KR_KERNEL_WARP_SIZE;
    return cap((threads + KR_KERNEL_WARP_SIZE - 1) / KR_KERNEL_WARP_SIZE);
  }
  if (d->num_operands != 2) return -1;
  int64_t a = upper_bound(kr_op_operand(d, 0), depth + 1);
  if (a < 0) return -1;
  bool cb = ks_const_value(kr_op_operand(d, 1), &c);
  if (!strcmp(n, "arith.remsi") || !strcmp(n, "arith.remui"))
    return cb && c > 0 ? (a < c ? a : c) : -1;
  if (!strcmp(n, "arith.divsi") || !strcmp(n, "arith.divui"))
    return cb && c > 0 ? (a - 1) / c + 1 : -1;
  int64_t b = upper_bound(kr_op_operand(d, 1), depth + 1);
  if (b < 0) return -1;
  if (!strcmp(n, "arith.addi")) return cap(a + b - 1);
  if (!strcmp(n, "arith.muli")) return (a - 1) > 0 && (b - 1) > BOUND_CAP / (a - 1) ? -1 : cap((a - 1) * (b - 1) + 1);
  if (!strcmp(n, "arith.minsi") || !strcmp(n, "arith.minui")) return a < b ? a : b;
  if (!strcmp(n, "arith.maxsi")) return a > b ? a : b;
  return -1;
}

/* ---------------------------------------------------------------------------------------------
 * The rewrite */

/* One map's rewrite: the builder, and index constants created once each, in a run just before
 * the lowered code (so they dominate the guard, the loops and the body). */
typedef struct lowering {
  ks_builder kb;
  kr_op *last_const; /* the constant run ends here; NULL before the first */
  int64_t cval[64];
  kr_value cv[64];
  unsigned nconst;
} lowering;

static kr_value cidx(lowering *L, int64_t c) {
  for (unsigned i = 0; i < L->nconst; i++)
    if (L->cval[i] == c) return L->cv[i];
  /* The first constant is requested before any region op is built (the guard's bound or the
   * spatial split or the first loop's bounds), i.e. where the map was. */
  kr_builder saved = L->kb.b;
  if (L->last_const) kr_builder_set_insertion_point_after(&L->kb.b, L->last_const);
  kr_value v = ks_index(&L->kb, c);
  L->kb.b = saved;
  L->last_const = kr_value_defining_op(v);
  if (L->nconst < 64) {
    L->cval[L->nconst] = c;
    L->cv[L->nconst++] = v;
  }
  return v;
}

static kr_value mulc(lowering *L, kr_value x, int64_t c) { return c == 1 ? x : ks_mul(&L->kb, x, cidx(L, c)); }

/* acc + term, where NULL stands for 0 (no op emitted for it). */
static kr_value add_term(lowering *L, kr_value acc, kr_value term) { return acc ? ks_add(&L->kb, acc, term) : term; }

/* Unravels x (0 <= x < prod(dims)) over atom `at`'s dims in its rank order into coord[rank]
 * (NULL for a coordinate that is always 0): the dim of the largest rank varies fastest; the most
 * significant dim takes the quotient left, which is below its size without a remainder. */
static void unravel(lowering *L, const kr_task_atom *at, unsigned rank, kr_value x, kr_value *coord) {
  for (unsigned r = rank; r-- > 0;) {
    unsigned dim = 0;
    for (unsigned i = 0; i < rank; i++)
      if (at->ranks[i] == r) dim = i;
    if (at->dims[dim] == 1) {
      coord[dim] = NULL;
    } else if (r == 0) {
      coord[dim] = x;
    } else {
      coord[dim] = ks_rem(&L->kb, x, cidx(L, at->dims[dim]));
      x = ks_div(&L->kb, x, cidx(L, at->dims[dim]));
    }
  }
}

static kr_status lower_map(kr_op *map) {
  kr_task_mapping m;
  if (!kr_task_mapping_from_attr(kr_op_get_attr(map, KR_KERNEL_ATTR_MAPPING), &m))
    return kr_op_emit_error(map, "expects a #kernel.task attribute '%s'", KR_KERNEL_ATTR_MAPPING);
  kr_region *region = kr_op_region(map, 0);
  kr_block *body = region->first;
  if (map->num_operands != 1 || !body || body != region->last || body->num_args != m.rank)
    return kr_op_emit_error(map, "expects one worker operand and one block with %u task arguments", m.rank);

  kr_context *ctx = kr_op_context(map);
  lowering L;
  memset(&L, 0, sizeof L);
  ks_builder_init(&L.kb, ctx, NULL, map->loc);
  kr_builder_set_insertion_point_before(&L.kb.b, map);
  kr_value w = kr_op_operand(map, 0);
  const int64_t workers = kr_task_mapping_num_workers(&m);
  int64_t wc;
  if (ks_const_value(w, &wc) && (wc < 0 || wc >= workers)) {
    /* A worker outside [0, W) owns no task: the body never runs. */
    kr_op_drop_all_references(map);
    kr_op_erase(map);
    return KR_SUCCESS;
  }
  ks_scope guard = {NULL};
  int64_t ub = upper_bound(w, 0);
  if (ub < 0 || ub > workers) {
    /* One unsigned compare rejects w < 0 and w >= W (PTX setp.lo). */
    kr_value ops[2] = {w, cidx(&L, workers)};
    kr_op *cmp = ks_create(&L.kb, "arith.cmpi", ops, 2, kr_type_integer(ctx, 1, KR_SIGNLESS), 0);
    kr_op_set_attr(cmp, "predicate", kr_attr_integer(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), 6)); /* ult */
    ks_if(&L.kb, kr_op_result(cmp, 0), &guard);
  }

  /* scale[a][i]: the product of dims[i] of the atoms after a (task = sum coord_a * scale_a). */
  int64_t scale[KR_TASK_MAX_ATOMS][KR_KERNEL_MAX_RANK];
  for (unsigned i = 0; i < m.rank; i++) {
    int64_t s = 1;
    for (unsigned a = m.num_atoms; a-- > 0;) {
      scale[a][i] = s;
      s *= m.atoms[a].dims[i];
    }
  }
  unsigned outer_spatial = m.num_atoms;
  for (unsigned a = 0; a < m.num_atoms && outer_spatial == m.num_atoms; a++)
    if (m.atoms[a].kind == KR_TASK_SPATIAL) outer_spatial = a;

  /* Spatial atoms: the worker's part of the task, computed once before the loops. */
  kr_value task[KR_KERNEL_MAX_RANK] = {NULL};
  kr_value rest = w;
  for (unsigned a = m.num_atoms; a-- > 0;) {
    const kr_task_atom *at = &m.atoms[a];
    if (at->kind != KR_TASK_SPATIAL) continue;
    int64_t size = 1;
    for (unsigned i = 0; i < m.rank; i++) size *= at->dims[i];
    kr_value x = rest;
    if (a != outer_spatial && size > 1) {
      x = ks_rem(&L.kb, rest, cidx(&L, size));
      rest = ks_div(&L.kb, rest, cidx(&L, size));
    }
    kr_value coord[KR_KERNEL_MAX_RANK];
    unravel(&L, at, m.rank, x, coord);
    for (unsigned i = 0; i < m.rank; i++)
      if (coord[i]) task[i] = add_term(&L, task[i], mulc(&L, coord[i], scale[a][i]));
  }

  /* Repeat atoms: loops, outer atom outermost, rank 0 outermost within an atom. */
  ks_scope loops[KR_TASK_MAX_ATOMS * KR_KERNEL_MAX_RANK];
  unsigned num_loops = 0;
  for (unsigned a = 0; a < m.num_atoms; a++) {
    const kr_task_atom *at = &m.atoms[a];
    if (at->kind != KR_TASK_REPEAT) continue;
    for (unsigned r = 0; r < m.rank; r++) {
      unsigned dim = 0;
      for (unsigned i = 0; i < m.rank; i++)
        if (at->ranks[i] == r) dim = i;
      int64_t d = at->dims[dim];
      if (d == 1) continue;
      kr_value iv = ks_for(&L.kb, cidx(&L, 0), cidx(&L, d), cidx(&L, 1), &loops[num_loops]);
      if (d <= UNROLL_MAX)
        kr_op_set_attr(loops[num_loops].op, KR_KERNEL_ATTR_UNROLL,
                       kr_attr_integer(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), d));
      num_loops++;
      task[dim] = add_term(&L, task[dim], mulc(&L, iv, scale[a][dim]));
    }
  }

  /* The body, at the innermost point, with the task coordinates substituted. */
  for (unsigned i = 0; i < m.rank; i++) {
    kr_value t = task[i] ? task[i] : cidx(&L, 0);
    kr_value_replace_all_uses(body->args[i], t);
  }
  while (body->first) {
    kr_op *op = body->first;
    kr_op_remove(op);
    kr_builder_insert(&L.kb.b, op);
  }
  kr_op_erase(map);
  return KR_SUCCESS;
}

static kr_walk_result collect_maps(kr_op *op, void *user) {
  if (!strcmp(op->name, KR_KERNEL_MAP_OP)) KR_VEC_PUSH((kr_vec *)user, kr_op *, op);
  return KR_WALK_ADVANCE;
}

static kr_status lower_run(kr_op *op, const void *options, kr_pass_run *run) {
  (void)options;
  /* Post-order: inner maps come before the maps that contain them. */
  kr_vec maps = {0};
  kr_op_walk(op, KR_WALK_POST_ORDER, collect_maps, &maps);
  if (!maps.len) kr_pass_run_mark_unchanged(run);
  kr_status st = KR_SUCCESS;
  for (size_t i = 0; i < maps.len && st == KR_SUCCESS; i++) st = lower_map(KR_VEC_AT(&maps, kr_op *, i));
  kr_vec_free(&maps);
  return st;
}

const kr_pass_def kr_lower_task_mappings_pass = {
  .argument = "lower-task-mappings",
  .summary = "Rewrite every kernel.map into index arithmetic and kernel.for loops (Hidet task mappings)",
  .run = lower_run,
  .display_name = "LowerTaskMappings",
};
