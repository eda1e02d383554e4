/* dialects/arith/arith.c - the `arith` dialect: op table, registration, verifiers and constant
 * materialization.  Verifier wording follows MLIR's ArithOps.td constraints so diagnostics read
 * the same as mlir-opt's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/arith/arith_impl.h"
#include "dialects/core_dialects.h"
#include "dialects/dialect_util.h"
#include "korch/diag.h"

const char *const kr_arith_cmpi_predicates[KR_ARITH_NUM_CMPI_PREDICATES] = {
    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
};
const char *const kr_arith_cmpf_predicates[KR_ARITH_NUM_CMPF_PREDICATES] = {
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
};

/* ---------------------------------------------------------------------------------------------
 * Type classes. */

static kr_type element_of(kr_type t) {
  return (t->kind == KR_TYPE_TENSOR || t->kind == KR_TYPE_VECTOR) ? t->u.shaped.elem : t;
}

bool kr_arith_is_int_like(kr_type t, bool allow_index) {
  kr_type e = element_of(t);
  if (e->kind == KR_TYPE_INDEX) return allow_index;
  return e->kind == KR_TYPE_INTEGER && e->u.integer.sign == KR_SIGNLESS;
}

bool kr_arith_is_float_like(kr_type t) { return element_of(t)->kind == KR_TYPE_FLOAT; }

bool kr_arith_is_bool_like(kr_type t) {
  kr_type e = element_of(t);
  return e->kind == KR_TYPE_INTEGER && e->u.integer.sign == KR_SIGNLESS && e->u.integer.width == 1;
}

kr_type kr_arith_with_element(kr_context *ctx, kr_type t, kr_type elem) {
  if (t->kind == KR_TYPE_VECTOR) return kr_type_vector(ctx, t->u.shaped.dims, t->u.shaped.rank, elem);
  if (t->kind == KR_TYPE_TENSOR)
    return t->u.shaped.unranked ? kr_type_unranked_tensor(ctx, elem)
                                : kr_type_tensor(ctx, t->u.shaped.dims, t->u.shaped.rank, elem);
  return elem;
}

/* Same container (scalar / tensor / vector) and same dimensions. */
static bool same_shape(kr_type a, kr_type b) {
  bool sa = a->kind == KR_TYPE_TENSOR || a->kind == KR_TYPE_VECTOR;
  bool sb = b->kind == KR_TYPE_TENSOR || b->kind == KR_TYPE_VECTOR;
  if (!sa || !sb) return sa == sb;
  if (a->kind != b->kind || a->u.shaped.unranked != b->u.shaped.unranked) return false;
  if (a->u.shaped.unranked) return true;
  if (a->u.shaped.rank != b->u.shaped.rank) return false;
  for (unsigned i = 0; i < a->u.shaped.rank; i++)
    if (a->u.shaped.dims[i] != b->u.shaped.dims[i]) return false;
  return true;
}

/* MLIR's operand/result constraint messages: "operand #0 must be floating-point-like, but got
 * 'i32'". */
static kr_status type_class_error(kr_op *op, const char *what, unsigned index, const char *cls, kr_type t) {
  char *s = kr_type_to_cstr(t);
  kr_op_emit_error(op, "%s #%u must be %s, but got '%s'", what, index, cls, s);
  free(s);
  return KR_FAILURE;
}

#define INT_LIKE "signless-integer-like"
#define FIXED_INT_LIKE "signless-fixed-width-integer-like"
#define FLOAT_LIKE "floating-point-like"
#define BOOL_LIKE "bool-like"

/* ---------------------------------------------------------------------------------------------
 * Constants. */

kr_type kr_arith_const_attr_type(kr_context *ctx, kr_attr value) {
  if (value->kind == KR_ATTR_BOOL) return kr_type_integer(ctx, 1, KR_SIGNLESS);
  return value->type;
}

bool kr_arith_is_valid_const_attr(kr_attr v) {
  switch (v->kind) {
  case KR_ATTR_INTEGER:
  case KR_ATTR_FLOAT:
  case KR_ATTR_BOOL:
  case KR_ATTR_DENSE:
  case KR_ATTR_RESOURCE: return true;
  default: return false;
  }
}

kr_attr kr_arith_canonical_const_attr(kr_context *ctx, kr_attr value) {
  if (value->kind != KR_ATTR_BOOL) return value;
  return kr_attr_integer(ctx, kr_type_integer(ctx, 1, KR_SIGNLESS), value->u.b ? 1 : 0);
}

/* MLIR's arith::ConstantOp::verify plus the AllTypesMatch<value, result> constraint. */
kr_status kr_arith_constant_verify(kr_op *op) {
  kr_context *ctx = kr_op_context(op);
  kr_attr value = kr_op_get_attr(op, "value");
  if (!value) return kr_op_emit_error(op, "requires attribute 'value'");
  kr_type rt = kr_value_type(kr_op_result(op, 0));
  if (kr_arith_const_attr_type(ctx, value) != rt)
    return kr_op_emit_error(op, "failed to verify that all of {value, result} have same type");
  if (rt->kind == KR_TYPE_INTEGER && rt->u.integer.sign != KR_SIGNLESS)
    return kr_op_emit_error(op, "integer return type must be signless");
  if (!kr_arith_is_valid_const_attr(value))
    return kr_op_emit_error(op, "value must be an integer, float, or elements attribute");
  return KR_SUCCESS;
}

kr_op *kr_arith_materialize_constant(kr_builder *b, kr_attr value, kr_type type, kr_attr loc) {
  if (!value || !kr_arith_is_valid_const_attr(value)) return NULL;
  if (kr_arith_const_attr_type(b->ctx, value) != type) return NULL;
  if (type->kind == KR_TYPE_INTEGER && type->u.integer.sign != KR_SIGNLESS) return NULL;
  kr_op_state st;
  kr_op_state_init(&st, b->ctx, "arith.constant", loc);
  kr_op_state_add_attr(&st, "value", kr_arith_canonical_const_attr(b->ctx, value));
  kr_op_state_add_results(&st, &type, 1);
  kr_op *c = kr_builder_create(b, &st);
  kr_op_state_free(&st);
  return c;
}

/* ---------------------------------------------------------------------------------------------
 * Elementwise ops.  SAME_OPERANDS_AND_RESULT_TYPE is checked generically; these add the element
 * class of the (common) type. */

kr_status kr_arith_int_binary_verify(kr_op *op) {
  for (unsigned i = 0; i < op->num_operands; i++)
    if (!kr_arith_is_int_like(kr_value_type(kr_op_operand(op, i)), true))
      return type_class_error(op, "operand", i, INT_LIKE, kr_value_type(kr_op_operand(op, i)));
  if (!kr_arith_is_int_like(kr_value_type(kr_op_result(op, 0)), true))
    return type_class_error(op, "result", 0, INT_LIKE, kr_value_type(kr_op_result(op, 0)));
  return KR_SUCCESS;
}

kr_status kr_arith_float_binary_verify(kr_op *op) {
  for (unsigned i = 0; i < op->num_operands; i++)
    if (!kr_arith_is_float_like(kr_value_type(kr_op_operand(op, i))))
      return type_class_error(op, "operand", i, FLOAT_LIKE, kr_value_type(kr_op_operand(op, i)));
  if (!kr_arith_is_float_like(kr_value_type(kr_op_result(op, 0))))
    return type_class_error(op, "result", 0, FLOAT_LIKE, kr_value_type(kr_op_result(op, 0)));
  return KR_SUCCESS;
}

kr_status kr_arith_float_unary_verify(kr_op *op) { return kr_arith_float_binary_verify(op); }

/* ---------------------------------------------------------------------------------------------
 * Comparisons. */

/* `predicate`: an i64 integer attribute in [0, n) (MLIR's I64EnumAttr constraint). */
static kr_status verify_predicate(kr_op *op, unsigned n) {
  kr_attr pred = kr_op_get_attr(op, "predicate");
  if (!pred) return kr_op_emit_error(op, "requires attribute 'predicate'");
  if (pred->kind != KR_ATTR_INTEGER || !kr_type_is_integer(pred->type, 64) || pred->u.i < 0 ||
      pred->u.i >= (int64_t)n) {
    char cases[128];
    size_t len = 0;
    for (unsigned i = 0; i < n; i++) len += (size_t)snprintf(cases + len, sizeof cases - len, "%s%u", i ? ", " : "", i);
    return kr_op_emit_error(
        op, "attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases: %s", cases);
  }
  return KR_SUCCESS;
}

static kr_status verify_cmp(kr_op *op, bool is_float, unsigned num_predicates) {
  if (verify_predicate(op, num_predicates)) return KR_FAILURE;
  for (unsigned i = 0; i < 2; i++) {
    kr_type t = kr_value_type(kr_op_operand(op, i));
    if (is_float ? !kr_arith_is_float_like(t) : !kr_arith_is_int_like(t, true))
      return type_class_error(op, "operand", i, is_float ? FLOAT_LIKE : INT_LIKE, t);
  }
  kr_type rt = kr_value_type(kr_op_result(op, 0));
  if (!kr_arith_is_bool_like(rt)) return type_class_error(op, "result", 0, BOOL_LIKE, rt);
  if (!same_shape(rt, kr_value_type(kr_op_operand(op, 0))))
    return kr_op_emit_error(op, "failed to verify that result type has i1 element type and same shape as operands");
  return KR_SUCCESS;
}

kr_status kr_arith_cmpi_verify(kr_op *op) { return verify_cmp(op, false, KR_ARITH_NUM_CMPI_PREDICATES); }
kr_status kr_arith_cmpf_verify(kr_op *op) { return verify_cmp(op, true, KR_ARITH_NUM_CMPF_PREDICATES); }

/* ---------------------------------------------------------------------------------------------
 * select: the condition is i1 (whole values) or bool-like of the result's shape. */

kr_status kr_arith_select_verify(kr_op *op) {
  kr_type ct = kr_value_type(kr_op_operand(op, 0));
  if (!kr_arith_is_bool_like(ct)) return type_class_error(op, "operand", 0, BOOL_LIKE, ct);
  kr_type rt = kr_value_type(kr_op_result(op, 0));
  if (kr_value_type(kr_op_operand(op, 1)) != rt || kr_value_type(kr_op_operand(op, 2)) != rt)
    return kr_op_emit_error(op, "failed to verify that all of {true_value, false_value, result} have same type");
  bool scalar_cond = ct->kind != KR_TYPE_TENSOR && ct->kind != KR_TYPE_VECTOR;
  if (!scalar_cond && !same_shape(ct, rt))
    return kr_op_emit_error(op, "failed to verify that condition is signless i1 or has matching shape");
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Casts.  Operand/result classes, then MLIR's "operand type 'i32' and result type 'i16' are cast
 * incompatible" for the width rule, and "input and output have the same tensor dimensions". */

typedef enum cast_class { CAST_FIXED_INT, CAST_INT_OR_INDEX, CAST_FLOAT } cast_class;

static bool in_class(kr_type t, cast_class c) {
  switch (c) {
  case CAST_FIXED_INT: return kr_arith_is_int_like(t, false);
  case CAST_INT_OR_INDEX: return kr_arith_is_int_like(t, true);
  case CAST_FLOAT: return kr_arith_is_float_like(t);
  }
  return false;
}

static const char *class_name(cast_class c) {
  switch (c) {
  case CAST_FIXED_INT: return FIXED_INT_LIKE;
  case CAST_INT_OR_INDEX: return "signless-integer-like or memref of signless-integer";
  case CAST_FLOAT: return FLOAT_LIKE;
  }
  return "";
}

typedef enum width_rule { WIDEN, NARROW, ANY_WIDTH } width_rule;

/* `compatible` is the op's own element rule beyond the classes (NULL: by `rule`). */
static kr_status verify_cast(kr_op *op, cast_class from, cast_class to, width_rule rule,
                             bool (*compatible)(kr_type in, kr_type out)) {
  kr_type it = kr_value_type(kr_op_operand(op, 0)), ot = kr_value_type(kr_op_result(op, 0));
  if (!in_class(it, from)) return type_class_error(op, "operand", 0, class_name(from), it);
  if (!in_class(ot, to)) return type_class_error(op, "result", 0, class_name(to), ot);
  if (!same_shape(it, ot))
    return kr_op_emit_error(op, "failed to verify that input and output have the same tensor dimensions");
  kr_type ie = element_of(it), oe = element_of(ot);
  unsigned iw = kr_type_bitwidth(ie), ow = kr_type_bitwidth(oe);
  bool ok = compatible ? compatible(ie, oe) : rule == WIDEN ? iw < ow : rule == NARROW ? iw > ow : true;
  if (!ok) {
    char *is = kr_type_to_cstr(it), *os = kr_type_to_cstr(ot);
    kr_op_emit_error(op, "operand type '%s' and result type '%s' are cast incompatible", is, os);
    free(is);
    free(os);
    return KR_FAILURE;
  }
  return KR_SUCCESS;
}

/* index_cast: exactly one side is index. */
static bool index_cast_compatible(kr_type in, kr_type out) {
  return (in->kind == KR_TYPE_INDEX) != (out->kind == KR_TYPE_INDEX);
}

/* extf/truncf compare precision, not only width: bf16 and f16 are both 16 bits. */
static int float_rank(kr_type t) {
  switch (t->u.fkind) {
  case KR_F16:
  case KR_BF16: return 16;
  case KR_F32: return 32;
  case KR_F64: return 64;
  }
  return 0;
}
static bool extf_compatible(kr_type in, kr_type out) { return float_rank(in) < float_rank(out); }
static bool truncf_compatible(kr_type in, kr_type out) { return float_rank(in) > float_rank(out); }

kr_status kr_arith_index_cast_verify(kr_op *op) {
  return verify_cast(op, CAST_INT_OR_INDEX, CAST_INT_OR_INDEX, ANY_WIDTH, index_cast_compatible);
}
kr_status kr_arith_extsi_verify(kr_op *op) { return verify_cast(op, CAST_FIXED_INT, CAST_FIXED_INT, WIDEN, NULL); }
kr_status kr_arith_extui_verify(kr_op *op) { return verify_cast(op, CAST_FIXED_INT, CAST_FIXED_INT, WIDEN, NULL); }
kr_status kr_arith_trunci_verify(kr_op *op) { return verify_cast(op, CAST_FIXED_INT, CAST_FIXED_INT, NARROW, NULL); }
kr_status kr_arith_sitofp_verify(kr_op *op) { return verify_cast(op, CAST_FIXED_INT, CAST_FLOAT, ANY_WIDTH, NULL); }
kr_status kr_arith_uitofp_verify(kr_op *op) { return verify_cast(op, CAST_FIXED_INT, CAST_FLOAT, ANY_WIDTH, NULL); }
kr_status kr_arith_fptosi_verify(kr_op *op) { return verify_cast(op, CAST_FLOAT, CAST_FIXED_INT, ANY_WIDTH, NULL); }
kr_status kr_arith_fptoui_verify(kr_op *op) { return verify_cast(op, CAST_FLOAT, CAST_FIXED_INT, ANY_WIDTH, NULL); }
kr_status kr_arith_extf_verify(kr_op *op) { return verify_cast(op, CAST_FLOAT, CAST_FLOAT, WIDEN, extf_compatible); }
/* `roundingmode` (korch's extension, see ops.def): absent, "to_nearest_even" or "toward_zero". */
kr_status kr_arith_truncf_verify(kr_op *op) {
  if (verify_cast(op, CAST_FLOAT, CAST_FLOAT, NARROW, truncf_compatible)) return KR_FAILURE;
  kr_attr m = kr_op_get_attr(op, "roundingmode");
  if (m && (m->kind != KR_ATTR_STRING ||
            (strcmp(m->u.string.str, "to_nearest_even") && strcmp(m->u.string.str, "toward_zero"))))
    return kr_op_emit_error(op, "attribute 'roundingmode' must be the string \"to_nearest_even\" or \"toward_zero\"");
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Registration. */

static const kr_op_def arith_ops[] = {
#define KR_OP KR_OP_TABLE_ROW
#include "ops.def"
#undef KR_OP
};

const kr_dialect_def kr_arith_dialect = {
    .name = "arith",
    .summary = "integer and floating-point arithmetic, comparisons, select and casts",
    .ops = arith_ops,
    .num_ops = KR_ARRAY_SIZE(arith_ops),
    .materialize_constant = kr_arith_materialize_constant,
};
