/* ir/verifier.c - kr_op_verify: the structural checks of MLIR's Verifier.cpp and OpDefinition
 * traits, each op's verify hook, and SSA dominance.
 *
 * Unlike MLIR, which stops at the first failure, every independent error is reported (an op whose
 * counts or traits are wrong still has its regions checked, but its verify hook is skipped since
 * hooks may rely on the counts).  Messages use MLIR's wording so that tests read the same.
 *
 * Order: an op's own checks and hook, then each region: entry-block predecessors, then per block
 * its terminator, and per op the dominance of its operands followed by the op itself, recursively.
 *
 * Dominance (MLIR's DominanceInfo::properlyDominates, SSACFG semantics in every region, also those
 * of unregistered ops): a use is walked up to the ancestor op that sits in the defining region;
 * in the same block the definition must come first (kr_op::order), across blocks the defining
 * block must properly dominate (ir/dominance.h); a value used inside the regions of its own
 * defining op is not dominated.  Uses in blocks unreachable from their region's entry are not
 * checked, as in MLIR.  The walk also sees isolated-from-above ops crossed on the way, which is
 * the isolation check.  Everything is linear in the IR size apart from hash lookups for uses that
 * cross blocks. */
#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"
#include "ir/dominance.h"

typedef struct verifier {
  kr_context *ctx;
  kr_status status;
  kr_dominance dom;
  kr_hmap symbols;   /* scratch for one symbol table: kr_ident -> kr_op * */
} verifier;

static void verify_op(verifier *v, kr_op *op);

/* ---------------------------------------------------------------------------------------------
 * Helpers. */

static bool has(const kr_op *op, uint32_t trait) { return op->def && (op->def->traits & trait); }

/* Prints an attribute or op into a malloc'd string for a diagnostic. */
static char *attr_text(kr_attr a) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_attr_print(&os, a);
  kr_ostream_str(&os);
  return os.buf;
}

static char *op_text(kr_op *op) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_print_flags flags = {.generic = true};   /* MLIR prints invalid ops generically */
  kr_op_print_in_context(op, &os, &flags);
  kr_ostream_str(&os);
  return os.buf;
}

/* Whether region `a` properly contains region `b`. */
static bool region_is_proper_ancestor(const kr_region *a, const kr_region *b) {
  for (const kr_op *o = b->parent; o && o->block && o->block->region; o = o->block->region->parent)
    if (o->block->region == a) return true;
  return false;
}

/* Whether region `r` lies inside one of `op`'s regions. */
static bool region_is_inside(const kr_region *r, const kr_op *op) {
  for (const kr_op *o = r->parent; o; o = o->block && o->block->region ? o->block->region->parent : NULL)
    if (o == op) return true;
  return false;
}

static unsigned block_index(const kr_block *b) {
  unsigned i = 0;
  for (const kr_block *x = b->region->first; x && x != b; x = x->next) i++;
  return i;
}

/* ---------------------------------------------------------------------------------------------
 * Op-level checks (counts, traits, successors).  Return false when the verify hook must not run. */

/* MLIR's OpTrait::ZeroOperands/OneOperand/NOperands (and the result and region variants). */
static bool check_count(verifier *v, kr_op *op, int want, uint32_t have, const char *zero, const char *one,
                        const char *noun, bool but_found) {
  if (want == KR_VARIADIC || (uint32_t)want == have) return true;
  v->status = KR_FAILURE;
  if (want == 0) kr_op_emit_error(op, "%s", zero);
  else if (want == 1) kr_op_emit_error(op, "%s", one);
  else if (but_found) kr_op_emit_error(op, "expected %d %s, but found %u", want, noun, have);
  else kr_op_emit_error(op, "expected %d %s", want, noun);
  return false;
}

/* MLIR's verifyCompatibleShape: both shaped or neither; unranked matches anything; otherwise equal
 * ranks with equal or dynamic dimensions. */
static bool shapes_compatible(kr_type a, kr_type b) {
  bool sa = kr_type_is_shaped(a), sb = kr_type_is_shaped(b);
  if (!sa || !sb) return sa == sb;
  if (a->u.shaped.unranked || b->u.shaped.unranked) return true;
  if (a->u.shaped.rank != b->u.shaped.rank) return false;
  for (unsigned i = 0; i < a->u.shaped.rank; i++) {
    int64_t x = a->u.shaped.dims[i], y = b->u.shaped.dims[i];
    if (x != y && x != KR_DYNAMIC && y != KR_DYNAMIC) return false;
  }
  return true;
}

static bool check_same_operands_and_result_type(verifier *v, kr_op *op) {
  if (op->num_operands < 1) {
    kr_op_emit_error(op, "expected 1 or more operands, but found %u", op->num_operands);
    return false;
  }
  if (op->num_results < 1) {
    kr_op_emit_error(op, "expected 1 or more results");
    return false;
  }
  kr_type t = op->results[0].type, elem = kr_type_element(t);
  bool ok = true;
  for (uint32_t i = 1; i < op->num_results && ok; i++)
    ok = kr_type_element(op->results[i].type) == elem && shapes_compatible(op->results[i].type, t);
  for (uint32_t i = 0; i < op->num_operands && ok; i++) {
    kr_type ot = kr_value_type(op->operands[i].value);
    ok = kr_type_element(ot) == elem && shapes_compatible(ot, t);
  }
  if (!ok) kr_op_emit_error(op, "requires the same type for all operands and results");
  (void)v;
  return ok;
}

/* MLIR's SymbolOpInterface verifySymbol. */
static bool check_symbol(verifier *v, kr_op *op) {
  kr_attr name = kr_op_get_attr(op, "sym_name");
  if (!name || name->kind != KR_ATTR_STRING) {
    kr_op_emit_error(op, "requires string attribute 'sym_name'");
    return false;
  }
  kr_attr vis = kr_op_get_attr(op, "sym_visibility");
  if (!vis) return true;
  if (vis->kind != KR_ATTR_STRING) {
    char *s = attr_text(vis);
    kr_op_emit_error(op, "requires visibility attribute 'sym_visibility' to be a string attribute, but got %s", s);
    free(s);
    return false;
  }
  const char *vs = vis->u.string.str;
  if (strcmp(vs, "public") && strcmp(vs, "private") && strcmp(vs, "nested")) {
    char *s = attr_text(vis);
    kr_op_emit_error(op, "visibility expected to be one of [\"public\", \"private\", \"nested\"], but got %s", s);
    free(s);
    return false;
  }
  (void)v;
  return true;
}

/* MLIR's verifySymbolTable: one region with one block, unique `sym_name`s among its ops. */
static bool check_symbol_table(verifier *v, kr_op *op) {
  if (op->num_regions != 1) {
    kr_op_emit_error(op, "Operations with a 'SymbolTable' must have exactly one region");
    return false;
  }
  kr_region *r = &op->regions[0];
  if (!r->first || r->first != r->last) {
    kr_op_emit_error(op, "Operations with a 'SymbolTable' must have exactly one block");
    return false;
  }
  bool ok = true;
  kr_hmap_clear(&v->symbols);
  for (kr_op *o = r->first->first; o; o = o->next) {
    kr_attr name = kr_op_get_attr(o, "sym_name");
    if (!name || name->kind != KR_ATTR_STRING) continue;
    kr_ident id = name->u.string.str;
    bool inserted;
    kr_hmap_entry *e = kr_hmap_insert(&v->symbols, kr_hash_ptr(id), id, &inserted);
    if (inserted) {
      e->value = o;
      continue;
    }
    kr_diagnostic *d = kr_diag_begin(v->ctx, KR_SEV_ERROR, o->loc, "redefinition of symbol named '%s'", id);
    kr_diag_note(d, ((kr_op *)e->value)->loc, "see existing symbol definition here");
    kr_diag_report(d);
    ok = false;
  }
  return ok;
}

static void check_unregistered(verifier *v, kr_op *op) {
  const char *name = op->name, *dot = strchr(name, '.');
  size_t dlen = dot ? (size_t)(dot - name) : strlen(name);
  if (kr_context_lookup_dialect(v->ctx, name, dlen)) {
    v->status = KR_FAILURE;
    kr_emit_error(v->ctx, op->loc,
                  "unregistered operation '%s' found in dialect ('%.*s') that does not allow unknown operations", name,
                  (int)dlen, name);
  } else if (!kr_context_allow_unregistered(v->ctx)) {
    v->status = KR_FAILURE;
    kr_op_emit_error(op, "created with unregistered dialect. If this is intended, please call "
                         "kr_context_set_allow_unregistered() on the context, or use "
                         "--allow-unregistered-dialect with the korch-opt tool used");
  }
}

static bool check_op(verifier *v, kr_op *op) {
  bool ok = true;
  const kr_op_def *def = op->def;
  if (!def) {
    check_unregistered(v, op);
  } else {
    ok &= check_count(v, op, def->num_operands, op->num_operands, "requires zero operands",
                      "requires a single operand", "operands", true);
    ok &= check_count(v, op, def->num_results, op->num_results, "requires zero results", "requires one result",
                      "results", false);
    ok &= check_count(v, op, def->num_regions, op->num_regions, "requires zero regions", "requires one region",
                      "regions", false);
    uint32_t traits = def->traits;
    if ((traits & KR_TRAIT_SAME_OPERANDS_TYPE) && op->num_operands > 1) {
      kr_type t = kr_value_type(op->operands[0].value);
      for (uint32_t i = 1; i < op->num_operands; i++) {
        if (kr_value_type(op->operands[i].value) != t) {
          kr_op_emit_error(op, "requires all operands to have the same type");
          ok = false;
          break;
        }
      }
    }
    if (traits & KR_TRAIT_SAME_OPERANDS_AND_RESULT_TYPE) ok &= check_same_operands_and_result_type(v, op);
    if ((traits & KR_TRAIT_TERMINATOR) && op->block && op->next) {
      kr_op_emit_error(op, "must be the last operation in the parent block");
      ok = false;
    }
    if (traits & KR_TRAIT_SINGLE_BLOCK) {
      for (uint32_t i = 0; i < op->num_regions; i++) {
        kr_region *r = &op->regions[i];
        if (!r->first) continue;
        if (r->first != r->last) {
          kr_op_emit_error(op, "expects region #%u to have 0 or 1 blocks", i);
          ok = false;
        } else if (!(traits & KR_TRAIT_NO_TERMINATOR) && !r->first->first) {
          kr_op_emit_error(op, "expects a non-empty block");
          ok = false;
        }
      }
    }
    if (traits & KR_TRAIT_SYMBOL) ok &= check_symbol(v, op);
    if (traits & KR_TRAIT_SYMBOL_TABLE) ok &= check_symbol_table(v, op);
    if (op->num_successors && !(traits & KR_TRAIT_TERMINATOR)) {
      kr_op_emit_error(op, "requires 0 successors but found %u", op->num_successors);
      ok = false;
    }
  }
  if (op->num_successors) {
    if (op->block && op->next) {
      kr_emit_error(v->ctx, op->loc, "operation with block successors must terminate its parent block");
      ok = false;
    }
    kr_region *here = op->block ? op->block->region : NULL;
    for (uint32_t i = 0; i < op->num_successors; i++) {
      kr_block *s = op->successors[i];
      if (s && s->region == here) continue;
      if (def) kr_emit_error(v->ctx, op->loc, "reference to block defined in another region");
      else kr_op_emit_error(op, "branching to block of a different region");
      ok = false;
      break;
    }
  }
  if (!ok) v->status = KR_FAILURE;
  return ok;
}

/* ---------------------------------------------------------------------------------------------
 * Dominance and isolation of one op's operands. */

static void report_dominance(verifier *v, kr_op *user, unsigned i, kr_value val) {
  v->status = KR_FAILURE;
  kr_diagnostic *d = kr_diag_begin(v->ctx, KR_SEV_ERROR, user->loc, "operand #%u does not dominate this use", i);
  kr_block *b1 = user->block;
  kr_region *r1 = b1->region;
  if (!val->is_block_arg) {
    kr_op *def = val->owner.op;
    kr_block *b2 = def->block;
    kr_region *r2 = b2->region;
    const char *where = b1 == b2                              ? " (op in the same block)"
                        : r1 == r2                            ? " (op in the same region)"
                        : region_is_proper_ancestor(r2, r1)   ? " (op in a parent region)"
                        : region_is_proper_ancestor(r1, r2)   ? " (op in a child region)"
                                                              : " (op is neither in a parent nor in a child region)";
    kr_diag_note(d, def->loc, "operand defined here%s", where);
  } else {
    kr_block *b2 = val->owner.block;
    kr_region *r2 = b2->region;
    kr_attr loc = r2->parent ? r2->parent->loc : kr_loc_unknown(v->ctx);
    const char *where = r1 == r2                              ? " in the same region"
                        : region_is_proper_ancestor(r2, r1)   ? " in a parent region"
                        : region_is_proper_ancestor(r1, r2)   ? " in a child region"
                                                              : " neither in a parent nor in a child region";
    kr_diag_note(d, loc, "operand defined as a block argument (block #%u%s)", block_index(b2), where);
  }
  kr_diag_report(d);
}

static void check_operands(verifier *v, kr_op *user, bool reachable) {
  for (uint32_t i = 0; i < user->num_operands; i++) {
    kr_value val = user->operands[i].value;
    if (!val) {
      v->status = KR_FAILURE;
      kr_op_emit_error(user, "null operand found");
      continue;
    }
    kr_op *def = val->is_block_arg ? NULL : val->owner.op;
    kr_block *def_block = def ? def->block : val->owner.block;
    if (def_block && def_block == user->block) {   /* the common case */
      if (def && reachable && !kr_op_is_before_in_block(def, user)) report_dominance(v, user, i, val);
      continue;
    }
    kr_region *def_region = def_block ? def_block->region : NULL;
    if (!def_region) {
      v->status = KR_FAILURE;
      kr_emit_error(v->ctx, user->loc, "operation's operand is unlinked");
      continue;
    }
    /* Walk up to the ancestor of `user` in the defining region, noting isolated ops crossed. */
    kr_op *anc = user, *isolated = NULL;
    while (anc && anc->block && anc->block->region && anc->block->region != def_region) {
      kr_op *parent = anc->block->region->parent;
      if (parent && !isolated && has(parent, KR_TRAIT_ISOLATED_FROM_ABOVE)) isolated = parent;
      anc = parent;
    }
    bool found = anc && anc->block && anc->block->region == def_region;
    if (isolated && (found || !region_is_inside(def_region, isolated))) {
      v->status = KR_FAILURE;
      kr_diagnostic *d = kr_op_diag_begin(user, KR_SEV_ERROR, "using value defined outside the region");
      kr_diag_note(d, isolated->loc, "required by region isolation constraints");
      kr_diag_report(d);
      continue;
    }
    if (!reachable) continue;
    bool dominated;
    if (!found) dominated = false;
    else if (def && anc == def) dominated = false;   /* used inside its own defining op */
    else if (anc->block == def_block) dominated = !def || kr_op_is_before_in_block(def, anc);
    else dominated = kr_dominance_properly_dominates(&v->dom, def_block, anc->block);
    if (!dominated) report_dominance(v, user, i, val);
  }
}

/* ---------------------------------------------------------------------------------------------
 * Regions and blocks. */

/* MLIR's mayBeValidWithoutTerminator: a lone block of an unregistered or NoTerminator op. */
static bool may_lack_terminator(const kr_block *b) {
  const kr_region *r = b->region;
  if (r->first != r->last) return false;
  const kr_op *parent = r->parent;
  return !parent || !parent->def || (parent->def->traits & KR_TRAIT_NO_TERMINATOR);
}

static void check_block_end(verifier *v, kr_op *parent, kr_block *b) {
  if (may_lack_terminator(b)) return;
  if (!b->first) {
    v->status = KR_FAILURE;
    kr_emit_error(v->ctx, parent->loc, "empty block: expect at least a terminator");
    return;
  }
  kr_op *last = b->last;
  if (!last->def || (last->def->traits & KR_TRAIT_TERMINATOR)) return;   /* unregistered: might be one */
  v->status = KR_FAILURE;
  char *s = op_text(last);
  /* Only the op's first line: with its regions the message would repeat every nested op, and
   * nested blocks without terminators would make the output quadratic in the nesting depth. */
  char *nl = strchr(s, '\n');
  kr_emit_error(v->ctx, last->loc, "block with no terminator, has %.*s%s", nl ? (int)(nl - s) : (int)strlen(s), s,
                nl ? " ..." : "");
  free(s);
}

static void verify_region(verifier *v, kr_op *op, kr_region *r) {
  if (!r->first) return;
  bool multi = r->first != r->last;
  for (kr_block *b = r->first; b; b = b->next) {
    kr_op *t = b->last;
    bool entry_pred = false;
    for (uint32_t s = 0; t && s < t->num_successors && !entry_pred; s++) entry_pred = t->successors[s] == r->first;
    if (entry_pred) {
      v->status = KR_FAILURE;
      kr_emit_error(v->ctx, op->loc, "entry block of region may not have predecessors");
      break;
    }
  }
  for (kr_block *b = r->first; b; b = b->next) {
    bool reachable = !multi || kr_dominance_reachable(&v->dom, b);
    check_block_end(v, op, b);
    for (kr_op *o = b->first; o; o = o->next) {
      if (o->num_operands) check_operands(v, o, reachable);
      verify_op(v, o);
    }
  }
}

static void verify_op(verifier *v, kr_op *op) {
  if (check_op(v, op) && op->def && op->def->verify && op->def->verify(op) != KR_SUCCESS) v->status = KR_FAILURE;
  for (uint32_t i = 0; i < op->num_regions; i++) verify_region(v, op, &op->regions[i]);
}

kr_status kr_op_verify(kr_op *op) {
  verifier v;
  memset(&v, 0, sizeof v);
  v.ctx = kr_op_context(op);
  v.status = KR_SUCCESS;
  kr_dominance_init(&v.dom);
  verify_op(&v, op);
  kr_dominance_free(&v.dom);
  kr_hmap_free(&v.symbols);
  return v.status;
}
