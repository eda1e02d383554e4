/* korch/onnx.h - ONNX import (frontend/onnx): a .onnx model becomes a builtin.module holding
 * `func.func @main` at the op level (korch/op.h), with static shapes and folded shape
 * sub-graphs.  ONNX's IR and operator specs: onnx/docs/IR.md, Operators.md, Changelog.md;
 * models of any default-domain opset up to 17 are upgraded to the op dialect's opset-17 form.
 *
 * Graph inputs/outputs become the function's arguments/results, with their ONNX names as the
 * argument/result attribute `onnx.name`; initializers and Constant nodes become op.constant
 * (dense_resource for large ones); node names become name locations. */
#ifndef KORCH_ONNX_H
#define KORCH_ONNX_H

#include "korch/interp.h"
#include "korch/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A graph input fixed by the caller. */
typedef struct kr_onnx_input_shape {
  const char *name;           /* ONNX graph input name */
  const int64_t *dims;        /* rank entries, all >= 0 */
  unsigned rank;
} kr_onnx_input_shape;

typedef struct kr_onnx_binding {
  const char *name;           /* ONNX graph input name */
  const kr_tensor *value;     /* copied into the module as a constant */
} kr_onnx_binding;

typedef struct kr_onnx_import_options {
  const kr_onnx_input_shape *shapes; unsigned num_shapes;     /* --input-shape */
  const kr_onnx_binding *bindings; unsigned num_bindings;     /* --bind-input */
  /* Initializers / Constant values larger than this many bytes become dense_resource blobs
   * (0: the default, 1024). */
  size_t resource_threshold;
} kr_onnx_import_options;

/* Imports `path` (external data files are looked up relative to its folder; absolute locations
 * and `..` are refused).  Returns a verified builtin.module owned by ctx, or NULL after
 * reporting every problem found as a diagnostic located at the model file (one per unsupported
 * operator/dtype/attribute: op type, node name, what is wrong; truncated or corrupt files;
 * dynamic dims not fixed by `shapes`; shape operands that are not constants, naming the graph
 * inputs to bind).  `opts` may be NULL.
 *
 * Nodes are imported in topological order and each op is shape-inferred and folded as it is
 * created, so shape sub-graphs become constants; unused ops are removed at the end.  Memory:
 * the file is read whole, unpacked by protobuf-c under an allocation budget (8x the file size +
 * 64 MiB) after a check that messages nest at most 64 levels, and freed; large raw_data buffers
 * are adopted as resources, not copied.  Node locations are loc("<node name>") (unnamed nodes:
 * "<OpType>_<index>"); the module carries `onnx.opset` and `onnx.producer`. */
kr_op *kr_onnx_import_file(kr_context *ctx, const char *path, const kr_onnx_import_options *opts);

/* Names of the graph inputs that are not initializers, in graph order: the K-th is what ONNX's
 * test data calls input_K.pb.  *names is a malloc'd array of malloc'd strings (free each, then
 * the array).  Reports unreadable files through ctx. */
kr_status kr_onnx_graph_inputs(kr_context *ctx, const char *path, char ***names, unsigned *count);

/* Names of the graph inputs whose values decide a shape (they reach a shape operand `#` of some
 * node, other than through Shape/Size), in graph order: a caller binds them (--bind-input) so
 * the imported graph has static shapes.  *names is a malloc'd array of malloc'd strings (free
 * each, then the array).  Reports unreadable files through ctx. */
kr_status kr_onnx_shape_inputs(kr_context *ctx, const char *path, char ***names, unsigned *count);

/* Reads a serialized ONNX TensorProto (`.pb`, as in ONNX's test data) into an owned tensor (free
 * it with kr_tensor_free).  Reports unreadable files, corrupt protobuf and unsupported element
 * types (STRING, complex) at loc(path). */
kr_status kr_onnx_read_tensor_file(kr_context *ctx, const char *path, kr_tensor *out);

#ifdef __cplusplus
}
#endif
#endif
