/* passes/cse.c - `cse`: common sub-expression elimination (MLIR's CSE.cpp).
 *
 * Candidates are registered pure ops without regions or successors.  Two are the same expression
 * when name, attribute dictionary, operands (value identity, in order, or in any order for a
 * commutative op, as MLIR 19 does) and result types are equal.  Known
 * expressions live in a scoped table that follows the dominator tree: a block sees what its
 * dominators (and, for nested regions of ops that are not isolated from above, the enclosing
 * blocks) computed; an isolated op starts an empty table.  Blocks of a multi-block region that
 * the entry cannot reach are left alone.  Ops already trivially dead when visited are erased
 * (MLIR does the same); ops that become dead through the replacement are left for dce or
 * canonicalize. */
#include <stdlib.h>
#include <string.h>

#include "passes/pass_impl.h"

typedef struct cse_table {
  kr_hmap known;   /* kr_op* (as key) -> kr_op* */
  kr_vec log;      /* kr_op *: keys inserted, in order, for scope exits */
} cse_table;

typedef struct cse_state {
  size_t replaced, erased;
} cse_state;

static bool is_commutative(const kr_op *op) {
  return op->def && (op->def->traits & KR_TRAIT_COMMUTATIVE) && op->num_operands > 1;
}

static int cmp_value_ptr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)*(const kr_value *)a, y = (uintptr_t)*(const kr_value *)b;
  return x < y ? -1 : x > y;
}

/* The operands in the order expressions compare them: as written, or sorted by identity for a
 * commutative op (MLIR 19's OperationEquivalence does the same).  `buf` has room for 8. */
static const kr_value *keyed_operands(const kr_op *op, kr_value *buf, kr_value **heap) {
  *heap = NULL;
  if (!is_commutative(op)) return NULL;
  kr_value *v = op->num_operands <= 8 ? buf : (*heap = malloc(op->num_operands * sizeof(kr_value)));
  if (!v) return NULL;
  for (uint32_t i = 0; i < op->num_operands; i++) v[i] = op->operands[i].value;
  qsort(v, op->num_operands, sizeof(kr_value), cmp_value_ptr);
  return v;
}

static uint64_t op_hash(const kr_op *op) {
  uint64_t h = kr_hash_ptr(op->name);
  h = kr_hash_combine(h, kr_hash_ptr(op->attrs));
  kr_value buf[8], *heap;
  const kr_value *sorted = keyed_operands(op, buf, &heap);
  for (uint32_t i = 0; i < op->num_operands; i++)
    h = kr_hash_combine(h, kr_hash_ptr(sorted ? sorted[i] : op->operands[i].value));
  free(heap);
  for (uint32_t i = 0; i < op->num_results; i++) h = kr_hash_combine(h, kr_hash_ptr(op->results[i].type));
  return h;
}

static bool op_eq(const void *pa, const void *pb) {
  const kr_op *a = pa, *b = pb;
  if (a == b) return true;
  if (a->name != b->name || a->attrs != b->attrs || a->num_operands != b->num_operands ||
      a->num_results != b->num_results)
    return false;
  for (uint32_t i = 0; i < a->num_results; i++)
    if (a->results[i].type != b->results[i].type) return false;
  kr_value bufa[8], bufb[8], *heapa, *heapb;
  const kr_value *sa = keyed_operands(a, bufa, &heapa), *sb = keyed_operands(b, bufb, &heapb);
  bool eq = true;
  for (uint32_t i = 0; i < a->num_operands && eq; i++)
    eq = (sa ? sa[i] : a->operands[i].value) == (sb ? sb[i] : b->operands[i].value);
  free(heapa);
  free(heapb);
  return eq;
}

static bool is_candidate(const kr_op *op) {
  return op->def && (op->def->traits & KR_TRAIT_PURE) && !(op->def->traits & KR_TRAIT_TERMINATOR) &&
         op->num_regions == 0 && op->num_successors == 0 && op->num_results > 0;
}

/* Returns true if `op` was erased. */
static bool simplify_op(cse_table *t, cse_state *s, kr_op *op) {
  if (op->def && (op->def->traits & KR_TRAIT_TERMINATOR)) return false;
  if (kr_op_is_trivially_dead(op)) {
    kr_op_erase(op);
    s->erased++;
    return true;
  }
  if (!is_candidate(op)) return false;
  bool inserted;
  kr_hmap_entry *e = kr_hmap_insert(&t->known, op_hash(op), op, &inserted);
  if (inserted) {
    e->value = op;
    KR_VEC_PUSH(&t->log, kr_op *, op);
    return false;
  }
  kr_op *existing = e->value;
  for (uint32_t i = 0; i < op->num_results; i++)
    kr_value_replace_all_uses(kr_op_result(op, i), kr_op_result(existing, i));
  kr_op_erase(op);
  s->replaced++;
  return true;
}

static void scope_pop(cse_table *t, size_t mark) {
  while (t->log.len > mark) {
    kr_op *op = KR_VEC_AT(&t->log, kr_op *, --t->log.len);
    kr_hmap_remove(&t->known, op_hash(op), op);
  }
}

static void simplify_region(cse_table *t, cse_state *s, kr_region *r);

static void simplify_block(cse_table *t, cse_state *s, kr_block *b) {
  kr_op *next;
  for (kr_op *op = b->first; op; op = next) {
    next = op->next;
    if (simplify_op(t, s, op)) continue;
    if (!op->num_regions) continue;
    if (kr_op_has_trait(op, KR_TRAIT_ISOLATED_FROM_ABOVE) || !op->def) {
      /* Values from outside may not be used inside (and an unregistered op might be isolated). */
      cse_table inner;
      memset(&inner, 0, sizeof inner);
      inner.known.eq = op_eq;
      for (uint32_t i = 0; i < op->num_regions; i++) simplify_region(&inner, s, &op->regions[i]);
      kr_hmap_free(&inner.known);
      kr_vec_free(&inner.log);
    } else {
      for (uint32_t i = 0; i < op->num_regions; i++) simplify_region(t, s, &op->regions[i]);
    }
  }
}

/* --- dominator tree of a multi-block region (Cooper, Harvey, Kennedy: "A Simple, Fast Dominance
 * Algorithm", 2001), over the blocks reachable from the entry. */

typedef struct dom_info {
  kr_vec rpo;        /* kr_block * in reverse post-order */
  kr_hmap index;     /* block -> rpo index + 1 */
  int *idom;         /* rpo index of the immediate dominator (entry: itself) */
} dom_info;

static size_t dom_index(const dom_info *d, kr_block *b) {
  kr_hmap_entry *e = kr_hmap_find(&d->index, kr_hash_ptr(b), b);
  return e ? (size_t)(uintptr_t)e->value - 1 : (size_t)-1;
}

static void dom_compute(dom_info *d, kr_region *r) {
  /* Iterative DFS for the post-order. */
  kr_vec post = {0}, stack = {0}, next_succ = {0};
  kr_hmap seen = {0};
  bool ins;
  kr_hmap_insert(&seen, kr_hash_ptr(r->first), r->first, &ins);
  KR_VEC_PUSH(&stack, kr_block *, r->first);
  KR_VEC_PUSH(&next_succ, uint32_t, 0);
  while (stack.len) {
    kr_block *b = KR_VEC_AT(&stack, kr_block *, stack.len - 1);
    uint32_t *k = &KR_VEC_AT(&next_succ, uint32_t, next_succ.len - 1);
    kr_op *t = b->last;
    if (t && *k < t->num_successors) {
      kr_block *s = t->successors[(*k)++];
      kr_hmap_insert(&seen, kr_hash_ptr(s), s, &ins);
      if (ins) {
        KR_VEC_PUSH(&stack, kr_block *, s);
        KR_VEC_PUSH(&next_succ, uint32_t, 0);
      }
      continue;
    }
    KR_VEC_PUSH(&post, kr_block *, b);
    stack.len--;
    next_succ.len--;
  }
  kr_hmap_free(&seen);
  kr_vec_free(&stack);
  kr_vec_free(&next_succ);
  size_t n = post.len;
  for (size_t i = 0; i < n; i++) {
    kr_block *b = KR_VEC_AT(&post, kr_block *, n - 1 - i);
    KR_VEC_PUSH(&d->rpo, kr_block *, b);
    kr_hmap_insert(&d->index, kr_hash_ptr(b), b, &ins)->value = (void *)(uintptr_t)(i + 1);
  }
  kr_vec_free(&post);
  /* Predecessors as rpo indices. */
  kr_vec *preds = calloc(n, sizeof(kr_vec));
  d->idom = malloc(n * sizeof(int));
  for (size_t i = 0; i < n; i++) {
    d->idom[i] = -1;
    kr_op *t = KR_VEC_AT(&d->rpo, kr_block *, i)->last;
    for (uint32_t k = 0; t && k < t->num_successors; k++) {
      size_t j = dom_index(d, t->successors[k]);
      KR_VEC_PUSH(&preds[j], int, (int)i);
    }
  }
  d->idom[0] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 1; i < n; i++) {
      int nd = -1;
      for (size_t k = 0; k < preds[i].len; k++) {
        int p = KR_VEC_AT(&preds[i], int, k);
        if (d->idom[p] < 0) continue;
        if (nd < 0) {
          nd = p;
          continue;
        }
        int a = p, b = nd;
        while (a != b) {
          while (a > b) a = d->idom[a];
          while (b > a) b = d->idom[b];
        }
        nd = a;
      }
      if (nd != d->idom[i]) {
        d->idom[i] = nd;
        changed = true;
      }
    }
  }
  for (size_t i = 0; i < n; i++) kr_vec_free(&preds[i]);
  free(preds);
}

static void dom_free(dom_info *d) {
  kr_vec_free(&d->rpo);
  kr_hmap_free(&d->index);
  free(d->idom);
}

static void simplify_dom_subtree(cse_table *t, cse_state *s, dom_info *d, kr_vec *children, size_t node) {
  size_t mark = t->log.len;
  simplify_block(t, s, KR_VEC_AT(&d->rpo, kr_block *, node));
  for (size_t k = 0; k < children[node].len; k++)
    simplify_dom_subtree(t, s, d, children, KR_VEC_AT(&children[node], size_t, k));
  scope_pop(t, mark);
}

static void simplify_region(cse_table *t, cse_state *s, kr_region *r) {
  if (!r->first) return;
  size_t mark = t->log.len;
  if (!r->first->next) {
    simplify_block(t, s, r->first);
    scope_pop(t, mark);
    return;
  }
  dom_info d;
  memset(&d, 0, sizeof d);
  dom_compute(&d, r);
  size_t n = d.rpo.len;
  kr_vec *children = calloc(n, sizeof(kr_vec));
  for (size_t i = 1; i < n; i++) KR_VEC_PUSH(&children[d.idom[i]], size_t, i);
  simplify_dom_subtree(t, s, &d, children, 0);
  for (size_t i = 0; i < n; i++) kr_vec_free(&children[i]);
  free(children);
  dom_free(&d);
  scope_pop(t, mark);
}

static kr_status cse_run(kr_op *op, const void *options, kr_pass_run *run) {
  cse_table t;
  memset(&t, 0, sizeof t);
  t.known.eq = op_eq;
  cse_state s = {0, 0};
  /* The op the pass runs on is the scope: its regions start empty whatever it is. */
  for (uint32_t i = 0; i < op->num_regions; i++) simplify_region(&t, &s, &op->regions[i]);
  kr_hmap_free(&t.known);
  kr_vec_free(&t.log);
  if (!s.replaced && !s.erased) kr_pass_run_mark_unchanged(run);
  return KR_SUCCESS;
}

const kr_pass_def kr_cse_pass = {
  .argument = "cse",
  .summary = "Eliminate common sub-expressions",
  .run = cse_run,
  .display_name = "CSE",
};
