/* ir/dominance.c - per-region dominator trees (see ir/dominance.h). */
#include "ir/dominance.h"

#include <string.h>

void kr_dominance_init(kr_dominance *d) { memset(d, 0, sizeof *d); }

void kr_dominance_free(kr_dominance *d) {
  kr_hmap_free(&d->index);
  kr_vec_free(&d->nodes);
  for (unsigned i = 0; i < sizeof d->scratch / sizeof d->scratch[0]; i++) kr_vec_free(&d->scratch[i]);
}

static uint32_t *scratch(kr_dominance *d, unsigned which, size_t n) {
  kr_vec *v = &d->scratch[which];
  kr_vec_reserve(v, n ? n : 1, sizeof(uint32_t));
  return v->data;
}

#define NONE UINT32_MAX   /* no postorder number / no idom yet */

/* Builds the tree of `r` (more than one block) and stores its nodes. */
static void compute(kr_dominance *d, kr_region *r) {
  uint32_t n = 0;
  size_t base = d->nodes.len;
  for (kr_block *b = r->first; b; b = b->next, n++) {
    bool inserted;
    kr_hmap_entry *e = kr_hmap_insert(&d->index, kr_hash_ptr(b), b, &inserted);
    e->value = (void *)(uintptr_t)(base + n + 1);
    KR_VEC_PUSH(&d->nodes, kr_dom_node, ((kr_dom_node){0, 0, false}));
  }
  /* Successor lists (CSR): edges to blocks of this region from each block's last op. */
  uint32_t *succ_start = scratch(d, 0, n + 1);
  size_t m = 0;
  for (kr_block *b = r->first; b; b = b->next)
    if (b->last) m += b->last->num_successors;
  uint32_t *succ = scratch(d, 1, m);
  m = 0;
  uint32_t i = 0;
  for (kr_block *b = r->first; b; b = b->next, i++) {
    succ_start[i] = (uint32_t)m;
    kr_op *t = b->last;
    for (unsigned s = 0; t && s < t->num_successors; s++) {
      kr_block *to = t->successors[s];
      if (!to || to->region != r) continue;
      kr_hmap_entry *e = kr_hmap_find(&d->index, kr_hash_ptr(to), to);
      succ[m++] = (uint32_t)((uintptr_t)e->value - 1 - base);
    }
  }
  succ_start[n] = (uint32_t)m;

  /* Iterative DFS from the entry: postorder numbers and the reverse postorder. */
  uint32_t *po = scratch(d, 2, n);       /* postorder number, NONE = unreachable */
  uint32_t *rpo = scratch(d, 3, n);      /* nodes by decreasing postorder */
  uint32_t *stack = scratch(d, 4, 2 * (size_t)n);
  for (i = 0; i < n; i++) po[i] = NONE;
  uint32_t *visited = scratch(d, 5, n);
  memset(visited, 0, n * sizeof *visited);
  uint32_t sp = 0, counter = 0;
  stack[sp++] = 0;
  stack[sp++] = succ_start[0];
  visited[0] = 1;
  while (sp) {
    uint32_t node = stack[sp - 2], *next = &stack[sp - 1];
    if (*next < succ_start[node + 1]) {
      uint32_t to = succ[(*next)++];
      if (!visited[to]) {
        visited[to] = 1;
        stack[sp++] = to;
        stack[sp++] = succ_start[to];
      }
    } else {
      po[node] = counter++;
      sp -= 2;
    }
  }
  uint32_t reachable = counter;
  for (i = 0; i < n; i++)
    if (po[i] != NONE) rpo[reachable - 1 - po[i]] = i;

  /* Predecessor lists (CSR) among reachable blocks. */
  uint32_t *pred_start = scratch(d, 6, n + 1);
  memset(pred_start, 0, (n + 1) * sizeof *pred_start);
  for (i = 0; i < n; i++)
    if (po[i] != NONE)
      for (uint32_t k = succ_start[i]; k < succ_start[i + 1]; k++) pred_start[succ[k] + 1]++;
  for (i = 0; i < n; i++) pred_start[i + 1] += pred_start[i];
  uint32_t *pred = scratch(d, 7, pred_start[n]);
  uint32_t *fill = visited;   /* reuse as insertion cursors */
  memcpy(fill, pred_start, n * sizeof *fill);
  for (i = 0; i < n; i++)
    if (po[i] != NONE)
      for (uint32_t k = succ_start[i]; k < succ_start[i + 1]; k++) pred[fill[succ[k]]++] = i;

  /* Cooper-Harvey-Kennedy: idom by intersecting processed predecessors until a fixpoint. */
  uint32_t *idom = stack;   /* the DFS stack is free again; it has room for n entries */
  for (i = 0; i < n; i++) idom[i] = NONE;
  idom[0] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t k = 1; k < reachable; k++) {
      uint32_t b = rpo[k], nd = NONE;
      for (uint32_t q = pred_start[b]; q < pred_start[b + 1]; q++) {
        uint32_t p = pred[q];
        if (idom[p] == NONE) continue;
        if (nd == NONE) {
          nd = p;
          continue;
        }
        uint32_t x = p, y = nd;
        while (x != y) {
          while (po[x] < po[y]) x = idom[x];
          while (po[y] < po[x]) y = idom[y];
        }
        nd = x;
      }
      if (idom[b] != nd) {
        idom[b] = nd;
        changed = true;
      }
    }
  }

  /* Number the tree: children lists (CSR, reusing the successor arrays), then a DFS. */
  uint32_t *child_start = succ_start, *child = succ;
  memset(child_start, 0, (n + 1) * sizeof *child_start);
  for (i = 1; i < n; i++)
    if (idom[i] != NONE) child_start[idom[i] + 1]++;
  for (i = 0; i < n; i++) child_start[i + 1] += child_start[i];
  memcpy(fill, child_start, n * sizeof *fill);
  for (i = 1; i < n; i++)
    if (idom[i] != NONE) child[fill[idom[i]]++] = i;
  kr_dom_node *nodes = (kr_dom_node *)d->nodes.data + base;
  uint32_t *dfs = scratch(d, 6, 2 * (size_t)n);   /* (node, next child) pairs; pred_start is dead */
  uint32_t clock = 0;
  sp = 0;
  dfs[sp++] = 0;
  dfs[sp++] = child_start[0];
  nodes[0].pre = clock++;
  nodes[0].reachable = true;
  while (sp) {
    uint32_t node = dfs[sp - 2], *next = &dfs[sp - 1];
    if (*next < child_start[node + 1]) {
      uint32_t c = child[(*next)++];
      nodes[c].pre = clock++;
      nodes[c].reachable = true;
      dfs[sp++] = c;
      dfs[sp++] = child_start[c];
    } else {
      nodes[node].post = clock++;
      sp -= 2;
    }
  }
}

static const kr_dom_node *node_of(kr_dominance *d, kr_block *b) {
  kr_hmap_entry *e = kr_hmap_find(&d->index, kr_hash_ptr(b), b);
  if (!e) {
    compute(d, b->region);
    e = kr_hmap_find(&d->index, kr_hash_ptr(b), b);
  }
  return &KR_VEC_AT(&d->nodes, kr_dom_node, (uintptr_t)e->value - 1);
}

bool kr_dominance_reachable(kr_dominance *d, kr_block *b) {
  if (!b->region || b->region->first == b->region->last) return true;
  return node_of(d, b)->reachable;
}

bool kr_dominance_properly_dominates(kr_dominance *d, kr_block *a, kr_block *b) {
  if (a == b || !a->region || a->region != b->region || a->region->first == a->region->last) return false;
  kr_dom_node nb = *node_of(d, b);   /* copy: node_of(a) cannot grow the table now, but be safe */
  const kr_dom_node *na = node_of(d, a);
  if (!nb.reachable) return true;
  if (!na->reachable) return false;
  return na->pre < nb.pre && nb.post < na->post;
}
