/* dialects/canonical_util.c - helpers shared by the op and prim canonicalization patterns
 * (canonical_util.h). */
#include "dialects/canonical_util.h"

bool kr_canon_is_static_tensor(kr_type t) {
  return t && t->kind == KR_TYPE_TENSOR && kr_type_has_static_shape(t) && t->u.shaped.rank <= KR_OP_MAX_RANK;
}

bool kr_canon_result_is_operand_type(kr_op *op) {
  if (op->num_results != 1 || op->num_operands < 1) return false;
  kr_type t = kr_value_type(kr_op_result(op, 0));
  return t == kr_value_type(kr_op_operand(op, 0)) && kr_canon_is_static_tensor(t);
}

kr_status kr_canon_replace_with_new(kr_rewriter *rw, kr_op *at, const char *name, const kr_value *operands,
                                    unsigned n, const kr_named_attr *attrs, unsigned na) {
  kr_type type = kr_value_type(kr_op_result(at, 0));
  kr_op_state st;
  kr_op_state_init(&st, kr_op_context(at), name, at->loc);
  kr_op_state_add_operands(&st, operands, n);
  for (unsigned i = 0; i < na; i++) kr_op_state_add_attr(&st, attrs[i].name, attrs[i].value);
  kr_op_state_add_results(&st, &type, 1);
  kr_rewriter_set_insertion_point_before(rw, at);
  kr_op *r = kr_rewriter_create(rw, &st);
  kr_op_state_free(&st);
  if (!r) return KR_FAILURE;
  kr_value v = kr_op_result(r, 0);
  kr_rewriter_replace_op(rw, at, &v);
  return KR_SUCCESS;
}

int kr_canon_transpose_perm(kr_op *op, bool reverse_by_default, int64_t *perm) {
  if (op->num_operands != 1 || op->num_results != 1) return -1;
  kr_type t = kr_value_type(kr_op_operand(op, 0));
  if (!kr_canon_is_static_tensor(t)) return -1;
  unsigned rank = t->u.shaped.rank;
  const int64_t *p;
  unsigned n = kr_op_attr_ints(op, "perm", &p);
  if (reverse_by_default && !kr_op_attr_present(op, "perm")) {
    for (unsigned i = 0; i < rank; i++) perm[i] = rank - 1 - i;
    return (int)rank;
  }
  if (n != rank) return -1;
  bool seen[KR_OP_MAX_RANK] = {false};
  for (unsigned i = 0; i < n; i++) {
    if (p[i] < 0 || p[i] >= rank || seen[p[i]]) return -1;
    seen[p[i]] = true;
    perm[i] = p[i];
  }
  return (int)n;
}

bool kr_canon_transpose_is_identity(kr_op *op, bool reverse_by_default) {
  int64_t perm[KR_OP_MAX_RANK];
  int n = kr_canon_transpose_perm(op, reverse_by_default, perm);
  if (n < 0) return false;
  for (int i = 0; i < n; i++)
    if (perm[i] != i) return false;
  return true;
}

bool kr_canon_transpose_is_reshape(kr_op *op, bool reverse_by_default) {
  int64_t perm[KR_OP_MAX_RANK];
  int n = kr_canon_transpose_perm(op, reverse_by_default, perm);
  if (n < 0) return false;
  const int64_t *dims = kr_value_type(kr_op_operand(op, 0))->u.shaped.dims;
  int64_t last = -1;
  bool moved = false;
  for (int i = 0; i < n; i++) {
    if (perm[i] != i) moved = true;
    if (dims[perm[i]] == 1) continue;
    if (perm[i] < last) return false;
    last = perm[i];
  }
  return moved;
}

/* Significant bits of a float type (the implicit bit included). */
static unsigned float_precision(kr_type t) {
  switch (t->u.fkind) {
  case KR_F16: return 11;
  case KR_BF16: return 8;
  case KR_F32: return 24;
  case KR_F64: return 53;
  }
  return 0;
}

bool kr_canon_cast_is_exact(kr_type from, kr_type to) {
  if (from == to) return true;
  if (from->kind == KR_TYPE_FLOAT) {
    if (to->kind != KR_TYPE_FLOAT) return false;
    if (to->u.fkind == KR_F64) return true;
    return to->u.fkind == KR_F32 && (from->u.fkind == KR_F16 || from->u.fkind == KR_BF16);
  }
  if (from->kind != KR_TYPE_INTEGER) return false;
  unsigned w = from->u.integer.width;
  if (w == 1) return to->kind == KR_TYPE_INTEGER || to->kind == KR_TYPE_FLOAT;   /* 0 and 1 */
  bool is_unsigned = from->u.integer.sign == KR_UNSIGNED;
  unsigned magnitude = is_unsigned ? w : w - 1;   /* -2^(w-1) is a power of two: exact too */
  if (to->kind == KR_TYPE_FLOAT) return magnitude <= float_precision(to);
  if (to->kind != KR_TYPE_INTEGER || to->u.integer.width == 1) return false;
  unsigned tw = to->u.integer.width;
  if (to->u.integer.sign == KR_UNSIGNED) return is_unsigned && tw >= w;
  return is_unsigned ? tw > w : tw >= w;
}
