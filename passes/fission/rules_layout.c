/* passes/fission/rules_layout.c - fission rules of the layout family of dialects/op/ops.def
 * (ONNX opset 17; Korch, ASPLOS'24, §3 "operator fission"): every op that moves, selects or
 * generates elements is split into layout primitives (reshape, transpose, slice, concat, pad,
 * broadcast, gather) plus the little index arithmetic the indexing ops need (iota, cmp, select,
 * add, mul).  Resize is in rules_resize.c.
 *
 * Each rule reproduces the op-level reference kernel (backend/interp/kernels_layout*.c) exactly:
 * the pure data movements are dtype-agnostic; the index rules of Slice, Split, Shape, Range,
 * OneHot and Transpose come from the same helpers as the op-level shape rules
 * (dialects/op/shape_layout.h), so the primitives agree with the op's declared result type.
 * Shape operands (`#` in ops.def) are constants here (kr_op_constant_ints/floats).  Negative
 * indices are normalised: at compile time for constant Gather indices, otherwise with
 * select(idx < 0, idx + dim, idx); an index still out of range is a run-time error of
 * prim.gather (GatherElements and GatherND linearise their indices first and turn a flat index
 * whose per-axis index is out of range into -1, see there). */
#include <stdlib.h>
#include <string.h>

#include "dialects/op/shape_layout.h"
#include "passes/fission/fission.h"

/* ---------------------------------------------------------------------------------------------
 * Helpers. */

/* Marks f failed after a helper of the op level reported the error at the op. */
static kr_status reported(kr_fission *f) {
  f->failed = true;
  return KR_FAILURE;
}

static kr_type result_type(kr_fission *f, unsigned i) { return kr_value_type(kr_op_result(f->op, i)); }

/* Operand i, which the schema requires. */
static kr_value input(kr_fission *f, unsigned i) {
  kr_value v = fx_operand(f, i);
  if (!v) fx_fail(f, "operand #%u is missing", i);
  return v;
}

/* x reshaped to the static shape of the op's result i (x itself when it already has it). */
static kr_value to_result_shape(kr_fission *f, kr_value x, unsigned i) {
  kr_type t = result_type(f, i);
  return fx_reshape(f, x, t->u.shaped.dims, t->u.shaped.rank);
}

/* A constant of type t whose every element is v (zero-element types included). */
static kr_value splat_of(kr_fission *f, kr_type t, double v) {
  return fx_splat(f, kr_type_element(t), v, t->u.shaped.dims, t->u.shaped.rank);
}

/* When every result of the op has no element, sets each to the empty constant of its type and
 * returns true: nothing is read, so no index arithmetic is needed. */
static bool empty_results(kr_fission *f, kr_value *results) {
  for (unsigned i = 0; i < f->op->num_results; i++)
    if (kr_type_num_elements(result_type(f, i)) != 0) return false;
  for (unsigned i = 0; i < f->op->num_results; i++) results[i] = splat_of(f, result_type(f, i), 0);
  return true;
}

/* idx + dim where idx < 0, else idx (ONNX's negative indices).  `dim` has idx's element type
 * and broadcasts against idx; unsigned indices are returned unchanged. */
static kr_value normalize_index(kr_fission *f, kr_value idx, kr_value dim) {
  if (f->failed || !idx || !dim) return NULL;
  if (kr_type_is_unsigned_int(fx_elem(idx))) return idx;
  kr_value negative = fx_cmp(f, "lt", idx, fx_splat_like(f, idx, 0));
  return fx_select(f, negative, fx_binary(f, "prim.add", idx, dim), idx);
}

/* i1 of idx's shape: whether idx (i64, negative ones already normalised) lies outside [0, dim),
 * i.e. (idx < 0) or (idx >= dim); `dim` is i64 and broadcasts against idx. */
static kr_value outside(kr_fission *f, kr_value idx, kr_value dim) {
  if (f->failed || !idx || !dim) return NULL;
  kr_value below = fx_cmp(f, "lt", idx, fx_splat_like(f, idx, 0));
  return fx_binary(f, "prim.or", below, fx_cmp(f, "ge", idx, dim));
}

/* select(bad, -1, flat): a flat index that prim.gather rejects at run time wherever `bad` (i1 of
 * flat's shape) holds, so that an index out of range on one axis cannot wrap into another
 * element of the flattened data. */
static kr_value poison_index(kr_fission *f, kr_value bad, kr_value flat) {
  if (f->failed || !bad || !flat) return NULL;
  return fx_select(f, bad, fx_splat_like(f, flat, -1), flat);
}

/* a (name) c, with c as a splat constant of a's type (|c| < 2^53: exact). */
static kr_value binary_int(kr_fission *f, const char *name, kr_value a, int64_t c) {
  return fx_binary(f, name, a, fx_splat_like(f, a, (double)c));
}

/* A rank-0 i64 constant holding v exactly. */
static kr_value i64_scalar(kr_fission *f, int64_t v) { return fx_const_i64(f, fx_i64(f), &v, NULL, 0); }

/* x (one element) as a rank-0 tensor. */
static kr_value to_scalar(kr_fission *f, kr_value x) { return fx_reshape(f, x, NULL, 0); }

static int64_t prod(const int64_t *d, unsigned from, unsigned to) {
  int64_t p = 1;
  for (unsigned i = from; i < to; i++) p *= d[i];
  return p;
}

/* ---------------------------------------------------------------------------------------------
 * Reshape-14, Flatten-13, Squeeze-13, Unsqueeze-13: the op's static result type already resolves
 * Reshape's 0 (copy, unless allowzero) and -1 entries and the axes, so each is one prim.reshape
 * to the result shape (none when the shape does not change). */

#define RESHAPE_LIKE(stem)                                                                     \
  kr_status kr_fission_##stem(kr_fission *f, kr_op *op, kr_value *results) {                  \
    (void)op;                                                                                  \
    results[0] = to_result_shape(f, input(f, 0), 0);                                           \
    return fx_status(f);                                                                       \
  }

RESHAPE_LIKE(reshape)
RESHAPE_LIKE(flatten)
RESHAPE_LIKE(squeeze)
RESHAPE_LIKE(unsqueeze)

/* Transpose-13: prim.transpose with `perm`, or the reversed axes when it is absent. */
kr_status kr_fission_transpose(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = input(f, 0);
  int64_t perm[KR_OP_MAX_RANK];
  if (!x) return fx_status(f);
  if (kr_layout_transpose_perm(op, fx_rank(x), perm)) return reported(f);
  results[0] = fx_transpose(f, x, perm);
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * Concat-13 and Split-13. */

/* Concat-13: prim.concat along the normalised axis. */
kr_status kr_fission_concat(kr_fission *f, kr_op *op, kr_value *results) {
  unsigned n = op->num_operands;
  int64_t axis;
  if (!n) return fx_fail(f, "expects at least one operand"), KR_FAILURE;
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), result_type(f, 0)->u.shaped.rank,
                           &axis))
    return reported(f);
  kr_value *xs = malloc(n * sizeof *xs);
  if (!xs) return fx_fail(f, "out of memory"), KR_FAILURE;
  for (unsigned i = 0; i < n; i++) xs[i] = kr_op_operand(op, i);
  results[0] = fx_concat(f, xs, n, axis);
  free(xs);
  return fx_status(f);
}

/* Split-13: result i is the sub-range of the axis after results 0..i-1.  The sizes are the
 * results' dims along the axis (the `split` operand, or the op's equal parts), exactly as the
 * kernel cuts the rows. */
kr_status kr_fission_split(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = input(f, 0);
  int64_t axis, at = 0;
  if (!x) return fx_status(f);
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), fx_rank(x), &axis))
    return reported(f);
  for (unsigned i = 0; i < op->num_results; i++) {
    int64_t size = result_type(f, i)->u.shaped.dims[axis];
    results[i] = fx_slice_axis(f, x, (unsigned)axis, at, at + size);
    at += size;
  }
  if (!f->failed && at != fx_dims(x)[axis])
    fx_fail(f, "the results cover %lld of the %lld elements of axis %lld", (long long)at, (long long)fx_dims(x)[axis],
            (long long)axis);
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * Slice-13: starts/ends/axes/steps resolved by kr_slice_resolve (the op-level shape rule:
 * negative values count from the end, then clamp per the sign of the step) into per-axis start,
 * step and count, then written in prim.slice's clamped form: end just past the last element
 * read, start + (count - 1) * step + sign(step), so -1 <= end <= dim. */
kr_status kr_fission_slice(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = input(f, 0);
  if (!x) return fx_status(f);
  unsigned rank = fx_rank(x);
  int64_t starts[2 * KR_OP_MAX_RANK], ends[2 * KR_OP_MAX_RANK], axes[2 * KR_OP_MAX_RANK], steps[2 * KR_OP_MAX_RANK];
  int64_t n = kr_op_constant_ints(op, 1, starts, 2 * KR_OP_MAX_RANK);
  if (n < 0) return reported(f);
  int64_t ne = kr_op_constant_ints(op, 2, ends, 2 * KR_OP_MAX_RANK);
  bool has_axes = kr_op_operand_present(op, 3), has_steps = kr_op_operand_present(op, 4);
  int64_t na = has_axes ? kr_op_constant_ints(op, 3, axes, 2 * KR_OP_MAX_RANK) : n;
  int64_t ns = has_steps ? kr_op_constant_ints(op, 4, steps, 2 * KR_OP_MAX_RANK) : n;
  if (ne < 0 || na < 0 || ns < 0) return reported(f);
  if (ne != n || na != n || ns != n)
    return fx_fail(f, "'starts', 'ends', 'axes' and 'steps' must have the same length"), KR_FAILURE;
  int64_t start[KR_OP_MAX_RANK], step[KR_OP_MAX_RANK], count[KR_OP_MAX_RANK];
  if (kr_slice_resolve(op, fx_dims(x), rank, starts, ends, n, has_axes ? axes : NULL, has_steps ? steps : NULL, start,
                       step, count))
    return reported(f);
  int64_t s[KR_OP_MAX_RANK], e[KR_OP_MAX_RANK], st[KR_OP_MAX_RANK];
  for (unsigned d = 0; d < rank; d++) {
    if (count[d] == 0) { /* nothing read: the empty range [0, 0) */
      s[d] = e[d] = 0;
      st[d] = 1;
      continue;
    }
    /* (count - 1) * |step| < dim: no overflow. */
    s[d] = start[d];
    st[d] = step[d];
    e[d] = start[d] + (count[d] - 1) * step[d] + (step[d] > 0 ? 1 : -1);
  }
  results[0] = fx_slice(f, x, s, e, st);
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * Pad-13. */

/* Reflect padding as kernels_layout.c computes it for any pads: output index j of an axis reads
 * the input at j - low mirrored about the borders, periodically (period 2 * (dim - 1)); a size-1
 * axis repeats its element.  prim.pad's reflect mode needs positive pads below the axis size, so
 * larger pads are applied in steps of at most dim - 1 (the periodic extension is symmetric about
 * every multiple of dim - 1, so each step reflects about a border of the same extension), size-1
 * axes are edge-padded, and negative pads crop with a slice at the end. */
static kr_value pad_reflect(kr_fission *f, kr_value x, const int64_t *pads) {
  unsigned r = fx_rank(x);
  int64_t dims[KR_OP_MAX_RANK];
  bool simple = true;
  if (r) memcpy(dims, fx_dims(x), r * sizeof *dims);
  for (unsigned i = 0; i < 2 * r; i++)
    if (pads[i] > 0 && pads[i] >= dims[i % r]) simple = false;
  if (simple) return fx_pad(f, x, pads, NULL, "reflect", NULL);
  int64_t edge[2 * KR_OP_MAX_RANK], rem[2 * KR_OP_MAX_RANK], step[2 * KR_OP_MAX_RANK];
  bool more = false;
  for (unsigned i = 0; i < 2 * r; i++) {
    int64_t p = pads[i] > 0 ? pads[i] : 0;
    edge[i] = dims[i % r] == 1 ? p : 0;
    rem[i] = dims[i % r] == 1 ? 0 : p;
    more |= rem[i] > 0;
  }
  x = fx_pad(f, x, edge, NULL, "edge", NULL);
  while (more && !f->failed) {
    more = false;
    for (unsigned i = 0; i < 2 * r; i++) {
      step[i] = rem[i] < dims[i % r] - 1 ? rem[i] : dims[i % r] - 1;
      rem[i] -= step[i];
      more |= rem[i] > 0;
    }
    x = fx_pad(f, x, step, NULL, "reflect", NULL);
  }
  if (!x) return NULL;
  int64_t s[KR_OP_MAX_RANK], e[KR_OP_MAX_RANK], st[KR_OP_MAX_RANK];
  for (unsigned d = 0; d < r; d++) {
    s[d] = pads[d] < 0 ? -pads[d] : 0;
    e[d] = fx_dims(x)[d] - (pads[r + d] < 0 ? -pads[r + d] : 0);
    st[d] = 1;
  }
  return fx_slice(f, x, s, e, st);
}

/* Pad-13: one prim.pad with the `pads` operand (negative entries crop), the mode, and in
 * constant mode the `constant_value` operand as a rank-0 value (absent or empty: 0). */
kr_status kr_fission_pad(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = input(f, 0);
  if (!x) return fx_status(f);
  int64_t pads[2 * KR_OP_MAX_RANK];
  int64_t n = kr_op_constant_ints(op, 1, pads, 2 * KR_OP_MAX_RANK);
  if (n < 0 || kr_pad_check(op, fx_dims(x), fx_rank(x), pads, n)) return reported(f);
  const char *mode = kr_op_attr_string(op, "mode");
  if (!strcmp(mode, "reflect")) {
    results[0] = pad_reflect(f, x, pads);
  } else if (!strcmp(mode, "edge")) {
    results[0] = fx_pad(f, x, pads, NULL, "edge", NULL);
  } else if (!strcmp(mode, "constant")) {
    kr_value value = fx_operand(f, 2);
    value = value && fx_numel(value) >= 1 ? to_scalar(f, value) : NULL;
    results[0] = fx_pad(f, x, pads, NULL, "constant", value);
  } else {
    return fx_fail(f, "unsupported mode \"%s\" (Pad-13: constant, reflect or edge)", mode), KR_FAILURE;
  }
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * Tile-13: x [.., a, ..] reshaped to [.., 1, a, ..] (a new unit axis before each repeated axis),
 * broadcast to [.., r, a, ..], reshaped to [.., r*a, ..]: output index o of an axis reads
 * o % a.  When the extra axes would exceed the rank limit, each repeated axis is tiled in turn
 * on x viewed as [outer, 1, a, inner]. */
kr_status kr_fission_tile(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = input(f, 0);
  if (!x) return fx_status(f);
  unsigned rank = fx_rank(x), nrep = 0;
  int64_t rep[2 * KR_OP_MAX_RANK];
  int64_t n = kr_op_constant_ints(op, 1, rep, 2 * KR_OP_MAX_RANK);
  if (n < 0) return reported(f);
  if (n != (int64_t)rank) return fx_fail(f, "'repeats' has %lld values for rank %u", (long long)n, rank), KR_FAILURE;
  for (unsigned d = 0; d < rank; d++) nrep += rep[d] != 1;
  if (rank + nrep <= KR_OP_MAX_RANK) {
    int64_t unit[KR_OP_MAX_RANK], wide[KR_OP_MAX_RANK];
    unsigned k = 0;
    for (unsigned d = 0; d < rank; d++) {
      if (rep[d] != 1) unit[k] = 1, wide[k++] = rep[d];
      unit[k] = wide[k] = fx_dims(x)[d];
      k++;
    }
    x = fx_broadcast(f, fx_reshape(f, x, unit, k), wide, k);
  } else {
    for (unsigned d = 0; d < rank && !f->failed; d++) {
      if (rep[d] == 1) continue;
      const int64_t *c = fx_dims(x);
      int64_t outer = prod(c, 0, d), inner = prod(c, d + 1, rank), a = c[d], next[KR_OP_MAX_RANK];
      int64_t unit[4] = {outer, 1, a, inner}, wide[4] = {outer, rep[d], a, inner};
      memcpy(next, c, rank * sizeof *next);
      next[d] = a * rep[d];
      x = fx_reshape(f, fx_broadcast(f, fx_reshape(f, x, unit, 4), wide, 4), next, rank);
    }
  }
  results[0] = to_result_shape(f, x, 0);
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * Gather-13, GatherElements-13, GatherND-13. */

/* Gather-13: prim.gather along the normalised axis.  Constant indices are normalised now
 * (negative ones in [-dim, 0) plus dim; anything else is left for prim.gather to reject at run
 * time, as the op's kernel does); run-time ones with select(idx < 0, idx + dim, idx). */
kr_status kr_fission_gather(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value data = input(f, 0), idx = input(f, 1);
  int64_t axis;
  if (!data || !idx) return fx_status(f);
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), fx_rank(data), &axis))
    return reported(f);
  int64_t dim = fx_dims(data)[axis];
  kr_attr c = kr_op_constant_operand(op, 1);
  if (empty_results(f, results)) return fx_status(f);
  if (c && !kr_type_is_unsigned_int(fx_elem(idx))) {
    kr_tensor t = {0};
    if (kr_tensor_from_attr(&t, c)) return fx_fail(f, "cannot read the constant indices"), KR_FAILURE;
    int64_t *v = malloc((size_t)(t.numel ? t.numel : 1) * sizeof *v);
    bool negative = false;
    if (!v) {
      kr_tensor_free(&t);
      return fx_fail(f, "out of memory"), KR_FAILURE;
    }
    for (int64_t i = 0; i < t.numel; i++) {
      v[i] = kr_tensor_get_i64(&t, i);
      if (v[i] < 0 && v[i] >= -dim) v[i] += dim, negative = true;
    }
    if (negative) idx = fx_const_i64(f, fx_elem(idx), v, fx_dims(idx), fx_rank(idx));
    free(v);
    kr_tensor_free(&t);
  } else {
    idx = normalize_index(f, idx, fx_splat_like(f, idx, (double)dim));
  }
  results[0] = fx_gather(f, data, idx, axis);
  return fx_status(f);
}

/* GatherElements-13: out[i] = data[i with i_axis replaced by indices[i]].  The flat offset
 * sum_k (k == axis ? idx : iota_k) * stride_k (data's row-major strides, iota_k the position
 * along axis k of the indices' shape) is computed in i64 on the indices' shape, and one
 * prim.gather along axis 0 of the flattened data reads it.  Negative indices are normalised
 * first; where the (normalised) index is still outside [0, dim) the flat offset is replaced by
 * -1 (select), so prim.gather reports the run-time error the op's kernel reports, though its
 * message names the flat index -1 on the flattened data rather than the index and its range.
 * Rank 1 needs no check: the flat offset is the index itself. */
kr_status kr_fission_gather_elements(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value data = input(f, 0), ind = input(f, 1);
  int64_t axis;
  if (!data || !ind) return fx_status(f);
  unsigned rank = fx_rank(data);
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), rank, &axis)) return reported(f);
  if (empty_results(f, results)) return fx_status(f);
  const int64_t *dims = fx_dims(data), *idims = fx_dims(ind);
  int64_t stride[KR_OP_MAX_RANK];
  kr_dims_strides(dims, rank, stride);
  kr_type i64 = fx_i64(f);
  kr_value idx = fx_cast(f, ind, i64);
  kr_value dim = idx ? fx_splat_like(f, idx, (double)dims[axis]) : NULL;
  if (!kr_type_is_unsigned_int(fx_elem(ind))) idx = normalize_index(f, idx, dim);
  kr_value lin = stride[axis] == 1 ? idx : binary_int(f, "prim.mul", idx, stride[axis]);
  for (unsigned k = 0; k < rank; k++) {
    if (k == axis || idims[k] == 1) continue; /* a size-1 axis contributes position 0 */
    kr_value pos = fx_iota(f, idims, rank, k, i64);
    if (stride[k] != 1) pos = binary_int(f, "prim.mul", pos, stride[k]);
    lin = fx_binary(f, "prim.add", lin, pos);
  }
  /* ui64 indices >= 2^63 are negative in i64: outside() catches them too. */
  if (rank > 1) lin = poison_index(f, outside(f, idx, dim), lin);
  int64_t numel = fx_numel(data);
  results[0] = fx_gather(f, fx_reshape(f, data, &numel, 1), lin, 0);
  return fx_status(f);
}

/* GatherND-13 with b = batch_dims and k = the last dim of indices: data is viewed as
 * [B * P, rest...] (B = prod(dims[:b]), P = prod(dims[b:b+k])) and each index tuple becomes the
 * flat row  batch_position * P + sum_q idx[.., q] * prod(dims[b+q+1:b+k])  (idx normalised per
 * axis, batch_position the row-major index of the tuple's leading b positions, from iota), on
 * indices.shape[:-1]; one prim.gather along axis 0 reads the rows: y = indices.shape[:-1] ++
 * rest.  A tuple with some (normalised) idx[.., q] outside [0, dims[b+q]) gets the flat row -1
 * (select on the tuple's "any outside": prim.cmp, prim.or, then, for k > 1, reduce_max of it as
 * i64 over the tuple), so prim.gather reports the run-time error the op's kernel reports instead of reading
 * a neighbouring row; its message names the flat row -1 on the flattened view, not the index.
 * With k = 1 and b = 0 the flat row is the index itself and prim.gather checks it directly. */
kr_status kr_fission_gather_nd(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value data = input(f, 0), ind = input(f, 1);
  if (!data || !ind) return fx_status(f);
  if (empty_results(f, results)) return fx_status(f);
  unsigned rank = fx_rank(data), q = fx_rank(ind);
  const int64_t *dims = fx_dims(data), *idims = fx_dims(ind);
  int64_t b = kr_op_attr_int(op, "batch_dims"), k = idims[q - 1];
  if (b < 0 || k < 1 || b + k > (int64_t)rank || b >= (int64_t)q)
    return fx_fail(f, "batch_dims %lld and index tuples of %lld do not fit data of rank %u", (long long)b, (long long)k,
                   rank),
           KR_FAILURE;
  int64_t dimv[KR_OP_MAX_RANK], sv[KR_OP_MAX_RANK], kk = k;
  int64_t P = prod(dims, (unsigned)b, (unsigned)(b + k));
  for (int64_t j = 0; j < k; j++) {
    dimv[j] = dims[b + j];
    sv[j] = prod(dims, (unsigned)(b + j + 1), (unsigned)(b + k));
  }
  kr_type i64 = fx_i64(f);
  kr_value idx = fx_cast(f, ind, i64);
  kr_value dimc = fx_const_i64(f, i64, dimv, &kk, 1);
  if (!kr_type_is_unsigned_int(fx_elem(ind))) idx = normalize_index(f, idx, dimc);
  kr_value bad = NULL;
  if (k == 1 && b > 0) {
    bad = fx_reshape(f, outside(f, idx, dimc), idims, q - 1);
  } else if (k > 1) {
    int64_t last = q - 1;
    kr_value any = fx_reduce(f, "prim.reduce_max", fx_cast(f, outside(f, idx, dimc), i64), &last, 1, false);
    bad = any ? fx_cmp(f, "ne", any, fx_splat_like(f, any, 0)) : NULL;
  }
  kr_value lin;
  if (k == 1) {
    lin = fx_reshape(f, idx, idims, q - 1);
  } else {
    lin = fx_binary(f, "prim.mul", idx, fx_const_i64(f, i64, sv, &kk, 1));
    int64_t last = q - 1;
    lin = fx_reduce(f, "prim.reduce_sum", lin, &last, 1, false);
  }
  for (int64_t j = 0; j < b; j++) {
    if (idims[j] == 1) continue;
    kr_value pos = fx_iota(f, idims, q - 1, j, i64);
    int64_t s = prod(dims, (unsigned)j + 1, (unsigned)b) * P;
    if (s != 1) pos = binary_int(f, "prim.mul", pos, s);
    lin = fx_binary(f, "prim.add", lin, pos);
  }
  if (bad) lin = poison_index(f, bad, lin);
  int64_t view[KR_OP_MAX_RANK];
  unsigned vr = 0;
  view[vr++] = prod(dims, 0, (unsigned)b) * P;
  for (unsigned d = (unsigned)(b + k); d < rank; d++) view[vr++] = dims[d];
  results[0] = fx_gather(f, fx_reshape(f, data, view, vr), lin, 0);
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * DepthToSpace-13, SpaceToDepth-13: reshape to 6-D, transpose, reshape back (the forms of
 * ONNX's Operators.md, as the kernels compute them). */

kr_status kr_fission_depth_to_space(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = input(f, 0);
  if (!x) return fx_status(f);
  if (fx_rank(x) != 4) return fx_fail(f, "input must have rank 4 (NCHW)"), KR_FAILURE;
  const int64_t *d = fx_dims(x);
  int64_t bs = kr_op_attr_int(op, "blocksize");
  if (bs <= 0 || d[1] % (bs * bs)) return fx_fail(f, "channels are not a multiple of blocksize^2"), KR_FAILURE;
  int64_t c = d[1] / (bs * bs);
  bool crd = !strcmp(kr_op_attr_string(op, "mode"), "CRD");
  int64_t dcr_dims[6] = {d[0], bs, bs, c, d[2], d[3]}, dcr_perm[6] = {0, 3, 4, 1, 5, 2};
  int64_t crd_dims[6] = {d[0], c, bs, bs, d[2], d[3]}, crd_perm[6] = {0, 1, 4, 2, 5, 3};
  kr_value y = fx_reshape(f, x, crd ? crd_dims : dcr_dims, 6);
  y = fx_transpose(f, y, crd ? crd_perm : dcr_perm);
  results[0] = to_result_shape(f, y, 0);
  return fx_status(f);
}

kr_status kr_fission_space_to_depth(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = input(f, 0);
  if (!x) return fx_status(f);
  if (fx_rank(x) != 4) return fx_fail(f, "input must have rank 4 (NCHW)"), KR_FAILURE;
  const int64_t *d = fx_dims(x);
  int64_t bs = kr_op_attr_int(op, "blocksize");
  if (bs <= 0 || d[2] % bs || d[3] % bs)
    return fx_fail(f, "height and width are not multiples of blocksize"), KR_FAILURE;
  int64_t dims[6] = {d[0], d[1], d[2] / bs, bs, d[3] / bs, bs}, perm[6] = {0, 3, 5, 1, 2, 4};
  kr_value y = fx_transpose(f, fx_reshape(f, x, dims, 6), perm);
  results[0] = to_result_shape(f, y, 0);
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * Shape-15, Size-13, ConstantOfShape-9, Range-11: constants (the op level usually folds them
 * already; these rules cover what is left). */

/* Shape-15: the dims [start, end) of the static input type (kr_shape_range clamps them). */
kr_status kr_fission_shape(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = input(f, 0);
  if (!x) return fx_status(f);
  int64_t s, e;
  kr_shape_range(op, fx_rank(x), &s, &e);
  int64_t n = e - s;
  results[0] = fx_const_i64(f, fx_i64(f), fx_dims(x) + s, &n, 1);
  return fx_status(f);
}

/* Size-13: the element count as an i64 scalar. */
kr_status kr_fission_size(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op;
  kr_value x = input(f, 0);
  if (!x) return fx_status(f);
  results[0] = i64_scalar(f, fx_numel(x));
  return fx_status(f);
}

/* ConstantOfShape-9: a splat of the one element of `value` (its bytes, exactly) of the result's
 * type; absent: f32 0. */
kr_status kr_fission_constant_of_shape(kr_fission *f, kr_op *op, kr_value *results) {
  kr_type t = result_type(f, 0);
  kr_attr v = kr_op_attr_tensor(op, "value");
  if (!v || kr_type_num_elements(t) == 0) {
    results[0] = splat_of(f, t, 0);
    return fx_status(f);
  }
  kr_tensor one = {0};
  if (kr_tensor_from_attr(&one, v) || one.numel != 1) {
    kr_tensor_free(&one);
    return fx_fail(f, "attribute 'value' must be a one-element tensor"), KR_FAILURE;
  }
  if (kr_tensor_elem(&one) != kr_type_element(t)) {
    kr_tensor_free(&one);
    return fx_fail(f, "attribute 'value' does not have the result's element type"), KR_FAILURE;
  }
  results[0] = fx_constant(f, kr_attr_dense(f->ctx, t, one.data, one.nbytes));
  kr_tensor_free(&one);
  return fx_status(f);
}

/* Range-11: output[i] = start + i * delta.  With constant operands (always, at this level: they
 * decide the shape) the values are computed now as the kernel does: integers exactly (wrapping),
 * floats in double then rounded to the type.  Otherwise start + iota * delta in the element type,
 * with the count of the result type. */
kr_status kr_fission_range(kr_fission *f, kr_op *op, kr_value *results) {
  kr_type t = result_type(f, 0), elem = kr_type_element(t);
  int64_t count = t->u.shaped.dims[0];
  bool is_float = fx_is_float(elem);
  if (kr_op_constant_operand(op, 0) && kr_op_constant_operand(op, 1) && kr_op_constant_operand(op, 2)) {
    double fv[3] = {0, 0, 0};
    int64_t iv[3] = {0, 0, 0}, n;
    for (unsigned i = 0; i < 3; i++)
      if ((is_float ? kr_op_constant_floats(op, i, &fv[i], 1) : kr_op_constant_ints(op, i, &iv[i], 1)) < 0)
        return reported(f);
    if (kr_range_count(op, is_float, fv[0], fv[1], fv[2], iv[0], iv[1], iv[2], &n)) return reported(f);
    if (n != count)
      return fx_fail(f, "Range gives %lld elements but the result has %lld", (long long)n, (long long)count),
             KR_FAILURE;
    if (count == 0) {
      results[0] = splat_of(f, t, 0);
      return fx_status(f);
    }
    double *dv = is_float ? malloc((size_t)count * sizeof *dv) : NULL;
    int64_t *lv = is_float ? NULL : malloc((size_t)count * sizeof *lv);
    if (!dv && !lv) return fx_fail(f, "out of memory"), KR_FAILURE;
    for (int64_t i = 0; i < count; i++) {
      if (is_float)
        dv[i] = fv[0] + (double)i * fv[2];
      else
        lv[i] = (int64_t)((uint64_t)iv[0] + (uint64_t)i * (uint64_t)iv[2]);
    }
    results[0] = is_float ? fx_const_f64(f, elem, dv, &count, 1) : fx_const_i64(f, elem, lv, &count, 1);
    free(dv);
    free(lv);
    return fx_status(f);
  }
  if (empty_results(f, results)) return fx_status(f);
  kr_value start = to_scalar(f, input(f, 0)), delta = to_scalar(f, input(f, 2));
  kr_value steps = fx_binary(f, "prim.mul", fx_iota(f, &count, 1, 0, elem), delta);
  results[0] = fx_binary(f, "prim.add", steps, start);
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * Trilu-14, OneHot-11. */

/* Trilu-14: element (i, j) of each matrix of the last two axes is kept when j - i >= k (upper)
 * or j - i <= k (lower), else 0: select(cmp(iota_col - iota_row, k), x, 0) with the [rows, cols]
 * mask broadcast over the leading axes.  k is read as a constant when it is one, else cast to
 * i64 at run time; absent: 0. */
kr_status kr_fission_trilu(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = input(f, 0);
  if (!x) return fx_status(f);
  unsigned rank = fx_rank(x);
  if (rank < 2) return fx_fail(f, "input must have rank >= 2"), KR_FAILURE;
  if (empty_results(f, results)) return fx_status(f);
  kr_type i64 = fx_i64(f);
  int64_t md[2] = {fx_dims(x)[rank - 2], fx_dims(x)[rank - 1]};
  kr_value diff = fx_binary(f, "prim.sub", fx_iota(f, md, 2, 1, i64), fx_iota(f, md, 2, 0, i64));
  kr_value k;
  if (!kr_op_operand_present(op, 1) || kr_op_constant_operand(op, 1)) {
    int64_t kv = 0;
    if (kr_op_operand_present(op, 1) && kr_op_constant_ints(op, 1, &kv, 1) < 0) return reported(f);
    /* j - i lies in [1 - rows, cols - 1]: clamping k to [-rows, cols] keeps every comparison and
     * makes the splat exact. */
    kv = kv < -md[0] ? -md[0] : kv > md[1] ? md[1] : kv;
    k = fx_splat_like(f, diff, (double)kv);
  } else {
    k = to_scalar(f, fx_cast(f, input(f, 1), i64));
  }
  kr_value keep = fx_cmp(f, kr_op_attr_int(op, "upper") ? "ge" : "le", diff, k);
  results[0] = fx_select(f, keep, x, fx_splat_like(f, x, 0));
  return fx_status(f);
}

/* OneHot-11: indices (cast to i64, truncating floats; negative ones plus depth) are given a
 * unit axis at `axis` and compared with the iota along that axis of the result:
 * select(iota == idx, on, off) with values = [off, on].  An index outside [-depth, depth) never
 * matches, giving an all-off line as in the kernel. */
kr_status kr_fission_one_hot(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value ind = input(f, 0), values = input(f, 2);
  if (!ind || !values) return fx_status(f);
  double dd;
  int64_t depth;
  if (kr_op_constant_floats(op, 1, &dd, 1) < 0 || kr_one_hot_depth(op, dd, &depth)) return reported(f);
  unsigned rank = fx_rank(ind);
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < -(int64_t)rank - 1 || axis > (int64_t)rank)
    return fx_fail(f, "attribute 'axis' value %lld is out of range", (long long)axis), KR_FAILURE;
  if (axis < 0) axis += rank + 1;
  if (empty_results(f, results)) return fx_status(f);
  kr_type t = result_type(f, 0), i64 = fx_i64(f);
  kr_value idx = fx_cast(f, ind, i64);
  idx = normalize_index(f, idx, fx_splat_like(f, idx, (double)depth));
  int64_t unit[KR_OP_MAX_RANK];
  for (unsigned d = 0, k = 0; d <= rank; d++) unit[d] = d == axis ? 1 : fx_dims(ind)[k++];
  idx = fx_reshape(f, idx, unit, rank + 1);
  kr_value pos = fx_iota(f, t->u.shaped.dims, t->u.shaped.rank, axis, i64);
  kr_value hit = fx_cmp(f, "eq", pos, idx);
  kr_value off = to_scalar(f, fx_slice_axis(f, values, 0, 0, 1));
  kr_value on = to_scalar(f, fx_slice_axis(f, values, 0, 1, 2));
  results[0] = fx_select(f, hit, on, off);
  return fx_status(f);
}
