/* dialects/op/shape_layout.c - shape inference of the layout ops (ONNX opset 17): reshapes,
 * permutations, joins and splits, slicing, padding, indexing and shape arithmetic.  Resize
 * lives in shape_layout_resize.c.  Shape operands (`#` in ops.def) are read as constants; the
 * index rules the kernels share are in shape_layout.h. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/dialect_util.h"
#include "dialects/op/shape_layout.h"

/* ---------------------------------------------------------------------------------------------
 * Helpers. */

static kr_type i64_type(kr_op *op) { return kr_type_integer(kr_op_context(op), 64, KR_SIGNLESS); }

static kr_type make_tensor(kr_op *op, const int64_t *dims, unsigned rank, kr_type elem) {
  return kr_type_tensor(kr_op_context(op), dims, rank, elem);
}

/* Operand i as a static tensor: its type, dims and rank. */
static kr_status operand(kr_op *op, unsigned i, kr_type *t, const int64_t **dims, unsigned *rank) {
  if (kr_op_operand_tensor(op, i, t)) return KR_FAILURE;
  *dims = (*t)->u.shaped.dims;
  *rank = (*t)->u.shaped.rank;
  return KR_SUCCESS;
}

static kr_status check_rank(kr_op *op, int64_t rank) {
  if (rank > KR_OP_MAX_RANK)
    return kr_op_emit_error(op, "result rank %lld exceeds the supported maximum %d", (long long)rank, KR_OP_MAX_RANK);
  return KR_SUCCESS;
}

/* "[2, 3, -1]" into buf (truncated with "..." when long). */
static const char *fmt_dims(char *buf, size_t cap, const int64_t *v, int64_t n) {
  size_t k = 0;
  k += (size_t)snprintf(buf + k, cap - k, "[");
  for (int64_t i = 0; i < n && k + 24 < cap; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? ", " : "", (long long)v[i]);
  if (k + 24 >= cap) k += (size_t)snprintf(buf + k, cap - k, ", ...");
  snprintf(buf + k, cap - k, "]");
  return buf;
}

/* The error of a dimension computation that does not fit in int64. */
static kr_status dim_overflow(kr_op *op, const char *what) {
  return kr_op_emit_error(op, "%s does not fit in a 64-bit dimension", what);
}

static bool is_integer_type(kr_type t) {
  kr_type e = kr_type_element(t);
  return e->kind == KR_TYPE_INTEGER || e->kind == KR_TYPE_INDEX;
}

/* ---------------------------------------------------------------------------------------------
 * Rules shared with the kernels (shape_layout.h). */

kr_status kr_slice_resolve(kr_op *op, const int64_t *dims, unsigned rank, const int64_t *starts,
                           const int64_t *ends, int64_t n, const int64_t *axes, const int64_t *steps,
                           int64_t *start_out, int64_t *step_out, int64_t *count_out) {
  bool seen[KR_OP_MAX_RANK] = {false};
  for (unsigned d = 0; d < rank; d++) start_out[d] = 0, step_out[d] = 1, count_out[d] = dims[d];
  if (n > (int64_t)rank)
    return kr_op_emit_error(op, "has %lld starts/ends for an input of rank %u", (long long)n, rank);
  for (int64_t i = 0; i < n; i++) {
    int64_t a = axes ? axes[i] : i;
    if (kr_op_normalize_axis(op, "axes value", a, rank, &a)) return KR_FAILURE;
    if (seen[a]) return kr_op_emit_error(op, "axis %lld appears twice in 'axes'", (long long)a);
    seen[a] = true;
    int64_t step = steps ? steps[i] : 1;
    if (step == 0) return kr_op_emit_error(op, "'steps' value for axis %lld is 0", (long long)a);
    int64_t dim = dims[a], s = starts[i], e = ends[i];
    /* Adding dim to INT64_MIN cannot overflow; INT64_MAX stays huge and is clamped below. */
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    int64_t count;
    if (step > 0) {
      s = s < 0 ? 0 : s > dim ? dim : s;
      e = e < 0 ? 0 : e > dim ? dim : e;
      count = e > s ? (e - s - 1) / step + 1 : 0; /* ceil((e - s) / step) without overflow */
    } else {
      s = s < 0 ? 0 : s > dim - 1 ? dim - 1 : s;
      e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
      /* ceil((s - e) / -step); -step in uint64 so that step = INT64_MIN does not overflow. */
      count = s > e ? (int64_t)((uint64_t)(s - e - 1) / (0 - (uint64_t)step)) + 1 : 0;
    }
    if (dim == 0) count = 0;   /* the clamping range [0, dim - 1] of a negative step is empty */
    start_out[a] = count ? s : 0;
    step_out[a] = step;
    count_out[a] = count;
  }
  return KR_SUCCESS;
}

kr_status kr_split_sizes(kr_op *op, int64_t dim, unsigned num_outputs, const int64_t *split, int64_t n,
                         int64_t *sizes) {
  char buf[128];
  if (split) {
    if (n != (int64_t)num_outputs)
      return kr_op_emit_error(op, "'split' has %lld values but the op has %u results", (long long)n, num_outputs);
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
      if (split[i] < 0)
        return kr_op_emit_error(op, "'split' values must be >= 0, got %s", fmt_dims(buf, sizeof buf, split, n));
      sizes[i] = split[i];
      if (__builtin_add_overflow(sum, split[i], &sum))
        return kr_op_emit_error(op, "'split' values %s sum to more than the split axis size %lld",
                                fmt_dims(buf, sizeof buf, split, n), (long long)dim);
    }
    if (sum != dim)
      return kr_op_emit_error(op, "'split' values %s sum to %lld, but the split axis has size %lld",
                              fmt_dims(buf, sizeof buf, split, n), (long long)sum, (long long)dim);
    return KR_SUCCESS;
  }
  if (dim % num_outputs)
    return kr_op_emit_error(op, "cannot split an axis of size %lld into %u equal parts (Split-13 without "
                            "'split' requires equal parts)", (long long)dim, num_outputs);
  for (unsigned i = 0; i < num_outputs; i++) sizes[i] = dim / num_outputs;
  return KR_SUCCESS;
}

void kr_shape_range(kr_op *op, int64_t rank, int64_t *start, int64_t *end) {
  int64_t s = kr_op_attr_int(op, "start");
  int64_t e = kr_op_attr_present(op, "end") ? kr_op_attr_int(op, "end") : rank;
  if (s < 0) s += rank;
  if (e < 0) e += rank;
  s = s < 0 ? 0 : s > rank ? rank : s;
  e = e < 0 ? 0 : e > rank ? rank : e;
  *start = s;
  *end = e < s ? s : e;
}

kr_status kr_pad_check(kr_op *op, const int64_t *dims, unsigned rank, const int64_t *pads, int64_t n) {
  char buf[256];
  if (n != 2 * (int64_t)rank)
    return kr_op_emit_error(op, "'pads' has %lld values, expected 2 * rank = %u", (long long)n, 2 * rank);
  for (unsigned d = 0; d < rank; d++) {
    int64_t size;
    if (__builtin_add_overflow(dims[d], pads[d], &size) || __builtin_add_overflow(size, pads[rank + d], &size))
      return kr_op_emit_error(op, "pads %s make axis %u (size %lld) too large for a 64-bit dimension",
                              fmt_dims(buf, sizeof buf, pads, n), d, (long long)dims[d]);
    if (size < 0)
      return kr_op_emit_error(op, "pads %s crop axis %u (size %lld) below zero", fmt_dims(buf, sizeof buf, pads, n),
                              d, (long long)dims[d]);
  }
  return KR_SUCCESS;
}

kr_status kr_one_hot_depth(kr_op *op, double depth, int64_t *out) {
  if (!(depth >= 1) || depth > 1e15) return kr_op_emit_error(op, "'depth' must be >= 1, got %g", depth);
  *out = (int64_t)depth;
  return KR_SUCCESS;
}

kr_status kr_range_count(kr_op *op, bool is_float, double fstart, double flimit, double fdelta, int64_t istart,
                         int64_t ilimit, int64_t idelta, int64_t *count) {
  if (is_float) {
    if (fdelta == 0 || isnan(fdelta)) return kr_op_emit_error(op, "'delta' must not be 0");
    double c = ceil((flimit - fstart) / fdelta);
    if (isnan(c) || c > 1e12) return kr_op_emit_error(op, "Range with %g elements is not supported", c);
    *count = c > 0 ? (int64_t)c : 0;
    return KR_SUCCESS;
  }
  if (idelta == 0) return kr_op_emit_error(op, "'delta' must not be 0");
  /* ceil((limit - start) / delta) in uint64, where the distance and |delta| cannot overflow:
   * 0 when delta points away from limit, else (distance - 1) / |delta| + 1. */
  if (idelta > 0 ? ilimit <= istart : ilimit >= istart) {
    *count = 0;
    return KR_SUCCESS;
  }
  uint64_t dist = idelta > 0 ? (uint64_t)ilimit - (uint64_t)istart : (uint64_t)istart - (uint64_t)ilimit;
  uint64_t mag = idelta > 0 ? (uint64_t)idelta : 0 - (uint64_t)idelta;
  uint64_t q = (dist - 1) / mag + 1;
  if (q > (uint64_t)INT64_MAX) return dim_overflow(op, "the element count of Range");
  *count = (int64_t)q;
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Reshape-14, Flatten-13, Transpose-13, Squeeze-13, Unsqueeze-13. */

kr_status kr_infer_reshape(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  int64_t shape[KR_OP_MAX_RANK], out[KR_OP_MAX_RANK];
  int64_t n = kr_op_constant_ints(op, 1, shape, KR_OP_MAX_RANK);
  if (n < 0) return KR_FAILURE;
  bool allowzero = kr_op_attr_int(op, "allowzero") != 0;
  int64_t total = kr_dims_product(dims, rank), known = 1, infer = -1;
  bool has_zero = false, known_overflow = false;
  if (total < 0) return dim_overflow(op, "the element count of the input");
  char buf[256];
  for (int64_t i = 0; i < n; i++) {
    int64_t v = shape[i];
    if (v == -1) {
      if (infer >= 0) return kr_op_emit_error(op, "shape %s has more than one -1", fmt_dims(buf, sizeof buf, shape, n));
      infer = i;
      continue;
    }
    if (v < -1) return kr_op_emit_error(op, "shape %s has the invalid value %lld", fmt_dims(buf, sizeof buf, shape, n), (long long)v);
    if (v == 0) {
      has_zero = true;
      if (!allowzero) {
        if (i >= rank)
          return kr_op_emit_error(op, "shape %s copies input dim %lld with 0, but the input has rank %u",
                                  fmt_dims(buf, sizeof buf, shape, n), (long long)i, rank);
        v = dims[i];
      }
    }
    out[i] = v;
    if (v == 0) known = 0, known_overflow = false;
    else if (known != 0 && !known_overflow && __builtin_mul_overflow(known, v, &known)) known_overflow = true;
  }
  if (known_overflow)
    return kr_op_emit_error(op, "cannot reshape %lld elements into %s", (long long)total, fmt_dims(buf, sizeof buf, shape, n));
  if (allowzero && has_zero && infer >= 0)
    return kr_op_emit_error(op, "shape %s has both 0 and -1 while allowzero = 1", fmt_dims(buf, sizeof buf, shape, n));
  if (infer >= 0) {
    if (known == 0 || total % known)
      return kr_op_emit_error(op, "cannot reshape %lld elements into %s", (long long)total, fmt_dims(buf, sizeof buf, shape, n));
    out[infer] = total / known;
  } else if (known != total) {
    return kr_op_emit_error(op, "cannot reshape %lld elements into %s", (long long)total, fmt_dims(buf, sizeof buf, shape, n));
  }
  results[0] = make_tensor(op, out, (unsigned)n, kr_type_element(t));
  return KR_SUCCESS;
}

kr_status kr_infer_flatten(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < -(int64_t)rank || axis > (int64_t)rank)
    return kr_op_emit_error(op, "attribute 'axis' value %lld is out of range [%d, %u]", (long long)axis, -(int)rank, rank);
  if (axis < 0) axis += rank;
  int64_t out[2] = {kr_dims_product(dims, axis), kr_dims_product(dims + axis, rank - axis)};
  if (out[0] < 0 || out[1] < 0) return dim_overflow(op, "a flattened dimension");
  results[0] = make_tensor(op, out, 2, kr_type_element(t));
  return KR_SUCCESS;
}

/* The permutation of Transpose: `perm`, or the reversal of the axes when absent. */
static kr_status transpose_perm(kr_op *op, unsigned rank, int64_t *perm) {
  const int64_t *p;
  unsigned n = kr_op_attr_ints(op, "perm", &p);
  if (!p) {
    for (unsigned i = 0; i < rank; i++) perm[i] = rank - 1 - i;
    return KR_SUCCESS;
  }
  char buf[256];
  if (n != rank)
    return kr_op_emit_error(op, "'perm' %s has %u values for an input of rank %u", fmt_dims(buf, sizeof buf, p, n), n, rank);
  bool seen[KR_OP_MAX_RANK] = {false};
  for (unsigned i = 0; i < n; i++) {
    if (p[i] < 0 || p[i] >= rank || seen[p[i]])
      return kr_op_emit_error(op, "'perm' %s is not a permutation of [0, %u)", fmt_dims(buf, sizeof buf, p, n), rank);
    seen[p[i]] = true;
    perm[i] = p[i];
  }
  return KR_SUCCESS;
}

kr_status kr_infer_transpose(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  int64_t perm[KR_OP_MAX_RANK], out[KR_OP_MAX_RANK];
  if (operand(op, 0, &t, &dims, &rank) || transpose_perm(op, rank, perm)) return KR_FAILURE;
  for (unsigned i = 0; i < rank; i++) out[i] = dims[perm[i]];
  results[0] = make_tensor(op, out, rank, kr_type_element(t));
  return KR_SUCCESS;
}

kr_status kr_layout_transpose_perm(kr_op *op, unsigned rank, int64_t *perm) { return transpose_perm(op, rank, perm); }

kr_status kr_infer_squeeze(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  bool drop[KR_OP_MAX_RANK] = {false};
  if (kr_op_operand_present(op, 1)) {
    int64_t axes[KR_OP_MAX_RANK];
    int64_t n = kr_op_constant_ints(op, 1, axes, KR_OP_MAX_RANK);
    if (n < 0) return KR_FAILURE;
    for (int64_t i = 0; i < n; i++) {
      int64_t a;
      if (kr_op_normalize_axis(op, "'axes' value", axes[i], rank, &a)) return KR_FAILURE;
      if (dims[a] != 1)
        return kr_op_emit_error(op, "cannot squeeze axis %lld of size %lld (only size-1 axes)", (long long)axes[i],
                                (long long)dims[a]);
      drop[a] = true;
    }
  } else {
    for (unsigned d = 0; d < rank; d++) drop[d] = dims[d] == 1;
  }
  int64_t out[KR_OP_MAX_RANK];
  unsigned k = 0;
  for (unsigned d = 0; d < rank; d++)
    if (!drop[d]) out[k++] = dims[d];
  results[0] = make_tensor(op, out, k, kr_type_element(t));
  return KR_SUCCESS;
}

kr_status kr_infer_unsqueeze(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  int64_t axes[KR_OP_MAX_RANK];
  int64_t n = kr_op_constant_ints(op, 1, axes, KR_OP_MAX_RANK);
  if (n < 0) return KR_FAILURE;
  int64_t out_rank = rank + n;
  if (check_rank(op, out_rank)) return KR_FAILURE;
  bool ins[KR_OP_MAX_RANK] = {false};
  for (int64_t i = 0; i < n; i++) {
    int64_t a;
    if (kr_op_normalize_axis(op, "'axes' value", axes[i], out_rank, &a)) return KR_FAILURE;
    if (ins[a]) return kr_op_emit_error(op, "'axes' names output axis %lld twice", (long long)a);
    ins[a] = true;
  }
  int64_t out[KR_OP_MAX_RANK];
  for (int64_t d = 0, k = 0; d < out_rank; d++) out[d] = ins[d] ? 1 : dims[k++];
  results[0] = make_tensor(op, out, (unsigned)out_rank, kr_type_element(t));
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Concat-13, Split-13, Slice-13, Pad-13, Tile-13. */

kr_status kr_infer_concat(kr_op *op, kr_type *results) {
  kr_type t0;
  const int64_t *d0;
  unsigned rank;
  if (operand(op, 0, &t0, &d0, &rank)) return KR_FAILURE;
  if (rank == 0) return kr_op_emit_error(op, "cannot concatenate rank-0 tensors");
  int64_t axis;
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), rank, &axis)) return KR_FAILURE;
  int64_t out[KR_OP_MAX_RANK];
  memcpy(out, d0, rank * sizeof *out);
  for (unsigned i = 1; i < op->num_operands; i++) {
    kr_type t;
    const int64_t *d;
    unsigned r;
    if (operand(op, i, &t, &d, &r)) return KR_FAILURE;
    bool ok = r == rank && kr_type_element(t) == kr_type_element(t0);
    for (unsigned k = 0; ok && k < rank; k++) ok = k == axis || d[k] == d0[k];
    if (!ok) {
      char *a = kr_type_to_cstr(t0), *b = kr_type_to_cstr(t);
      kr_op_emit_error(op, "operand #%u of type '%s' cannot be concatenated with '%s' along axis %lld", i, b, a,
                       (long long)axis);
      free(a), free(b);
      return KR_FAILURE;
    }
    if (__builtin_add_overflow(out[axis], d[axis], &out[axis]))
      return dim_overflow(op, "the size of the concatenated axis");
  }
  results[0] = make_tensor(op, out, rank, kr_type_element(t0));
  return KR_SUCCESS;
}

kr_status kr_infer_split(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  if (rank == 0) return kr_op_emit_error(op, "cannot split a rank-0 tensor");
  int64_t axis;
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), rank, &axis)) return KR_FAILURE;
  int64_t *split = NULL, n = 0;
  int64_t *sizes = malloc((op->num_results + 1) * sizeof *sizes);
  kr_status st = KR_FAILURE;
  if (!sizes) return kr_op_emit_error(op, "out of memory");
  if (kr_op_operand_present(op, 1)) {
    split = malloc(KR_LAYOUT_MAX_VALUES * sizeof *split);
    if (!split || (n = kr_op_constant_ints(op, 1, split, KR_LAYOUT_MAX_VALUES)) < 0) goto done;
  }
  if (kr_split_sizes(op, dims[axis], op->num_results, split, n, sizes)) goto done;
  int64_t out[KR_OP_MAX_RANK];
  memcpy(out, dims, rank * sizeof *out);
  for (unsigned i = 0; i < op->num_results; i++) {
    out[axis] = sizes[i];
    results[i] = make_tensor(op, out, rank, kr_type_element(t));
  }
  st = KR_SUCCESS;
done:
  free(split);
  free(sizes);
  return st;
}

/* Reads a rank-bounded integer shape operand that must have `want` values (want < 0: any). */
static int64_t read_ints(kr_op *op, unsigned i, int64_t *out, int64_t want, const char *what) {
  int64_t n = kr_op_constant_ints(op, i, out, KR_OP_MAX_RANK * 2);
  if (n < 0) return -1;
  if (want >= 0 && n != want) {
    kr_op_emit_error(op, "'%s' has %lld values, expected %lld", what, (long long)n, (long long)want);
    return -1;
  }
  return n;
}

kr_status kr_infer_slice(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  int64_t starts[2 * KR_OP_MAX_RANK], ends[2 * KR_OP_MAX_RANK], axes[2 * KR_OP_MAX_RANK], steps[2 * KR_OP_MAX_RANK];
  int64_t n = read_ints(op, 1, starts, -1, "starts");
  if (n < 0 || read_ints(op, 2, ends, n, "ends") < 0) return KR_FAILURE;
  bool has_axes = kr_op_operand_present(op, 3), has_steps = kr_op_operand_present(op, 4);
  if (has_axes && read_ints(op, 3, axes, n, "axes") < 0) return KR_FAILURE;
  if (has_steps && read_ints(op, 4, steps, n, "steps") < 0) return KR_FAILURE;
  int64_t start[KR_OP_MAX_RANK], step[KR_OP_MAX_RANK], count[KR_OP_MAX_RANK];
  if (kr_slice_resolve(op, dims, rank, starts, ends, n, has_axes ? axes : NULL, has_steps ? steps : NULL, start,
                       step, count))
    return KR_FAILURE;
  results[0] = make_tensor(op, count, rank, kr_type_element(t));
  return KR_SUCCESS;
}

kr_status kr_infer_pad(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  const char *mode = kr_op_attr_string(op, "mode");
  if (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge"))
    return kr_op_emit_error(op, "unsupported mode \"%s\" (Pad-13: constant, reflect or edge)", mode);
  int64_t pads[2 * KR_OP_MAX_RANK];
  int64_t n = kr_op_constant_ints(op, 1, pads, 2 * KR_OP_MAX_RANK);
  if (n < 0 || kr_pad_check(op, dims, rank, pads, n)) return KR_FAILURE;
  if (kr_op_operand_present(op, 2)) {
    kr_type ct = kr_value_type(kr_op_operand(op, 2));
    if (kr_type_num_elements(ct) > 1 || kr_type_element(ct) != kr_type_element(t)) {
      char *a = kr_type_to_cstr(ct);
      kr_op_emit_error(op, "'constant_value' must be a scalar of the data's element type, got '%s'", a);
      free(a);
      return KR_FAILURE;
    }
  }
  int64_t out[KR_OP_MAX_RANK];
  for (unsigned d = 0; d < rank; d++) {
    out[d] = dims[d] + pads[d] + pads[rank + d];
    if (strcmp(mode, "constant") && dims[d] == 0 && out[d] > 0)
      return kr_op_emit_error(op, "cannot %s-pad axis %u of size 0", mode, d);
  }
  results[0] = make_tensor(op, out, rank, kr_type_element(t));
  return KR_SUCCESS;
}

kr_status kr_infer_tile(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  int64_t rep[2 * KR_OP_MAX_RANK], out[KR_OP_MAX_RANK];
  if (read_ints(op, 1, rep, rank, "repeats") < 0) return KR_FAILURE;
  for (unsigned d = 0; d < rank; d++) {
    if (rep[d] < 0) return kr_op_emit_error(op, "'repeats' value %lld for axis %u is negative", (long long)rep[d], d);
    if (__builtin_mul_overflow(dims[d], rep[d], &out[d])) return dim_overflow(op, "a tiled dimension");
  }
  results[0] = make_tensor(op, out, rank, kr_type_element(t));
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Gather-13, GatherElements-13, GatherND-13. */

static kr_status check_indices(kr_op *op, kr_type t) {
  if (is_integer_type(t)) return KR_SUCCESS;
  char *s = kr_type_to_cstr(t);
  kr_op_emit_error(op, "operand #1 ('indices') must hold i32 or i64 values, got '%s'", s);
  free(s);
  return KR_FAILURE;
}

kr_status kr_infer_gather(kr_op *op, kr_type *results) {
  kr_type t, it;
  const int64_t *dims, *idims;
  unsigned rank, irank;
  if (operand(op, 0, &t, &dims, &rank) || operand(op, 1, &it, &idims, &irank) || check_indices(op, it))
    return KR_FAILURE;
  if (rank == 0) return kr_op_emit_error(op, "operand #0 ('data') must have rank >= 1");
  int64_t axis;
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), rank, &axis)) return KR_FAILURE;
  if (check_rank(op, (int64_t)rank - 1 + irank)) return KR_FAILURE;
  int64_t out[KR_OP_MAX_RANK];
  unsigned k = 0;
  for (int64_t d = 0; d < axis; d++) out[k++] = dims[d];
  for (unsigned d = 0; d < irank; d++) out[k++] = idims[d];
  for (unsigned d = (unsigned)axis + 1; d < rank; d++) out[k++] = dims[d];
  results[0] = make_tensor(op, out, k, kr_type_element(t));
  return KR_SUCCESS;
}

kr_status kr_infer_gather_elements(kr_op *op, kr_type *results) {
  kr_type t, it;
  const int64_t *dims, *idims;
  unsigned rank, irank;
  if (operand(op, 0, &t, &dims, &rank) || operand(op, 1, &it, &idims, &irank) || check_indices(op, it))
    return KR_FAILURE;
  if (rank == 0 || irank != rank)
    return kr_op_emit_error(op, "'indices' (rank %u) must have the rank of 'data' (rank %u, >= 1)", irank, rank);
  int64_t axis;
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), rank, &axis)) return KR_FAILURE;
  for (unsigned d = 0; d < rank; d++)
    if (d != axis && idims[d] > dims[d])
      return kr_op_emit_error(op, "'indices' dim %u (%lld) exceeds the data dim (%lld)", d, (long long)idims[d],
                              (long long)dims[d]);
  results[0] = make_tensor(op, idims, irank, kr_type_element(t));
  return KR_SUCCESS;
}

kr_status kr_infer_gather_nd(kr_op *op, kr_type *results) {
  kr_type t, it;
  const int64_t *dims, *idims;
  unsigned rank, irank;
  if (operand(op, 0, &t, &dims, &rank) || operand(op, 1, &it, &idims, &irank) || check_indices(op, it))
    return KR_FAILURE;
  int64_t b = kr_op_attr_int(op, "batch_dims");
  if (rank == 0 || irank == 0) return kr_op_emit_error(op, "'data' and 'indices' must have rank >= 1");
  if (b < 0 || b >= (int64_t)rank || b >= (int64_t)irank)
    return kr_op_emit_error(op, "'batch_dims' %lld must be less than both ranks (%u, %u)", (long long)b, rank, irank);
  int64_t k = idims[irank - 1];
  if (k < 1 || k > (int64_t)rank - b)
    return kr_op_emit_error(op, "the last dim of 'indices' (%lld) must be in [1, %lld]", (long long)k, (long long)(rank - b));
  for (int64_t d = 0; d < b; d++)
    if (dims[d] != idims[d])
      return kr_op_emit_error(op, "batch dim %lld differs: data %lld, indices %lld", (long long)d, (long long)dims[d],
                              (long long)idims[d]);
  int64_t out[KR_OP_MAX_RANK];
  unsigned n = 0;
  if (check_rank(op, (int64_t)irank - 1 + (int64_t)rank - b - k)) return KR_FAILURE;
  for (unsigned d = 0; d + 1 < irank; d++) out[n++] = idims[d];
  for (int64_t d = b + k; d < rank; d++) out[n++] = dims[d];
  results[0] = make_tensor(op, out, n, kr_type_element(t));
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * DepthToSpace-13, SpaceToDepth-13. */

kr_status kr_infer_depth_to_space(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  int64_t b = kr_op_attr_int(op, "blocksize");
  const char *mode = kr_op_attr_string(op, "mode");
  if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
    return kr_op_emit_error(op, "unsupported mode \"%s\" (DepthToSpace-13: DCR or CRD)", mode);
  if (rank != 4) return kr_op_emit_error(op, "input must have rank 4 (NCHW), got rank %u", rank);
  int64_t bb;
  if (b <= 0 || __builtin_mul_overflow(b, b, &bb) || dims[1] % bb)
    return kr_op_emit_error(op, "channels (%lld) must be a multiple of blocksize^2 (blocksize %lld)", (long long)dims[1],
                            (long long)b);
  int64_t out[4] = {dims[0], dims[1] / bb, 0, 0};
  if (__builtin_mul_overflow(dims[2], b, &out[2]) || __builtin_mul_overflow(dims[3], b, &out[3]))
    return dim_overflow(op, "the output height or width");
  results[0] = make_tensor(op, out, 4, kr_type_element(t));
  return KR_SUCCESS;
}

kr_status kr_infer_space_to_depth(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  int64_t b = kr_op_attr_int(op, "blocksize");
  if (rank != 4) return kr_op_emit_error(op, "input must have rank 4 (NCHW), got rank %u", rank);
  if (b <= 0 || dims[2] % b || dims[3] % b)
    return kr_op_emit_error(op, "height and width (%lld, %lld) must be multiples of blocksize %lld", (long long)dims[2],
                            (long long)dims[3], (long long)b);
  int64_t out[4] = {dims[0], 0, dims[2] / b, dims[3] / b};
  if (__builtin_mul_overflow(dims[1], b, &out[1]) || __builtin_mul_overflow(out[1], b, &out[1]))
    return dim_overflow(op, "the output channel count");
  results[0] = make_tensor(op, out, 4, kr_type_element(t));
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Shape-15, Size-13, ConstantOfShape-9, Range-11, Trilu-14, OneHot-11. */

kr_status kr_infer_shape(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  int64_t s, e;
  kr_shape_range(op, rank, &s, &e);
  int64_t n = e - s;
  results[0] = make_tensor(op, &n, 1, i64_type(op));
  return KR_SUCCESS;
}

kr_status kr_infer_size(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  results[0] = make_tensor(op, NULL, 0, i64_type(op));
  return KR_SUCCESS;
}

kr_status kr_infer_constant_of_shape(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  if (rank != 1) return kr_op_emit_error(op, "operand #0 ('input') must be a 1-D shape, got rank %u", rank);
  int64_t shape[KR_OP_MAX_RANK];
  int64_t n = kr_op_constant_ints(op, 0, shape, KR_OP_MAX_RANK);
  if (n < 0) return KR_FAILURE;
  for (int64_t i = 0; i < n; i++)
    if (shape[i] < 0) return kr_op_emit_error(op, "shape value %lld is negative", (long long)shape[i]);
  kr_type elem = kr_type_float(kr_op_context(op), KR_F32);
  if (kr_op_attr_present(op, "value")) {
    kr_attr v = kr_op_attr_tensor(op, "value");
    if (!v || kr_type_num_elements(v->type) != 1)
      return kr_op_emit_error(op, "attribute 'value' must be a one-element tensor");
    elem = kr_type_element(v->type);
  }
  results[0] = make_tensor(op, shape, (unsigned)n, elem);
  return KR_SUCCESS;
}

kr_status kr_infer_range(kr_op *op, kr_type *results) {
  kr_type ts[3];
  for (unsigned i = 0; i < 3; i++) {
    if (kr_op_operand_tensor(op, i, &ts[i])) return KR_FAILURE;
    if (kr_type_num_elements(ts[i]) != 1 || kr_type_element(ts[i]) != kr_type_element(ts[0])) {
      char *s = kr_type_to_cstr(ts[i]);
      kr_op_emit_error(op, "'start', 'limit' and 'delta' must be scalars of one element type, operand #%u is '%s'", i, s);
      free(s);
      return KR_FAILURE;
    }
  }
  kr_type elem = kr_type_element(ts[0]);
  bool is_float = elem->kind == KR_TYPE_FLOAT;
  double f[3] = {0, 0, 0};
  int64_t v[3] = {0, 0, 0};
  for (unsigned i = 0; i < 3; i++)
    if ((is_float ? kr_op_constant_floats(op, i, &f[i], 1) : kr_op_constant_ints(op, i, &v[i], 1)) < 0) return KR_FAILURE;
  int64_t count;
  if (kr_range_count(op, is_float, f[0], f[1], f[2], v[0], v[1], v[2], &count)) return KR_FAILURE;
  results[0] = make_tensor(op, &count, 1, elem);
  return KR_SUCCESS;
}

kr_status kr_infer_trilu(kr_op *op, kr_type *results) {
  kr_type t;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank)) return KR_FAILURE;
  if (rank < 2) return kr_op_emit_error(op, "input must have rank >= 2, got rank %u", rank);
  if (kr_op_operand_present(op, 1)) {
    kr_type kt;
    if (kr_op_operand_tensor(op, 1, &kt)) return KR_FAILURE;
    if (kr_type_num_elements(kt) != 1 || !is_integer_type(kt))
      return kr_op_emit_error(op, "operand #1 ('k') must be an integer scalar");
  }
  results[0] = t;
  return KR_SUCCESS;
}

kr_status kr_infer_one_hot(kr_op *op, kr_type *results) {
  kr_type t, dt, vt;
  const int64_t *dims;
  unsigned rank;
  if (operand(op, 0, &t, &dims, &rank) || kr_op_operand_tensor(op, 1, &dt) || kr_op_operand_tensor(op, 2, &vt))
    return KR_FAILURE;
  if (kr_type_num_elements(dt) != 1) return kr_op_emit_error(op, "operand #1 ('depth') must have one element");
  if (vt->u.shaped.rank != 1 || vt->u.shaped.dims[0] != 2)
    return kr_op_emit_error(op, "operand #2 ('values') must be a 1-D tensor of 2 elements [off, on]");
  double depth;
  int64_t d;
  if (kr_op_constant_floats(op, 1, &depth, 1) < 0 || kr_one_hot_depth(op, depth, &d)) return KR_FAILURE;
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < -(int64_t)rank - 1 || axis > (int64_t)rank)
    return kr_op_emit_error(op, "attribute 'axis' value %lld is out of range [%d, %u]", (long long)axis, -(int)rank - 1, rank);
  if (axis < 0) axis += rank + 1;
  if (check_rank(op, rank + 1)) return KR_FAILURE;
  int64_t out[KR_OP_MAX_RANK];
  for (int64_t i = 0, k = 0; i <= rank; i++) out[i] = i == axis ? d : dims[k++];
  results[0] = make_tensor(op, out, rank + 1, kr_type_element(vt));
  return KR_SUCCESS;
}
