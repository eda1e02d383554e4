/* backend/interp/kernels_layout.c - CPU reference kernels of the data-movement layout ops
 * (ONNX opset 17): Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, Pad,
 * Tile, DepthToSpace, SpaceToDepth.  Elements move as byte blocks of the element's storage size,
 * so every dtype shares one implementation; contiguous runs are copied with memcpy.  Indexing
 * ops are in kernels_layout_index.c, shape/constant generators in kernels_layout_gen.c, Resize in
 * kernels_layout_resize.c. */
#include <stdlib.h>
#include <string.h>

#include "backend/interp/kernels_layout.h"

/* ---------------------------------------------------------------------------------------------
 * Shared copy helpers. */

void kr_layout_strided_copy(const void *src, void *dst, unsigned rank, const int64_t *odims, const int64_t *sstride,
                            size_t eb) {
  int64_t d[KR_OP_MAX_RANK], s[KR_OP_MAX_RANK];
  unsigned n = 0;
  int64_t total = 1;
  for (unsigned k = 0; k < rank; k++) total *= odims[k];
  if (total == 0) return;
  for (unsigned k = 0; k < rank; k++) {
    if (odims[k] == 1) continue;
    /* Output axes are always contiguous with their successor; merge when the source is too. */
    if (n && s[n - 1] == sstride[k] * odims[k]) {
      d[n - 1] *= odims[k];
      s[n - 1] = sstride[k];
      continue;
    }
    d[n] = odims[k];
    s[n] = sstride[k];
    n++;
  }
  const char *sp = src;
  char *dp = dst;
  if (n == 0) {
    memcpy(dp, sp, eb);
    return;
  }
  int64_t inner = d[n - 1], istride = s[n - 1];
  int64_t idx[KR_OP_MAX_RANK] = {0};
  int64_t rows = total / inner;
  const char *row = sp;
  for (int64_t r = 0; r < rows; r++) {
    if (istride == 1) {
      memcpy(dp, row, (size_t)inner * eb);
      dp += (size_t)inner * eb;
    } else if (eb == 4) {
      const uint32_t *q = (const uint32_t *)(const void *)row;
      uint32_t *o = (uint32_t *)(void *)dp;
      for (int64_t i = 0; i < inner; i++) o[i] = q[i * istride];
      dp += (size_t)inner * 4;
    } else if (eb == 8) {
      const uint64_t *q = (const uint64_t *)(const void *)row;
      uint64_t *o = (uint64_t *)(void *)dp;
      for (int64_t i = 0; i < inner; i++) o[i] = q[i * istride];
      dp += (size_t)inner * 8;
    } else {
      for (int64_t i = 0; i < inner; i++, dp += eb) memcpy(dp, row + i * istride * (int64_t)eb, eb);
    }
    /* Odometer over the outer axes. */
    for (int k = (int)n - 2; k >= 0; k--) {
      row += s[k] * (int64_t)eb;
      if (++idx[k] < d[k]) break;
      row -= s[k] * d[k] * (int64_t)eb;
      idx[k] = 0;
    }
  }
}

void kr_layout_permute(const void *src, void *dst, const int64_t *dims, unsigned rank, const int64_t *perm, size_t eb) {
  int64_t istride[KR_OP_MAX_RANK], odims[KR_OP_MAX_RANK], sstride[KR_OP_MAX_RANK];
  kr_dims_strides(dims, rank, istride);
  for (unsigned k = 0; k < rank; k++) odims[k] = dims[perm[k]], sstride[k] = istride[perm[k]];
  kr_layout_strided_copy(src, dst, rank, odims, sstride, eb);
}

void kr_layout_gather_blocks(void *dst, const void *src, int64_t outer, int64_t dim, const int64_t *idx, int64_t n,
                             size_t chunk) {
  if (!chunk) return;
  char *dp = dst;
  const char *sp = src;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < n; j++, dp += chunk)
      memcpy(dp, sp + ((size_t)o * (size_t)dim + (size_t)idx[j]) * chunk, chunk);
}

int64_t kr_layout_read_ints(kr_op *op, const kr_tensor *t, int64_t *out, int64_t cap, const char *what) {
  if (!t) return 0;
  if (t->numel > cap) {
    kr_op_emit_error(op, "'%s' has %lld values, at most %lld supported", what, (long long)t->numel, (long long)cap);
    return -1;
  }
  for (int64_t i = 0; i < t->numel; i++) out[i] = kr_tensor_get_i64(t, i);
  return t->numel;
}

/* Same elements, new dims: Reshape, Flatten, Squeeze, Unsqueeze. */
static kr_status copy_all(kr_tensor *const *ins, kr_tensor *const *outs) {
  size_t n = ins[0]->nbytes < outs[0]->nbytes ? ins[0]->nbytes : outs[0]->nbytes;
  if (n) memcpy(outs[0]->data, ins[0]->data, n);
  return KR_SUCCESS;
}

kr_status kr_eval_reshape(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  /* A `shape` computed at run time may disagree with the declared result type: each entry must
   * give the result's dim (0 copies the input dim unless allowzero, -1 is inferred). */
  int64_t shape[KR_OP_MAX_RANK];
  unsigned rank = kr_tensor_rank(outs[0]);
  int64_t n = ins[1] && ins[1]->numel <= KR_OP_MAX_RANK ? kr_layout_read_ints(op, ins[1], shape, KR_OP_MAX_RANK, "shape") : -1;
  bool ok = n == (int64_t)rank && ins[0]->numel == outs[0]->numel;
  bool allowzero = kr_op_attr_int(op, "allowzero") != 0;
  for (int64_t i = 0; ok && i < n; i++) {
    int64_t v = shape[i];
    if (v == 0 && !allowzero) v = (unsigned)i < kr_tensor_rank(ins[0]) ? kr_tensor_dims(ins[0])[i] : -2;
    ok = v == -1 || v == kr_tensor_dims(outs[0])[i];
  }
  if (!ok) return kr_op_emit_error(op, "the 'shape' operand does not give the result type");
  return copy_all(ins, outs);
}

kr_status kr_eval_flatten(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)op;
  return copy_all(ins, outs);
}

kr_status kr_eval_squeeze(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)op;
  return copy_all(ins, outs);
}

kr_status kr_eval_unsqueeze(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)op;
  return copy_all(ins, outs);
}

/* ---------------------------------------------------------------------------------------------
 * Transpose-13, DepthToSpace-13, SpaceToDepth-13. */

kr_status kr_eval_transpose(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  int64_t perm[KR_OP_MAX_RANK];
  unsigned rank = kr_tensor_rank(ins[0]);
  if (kr_layout_transpose_perm(op, rank, perm)) return KR_FAILURE;
  kr_layout_permute(ins[0]->data, outs[0]->data, kr_tensor_dims(ins[0]), rank, perm, kr_layout_elem_bytes(ins[0]));
  return KR_SUCCESS;
}

/* Both ops are a reshape to 6-D, a permutation, and a reshape back (Operators.md gives them in
 * exactly this form). */
kr_status kr_eval_depth_to_space(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const int64_t *d = kr_tensor_dims(ins[0]);
  int64_t b = kr_op_attr_int(op, "blocksize"), c = d[1] / (b * b);
  bool crd = !strcmp(kr_op_attr_string(op, "mode"), "CRD");
  int64_t dcr_dims[6] = {d[0], b, b, c, d[2], d[3]}, dcr_perm[6] = {0, 3, 4, 1, 5, 2};
  int64_t crd_dims[6] = {d[0], c, b, b, d[2], d[3]}, crd_perm[6] = {0, 1, 4, 2, 5, 3};
  kr_layout_permute(ins[0]->data, outs[0]->data, crd ? crd_dims : dcr_dims, 6, crd ? crd_perm : dcr_perm,
                    kr_layout_elem_bytes(ins[0]));
  return KR_SUCCESS;
}

kr_status kr_eval_space_to_depth(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const int64_t *d = kr_tensor_dims(ins[0]);
  int64_t b = kr_op_attr_int(op, "blocksize");
  int64_t dims[6] = {d[0], d[1], d[2] / b, b, d[3] / b, b}, perm[6] = {0, 3, 5, 1, 2, 4};
  kr_layout_permute(ins[0]->data, outs[0]->data, dims, 6, perm, kr_layout_elem_bytes(ins[0]));
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Concat-13, Split-13: the tensors as [outer, axis * inner] rows, joined or cut row by row. */

static int64_t prod_range(const int64_t *d, unsigned from, unsigned to) {
  int64_t p = 1;
  for (unsigned i = from; i < to; i++) p *= d[i];
  return p;
}

kr_status kr_eval_concat(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  kr_tensor *out = outs[0];
  unsigned rank = kr_tensor_rank(out);
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < 0) axis += rank;
  int64_t outer = prod_range(kr_tensor_dims(out), 0, (unsigned)axis);
  size_t eb = kr_layout_elem_bytes(out);
  char *dp = out->data;
  for (int64_t o = 0; o < outer; o++)
    for (unsigned i = 0; i < op->num_operands; i++) {
      size_t chunk = (size_t)prod_range(kr_tensor_dims(ins[i]), (unsigned)axis, rank) * eb;
      if (!chunk) continue;
      memcpy(dp, (const char *)ins[i]->data + (size_t)o * chunk, chunk);
      dp += chunk;
    }
  return KR_SUCCESS;
}

kr_status kr_eval_split(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *in = ins[0];
  unsigned rank = kr_tensor_rank(in);
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < 0) axis += rank;
  int64_t outer = prod_range(kr_tensor_dims(in), 0, (unsigned)axis);
  size_t eb = kr_layout_elem_bytes(in);
  const char *sp = in->data;
  for (int64_t o = 0; o < outer; o++)
    for (unsigned i = 0; i < op->num_results; i++) {
      size_t chunk = (size_t)prod_range(kr_tensor_dims(outs[i]), (unsigned)axis, rank) * eb;
      if (!chunk) continue;
      memcpy((char *)outs[i]->data + (size_t)o * chunk, sp, chunk);
      sp += chunk;
    }
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Slice-13. */

kr_status kr_eval_slice(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *in = ins[0];
  unsigned rank = kr_tensor_rank(in);
  int64_t starts[2 * KR_OP_MAX_RANK], ends[2 * KR_OP_MAX_RANK], axes[2 * KR_OP_MAX_RANK], steps[2 * KR_OP_MAX_RANK];
  int64_t n = kr_layout_read_ints(op, ins[1], starts, 2 * KR_OP_MAX_RANK, "starts");
  const kr_tensor *ta = op->num_operands > 3 ? ins[3] : NULL, *ts = op->num_operands > 4 ? ins[4] : NULL;
  if (n < 0) return KR_FAILURE;
  if (ins[2]->numel != n || (ta && ta->numel != n) || (ts && ts->numel != n))
    return kr_op_emit_error(op, "'starts', 'ends', 'axes' and 'steps' must have the same length");
  kr_layout_read_ints(op, ins[2], ends, n, "ends");
  if (ta) kr_layout_read_ints(op, ta, axes, n, "axes");
  if (ts) kr_layout_read_ints(op, ts, steps, n, "steps");
  int64_t start[KR_OP_MAX_RANK], step[KR_OP_MAX_RANK], count[KR_OP_MAX_RANK], istride[KR_OP_MAX_RANK];
  if (kr_slice_resolve(op, kr_tensor_dims(in), rank, starts, ends, n, ta ? axes : NULL, ts ? steps : NULL, start,
                       step, count))
    return KR_FAILURE;
  /* starts/ends/axes/steps computed at run time may disagree with the declared result type. */
  for (unsigned d = 0; d < rank; d++)
    if (count[d] != kr_tensor_dims(outs[0])[d])
      return kr_op_emit_error(op, "Slice gives %lld elements on axis %u but the result has %lld", (long long)count[d],
                              d, (long long)kr_tensor_dims(outs[0])[d]);
  if (outs[0]->numel == 0) return KR_SUCCESS;
  kr_dims_strides(kr_tensor_dims(in), rank, istride);
  size_t eb = kr_layout_elem_bytes(in);
  int64_t base = 0, sstride[KR_OP_MAX_RANK];
  for (unsigned d = 0; d < rank; d++) {
    base += start[d] * istride[d];
    sstride[d] = step[d] * istride[d];
  }
  kr_layout_strided_copy((const char *)in->data + base * (int64_t)eb, outs[0]->data, rank, count, sstride, eb);
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Pad-13: output index o of an axis reads input o - begin; outside [0, dim) the mode decides
 * (constant: the value; edge: the nearest border element; reflect: mirrored about the border
 * element without repeating it, numpy's "reflect"). */

enum pad_mode { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE };

/* The source index along an axis of size `dim`, or -1 for the constant. */
static int64_t pad_source(int64_t i, int64_t dim, enum pad_mode m) {
  if (i >= 0 && i < dim) return i;
  if (m == PAD_CONSTANT) return -1;
  if (m == PAD_EDGE || dim == 1) return i < 0 ? 0 : dim - 1;
  int64_t p = 2 * (dim - 1);
  i %= p;
  if (i < 0) i += p;
  return i >= dim ? p - i : i;
}

kr_status kr_eval_pad(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *in = ins[0];
  kr_tensor *out = outs[0];
  unsigned rank = kr_tensor_rank(in);
  const int64_t *idims = kr_tensor_dims(in), *odims = kr_tensor_dims(out);
  int64_t pads[2 * KR_OP_MAX_RANK];
  int64_t np = kr_layout_read_ints(op, ins[1], pads, 2 * KR_OP_MAX_RANK, "pads");
  if (np < 0 || kr_pad_check(op, idims, rank, pads, np)) return KR_FAILURE;
  const char *ms = kr_op_attr_string(op, "mode");
  enum pad_mode m = !strcmp(ms, "reflect") ? PAD_REFLECT : !strcmp(ms, "edge") ? PAD_EDGE : PAD_CONSTANT;
  size_t eb = kr_layout_elem_bytes(in);
  char value[16] = {0};
  const kr_tensor *cv = op->num_operands > 2 ? ins[2] : NULL;
  if (cv && cv->numel >= 1 && eb <= sizeof value) memcpy(value, cv->data, eb);
  if (out->numel == 0) return KR_SUCCESS;
  if (rank == 0) {
    memcpy(out->data, in->data, eb);
    return KR_SUCCESS;
  }
  /* Source maps of every axis, concatenated; on the last axis the run [lo, hi) is copied with
   * one memcpy. */
  int64_t total = 0;
  for (unsigned d = 0; d < rank; d++) total += odims[d];
  int64_t *maps = malloc((size_t)total * sizeof *maps), *map[KR_OP_MAX_RANK];
  if (!maps) return kr_op_emit_error(op, "out of memory");
  int64_t at = 0;
  for (unsigned d = 0; d < rank; at += odims[d], d++) {
    map[d] = maps + at;
    for (int64_t j = 0; j < odims[d]; j++) map[d][j] = pad_source(j - pads[d], idims[d], m);
  }
  int64_t olast = odims[rank - 1], ilast = idims[rank - 1], b = pads[rank - 1];
  int64_t lo = b > 0 ? b : 0, hi = b + ilast < olast ? b + ilast : olast;
  if (hi < lo) hi = lo;
  kr_layout_pad_rows(in, out, map, b, lo, hi, value);
  free(maps);
  return KR_SUCCESS;
}

void kr_layout_pad_rows(const kr_tensor *x, kr_tensor *y, int64_t *const *map, int64_t low, int64_t lo, int64_t hi,
                        const char *fill) {
  unsigned rank = kr_tensor_rank(x), l = rank - 1;
  size_t eb = kr_layout_elem_bytes(x);
  const int64_t *xd = kr_tensor_dims(x), *yd = kr_tensor_dims(y);
  bool fill_zero = true;
  for (size_t k = 0; k < eb; k++) fill_zero &= fill[k] == 0;
  int64_t olast = yd[l];
  int64_t istride[KR_OP_MAX_RANK], idx[KR_OP_MAX_RANK] = {0};
  kr_dims_strides(xd, rank, istride);
  int64_t rows = y->numel / olast;
  char *dp = y->data;
  const char *sp = x->data;
  for (int64_t r = 0; r < rows; r++, dp += (size_t)olast * eb) {
    int64_t off = 0;
    bool constant_row = false;
    for (unsigned d = 0; d < l && !constant_row; d++) {
      int64_t s = map[d][idx[d]];
      if (s < 0) constant_row = true;
      off += s * istride[d];
    }
    if (constant_row) {
      if (!fill_zero)
        for (int64_t j = 0; j < olast; j++) memcpy(dp + j * eb, fill, eb);
    } else {
      const char *row = sp + off * (int64_t)eb;
      const int64_t *ml = map[l];
      for (int64_t j = 0; j < lo; j++) memcpy(dp + j * eb, ml[j] < 0 ? fill : row + ml[j] * (int64_t)eb, eb);
      if (hi > lo) memcpy(dp + lo * eb, row + (lo - low) * (int64_t)eb, (size_t)(hi - lo) * eb);
      for (int64_t j = hi; j < olast; j++) memcpy(dp + j * eb, ml[j] < 0 ? fill : row + ml[j] * (int64_t)eb, eb);
    }
    for (unsigned d = l; d-- > 0;) {
      if (++idx[d] < yd[d]) break;
      idx[d] = 0;
    }
  }
}

/* ---------------------------------------------------------------------------------------------
 * Tile-13: output index o of an axis reads input o % dim; each output row is the input row
 * repeated. */

kr_status kr_eval_tile(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)op;
  const kr_tensor *in = ins[0];
  kr_tensor *out = outs[0];
  unsigned rank = kr_tensor_rank(in);
  size_t eb = kr_layout_elem_bytes(in);
  if (out->numel == 0) return KR_SUCCESS;
  if (rank == 0) {
    memcpy(out->data, in->data, eb);
    return KR_SUCCESS;
  }
  const int64_t *idims = kr_tensor_dims(in), *odims = kr_tensor_dims(out);
  int64_t istride[KR_OP_MAX_RANK], idx[KR_OP_MAX_RANK] = {0};
  kr_dims_strides(idims, rank, istride);
  int64_t olast = odims[rank - 1], ilast = idims[rank - 1];
  size_t run = (size_t)ilast * eb;
  int64_t rows = out->numel / olast;
  char *dp = out->data;
  for (int64_t r = 0; r < rows; r++) {
    int64_t off = 0;
    for (unsigned d = 0; d + 1 < rank; d++) off += (idx[d] % idims[d]) * istride[d];
    const char *row = (const char *)in->data + off * (int64_t)eb;
    for (int64_t j = 0; j < olast; j += ilast, dp += run) memcpy(dp, row, run);
    for (int d = (int)rank - 2; d >= 0; d--) {
      if (++idx[d] < odims[d]) break;
      idx[d] = 0;
    }
  }
  return KR_SUCCESS;
}
