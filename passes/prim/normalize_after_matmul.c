/* passes/prim/normalize_after_matmul.c - `prim-normalize-after-matmul`: softmax(X) . V computes
 * the matrix product first and normalises after it (Korch, ASPLOS'24, §3.2; the same reordering
 * as FlashAttention's deferred normalisation).
 *
 * Matched (the fissioned softmax over the last axis feeding a matmul; r = rank(X) >= 2):
 *   m = reduce_max(X, axes = [r-1], keepdims = 1)      (or keepdims = 0 and a reshape to [..., M, 1])
 *   E = exp(sub(X, broadcast(m)))                       (broadcast absent when shapes already agree)
 *   s = reduce_sum(E, axes = [r-1], keepdims = 1)       (same tolerance)
 *   P = div(E, broadcast(s))
 *   Y = matmul(P, V)                                    V [..., K, N], batch dims broadcast
 * Rewritten to
 *   V' = concat(V, ones[..., K, 1], zeros[..., K, pad], axis = rank(V) - 1)    [..., K, W]
 *   Z  = matmul(E, V')                                                          [..., M, W]
 *   Y  = div(slice(Z, last axis [0, N)), broadcast(slice(Z, last axis [N, N+1))))
 * so the row sums E . 1 come out of the same matmul as E . V (column N), and the division by the
 * row sum happens on the [M, N] product instead of the [M, K] probabilities: the division is an
 * epilogue of the linear primitive.  W = N + 1 + pad is the smallest multiple of 32 bytes of
 * elements (8 for f32, 4 for f64) >= N + 1, so every row of V' and of Z starts 32-byte aligned
 * when the tensor does and vector loads of a row never straddle into a partial vector; the pad
 * columns are zeros and are sliced away.  The max subtraction stays: E <= 1 everywhere and each
 * row sum >= 1, so logits near +-1e3 cannot overflow E . V (|E . V| <= K max|V|) or make the
 * denominator 0; -inf logits give E = 0 in both forms, and a row that is -inf everywhere is
 * NaN in both.  Only f32 and f64: in f16 the unnormalised E . V (up to K times P . V) could
 * overflow.  P keeps its other users (then it stays); the division and the row sum are erased
 * when nothing else uses them. */
#include <stddef.h>

#include "passes/pass_impl.h"
#include "passes/prim/prim_passes.h"

static kr_op *def_of(kr_value v, const char *name) {
  kr_op *d = kr_value_defining_op(v);
  return kr__pp_named(d, name) && d->num_results == 1 ? d : NULL;
}

/* Whether `v` is the per-row `reduce` (prim.reduce_sum / reduce_max) of `x` over its last axis,
 * optionally reshaped from keepdims = 0 to [..., 1] and broadcast back to x's shape.  Every
 * element (i..., j) of v is then reduce(x[i..., :]). */
static bool is_row_stat(kr_value v, kr_value x, const char *reduce) {
  kr_type xt = kr_value_type(x);
  unsigned r = xt->u.shaped.rank;
  kr_op *b = def_of(v, "prim.broadcast");
  if (b) v = kr_op_operand(b, 0);
  else if (kr_value_type(v) != xt) return false;
  kr_type vt = kr_value_type(v);   /* must be [..., M, 1] */
  if (!kr__pp_static_tensor(vt) || vt->u.shaped.rank != r || vt->u.shaped.dims[r - 1] != 1) return false;
  for (unsigned i = 0; i + 1 < r; i++)
    if (vt->u.shaped.dims[i] != xt->u.shaped.dims[i]) return false;
  int64_t keepdims = 1;
  kr_op *rs = def_of(v, "prim.reshape");
  if (rs) {
    v = kr_op_operand(rs, 0);
    keepdims = 0;
  }
  kr_op *red = def_of(v, reduce);
  if (!red || red->num_operands != 1 || kr_op_operand(red, 0) != x || kr_op_attr_int(red, "keepdims") != keepdims)
    return false;
  const int64_t *axes;
  return kr_op_attr_ints(red, "axes", &axes) == 1 && axes[0] == (int64_t)r - 1;
}

/* Erases `v`'s defining op when nothing uses v, then the broadcast / reshape / reduce chain
 * feeding it, stopping at the first op still in use. */
static void erase_if_dead(kr_rewriter *rw, kr_value v) {
  for (int depth = 0; depth < 4; depth++) {
    kr_op *d = kr_value_defining_op(v);
    if (!d || kr_value_has_uses(v) || d->num_results != 1 || d->num_operands < 1 ||
        !(kr__pp_named(d, "prim.div") || kr__pp_named(d, "prim.broadcast") || kr__pp_named(d, "prim.reshape") ||
          kr__pp_named(d, "prim.reduce_sum")))
      return;
    kr_value next = kr__pp_named(d, "prim.div") ? kr_op_operand(d, 1) : kr_op_operand(d, 0);
    kr_rewriter_erase_op(rw, d);
    v = next;
  }
}

static bool rewrite_matmul(kr_rewriter *rw, kr_op *mm, const void *options) {
  (void)options;
  if (mm->num_operands != 2 || mm->num_results != 1) return false;
  kr_value p = kr_op_operand(mm, 0), v = kr_op_operand(mm, 1);
  kr_op *div = def_of(p, "prim.div");
  if (!div || div->num_operands != 2) return false;
  kr_value e = kr_op_operand(div, 0);
  kr_op *ex = def_of(e, "prim.exp");
  if (!ex || ex->num_operands != 1) return false;
  kr_op *sub = def_of(kr_op_operand(ex, 0), "prim.sub");
  if (!sub || sub->num_operands != 2) return false;
  kr_value x = kr_op_operand(sub, 0);
  kr_type et = kr_value_type(e), vt = kr_value_type(v), yt = kr_value_type(kr_op_result(mm, 0));
  if (!kr__pp_static_tensor(et) || !kr__pp_static_tensor(vt) || !kr__pp_static_tensor(yt) ||
      kr_value_type(x) != et || et->u.shaped.rank < 2 || vt->u.shaped.rank < 2)
    return false;
  kr_type elem = kr_type_element(et);
  if (elem->kind != KR_TYPE_FLOAT || (elem->u.fkind != KR_F32 && elem->u.fkind != KR_F64) ||
      kr_type_element(vt) != elem || kr_type_element(yt) != elem)
    return false;
  if (!is_row_stat(kr_op_operand(sub, 1), x, "prim.reduce_max") || !is_row_stat(kr_op_operand(div, 1), e, "prim.reduce_sum"))
    return false;

  kr_context *ctx = kr_op_context(mm);
  kr_attr loc = mm->loc;
  unsigned rv = vt->u.shaped.rank, ry = yt->u.shaped.rank;
  int64_t n = vt->u.shaped.dims[rv - 1];
  int64_t align = 32 / (int64_t)kr_type_storage_bytes(elem);
  int64_t width = (n + 1 + align - 1) / align * align, pad = width - n - 1;
  int64_t dims[KR_OP_MAX_RANK];
  memcpy(dims, vt->u.shaped.dims, rv * sizeof(int64_t));
  kr_rewriter_set_insertion_point_before(rw, mm);

  /* V' = concat(V, ones, zeros) along the last axis. */
  kr_value parts[3] = {v, NULL, NULL};
  dims[rv - 1] = 1;
  parts[1] = kr__pp_splat(rw, kr_type_tensor(ctx, dims, rv, elem), 1.0, loc);
  unsigned nparts = 2;
  if (pad) {
    dims[rv - 1] = pad;
    parts[nparts++] = kr__pp_splat(rw, kr_type_tensor(ctx, dims, rv, elem), 0.0, loc);
  }
  if (!parts[1] || !parts[nparts - 1]) return false;
  dims[rv - 1] = width;
  int64_t axis = rv - 1;
  kr_named_attr axis_attr = {kr_ident_cstr(ctx, "axis"), kr_attr_integer(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), axis)};
  kr_value vext = kr__pp_create(rw, "prim.concat", parts, nparts, &axis_attr, 1, kr_type_tensor(ctx, dims, rv, elem), loc);
  if (!vext) return false;

  /* Z = E . V', then the numerator and denominator columns. */
  memcpy(dims, yt->u.shaped.dims, ry * sizeof(int64_t));
  dims[ry - 1] = width;
  kr_value mm_ops[2] = {e, vext};
  kr_value z = kr__pp_create(rw, "prim.matmul", mm_ops, 2, NULL, 0, kr_type_tensor(ctx, dims, ry, elem), loc);
  if (!z) return false;
  int64_t starts[KR_OP_MAX_RANK] = {0}, ends[KR_OP_MAX_RANK], steps[KR_OP_MAX_RANK];
  for (unsigned i = 0; i < ry; i++) ends[i] = dims[i], steps[i] = 1;
  ends[ry - 1] = n;
  kr_named_attr sa[3] = {kr__pp_ints(ctx, "starts", starts, ry), kr__pp_ints(ctx, "ends", ends, ry),
                         kr__pp_ints(ctx, "steps", steps, ry)};
  kr_value num = kr__pp_create(rw, "prim.slice", &z, 1, sa, 3, yt, loc);
  starts[ry - 1] = n;
  ends[ry - 1] = n + 1;
  sa[0] = kr__pp_ints(ctx, "starts", starts, ry);
  sa[1] = kr__pp_ints(ctx, "ends", ends, ry);
  dims[ry - 1] = 1;
  kr_type den_t = kr_type_tensor(ctx, dims, ry, elem);
  kr_value den = kr__pp_create(rw, "prim.slice", &z, 1, sa, 3, den_t, loc);
  if (!num || !den) return false;
  if (den_t != yt) {
    kr_named_attr shape = kr__pp_ints(ctx, "shape", yt->u.shaped.dims, ry);
    den = kr__pp_create(rw, "prim.broadcast", &den, 1, &shape, 1, yt, loc);
    if (!den) return false;
  }
  kr_value div_ops[2] = {num, den};
  kr_value y = kr__pp_create(rw, "prim.div", div_ops, 2, NULL, 0, yt, loc);
  if (!y) return false;
  kr_rewriter_replace_op(rw, mm, &y);
  erase_if_dead(rw, p);
  return true;
}

static kr_status normalize_after_matmul_run(kr_op *op, const void *options, kr_pass_run *run) {
  return kr__pp_rewrite_each(op, run, "prim.matmul", rewrite_matmul, options);
}

const kr_pass_def kr_prim_normalize_after_matmul_pass = {
  .argument = "prim-normalize-after-matmul",
  .summary = "Rewrite softmax(X) . V as (E . V) / (E . 1) with E = exp(X - rowmax), both from one matmul (Korch §3.2)",
  .run = normalize_after_matmul_run,
  .display_name = "PrimNormalizeAfterMatmul",
};
