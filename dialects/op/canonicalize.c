/* dialects/op/canonicalize.c - canonicalization patterns of the op dialect (ONNX opset 17).
 *
 * Constant folding is not here: every op folds through its CPU kernel (fold.c), which is what
 * collapses the int64 shape sub-graphs exporters emit once their leaves are constants.  These
 * patterns supply the leaves and remove the ops that do nothing:
 *   - Shape / Size of a statically typed value become constants (the value itself need not be);
 *   - a shape operand (`#` in ops.def) that the static result type already implies is replaced by
 *     that constant: Reshape's and Expand's `shape`, ConstantOfShape's `input`; a Squeeze /
 *     Unsqueeze with non-constant axes becomes a Reshape;
 *   - no-op ops forward their operand: Identity, Dropout in inference, and Reshape, Flatten,
 *     Squeeze, Unsqueeze, Expand, Tile, Cast, CastLike, Split, single-input Concat/Sum/Max/Min/
 *     Mean whose result type equals the operand's; identity Transpose; Slice taking everything;
 *     Pad by zeros; Resize by 1; Clip without bounds; x+(-0.0), x-0, x*1, x/1, x^1; Where with a
 *     splat condition;
 *   - chains collapse: reshape-like of reshape-like -> one Reshape, Transpose of Transpose -> one
 *     Transpose, Cast of a value-preserving Cast -> one Cast, Neg/Not twice -> x, idempotent
 *     Relu/Abs/Floor/Ceil/Round twice -> once, nested Concat on the same axis -> one Concat;
 *   - CastLike -> Cast; a Transpose that only moves size-1 axes -> Reshape; empty Concat
 *     operands dropped.
 * Every rewrite is exact (bit-for-bit the same results, signed zeros included) for every input;
 * none depends on values the IR does not state.  Each function is one pattern, rooted at the op
 * its row in the table at the end names. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/canonical_util.h"
#include "dialects/op/op_impl.h"
#include "korch/rewrite.h"

/* ---------------------------------------------------------------------------------------------
 * Helpers. */

static kr_type result_type(kr_op *op, unsigned i) { return kr_value_type(kr_op_result(op, i)); }
static kr_type operand_type(kr_op *op, unsigned i) { return kr_value_type(kr_op_operand(op, i)); }

/* Replaces every result of `op` by operand 0 (a no-op op). */
static kr_status forward_operand(kr_rewriter *rw, kr_op *op) {
  kr_value v = kr_op_operand(op, 0);
  kr_rewriter_replace_op(rw, op, &v);
  return KR_SUCCESS;
}

/* Reads constant operand i as integers without reporting anything (patterns are speculative,
 * unlike kr_op_constant_ints which reports at the op).  Returns the count, or -1. */
static int64_t const_ints(kr_op *op, unsigned i, int64_t *out, int64_t cap) {
  kr_attr v = kr_op_constant_operand(op, i);
  if (!v) return -1;
  kr_type e = kr_type_element(v->type);
  int64_t n = kr_type_num_elements(v->type);
  if (e->kind != KR_TYPE_INTEGER || n < 0 || n > cap) return -1;
  kr_tensor t;
  if (kr_tensor_from_attr(&t, v)) return -1;
  for (int64_t k = 0; k < n; k++) out[k] = kr_tensor_get_i64(&t, k);
  kr_tensor_free(&t);
  return n;
}

/* The one value every element of constant operand i has (as double), or false when it is not a
 * constant or its elements differ. */
static bool const_splat(kr_op *op, unsigned i, double *out) {
  kr_attr v = kr_op_constant_operand(op, i);
  if (!v) return false;
  int64_t n = kr_type_num_elements(v->type);
  if (n < 1) return false;
  if (v->kind == KR_ATTR_DENSE && v->u.dense.splat) {   /* no need to expand it */
    *out = kr_dense_get_f64(v, 0);
    return true;
  }
  kr_tensor t;
  if (kr_tensor_from_attr(&t, v)) return false;
  bool same = true;
  double first = kr_tensor_get_f64(&t, 0);
  size_t eb = kr_type_storage_bytes(kr_tensor_elem(&t));
  for (int64_t k = 1; k < n && same; k++)
    same = !memcmp((const char *)t.data, (const char *)t.data + (size_t)k * eb, eb);
  kr_tensor_free(&t);
  *out = first;
  return same;
}

/* A 1-D i64 tensor constant holding `vals`, inserted before `at`. */
static kr_value i64_constant(kr_rewriter *rw, kr_op *at, const int64_t *vals, unsigned n) {
  kr_context *ctx = kr_op_context(at);
  int64_t dim = n;
  kr_type type = kr_type_tensor(ctx, &dim, 1, kr_type_integer(ctx, 64, KR_SIGNLESS));
  kr_attr value = kr_attr_dense(ctx, type, vals, n * sizeof(int64_t));
  if (!value) return NULL;
  kr_op_state st;
  kr_op_state_init(&st, ctx, KR_OP_CONSTANT, at->loc);
  kr_op_state_add_attr(&st, "value", value);
  kr_op_state_add_results(&st, &type, 1);
  kr_rewriter_set_insertion_point_before(rw, at);
  kr_op *c = kr_rewriter_create(rw, &st);
  kr_op_state_free(&st);
  return c ? kr_op_result(c, 0) : NULL;
}

/* The same attribute as i64_constant would create, to tell whether an operand already is it. */
static kr_attr i64_attr(kr_context *ctx, const int64_t *vals, unsigned n) {
  int64_t dim = n;
  kr_type type = kr_type_tensor(ctx, &dim, 1, kr_type_integer(ctx, 64, KR_SIGNLESS));
  return kr_attr_dense(ctx, type, vals, n * sizeof(int64_t));
}

/* Reshape(x, result dims) replacing `at` (a reshape-like op of x).  allowzero = 1 only when a
 * result dim is 0, so the 0 is a size and not "copy the input dim" (ONNX Reshape-14). */
static kr_status replace_with_reshape(kr_rewriter *rw, kr_op *at, kr_value x) {
  kr_type rt = result_type(at, 0);
  if (!kr_canon_is_static_tensor(rt) || !kr_canon_is_static_tensor(kr_value_type(x))) return KR_FAILURE;
  unsigned rank = rt->u.shaped.rank;
  kr_value shape = i64_constant(rw, at, rt->u.shaped.dims, rank);
  if (!shape) return KR_FAILURE;
  bool zero = false;
  for (unsigned i = 0; i < rank; i++) zero |= rt->u.shaped.dims[i] == 0;
  kr_context *ctx = kr_op_context(at);
  kr_named_attr az = {kr_ident_cstr(ctx, "allowzero"), kr_attr_integer(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), 1)};
  kr_value operands[2] = {x, shape};
  return kr_canon_replace_with_new(rw, at, "op.reshape", operands, 2, &az, zero ? 1 : 0);
}

static bool named(kr_op *op, const char *name) { return op && !strcmp(op->name, name); }

/* ---------------------------------------------------------------------------------------------
 * Shape operands implied by the static result type. */

/* Replaces operand i of `op` by the i64 constant `dims` unless it already is exactly that. */
static kr_status set_shape_operand(kr_rewriter *rw, kr_op *op, unsigned i, const int64_t *dims, unsigned n) {
  kr_attr want = i64_attr(kr_op_context(op), dims, n);
  if (!want || kr_op_constant_operand(op, i) == want) return KR_FAILURE;
  kr_value c = i64_constant(rw, op, dims, n);
  if (!c) return KR_FAILURE;
  kr_op_set_operand(op, i, c);
  kr_rewriter_modified(rw, op);
  return KR_SUCCESS;
}

/* Reshape's `shape` becomes the result dims: the canonical form (no 0 / -1 left to resolve),
 * equal reshapes compare equal, and a shape computed at run time (an exporter's shape
 * sub-graph that could not fold) stops keeping that sub-graph alive. */
static kr_status reshape_canonical_shape(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 2 || op->num_results != 1 || !kr_canon_is_static_tensor(result_type(op, 0)) ||
      !kr_canon_is_static_tensor(operand_type(op, 0)))
    return KR_FAILURE;
  kr_type rt = result_type(op, 0);
  bool zero = false;
  for (unsigned i = 0; i < rt->u.shaped.rank; i++) zero |= rt->u.shaped.dims[i] == 0;
  /* allowzero only matters with a 0 in the shape: drop it otherwise, set it when a 0 is a size. */
  bool has_az = kr_op_attr_present(op, "allowzero");
  if (zero && kr_op_attr_int(op, "allowzero") != 1) return replace_with_reshape(rw, op, kr_op_operand(op, 0));
  if (set_shape_operand(rw, op, 1, rt->u.shaped.dims, rt->u.shaped.rank) == KR_SUCCESS) {
    if (has_az && !zero) kr_op_set_attr(op, "allowzero", NULL);
    return KR_SUCCESS;
  }
  if (has_az && !zero) {
    kr_op_set_attr(op, "allowzero", NULL);
    kr_rewriter_modified(rw, op);
    return KR_SUCCESS;
  }
  return KR_FAILURE;
}

/* Expand's `shape` becomes the result dims: broadcasting x to them gives the same tensor as
 * broadcasting to any shape whose broadcast with x's shape is them (ONNX Expand-13). */
static kr_status expand_canonical_shape(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 2 || op->num_results != 1 || !kr_canon_is_static_tensor(result_type(op, 0)))
    return KR_FAILURE;
  kr_type rt = result_type(op, 0);
  return set_shape_operand(rw, op, 1, rt->u.shaped.dims, rt->u.shaped.rank);
}

/* ConstantOfShape's `input` becomes the result dims, after which the op folds to a splat. */
static kr_status constant_of_shape_canonical_shape(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 1 || op->num_results != 1 || !kr_canon_is_static_tensor(result_type(op, 0)))
    return KR_FAILURE;
  kr_type rt = result_type(op, 0);
  return set_shape_operand(rw, op, 0, rt->u.shaped.dims, rt->u.shaped.rank);
}

/* Squeeze / Unsqueeze whose axes are computed at run time: with static types it is a Reshape. */
static kr_status squeeze_dynamic_axes(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 2 || op->num_results != 1 || !kr_op_operand_present(op, 1) ||
      kr_op_constant_operand(op, 1))
    return KR_FAILURE;
  return replace_with_reshape(rw, op, kr_op_operand(op, 0));
}

/* ---------------------------------------------------------------------------------------------
 * No-op ops. */

static kr_status identity_op(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 1 || op->num_results != 1 || result_type(op, 0) != operand_type(op, 0)) return KR_FAILURE;
  return forward_operand(rw, op);
}

/* Reshape, Flatten, Squeeze, Unsqueeze, Expand, Tile, Cast, CastLike, Split with one result,
 * and the variadic Concat/Sum/Max/Min/Mean with one input: an unchanged type means unchanged
 * elements in the same order. */
static kr_status same_type_noop(kr_rewriter *rw, kr_op *op) {
  if (!kr_canon_result_is_operand_type(op)) return KR_FAILURE;
  return forward_operand(rw, op);
}

static kr_status single_input_noop(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 1 || !kr_canon_result_is_operand_type(op)) return KR_FAILURE;
  return forward_operand(rw, op);
}

/* Dropout in inference mode (training_mode absent or false) or with ratio 0 (ONNX Dropout-13;
 * the reference implementation returns x and an all-true mask in both cases). */
static kr_status dropout_inference(kr_rewriter *rw, kr_op *op) {
  if (op->num_results < 1 || op->num_results > 2 || result_type(op, 0) != operand_type(op, 0)) return KR_FAILURE;
  int64_t training = 0;
  if (kr_op_operand_present(op, 2) && const_ints(op, 2, &training, 1) != 1) return KR_FAILURE;
  double ratio = 0.5;   /* the default */
  if (kr_op_operand_present(op, 1) && !const_splat(op, 1, &ratio)) ratio = 0.5;
  if (training && ratio != 0.0) return KR_FAILURE;
  kr_value vals[2] = {kr_op_operand(op, 0), NULL};
  if (op->num_results == 2) {
    kr_value mask = kr_op_result(op, 1);
    kr_type mt = kr_value_type(mask);
    if (kr_value_has_uses(mask)) {
      if (!kr_canon_is_static_tensor(mt) || !kr_type_is_integer(kr_type_element(mt), 1)) return KR_FAILURE;
      kr_context *ctx = kr_op_context(op);
      unsigned char one = 1;
      kr_op_state st;
      kr_op_state_init(&st, ctx, KR_OP_CONSTANT, op->loc);
      kr_op_state_add_attr(&st, "value", kr_attr_dense(ctx, mt, &one, 1));
      kr_op_state_add_results(&st, &mt, 1);
      kr_rewriter_set_insertion_point_before(rw, op);
      kr_op *c = kr_rewriter_create(rw, &st);
      kr_op_state_free(&st);
      if (!c) return KR_FAILURE;
      vals[1] = kr_op_result(c, 0);
    } else {
      vals[1] = vals[0];   /* no use to redirect; any value will do */
    }
  }
  kr_rewriter_replace_op(rw, op, vals);
  return KR_SUCCESS;
}

static kr_status transpose_identity(kr_rewriter *rw, kr_op *op) {
  if (!kr_canon_transpose_is_identity(op, true)) return KR_FAILURE;
  return identity_op(rw, op);
}

/* Transpose(Transpose(x, p1), p2) = Transpose(x, p) with p[i] = p1[p2[i]] (an absent perm is the
 * reversed axes). */
static kr_status transpose_of_transpose(kr_rewriter *rw, kr_op *op) {
  kr_op *inner = kr_value_defining_op(kr_op_operand(op, 0));
  if (!named(inner, "op.transpose")) return KR_FAILURE;
  int64_t p1[KR_OP_MAX_RANK], p2[KR_OP_MAX_RANK], p[KR_OP_MAX_RANK];
  int n1 = kr_canon_transpose_perm(inner, true, p1), n2 = kr_canon_transpose_perm(op, true, p2);
  if (n1 < 0 || n1 != n2) return KR_FAILURE;
  for (int i = 0; i < n2; i++) p[i] = p1[p2[i]];
  kr_context *ctx = kr_op_context(op);
  kr_named_attr a = {kr_ident_cstr(ctx, "perm"), kr_attr_dense_array(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), p, (unsigned)n2)};
  kr_value x = kr_op_operand(inner, 0);
  return kr_canon_replace_with_new(rw, op, "op.transpose", &x, 1, &a, 1);
}

/* A Transpose that keeps the order of the axes longer than 1 moves no element: a Reshape. */
static kr_status transpose_to_reshape(kr_rewriter *rw, kr_op *op) {
  if (!kr_canon_transpose_is_reshape(op, true)) return KR_FAILURE;
  return replace_with_reshape(rw, op, kr_op_operand(op, 0));
}

/* Slice with the result type of its input and positive steps takes every element: a positive
 * step s >= 2 over an axis of d >= 2 elements keeps at most ceil(d/2) < d of them, and a
 * full-size slice with step 1 starts at 0.  A negative step reverses, so it must not match. */
static kr_status slice_identity(kr_rewriter *rw, kr_op *op) {
  if (!kr_canon_result_is_operand_type(op)) return KR_FAILURE;
  if (kr_op_operand_present(op, 4)) {
    int64_t steps[KR_OP_MAX_RANK];
    int64_t n = const_ints(op, 4, steps, KR_OP_MAX_RANK);
    if (n < 0) return KR_FAILURE;
    for (int64_t i = 0; i < n; i++)
      if (steps[i] <= 0) return KR_FAILURE;
  }
  return forward_operand(rw, op);
}

/* Pad by all-zero pads, in any mode.  Equal types alone are not enough: pads [1, -1] shift. */
static kr_status pad_identity(kr_rewriter *rw, kr_op *op) {
  if (!kr_canon_result_is_operand_type(op)) return KR_FAILURE;
  int64_t pads[2 * KR_OP_MAX_RANK];
  int64_t n = const_ints(op, 1, pads, 2 * KR_OP_MAX_RANK);
  if (n < 0) return KR_FAILURE;
  for (int64_t i = 0; i < n; i++)
    if (pads[i]) return KR_FAILURE;
  return forward_operand(rw, op);
}

/* Resize by a factor 1 on every axis (scales all 1, or sizes equal to the input dims, where
 * ONNX Resize-13 takes scale = size / input = 1): every output coordinate maps to the same input
 * coordinate under each coordinate_transformation_mode but tf_crop_and_resize (which maps
 * through roi), and every interpolation mode returns the input sample at an integer
 * coordinate (the cubic kernel is [0, 1, 0, 0] there). */
static kr_status resize_identity(kr_rewriter *rw, kr_op *op) {
  if (!kr_canon_result_is_operand_type(op)) return KR_FAILURE;
  const char *ctm = kr_op_attr_string(op, "coordinate_transformation_mode");
  if (ctm && !strcmp(ctm, "tf_crop_and_resize")) return KR_FAILURE;
  kr_type t = operand_type(op, 0);
  unsigned rank = t->u.shaped.rank;
  if (kr_op_operand_present(op, 3)) {
    int64_t sizes[KR_OP_MAX_RANK];
    if (const_ints(op, 3, sizes, KR_OP_MAX_RANK) != rank) return KR_FAILURE;
    for (unsigned i = 0; i < rank; i++)
      if (sizes[i] != t->u.shaped.dims[i]) return KR_FAILURE;
    return forward_operand(rw, op);
  }
  kr_attr scales = kr_op_constant_operand(op, 2);
  if (!scales || kr_type_num_elements(scales->type) != rank) return KR_FAILURE;
  double one;
  if (rank && (!const_splat(op, 2, &one) || one != 1.0)) return KR_FAILURE;
  return forward_operand(rw, op);
}

/* Clip without min and max clips nothing (ONNX Clip-13: absent bounds are +-infinity). */
static kr_status clip_unbounded(kr_rewriter *rw, kr_op *op) {
  if (kr_op_operand_present(op, 1) || kr_op_operand_present(op, 2)) return KR_FAILURE;
  return identity_op(rw, op);
}

/* Elementwise identities with a splat constant, exact in IEEE arithmetic: x + (-0.0), x - (+0.0),
 * x * 1, x / 1, x ^ 1, and the same with integer 0 / 1.  (x + 0.0 is not exact: -0 + 0 = +0.)
 * The result must have x's type, so broadcasting by the constant does not grow x. */
static bool is_additive_identity(kr_op *op, unsigned c, bool subtract) {
  double v;
  if (!const_splat(op, c, &v) || v != 0.0) return false;
  kr_type e = kr_type_element(operand_type(op, c));
  if (e->kind != KR_TYPE_FLOAT) return true;
  return subtract ? !signbit(v) : signbit(v);
}

static bool is_one(kr_op *op, unsigned c) {
  double v;
  return const_splat(op, c, &v) && v == 1.0;
}

static kr_status forward_if(kr_rewriter *rw, kr_op *op, unsigned x, bool cond) {
  if (!cond || op->num_results != 1 || result_type(op, 0) != operand_type(op, x)) return KR_FAILURE;
  kr_value v = kr_op_operand(op, x);
  kr_rewriter_replace_op(rw, op, &v);
  return KR_SUCCESS;
}

static kr_status add_zero(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 2) return KR_FAILURE;
  if (forward_if(rw, op, 0, is_additive_identity(op, 1, false)) == KR_SUCCESS) return KR_SUCCESS;
  return forward_if(rw, op, 1, is_additive_identity(op, 0, false));
}

static kr_status sub_zero(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 2) return KR_FAILURE;
  return forward_if(rw, op, 0, is_additive_identity(op, 1, true));
}

static kr_status mul_one(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 2) return KR_FAILURE;
  if (forward_if(rw, op, 0, is_one(op, 1)) == KR_SUCCESS) return KR_SUCCESS;
  return forward_if(rw, op, 1, is_one(op, 0));
}

static kr_status div_or_pow_one(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 2) return KR_FAILURE;
  return forward_if(rw, op, 0, is_one(op, 1));
}

/* Where(c, x, y) with c the same everywhere picks a side. */
static kr_status where_splat(kr_rewriter *rw, kr_op *op) {
  double c;
  if (op->num_operands != 3 || !const_splat(op, 0, &c)) return KR_FAILURE;
  return forward_if(rw, op, c != 0.0 ? 1 : 2, true);
}

/* ---------------------------------------------------------------------------------------------
 * Chains. */

static bool is_reshape_like(kr_op *op) {
  return named(op, "op.reshape") || named(op, "op.flatten") || named(op, "op.squeeze") || named(op, "op.unsqueeze");
}

/* A reshape-like op of a reshape-like op: both keep the row-major order, so one Reshape of the
 * inner input to the outer result dims does it. */
static kr_status reshape_of_reshape(kr_rewriter *rw, kr_op *op) {
  kr_op *inner = kr_value_defining_op(kr_op_operand(op, 0));
  if (!is_reshape_like(inner) || inner->num_operands < 1) return KR_FAILURE;
  return replace_with_reshape(rw, op, kr_op_operand(inner, 0));
}

static kr_status involution(kr_rewriter *rw, kr_op *op) {
  kr_op *inner = kr_value_defining_op(kr_op_operand(op, 0));
  if (!inner || inner->name != op->name || result_type(op, 0) != operand_type(inner, 0)) return KR_FAILURE;
  kr_value v = kr_op_operand(inner, 0);
  kr_rewriter_replace_op(rw, op, &v);
  return KR_SUCCESS;
}

static kr_status idempotent(kr_rewriter *rw, kr_op *op) {
  kr_op *inner = kr_value_defining_op(kr_op_operand(op, 0));
  if (!inner || inner->name != op->name || result_type(op, 0) != result_type(inner, 0)) return KR_FAILURE;
  kr_value v = kr_op_result(inner, 0);
  kr_rewriter_replace_op(rw, op, &v);
  return KR_SUCCESS;
}

/* Cast(Cast(x, T1), T2) = Cast(x, T2) when T1 holds every value of x's type. */
static kr_status cast_of_exact_cast(kr_rewriter *rw, kr_op *op) {
  kr_op *inner = kr_value_defining_op(kr_op_operand(op, 0));
  if (!named(inner, "op.cast") || inner->num_operands != 1) return KR_FAILURE;
  kr_type from = kr_type_element(operand_type(inner, 0)), mid = kr_type_element(result_type(inner, 0));
  if (!kr_canon_cast_is_exact(from, mid)) return KR_FAILURE;
  kr_context *ctx = kr_op_context(op);
  kr_named_attr a = {kr_ident_cstr(ctx, "to"), kr_attr_type(ctx, kr_type_element(result_type(op, 0)))};
  kr_value x = kr_op_operand(inner, 0);
  return kr_canon_replace_with_new(rw, op, "op.cast", &x, 1, &a, 1);
}

/* CastLike(x, t) = Cast(x, to = element type of t) (ONNX CastLike-15's definition). */
static kr_status cast_like_to_cast(kr_rewriter *rw, kr_op *op) {
  if (op->num_operands != 2 || op->num_results != 1 || operand_type(op, 1)->kind != KR_TYPE_TENSOR) return KR_FAILURE;
  kr_context *ctx = kr_op_context(op);
  kr_named_attr a = {kr_ident_cstr(ctx, "to"), kr_attr_type(ctx, kr_type_element(operand_type(op, 1)))};
  kr_value x = kr_op_operand(op, 0);
  return kr_canon_replace_with_new(rw, op, "op.cast", &x, 1, &a, 1);
}

/* Concat: operands with no element along the axis contribute nothing (one must stay, it carries
 * the other dims); a single-use Concat on the same axis feeding this one is spliced in. */
static kr_status concat_flatten(kr_rewriter *rw, kr_op *op) {
  kr_type rt = result_type(op, 0);
  if (op->num_results != 1 || !kr_canon_is_static_tensor(rt) || !kr_op_attr_present(op, "axis")) return KR_FAILURE;
  int64_t rank = rt->u.shaped.rank, axis = kr_op_attr_int(op, "axis");
  if (axis < -rank || axis >= rank) return KR_FAILURE;
  if (axis < 0) axis += rank;
  kr_vec vals = {0};
  bool changed = false;
  for (unsigned i = 0; i < op->num_operands; i++) {
    kr_value v = kr_op_operand(op, i);
    kr_type t = kr_value_type(v);
    if (!kr_canon_is_static_tensor(t) || t->u.shaped.rank != rank) {
      kr_vec_free(&vals);
      return KR_FAILURE;
    }
    if (t->u.shaped.dims[axis] == 0 && op->num_operands > 1) {
      changed = true;
      continue;
    }
    kr_op *in = kr_value_defining_op(v);
    if (named(in, "op.concat") && kr_value_has_one_use(v) && in->num_results == 1 && kr_canon_is_static_tensor(t)) {
      int64_t ia = kr_op_attr_int(in, "axis");
      if (ia < 0) ia += rank;
      if (ia == axis) {
        for (unsigned k = 0; k < in->num_operands; k++) KR_VEC_PUSH(&vals, kr_value, kr_op_operand(in, k));
        changed = true;
        continue;
      }
    }
    KR_VEC_PUSH(&vals, kr_value, v);
  }
  kr_status st = KR_FAILURE;
  if (changed && vals.len == 0) KR_VEC_PUSH(&vals, kr_value, kr_op_operand(op, 0));
  if (changed) {
    kr_named_attr a = {kr_ident_cstr(kr_op_context(op), "axis"), kr_op_get_attr(op, "axis")};
    st = kr_canon_replace_with_new(rw, op, "op.concat", KR_VEC_DATA(&vals, kr_value), (unsigned)vals.len, &a, 1);
  }
  kr_vec_free(&vals);
  return st;
}

/* ---------------------------------------------------------------------------------------------
 * The table (kr_dialect_def::patterns of the op dialect; the roots are op names). */

#define P(name, root, fn) {name, root, 1, fn}
const kr_pattern kr_op_canonical_patterns[] = {
    P("op-reshape-canonical-shape", "op.reshape", reshape_canonical_shape),
    P("op-expand-canonical-shape", "op.expand", expand_canonical_shape),
    P("op-constant-of-shape-canonical-shape", "op.constant_of_shape", constant_of_shape_canonical_shape),
    P("op-squeeze-dynamic-axes", "op.squeeze", squeeze_dynamic_axes),
    P("op-unsqueeze-dynamic-axes", "op.unsqueeze", squeeze_dynamic_axes),
    P("op-identity", "op.identity", identity_op),
    P("op-dropout-inference", "op.dropout", dropout_inference),
    P("op-reshape-noop", "op.reshape", same_type_noop),
    P("op-flatten-noop", "op.flatten", same_type_noop),
    P("op-squeeze-noop", "op.squeeze", same_type_noop),
    P("op-unsqueeze-noop", "op.unsqueeze", same_type_noop),
    P("op-expand-noop", "op.expand", same_type_noop),
    P("op-tile-noop", "op.tile", same_type_noop),
    P("op-cast-noop", "op.cast", same_type_noop),
    P("op-cast-like-noop", "op.cast_like", same_type_noop),
    P("op-split-noop", "op.split", same_type_noop),
    P("op-concat-single", "op.concat", single_input_noop),
    P("op-sum-single", "op.sum", single_input_noop),
    P("op-max-single", "op.max", single_input_noop),
    P("op-min-single", "op.min", single_input_noop),
    P("op-mean-single", "op.mean", single_input_noop),
    P("op-transpose-identity", "op.transpose", transpose_identity),
    P("op-slice-identity", "op.slice", slice_identity),
    P("op-pad-identity", "op.pad", pad_identity),
    P("op-resize-identity", "op.resize", resize_identity),
    P("op-clip-unbounded", "op.clip", clip_unbounded),
    P("op-add-zero", "op.add", add_zero),
    P("op-sub-zero", "op.sub", sub_zero),
    P("op-mul-one", "op.mul", mul_one),
    P("op-div-one", "op.div", div_or_pow_one),
    P("op-pow-one", "op.pow", div_or_pow_one),
    P("op-where-splat", "op.where", where_splat),
    P("op-reshape-of-reshape", "op.reshape", reshape_of_reshape),
    P("op-flatten-of-reshape", "op.flatten", reshape_of_reshape),
    P("op-squeeze-of-reshape", "op.squeeze", reshape_of_reshape),
    P("op-unsqueeze-of-reshape", "op.unsqueeze", reshape_of_reshape),
    P("op-transpose-of-transpose", "op.transpose", transpose_of_transpose),
    P("op-transpose-to-reshape", "op.transpose", transpose_to_reshape),
    P("op-neg-neg", "op.neg", involution),
    P("op-not-not", "op.not", involution),
    P("op-relu-relu", "op.relu", idempotent),
    P("op-abs-abs", "op.abs", idempotent),
    P("op-floor-floor", "op.floor", idempotent),
    P("op-ceil-ceil", "op.ceil", idempotent),
    P("op-round-round", "op.round", idempotent),
    P("op-cast-of-exact-cast", "op.cast", cast_of_exact_cast),
    P("op-cast-like-to-cast", "op.cast_like", cast_like_to_cast),
    P("op-concat-flatten", "op.concat", concat_flatten),
};
#undef P
const unsigned kr_op_num_canonical_patterns = sizeof kr_op_canonical_patterns / sizeof kr_op_canonical_patterns[0];
