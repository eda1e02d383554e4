/* korch/op.h - the `op` dialect (operator level): one op per ONNX operator, with the operands,
 * results and attributes of ONNX opset 17 (docs/Dialects/op.md).
 *
 * Every op of the dialect is described by a row of dialects/op/ops.def: operand, result and
 * attribute schema, shape inference hook (kr_infer_<stem>) and CPU reference kernel
 * (kr_eval_<stem>, backend/interp).  This header is what the importer, passes and tools use to
 * read an op: attributes with their ONNX defaults, constant operands, and shape inference.
 *
 * Tensors are `tensor<d0 x d1 x ... x elem>` with static dims (row-major, ONNX layout: NCHW for
 * images, [M, K] x [K, N] for matrices).  ONNX element types map to: FLOAT f32, DOUBLE f64,
 * FLOAT16 f16, BFLOAT16 bf16, INT8..INT64 i8..i64 (signless = two's complement signed),
 * UINT8..UINT64 ui8..ui64, BOOL i1.  An omitted optional operand in the middle of the list is the
 * result of `op.none` (type `none`); trailing omitted ones are left out. */
#ifndef KORCH_OP_H
#define KORCH_OP_H

#include "korch/dialect.h"
#include "korch/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the op dialect (needs builtin and func: call kr_register_core_dialects first). */
kr_status kr_register_op_dialect(kr_context *ctx);

/* Attribute kinds of the schema (ops.def). */
typedef enum kr_op_attr_kind {
  KR_OPATTR_INT, KR_OPATTR_FLOAT, KR_OPATTR_STRING, KR_OPATTR_INTS, KR_OPATTR_FLOATS,
  KR_OPATTR_TENSOR, KR_OPATTR_TYPE,
} kr_op_attr_kind;

typedef struct kr_op_attr_spec {
  const char *name;          /* ONNX attribute name */
  kr_op_attr_kind kind;
  bool required;
  bool has_default;
  int64_t dflt_int;          /* INT */
  double dflt_float;         /* FLOAT */
  const char *dflt_string;   /* STRING */
  const int64_t *dflt_ints;  /* INTS */
  unsigned num_dflt_ints;
} kr_op_attr_spec;

typedef struct kr_op_operand_spec {
  const char *name;          /* ONNX input/output name */
  bool optional, variadic, shape;   /* `?`, `...`, `#` in ops.def */
  bool static_value;                /* `$` in ops.def: must be constant to lower, not for the shape */
} kr_op_operand_spec;

/* Shape inference: given op's operands (types, and constants through kr_op_constant_operand)
 * and attributes, fill results[0..op->num_results) with static tensor types.  Reports errors
 * at the op (kr_op_emit_error) and returns KR_FAILURE. */
typedef kr_status (*kr_infer_fn)(kr_op *op, kr_type *results);

/* The parsed row of one op (what kr_op_def::shape_inference points at for op-dialect ops). */
typedef struct kr_op_schema {
  const char *onnx_name;     /* "Conv" */
  const char *family;        /* "linear": the shape_<family>.c / kernels_<family>.c file pair */
  const kr_op_operand_spec *operands; unsigned num_operands;
  const kr_op_operand_spec *results;  unsigned num_results;
  const kr_op_attr_spec *attrs;       unsigned num_attrs;
  unsigned min_operands, max_operands;   /* max UINT32_MAX: variadic */
  unsigned min_results, max_results;
  kr_infer_fn infer;
} kr_op_schema;

/* The schema of an op of the op dialect (NULL for any other op); by ONNX operator name. */
const kr_op_schema *kr_op_get_schema(const kr_op *op);
const kr_op_schema *kr_op_schema_by_onnx_name(kr_context *ctx, const char *onnx_name);
/* The registered op name ("op.conv") of an ONNX operator, NULL if the dialect has none. */
const char *kr_op_name_for_onnx(kr_context *ctx, const char *onnx_name);

/* ---------------------------------------------------------------------------------------------
 * Attributes with ONNX defaults.  `name` must be in the op's schema (else: 0 / NULL).  A present
 * attribute of the wrong kind has been rejected by the verifier; these return the default then. */
int64_t kr_op_attr_int(const kr_op *op, const char *name);
double kr_op_attr_float(const kr_op *op, const char *name);
/* NUL-terminated; NULL when absent without default. */
const char *kr_op_attr_string(const kr_op *op, const char *name);
/* Number of elements; *vals points into the attribute (context-owned) or is NULL when absent
 * without default (returns 0). */
unsigned kr_op_attr_ints(const kr_op *op, const char *name, const int64_t **vals);
/* Float lists have no schema defaults (no ONNX opset-17 operator of the set has one): absent
 * gives 0 and NULL. */
unsigned kr_op_attr_floats(const kr_op *op, const char *name, const float **vals);
kr_type kr_op_attr_type(const kr_op *op, const char *name);     /* NULL when absent */
kr_attr kr_op_attr_tensor(const kr_op *op, const char *name);   /* dense/resource or NULL */
bool kr_op_attr_present(const kr_op *op, const char *name);

/* ---------------------------------------------------------------------------------------------
 * Operands. */
/* Whether operand i exists and is not an `op.none` value. */
bool kr_op_operand_present(kr_op *op, unsigned i);
/* The value (dense or dense_resource attribute, typed like the operand) of operand i when it is
 * produced by a constant-like op; NULL otherwise or when absent. */
kr_attr kr_op_constant_operand(kr_op *op, unsigned i);
/* Reads constant integer operand i (any integer element type, at most `cap` elements) into
 * `out`; returns the element count, or -1 after reporting an error at the op naming the operand
 * ("operand 'shape' must be a constant", "... has N elements, at most CAP supported"). */
int64_t kr_op_constant_ints(kr_op *op, unsigned i, int64_t *out, int64_t cap);
/* The same for floats (any float or integer element type, converted to double). */
int64_t kr_op_constant_floats(kr_op *op, unsigned i, double *out, int64_t cap);

/* ---------------------------------------------------------------------------------------------
 * Shape helpers for the infer hooks (ONNX conventions). */
/* Normalises `axis` in [-rank, rank) to [0, rank) (ONNX's negative-axis rule; for Unsqueeze-like
 * insertion pass the output rank); reports "<what> A is out of range [-R, R)" at the op, `what`
 * naming the attribute or operand (e.g. "attribute 'axis'"). */
kr_status kr_op_normalize_axis(kr_op *op, const char *what, int64_t axis, int64_t rank, int64_t *out);
/* Multidirectional (numpy) broadcasting of `n` static shapes (ONNX docs/Broadcasting.md); the
 * result has max rank; reports "operands have incompatible shapes ..." at the op. */
kr_status kr_op_broadcast_shapes(kr_op *op, const kr_type *types, unsigned n, int64_t *out_dims, unsigned *out_rank);
/* The static ranked tensor type of operand i, or an error "operand 'X' must be a tensor with a
 * static shape, got T" (the rule: the op level only holds static shapes). */
kr_status kr_op_operand_tensor(kr_op *op, unsigned i, kr_type *out);
/* The maximum rank korch supports (dims arrays on the stack). */
#define KR_OP_MAX_RANK 16

/* Runs the op's schema checks and shape inference without comparing to the declared types:
 * fills results[0..op->num_results).  For the importer (create the op, infer, set the types). */
kr_status kr_op_infer_result_types(kr_op *op, kr_type *results);
/* Infers and sets every result type of `op` (kr_value_set_type). */
kr_status kr_op_infer_and_set_types(kr_op *op);

/* Well-known op names. */
#define KR_OP_CONSTANT "op.constant"   /* `value` attribute: dense or dense_resource */
#define KR_OP_NONE "op.none"           /* the absent optional operand, type `none` */

#ifdef __cplusplus
}
#endif
#endif
