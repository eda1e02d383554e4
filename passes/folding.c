/* passes/folding.c - side-effect queries and folding of one op (MLIR's isOpTriviallyDead,
 * m_Constant and the fold step of the greedy driver). */
#include <stdlib.h>
#include <string.h>

#include "passes/pass_impl.h"

/* Whether the op's own execution has no effect: pure, or a region op whose regions hold only
 * such ops (terminators count as effect-free: they only hand control back). */
static bool op_is_effect_free(kr_op *op, bool nested) {
  if (!op->def) return false;
  uint32_t t = op->def->traits;
  if (t & KR_TRAIT_PURE) return true;
  if (nested && (t & KR_TRAIT_TERMINATOR) && op->num_regions == 0) return true;
  if (!(t & KR_TRAIT_NO_SIDE_EFFECT_REGIONS)) return false;
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kr_block *b = op->regions[r].first; b; b = b->next)
      for (kr_op *o = b->first; o; o = o->next)
        if (!op_is_effect_free(o, true)) return false;
  return true;
}

bool kr_op_is_trivially_dead(kr_op *op) {
  if (!op->def) return false;
  if (op->def->traits & (KR_TRAIT_TERMINATOR | KR_TRAIT_SYMBOL)) return false;
  if (!kr_op_use_empty(op)) return false;
  return op_is_effect_free(op, false);
}

kr_attr kr_op_constant_value(kr_op *op) {
  if (!op->def || !(op->def->traits & KR_TRAIT_CONSTANT_LIKE)) return NULL;
  return kr_op_get_attr(op, "value");
}

kr_region *kr__constant_insertion_region(kr_block *block) {
  for (;;) {
    kr_region *r = block->region;
    kr_op *parent = r ? r->parent : NULL;
    if (!parent) return r;
    if (!parent->def || (parent->def->traits & KR_TRAIT_ISOLATED_FROM_ABOVE) || !parent->block) return r;
    block = parent->block;
  }
}

/* Folds that follow from traits alone (MLIR's OpTrait::impl::foldCommutative, foldInvolution and
 * foldIdempotent), tried when the op's own folder does not fold.  Either rewrites `op` in place
 * (*in_place) or names the value that replaces its single result (*repl). */
static bool trait_fold(kr_op *op, kr_value *repl, bool *in_place) {
  uint32_t t = op->def->traits;
  if ((t & KR_TRAIT_COMMUTATIVE) && op->num_operands >= 2) {
    /* Constants go to the end, keeping the relative order of each group, so folders and
     * patterns look at one side only and CSE sees one spelling. */
    kr_value small[8];
    kr_value *v = op->num_operands <= 8 ? small : malloc(op->num_operands * sizeof(kr_value));
    if (!v) return false;
    unsigned n = 0;
    for (int want_const = 0; want_const < 2; want_const++)
      for (uint32_t i = 0; i < op->num_operands; i++) {
        kr_op *d = kr_value_defining_op(kr_op_operand(op, i));
        if ((d && kr_op_constant_value(d)) == (want_const != 0)) v[n++] = kr_op_operand(op, i);
      }
    bool moved = false;
    for (uint32_t i = 0; i < op->num_operands; i++) moved |= v[i] != kr_op_operand(op, i);
    if (moved) kr_op_set_operands(op, v, n);
    if (v != small) free(v);
    if (moved) {
      *in_place = true;
      return true;
    }
  }
  if (!(t & (KR_TRAIT_INVOLUTION | KR_TRAIT_IDEMPOTENT)) || op->num_results != 1) return false;
  if (op->num_operands == 1) {
    kr_op *inner = kr_value_defining_op(kr_op_operand(op, 0));
    if (!inner || inner->name != op->name || inner->attrs != op->attrs || inner->num_operands != 1) return false;
    /* f(f(x)) = x for an involution, f(f(x)) = f(x) for an idempotent op. */
    *repl = (t & KR_TRAIT_INVOLUTION) ? kr_op_operand(inner, 0) : kr_op_operand(op, 0);
  } else if ((t & KR_TRAIT_IDEMPOTENT) && op->num_operands == 2 && kr_op_operand(op, 0) == kr_op_operand(op, 1)) {
    *repl = kr_op_operand(op, 0);   /* f(x, x) = x */
  } else {
    return false;
  }
  /* In an unreachable block an op may use its own result (%a = f(%b), %b = f(%a)): replacing
   * it by itself would erase an op that still has uses. */
  return *repl != kr_op_result(op, 0);
}

static uint64_t operand_hash(const kr_op *op) {
  uint64_t h = kr_hash_combine(0, op->num_operands);
  for (uint32_t i = 0; i < op->num_operands; i++) h = kr_hash_combine(h, kr_hash_ptr(op->operands[i].value));
  return h;
}

kr_status kr__op_try_fold(kr_rewriter *rw, kr_op *op, bool *in_place) {
  *in_place = false;
  /* Folding a constant gives back its own value: it would be rematerialized forever. */
  if (!op->def || (op->def->traits & KR_TRAIT_CONSTANT_LIKE)) return KR_FAILURE;
  if (!op->def->fold) {
    kr_value repl = NULL;
    if (!trait_fold(op, &repl, in_place)) return KR_FAILURE;
    if (*in_place) kr_rewriter_modified(rw, op);
    else kr_rewriter_replace_op(rw, op, &repl);
    return KR_SUCCESS;
  }
  kr_attr small_ops[8];
  kr_fold_result small_res[4];
  kr_attr *operands = op->num_operands <= 8 ? small_ops : calloc(op->num_operands, sizeof(kr_attr));
  kr_fold_result *results = op->num_results <= 4 ? small_res : calloc(op->num_results, sizeof(kr_fold_result));
  kr_status st = KR_FAILURE;
  if (!operands || !results) goto done;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kr_op *d = kr_value_defining_op(kr_op_operand(op, i));
    operands[i] = d ? kr_op_constant_value(d) : NULL;
  }
  memset(results, 0, op->num_results * sizeof(kr_fold_result));
  /* What an in-place fold changes, to tell it from a fold that merely names the op's own result
   * (x & x -> x where x is this op's result, in an unreachable block): counting that as a change
   * would revisit the op forever. */
  kr_attr attrs_before = op->attrs;
  uint64_t operands_before = operand_hash(op);
  if (KR_FAILED(op->def->fold(op, operands, results))) {
    kr_value repl = NULL;
    if (trait_fold(op, &repl, in_place)) {
      if (*in_place) kr_rewriter_modified(rw, op);
      else kr_rewriter_replace_op(rw, op, &repl);
      st = KR_SUCCESS;
    }
    goto done;
  }

  /* A fold that hands back the op's own results (or an op without results) updated it in place. */
  bool self = true;
  for (uint32_t i = 0; i < op->num_results; i++)
    if (results[i].attr || results[i].value != kr_op_result(op, i)) self = false;
  if (self) {
    if (op->attrs == attrs_before && operand_hash(op) == operands_before) goto done;
    kr_rewriter_modified(rw, op);
    *in_place = true;
    st = KR_SUCCESS;
    goto done;
  }

  kr_value small_vals[4];
  kr_value *vals = op->num_results <= 4 ? small_vals : calloc(op->num_results, sizeof(kr_value));
  if (!vals) goto done;
  memset(vals, 0, op->num_results * sizeof(kr_value));
  kr_builder saved = rw->builder;
  kr_rewriter_set_insertion_point_before(rw, op);
  const kr_dialect_def *dd = op->def->dialect ? op->def->dialect->def : NULL;
  bool ok = true;
  uint32_t made = 0;
  for (uint32_t i = 0; i < op->num_results && ok; i++) {
    if (results[i].value) {
      vals[i] = results[i].value;
      continue;
    }
    if (!results[i].attr || !dd || !dd->materialize_constant) {
      ok = false;
      break;
    }
    kr_op *c = dd->materialize_constant(&rw->builder, results[i].attr, kr_value_type(kr_op_result(op, i)), op->loc);
    if (!c || c->num_results != 1) {
      ok = false;
      break;
    }
    kr__rewriter_notify_inserted(rw, c);
    vals[i] = kr_op_result(c, 0);
    made++;
  }
  if (!ok) {
    /* Undo the constants made for earlier results (MLIR does the same). */
    for (uint32_t i = 0; i < op->num_results && made; i++) {
      if (results[i].value || !vals[i]) continue;
      kr_op *c = kr_value_defining_op(vals[i]);
      if (c && !kr_value_has_uses(vals[i])) {
        kr_rewriter_erase_op(rw, c);
        made--;
      }
    }
  } else {
    kr_rewriter_replace_op(rw, op, vals);
    st = KR_SUCCESS;
  }
  rw->builder = saved;
  if (vals != small_vals) free(vals);
done:
  if (operands != small_ops) free(operands);
  if (results != small_res) free(results);
  return st;
}

kr_status kr_op_try_fold(kr_rewriter *rw, kr_op *op) {
  bool in_place;
  kr_status st = kr__op_try_fold(rw, op, &in_place);
  return st;
}
