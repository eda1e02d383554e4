/* dialects/op/shape_norm.c - shape inference of the norm ops (ONNX opset 17): Softmax,
 * LogSoftmax, Hardmax (-13: one axis; the importer rewrites the 2-D coercion of opsets < 13),
 * LayerNormalization-17, BatchNormalization-15, InstanceNormalization-6, LpNormalization-1,
 * MeanVarianceNormalization-13. */
#include <stdlib.h>

#include "dialects/dialect_util.h"
#include "dialects/op/shape_reduce.h"
#include "dialects/schema.h"

/* Operand i as a static tensor of a float element type (the T of every norm op is a float). */
static kr_status float_operand(kr_op *op, unsigned i, kr_type *out) {
  if (kr_op_operand_tensor(op, i, out)) return KR_FAILURE;
  if ((*out)->u.shaped.elem->kind != KR_TYPE_FLOAT) {
    char *s = kr_type_to_cstr(*out);
    kr_op_emit_error(op, "operand #%u ('%s') must have a float element type, got '%s'", i,
                     kr_schema_operand_name(op, i), s);
    free(s);
    return KR_FAILURE;
  }
  return KR_SUCCESS;
}

/* Operand i must have the element type of operand 0 (ONNX: one type variable T). */
static kr_status same_elem(kr_op *op, unsigned i, kr_type x, kr_type t) {
  if (t->u.shaped.elem == x->u.shaped.elem) return KR_SUCCESS;
  char *a = kr_type_to_cstr(t), *b = kr_type_to_cstr(x);
  kr_op_emit_error(op, "operand #%u ('%s') of type '%s' must have the element type of '%s'", i,
                   kr_schema_operand_name(op, i), a, b);
  free(a), free(b);
  return KR_FAILURE;
}

/* Softmax/LogSoftmax/Hardmax-13: along one axis in [-rank, rank); the result has X's type. */
static kr_status infer_axis_op(kr_op *op, kr_type *results) {
  kr_type x;
  int64_t axis;
  if (float_operand(op, 0, &x)) return KR_FAILURE;
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), x->u.shaped.rank, &axis))
    return KR_FAILURE;
  results[0] = x;
  return KR_SUCCESS;
}

kr_status kr_infer_softmax(kr_op *op, kr_type *results) { return infer_axis_op(op, results); }
kr_status kr_infer_log_softmax(kr_op *op, kr_type *results) { return infer_axis_op(op, results); }
kr_status kr_infer_hardmax(kr_op *op, kr_type *results) { return infer_axis_op(op, results); }

/* The element type named by a TensorProto.DataType code (LayerNormalization's stash_type). */
static kr_type stash_elem(kr_context *ctx, int64_t code) {
  switch (code) {
  case 1: return kr_type_float(ctx, KR_F32);
  case 10: return kr_type_float(ctx, KR_F16);
  case 11: return kr_type_float(ctx, KR_F64);
  case 16: return kr_type_float(ctx, KR_BF16);
  default: return NULL;
  }
}

/* LayerNormalization-17: Y has X's type.  Scale and B broadcast unidirectionally to X (they
 * are normally X.shape[axis:]).  Mean and InvStdDev keep the dims before `axis` and have 1 for
 * the normalised ones; their element type is stash_type (ONNX's shape inference). */
kr_status kr_infer_layer_normalization(kr_op *op, kr_type *results) {
  kr_type x, t;
  if (float_operand(op, 0, &x)) return KR_FAILURE;
  unsigned rank = x->u.shaped.rank;
  int64_t axis;
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), rank, &axis)) return KR_FAILURE;
  for (unsigned i = 1; i < 3; i++) {
    if (!kr_op_operand_present(op, i)) continue;
    if (kr_op_operand_tensor(op, i, &t) || same_elem(op, i, x, t)) return KR_FAILURE;
    unsigned r = t->u.shaped.rank;
    bool ok = r <= rank;
    for (unsigned d = 0; ok && d < r; d++) {
      int64_t s = t->u.shaped.dims[d], xd = x->u.shaped.dims[rank - r + d];
      ok = s == xd || s == 1;
    }
    if (!ok) {
      char *a = kr_type_to_cstr(t), *b = kr_type_to_cstr(x);
      kr_op_emit_error(op, "operand #%u ('%s') of type '%s' does not broadcast to X's shape '%s'", i,
                       kr_schema_operand_name(op, i), a, b);
      free(a), free(b);
      return KR_FAILURE;
    }
  }
  results[0] = x;
  if (op->num_results > 1) {
    kr_context *ctx = kr_op_context(op);
    int64_t code = kr_op_attr_int(op, "stash_type");
    kr_type e = stash_elem(ctx, code);
    if (!e) return kr_op_emit_error(op, "attribute 'stash_type' value %lld is not a float type (1, 10, 11 or 16)", (long long)code);
    int64_t dims[KR_OP_MAX_RANK];
    for (unsigned d = 0; d < rank; d++) dims[d] = (int64_t)d < axis ? x->u.shaped.dims[d] : 1;
    kr_type stat = kr_type_tensor(ctx, dims, rank, e);
    for (unsigned i = 1; i < op->num_results; i++) results[i] = stat;
  }
  return KR_SUCCESS;
}

/* Operand i must be the 1-D [C] per-channel vector of a norm op over NC... input x. */
static kr_status channel_vector(kr_op *op, unsigned i, kr_type x, kr_type *out) {
  if (float_operand(op, i, out)) return KR_FAILURE;
  int64_t c = x->u.shaped.dims[1];
  if ((*out)->u.shaped.rank != 1 || (*out)->u.shaped.dims[0] != c) {
    char *a = kr_type_to_cstr(*out);
    kr_op_emit_error(op, "operand #%u ('%s') must have shape [%lld] (the channels of dimension 1), got '%s'", i,
                     kr_schema_operand_name(op, i), (long long)c, a);
    free(a);
    return KR_FAILURE;
  }
  return KR_SUCCESS;
}

/* BatchNormalization-15: X is [N, C, D1, ...]; scale, B, input_mean, input_var are [C].  Y has
 * X's type; running_mean/running_var (training_mode = 1) those of input_mean/input_var. */
kr_status kr_infer_batch_normalization(kr_op *op, kr_type *results) {
  kr_type x, v[5];
  if (float_operand(op, 0, &x)) return KR_FAILURE;
  if (x->u.shaped.rank < 2) return kr_op_emit_error(op, "operand #0 ('X') must have rank >= 2 ([N, C, ...]), got rank %u", x->u.shaped.rank);
  for (unsigned i = 1; i < 5; i++)
    if (channel_vector(op, i, x, &v[i])) return KR_FAILURE;
  results[0] = x;
  if (op->num_results > 1) results[1] = v[3];
  if (op->num_results > 2) results[2] = v[4];
  return KR_SUCCESS;
}

/* InstanceNormalization-6: input is [N, C, D1, ...] (rank >= 3), scale and B are [C]. */
kr_status kr_infer_instance_normalization(kr_op *op, kr_type *results) {
  kr_type x, v;
  if (float_operand(op, 0, &x)) return KR_FAILURE;
  if (x->u.shaped.rank < 3)
    return kr_op_emit_error(op, "operand #0 ('input') must have rank >= 3 ([N, C, D1, ...]), got rank %u", x->u.shaped.rank);
  for (unsigned i = 1; i < 3; i++)
    if (channel_vector(op, i, x, &v) || same_elem(op, i, x, v)) return KR_FAILURE;
  results[0] = x;
  return KR_SUCCESS;
}

/* LpNormalization-1: along `axis`, p is 1 or 2. */
kr_status kr_infer_lp_normalization(kr_op *op, kr_type *results) {
  int64_t p = kr_op_attr_int(op, "p");
  if (p != 1 && p != 2) return kr_op_emit_error(op, "attribute 'p' must be 1 or 2, got %lld", (long long)p);
  return infer_axis_op(op, results);
}

/* MeanVarianceNormalization-13: statistics over `axes` (default [0, 2, 3]); Y has X's type. */
kr_status kr_infer_mean_variance_normalization(kr_op *op, kr_type *results) {
  kr_type x;
  if (float_operand(op, 0, &x)) return KR_FAILURE;
  const int64_t *axes;
  unsigned n = kr_op_attr_ints(op, "axes", &axes);
  bool mask[KR_OP_MAX_RANK];
  if (kr_axes_to_mask(op, "attribute 'axes'", axes, n, x->u.shaped.rank, mask)) return KR_FAILURE;
  results[0] = x;
  return KR_SUCCESS;
}
