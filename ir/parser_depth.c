/* ir/parser_depth.c - the nesting depth of parsed IR, so that print∘parse stays a fixed point at
 * the nesting limit.
 *
 * The parser refuses text nested deeper than KR_PARSE_MAX_DEPTH (regions, arrays, dictionaries,
 * types, locations: a stack-safety bound).  The printer can write the same IR a few levels deeper
 * than it was read (the implicit module becomes `module {`, a custom form's types and attributes
 * move into the generic form's attribute dictionary and function type), so a text limit alone
 * would accept files whose printed form it then refuses.  The limit that decides acceptance is
 * therefore on the IR itself (KP_MAX_IR_DEPTH, below the text limit by more than printing adds):
 * kp_ir_depth counts one level per region, per non-empty attribute dictionary (the op's own
 * included), array, shaped/tuple/function/dialect type, dense literal dimension and nested
 * location, which is at least the depth of any printed form and at most a few levels more than
 * the text it was parsed from.  It only runs when the text came close to the limit. */
#include "ir/parser_impl.h"

typedef struct depth_walk {
  kr_hmap memo;   /* kr_type / kr_attr -> depth + 1 (uniqued, often shared) */
} depth_walk;

static unsigned attr_depth(depth_walk *w, kr_attr a);

static unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }

static bool memo_get(depth_walk *w, const void *key, unsigned *d) {
  kr_hmap_entry *e = kr_hmap_find(&w->memo, kr_hash_ptr(key), key);
  if (e) *d = (unsigned)((uintptr_t)e->value - 1);
  return e != NULL;
}

static unsigned memo_put(depth_walk *w, const void *key, unsigned d) {
  kr_hmap_insert(&w->memo, kr_hash_ptr(key), key, NULL)->value = (void *)(uintptr_t)(d + 1);
  return d;
}

static unsigned type_depth(depth_walk *w, kr_type t) {
  if (!t) return 0;
  switch (t->kind) {
  case KR_TYPE_INTEGER:
  case KR_TYPE_INDEX:
  case KR_TYPE_FLOAT:
  case KR_TYPE_NONE:
  case KR_TYPE_OPAQUE:
    return 0;
  default:
    break;
  }
  unsigned d = 0;
  if (memo_get(w, t, &d)) return d;
  switch (t->kind) {
  case KR_TYPE_TENSOR:
  case KR_TYPE_VECTOR:
    d = type_depth(w, t->u.shaped.elem);
    break;
  case KR_TYPE_FUNCTION:
    for (unsigned i = 0; i < t->u.func.num_inputs; i++) d = umax(d, type_depth(w, t->u.func.inputs[i]));
    for (unsigned i = 0; i < t->u.func.num_results; i++) d = umax(d, type_depth(w, t->u.func.results[i]));
    break;
  case KR_TYPE_TUPLE:
    for (unsigned i = 0; i < t->u.tuple.num; i++) d = umax(d, type_depth(w, t->u.tuple.elems[i]));
    break;
  case KR_TYPE_DIALECT:
    for (unsigned i = 0; i < t->u.dialect.num_params; i++) d = umax(d, attr_depth(w, t->u.dialect.params[i]));
    break;
  default:
    break;
  }
  return memo_put(w, t, d + 1);
}

static unsigned loc_depth(depth_walk *w, kr_attr l) {
  if (!l || l->kind != KR_ATTR_LOCATION) return l ? attr_depth(w, l) : 0;
  unsigned d = 0;
  switch (l->u.loc.kind) {
  case KR_LOC_NAME:
    return l->u.loc.child ? 1 + loc_depth(w, l->u.loc.child) : 0;
  case KR_LOC_CALLSITE:
    return 1 + umax(loc_depth(w, l->u.loc.child), loc_depth(w, l->u.loc.caller));
  case KR_LOC_FUSED:
    for (unsigned i = 0; i < l->u.loc.num; i++) d = umax(d, loc_depth(w, l->u.loc.locs[i]));
    if (l->u.loc.metadata) d = umax(d, attr_depth(w, l->u.loc.metadata));
    return 1 + d;
  default:
    return 0;
  }
}

static unsigned attr_depth(depth_walk *w, kr_attr a) {
  if (!a) return 0;
  switch (a->kind) {
  case KR_ATTR_UNIT:
  case KR_ATTR_BOOL:
  case KR_ATTR_INTEGER:
  case KR_ATTR_FLOAT:
  case KR_ATTR_SYMBOL_REF:
  case KR_ATTR_OPAQUE:
  case KR_ATTR_DENSE_ARRAY:
    return 0;
  case KR_ATTR_STRING:
  case KR_ATTR_TYPE:
  case KR_ATTR_RESOURCE:
    return type_depth(w, a->type);
  case KR_ATTR_DENSE:
    return umax(a->type->u.shaped.rank, type_depth(w, a->type));
  case KR_ATTR_LOCATION:
    return loc_depth(w, a);
  default:
    break;
  }
  unsigned d = 0;
  if (memo_get(w, a, &d)) return d;
  switch (a->kind) {
  case KR_ATTR_ARRAY:
    for (unsigned i = 0; i < a->u.array.num; i++) d = umax(d, attr_depth(w, a->u.array.elems[i]));
    break;
  case KR_ATTR_DICT:
    if (!a->u.dict.num) return memo_put(w, a, 0);
    for (unsigned i = 0; i < a->u.dict.num; i++) d = umax(d, attr_depth(w, a->u.dict.entries[i].value));
    break;
  case KR_ATTR_DIALECT:
    for (unsigned i = 0; i < a->u.dialect.num_params; i++) d = umax(d, attr_depth(w, a->u.dialect.params[i]));
    break;
  default:
    break;
  }
  return memo_put(w, a, d + 1);
}

/* `r`: regions open around the op. */
static unsigned op_depth(depth_walk *w, kr_op *op, unsigned r) {
  unsigned d = r + umax(attr_depth(w, op->attrs), loc_depth(w, op->loc));
  for (unsigned i = 0; i < op->num_results; i++) d = umax(d, r + type_depth(w, op->results[i].type));
  for (unsigned i = 0; i < op->num_regions; i++) {
    for (kr_block *b = op->regions[i].first; b; b = b->next) {
      d = umax(d, r + 1);
      for (unsigned k = 0; k < b->num_args; k++)
        d = umax(d, r + 1 + umax(type_depth(w, b->args[k]->type), loc_depth(w, b->args[k]->loc)));
      for (kr_op *o = b->first; o; o = o->next) d = umax(d, op_depth(w, o, r + 1));
    }
  }
  return d;
}

unsigned kp_ir_depth(kr_op *op) {
  depth_walk w = {{0}};
  unsigned d = op_depth(&w, op, 0);
  kr_hmap_free(&w.memo);
  return d;
}
