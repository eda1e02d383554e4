/* dialects/kernel/simt_canonicalize.c - canonicalization of the kernel dialect's SIMT ops
 * (dialects/kernel/ops.def; MLIR's scf.if / scf.for / vector canonicalizations):
 *
 *   kernel.if %true { A } else { B }            -> A           (%false: B; no else: nothing)
 *   kernel.for %i = %c to %d step %s { ... }    -> nothing     when constants give c >= d
 *                                                -> the body with %i = %c   when one trip (c < d <= c + s)
 *   kernel.vector_extract (kernel.vector_from_elements %a, %b, ...)[k] -> the k-th element  (folder)
 *   kernel.for / kernel.if / kernel.map whose regions hold no ops      -> nothing
 *
 * Each function is one pattern rooted at the op whose ops.def row names it.  These are safe for
 * SIMT code: the removed branch/loop is the same for every thread (a constant), so no thread
 * skips a barrier another one reaches. */
#include <stdint.h>
#include <string.h>

#include "dialects/dialect_macros.h"
#include "korch/kernel.h"
#include "korch/rewrite.h"

#define KR_OP KR_OP_DECLARE_HOOKS
#include "dialects/kernel/ops.def"
#undef KR_OP

/* The integer constant `v` is known to be. */
static bool const_int(kr_value v, int64_t *out) {
  kr_op *d = kr_value_defining_op(v);
  kr_attr a = d ? kr_op_constant_value(d) : NULL;
  if (!a) return false;
  if (a->kind == KR_ATTR_INTEGER)
    *out = a->u.i;
  else if (a->kind == KR_ATTR_BOOL)
    *out = a->u.b;
  else
    return false;
  return true;
}

/* Whether every region of `op` holds no op (an empty body does nothing, whatever the trip
 * count or condition: the region ops yield no values). */
static bool bodies_empty(kr_op *op) {
  for (unsigned i = 0; i < op->num_regions; i++)
    for (kr_block *b = kr_op_region(op, i)->first; b; b = b->next)
      if (b->first) return false;
  return true;
}

/* Moves region `i`'s block before `op` (with `arg` for its one argument, if any) and erases op. */
static void inline_region(kr_rewriter *rw, kr_op *op, unsigned i, kr_value arg) {
  kr_region *r = kr_op_region(op, i);
  if (!kr_region_empty(r)) kr_rewriter_inline_block_before(rw, r->first, op, arg ? &arg : NULL);
  kr_rewriter_erase_op(rw, op);
}

kr_status kr_kernel_if_canonicalize(kr_rewriter *rw, kr_op *op) {
  int64_t c;
  if (bodies_empty(op)) {
    kr_rewriter_erase_op(rw, op);
    return KR_SUCCESS;
  }
  if (!const_int(kr_op_operand(op, 0), &c)) return KR_FAILURE;
  inline_region(rw, op, (c & 1) ? 0 : 1, NULL);
  return KR_SUCCESS;
}

kr_status kr_kernel_for_canonicalize(kr_rewriter *rw, kr_op *op) {
  int64_t lb, ub, step;
  if (bodies_empty(op)) {
    kr_rewriter_erase_op(rw, op);
    return KR_SUCCESS;
  }
  if (!const_int(kr_op_operand(op, 0), &lb) || !const_int(kr_op_operand(op, 1), &ub)) return KR_FAILURE;
  if (lb >= ub) { /* zero trips */
    kr_rewriter_erase_op(rw, op);
    return KR_SUCCESS;
  }
  kr_region *r = kr_op_region(op, 0);
  if (!const_int(kr_op_operand(op, 2), &step) || step <= 0 || kr_region_empty(r) || r->first->num_args != 1)
    return KR_FAILURE;
  /* lb < ub, so ub - lb is in [1, 2^64 - 1]: exact in uint64_t (signed could overflow). */
  if ((uint64_t)ub - (uint64_t)lb > (uint64_t)step) return KR_FAILURE;
  inline_region(rw, op, 0, kr_op_operand(op, 0)); /* exactly one trip, %i = lb */
  return KR_SUCCESS;
}

kr_status kr_kernel_map_canonicalize(kr_rewriter *rw, kr_op *op) {
  if (!bodies_empty(op)) return KR_FAILURE;
  kr_rewriter_erase_op(rw, op);
  return KR_SUCCESS;
}

kr_status kr_kernel_vector_extract_fold(kr_op *op, const kr_attr *operands, kr_fold_result *results) {
  (void)operands;
  kr_attr pos = kr_op_get_attr(op, KR_KERNEL_ATTR_POSITION);
  kr_op *d = kr_value_defining_op(kr_op_operand(op, 0));
  if (!pos || pos->kind != KR_ATTR_INTEGER || !d || strcmp(d->name, KR_KERNEL_VECTOR_FROM_ELEMENTS_OP) ||
      pos->u.i < 0 || pos->u.i >= (int64_t)d->num_operands)
    return KR_FAILURE;
  results[0].attr = NULL;
  results[0].value = kr_op_operand(d, (unsigned)pos->u.i);
  return KR_SUCCESS;
}
