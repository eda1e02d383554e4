/* dialects/prim/shape_layout.c - shape rules of the layout primitives (ops.def, Korch ASPLOS'24
 * §3): they move or select elements, so the result keeps x's element type and only the shape is
 * computed.  Every index list is already normalised by fission (no negative axes, slice bounds
 * clamped), so these rules check instead of clamping; a dimension computation that leaves int64
 * is an error, never a wrap. */
#include <stdlib.h>
#include <string.h>

#include "dialects/prim/shape_util.h"

/* broadcast (numpy broadcasting made explicit, ONNX docs/Broadcasting.md): rank(x) <=
 * len(shape); x's dims align right with `shape`, each equal to the target dim or 1. */
kr_status kr_prim_infer_broadcast(kr_op *op, kr_type *results) {
  kr_type x;
  const int64_t *shape;
  int64_t n = kr_op_attr_ints(op, "shape", &shape);
  char b1[256], b2[256];
  if (kr_ps_operand(op, 0, KR_EW_ANY, &x) || kr_ps_ints_min(op, "shape", shape, n, 0)) return KR_FAILURE;
  const int64_t *dims = x->u.shaped.dims;
  int64_t rank = x->u.shaped.rank;
  if (rank > n)
    return kr_op_emit_error(op, "attribute 'shape' %s has rank %lld, below the rank %lld of operand 'x'",
                            kr_ps_fmt(b1, sizeof b1, shape, n), (long long)n, (long long)rank);
  for (int64_t d = 0; d < rank; d++) {
    int64_t t = shape[n - rank + d];
    if (dims[d] != t && dims[d] != 1)
      return kr_op_emit_error(op, "cannot broadcast operand 'x' of shape %s to %s: dim %lld is %lld, not 1 or %lld",
                              kr_ps_fmt(b1, sizeof b1, dims, rank), kr_ps_fmt(b2, sizeof b2, shape, n), (long long)d,
                              (long long)dims[d], (long long)t);
  }
  return kr_ps_result(op, shape, n, kr_type_element(x), &results[0]);
}

/* transpose: perm is a permutation of [0, rank); y.dims[i] = x.dims[perm[i]]. */
kr_status kr_prim_infer_transpose(kr_op *op, kr_type *results) {
  kr_type x;
  const int64_t *perm;
  char buf[256];
  if (kr_ps_operand(op, 0, KR_EW_ANY, &x)) return KR_FAILURE;
  unsigned rank = x->u.shaped.rank;
  if (kr_ps_ints_len(op, "perm", rank, "one per axis of operand 'x'", &perm)) return KR_FAILURE;
  bool seen[KR_OP_MAX_RANK] = {false};
  int64_t out[KR_OP_MAX_RANK];
  for (unsigned i = 0; i < rank; i++) {
    if (perm[i] < 0 || perm[i] >= (int64_t)rank || seen[perm[i]])
      return kr_op_emit_error(op, "attribute 'perm' %s is not a permutation of [0, %u)",
                              kr_ps_fmt(buf, sizeof buf, perm, rank), rank);
    seen[perm[i]] = true;
    out[i] = x->u.shaped.dims[perm[i]];
  }
  results[0] = kr_type_tensor(kr_op_context(op), out, rank, kr_type_element(x));
  return KR_SUCCESS;
}

/* reshape: every entry of `shape` >= 0 (no -1 or 0-copies: fission resolves ONNX's), the
 * element counts equal. */
kr_status kr_prim_infer_reshape(kr_op *op, kr_type *results) {
  kr_type x;
  const int64_t *shape;
  int64_t n = kr_op_attr_ints(op, "shape", &shape);
  char b1[256], b2[256];
  if (kr_ps_operand(op, 0, KR_EW_ANY, &x) || kr_ps_ints_min(op, "shape", shape, n, 0)) return KR_FAILURE;
  int64_t have = kr_dims_product(x->u.shaped.dims, x->u.shaped.rank), want = kr_dims_product(shape, n);
  if (want < 0 || have != want)
    return kr_op_emit_error(op, "cannot reshape operand 'x' of shape %s (%lld elements) into %s",
                            kr_ps_fmt(b1, sizeof b1, x->u.shaped.dims, x->u.shaped.rank), (long long)have,
                            kr_ps_fmt(b2, sizeof b2, shape, n));
  return kr_ps_result(op, shape, n, kr_type_element(x), &results[0]);
}

/* slice, in clamped form: one start/end/step per axis; step != 0; step > 0 needs 0 <= start <=
 * dim and start <= end <= dim; step < 0 needs -1 <= start < dim and -1 <= end <= start (start
 * -1 only on an empty slice).  count = ceil((end - start) / step). */
kr_status kr_prim_infer_slice(kr_op *op, kr_type *results) {
  kr_type x;
  const int64_t *starts, *ends, *steps;
  if (kr_ps_operand(op, 0, KR_EW_ANY, &x)) return KR_FAILURE;
  unsigned rank = x->u.shaped.rank;
  const char *per = "one per axis of operand 'x'";
  if (kr_ps_ints_len(op, "starts", rank, per, &starts) || kr_ps_ints_len(op, "ends", rank, per, &ends) ||
      kr_ps_ints_len(op, "steps", rank, per, &steps))
    return KR_FAILURE;
  int64_t out[KR_OP_MAX_RANK];
  for (unsigned d = 0; d < rank; d++) {
    int64_t dim = x->u.shaped.dims[d], s = starts[d], e = ends[d], step = steps[d];
    if (step == 0) return kr_op_emit_error(op, "attribute 'steps' is 0 for axis %u", d);
    bool ok = step > 0 ? 0 <= s && s <= dim && s <= e && e <= dim : -1 <= s && s < dim && -1 <= e && e <= s;
    if (!ok)
      return kr_op_emit_error(op,
                              "slice of axis %u (size %lld) from %lld to %lld by %lld is not in clamped form "
                              "(step > 0: 0 <= start <= end <= dim; step < 0: -1 <= end <= start < dim)",
                              d, (long long)dim, (long long)s, (long long)e, (long long)step);
    if (step > 0)
      out[d] = e > s ? (e - s - 1) / step + 1 : 0;
    else /* ceil((s - e) / -step); -step in uint64 so that INT64_MIN does not overflow */
      out[d] = s > e ? (int64_t)((uint64_t)(s - e - 1) / (0 - (uint64_t)step)) + 1 : 0;
  }
  results[0] = kr_type_tensor(kr_op_context(op), out, rank, kr_type_element(x));
  return KR_SUCCESS;
}

/* concat: at least one operand; all of one rank and element type, equal in every dim but
 * `axis` (in [0, rank)); the result's axis is their sum. */
kr_status kr_prim_infer_concat(kr_op *op, kr_type *results) {
  kr_type first, t;
  int64_t axis;
  char b1[256], b2[256];
  if (op->num_operands == 0) return kr_op_emit_error(op, "expects at least 1 operand");
  if (kr_ps_operand(op, 0, KR_EW_ANY, &first) || kr_ps_axis(op, "axis", first->u.shaped.rank, &axis)) return KR_FAILURE;
  unsigned rank = first->u.shaped.rank;
  int64_t out[KR_OP_MAX_RANK];
  memcpy(out, first->u.shaped.dims, rank * sizeof *out);
  for (unsigned i = 1; i < op->num_operands; i++) {
    if (kr_ps_operand(op, i, KR_EW_ANY, &t) || kr_ps_same_elem(op, 0, first, i, t)) return KR_FAILURE;
    bool ok = t->u.shaped.rank == rank;
    for (unsigned d = 0; ok && d < rank; d++)
      if (d != axis && t->u.shaped.dims[d] != out[d]) ok = false;
    if (!ok)
      return kr_op_emit_error(op, "operand #%u has shape %s, which does not match %s outside axis %lld", i,
                              kr_ps_fmt(b1, sizeof b1, t->u.shaped.dims, t->u.shaped.rank),
                              kr_ps_fmt(b2, sizeof b2, first->u.shaped.dims, rank), (long long)axis);
    if (__builtin_add_overflow(out[axis], t->u.shaped.dims[axis], &out[axis]))
      return kr_op_emit_error(op, "the size of the concatenated axis does not fit in a 64-bit dimension");
  }
  return kr_ps_result(op, out, rank, kr_type_element(first), &results[0]);
}

/* pad (XLA Pad with ONNX Pad-13's modes): pads has 2*rank entries [low.., high..] (negative
 * crops); interior, when present, rank entries >= 0, non-zero only in constant mode; mode
 * constant, edge or reflect; value only in constant mode, a rank-0 tensor of x's element type;
 * reflect needs every positive pad < dim, edge a non-empty axis under a positive pad.
 * y.dims[d] = low + high + dim + max(dim - 1, 0) * interior >= 0. */
kr_status kr_prim_infer_pad(kr_op *op, kr_type *results) {
  kr_type x;
  const int64_t *pads, *interior = NULL;
  char buf[256];
  if (kr_ps_operand(op, 0, KR_EW_ANY, &x)) return KR_FAILURE;
  unsigned rank = x->u.shaped.rank;
  const int64_t *dims = x->u.shaped.dims;
  if (kr_ps_ints_len(op, "pads", 2 * (int64_t)rank, "2 * rank of operand 'x': low then high", &pads)) return KR_FAILURE;
  const char *mode = kr_op_attr_string(op, "mode");
  bool constant = !strcmp(mode, "constant"), edge = !strcmp(mode, "edge"), reflect = !strcmp(mode, "reflect");
  if (!constant && !edge && !reflect)
    return kr_op_emit_error(op, "attribute 'mode' must be constant, edge or reflect, got \"%s\"", mode);
  if (kr_op_attr_present(op, "interior")) {
    if (kr_ps_ints_len(op, "interior", rank, "one per axis of operand 'x'", &interior) ||
        kr_ps_ints_min(op, "interior", interior, rank, 0))
      return KR_FAILURE;
    for (unsigned d = 0; d < rank && !constant; d++)
      if (interior[d])
        return kr_op_emit_error(op, "attribute 'interior' %s needs mode constant, got \"%s\"",
                                kr_ps_fmt(buf, sizeof buf, interior, rank), mode);
  }
  if (op->num_operands > 1) {
    kr_type v;
    if (!constant)
      return kr_op_emit_error(op, "operand #1 ('value') is only allowed in mode constant, got \"%s\"", mode);
    if (kr_ps_operand(op, 1, KR_EW_ANY, &v)) return KR_FAILURE;
    if (v->u.shaped.rank != 0 || kr_type_element(v) != kr_type_element(x)) {
      char *a = kr_type_to_cstr(v), *b = kr_type_to_cstr(kr_type_element(x));
      kr_op_emit_error(op, "operand #1 ('value') must be a rank-0 tensor of x's element type '%s', got '%s'", b, a);
      free(a), free(b);
      return KR_FAILURE;
    }
  }
  int64_t out[KR_OP_MAX_RANK];
  for (unsigned d = 0; d < rank; d++) {
    int64_t lo = pads[d], hi = pads[rank + d], dim = dims[d];
    if (reflect && ((lo > 0 && lo >= dim) || (hi > 0 && hi >= dim)))
      return kr_op_emit_error(op,
                              "mode reflect needs pads below the axis size: axis %u (size %lld) has pads %lld, %lld", d,
                              (long long)dim, (long long)lo, (long long)hi);
    if (edge && dim == 0 && (lo > 0 || hi > 0))
      return kr_op_emit_error(op, "mode edge cannot pad the empty axis %u", d);
    int64_t size = dim, gaps = dim > 0 ? dim - 1 : 0, in;
    if ((interior && (__builtin_mul_overflow(gaps, interior[d], &in) || __builtin_add_overflow(size, in, &size))) ||
        __builtin_add_overflow(size, lo, &size) || __builtin_add_overflow(size, hi, &size))
      return kr_op_emit_error(op, "padding axis %u (size %lld) does not fit in a 64-bit dimension", d, (long long)dim);
    if (size < 0)
      return kr_op_emit_error(op, "pads %s crop axis %u (size %lld) below zero",
                              kr_ps_fmt(buf, sizeof buf, pads, 2 * rank), d, (long long)dim);
    out[d] = size;
  }
  return kr_ps_result(op, out, rank, kr_type_element(x), &results[0]);
}

/* gather (ONNX Gather-13 with normalised axis): axis in [0, rank(data)), indices of an integer
 * type; y = data.dims[:axis] ++ indices.dims ++ data.dims[axis+1:]. */
kr_status kr_prim_infer_gather(kr_op *op, kr_type *results) {
  kr_type data, idx;
  int64_t axis;
  if (kr_ps_operand(op, 0, KR_EW_ANY, &data) || kr_ps_operand(op, 1, KR_EW_INT, &idx) ||
      kr_ps_axis(op, "axis", data->u.shaped.rank, &axis))
    return KR_FAILURE;
  unsigned r = data->u.shaped.rank, q = idx->u.shaped.rank;
  if (r - 1 + q > KR_OP_MAX_RANK)
    return kr_op_emit_error(op, "result rank %u exceeds the supported maximum %d", r - 1 + q, KR_OP_MAX_RANK);
  int64_t out[KR_OP_MAX_RANK];
  unsigned k = 0;
  for (unsigned d = 0; d < axis; d++) out[k++] = data->u.shaped.dims[d];
  for (unsigned d = 0; d < q; d++) out[k++] = idx->u.shaped.dims[d];
  for (unsigned d = (unsigned)axis + 1; d < r; d++) out[k++] = data->u.shaped.dims[d];
  return kr_ps_result(op, out, k, kr_type_element(data), &results[0]);
}
