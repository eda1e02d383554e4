/* passes/symbol_dce.c - `symbol-dce` (MLIR's SymbolDCE.cpp): erase symbols nothing live refers to.
 *
 * Liveness starts from every op of the symbol table that is not a symbol and every symbol that
 * cannot be discarded: public symbols, and `nested` ones when the table is visible from outside
 * (it has a parent and is a public or nested symbol).  Private symbols, and nested ones of a
 * hidden table, are discardable.  A live op's symbol references (in its attributes and those of
 * the ops nested in it, not entering nested symbol tables, which are handled recursively) are
 * resolved in the table that holds the op, like MLIR: a reference a table cannot resolve is
 * ignored.  Every path component of a nested reference (@a::@b) becomes live. */
#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"
#include "passes/pass_impl.h"

typedef enum visibility { VIS_PUBLIC, VIS_PRIVATE, VIS_NESTED } visibility;

/* MLIR's SymbolOpInterface: registered symbol ops, and symbol tables that carry a name (a
 * `module @m` is an optional symbol; an anonymous module is not one). */
static bool is_symbol(const kr_op *op) {
  return op->def && (op->def->traits & (KR_TRAIT_SYMBOL | KR_TRAIT_SYMBOL_TABLE)) && kr_op_symbol_name(op);
}

static visibility symbol_visibility(const kr_op *op) {
  kr_attr v = kr_op_get_attr(op, "sym_visibility");
  if (!v || v->kind != KR_ATTR_STRING) return VIS_PUBLIC;
  if (strcmp(v->u.string.str, "private") == 0) return VIS_PRIVATE;
  if (strcmp(v->u.string.str, "nested") == 0) return VIS_NESTED;
  return VIS_PUBLIC;
}

typedef struct sdce {
  kr_context *ctx;
  kr_hmap live;   /* kr_op* set */
  kr_vec work;    /* kr_op * */
  kr_vec refs;    /* kr_attr: scratch symbol references of one op */
  kr_hmap tables; /* table op -> kr_symbol_table *, built on first use (nothing is erased before
                   * liveness is known, so they stay valid) */
  size_t erased;
} sdce;

static kr_op *lookup_in(sdce *s, kr_op *table, kr_ident name) {
  bool ins;
  kr_hmap_entry *e = kr_hmap_insert(&s->tables, kr_hash_ptr(table), table, &ins);
  if (ins) {
    kr_symbol_table *t = malloc(sizeof *t);
    if (!t) {
      kr_hmap_remove(&s->tables, kr_hash_ptr(table), table);
      return kr_symbol_lookup_in(table, name);
    }
    kr_symbol_table_init(t, table);
    e->value = t;
  }
  return kr_symbol_table_lookup(e->value, name);
}

static bool mark_live(sdce *s, kr_op *op) {
  bool ins;
  kr_hmap_insert(&s->live, kr_hash_ptr(op), op, &ins);
  return ins;
}

void kr__collect_symbol_refs(kr_attr a, kr_vec *out) {
  if (!a) return;
  switch (a->kind) {
  case KR_ATTR_SYMBOL_REF: KR_VEC_PUSH(out, kr_attr, a); break;
  case KR_ATTR_ARRAY:
    for (unsigned i = 0; i < a->u.array.num; i++) kr__collect_symbol_refs(a->u.array.elems[i], out);
    break;
  case KR_ATTR_DICT:
    for (unsigned i = 0; i < a->u.dict.num; i++) kr__collect_symbol_refs(a->u.dict.entries[i].value, out);
    break;
  case KR_ATTR_DIALECT:
    for (unsigned i = 0; i < a->u.dialect.num_params; i++) kr__collect_symbol_refs(a->u.dialect.params[i], out);
    break;
  default: break;
  }
}

/* MLIR refuses to guess: an op of an unknown dialect with regions might be a symbol table. */
static bool potentially_unknown_table(sdce *s, const kr_op *op) {
  if (op->def || !op->num_regions) return false;
  const char *dot = strchr(op->name, '.');
  size_t len = dot ? (size_t)(dot - op->name) : strlen(op->name);
  return kr_context_lookup_dialect(s->ctx, op->name, len) == NULL;
}

/* The symbol uses of `op` (MLIR's SymbolTable::getSymbolUses); fails on an unknown table. */
static kr_status collect_uses(sdce *s, kr_op *op, bool top) {
  if (potentially_unknown_table(s, op))
    return kr_emit_error(s->ctx, op->loc,
                         "operation contains potentially unknown symbol table, meaning that we can't reliable "
                         "compute symbol uses");
  kr__collect_symbol_refs(op->attrs, &s->refs);
  if (kr_op_has_trait(op, KR_TRAIT_SYMBOL_TABLE)) return KR_SUCCESS;
  (void)top;
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kr_block *b = op->regions[r].first; b; b = b->next)
      for (kr_op *o = b->first; o; o = o->next)
        if (KR_FAILED(collect_uses(s, o, false))) return KR_FAILURE;
  return KR_SUCCESS;
}

static kr_status compute_liveness(sdce *s, kr_op *table, bool hidden) {
  size_t base = s->work.len;
  if (table->num_regions > 0)
    for (kr_block *b = table->regions[0].first; b; b = b->next)
      for (kr_op *op = b->first; op; op = op->next) {
        if (!is_symbol(op)) {
          KR_VEC_PUSH(&s->work, kr_op *, op);
          continue;
        }
        visibility v = symbol_visibility(op);
        bool discardable = v == VIS_PRIVATE || (v == VIS_NESTED && hidden);
        if (!discardable && mark_live(s, op)) KR_VEC_PUSH(&s->work, kr_op *, op);
      }
  while (s->work.len > base) {
    kr_op *op = KR_VEC_AT(&s->work, kr_op *, --s->work.len);
    if (kr_op_has_trait(op, KR_TRAIT_SYMBOL_TABLE)) {
      bool inner_hidden = hidden || !is_symbol(op) || symbol_visibility(op) == VIS_PRIVATE;
      if (KR_FAILED(compute_liveness(s, op, inner_hidden))) return KR_FAILURE;
    }
    s->refs.len = 0;
    if (KR_FAILED(collect_uses(s, op, true))) return KR_FAILURE;
    kr_op *scope = kr_op_parent_op(op);
    if (!scope) continue;
    size_t nrefs = s->refs.len;
    for (size_t i = 0; i < nrefs; i++) {
      kr_attr ref = KR_VEC_AT(&s->refs, kr_attr, i);
      /* Resolve every component first; an unresolvable reference marks nothing. */
      kr_op *path[16];
      unsigned depth = 0;
      kr_op *cur = lookup_in(s, scope, ref->u.symref.root);
      bool ok = cur != NULL;
      if (ok) path[depth++] = cur;
      for (unsigned k = 0; ok && k < ref->u.symref.num_nested; k++) {
        if (!kr_op_has_trait(cur, KR_TRAIT_SYMBOL_TABLE) || depth >= 16) {
          ok = false;
          break;
        }
        cur = lookup_in(s, cur, ref->u.symref.nested[k]);
        if (!cur) ok = false;
        else path[depth++] = cur;
      }
      if (!ok) continue;
      for (unsigned k = 0; k < depth; k++)
        if (mark_live(s, path[k])) KR_VEC_PUSH(&s->work, kr_op *, path[k]);
    }
  }
  return KR_SUCCESS;
}

static void erase_dead(sdce *s, kr_op *op) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kr_block *b = op->regions[r].first; b; b = b->next) {
      kr_op *next;
      for (kr_op *o = b->first; o; o = next) {
        next = o->next;
        erase_dead(s, o);
      }
    }
  if (!kr_op_has_trait(op, KR_TRAIT_SYMBOL_TABLE) || op->num_regions == 0) return;
  for (kr_block *b = op->regions[0].first; b; b = b->next) {
    kr_op *next;
    for (kr_op *o = b->first; o; o = next) {
      next = o->next;
      if (is_symbol(o) && !kr_hmap_find(&s->live, kr_hash_ptr(o), o)) {
        kr_op_drop_all_references(o);
        kr_op_erase(o);
        s->erased++;
      }
    }
  }
}

static kr_status symbol_dce_run(kr_op *op, const void *options, kr_pass_run *run) {
  if (!kr_op_has_trait(op, KR_TRAIT_SYMBOL_TABLE))
    return kr_op_emit_error(op, " was scheduled to run under SymbolDCE, but does not define a symbol table");
  sdce s;
  memset(&s, 0, sizeof s);
  s.ctx = kr_op_context(op);
  /* A table nobody outside can name (top level, or a private symbol) hides its nested symbols. */
  bool hidden = true;
  if (kr_op_parent_op(op) && is_symbol(op)) hidden = symbol_visibility(op) == VIS_PRIVATE;
  kr_status st = compute_liveness(&s, op, hidden);
  if (!KR_FAILED(st)) erase_dead(&s, op);
  if (!s.erased) kr_pass_run_mark_unchanged(run);
  for (size_t i = 0; i < s.tables.cap; i++)
    if (s.tables.slots[i].hash) {
      kr_symbol_table_free(s.tables.slots[i].value);
      free(s.tables.slots[i].value);
    }
  kr_hmap_free(&s.tables);
  kr_hmap_free(&s.live);
  kr_vec_free(&s.work);
  kr_vec_free(&s.refs);
  return st;
}

const kr_pass_def kr_symbol_dce_pass = {
  .argument = "symbol-dce",
  .summary = "Eliminate dead symbols",
  .run = symbol_dce_run,
  .display_name = "SymbolDCE",
};
