/* dialects/prim/shape_util.c - the checks the primitives' shape rules share (shape_util.h). */
#include <stdio.h>
#include <stdlib.h>

#include "dialects/prim/shape_util.h"
#include "dialects/schema.h"

static const char *class_name(unsigned classes) {
  switch (classes) {
  case KR_EW_FLOAT: return "floating-point (f16, bf16, f32, f64)";
  case KR_EW_BOOL: return "boolean (i1)";
  case KR_EW_INT: return "integer (i8..i64, ui8..ui64)";
  case KR_EW_NUMERIC: return "numeric (integer or floating-point)";
  case KR_EW_FLOAT | KR_EW_SINT: return "signed numeric (signed integer or floating-point)";
  case KR_EW_ANY: return "numeric or boolean";
  default: return "supported";
  }
}

kr_status kr_ps_operand(kr_op *op, unsigned i, unsigned classes, kr_type *out) {
  if (kr_op_operand_tensor(op, i, out)) return KR_FAILURE;
  if (kr_ew_class(kr_type_element(*out)) & classes) return KR_SUCCESS;
  char *s = kr_type_to_cstr(*out);
  kr_op_emit_error(op, "operand #%u ('%s') must have %s elements, got '%s'", i, kr_schema_operand_name(op, i),
                   class_name(classes), s);
  free(s);
  return KR_FAILURE;
}

kr_status kr_ps_same_type(kr_op *op, unsigned i, kr_type ti, unsigned j, kr_type tj) {
  if (ti == tj) return KR_SUCCESS; /* types are uniqued in the context */
  char *a = kr_type_to_cstr(ti), *b = kr_type_to_cstr(tj);
  kr_op_emit_error(op,
                   "operands #%u ('%s') and #%u ('%s') must have the same type (no implicit broadcast), "
                   "got '%s' and '%s'",
                   i, kr_schema_operand_name(op, i), j, kr_schema_operand_name(op, j), a, b);
  free(a), free(b);
  return KR_FAILURE;
}

kr_status kr_ps_same_elem(kr_op *op, unsigned i, kr_type ti, unsigned j, kr_type tj) {
  if (kr_type_element(ti) == kr_type_element(tj)) return KR_SUCCESS;
  char *a = kr_type_to_cstr(ti), *b = kr_type_to_cstr(tj);
  kr_op_emit_error(op, "operands #%u ('%s') and #%u ('%s') must have the same element type, got '%s' and '%s'", i,
                   kr_schema_operand_name(op, i), j, kr_schema_operand_name(op, j), a, b);
  free(a), free(b);
  return KR_FAILURE;
}

const char *kr_ps_fmt(char *buf, size_t cap, const int64_t *v, int64_t n) {
  size_t k = 0;
  k += (size_t)snprintf(buf + k, cap - k, "[");
  int64_t i = 0;
  for (; i < n && k + 28 < cap; i++) k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? ", " : "", (long long)v[i]);
  if (i < n) k += (size_t)snprintf(buf + k, cap - k, ", ...");
  snprintf(buf + k, cap - k, "]");
  return buf;
}

kr_status kr_ps_result(kr_op *op, const int64_t *dims, int64_t rank, kr_type elem, kr_type *out) {
  char buf[256];
  if (rank > KR_OP_MAX_RANK)
    return kr_op_emit_error(op, "result rank %lld exceeds the supported maximum %d", (long long)rank, KR_OP_MAX_RANK);
  if (kr_dims_product(dims, rank) < 0)
    return kr_op_emit_error(op, "result shape %s has more than 2^63-1 elements",
                            kr_ps_fmt(buf, sizeof buf, dims, rank));
  *out = kr_type_tensor(kr_op_context(op), dims, (unsigned)rank, elem);
  return KR_SUCCESS;
}

kr_status kr_ps_flag(kr_op *op, const char *name, int64_t *out) {
  int64_t v = kr_op_attr_int(op, name);
  if (v != 0 && v != 1) return kr_op_emit_error(op, "attribute '%s' must be 0 or 1, got %lld", name, (long long)v);
  if (out) *out = v;
  return KR_SUCCESS;
}

kr_status kr_ps_axis(kr_op *op, const char *name, unsigned rank, int64_t *out) {
  int64_t v = kr_op_attr_int(op, name);
  if (v < 0 || v >= (int64_t)rank)
    return kr_op_emit_error(op, "attribute '%s' value %lld is out of range [0, %u)", name, (long long)v, rank);
  *out = v;
  return KR_SUCCESS;
}

kr_status kr_ps_ints_len(kr_op *op, const char *name, int64_t n, const char *per, const int64_t **vals) {
  int64_t got = kr_op_attr_ints(op, name, vals);
  if (got != n)
    return kr_op_emit_error(op, "attribute '%s' has %lld values, expected %lld (%s)", name, (long long)got,
                            (long long)n, per);
  return KR_SUCCESS;
}

kr_status kr_ps_ints_min(kr_op *op, const char *name, const int64_t *v, int64_t n, int64_t min) {
  for (int64_t i = 0; i < n; i++)
    if (v[i] < min)
      return kr_op_emit_error(op, "attribute '%s' value %lld at index %lld must be >= %lld", name, (long long)v[i],
                              (long long)i, (long long)min);
  return KR_SUCCESS;
}
