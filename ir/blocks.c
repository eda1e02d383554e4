/* ir/blocks.c - blocks (arguments, splitting, op order) and regions (block lists). */
#include <assert.h>
#include <string.h>

#include "ir/context_impl.h"

kr_block *kr_block_create(kr_context *ctx) {
  kr_block *b = KR_NEW(&ctx->arena, kr_block);
  b->ctx = ctx;
  b->order_valid = true; /* empty: trivially ordered; appends keep it valid */
  return b;
}

kr_value kr_block_add_arg(kr_block *b, kr_type type, kr_attr loc) {
  if (b->num_args == b->cap_args) {
    /* Arrays grow in the arena; the abandoned one is reclaimed with the context. */
    uint32_t cap = b->cap_args ? b->cap_args * 2 : 4;
    kr_value *args = KR_NEW_ARRAY(&b->ctx->arena, kr_value, cap);
    if (b->num_args) memcpy(args, b->args, b->num_args * sizeof(kr_value));
    b->args = args;
    b->cap_args = cap;
  }
  struct kr_value_impl *v = KR_NEW(&b->ctx->arena, struct kr_value_impl);
  v->type = type;
  v->owner.block = b;
  v->index = b->num_args;
  v->is_block_arg = true;
  v->loc = loc;
  b->args[b->num_args++] = v;
  return v;
}

void kr_block_erase_arg(kr_block *b, unsigned i) {
  assert(i < b->num_args && !b->args[i]->first_use && "erasing a block argument that is still used");
  memmove(&b->args[i], &b->args[i + 1], (b->num_args - i - 1) * sizeof(kr_value));
  b->num_args--;
  for (unsigned k = i; k < b->num_args; k++) b->args[k]->index = k;
}

kr_op *kr_block_terminator(kr_block *b) {
  return b->last && kr_op_has_trait(b->last, KR_TRAIT_TERMINATOR) ? b->last : NULL;
}

kr_op *kr_block_parent_op(kr_block *b) { return b->region ? b->region->parent : NULL; }

void kr_block_erase(kr_block *b) {
  for (kr_op *o = b->first; o; o = o->next) kr_op_drop_all_references(o);
  for (kr_op *o = b->last; o;) {
    kr_op *p = o->prev;
    kr_op_erase(o);
    o = p;
  }
  if (b->region) kr_region_remove_block(b->region, b);
}

kr_block *kr_block_split(kr_block *b, kr_op *op) {
  kr_block *nb = kr_block_create(b->ctx);
  if (b->region) kr_region_insert_block_after(b->region, b, nb);
  if (!op) return nb;
  assert(op->block == b);
  nb->first = op;
  nb->last = b->last;
  b->last = op->prev;
  if (op->prev)
    op->prev->next = NULL;
  else
    b->first = NULL;
  op->prev = NULL;
  for (kr_op *o = op; o; o = o->next) o->block = nb;
  nb->order_valid = b->order_valid; /* the moved ops keep their increasing numbers */
  return nb;
}

void kr_block_recompute_order(kr_block *b) {
  uint32_t k = 0;
  for (kr_op *o = b->first; o; o = o->next) o->order = (k += KR_ORDER_STRIDE);
  b->order_valid = true;
}

size_t kr_block_num_ops(const kr_block *b) {
  size_t n = 0;
  for (const kr_op *o = b->first; o; o = o->next) n++;
  return n;
}

bool kr_block_is_entry(const kr_block *b) { return b->region && b->region->first == b; }

/* ------------------------------------------------------------------------------------------- */

kr_region *kr_region_create(kr_context *ctx) {
  kr_region *r = KR_NEW(&ctx->arena, kr_region);
  r->ctx = ctx;
  return r;
}

void kr_region_append_block(kr_region *r, kr_block *b) { kr_region_insert_block_after(r, r->last, b); }

/* `after` NULL inserts at the front. */
void kr_region_insert_block_after(kr_region *r, kr_block *after, kr_block *b) {
  b->region = r;
  b->prev = after;
  b->next = after ? after->next : r->first;
  if (b->prev)
    b->prev->next = b;
  else
    r->first = b;
  if (b->next)
    b->next->prev = b;
  else
    r->last = b;
}

void kr_region_remove_block(kr_region *r, kr_block *b) {
  assert(b->region == r);
  if (b->prev)
    b->prev->next = b->next;
  else
    r->first = b->next;
  if (b->next)
    b->next->prev = b->prev;
  else
    r->last = b->prev;
  b->prev = b->next = NULL;
  b->region = NULL;
}

void kr_region_take_body(kr_region *dst, kr_region *src) {
  if (!src->first || dst == src) return;
  for (kr_block *b = src->first; b; b = b->next) b->region = dst;
  src->first->prev = dst->last;
  if (dst->last)
    dst->last->next = src->first;
  else
    dst->first = src->first;
  dst->last = src->last;
  src->first = src->last = NULL;
}

bool kr_region_empty(const kr_region *r) { return r->first == NULL; }

size_t kr_region_num_blocks(const kr_region *r) {
  size_t n = 0;
  for (const kr_block *b = r->first; b; b = b->next) n++;
  return n;
}
