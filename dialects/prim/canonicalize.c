/* dialects/prim/canonicalize.c - canonicalization patterns of the prim dialect (Korch, ASPLOS'24,
 * §3: the primitive graph fission produces, cleaned before orchestration).
 *
 * Constant folding is not here: primitives fold through their CPU kernels under the size policy
 * of fold.c, which already turns a broadcast / reshape / elementwise op of splat constants into a
 * splat constant (up to the op dialect's fold limit).  These patterns remove the primitives that
 * do nothing and collapse chains:
 *   - no-op primitives forward their operand: reshape, broadcast and cast to the operand's own
 *     type; transpose by the identity permutation; slice taking every element (positive steps);
 *     pad with all-zero pads and no interior padding (any mode); concat of one operand;
 *     reduce_max / reduce_min / reduce_prod (and integer reduce_sum) over size-1 axes only,
 *     which become a reshape (or nothing with keepdims);
 *   - elementwise identities with a splat constant, directly or through broadcast / reshape of
 *     one: x + (-0.0), x - (+0.0), x * 1, x / 1, x ^ 1 (integer 0 / 1 for integers);
 *     select with a splat condition; select(c, x, x);
 *   - chains collapse: transpose of transpose -> one transpose (or nothing), reshape of reshape
 *     -> one reshape, broadcast of broadcast -> one broadcast, neg(neg x) and not(not x) -> x,
 *     cast of a value-preserving (widening) cast -> one cast; a transpose that only moves size-1
 *     axes -> reshape;
 *   - broadcast of a splat constant -> a splat constant of the result type, at any size (folding
 *     does it first up to KR_OP_FOLD_MAX_ELEMENTS by running the kernel; this pattern needs no
 *     buffer and has no limit).
 * Every rewrite is exact (bit-for-bit the same results, signed zeros and NaN included) for every
 * input.  Deliberately absent: x + (+0.0) on floats (-0 + 0 = +0), x - (-0.0), and float
 * reduce_sum over size-1 axes (the kernel's accumulator starts at +0.0, so a single -0.0 sums to
 * +0.0 while the reshape would keep -0.0).  Each function is one pattern, rooted at the op its row
 * in the table at the end names; types are computed here, not by shape inference. */
#include <math.h>
#include <string.h>

#include "dialects/canonical_util.h"
#include "dialects/prim/prim_impl.h"
#include "korch/rewrite.h"

/* ---------------------------------------------------------------------------------------------
 * Helpers. */

static kr_type result_type(kr_op *op, unsigned i) { return kr_value_type(kr_op_result(op, i)); }
static kr_type operand_type(kr_op *op, unsigned i) { return kr_value_type(kr_op_operand(op, i)); }
static bool named(const kr_op *op, const char *name) { return op && !strcmp(op->name, name); }

/* The defining op of operand i when it is the primitive `name`, else NULL. */
static kr_op *operand_def(kr_op *op, unsigned i, const char *name) {
  if (i >= op->num_operands) return NULL;
  kr_op *d = kr_value_defining_op(kr_op_operand(op, i));
  return named(d, name) ? d : NULL;
}

/* Replaces op's single result by `v` (which must have its type). */
static kr_status forward(kr_rewriter *rw, kr_op *op, kr_value v) {
  if (op->num_results != 1 || kr_value_type(v) != result_type(op, 0)) return KR_FAILURE;
  kr_rewriter_replace_op(rw, op, &v);
  return KR_SUCCESS;
}

static kr_named_attr ints_attr(kr_context *ctx, const char *name, const int64_t *vals, unsigned n) {
  return (kr_named_attr){kr_ident_cstr(ctx, name), kr_attr_dense_array(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), vals, n)};
}

/* prim.reshape(x) to `at`'s result type, replacing `at` (or x itself when the types agree). */
static kr_status replace_with_reshape(kr_rewriter *rw, kr_op *at, kr_value x) {
  kr_type rt = result_type(at, 0), xt = kr_value_type(x);
  if (!kr_canon_is_static_tensor(rt) || !kr_canon_is_static_tensor(xt) || kr_type_element(rt) != kr_type_element(xt) ||
      kr_type_num_elements(rt) != kr_type_num_elements(xt))
    return KR_FAILURE;
  if (rt == xt) return forward(rw, at, x);
  kr_named_attr a = ints_attr(kr_op_context(at), "shape", rt->u.shaped.dims, rt->u.shaped.rank);
  return kr_canon_replace_with_new(rw, at, "prim.reshape", &x, 1, &a, 1);
}

/* The splat dense attribute `v` holds: a constant-like op with a splat `value`, or a broadcast
 * or reshape of one (both keep every element equal).  NULL otherwise.  The attribute's type is
 * the constant's, not necessarily v's; its one element is what every element of v is. */
static kr_attr splat_of(kr_value v) {
  for (int depth = 0; depth < 16; depth++) {
    kr_op *d = kr_value_defining_op(v);
    if (!d) return NULL;
    if (kr_op_has_trait(d, KR_TRAIT_CONSTANT_LIKE)) {
      kr_attr a = kr_op_get_attr(d, "value");
      return a && a->kind == KR_ATTR_DENSE && a->u.dense.splat ? a : NULL;
    }
    if ((!named(d, "prim.broadcast") && !named(d, "prim.reshape")) || d->num_operands != 1) return NULL;
    v = kr_op_operand(d, 0);
  }
  return NULL;
}

/* Whether every element of operand i is the additive identity for `op`: integer 0; for floats
 * -0.0 when adding (x + -0 = x for every x, -0 included) and +0.0 when subtracting. */
static bool is_additive_identity(kr_op *op, unsigned i, bool subtract) {
  kr_attr a = splat_of(kr_op_operand(op, i));
  if (!a) return false;
  kr_type e = kr_type_element(a->type);
  if (e->kind == KR_TYPE_INTEGER) return kr_dense_get_i64(a, 0) == 0;
  if (e->kind != KR_TYPE_FLOAT) return false;
  double v = kr_dense_get_f64(a, 0);
  return v == 0.0 && (subtract ? !signbit(v) : signbit(v));
}

/* Whether every element of operand i is 1 (integer or float). */
static bool is_one(kr_op *op, unsigned i) {
  kr_attr a = splat_of(kr_op_operand(op, i));
  if (!a) return false;
  kr_type e = kr_type_element(a->type);
  if (e->kind == KR_TYPE_INTEGER) return kr_dense_get_i64(a, 0) == 1;
  return e->kind == KR_TYPE_FLOAT && kr_dense_get_f64(a, 0) == 1.0;
}

/* ---------------------------------------------------------------------------------------------
 * No-op primitives. */

/* reshape / broadcast / cast whose result type is the operand's: nothing moves or converts. */
static kr_status same_type_noop(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 1 || !kr_canon_result_is_operand_type(op)) return KR_FAILURE;
  return forward(rw, op, kr_op_operand(op, 0));
}

static kr_status concat_single(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 1 || !kr_canon_result_is_operand_type(op)) return KR_FAILURE;
  return forward(rw, op, kr_op_operand(op, 0));
}

static kr_status transpose_identity(kr_rewriter *rw, kr_op *op) {
  if (!kr_canon_transpose_is_identity(op, false)) return KR_FAILURE;
  return forward(rw, op, kr_op_operand(op, 0));
}

/* A slice whose result has its operand's type with every step positive takes every element: a
 * step s >= 2 over an axis of d >= 2 keeps at most ceil(d/2) < d of them, and a full-size slice
 * with step 1 starts at 0 (ops.def: start <= end <= dim).  A negative step reverses the axis. */
static kr_status slice_identity(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 1 || !kr_canon_result_is_operand_type(op)) return KR_FAILURE;
  const int64_t *steps;
  unsigned n = kr_op_attr_ints(op, "steps", &steps);
  kr_type t = operand_type(op, 0);
  if (n != t->u.shaped.rank) return KR_FAILURE;
  for (unsigned i = 0; i < n; i++)
    if (steps[i] <= 0 && t->u.shaped.dims[i] > 1) return KR_FAILURE;
  return forward(rw, op, kr_op_operand(op, 0));
}

/* A pad by all-zero pads with no interior padding, in any mode.  Equal types alone are not
 * enough: pads [1, -1] shift the elements. */
static kr_status pad_identity(kr_rewriter *rw, kr_op *op) {
  if (!kr_canon_result_is_operand_type(op)) return KR_FAILURE;
  const int64_t *pads, *interior;
  unsigned np = kr_op_attr_ints(op, "pads", &pads), ni = kr_op_attr_ints(op, "interior", &interior);
  if (np != 2 * operand_type(op, 0)->u.shaped.rank) return KR_FAILURE;
  for (unsigned i = 0; i < np; i++)
    if (pads[i]) return KR_FAILURE;
  for (unsigned i = 0; i < ni; i++)
    if (interior[i]) return KR_FAILURE;
  return forward(rw, op, kr_op_operand(op, 0));
}

/* reduce_max / reduce_min / reduce_prod over axes that all have size 1: each output element is
 * the one input element it covers (max(-inf, x) = x, NaN included; 1 * x = x, -0 included), so
 * the reduction only drops the axes: a reshape, or nothing with keepdims.  reduce_sum only for
 * integers: the kernel computes 0 + x, which turns -0.0 into +0.0. */
static kr_status reduce_unit_axes(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 1 || op->num_results != 1 || !kr_canon_is_static_tensor(operand_type(op, 0)) ||
      !kr_canon_is_static_tensor(result_type(op, 0)))
    return KR_FAILURE;
  kr_type xt = operand_type(op, 0);
  if (named(op, "prim.reduce_sum") && kr_type_element(xt)->kind != KR_TYPE_INTEGER) return KR_FAILURE;
  const int64_t *axes;
  unsigned n = kr_op_attr_ints(op, "axes", &axes);
  if (n == 0) return KR_FAILURE;
  for (unsigned i = 0; i < n; i++)
    if (axes[i] < 0 || axes[i] >= xt->u.shaped.rank || xt->u.shaped.dims[axes[i]] != 1) return KR_FAILURE;
  return replace_with_reshape(rw, op, kr_op_operand(op, 0));
}

/* ---------------------------------------------------------------------------------------------
 * Elementwise identities (the binary primitives take operands of the result's type, so
 * forwarding x never changes a type). */

static kr_status add_zero(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 2) return KR_FAILURE;
  if (is_additive_identity(op, 1, false)) return forward(rw, op, kr_op_operand(op, 0));
  if (is_additive_identity(op, 0, false)) return forward(rw, op, kr_op_operand(op, 1));
  return KR_FAILURE;
}

static kr_status sub_zero(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 2 || !is_additive_identity(op, 1, true)) return KR_FAILURE;
  return forward(rw, op, kr_op_operand(op, 0));
}

static kr_status mul_one(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 2) return KR_FAILURE;
  if (is_one(op, 1)) return forward(rw, op, kr_op_operand(op, 0));
  if (is_one(op, 0)) return forward(rw, op, kr_op_operand(op, 1));
  return KR_FAILURE;
}

static kr_status div_one(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 2 || !is_one(op, 1)) return KR_FAILURE;
  return forward(rw, op, kr_op_operand(op, 0));
}

/* x ^ 1 = x: C's pow(x, 1) is x for floats; integers go through double (ops.def), exact only
 * up to 32 bits. */
static kr_status pow_one(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 2 || !is_one(op, 1)) return KR_FAILURE;
  kr_type e = kr_type_element(operand_type(op, 0));
  if (e->kind == KR_TYPE_INTEGER && e->u.integer.width > 32) return KR_FAILURE;
  return forward(rw, op, kr_op_operand(op, 0));
}

/* select(c, x, y) with c the same everywhere picks a side. */
static kr_status select_splat(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 3) return KR_FAILURE;
  kr_attr c = splat_of(kr_op_operand(op, 0));
  if (!c) return KR_FAILURE;
  return forward(rw, op, kr_op_operand(op, kr_dense_get_i64(c, 0) != 0 ? 1 : 2));
}

static kr_status select_same(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 3 || kr_op_operand(op, 1) != kr_op_operand(op, 2)) return KR_FAILURE;
  return forward(rw, op, kr_op_operand(op, 1));
}

/* neg(neg x) = x (floats flip the sign bit twice; integers wrap: -(-MIN) = MIN), not(not x) = x. */
static kr_status involution(kr_rewriter *rw, kr_op *op) {
  kr_op *inner = operand_def(op, 0, op->name);
  if (!inner || inner->num_operands != 1) return KR_FAILURE;
  return forward(rw, op, kr_op_operand(inner, 0));
}

/* ---------------------------------------------------------------------------------------------
 * Chains. */

/* transpose(transpose(x, p1), p2) = transpose(x, p) with p[i] = p1[p2[i]] (y.dims[i] =
 * x.dims[perm[i]]), or x when p is the identity. */
static kr_status transpose_of_transpose(kr_rewriter *rw, kr_op *op) {
  kr_op *inner = operand_def(op, 0, "prim.transpose");
  if (!inner) return KR_FAILURE;
  int64_t p1[KR_OP_MAX_RANK], p2[KR_OP_MAX_RANK], p[KR_OP_MAX_RANK];
  int n1 = kr_canon_transpose_perm(inner, false, p1), n2 = kr_canon_transpose_perm(op, false, p2);
  if (n1 < 0 || n1 != n2) return KR_FAILURE;
  bool identity = true;
  for (int i = 0; i < n2; i++) {
    p[i] = p1[p2[i]];
    identity &= p[i] == i;
  }
  kr_value x = kr_op_operand(inner, 0);
  if (identity) return forward(rw, op, x);
  kr_named_attr a = ints_attr(kr_op_context(op), "perm", p, (unsigned)n2);
  return kr_canon_replace_with_new(rw, op, "prim.transpose", &x, 1, &a, 1);
}

/* A transpose that keeps the order of the axes longer than 1 moves no element: a reshape. */
static kr_status transpose_to_reshape(kr_rewriter *rw, kr_op *op) {
  if (!kr_canon_transpose_is_reshape(op, false)) return KR_FAILURE;
  return replace_with_reshape(rw, op, kr_op_operand(op, 0));
}

/* reshape(reshape(x)) = reshape(x): both keep the row-major order. */
static kr_status reshape_of_reshape(kr_rewriter *rw, kr_op *op) {
  kr_op *inner = operand_def(op, 0, "prim.reshape");
  if (!inner || inner->num_operands != 1) return KR_FAILURE;
  return replace_with_reshape(rw, op, kr_op_operand(inner, 0));
}

/* broadcast(broadcast(x, s1), s2) = broadcast(x, s2): every dim of x, aligned right, is 1 or the
 * s1 dim, which is 1 or the s2 dim; so x's dim is 1 or the s2 dim, and each element of the result
 * comes from the same element of x either way. */
static kr_status broadcast_of_broadcast(kr_rewriter *rw, kr_op *op) {
  kr_op *inner = operand_def(op, 0, "prim.broadcast");
  if (!inner || inner->num_operands != 1 || !kr_canon_is_static_tensor(result_type(op, 0))) return KR_FAILURE;
  kr_value x = kr_op_operand(inner, 0);
  kr_type xt = kr_value_type(x), rt = result_type(op, 0);
  if (!kr_canon_is_static_tensor(xt) || xt->u.shaped.rank > rt->u.shaped.rank) return KR_FAILURE;
  unsigned off = rt->u.shaped.rank - xt->u.shaped.rank;
  for (unsigned i = 0; i < xt->u.shaped.rank; i++)
    if (xt->u.shaped.dims[i] != 1 && xt->u.shaped.dims[i] != rt->u.shaped.dims[off + i]) return KR_FAILURE;
  if (xt == rt) return forward(rw, op, x);
  kr_named_attr a = ints_attr(kr_op_context(op), "shape", rt->u.shaped.dims, rt->u.shaped.rank);
  return kr_canon_replace_with_new(rw, op, "prim.broadcast", &x, 1, &a, 1);
}

/* broadcast(splat constant) = a splat prim.constant of the result type (stored as one element,
 * so the size does not matter). */
static kr_status broadcast_splat(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 1 || op->num_results != 1 || !kr_canon_is_static_tensor(result_type(op, 0)))
    return KR_FAILURE;
  kr_attr s = splat_of(kr_op_operand(op, 0));
  kr_type rt = result_type(op, 0);
  if (!s || kr_type_element(s->type) != kr_type_element(rt)) return KR_FAILURE;
  kr_context *ctx = kr_op_context(op);
  kr_attr value = kr_attr_dense(ctx, rt, s->u.dense.data, kr_type_storage_bytes(kr_type_element(rt)));
  if (!value) return KR_FAILURE;
  kr_named_attr a = {kr_ident_cstr(ctx, "value"), value};
  return kr_canon_replace_with_new(rw, op, KR_PRIM_CONSTANT_OP, NULL, 0, &a, 1);
}

/* cast(cast(x, T1), T2) = cast(x, T2) when T1 holds every value of x's element type; the outer
 * cast's `rounding` is kept (toward_zero goes through f32 from x's value, which T1 held exactly). */
static kr_status cast_of_exact_cast(kr_rewriter *rw, kr_op *op) {
  kr_op *inner = operand_def(op, 0, "prim.cast");
  if (!inner || inner->num_operands != 1 || op->num_results != 1) return KR_FAILURE;
  kr_type from = kr_type_element(operand_type(inner, 0)), mid = kr_type_element(result_type(inner, 0));
  if (!kr_canon_cast_is_exact(from, mid)) return KR_FAILURE;
  kr_value x = kr_op_operand(inner, 0);
  if (kr_value_type(x) == result_type(op, 0)) return forward(rw, op, x);
  kr_context *ctx = kr_op_context(op);
  kr_named_attr a[2] = {{kr_ident_cstr(ctx, "to"), kr_attr_type(ctx, kr_type_element(result_type(op, 0)))}};
  unsigned na = 1;
  kr_attr rounding = kr_op_get_attr(op, "rounding");
  if (rounding) a[na++] = (kr_named_attr){kr_ident_cstr(ctx, "rounding"), rounding};
  return kr_canon_replace_with_new(rw, op, "prim.cast", &x, 1, a, na);
}

/* ---------------------------------------------------------------------------------------------
 * The table (kr_dialect_def::patterns of the prim dialect; the roots are op names). */

#define P(name, root, fn) {name, root, 1, fn}
const kr_pattern kr_prim_canonical_patterns[] = {
    P("prim-reshape-noop", "prim.reshape", same_type_noop),
    P("prim-broadcast-noop", "prim.broadcast", same_type_noop),
    P("prim-cast-noop", "prim.cast", same_type_noop),
    P("prim-concat-single", "prim.concat", concat_single),
    P("prim-transpose-identity", "prim.transpose", transpose_identity),
    P("prim-slice-identity", "prim.slice", slice_identity),
    P("prim-pad-identity", "prim.pad", pad_identity),
    P("prim-reduce-sum-unit-axes", "prim.reduce_sum", reduce_unit_axes),
    P("prim-reduce-max-unit-axes", "prim.reduce_max", reduce_unit_axes),
    P("prim-reduce-min-unit-axes", "prim.reduce_min", reduce_unit_axes),
    P("prim-reduce-prod-unit-axes", "prim.reduce_prod", reduce_unit_axes),
    P("prim-add-zero", "prim.add", add_zero),
    P("prim-sub-zero", "prim.sub", sub_zero),
    P("prim-mul-one", "prim.mul", mul_one),
    P("prim-div-one", "prim.div", div_one),
    P("prim-pow-one", "prim.pow", pow_one),
    P("prim-select-splat", "prim.select", select_splat),
    P("prim-select-same", "prim.select", select_same),
    P("prim-neg-neg", "prim.neg", involution),
    P("prim-not-not", "prim.not", involution),
    P("prim-transpose-of-transpose", "prim.transpose", transpose_of_transpose),
    P("prim-transpose-to-reshape", "prim.transpose", transpose_to_reshape),
    P("prim-reshape-of-reshape", "prim.reshape", reshape_of_reshape),
    P("prim-broadcast-of-broadcast", "prim.broadcast", broadcast_of_broadcast),
    P("prim-broadcast-splat", "prim.broadcast", broadcast_splat),
    P("prim-cast-of-exact-cast", "prim.cast", cast_of_exact_cast),
};
#undef P
const unsigned kr_prim_num_canonical_patterns = sizeof kr_prim_canonical_patterns / sizeof kr_prim_canonical_patterns[0];
