/* dialects/op/shape_norm.c - shape inference of the norm ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_infer_softmax(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Softmax is not implemented");
}

kr_status kr_infer_log_softmax(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX LogSoftmax is not implemented");
}

kr_status kr_infer_hardmax(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Hardmax is not implemented");
}

kr_status kr_infer_layer_normalization(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX LayerNormalization is not implemented");
}

kr_status kr_infer_batch_normalization(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX BatchNormalization is not implemented");
}

kr_status kr_infer_instance_normalization(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX InstanceNormalization is not implemented");
}

kr_status kr_infer_lp_normalization(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX LpNormalization is not implemented");
}

kr_status kr_infer_mean_variance_normalization(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX MeanVarianceNormalization is not implemented");
}
