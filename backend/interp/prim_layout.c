/* backend/interp/prim_layout.c - CPU reference kernels of the layout primitives
 * (dialects/prim/ops.def; Korch, ASPLOS'24, §3).
 *
 * Elements move as byte blocks of the element's storage size (kernels_layout.h), so one kernel
 * serves every dtype and results are exact.  broadcast (Expand-13), transpose (Transpose-13)
 * and concat (Concat-13) use the op-level copy helpers; slice, pad (XLA's pad: ONNX Pad-13's
 * modes plus interior padding and cropping) and gather (Gather-13 with in-range indices) read
 * their geometry from attributes and are computed here. */
#include <stdlib.h>
#include <string.h>

#include "backend/interp/broadcast.h"
#include "backend/interp/kernels_layout.h"
#include "dialects/op/op_impl.h"
#include "dialects/prim/prim_impl.h"

kr_status kr_prim_eval_broadcast(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  if (kr_bcast_copy(outs[0], ins[0])) return kr_op_emit_error(op, "'x' does not broadcast to the result");
  return KR_SUCCESS;
}

/* y.dims[i] = x.dims[perm[i]]; `perm` must be a permutation of [0, rank). */
kr_status kr_prim_eval_transpose(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const int64_t *perm;
  unsigned rank = kr_tensor_rank(ins[0]);
  bool seen[KR_OP_MAX_RANK] = {0};
  bool ok = kr_op_attr_ints(op, "perm", &perm) == rank && rank <= KR_OP_MAX_RANK;
  for (unsigned i = 0; ok && i < rank; i++) {
    ok = perm[i] >= 0 && perm[i] < (int64_t)rank && !seen[perm[i]];
    if (ok) seen[perm[i]] = true;
  }
  if (!ok) return kr_op_emit_error(op, "attribute 'perm' must be a permutation of [0, %u)", rank);
  if (outs[0]->numel == 0) return KR_SUCCESS;
  kr_layout_permute(ins[0]->data, outs[0]->data, kr_tensor_dims(ins[0]), rank, perm, kr_layout_elem_bytes(ins[0]));
  return KR_SUCCESS;
}

/* Row-major: the bytes are the same. */
kr_status kr_prim_eval_reshape(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  if (ins[0]->numel != outs[0]->numel)
    return kr_op_emit_error(op, "reshape of %lld elements into %lld", (long long)ins[0]->numel, (long long)outs[0]->numel);
  if (outs[0]->nbytes) memcpy(outs[0]->data, ins[0]->data, outs[0]->nbytes);
  return KR_SUCCESS;
}

/* Along each axis y[j] = x[start + j*step] for j < y.dims[d]: one strided copy from the first
 * selected element (negative steps walk backwards).  The result dims must be the counts
 * max(0, ceil((end - start) / step)) and every selected index inside the axis. */
kr_status kr_prim_eval_slice(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *x = ins[0];
  kr_tensor *y = outs[0];
  unsigned rank = kr_tensor_rank(x);
  const int64_t *starts, *ends, *steps;
  if (kr_op_attr_ints(op, "starts", &starts) != rank || kr_op_attr_ints(op, "ends", &ends) != rank ||
      kr_op_attr_ints(op, "steps", &steps) != rank || kr_tensor_rank(y) != rank)
    return kr_op_emit_error(op, "'starts', 'ends', 'steps' and the result need one entry per axis of x (%u)", rank);
  const int64_t *xd = kr_tensor_dims(x), *yd = kr_tensor_dims(y);
  int64_t istride[KR_OP_MAX_RANK], sstride[KR_OP_MAX_RANK], base = 0;
  kr_dims_strides(xd, rank, istride);
  for (unsigned d = 0; d < rank; d++) {
    int64_t s = steps[d];
    if (s == 0) return kr_op_emit_error(op, "slice step on axis %u is 0", d);
    int64_t span = ends[d] - starts[d];
    int64_t count = s > 0 ? (span > 0 ? (span + s - 1) / s : 0) : (span < 0 ? (-span + (-s) - 1) / (-s) : 0);
    if (count != yd[d])
      return kr_op_emit_error(op, "slice gives %lld elements on axis %u but the result has %lld", (long long)count, d,
                              (long long)yd[d]);
    int64_t last = starts[d] + (count - 1) * s;
    if (count > 0 && (starts[d] < 0 || starts[d] >= xd[d] || last < 0 || last >= xd[d]))
      return kr_op_emit_error(op, "slice on axis %u reads outside [0, %lld)", d, (long long)xd[d]);
    base += starts[d] * istride[d];
    sstride[d] = s * istride[d];
  }
  if (y->numel == 0) return KR_SUCCESS;
  size_t eb = kr_layout_elem_bytes(x);
  kr_layout_strided_copy((const char *)x->data + base * (int64_t)eb, y->data, rank, yd, sstride, eb);
  return KR_SUCCESS;
}

/* Concat-13 (reads `axis` alike). */
kr_status kr_prim_eval_concat(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return kr_eval_concat(op, ins, outs);
}

/* ---------------------------------------------------------------------------------------------
 * pad: along each axis output index j reads p = j - low of the interior-dilated input: element
 * p / (interior + 1) when p is a multiple of interior + 1 inside the dilated extent, else the
 * padding value; edge and reflect (interior 0) map p outside [0, dim) to the border element or
 * its mirror image (numpy's "reflect", as kernels_layout.c's Pad). */

enum pad_mode { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE };

static int64_t pad_source(int64_t p, int64_t dim, int64_t interior, enum pad_mode m) {
  if (m == PAD_CONSTANT) {
    int64_t q = interior + 1;
    if (p < 0 || p % q) return -1;
    return p / q < dim ? p / q : -1;
  }
  if (p >= 0 && p < dim) return p;
  if (m == PAD_EDGE || dim == 1) return p < 0 ? 0 : dim - 1;
  int64_t period = 2 * (dim - 1);
  p %= period;
  if (p < 0) p += period;
  return p >= dim ? period - p : p;
}

kr_status kr_prim_eval_pad(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *x = ins[0], *value = op->num_operands > 1 ? ins[1] : NULL;
  kr_tensor *y = outs[0];
  unsigned rank = kr_tensor_rank(x);
  const int64_t *pads, *interior = NULL;
  if (kr_op_attr_ints(op, "pads", &pads) != 2 * rank || kr_tensor_rank(y) != rank)
    return kr_op_emit_error(op, "attribute 'pads' needs two entries per axis of x (%u)", rank);
  if (kr_op_attr_present(op, "interior") && kr_op_attr_ints(op, "interior", &interior) != rank)
    return kr_op_emit_error(op, "attribute 'interior' needs one entry per axis of x (%u)", rank);
  const char *ms = kr_op_attr_string(op, "mode");
  enum pad_mode m;
  if (!ms || !strcmp(ms, "constant")) m = PAD_CONSTANT;
  else if (!strcmp(ms, "edge")) m = PAD_EDGE;
  else if (!strcmp(ms, "reflect")) m = PAD_REFLECT;
  else return kr_op_emit_error(op, "attribute 'mode' must be constant, edge or reflect, got \"%s\"", ms);
  const int64_t *xd = kr_tensor_dims(x), *yd = kr_tensor_dims(y);
  int64_t total = 0;
  for (unsigned d = 0; d < rank; d++) {
    int64_t in = interior ? interior[d] : 0;
    if (in < 0) return kr_op_emit_error(op, "attribute 'interior' must not be negative");
    if (in && m != PAD_CONSTANT) return kr_op_emit_error(op, "interior padding needs mode constant");
    int64_t want = pads[d] + pads[rank + d] + xd[d] + (xd[d] > 0 ? (xd[d] - 1) * in : 0);
    if (yd[d] != want)
      return kr_op_emit_error(op, "result dim %lld on axis %u does not match the padding (%lld)", (long long)yd[d], d,
                              (long long)want);
    if (m != PAD_CONSTANT && xd[d] == 0 && y->numel > 0)
      return kr_op_emit_error(op, "%s padding of the empty axis %u", ms, d);
    total += yd[d];
  }
  size_t eb = kr_layout_elem_bytes(x);
  if (y->numel == 0) return KR_SUCCESS;
  if (rank == 0) {
    memcpy(y->data, x->data, eb);
    return KR_SUCCESS;
  }
  char fill[16] = {0};
  if (value && value->numel >= 1 && eb <= sizeof fill) memcpy(fill, value->data, eb);
  /* Source maps of every axis, concatenated. */
  int64_t *maps = malloc((size_t)total * sizeof *maps), *map[KR_OP_MAX_RANK];
  if (!maps) return kr_op_emit_error(op, "out of memory");
  int64_t at = 0;
  for (unsigned d = 0; d < rank; at += yd[d], d++) {
    map[d] = maps + at;
    for (int64_t j = 0; j < yd[d]; j++) map[d][j] = pad_source(j - pads[d], xd[d], interior ? interior[d] : 0, m);
  }
  /* The last axis: [lo, hi) reads one contiguous run when there is no interior padding. */
  unsigned l = rank - 1;
  int64_t olast = yd[l], low = pads[l], lo = 0, hi = 0;
  if (!interior || !interior[l]) {
    lo = low > 0 ? low : 0;
    hi = low + xd[l] < olast ? low + xd[l] : olast;
    if (hi < lo) hi = lo;
  }
  kr_layout_pad_rows(x, y, map, low, lo, hi, fill);
  free(maps);
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * gather (Gather-13 without negative indices): data viewed as [outer, dim, inner], indices
 * flattened to n; y[o, j, i] = data[o, indices[j], i]. */
kr_status kr_prim_eval_gather(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *data = ins[0], *ind = ins[1];
  unsigned rank = kr_tensor_rank(data);
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < 0 || axis >= (int64_t)rank)
    return kr_op_emit_error(op, "attribute 'axis' %lld is out of range [0, %u)", (long long)axis, rank);
  kr_type ie = kr_tensor_elem(ind);
  if (ie->kind != KR_TYPE_INTEGER && ie->kind != KR_TYPE_INDEX)
    return kr_op_emit_error(op, "operand 'indices' must hold integers");
  const int64_t *d = kr_tensor_dims(data);
  int64_t outer = 1, inner = 1, dim = d[axis], n = ind->numel;
  for (unsigned k = 0; k < (unsigned)axis; k++) outer *= d[k];
  for (unsigned k = (unsigned)axis + 1; k < rank; k++) inner *= d[k];
  if (outs[0]->numel != outer * n * inner)
    return kr_op_emit_error(op, "result has %lld elements, the gather gives %lld", (long long)outs[0]->numel,
                            (long long)(outer * n * inner));
  int64_t *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
  if (!idx) return kr_op_emit_error(op, "out of memory");
  bool uns = kr_type_is_unsigned_int(ie);
  for (int64_t j = 0; j < n; j++) {
    int64_t v = kr_tensor_get_i64(ind, j);
    if (uns ? (uint64_t)v >= (uint64_t)dim : v < 0 || v >= dim) {
      kr_status st = uns ? kr_op_emit_error(op, "index %llu is out of range [0, %lld) on axis %lld", (unsigned long long)v,
                                            (long long)dim, (long long)axis)
                         : kr_op_emit_error(op, "index %lld is out of range [0, %lld) on axis %lld", (long long)v,
                                            (long long)dim, (long long)axis);
      free(idx);
      return st;
    }
    idx[j] = v;
  }
  kr_layout_gather_blocks(outs[0]->data, data->data, outer, dim, idx, n, (size_t)inner * kr_layout_elem_bytes(data));
  free(idx);
  return KR_SUCCESS;
}
