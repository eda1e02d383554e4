/* passes/orchestrate/graph.c - the prim graph of one function and its regions (Korch, ASPLOS'24,
 * §4: the primitive graph orchestration works on; docs/Orchestration.md, "Regions").
 *
 * Nodes are the non-constant primitives of the function body in block order (a topological
 * order).  Function arguments and constant-like ops (prim.constant) are external inputs.  The
 * partition into regions and the per-primitive flop counts are documented in
 * docs/Orchestration.md ("Regions", "Cost model"). */
#include <stdlib.h>
#include <string.h>

#include "korch/dialect.h"
#include "korch/op.h"
#include "passes/orchestrate/orch.h"

unsigned kr_bits_count(const kr_bits *b) {
  unsigned n = 0;
  for (unsigned i = 0; i < KR_ORCH_WORDS; i++) n += (unsigned)__builtin_popcountll(b->w[i]);
  return n;
}

static int cmp_unsigned(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return x < y ? -1 : x > y;
}

/* Sorts v[0..n) and removes duplicates; returns the new length. */
static unsigned sort_unique(unsigned *v, unsigned n) {
  if (n < 2) return n;
  qsort(v, n, sizeof *v, cmp_unsigned);
  unsigned k = 1;
  for (unsigned i = 1; i < n; i++)
    if (v[i] != v[k - 1]) v[k++] = v[i];
  return k;
}

static int64_t type_bytes(kr_type t) {
  int64_t n = kr_type_num_elements(t);
  if (n < 0) return -1;
  return n * (int64_t)kr_type_storage_bytes(kr_type_element(t));
}

static bool named(const kr_op *op, const char *name) { return !strcmp(op->name, name); }

/* Arithmetic of one primitive (the cost model's rule, docs/Orchestration.md "Cost model"):
 * elementwise: one flop per output element, four for the transcendental functions (exp, log,
 * sqrt, tanh, erf, sin, cos, pow: a few FMAs after range reduction, plus the special-function
 * unit); reductions and cum_sum: one per input element; reduce_window: one per window element
 * of every output; matmul: 2*M*N*K per batch; conv: 2*N*M*prod(out spatial)*(C/group)*
 * prod(kernel); layout: 0. */
static double prim_flops(kr_op *op, kr_prim_class cls) {
  kr_type yt = kr_value_type(kr_op_result(op, 0));
  double ny = (double)kr_type_num_elements(yt);
  switch (cls) {
  case KR_PRIM_ELEMENTWISE: {
    static const char *const heavy[] = {"prim.exp", "prim.log", "prim.sqrt", "prim.tanh",
                                        "prim.erf", "prim.sin", "prim.cos", "prim.pow"};
    for (unsigned i = 0; i < sizeof heavy / sizeof *heavy; i++)
      if (named(op, heavy[i])) return 4.0 * ny;
    return ny;
  }
  case KR_PRIM_REDUCTION: {
    if (named(op, "prim.reduce_window")) {
      const int64_t *win;
      unsigned nw = kr_op_attr_ints(op, "window", &win);
      double w = 1;
      for (unsigned i = 0; i < nw; i++) w *= (double)win[i];
      return ny * w;
    }
    return op->num_operands ? (double)kr_type_num_elements(kr_value_type(kr_op_operand(op, 0))) : 0;
  }
  case KR_PRIM_LINEAR: {
    if (op->num_operands < 2) return 0;
    kr_type a = kr_value_type(kr_op_operand(op, 0)), w = kr_value_type(kr_op_operand(op, 1));
    if (!kr_type_has_static_shape(a) || !kr_type_has_static_shape(w)) return 0;
    if (named(op, "prim.matmul")) {   /* result [..., M, N], lhs [..., M, K]: 2*K per output */
      unsigned r = a->u.shaped.rank;
      return r ? 2.0 * ny * (double)a->u.shaped.dims[r - 1] : 0;
    }
    /* conv: w [M, C/group, k...]: 2 * (C/group) * prod(k) per output element. */
    int64_t m = w->u.shaped.rank ? w->u.shaped.dims[0] : 0;
    return m > 0 ? 2.0 * ny * (double)kr_type_num_elements(w) / (double)m : 0;
  }
  default:
    return 0;
  }
}

void kr_orch_graph_free(kr_orch_graph *g) {
  if (!g) return;
  for (unsigned i = 0; i < g->num_nodes; i++) {
    free(g->nodes[i].preds);
    free(g->nodes[i].succs);
  }
  free(g->nodes);
  free(g->regions);
  memset(g, 0, sizeof *g);
}

/* The regions: see docs/Orchestration.md "Regions".  crossing[p] = number of distinct tensors
 * (nodes u <= p) used by a node > p; a position p with crossing <= 1 where that tensor (if any)
 * is node p's is a cut point.  A region [s, e] is as long as allowed: the rest when it fits in
 * max_region, else it ends at the position of the window [s, s + max_region) with the fewest
 * crossing tensors (ties: the latest, so regions stay as large as possible). */
static kr_status partition(kr_orch_graph *g, unsigned max_region) {
  unsigned n = g->num_nodes;
  if (n == 0) return KR_SUCCESS;
  /* last[u] = largest successor index (u when none). */
  unsigned *crossing = calloc(n + 1, sizeof *crossing);
  int *delta = calloc(n + 1, sizeof *delta);
  g->regions = malloc(n * sizeof *g->regions);
  if (!crossing || !delta || !g->regions) {
    free(crossing);
    free(delta);
    return KR_FAILURE;
  }
  for (unsigned u = 0; u < n; u++) {
    unsigned last = u;
    for (unsigned k = 0; k < g->nodes[u].num_succs; k++)
      if (g->nodes[u].succs[k] > last) last = g->nodes[u].succs[k];
    if (last > u) {   /* u crosses boundaries u, u+1, ..., last-1 */
      delta[u]++;
      delta[last]--;
    }
  }
  int run = 0;
  for (unsigned p = 0; p < n; p++) {
    run += delta[p];
    crossing[p] = (unsigned)run;
  }
  unsigned s = 0;
  while (s < n) {
    unsigned e;
    if (n - s <= max_region) {
      e = n - 1;
    } else {
      e = s;
      for (unsigned p = s; p < s + max_region; p++)
        if (crossing[p] <= crossing[e]) e = p;
    }
    g->regions[g->num_regions++] = (kr_orch_region){.first = s, .n = e - s + 1};
    for (unsigned u = s; u <= e; u++) {
      g->nodes[u].region = g->num_regions - 1;
      g->nodes[u].local = u - s;
    }
    s = e + 1;
  }
  free(crossing);
  free(delta);
  return KR_SUCCESS;
}

kr_status kr_orch_graph_build(kr_op *func, unsigned max_region, kr_orch_graph *g) {
  memset(g, 0, sizeof *g);
  g->func = func;
  if (max_region == 0 || max_region > KR_ORCH_MAX_REGION) max_region = KR_ORCH_MAX_REGION;
  if (func->num_regions == 0) return KR_SUCCESS;
  kr_region *body = kr_op_region(func, 0);
  if (kr_region_empty(body)) return KR_SUCCESS;   /* a declaration */
  if (kr_region_num_blocks(body) != 1)
    return kr_op_emit_error(func, "orchestrate needs a function with a single block, got %zu",
                            kr_region_num_blocks(body));
  kr_block *blk = body->first;

  /* Pass 1: count the nodes, reject what is not at the prim level. */
  unsigned n = 0;
  for (kr_op *op = blk->first; op; op = op->next) {
    if (kr_op_has_trait(op, KR_TRAIT_TERMINATOR) && op == blk->last) continue;
    if (kr_op_has_trait(op, KR_TRAIT_CONSTANT_LIKE)) continue;
    kr_prim_class c = kr_prim_op_class(op);
    if (c == KR_PRIM_NOT_PRIM || c == KR_PRIM_CONSTANT)
      return kr_op_emit_error(op, "orchestrate needs the prim level: run op-to-prim first");
    if (op->num_results != 1 || op->num_regions != 0)
      return kr_op_emit_error(op, "orchestrate expects a primitive with one result and no regions");
    if (type_bytes(kr_value_type(kr_op_result(op, 0))) < 0)
      return kr_op_emit_error(op, "orchestrate needs statically shaped tensors");
    n++;
  }
  if (n == 0) return KR_SUCCESS;
  g->nodes = calloc(n, sizeof *g->nodes);
  if (!g->nodes) return kr_op_emit_error(func, "out of memory");
  kr_hmap index = {0};   /* kr_op * -> node index + 1 (lookups only: never iterated) */
  kr_hmap_reserve(&index, n);
  for (kr_op *op = blk->first; op; op = op->next) {
    if (op == blk->last && kr_op_has_trait(op, KR_TRAIT_TERMINATOR)) continue;
    if (kr_op_has_trait(op, KR_TRAIT_CONSTANT_LIKE)) continue;
    kr_orch_node *nd = &g->nodes[g->num_nodes];
    nd->op = op;
    nd->cls = kr_prim_op_class(op);
    nd->bytes = type_bytes(kr_value_type(kr_op_result(op, 0)));
    nd->flops = prim_flops(op, nd->cls);
    bool inserted;
    kr_hmap_insert(&index, kr_hash_ptr(op), op, &inserted)->value = (void *)(uintptr_t)(g->num_nodes + 1);
    g->num_nodes++;
  }
  kr_status st = KR_SUCCESS;
  bool reported = false;
  /* Pass 2: edges. */
  for (unsigned i = 0; i < n && !KR_FAILED(st); i++) {
    kr_orch_node *nd = &g->nodes[i];
    kr_op *op = nd->op;
    if (op->num_operands) {
      nd->preds = malloc(op->num_operands * sizeof *nd->preds);
      if (!nd->preds) { st = KR_FAILURE; break; }
      for (unsigned k = 0; k < op->num_operands; k++) {
        kr_op *def = kr_value_defining_op(kr_op_operand(op, k));
        kr_hmap_entry *e = def ? kr_hmap_find(&index, kr_hash_ptr(def), def) : NULL;
        if (e) nd->preds[nd->num_preds++] = (unsigned)(uintptr_t)e->value - 1;
      }
      nd->num_preds = sort_unique(nd->preds, nd->num_preds);
    }
    unsigned nu = 0;
    for (kr_use *u = kr_op_result(op, 0)->first_use; u; u = u->next) nu++;
    if (nu) {
      nd->succs = malloc(nu * sizeof *nd->succs);
      if (!nd->succs) { st = KR_FAILURE; break; }
      for (kr_use *u = kr_op_result(op, 0)->first_use; u; u = u->next) {
        kr_hmap_entry *e = kr_hmap_find(&index, kr_hash_ptr(u->owner), u->owner);
        if (e) nd->succs[nd->num_succs++] = (unsigned)(uintptr_t)e->value - 1;
        else if (u->owner == blk->last) nd->live_out = true;   /* the terminator: a result */
        else if (u->owner->block != blk) {
          st = kr_op_emit_error(u->owner, "orchestrate expects the primitives' users in the function body");
          reported = true;
          break;
        }
      }
      nd->num_succs = sort_unique(nd->succs, nd->num_succs);
    }
  }
  kr_hmap_free(&index);
  if (!KR_FAILED(st) && KR_FAILED(partition(g, max_region))) st = KR_FAILURE;
  if (KR_FAILED(st)) {
    if (!reported) kr_op_emit_error(func, "out of memory");
    kr_orch_graph_free(g);
    return KR_FAILURE;
  }
  /* live_out: also a tensor read by a node of another region. */
  for (unsigned i = 0; i < n; i++)
    for (unsigned k = 0; k < g->nodes[i].num_succs; k++)
      if (g->nodes[g->nodes[i].succs[k]].region != g->nodes[i].region) g->nodes[i].live_out = true;
  return KR_SUCCESS;
}
