/* dialects/kernel/simt.c - verifiers of the kernel dialect's SIMT ops (dialects/kernel/ops.def,
 * "Scheduling level"; docs/Dialects/kernel.md "Scheduled kernels").
 *
 * The generic verifier has already checked operand/result/region counts and the SINGLE_BLOCK /
 * NO_TERMINATOR traits; these hooks check what the op table cannot say: operand types (index
 * coordinates, an i1 condition, buffers whose rank matches the index count), the scalar or
 * vector type a load/store moves, the attributes (`dim`, `mode`, `mapping`, `position`,
 * `unroll`), block arguments of the region ops, and that SIMT code sits inside a kernel.func
 * (every thread of a launch runs the kernel's body: outside one, thread ids mean nothing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/dialect_macros.h"
#include "korch/asm.h"
#include "korch/diag.h"
#include "korch/kernel.h"

#define KR_OP KR_OP_DECLARE_HOOKS
#include "dialects/kernel/ops.def"
#undef KR_OP

/* ---------------------------------------------------------------------------------------------
 * Helpers. */

/* Reports `fmt` with the type's text appended in quotes: "... but got 'T'". */
static kr_status type_error(kr_op *op, const char *what, kr_type t) {
  char *s = kr_type_to_cstr(t);
  kr_op_emit_error(op, "%s, but got '%s'", what, s);
  free(s);
  return KR_FAILURE;
}

/* SIMT ops describe what one thread of a launch does: they belong in a kernel.func (at any
 * depth of kernel.for / kernel.if / kernel.map nesting). */
static kr_status verify_in_kernel(kr_op *op) {
  for (kr_op *p = kr_op_parent_op(op); p; p = kr_op_parent_op(p))
    if (!strcmp(p->name, KR_KERNEL_FUNC_OP)) return KR_SUCCESS;
  return kr_op_emit_error(op, "expects to be nested in a '" KR_KERNEL_FUNC_OP
                              "': SIMT ops describe the threads of a kernel launch");
}

static bool is_index(kr_type t) { return t && t->kind == KR_TYPE_INDEX; }

/* Operands [first, first+n) are index values. */
static kr_status verify_index_operands(kr_op *op, unsigned first, unsigned n, const char *what) {
  for (unsigned i = first; i < first + n; i++) {
    kr_type t = kr_value_type(kr_op_operand(op, i));
    if (is_index(t)) continue;
    char *s = kr_type_to_cstr(t);
    kr_op_emit_error(op, "operand #%u (%s) must be index, but got '%s'", i, what, s);
    free(s);
    return KR_FAILURE;
  }
  return KR_SUCCESS;
}

static kr_status verify_index_result(kr_op *op) {
  kr_type t = kr_value_type(kr_op_result(op, 0));
  return is_index(t) ? KR_SUCCESS : type_error(op, "result #0 must be index", t);
}

/* An optional i64 attribute `name` in [lo, hi]; *out gets it (or `dflt` when absent). */
static kr_status get_i64_attr(kr_op *op, const char *name, bool required, int64_t lo, int64_t hi, int64_t dflt,
                              int64_t *out) {
  kr_attr a = kr_op_get_attr(op, name);
  *out = dflt;
  if (!a) return required ? kr_op_emit_error(op, "requires attribute '%s'", name) : KR_SUCCESS;
  if (a->kind != KR_ATTR_INTEGER || !kr_type_is_integer(a->type, 64) || a->u.i < lo || a->u.i > hi) {
    if (hi == INT64_MAX)
      return kr_op_emit_error(op, "attribute '%s' must be a 64-bit integer >= %lld", name, (long long)lo);
    return kr_op_emit_error(op, "attribute '%s' must be a 64-bit integer in [%lld, %lld]", name, (long long)lo,
                            (long long)hi);
  }
  *out = a->u.i;
  return KR_SUCCESS;
}

/* The single block of region `i` (NULL when the region is empty). */
static kr_block *body_of(kr_op *op, unsigned i) {
  kr_region *r = kr_op_region(op, i);
  return kr_region_empty(r) ? NULL : r->first;
}

/* Region `i`'s block has exactly `n` index arguments (an empty region is accepted when n == 0:
 * a body that does nothing). */
static kr_status verify_index_args(kr_op *op, unsigned i, unsigned n, const char *what) {
  kr_block *b = body_of(op, i);
  if (!b) {
    if (n == 0) return KR_SUCCESS;
    return kr_op_emit_error(op, "expects a body block with %u index argument%s (%s)", n, n == 1 ? "" : "s", what);
  }
  if (b->num_args != n)
    return kr_op_emit_error(op, "expects %u block argument%s (%s), but the body has %u", n, n == 1 ? "" : "s", what,
                            b->num_args);
  for (unsigned a = 0; a < n; a++)
    if (!is_index(kr_value_type(b->args[a]))) {
      char *s = kr_type_to_cstr(kr_value_type(b->args[a]));
      kr_op_emit_error(op, "block argument #%u must be index, but got '%s'", a, s);
      free(s);
      return KR_FAILURE;
    }
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Thread coordinates. */

kr_status kr_kernel_dim_op_verify(kr_op *op) {
  int64_t dim;
  if (verify_in_kernel(op) || verify_index_result(op) || get_i64_attr(op, KR_KERNEL_ATTR_DIM, true, 0, 2, 0, &dim))
    return KR_FAILURE;
  return KR_SUCCESS;
}

kr_status kr_kernel_index_op_verify(kr_op *op) {
  if (verify_in_kernel(op) || verify_index_result(op)) return KR_FAILURE;
  return KR_SUCCESS;
}

kr_status kr_kernel_barrier_verify(kr_op *op) { return verify_in_kernel(op); }

/* ---------------------------------------------------------------------------------------------
 * Region ops. */

kr_status kr_kernel_for_verify(kr_op *op) {
  int64_t unroll;
  if (verify_in_kernel(op) || verify_index_operands(op, 0, 3, "bounds and step") ||
      verify_index_args(op, 0, 1, "the induction variable") ||
      get_i64_attr(op, KR_KERNEL_ATTR_UNROLL, false, 1, INT64_MAX, 1, &unroll))
    return KR_FAILURE;
  /* A constant step must be positive: the loop runs while %i < ub. */
  kr_op *d = kr_value_defining_op(kr_op_operand(op, 2));
  kr_attr v = d && kr_op_has_trait(d, KR_TRAIT_CONSTANT_LIKE) ? kr_op_get_attr(d, "value") : NULL;
  if (v && v->kind == KR_ATTR_INTEGER && v->u.i <= 0)
    return kr_op_emit_error(op, "expects a positive step, but the step is the constant %lld", (long long)v->u.i);
  return KR_SUCCESS;
}

kr_status kr_kernel_if_verify(kr_op *op) {
  if (verify_in_kernel(op)) return KR_FAILURE;
  kr_type t = kr_value_type(kr_op_operand(op, 0));
  if (!kr_type_is_integer(t, 1)) return type_error(op, "operand #0 (the condition) must be i1", t);
  if (verify_index_args(op, 0, 0, "none: the then region takes no arguments") ||
      verify_index_args(op, 1, 0, "none: the else region takes no arguments"))
    return KR_FAILURE;
  return KR_SUCCESS;
}

kr_status kr_kernel_map_verify(kr_op *op) {
  if (verify_in_kernel(op) || verify_index_operands(op, 0, 1, "the worker")) return KR_FAILURE;
  kr_attr a = kr_op_get_attr(op, KR_KERNEL_ATTR_MAPPING);
  if (!a) return kr_op_emit_error(op, "requires attribute '" KR_KERNEL_ATTR_MAPPING "'");
  kr_task_mapping m;
  if (!kr_task_mapping_from_attr(a, &m))
    return kr_op_emit_error(op, "attribute '" KR_KERNEL_ATTR_MAPPING "' must be a task mapping (#kernel.task<...>)");
  return verify_index_args(op, 0, m.rank, "one per dimension of the mapping's task shape");
}

/* ---------------------------------------------------------------------------------------------
 * Buffers. */

kr_status kr_kernel_alloc_verify(kr_op *op) {
  if (verify_in_kernel(op)) return KR_FAILURE;
  kr_type t = kr_value_type(kr_op_result(op, 0));
  kr_kernel_buffer b;
  if (!kr_kernel_buffer_info(t, &b)) return type_error(op, "result #0 must be a !kernel.buffer", t);
  if (b.space == KR_KERNEL_SPACE_GLOBAL)
    return kr_op_emit_error(op, "cannot allocate a global buffer: global buffers are the kernel's arguments; "
                                "allocate shared or local buffers");
  return KR_SUCCESS;
}

/* The buffer operand at `bi` and the indices after it; `value` is the loaded/stored type. */
static kr_status verify_access(kr_op *op, unsigned bi, kr_type value, const char *value_what) {
  kr_type bt = kr_value_type(kr_op_operand(op, bi));
  kr_kernel_buffer b;
  if (!kr_kernel_buffer_info(bt, &b)) {
    char what[64];
    snprintf(what, sizeof what, "operand #%u must be a !kernel.buffer", bi);
    return type_error(op, what, bt);
  }
  unsigned nidx = op->num_operands - bi - 1;
  if (nidx != b.rank)
    return kr_op_emit_error(op, "expects %u ind%s for a buffer of rank %u, but got %u", b.rank,
                            b.rank == 1 ? "ex" : "ices", b.rank, nidx);
  if (verify_index_operands(op, bi + 1, nidx, "an index")) return KR_FAILURE;
  /* An si* or ui* element moves as the signless integer of its width too: arith computes on
   * signless integers only (signedness is a property of the op, dialects/arith/ops.def). */
  kr_type elem = b.elem;
  kr_context *ctx = kr_op_context(op);
  kr_type signless = elem->kind == KR_TYPE_INTEGER ? kr_type_integer(ctx, elem->u.integer.width, KR_SIGNLESS) : elem;
  if (value == b.elem || value == signless) return KR_SUCCESS;
  if (value->kind == KR_TYPE_VECTOR && value->u.shaped.elem == signless) elem = signless;
  /* A vector of 2 or 4 consecutive elements along a contiguous last dimension: what one
   * ld/st.v2 / .v4 moves (PTX ISA, "Vectors"). */
  if (value->kind == KR_TYPE_VECTOR && value->u.shaped.rank == 1 && value->u.shaped.elem == elem &&
      (value->u.shaped.dims[0] == 2 || value->u.shaped.dims[0] == 4)) {
    int64_t n = value->u.shaped.dims[0];
    if (b.rank == 0) return kr_op_emit_error(op, "cannot access a vector in a buffer of rank 0");
    if (b.strides[b.rank - 1] != 1)
      return kr_op_emit_error(op, "a vector access needs a unit stride in the last dimension, but the stride is %lld",
                              (long long)b.strides[b.rank - 1]);
    if (b.dims[b.rank - 1] < n)
      return kr_op_emit_error(op, "a vector of %lld elements does not fit the last dimension (%lld)", (long long)n,
                              (long long)b.dims[b.rank - 1]);
    return KR_SUCCESS;
  }
  char *vs = kr_type_to_cstr(value), *es = kr_type_to_cstr(b.elem);
  kr_op_emit_error(op, "%s must be the buffer's element type '%s' or a vector<2x%s> / vector<4x%s>, but got '%s'",
                   value_what, es, es, es, vs);
  free(vs);
  free(es);
  return KR_FAILURE;
}

kr_status kr_kernel_load_verify(kr_op *op) {
  if (verify_in_kernel(op)) return KR_FAILURE;
  if (op->num_operands < 1) return kr_op_emit_error(op, "expects a buffer operand");
  return verify_access(op, 0, kr_value_type(kr_op_result(op, 0)), "the result type");
}

kr_status kr_kernel_store_verify(kr_op *op) {
  if (verify_in_kernel(op)) return KR_FAILURE;
  if (op->num_operands < 2) return kr_op_emit_error(op, "expects a value and a buffer operand");
  return verify_access(op, 1, kr_value_type(kr_op_operand(op, 0)), "the stored value's type");
}

/* ---------------------------------------------------------------------------------------------
 * Warp shuffle and vectors. */

static const char *const shuffle_modes[] = {"xor", "down", "up", "idx"};

kr_status kr_kernel_shuffle_verify(kr_op *op) {
  if (verify_in_kernel(op)) return KR_FAILURE;
  kr_attr mode = kr_op_get_attr(op, KR_KERNEL_ATTR_MODE);
  if (!mode) return kr_op_emit_error(op, "requires attribute '" KR_KERNEL_ATTR_MODE "'");
  bool known = false;
  for (unsigned i = 0; mode->kind == KR_ATTR_STRING && i < 4; i++)
    known |= !strcmp(mode->u.string.str, shuffle_modes[i]);
  if (!known)
    return kr_op_emit_error(op,
                            "attribute '" KR_KERNEL_ATTR_MODE "' must be one of \"xor\", \"down\", \"up\", \"idx\"");
  /* shfl.sync moves 32 bits; 64-bit values take two shuffles (CUDA's __shfl_*_sync overloads). */
  kr_type t = kr_value_type(kr_op_operand(op, 0));
  unsigned w = kr_type_bitwidth(t);
  bool scalar = t->kind == KR_TYPE_INTEGER || t->kind == KR_TYPE_FLOAT || t->kind == KR_TYPE_INDEX;
  if (!scalar || (w != 32 && w != 64))
    return type_error(op, "operand #0 must be a 32- or 64-bit integer, index or float scalar", t);
  if (verify_index_operands(op, 1, 1, "the lane offset")) return KR_FAILURE;
  if (kr_value_type(kr_op_result(op, 0)) != t)
    return type_error(op, "result #0 must have the shuffled value's type", kr_value_type(kr_op_result(op, 0)));
  return KR_SUCCESS;
}

/* vector<N x T> with rank 1. */
static bool is_vector1(kr_type t) { return t->kind == KR_TYPE_VECTOR && t->u.shaped.rank == 1; }

kr_status kr_kernel_vector_extract_verify(kr_op *op) {
  kr_type vt = kr_value_type(kr_op_operand(op, 0));
  if (!is_vector1(vt)) return type_error(op, "operand #0 must be a vector of rank 1", vt);
  int64_t pos;
  if (get_i64_attr(op, KR_KERNEL_ATTR_POSITION, true, 0, vt->u.shaped.dims[0] - 1, 0, &pos)) return KR_FAILURE;
  kr_type rt = kr_value_type(kr_op_result(op, 0));
  if (rt != vt->u.shaped.elem) return type_error(op, "result #0 must be the vector's element type", rt);
  return KR_SUCCESS;
}

kr_status kr_kernel_vector_from_elements_verify(kr_op *op) {
  kr_type vt = kr_value_type(kr_op_result(op, 0));
  if (!is_vector1(vt)) return type_error(op, "result #0 must be a vector of rank 1", vt);
  if (vt->u.shaped.dims[0] != (int64_t)op->num_operands)
    return kr_op_emit_error(op, "expects %lld operands for a vector of %lld elements, but got %u",
                            (long long)vt->u.shaped.dims[0], (long long)vt->u.shaped.dims[0], op->num_operands);
  for (unsigned i = 0; i < op->num_operands; i++)
    if (kr_value_type(kr_op_operand(op, i)) != vt->u.shaped.elem) {
      char what[80];
      snprintf(what, sizeof what, "operand #%u must be the vector's element type", i);
      return type_error(op, what, kr_value_type(kr_op_operand(op, i)));
    }
  return KR_SUCCESS;
}
