/* ir/operations.c - operations: creation, operands and use lists, attributes, erasure, cloning,
 * insertion into blocks.
 *
 * Memory layout of one op, a single arena allocation (nothing is malloc'd per op):
 *   [kr_op][results: kr_value_impl x R][operands: kr_use x N][regions: kr_region x G]
 *   [successors: kr_block* x S]
 * (232 bytes for two operands and one result on LP64).  The context is found through the
 * interned name (kr_ident_context), not stored per op.
 * Erased ops are unlinked and their uses dropped; the memory returns with the context.
 *
 * Use lists are intrusive singly-linked lists with back-pointers (`prev_next` points at the
 * pointer that points at the use), so unlinking is O(1) and kr_use structs must not move without
 * relinking.  New uses are pushed at the front, as in MLIR. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"

kr_context *kr_op_context(const kr_op *op) { return kr_ident_context(op->name); }

static void use_link(kr_use *u, kr_value v) {
  u->value = v;
  if (!v) {
    u->next = NULL;
    u->prev_next = NULL;
    return;
  }
  u->next = v->first_use;
  if (u->next) u->next->prev_next = &u->next;
  u->prev_next = &v->first_use;
  v->first_use = u;
}

static void use_unlink(kr_use *u) {
  if (!u->value) return;
  *u->prev_next = u->next;
  if (u->next) u->next->prev_next = u->prev_next;
  u->value = NULL;
  u->next = NULL;
  u->prev_next = NULL;
}

/* One allocation for the op and its arrays (see the file comment); zero-filled. */
static kr_op *op_alloc(kr_context *ctx, kr_ident name, unsigned nops, unsigned nres, unsigned nreg, unsigned nsucc) {
  size_t size = sizeof(kr_op) + nres * sizeof(struct kr_value_impl) + nops * sizeof(kr_use) + nreg * sizeof(kr_region) +
                nsucc * sizeof(kr_block *);
  kr_op *op = kr_arena_zalloc(&ctx->arena, size, _Alignof(kr_op));
  char *p = (char *)(op + 1);
  op->name = name;
  op->def = kr_context_lookup_op(ctx, name);
  op->loc = ctx->unknown_loc;
  op->attrs = ctx->empty_dict;
  op->results = nres ? (struct kr_value_impl *)p : NULL;
  p += nres * sizeof(struct kr_value_impl);
  op->operands = nops ? (kr_use *)p : NULL;
  p += nops * sizeof(kr_use);
  op->regions = nreg ? (kr_region *)p : NULL;
  p += nreg * sizeof(kr_region);
  op->successors = nsucc ? (kr_block **)p : NULL;
  op->num_operands = nops;
  op->num_results = nres;
  op->num_regions = nreg;
  op->num_successors = nsucc;
  for (unsigned i = 0; i < nres; i++) {
    op->results[i].owner.op = op;
    op->results[i].index = i;
  }
  for (unsigned i = 0; i < nops; i++) {
    op->operands[i].owner = op;
    op->operands[i].index = i;
  }
  for (unsigned i = 0; i < nreg; i++) {
    op->regions[i].parent = op;
    op->regions[i].ctx = ctx;
  }
  return op;
}

/* ------------------------------------------------------------------------------------------- */

void kr_op_state_init(kr_op_state *st, kr_context *ctx, const char *name, kr_attr loc) {
  memset(st, 0, sizeof *st);
  st->ctx = ctx;
  st->name = kr_ident_cstr(ctx, name);
  st->loc = loc;
}

void kr_op_state_add_operands(kr_op_state *st, const kr_value *vals, unsigned n) {
  kr_vec_reserve(&st->operands, st->operands.len + n, sizeof(kr_value));
  for (unsigned i = 0; i < n; i++) KR_VEC_PUSH(&st->operands, kr_value, vals[i]);
}

void kr_op_state_add_results(kr_op_state *st, const kr_type *types, unsigned n) {
  kr_vec_reserve(&st->result_types, st->result_types.len + n, sizeof(kr_type));
  for (unsigned i = 0; i < n; i++) KR_VEC_PUSH(&st->result_types, kr_type, types[i]);
}

void kr_op_state_add_attr(kr_op_state *st, const char *name, kr_attr value) {
  kr_named_attr na = {kr_ident_cstr(st->ctx, name), value};
  KR_VEC_PUSH(&st->attrs, kr_named_attr, na);
}

kr_region *kr_op_state_add_region(kr_op_state *st) {
  kr_region *r = kr_region_create(st->ctx);
  KR_VEC_PUSH(&st->regions, kr_region *, r);
  return r;
}

void kr_op_state_add_successors(kr_op_state *st, kr_block *const *blocks, unsigned n) {
  for (unsigned i = 0; i < n; i++) KR_VEC_PUSH(&st->successors, kr_block *, blocks[i]);
}

void kr_op_state_free(kr_op_state *st) {
  kr_vec_free(&st->operands);
  kr_vec_free(&st->result_types);
  kr_vec_free(&st->attrs);
  kr_vec_free(&st->regions);
  kr_vec_free(&st->successors);
}

/* Builds the attribute dictionary of a state: a later entry with the same name replaces an
 * earlier one (so builders can override defaults); a NULL value removes the name. */
static kr_attr state_attrs(kr_context *ctx, const kr_vec *attrs) {
  if (attrs->len == 0) return ctx->empty_dict;
  const kr_named_attr *in = KR_VEC_DATA(attrs, kr_named_attr);
  kr_named_attr small[16];
  kr_named_attr *tmp = attrs->len <= 16 ? small : malloc(attrs->len * sizeof *tmp);
  if (!tmp) abort();
  unsigned n = 0;
  for (size_t i = 0; i < attrs->len; i++) {
    unsigned j = 0;
    while (j < n && tmp[j].name != in[i].name) j++;
    if (j < n) {
      if (in[i].value) {
        tmp[j].value = in[i].value;
      } else {
        memmove(&tmp[j], &tmp[j + 1], (n - j - 1) * sizeof *tmp);
        n--;
      }
    } else if (in[i].value) {
      tmp[n++] = in[i];
    }
  }
  kr_attr d = kr_attr_dict(ctx, tmp, n);
  if (tmp != small) free(tmp);
  return d;
}

kr_op *kr_op_create(const kr_op_state *st) {
  kr_context *ctx = st->ctx;
  kr_attr attrs = state_attrs(ctx, &st->attrs);
  if (!attrs) {
    kr_emit_error(ctx, st->loc, "duplicate attribute names on '%s'", st->name);
    return NULL;
  }
  unsigned nops = (unsigned)st->operands.len, nres = (unsigned)st->result_types.len;
  unsigned nreg = (unsigned)st->regions.len, nsucc = (unsigned)st->successors.len;
  kr_op *op = op_alloc(ctx, st->name, nops, nres, nreg, nsucc);
  if (st->loc) op->loc = st->loc;
  op->attrs = attrs;
  const kr_type *rt = KR_VEC_DATA(&st->result_types, kr_type);
  for (unsigned i = 0; i < nres; i++) op->results[i].type = rt[i];
  const kr_value *ov = KR_VEC_DATA(&st->operands, kr_value);
  for (unsigned i = 0; i < nops; i++) use_link(&op->operands[i], ov[i]);
  kr_region *const *rs = KR_VEC_DATA(&st->regions, kr_region *);
  for (unsigned i = 0; i < nreg; i++)
    if (rs[i]) kr_region_take_body(&op->regions[i], rs[i]);
  if (nsucc) memcpy(op->successors, st->successors.data, nsucc * sizeof(kr_block *));
  return op;
}

/* ------------------------------------------------------------------------------------------- */

kr_op *kr_value_defining_op(kr_value v) { return v->is_block_arg ? NULL : v->owner.op; }

kr_block *kr_value_parent_block(kr_value v) { return v->is_block_arg ? v->owner.block : v->owner.op->block; }

bool kr_value_has_one_use(kr_value v) { return v->first_use && !v->first_use->next; }

void kr_value_replace_all_uses(kr_value from, kr_value to) {
  if (from == to || !from->first_use) return;
  kr_use *last = NULL;
  for (kr_use *u = from->first_use; u; u = u->next) {
    u->value = to;
    last = u;
  }
  /* Splice the whole list in front of `to`'s uses. */
  last->next = to->first_use;
  if (to->first_use) to->first_use->prev_next = &last->next;
  to->first_use = from->first_use;
  to->first_use->prev_next = &to->first_use;
  from->first_use = NULL;
}

void kr_value_set_type(kr_value v, kr_type t) { v->type = t; }

/* ------------------------------------------------------------------------------------------- */

void kr_op_drop_all_references(kr_op *op) {
  for (unsigned i = 0; i < op->num_operands; i++) use_unlink(&op->operands[i]);
  for (unsigned r = 0; r < op->num_regions; r++)
    for (kr_block *b = op->regions[r].first; b; b = b->next)
      for (kr_op *o = b->first; o; o = o->next) kr_op_drop_all_references(o);
}

bool kr_op_use_empty(const kr_op *op) {
  for (unsigned i = 0; i < op->num_results; i++)
    if (op->results[i].first_use) return false;
  return true;
}

/* Unlinks `op` and everything nested in it, regions and blocks back to front.  References are
 * already dropped by the caller. */
static void op_destroy(kr_op *op) {
  for (unsigned r = op->num_regions; r-- > 0;) {
    kr_region *reg = &op->regions[r];
    for (kr_block *b = reg->last; b;) {
      kr_block *prev = b->prev;
      for (kr_op *o = b->last; o;) {
        kr_op *p = o->prev;
        op_destroy(o);
        o = p;
      }
      kr_region_remove_block(reg, b);
      b = prev;
    }
  }
  if (op->block) kr_op_remove(op);
}

/* References are dropped first, for the whole nest, so that cycles of uses in graph regions and
 * uses across nested blocks do not matter; then regions are erased back to front. */
void kr_op_erase(kr_op *op) {
  kr_op_drop_all_references(op);
  assert(kr_op_use_empty(op) && "kr_op_erase: results still have uses");
  op_destroy(op);
}

void kr_op_remove(kr_op *op) {
  kr_block *b = op->block;
  if (!b) return;
  if (op->prev)
    op->prev->next = op->next;
  else
    b->first = op->next;
  if (op->next)
    op->next->prev = op->prev;
  else
    b->last = op->prev;
  op->prev = op->next = NULL;
  op->block = NULL;
}

/* Links a detached `op` into `b` before `before` (NULL: at the end) and keeps the block's
 * order valid when there is a gap in the numbering. */
static void link_op(kr_block *b, kr_op *op, kr_op *before) {
  assert(!op->block && "op is already in a block");
  op->block = b;
  op->next = before;
  op->prev = before ? before->prev : b->last;
  if (op->prev)
    op->prev->next = op;
  else
    b->first = op;
  if (before)
    before->prev = op;
  else
    b->last = op;
  if (!b->order_valid) return;
  kr_op *p = op->prev, *n = op->next;
  if (!p && !n) {
    op->order = KR_ORDER_STRIDE;
  } else if (!n) {
    if (p->order <= UINT32_MAX - KR_ORDER_STRIDE)
      op->order = p->order + KR_ORDER_STRIDE;
    else
      b->order_valid = false;
  } else if (!p) {
    if (n->order >= 1)
      op->order = n->order / 2;
    else
      b->order_valid = false;
  } else if (n->order - p->order >= 2) {
    op->order = p->order + (n->order - p->order) / 2;
  } else {
    b->order_valid = false;
  }
}

void kr_op_insert_before(kr_op *op, kr_op *before) { link_op(before->block, op, before); }
void kr_op_insert_after(kr_op *op, kr_op *after) { link_op(after->block, op, after->next); }
void kr_block_append_op(kr_block *b, kr_op *op) { link_op(b, op, NULL); }
void kr_block_prepend_op(kr_block *b, kr_op *op) { link_op(b, op, b->first); }

void kr_op_move_before(kr_op *op, kr_op *before) {
  if (op == before) return;
  kr_op_remove(op);
  kr_op_insert_before(op, before);
}

/* ------------------------------------------------------------------------------------------- */

kr_region *kr_op_region(kr_op *op, unsigned i) { return i < op->num_regions ? &op->regions[i] : NULL; }

kr_op *kr_op_parent_op(kr_op *op) { return op->block ? kr_block_parent_op(op->block) : NULL; }

bool kr_op_is_ancestor(kr_op *ancestor, kr_op *op) {
  for (kr_op *o = op; o; o = kr_op_parent_op(o))
    if (o == ancestor) return true;
  return false;
}

bool kr_op_is_before_in_block(kr_op *a, kr_op *b) {
  kr_block *blk = a->block;
  assert(blk && blk == b->block);
  if (!blk->order_valid) kr_block_recompute_order(blk);
  return a->order < b->order;
}

bool kr_op_is_registered(const kr_op *op) { return op->def != NULL; }

bool kr_op_has_trait(const kr_op *op, uint32_t trait) { return op->def && (op->def->traits & trait) == trait; }

void kr_op_set_operand(kr_op *op, unsigned i, kr_value v) {
  kr_use *u = &op->operands[i];
  if (u->value == v) return;
  use_unlink(u);
  use_link(u, v);
}

void kr_op_set_operands(kr_op *op, const kr_value *vals, unsigned n) {
  if (n == op->num_operands) {
    for (unsigned i = 0; i < n; i++) kr_op_set_operand(op, i, vals[i]);
    return;
  }
  for (unsigned i = 0; i < op->num_operands; i++) use_unlink(&op->operands[i]);
  if (n > op->num_operands) {
    /* The inline array is too small: a fresh one from the arena (the old one is abandoned). */
    op->operands = KR_NEW_ARRAY(&kr_op_context(op)->arena, kr_use, n);
  }
  op->num_operands = n;
  if (n == 0) op->operands = NULL;
  for (unsigned i = 0; i < n; i++) {
    op->operands[i].owner = op;
    op->operands[i].index = i;
    use_link(&op->operands[i], vals[i]);
  }
}

void kr_op_set_successor(kr_op *op, unsigned i, kr_block *b) { op->successors[i] = b; }

kr_attr kr_op_get_attr(const kr_op *op, const char *name) { return kr_dict_get_cstr(op->attrs, name); }

void kr_op_set_attr(kr_op *op, const char *name, kr_attr value) {
  kr_context *ctx = kr_op_context(op);
  kr_ident id = kr_ident_cstr(ctx, name);
  unsigned n = op->attrs->u.dict.num;
  const kr_named_attr *old = op->attrs->u.dict.entries;
  kr_named_attr small[16];
  kr_named_attr *tmp = n + 1 <= 16 ? small : malloc((n + 1) * sizeof *tmp);
  if (!tmp) abort();
  unsigned m = 0;
  bool found = false;
  for (unsigned i = 0; i < n; i++) {
    if (old[i].name == id) {
      found = true;
      if (value) tmp[m++] = (kr_named_attr){id, value};
    } else {
      tmp[m++] = old[i];
    }
  }
  if (!found && value) tmp[m++] = (kr_named_attr){id, value};
  if (found || value) op->attrs = kr_attr_dict(ctx, tmp, m);
  if (tmp != small) free(tmp);
}

void kr_op_set_attrs(kr_op *op, kr_attr dict) {
  op->attrs = (dict && dict->kind == KR_ATTR_DICT) ? dict : kr_op_context(op)->empty_dict;
}

void kr_op_replace(kr_op *op, const kr_value *vals) {
  for (unsigned i = 0; i < op->num_results; i++) kr_value_replace_all_uses(&op->results[i], vals[i]);
  kr_op_erase(op);
}

/* ------------------------------------------------------------------------------------------- */

static void *map_get(kr_hmap *map, const void *key) {
  kr_hmap_entry *e = kr_hmap_find(map, kr_hash_ptr(key), key);
  return e ? e->value : NULL;
}

static void map_put(kr_hmap *map, const void *key, void *value) {
  kr_hmap_insert(map, kr_hash_ptr(key), key, NULL)->value = value;
}

/* Clones `op` and its regions.  Operands are mapped when their value is already in the map;
 * nested clones are collected in `nested` so that uses of values defined later (another block,
 * graph regions) are remapped once everything exists, as MLIR's Region::cloneInto does. */
static kr_op *clone_rec(kr_op *op, kr_hmap *map, kr_vec *nested) {
  kr_context *ctx = kr_op_context(op);
  kr_op *c = op_alloc(ctx, op->name, op->num_operands, op->num_results, op->num_regions, op->num_successors);
  c->def = op->def;
  c->loc = op->loc;
  c->attrs = op->attrs;
  for (unsigned i = 0; i < op->num_results; i++) {
    c->results[i].type = op->results[i].type;
    map_put(map, &op->results[i], &c->results[i]);
  }
  for (unsigned i = 0; i < op->num_operands; i++) {
    kr_value v = op->operands[i].value;
    kr_value m = v ? map_get(map, v) : NULL;
    use_link(&c->operands[i], m ? m : v);
  }
  for (unsigned i = 0; i < op->num_successors; i++) {
    kr_block *m = map_get(map, op->successors[i]);
    c->successors[i] = m ? m : op->successors[i];
  }
  for (unsigned r = 0; r < op->num_regions; r++) {
    kr_region *src = &op->regions[r], *dst = &c->regions[r];
    for (kr_block *b = src->first; b; b = b->next) {
      kr_block *nb = kr_block_create(ctx);
      for (unsigned a = 0; a < b->num_args; a++) {
        kr_value na = kr_block_add_arg(nb, b->args[a]->type, b->args[a]->loc);
        map_put(map, b->args[a], na);
      }
      map_put(map, b, nb);
      kr_region_append_block(dst, nb);
    }
    for (kr_block *b = src->first, *nb = dst->first; b; b = b->next, nb = nb->next) {
      for (kr_op *o = b->first; o; o = o->next) {
        kr_op *oc = clone_rec(o, map, nested);
        KR_VEC_PUSH(nested, kr_op *, oc);
        kr_block_append_op(nb, oc);
      }
    }
  }
  return c;
}

kr_op *kr_op_clone(kr_op *op, kr_hmap *map) {
  kr_hmap local = {0};
  if (!map) map = &local;
  kr_vec nested = {0};
  kr_op *c = clone_rec(op, map, &nested);
  for (size_t i = 0; i < nested.len; i++) {
    kr_op *o = KR_VEC_AT(&nested, kr_op *, i);
    for (unsigned k = 0; k < o->num_operands; k++) {
      kr_value v = o->operands[k].value;
      kr_value m = v ? map_get(map, v) : NULL;
      if (m) kr_op_set_operand(o, k, m);
    }
  }
  kr_vec_free(&nested);
  kr_hmap_free(&local);
  return c;
}
