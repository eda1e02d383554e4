/* dialects/op/shape_pool.c - shape inference of the pool ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_infer_max_pool(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX MaxPool is not implemented");
}

kr_status kr_infer_average_pool(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX AveragePool is not implemented");
}

kr_status kr_infer_global_average_pool(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX GlobalAveragePool is not implemented");
}

kr_status kr_infer_global_max_pool(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX GlobalMaxPool is not implemented");
}
