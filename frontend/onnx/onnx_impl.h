/* frontend/onnx/onnx_impl.h - private to the ONNX importer: the protobuf-c model, the importer
 * state, and the helpers the files of this folder share.
 *
 *   read.c      whole-file reading, the bounded protobuf-c allocator, model/tensor unpacking
 *   tensor.c    TensorProto -> element type, kr_tensor, dense / dense_resource attribute
 *   attr.c      AttributeProto -> op-dialect attribute encoding (by the op's schema)
 *   graph.c     the import driver: module, func, inputs, initializers, nodes, outputs
 *   node.c      one node -> one op: operands, attributes, shape inference, folding
 *   upgrade.c   default-domain opset history: older node forms -> the opset-17 form
 *   shape_inputs.c  kr_onnx_shape_inputs */
#ifndef KORCH_FRONTEND_ONNX_IMPL_H
#define KORCH_FRONTEND_ONNX_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "korch/diag.h"
#include "korch/interp.h"
#include "korch/ir.h"
#include "korch/onnx.h"
#include "korch/op.h"
#include "onnx.pb-c.h"

/* ---------------------------------------------------------------------------------------------
 * read.c */

/* A parsed model and the allocator that bounds it.  Free with kr_onnx_model_free. */
typedef struct kr_onnx_model {
  Onnx__ModelProto *proto;
  ProtobufCAllocator alloc;
  size_t budget, used;   /* bytes the allocator may hand out in all / has handed out */
  bool exceeded;         /* an allocation was refused */
  char *dir;             /* folder of the model file (external data), malloc'd */
} kr_onnx_model;

/* Maps and unpacks `path` (initializers one at a time, releasing the mapping as it goes), so
 * only the unpacked message stays in memory.  Errors ("cannot read", "not a valid ONNX model (protobuf parse
 * failed)", allocation budget exceeded) are reported at loc(path:0:0). */
kr_status kr_onnx_model_load(kr_context *ctx, const char *path, kr_onnx_model *m);
void kr_onnx_model_free(kr_onnx_model *m);
/* The file location diagnostics about the model use. */
kr_attr kr_onnx_file_loc(kr_context *ctx, const char *path);

/* ---------------------------------------------------------------------------------------------
 * tensor.c */

/* The korch element type of an ONNX TensorProto.DataType code (korch/op.h's table), or NULL
 * for STRING, COMPLEX64/128, UNDEFINED and unknown codes. */
kr_type kr_onnx_elem_type(kr_context *ctx, int32_t code);
/* The ONNX name of a data type code ("FLOAT", "STRING", ...) for messages. */
const char *kr_onnx_dtype_name(int32_t code);
/* The data type code of an ONNX type name ("FLOAT" -> 1), as Cast-1's string `to` spells it;
 * -1 if unknown. */
int32_t kr_onnx_dtype_code(const char *name);

/* Reads the elements of `t` (raw_data, typed fields or external data relative to `dir`) into a
 * malloc'd little-endian buffer of the tensor's korch element type.  `steal`: raw_data may be
 * taken from the message instead of copied (the field is cleared).  `what` names the tensor in
 * errors ("initializer 'w'", "attribute 'value' of node 'c'").  On success *type is the
 * tensor type, *data / *size the buffer (size 0: *data may be NULL). */
kr_status kr_onnx_tensor_data(kr_context *ctx, kr_attr loc, Onnx__TensorProto *t, const char *dir, bool steal,
                              const char *what, kr_type *type, void **data, size_t *size);
/* A tensor as an attribute: dense, or dense_resource (key from `name`, sanitized) when larger
 * than `threshold` bytes, adopting the buffer.  Reports errors as kr_onnx_tensor_data. */
kr_attr kr_onnx_tensor_attr(kr_context *ctx, kr_attr loc, Onnx__TensorProto *t, const char *dir, size_t threshold,
                            const char *name, const char *what);
/* A malloc'd buffer as an attribute (dense copy, or adopted as a resource when large); takes
 * ownership of `data` either way. */
kr_attr kr_onnx_buffer_attr(kr_context *ctx, kr_type type, void *data, size_t size, size_t threshold, const char *name);

/* ---------------------------------------------------------------------------------------------
 * The importer state (graph.c, node.c, upgrade.c). */

typedef struct kr_onnx_importer {
  kr_context *ctx;
  const char *path;
  kr_onnx_model *model;
  const kr_onnx_import_options *opts;
  size_t threshold;
  int64_t opset;             /* default-domain opset of the model */
  kr_op *module, *func;
  kr_block *body;
  kr_builder b;              /* appends to body */
  kr_hmap values;            /* kr_ident tensor name -> kr_value (or POISON) */
  kr_value none;             /* the shared op.none, created on first need */
  kr_vec arg_names;          /* const char *: ONNX name of each func argument */
  unsigned errors;           /* problems reported by the importer itself */
} kr_onnx_importer;

/* The value map's marker for tensors whose producer failed (its consumers are skipped quietly:
 * the first error has been reported). */
extern struct kr_value_impl kr_onnx_poison;
#define KR_ONNX_POISON (&kr_onnx_poison)

kr_value kr_onnx_lookup(kr_onnx_importer *I, const char *name);
void kr_onnx_define(kr_onnx_importer *I, const char *name, kr_value v);

/* Reports an importer error at `loc` and counts it. */
void kr_onnx_error(kr_onnx_importer *I, kr_attr loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* One ONNX node on its way to becoming an op (node.c builds it, upgrade.c may rewrite it). */
typedef struct kr_onnx_node {
  kr_context *ctx;
  const Onnx__NodeProto *proto;
  const char *op_type;       /* ONNX operator (upgrade may change it) */
  char name[256];            /* node name (truncated), or "<OpType>_<index>" */
  kr_attr loc;
  kr_vec operands;           /* kr_value; NULL: omitted optional input */
  const Onnx__AttributeProto **raw;   /* the node's attributes ... */
  bool *dropped;             /* ... those the upgrade consumed or ignores */
  unsigned num_raw;
  kr_vec attrs;              /* kr_named_attr added by the upgrade (op-dialect encoding) */
  unsigned num_results;
  bool done;                 /* the upgrade emitted the node itself: results[] are set */
  kr_value *results;         /* num_results entries */
} kr_onnx_node;

/* The raw attribute `name` of the node (not dropped), or NULL. */
const Onnx__AttributeProto *kr_onnx_node_attr(kr_onnx_node *n, const char *name);
/* Marks attribute `name` consumed (it is not converted); no-op when absent. */
void kr_onnx_node_drop(kr_onnx_node *n, const char *name);
void kr_onnx_node_set_attr(kr_onnx_node *n, const char *name, kr_attr value);
kr_value kr_onnx_node_operand(kr_onnx_node *n, unsigned i);   /* NULL when absent */
void kr_onnx_node_set_operand(kr_onnx_node *n, unsigned i, kr_value v);  /* grows with NULLs */

/* Creates op `op_name` (registered op-dialect name) at the end of the body with `operands`
 * (NULL entries: omitted optional ones), attributes and `num_results` results, at n's location;
 * infers the result types and folds it when every operand is constant.  Fills results[].
 * Errors are reported at n's location (naming the node and its first output); returns
 * KR_FAILURE then. */
kr_status kr_onnx_emit(kr_onnx_importer *I, const char *op_name, const kr_value *operands, unsigned num_operands,
                       const kr_named_attr *attrs, unsigned num_attrs, unsigned num_results, const kr_onnx_node *n,
                       kr_value *results);
/* A 1-D i64 constant (or a scalar when `scalar`). */
kr_value kr_onnx_const_i64(kr_onnx_importer *I, const int64_t *vals, unsigned n, bool scalar, kr_attr loc);
/* A scalar f32 constant. */
kr_value kr_onnx_const_f32(kr_onnx_importer *I, float v, kr_attr loc);
/* A constant holding `value` (dense or resource). */
kr_value kr_onnx_const_attr(kr_onnx_importer *I, kr_attr value, kr_attr loc);

/* Imports one node (node.c). */
void kr_onnx_import_node(kr_onnx_importer *I, const Onnx__NodeProto *np, unsigned index);

/* ---------------------------------------------------------------------------------------------
 * attr.c */

/* Converts the ONNX attribute `a` to the encoding of an attribute of kind `kind`; NULL after
 * reporting (at loc) a kind it cannot be converted from. */
kr_attr kr_onnx_convert_attr(kr_onnx_importer *I, const Onnx__AttributeProto *a, kr_op_attr_kind kind, kr_attr loc,
                             const kr_onnx_node *n);
/* Reads an INT / INTS / FLOAT / STRING attribute with a fallback. */
int64_t kr_onnx_attr_i(const Onnx__AttributeProto *a, int64_t dflt);
double kr_onnx_attr_f(const Onnx__AttributeProto *a, double dflt);
const char *kr_onnx_attr_s(const Onnx__AttributeProto *a, const char *dflt, size_t *len);
/* The integer list (INTS; or one INT) of `a`; returns the count, *vals points into `a`. */
size_t kr_onnx_attr_ints(const Onnx__AttributeProto *a, const int64_t **vals);
const char *kr_onnx_attr_type_name(int type);

/* ---------------------------------------------------------------------------------------------
 * upgrade.c */

/* Rewrites `n` from the model's opset to the opset-17 form: attributes that became inputs turn
 * into constants, defaults that changed are made explicit, removed attributes are dropped.  May
 * emit the node itself (n->done).  Reports unsupported forms; KR_FAILURE then. */
kr_status kr_onnx_upgrade_node(kr_onnx_importer *I, kr_onnx_node *n);

#endif
