/* backend/interp/kernels_layout_index.c - CPU reference kernels of the indexing layout ops
 * (ONNX opset 17): Gather-13, GatherElements-13, GatherND-13, Trilu-14, OneHot-11.  Indices
 * may be negative (counted from the back of the axis); an index out of range is an error at the
 * op, as in onnxruntime (the spec leaves it undefined). */
#include <stdlib.h>
#include <string.h>

#include "backend/interp/kernels_layout.h"

/* idx normalised into [0, dim), or an error naming it. */
static kr_status norm_index(kr_op *op, int64_t idx, int64_t dim, int64_t *out) {
  if (idx < -dim || idx >= dim)
    return kr_op_emit_error(op, "index %lld is out of range [%lld, %lld)", (long long)idx, (long long)-dim, (long long)dim);
  *out = idx < 0 ? idx + dim : idx;
  return KR_SUCCESS;
}

static int64_t prod_range(const int64_t *d, unsigned from, unsigned to) {
  int64_t p = 1;
  for (unsigned i = from; i < to; i++) p *= d[i];
  return p;
}

/* Gather-13: out[o, j, i] = data[o, indices[j], i] with data viewed as [outer, dim, inner]. */
kr_status kr_eval_gather(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *data = ins[0], *ind = ins[1];
  unsigned rank = kr_tensor_rank(data);
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < 0) axis += rank;
  const int64_t *d = kr_tensor_dims(data);
  int64_t outer = prod_range(d, 0, (unsigned)axis), dim = d[axis];
  size_t eb = kr_layout_elem_bytes(data), chunk = (size_t)prod_range(d, (unsigned)axis + 1, rank) * eb;
  int64_t ni = ind->numel;
  int64_t *idx = malloc((size_t)(ni ? ni : 1) * sizeof *idx);
  if (!idx) return kr_op_emit_error(op, "out of memory");
  kr_status st = KR_SUCCESS;
  for (int64_t j = 0; j < ni && !st; j++) st = norm_index(op, kr_tensor_get_i64(ind, j), dim, &idx[j]);
  if (!st) kr_layout_gather_blocks(outs[0]->data, data->data, outer, dim, idx, ni, chunk);
  free(idx);
  return st;
}

/* GatherElements-13: out[i_0..i_r] = data[i_0.., indices[i_0..i_r] (at axis), ..i_r]. */
kr_status kr_eval_gather_elements(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *data = ins[0], *ind = ins[1];
  unsigned rank = kr_tensor_rank(data);
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < 0) axis += rank;
  const int64_t *d = kr_tensor_dims(data), *od = kr_tensor_dims(ind);
  int64_t stride[KR_OP_MAX_RANK], idx[KR_OP_MAX_RANK] = {0};
  kr_dims_strides(d, rank, stride);
  size_t eb = kr_layout_elem_bytes(data);
  char *dp = outs[0]->data;
  const char *sp = data->data;
  for (int64_t i = 0; i < ind->numel; i++, dp += eb) {
    int64_t a = 0;
    if (norm_index(op, kr_tensor_get_i64(ind, i), d[axis], &a)) return KR_FAILURE;
    int64_t off = 0;
    for (unsigned k = 0; k < rank; k++) off += (k == axis ? a : idx[k]) * stride[k];
    memcpy(dp, sp + off * (int64_t)eb, eb);
    for (int k = (int)rank - 1; k >= 0; k--) {
      if (++idx[k] < od[k]) break;
      idx[k] = 0;
    }
  }
  return KR_SUCCESS;
}

/* GatherND-13: with b = batch_dims and k = the last dim of indices, indices is viewed as
 * [B, M, k] and data as [B, d_b .. d_{b+k-1}, S]; out[bb, m] = data[bb, indices[bb, m, :]]
 * (a slice of S elements). */
kr_status kr_eval_gather_nd(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *data = ins[0], *ind = ins[1];
  unsigned rank = kr_tensor_rank(data), irank = kr_tensor_rank(ind);
  const int64_t *d = kr_tensor_dims(data), *id = kr_tensor_dims(ind);
  int64_t b = kr_op_attr_int(op, "batch_dims"), k = id[irank - 1];
  int64_t batch = prod_range(d, 0, (unsigned)b);
  int64_t m = prod_range(id, (unsigned)b, irank - 1);
  int64_t slice = prod_range(d, (unsigned)(b + k), rank);
  int64_t stride[KR_OP_MAX_RANK];
  kr_dims_strides(d, rank, stride);
  int64_t bstride = b ? stride[b - 1] : 0;
  size_t eb = kr_layout_elem_bytes(data), chunk = (size_t)slice * eb;
  char *dp = outs[0]->data;
  const char *sp = data->data;
  for (int64_t bb = 0; bb < batch; bb++)
    for (int64_t j = 0; j < m; j++, dp += chunk) {
      int64_t off = bb * bstride;
      for (int64_t q = 0; q < k; q++) {
        int64_t a = 0;
        if (norm_index(op, kr_tensor_get_i64(ind, (bb * m + j) * k + q), d[b + q], &a)) return KR_FAILURE;
        off += a * stride[b + q];
      }
      if (chunk) memcpy(dp, sp + off * (int64_t)eb, chunk);
    }
  return KR_SUCCESS;
}

/* Trilu-14: keeps element (i, j) of each matrix of the last two axes when j - i >= k (upper) or
 * j - i <= k (lower); the rest stays 0 (outputs start zeroed).  Each row keeps one contiguous
 * column range. */
kr_status kr_eval_trilu(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *in = ins[0];
  unsigned rank = kr_tensor_rank(in);
  const int64_t *d = kr_tensor_dims(in);
  int64_t rows = d[rank - 2], cols = d[rank - 1];
  int64_t k = op->num_operands > 1 && ins[1] && ins[1]->numel ? kr_tensor_get_i64(ins[1], 0) : 0;
  bool upper = kr_op_attr_int(op, "upper") != 0;
  size_t eb = kr_layout_elem_bytes(in);
  int64_t mats = rows && cols ? in->numel / (rows * cols) : 0;
  for (int64_t mt = 0; mt < mats; mt++)
    for (int64_t i = 0; i < rows; i++) {
      /* Clamp i + k into [0, cols] without overflowing for huge |k|. */
      int64_t lo = 0, hi = cols;
      int64_t ik = k > cols ? cols + 1 : k < -rows - 1 ? -rows - 1 : k;
      if (upper) lo = i + ik < 0 ? 0 : i + ik > cols ? cols : i + ik;
      else hi = i + ik + 1 < 0 ? 0 : i + ik + 1 > cols ? cols : i + ik + 1;
      if (hi <= lo) continue;
      size_t off = ((size_t)(mt * rows + i) * (size_t)cols + (size_t)lo) * eb;
      memcpy((char *)outs[0]->data + off, (const char *)in->data + off, (size_t)(hi - lo) * eb);
    }
  return KR_SUCCESS;
}

/* OneHot-11: output = indices' dims with `depth` inserted at axis, viewed as [outer, depth,
 * inner]: values[1] where the index (negative ones plus depth) equals the position, values[0]
 * elsewhere; indices outside [-depth, depth) give an all-off line. */
kr_status kr_eval_one_hot(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *ind = ins[0], *values = ins[2];
  kr_tensor *out = outs[0];
  unsigned rank = kr_tensor_rank(ind);
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < 0) axis += rank + 1;
  int64_t depth;
  if (kr_one_hot_depth(op, kr_tensor_get_f64(ins[1], 0), &depth)) return KR_FAILURE;
  if (kr_tensor_dims(out)[axis] != depth)
    return kr_op_emit_error(op, "OneHot 'depth' %lld does not match the result's dim %lld at axis %lld", (long long)depth,
                            (long long)kr_tensor_dims(out)[axis], (long long)axis);
  const int64_t *d = kr_tensor_dims(ind);
  int64_t inner = prod_range(d, (unsigned)axis, rank);
  size_t eb = kr_layout_elem_bytes(out);
  const char *off = values->data, *on = (const char *)values->data + eb;
  char *dp = out->data;
  for (int64_t i = 0; i < out->numel; i++) memcpy(dp + (size_t)i * eb, off, eb);
  for (int64_t i = 0; i < ind->numel; i++) {
    int64_t v = kr_tensor_get_i64(ind, i);
    if (v < 0) v += depth;
    if (v < 0 || v >= depth) continue;
    int64_t o = i / inner, in = i % inner;
    memcpy(dp + (size_t)((o * depth + v) * inner + in) * eb, on, eb);
  }
  return KR_SUCCESS;
}
