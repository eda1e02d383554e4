/* dialects/prim/shape_linear.c - shape rules of the linear primitives (ops.def, Korch ASPLOS'24
 * §3): matmul (ONNX MatMul-13 without its rank-1 promotion: fission reshapes vectors) and conv
 * (ONNX Conv-11 without bias, every attribute explicit).  Both take operands of one numeric
 * element type, which the result keeps. */
#include <stdlib.h>

#include "dialects/prim/shape_util.h"

/* matmul: lhs [..., M, K] x rhs [..., K, N] -> [..., M, N]; ranks >= 2, K equal, the batch dims
 * broadcast (numpy, right-aligned: equal or one of them 1). */
kr_status kr_prim_infer_matmul(kr_op *op, kr_type *results) {
  kr_type a, b;
  char b1[256], b2[256];
  if (kr_ps_operand(op, 0, KR_EW_NUMERIC, &a) || kr_ps_operand(op, 1, KR_EW_NUMERIC, &b) ||
      kr_ps_same_elem(op, 0, a, 1, b))
    return KR_FAILURE;
  unsigned ra = a->u.shaped.rank, rb = b->u.shaped.rank;
  const int64_t *da = a->u.shaped.dims, *db = b->u.shaped.dims;
  if (ra < 2 || rb < 2)
    return kr_op_emit_error(op, "operand #%u ('%s') must have rank >= 2, got rank %u", ra < 2 ? 0 : 1,
                            ra < 2 ? "lhs" : "rhs", ra < 2 ? ra : rb);
  if (da[ra - 1] != db[rb - 2])
    return kr_op_emit_error(op, "contraction dims differ: lhs %s has K = %lld, rhs %s has K = %lld",
                            kr_ps_fmt(b1, sizeof b1, da, ra), (long long)da[ra - 1], kr_ps_fmt(b2, sizeof b2, db, rb),
                            (long long)db[rb - 2]);
  unsigned ba = ra - 2, bb = rb - 2, rank = ba > bb ? ba : bb;
  int64_t out[KR_OP_MAX_RANK];
  for (unsigned i = 0; i < rank; i++) {
    /* right-aligned: batch dim i of the result is dim (i - (rank - bx)) of operand x, or 1 */
    int64_t x = i + ba >= rank ? da[i + ba - rank] : 1, y = i + bb >= rank ? db[i + bb - rank] : 1;
    if (x != y && x != 1 && y != 1)
      return kr_op_emit_error(op, "batch dims of lhs %s and rhs %s do not broadcast", kr_ps_fmt(b1, sizeof b1, da, ba),
                              kr_ps_fmt(b2, sizeof b2, db, bb));
    out[i] = x == 1 ? y : x;
  }
  out[rank] = da[ra - 2];
  out[rank + 1] = db[rb - 1];
  return kr_ps_result(op, out, rank + 2, kr_type_element(a), &results[0]);
}

/* conv: x [N, C, D1..Dn] (n >= 1), w [M, C/group, k1..kn]; group >= 1 divides M and C = w.dims[1]
 * * group; strides and dilations n entries >= 1, pads 2n entries >= 0 (cropping is prim.pad's);
 * Oi = floor((Di + bi + ei - di*(ki-1) - 1) / si) + 1 >= 1. */
kr_status kr_prim_infer_conv(kr_op *op, kr_type *results) {
  kr_type x, w;
  const int64_t *str, *dil, *pads;
  char b1[256], b2[256];
  if (kr_ps_operand(op, 0, KR_EW_NUMERIC, &x) || kr_ps_operand(op, 1, KR_EW_NUMERIC, &w) ||
      kr_ps_same_elem(op, 0, x, 1, w))
    return KR_FAILURE;
  unsigned rank = x->u.shaped.rank;
  const int64_t *dx = x->u.shaped.dims, *dw = w->u.shaped.dims;
  if (rank < 3) return kr_op_emit_error(op, "operand #0 ('x') must have rank >= 3 ([N, C, D1..Dn]), got rank %u", rank);
  if (w->u.shaped.rank != rank)
    return kr_op_emit_error(op, "operand #1 ('w') must have the rank %u of operand 'x', got rank %u", rank,
                            w->u.shaped.rank);
  unsigned n = rank - 2;
  int64_t group = kr_op_attr_int(op, "group");
  if (group < 1) return kr_op_emit_error(op, "attribute 'group' must be >= 1, got %lld", (long long)group);
  int64_t c;
  if (__builtin_mul_overflow(dw[1], group, &c) || c != dx[1])
    return kr_op_emit_error(op,
                            "operand 'x' has %lld channels, but operand 'w' %s with group %lld needs "
                            "w.dims[1] * group = %lld * %lld",
                            (long long)dx[1], kr_ps_fmt(b1, sizeof b1, dw, rank), (long long)group, (long long)dw[1],
                            (long long)group);
  if (dw[0] % group)
    return kr_op_emit_error(op, "operand 'w' has %lld output channels, not a multiple of group %lld", (long long)dw[0],
                            (long long)group);
  const char *per = "one per spatial axis of operand 'x'";
  if (kr_ps_ints_len(op, "strides", n, per, &str) || kr_ps_ints_len(op, "dilations", n, per, &dil) ||
      kr_ps_ints_len(op, "pads", 2 * (int64_t)n, "2 * spatial axes of operand 'x': begins then ends", &pads) ||
      kr_ps_ints_min(op, "strides", str, n, 1) || kr_ps_ints_min(op, "dilations", dil, n, 1) ||
      kr_ps_ints_min(op, "pads", pads, 2 * n, 0))
    return KR_FAILURE;
  int64_t out[KR_OP_MAX_RANK];
  out[0] = dx[0];
  out[1] = dw[0];
  for (unsigned i = 0; i < n; i++) {
    int64_t padded, span;
    if (dw[2 + i] < 1)
      return kr_op_emit_error(op, "operand 'w' %s has an empty kernel along spatial axis %u",
                              kr_ps_fmt(b1, sizeof b1, dw, rank), i);
    if (__builtin_add_overflow(dx[2 + i], pads[i], &padded) || __builtin_add_overflow(padded, pads[n + i], &padded) ||
        __builtin_mul_overflow(dil[i], dw[2 + i] - 1, &span) || span >= padded)
      return kr_op_emit_error(op,
                              "the kernel of spatial axis %u (size %lld, dilation %lld) does not fit the padded "
                              "input of size %lld + %lld + %lld (x %s)",
                              i, (long long)dw[2 + i], (long long)dil[i], (long long)dx[2 + i], (long long)pads[i],
                              (long long)pads[n + i], kr_ps_fmt(b2, sizeof b2, dx, rank));
    out[2 + i] = (padded - span - 1) / str[i] + 1;
  }
  results[0] = kr_type_tensor(kr_op_context(op), out, rank, kr_type_element(x));
  return KR_SUCCESS;
}
