/* backend/interp/kernels_norm.c - CPU reference kernels of the norm ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_eval_softmax(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Softmax is not implemented");
}

kr_status kr_eval_log_softmax(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX LogSoftmax is not implemented");
}

kr_status kr_eval_hardmax(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Hardmax is not implemented");
}

kr_status kr_eval_layer_normalization(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX LayerNormalization is not implemented");
}

kr_status kr_eval_batch_normalization(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX BatchNormalization is not implemented");
}

kr_status kr_eval_instance_normalization(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX InstanceNormalization is not implemented");
}

kr_status kr_eval_lp_normalization(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX LpNormalization is not implemented");
}

kr_status kr_eval_mean_variance_normalization(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX MeanVarianceNormalization is not implemented");
}
