/* ir/symbols.c - symbols and symbol tables (LangRef "Symbols and Symbol Tables").
 *
 * A symbol is any op with a string `sym_name` attribute (MLIR's getNameIfSymbol), found in the
 * first block of region 0 of an op with KR_TRAIT_SYMBOL_TABLE. */
#include <string.h>

#include "ir/context_impl.h"

kr_ident kr_op_symbol_name(const kr_op *op) {
  kr_attr a = kr_op_get_attr(op, "sym_name");
  return a && a->kind == KR_ATTR_STRING ? a->u.string.str : NULL;
}

bool kr_op_symbol_is_private(const kr_op *op) {
  kr_attr a = kr_op_get_attr(op, "sym_visibility");
  return a && a->kind == KR_ATTR_STRING && kr_ident_len(a->u.string.str) == 7 &&
         memcmp(a->u.string.str, "private", 7) == 0;
}

kr_op *kr_symbol_lookup_in(kr_op *table, kr_ident name) {
  if (!table || !name || table->num_regions == 0 || !table->regions[0].first) return NULL;
  for (kr_op *o = table->regions[0].first->first; o; o = o->next)
    if (kr_op_symbol_name(o) == name) return o;
  return NULL;
}

kr_op *kr_symbol_table_of(kr_op *op) {
  for (kr_op *o = op; o; o = kr_op_parent_op(o))
    if (kr_op_has_trait(o, KR_TRAIT_SYMBOL_TABLE)) return o;
  return NULL;
}

/* Follows the nested part of @root::@a::@b from the op `root` resolved to. */
static kr_op *resolve_nested(kr_op *sym, kr_attr ref) {
  for (unsigned i = 0; sym && i < ref->u.symref.num_nested; i++) {
    if (!kr_op_has_trait(sym, KR_TRAIT_SYMBOL_TABLE)) return NULL;
    sym = kr_symbol_lookup_in(sym, ref->u.symref.nested[i]);
  }
  return sym;
}

/* The first enclosing table that defines the root name decides (inner names shadow outer
 * ones); the nested part must then resolve inside it. */
kr_op *kr_symbol_lookup(kr_op *from, kr_attr symref) {
  if (!from || !symref || symref->kind != KR_ATTR_SYMBOL_REF) return NULL;
  /* Only the nearest symbol table, as MLIR's lookupNearestSymbolFrom: a symbol of an enclosing
   * table is not visible from a nested one (symbol-dce and inline count uses the same way). */
  kr_op *t = kr_symbol_table_of(from);
  kr_op *root = t ? kr_symbol_lookup_in(t, symref->u.symref.root) : NULL;
  return root ? resolve_nested(root, symref) : NULL;
}

void kr_symbol_table_init(kr_symbol_table *t, kr_op *table_op) {
  t->op = table_op;
  memset(&t->map, 0, sizeof t->map);
  if (!table_op || table_op->num_regions == 0 || !table_op->regions[0].first) return;
  for (kr_op *o = table_op->regions[0].first->first; o; o = o->next) {
    kr_ident n = kr_op_symbol_name(o);
    if (!n) continue;
    bool inserted;
    kr_hmap_entry *e = kr_hmap_insert(&t->map, kr_hash_ptr(n), n, &inserted);
    if (inserted) e->value = o; /* the first definition wins, as with a linear scan */
  }
}

kr_op *kr_symbol_table_lookup(const kr_symbol_table *t, kr_ident name) {
  if (!name) return NULL;
  kr_hmap_entry *e = kr_hmap_find(&t->map, kr_hash_ptr(name), name);
  return e ? e->value : NULL;
}

void kr_symbol_table_free(kr_symbol_table *t) { kr_hmap_free(&t->map); }

static void walk_attr(kr_op *user, kr_attr a, kr_symbol_use_fn fn, void *ud) {
  if (!a) return;
  switch (a->kind) {
  case KR_ATTR_SYMBOL_REF: fn(user, a, ud); break;
  case KR_ATTR_ARRAY:
    for (unsigned i = 0; i < a->u.array.num; i++) walk_attr(user, a->u.array.elems[i], fn, ud);
    break;
  case KR_ATTR_DICT:
    for (unsigned i = 0; i < a->u.dict.num; i++) walk_attr(user, a->u.dict.entries[i].value, fn, ud);
    break;
  case KR_ATTR_DIALECT:
    for (unsigned i = 0; i < a->u.dialect.num_params; i++) walk_attr(user, a->u.dialect.params[i], fn, ud);
    break;
  default: break;
  }
}

typedef struct sym_walk {
  kr_symbol_use_fn fn;
  void *ud;
} sym_walk;

static kr_walk_result sym_walk_fn(kr_op *op, void *user) {
  sym_walk *w = user;
  walk_attr(op, op->attrs, w->fn, w->ud);
  return KR_WALK_ADVANCE;
}

void kr_op_walk_symbol_uses(kr_op *op, bool recursive, kr_symbol_use_fn fn, void *ud) {
  if (!recursive) {
    walk_attr(op, op->attrs, fn, ud);
    return;
  }
  sym_walk w = {fn, ud};
  kr_op_walk(op, KR_WALK_PRE_ORDER, sym_walk_fn, &w);
}
