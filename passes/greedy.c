/* passes/greedy.c - pattern sets and the greedy rewrite driver (MLIR 19's
 * GreedyPatternRewriteDriver with its OperationFolder constant handling).
 *
 * One sweep: walk the ops nested in root's regions (pre-order when top_down, else post-order);
 * constants met on the way are deduplicated and hoisted to the start of the entry block of their
 * insertion region (the nearest isolated-from-above one), identical constants (same dialect,
 * value and type) being replaced by the first one; every other op goes on the worklist.  Then pop
 * ops until the worklist is empty: erase the trivially dead, fold the foldable, else apply the
 * highest-benefit matching pattern.  Changes put the ops they affect back on the worklist:
 * inserted and modified ops (and their ancestors below root), users of replaced values, and
 * defining ops of an erased op's operands when they are left with at most one other user.
 * Sweeps repeat while a sweep changed something, at most max_iterations times. */
#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"
#include "passes/pass_impl.h"

/* ---------------------------------------------------------------------------------------------
 * Pattern sets. */

void kr_pattern_set_add(kr_pattern_set *s, const kr_pattern *p) {
  /* Stable: a pattern goes after every pattern of the same or higher benefit. */
  size_t at = 0;
  const kr_pattern **ps = KR_VEC_DATA(&s->patterns, const kr_pattern *);
  while (at < s->patterns.len && ps[at]->benefit >= p->benefit) at++;
  KR_VEC_PUSH(&s->patterns, const kr_pattern *, p);
  ps = KR_VEC_DATA(&s->patterns, const kr_pattern *);
  memmove(&ps[at + 1], &ps[at], (s->patterns.len - 1 - at) * sizeof(*ps));
  ps[at] = p;
}

void kr_pattern_set_add_array(kr_pattern_set *s, const kr_pattern *p, unsigned n) {
  for (unsigned i = 0; i < n; i++) kr_pattern_set_add(s, &p[i]);
}

void kr_pattern_set_add_canonicalization(kr_pattern_set *s, kr_context *ctx) {
  unsigned nd = kr_context_num_dialects(ctx);
  for (unsigned d = 0; d < nd; d++) {
    const kr_dialect *dia = kr_context_dialect_at(ctx, d);
    for (unsigned i = 0; i < dia->num_ops; i++)
      if (dia->ops[i].patterns) kr_pattern_set_add_array(s, dia->ops[i].patterns, dia->ops[i].num_patterns);
    if (dia->def->patterns) kr_pattern_set_add_array(s, dia->def->patterns, dia->def->num_patterns);
  }
}

void kr_pattern_set_free(kr_pattern_set *s) { kr_vec_free(&s->patterns); }

void kr_greedy_config_default(kr_greedy_config *c) {
  c->max_iterations = 10;
  c->max_rewrites = -1;
  c->fold = true;
  c->top_down = true;
  c->region_simplify = true;
}

/* ---------------------------------------------------------------------------------------------
 * The driver. */

typedef struct const_key {
  const kr_dialect *dialect;
  kr_attr value;
  kr_type type;
  kr_region *region;
} const_key;

typedef struct driver {
  kr_context *ctx;
  kr_op *root;
  kr_rewriter rw;
  const kr_greedy_config *config;
  /* Patterns with interned roots, in benefit order. */
  const kr_pattern **patterns;
  kr_ident *roots;
  size_t num_patterns;
  /* Worklist: a stack of ops (NULL where one was removed) and op -> index + 1. */
  kr_vec worklist;
  kr_hmap in_worklist;
  /* Per-sweep constant folder: const_key -> op, and op -> its key (the ops it owns). */
  kr_hmap constants;
  kr_hmap owned;
  kr_vec keys;            /* const_key *, freed at the end of the sweep */
  bool changed;           /* in this sweep */
  bool moved;             /* a constant was hoisted or deduplicated (not a "change" to MLIR) */
} driver;

static void wl_push_one(driver *d, kr_op *op) {
  bool ins;
  kr_hmap_entry *e = kr_hmap_insert(&d->in_worklist, kr_hash_ptr(op), op, &ins);
  if (!ins) return;
  e->value = (void *)(uintptr_t)(d->worklist.len + 1);
  KR_VEC_PUSH(&d->worklist, kr_op *, op);
}

/* MLIR's addToWorklist: the op and its ancestors up to (not including) root. */
static void wl_add(driver *d, kr_op *op) {
  kr_op *o = op;
  while (o && o != d->root) o = kr_op_parent_op(o);
  if (!o) return;   /* outside root (or detached) */
  for (o = op; o != d->root; o = kr_op_parent_op(o)) wl_push_one(d, o);
}

static void wl_remove(driver *d, kr_op *op) {
  kr_hmap_entry *e = kr_hmap_find(&d->in_worklist, kr_hash_ptr(op), op);
  if (!e) return;
  size_t idx = (size_t)(uintptr_t)e->value - 1;
  KR_VEC_AT(&d->worklist, kr_op *, idx) = NULL;
  kr_hmap_remove(&d->in_worklist, kr_hash_ptr(op), op);
}

static kr_op *wl_pop(driver *d) {
  kr_op *op = KR_VEC_AT(&d->worklist, kr_op *, --d->worklist.len);
  if (op) kr_hmap_remove(&d->in_worklist, kr_hash_ptr(op), op);
  return op;
}

static uint64_t key_hash(const const_key *k) {
  uint64_t h = kr_hash_ptr(k->dialect);
  h = kr_hash_combine(h, kr_hash_ptr(k->value));
  h = kr_hash_combine(h, kr_hash_ptr(k->type));
  return kr_hash_combine(h, kr_hash_ptr(k->region));
}

static bool key_eq(const void *a, const void *b) {
  const const_key *x = a, *y = b;
  return x->dialect == y->dialect && x->value == y->value && x->type == y->type && x->region == y->region;
}

static void forget_constant(driver *d, kr_op *op) {
  kr_hmap_entry *e = kr_hmap_find(&d->owned, kr_hash_ptr(op), op);
  if (!e) return;
  const const_key *k = e->value;
  kr_hmap_entry *c = kr_hmap_find(&d->constants, key_hash(k), k);
  if (c && c->value == op) kr_hmap_remove(&d->constants, key_hash(k), k);
  kr_hmap_remove(&d->owned, kr_hash_ptr(op), op);
}

static bool is_owned(driver *d, kr_op *op) {
  return op && kr_hmap_find(&d->owned, kr_hash_ptr(op), op) != NULL;
}

/* --- listener -------------------------------------------------------------------------------- */

static void on_inserted(kr_op *op, void *user) { wl_add(user, op); }
static void on_modified(kr_op *op, void *user) { wl_add(user, op); }

static void on_erased(kr_op *op, void *user) {
  driver *d = user;
  /* An operand's producer left with at most one other user may now be dead or simplifiable. */
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kr_value v = kr_op_operand(op, i);
    if (!v) continue;
    kr_op *def = kr_value_defining_op(v);
    if (!def) continue;
    kr_op *other = NULL;
    bool many = false;
    for (kr_use *u = v->first_use; u; u = u->next) {
      if (u->owner == op || u->owner == other) continue;
      if (!other) {
        other = u->owner;
        continue;
      }
      many = true;
      break;
    }
    if (!many) wl_add(d, def);
  }
  wl_remove(d, op);
  forget_constant(d, op);
}

/* --- constants (MLIR's OperationFolder::insertKnownConstant) ------------------------------- */

/* Returns false if `op` was replaced by an existing identical constant (and erased). */
static bool insert_known_constant(driver *d, kr_op *op, kr_attr value) {
  kr_block *block = op->block;
  kr_attr unknown = kr_loc_unknown(d->ctx);
  if (is_owned(d, op)) {
    if (block->first != op && !is_owned(d, op->prev)) {
      kr_op_move_before(op, block->first);
      op->loc = unknown;
      d->moved = true;
    }
    return true;
  }
  const_key probe = {op->def ? op->def->dialect : NULL, value, kr_value_type(kr_op_result(op, 0)),
                     kr__constant_insertion_region(block)};
  kr_hmap_entry *e = kr_hmap_find(&d->constants, key_hash(&probe), &probe);
  if (e) {
    kr_op *existing = e->value;
    kr_value rep = kr_op_result(existing, 0);
    kr_rewriter_replace_op(&d->rw, op, &rep);
    d->moved = true;
    return false;
  }
  kr_block *insert_block = probe.region->first;
  if (block != insert_block || (insert_block->first != op && !is_owned(d, op->prev))) {
    kr_op_move_before(op, insert_block->first);
    op->loc = unknown;
    d->moved = true;
  }
  const_key *k = malloc(sizeof *k);
  if (!k) return true;
  *k = probe;
  KR_VEC_PUSH(&d->keys, const_key *, k);
  bool ins;
  kr_hmap_insert(&d->constants, key_hash(k), k, &ins)->value = op;
  kr_hmap_insert(&d->owned, kr_hash_ptr(op), op, &ins)->value = k;
  return true;
}

static bool is_constant(kr_op *op, kr_attr *value) {
  *value = kr_op_constant_value(op);
  return *value && op->num_results == 1;
}

/* Seeds the worklist with the ops of `r` (recursively), handling constants on the way. */
static void seed_region(driver *d, kr_region *r, bool pre_order) {
  for (kr_block *b = r->first; b; b = b->next) {
    kr_op *next;
    for (kr_op *op = b->first; op; op = next) {
      next = op->next;
      kr_attr value;
      if (pre_order) {
        if (is_constant(op, &value) && !insert_known_constant(d, op, value)) continue;
        wl_push_one(d, op);
        for (uint32_t i = 0; i < op->num_regions; i++) seed_region(d, &op->regions[i], true);
      } else {
        for (uint32_t i = 0; i < op->num_regions; i++) seed_region(d, &op->regions[i], false);
        if (is_constant(op, &value) && !insert_known_constant(d, op, value)) continue;
        wl_push_one(d, op);
      }
    }
  }
}

static bool apply_patterns(driver *d, kr_op *op) {
  for (size_t i = 0; i < d->num_patterns; i++) {
    if (d->roots[i] && d->roots[i] != op->name) continue;
    kr_rewriter_set_insertion_point_before(&d->rw, op);
    if (!KR_FAILED(d->patterns[i]->match_and_rewrite(&d->rw, op))) return true;
  }
  return false;
}

static void process_worklist(driver *d) {
  int64_t rewrites = 0;
  while (d->worklist.len) {
    if (d->config->max_rewrites >= 0 && rewrites >= d->config->max_rewrites) break;
    kr_op *op = wl_pop(d);
    if (!op) continue;
    if (kr_op_is_trivially_dead(op)) {
      kr_rewriter_erase_op(&d->rw, op);
      d->changed = true;
      continue;
    }
    if (d->config->fold) {
      bool in_place;
      if (!KR_FAILED(kr__op_try_fold(&d->rw, op, &in_place))) {
        d->changed = true;
        continue;
      }
    }
    if (apply_patterns(d, op)) {
      d->changed = true;
      rewrites++;
    }
  }
}

static void end_sweep(driver *d) {
  kr_hmap_clear(&d->constants);
  kr_hmap_clear(&d->owned);
  for (size_t i = 0; i < d->keys.len; i++) free(KR_VEC_AT(&d->keys, const_key *, i));
  d->keys.len = 0;
  d->worklist.len = 0;
  kr_hmap_clear(&d->in_worklist);
}

kr_status kr_apply_patterns_greedily(kr_op *root, const kr_pattern_set *patterns, const kr_greedy_config *config,
                                     bool *changed) {
  kr_greedy_config defaults;
  if (!config) {
    kr_greedy_config_default(&defaults);
    config = &defaults;
  }
  driver d;
  memset(&d, 0, sizeof d);
  d.ctx = kr_op_context(root);
  d.root = root;
  d.config = config;
  d.constants.eq = key_eq;
  kr_rewriter_init(&d.rw, d.ctx);
  d.rw.listener.op_inserted = on_inserted;
  d.rw.listener.op_erased = on_erased;
  d.rw.listener.op_modified = on_modified;
  d.rw.listener.user = &d;
  d.num_patterns = patterns ? patterns->patterns.len : 0;
  if (d.num_patterns) {
    d.patterns = KR_VEC_DATA(&patterns->patterns, const kr_pattern *);
    d.roots = calloc(d.num_patterns, sizeof(kr_ident));
    if (!d.roots) return kr_emit_error(d.ctx, root->loc, "out of memory");
    for (size_t i = 0; i < d.num_patterns; i++)
      d.roots[i] = d.patterns[i]->root ? kr_ident_cstr(d.ctx, d.patterns[i]->root) : NULL;
  }

  bool any = false, again = false;
  int iteration = 0;
  do {
    if (config->max_iterations >= 0 && ++iteration > config->max_iterations) break;
    d.changed = false;
    d.moved = false;
    for (uint32_t i = 0; i < root->num_regions; i++) seed_region(&d, &root->regions[i], config->top_down);
    if (config->top_down) {
      /* Pre-order seeding; reversed so that popping from the back visits ops in pre-order. */
      kr_op **w = KR_VEC_DATA(&d.worklist, kr_op *);
      for (size_t i = 0, j = d.worklist.len; i + 1 < j; i++, j--) {
        kr_op *t = w[i];
        w[i] = w[j - 1];
        w[j - 1] = t;
      }
      for (size_t i = 0; i < d.worklist.len; i++)
        if (w[i]) kr_hmap_find(&d.in_worklist, kr_hash_ptr(w[i]), w[i])->value = (void *)(uintptr_t)(i + 1);
    }
    process_worklist(&d);
    if (config->region_simplify)
      for (uint32_t i = 0; i < root->num_regions; i++)
        if (kr__erase_unreachable_blocks(&d.rw, &root->regions[i])) d.changed = true;
    again = d.changed;
    if (d.changed || d.moved) any = true;
    end_sweep(&d);
  } while (again);

  kr_hmap_free(&d.constants);
  kr_hmap_free(&d.owned);
  kr_hmap_free(&d.in_worklist);
  kr_vec_free(&d.keys);
  kr_vec_free(&d.worklist);
  free(d.roots);
  if (changed) *changed = any;
  return again ? KR_FAILURE : KR_SUCCESS;
}
