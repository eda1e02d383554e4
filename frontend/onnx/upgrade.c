/* frontend/onnx/upgrade.c - the default-domain opset history (onnx/docs/Changelog.md and
 * Operators.md): a node of any opset <= 17 is rewritten to the opset-17 form the op dialect
 * holds, keyed on the model's default-domain opset_import version.  Only operators whose
 * interface changed need a rule; those whose later versions merely added types or attributes
 * with defaults (MaxPool, AveragePool, ArgMax, Conv, the Reduce* other than ReduceSum, ...)
 * import as they are.
 *
 *   attribute -> input       Reshape-1 shape, Slice-1 starts/ends/axes, Pad-1/2 pads|paddings and
 *                            value, Clip-1/6 min/max, Squeeze/Unsqueeze-1/11 axes, ReduceSum-1/11
 *                            axes, Split-1/2/11 split, Tile-1 tiles+axis -> repeats
 *   changed defaults         Concat-1 axis (1), Softmax/LogSoftmax/Hardmax-1/11 axis (1, and the
 *                            input coerced to 2-D), Resize-10 (asymmetric; nearest rounds down)
 *   removed attributes       consumed_inputs (opset < 6), is_test (Dropout/BatchNormalization < 7),
 *                            Dropout ratio (< 12: inference form), BatchNormalization spatial (< 9),
 *                            Gemm broadcast (< 7)
 *   legacy broadcasting      Add/Sub/Mul/Div/Pow/And/Or/Xor/Equal/Greater/Less < 7: `broadcast`
 *                            and `axis` (B aligned at axis: B is reshaped to end in 1s)
 *   moved inputs             Resize-10 (X, scales) -> (X, roi, scales); empty roi/scales tensors
 *                            (opset 11 required them) -> omitted */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_impl.h"

static kr_type operand_type(kr_onnx_node *n, unsigned i) {
  kr_value v = kr_onnx_node_operand(n, i);
  return v ? kr_value_type(v) : NULL;
}

static bool is_static_tensor(kr_type t) { return t && t->kind == KR_TYPE_TENSOR && kr_type_has_static_shape(t); }

static kr_attr i64_attr(kr_onnx_node *n, int64_t v) {
  return kr_attr_integer(n->ctx, kr_type_integer(n->ctx, 64, KR_SIGNLESS), v);
}

static kr_attr str_attr(kr_onnx_node *n, const char *s) { return kr_attr_string(n->ctx, s, strlen(s)); }

/* Attribute `name` (INTS) -> a 1-D i64 constant operand at `index`; true if it was there. */
static bool ints_attr_to_operand(kr_onnx_importer *I, kr_onnx_node *n, const char *name, unsigned index) {
  const Onnx__AttributeProto *a = kr_onnx_node_attr(n, name);
  if (!a) return false;
  const int64_t *vals;
  size_t cnt = kr_onnx_attr_ints(a, &vals);
  kr_onnx_node_set_operand(n, index, kr_onnx_const_i64(I, vals, (unsigned)cnt, false, n->loc));
  kr_onnx_node_drop(n, name);
  return true;
}

/* A scalar constant of element type `elem` holding v (converted as ONNX Cast would). */
static kr_value scalar_const(kr_onnx_importer *I, kr_type elem, double v, kr_attr loc) {
  kr_tensor t;
  if (kr_tensor_alloc(&t, kr_type_tensor(I->ctx, NULL, 0, elem))) return NULL;
  kr_tensor_set_f64(&t, 0, v);
  kr_attr a = kr_tensor_to_attr(I->ctx, &t);
  kr_tensor_free(&t);
  return a ? kr_onnx_const_attr(I, a, loc) : NULL;
}

static kr_status need_static_input(kr_onnx_importer *I, kr_onnx_node *n, unsigned i, kr_type *out) {
  kr_type t = operand_type(n, i);
  if (!is_static_tensor(t)) {
    kr_onnx_error(I, n->loc, "node '%s' (%s opset %lld): input %u must be a tensor with a static shape to upgrade the node",
                  n->name, n->op_type, (long long)I->opset, i);
    return KR_FAILURE;
  }
  *out = t;
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Rules. */

/* Softmax/LogSoftmax/Hardmax-1 and -11: axis defaults to 1 and the input is viewed as 2-D
 * [prod(d[:axis]), prod(d[axis:])]; opset 13 normalises along one axis (default -1).  With
 * axis = rank-1 the two agree; otherwise the node becomes reshape -> op(axis=1) -> reshape. */
static kr_status upgrade_softmax_family(kr_onnx_importer *I, kr_onnx_node *n) {
  kr_type t;
  if (need_static_input(I, n, 0, &t)) return KR_FAILURE;
  int64_t rank = t->u.shaped.rank;
  int64_t axis = kr_onnx_attr_i(kr_onnx_node_attr(n, "axis"), 1);
  if (axis < -rank || axis > rank || (rank > 0 && axis == rank)) {
    if (!(rank == 0 && axis == 0)) {
      kr_onnx_error(I, n->loc, "node '%s' (%s): axis %lld is out of range for rank %lld", n->name, n->op_type,
                    (long long)axis, (long long)rank);
      return KR_FAILURE;
    }
  }
  if (axis < 0) axis += rank;
  if (rank == 0 || axis == rank - 1) {
    kr_onnx_node_set_attr(n, "axis", i64_attr(n, rank == 0 ? 0 : -1));
    return KR_SUCCESS;
  }
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < rank; i++) {
    if (i < axis) rows *= t->u.shaped.dims[i];
    else cols *= t->u.shaped.dims[i];
  }
  int64_t shape2[2] = {rows, cols};
  kr_value x2, y2, y;
  kr_value ops[2] = {kr_onnx_node_operand(n, 0), kr_onnx_const_i64(I, shape2, 2, false, n->loc)};
  if (kr_onnx_emit(I, "op.reshape", ops, 2, NULL, 0, 1, n, &x2)) return KR_FAILURE;
  kr_named_attr ax = {kr_ident_cstr(I->ctx, "axis"), i64_attr(n, 1)};
  kr_onnx_node_drop(n, "axis");
  for (unsigned i = 0; i < n->num_raw; i++)
    if (!n->dropped[i]) {
      kr_onnx_error(I, n->loc, "node '%s' (%s): unsupported attribute '%s'", n->name, n->op_type, n->raw[i]->name);
      return KR_FAILURE;
    }
  if (kr_onnx_emit(I, kr_op_name_for_onnx(I->ctx, n->op_type), &x2, 1, &ax, 1, 1, n, &y2)) return KR_FAILURE;
  kr_value back[2] = {y2, kr_onnx_const_i64(I, t->u.shaped.dims, (unsigned)rank, false, n->loc)};
  if (kr_onnx_emit(I, "op.reshape", back, 2, NULL, 0, 1, n, &y)) return KR_FAILURE;
  n->results[0] = y;
  n->done = true;
  return KR_SUCCESS;
}

/* Elementwise binary ops before opset 7: `broadcast` = 1 allows B to be broadcast to A, aligned
 * at `axis` (default: B's dims match A's trailing dims, which numpy broadcasting also does). */
static kr_status upgrade_legacy_broadcast(kr_onnx_importer *I, kr_onnx_node *n) {
  const Onnx__AttributeProto *bc = kr_onnx_node_attr(n, "broadcast"), *ax = kr_onnx_node_attr(n, "axis");
  int64_t broadcast = kr_onnx_attr_i(bc, 0);
  kr_onnx_node_drop(n, "broadcast");
  kr_onnx_node_drop(n, "axis");
  if (!broadcast || !ax) return KR_SUCCESS;
  kr_type a, b;
  if (need_static_input(I, n, 0, &a) || need_static_input(I, n, 1, &b)) return KR_FAILURE;
  int64_t ra = a->u.shaped.rank, rb = b->u.shaped.rank, axis = kr_onnx_attr_i(ax, 0);
  if (axis < 0) axis += ra;
  if (axis < 0 || axis + rb > ra) {
    kr_onnx_error(I, n->loc, "node '%s' (%s opset %lld): broadcast axis %lld does not fit B of rank %lld into A of rank %lld",
                  n->name, n->op_type, (long long)I->opset, (long long)kr_onnx_attr_i(ax, 0), (long long)rb,
                  (long long)ra);
    return KR_FAILURE;
  }
  if (axis + rb == ra) return KR_SUCCESS;   /* trailing alignment: numpy broadcasting agrees */
  int64_t dims[KR_OP_MAX_RANK];
  unsigned r = 0;
  for (int64_t i = 0; i < rb; i++) dims[r++] = b->u.shaped.dims[i];
  for (int64_t i = axis + rb; i < ra; i++) dims[r++] = 1;
  kr_value ops[2] = {kr_onnx_node_operand(n, 1), kr_onnx_const_i64(I, dims, r, false, n->loc)}, nb;
  if (kr_onnx_emit(I, "op.reshape", ops, 2, NULL, 0, 1, n, &nb)) return KR_FAILURE;
  kr_onnx_node_set_operand(n, 1, nb);
  return KR_SUCCESS;
}

/* Clip-1/6: min/max attributes (absent: no bound) -> optional scalar inputs of X's type. */
static kr_status upgrade_clip(kr_onnx_importer *I, kr_onnx_node *n) {
  const Onnx__AttributeProto *mn = kr_onnx_node_attr(n, "min"), *mx = kr_onnx_node_attr(n, "max");
  kr_type t = operand_type(n, 0);
  if (!t || t->kind != KR_TYPE_TENSOR) return KR_SUCCESS;
  kr_type e = t->u.shaped.elem;
  if (mn) kr_onnx_node_set_operand(n, 1, scalar_const(I, e, kr_onnx_attr_f(mn, 0), n->loc));
  if (mx) kr_onnx_node_set_operand(n, 2, scalar_const(I, e, kr_onnx_attr_f(mx, 0), n->loc));
  kr_onnx_node_drop(n, "min");
  kr_onnx_node_drop(n, "max");
  return KR_SUCCESS;
}

/* Pad-1 (paddings) / Pad-2 (pads): the same [x1_begin, x2_begin, ..., x1_end, x2_end, ...]
 * layout as Pad-11's pads input; value -> constant_value input of X's type. */
static kr_status upgrade_pad(kr_onnx_importer *I, kr_onnx_node *n) {
  if (!ints_attr_to_operand(I, n, "pads", 1) && !ints_attr_to_operand(I, n, "paddings", 1)) {
    kr_onnx_error(I, n->loc, "node '%s' (Pad opset %lld): requires attribute 'pads'", n->name, (long long)I->opset);
    return KR_FAILURE;
  }
  const Onnx__AttributeProto *v = kr_onnx_node_attr(n, "value");
  kr_type t = operand_type(n, 0);
  if (v && t && t->kind == KR_TYPE_TENSOR)
    kr_onnx_node_set_operand(n, 2, scalar_const(I, t->u.shaped.elem, kr_onnx_attr_f(v, 0), n->loc));
  kr_onnx_node_drop(n, "value");
  return KR_SUCCESS;
}

/* Split-1 took `split` as an attribute or a second input; Split-2/11 as an attribute. */
static kr_status upgrade_split(kr_onnx_importer *I, kr_onnx_node *n) {
  ints_attr_to_operand(I, n, "split", 1);
  return KR_SUCCESS;
}

/* Tile-1: (input, tiles, axis) scalars -> Tile-6 repeats (1 everywhere but `axis`). */
static kr_status upgrade_tile(kr_onnx_importer *I, kr_onnx_node *n) {
  kr_type t;
  if (need_static_input(I, n, 0, &t)) return KR_FAILURE;
  kr_value tv = kr_onnx_node_operand(n, 1), av = kr_onnx_node_operand(n, 2);
  kr_op *td = tv ? kr_value_defining_op(tv) : NULL, *ad = av ? kr_value_defining_op(av) : NULL;
  kr_attr tc = td && !strcmp(td->name, KR_OP_CONSTANT) ? kr_op_get_attr(td, "value") : NULL;
  kr_attr ac = ad && !strcmp(ad->name, KR_OP_CONSTANT) ? kr_op_get_attr(ad, "value") : NULL;
  if (!tc || !ac || tc->kind != KR_ATTR_DENSE || ac->kind != KR_ATTR_DENSE) {
    kr_onnx_error(I, n->loc, "node '%s' (Tile opset %lld): 'tiles' and 'axis' must be constants", n->name,
                  (long long)I->opset);
    return KR_FAILURE;
  }
  int64_t rank = t->u.shaped.rank, axis = kr_dense_get_i64(ac, 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) {
    kr_onnx_error(I, n->loc, "node '%s' (Tile): axis out of range", n->name);
    return KR_FAILURE;
  }
  int64_t reps[KR_OP_MAX_RANK];
  for (int64_t i = 0; i < rank; i++) reps[i] = i == axis ? kr_dense_get_i64(tc, 0) : 1;
  kr_onnx_node_set_operand(n, 1, kr_onnx_const_i64(I, reps, (unsigned)rank, false, n->loc));
  n->operands.len = 2;
  return KR_SUCCESS;
}

/* BatchNormalization: spatial (< 9; 0 = per-activation statistics) has no opset-9 equivalent;
 * is_test (< 7) and consumed_inputs go; training outputs (mean, var, saved_*) are unsupported. */
static kr_status upgrade_batch_norm(kr_onnx_importer *I, kr_onnx_node *n) {
  const Onnx__AttributeProto *sp = kr_onnx_node_attr(n, "spatial");
  if (sp && I->opset < 9 && kr_onnx_attr_i(sp, 1) == 0) {
    kr_onnx_error(I, n->loc, "node '%s' (BatchNormalization opset %lld): spatial = 0 is unsupported", n->name,
                  (long long)I->opset);
    return KR_FAILURE;
  }
  if (I->opset < 9) kr_onnx_node_drop(n, "spatial");
  if (I->opset < 7) kr_onnx_node_drop(n, "is_test");
  if (I->opset < 14 && n->num_results > 1) {
    kr_onnx_error(I, n->loc, "node '%s' (BatchNormalization opset %lld): training-mode outputs are unsupported", n->name,
                  (long long)I->opset);
    return KR_FAILURE;
  }
  return KR_SUCCESS;
}

/* Resize-10 (X, scales; mode) has Upsample's semantics: asymmetric coordinates, and nearest
 * rounds down (ONNX's Resize 10 -> 11 adapter).  Resize-11 needs roi and scales inputs even when
 * unused (empty tensors); opset 13 omits them. */
static kr_status upgrade_resize(kr_onnx_importer *I, kr_onnx_node *n) {
  if (I->opset < 11) {
    kr_value scales = kr_onnx_node_operand(n, 1);
    kr_onnx_node_set_operand(n, 1, NULL);
    kr_onnx_node_set_operand(n, 2, scales);
    size_t len;
    const char *mode = kr_onnx_attr_s(kr_onnx_node_attr(n, "mode"), "nearest", &len);
    kr_onnx_node_set_attr(n, "coordinate_transformation_mode", str_attr(n, "asymmetric"));
    if (len == 7 && !memcmp(mode, "nearest", 7)) kr_onnx_node_set_attr(n, "nearest_mode", str_attr(n, "floor"));
  }
  for (unsigned i = 1; i <= 2; i++) {
    kr_type t = operand_type(n, i);
    kr_value v = kr_onnx_node_operand(n, i);
    kr_op *d = v ? kr_value_defining_op(v) : NULL;
    if (t && t->kind == KR_TYPE_TENSOR && kr_type_num_elements(t) == 0 && d && !strcmp(d->name, KR_OP_CONSTANT))
      kr_onnx_node_set_operand(n, i, NULL);
  }
  return KR_SUCCESS;
}

static bool in_list(const char *op, const char *const *list) {
  for (; *list; list++)
    if (!strcmp(op, *list)) return true;
  return false;
}

kr_status kr_onnx_upgrade_node(kr_onnx_importer *I, kr_onnx_node *n) {
  const char *op = n->op_type;
  int64_t v = I->opset;
  /* consumed_inputs (an in-place hint of opset 1, removed in 6) never changed the results. */
  if (v < 6) kr_onnx_node_drop(n, "consumed_inputs");

  static const char *const legacy_bc[] = {"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor",
                                          "Equal", "Greater", "Less", NULL};
  if (v < 7 && in_list(op, legacy_bc)) return upgrade_legacy_broadcast(I, n);
  if (!strcmp(op, "Softmax") || !strcmp(op, "LogSoftmax") || !strcmp(op, "Hardmax"))
    return v < 13 ? upgrade_softmax_family(I, n) : KR_SUCCESS;
  if (!strcmp(op, "Reshape") && v < 5) {
    if (!ints_attr_to_operand(I, n, "shape", 1)) {
      kr_onnx_error(I, n->loc, "node '%s' (Reshape opset %lld): requires attribute 'shape'", n->name, (long long)v);
      return KR_FAILURE;
    }
    return KR_SUCCESS;
  }
  if (!strcmp(op, "Slice") && v < 10) {
    bool starts = ints_attr_to_operand(I, n, "starts", 1);
    bool ends = ints_attr_to_operand(I, n, "ends", 2);
    ints_attr_to_operand(I, n, "axes", 3);
    if (!starts || !ends) {
      kr_onnx_error(I, n->loc, "node '%s' (Slice opset %lld): requires attributes 'starts' and 'ends'", n->name,
                    (long long)v);
      return KR_FAILURE;
    }
    return KR_SUCCESS;
  }
  if (!strcmp(op, "Pad") && v < 11) return upgrade_pad(I, n);
  if (!strcmp(op, "Clip") && v < 11) return upgrade_clip(I, n);
  if ((!strcmp(op, "Squeeze") || !strcmp(op, "Unsqueeze") || !strcmp(op, "ReduceSum")) && v < 13) {
    ints_attr_to_operand(I, n, "axes", 1);
    return KR_SUCCESS;
  }
  if (!strcmp(op, "Split") && v < 13) return upgrade_split(I, n);
  if (!strcmp(op, "Tile") && v < 6) return upgrade_tile(I, n);
  if (!strcmp(op, "Dropout")) {
    /* Before 12 the ratio was an attribute and inference (is_test, or always from 7) was the
     * identity, which is what op.dropout without training_mode computes. */
    if (v < 12) kr_onnx_node_drop(n, "ratio");
    if (v < 7) kr_onnx_node_drop(n, "is_test");
    return KR_SUCCESS;
  }
  if (!strcmp(op, "BatchNormalization")) return upgrade_batch_norm(I, n);
  if (!strcmp(op, "Resize")) return upgrade_resize(I, n);
  if (!strcmp(op, "Gemm") && v < 7) {
    kr_onnx_node_drop(n, "broadcast");
    return KR_SUCCESS;
  }
  if (!strcmp(op, "Concat") && v < 4 && !kr_onnx_node_attr(n, "axis")) {
    kr_onnx_node_set_attr(n, "axis", i64_attr(n, 1));
    return KR_SUCCESS;
  }
  return KR_SUCCESS;
}
