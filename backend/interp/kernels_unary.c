/* backend/interp/kernels_unary.c - CPU reference kernels of the unary ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_eval_abs(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Abs is not implemented");
}

kr_status kr_eval_neg(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Neg is not implemented");
}

kr_status kr_eval_exp(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Exp is not implemented");
}

kr_status kr_eval_log(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Log is not implemented");
}

kr_status kr_eval_sqrt(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Sqrt is not implemented");
}

kr_status kr_eval_reciprocal(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Reciprocal is not implemented");
}

kr_status kr_eval_relu(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Relu is not implemented");
}

kr_status kr_eval_sigmoid(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Sigmoid is not implemented");
}

kr_status kr_eval_tanh(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Tanh is not implemented");
}

kr_status kr_eval_erf(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Erf is not implemented");
}

kr_status kr_eval_floor(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Floor is not implemented");
}

kr_status kr_eval_ceil(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Ceil is not implemented");
}

kr_status kr_eval_round(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Round is not implemented");
}

kr_status kr_eval_sign(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Sign is not implemented");
}

kr_status kr_eval_sin(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Sin is not implemented");
}

kr_status kr_eval_cos(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Cos is not implemented");
}

kr_status kr_eval_softplus(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Softplus is not implemented");
}

kr_status kr_eval_softsign(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Softsign is not implemented");
}

kr_status kr_eval_hard_sigmoid(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX HardSigmoid is not implemented");
}

kr_status kr_eval_hard_swish(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX HardSwish is not implemented");
}

kr_status kr_eval_leaky_relu(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX LeakyRelu is not implemented");
}

kr_status kr_eval_elu(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Elu is not implemented");
}

kr_status kr_eval_selu(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Selu is not implemented");
}

kr_status kr_eval_celu(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Celu is not implemented");
}

kr_status kr_eval_thresholded_relu(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ThresholdedRelu is not implemented");
}

kr_status kr_eval_mish(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Mish is not implemented");
}

kr_status kr_eval_clip(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Clip is not implemented");
}

kr_status kr_eval_identity(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Identity is not implemented");
}

kr_status kr_eval_not(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Not is not implemented");
}

kr_status kr_eval_is_nan(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX IsNaN is not implemented");
}

kr_status kr_eval_is_inf(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX IsInf is not implemented");
}

kr_status kr_eval_cast(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Cast is not implemented");
}

kr_status kr_eval_cast_like(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX CastLike is not implemented");
}

kr_status kr_eval_dropout(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Dropout is not implemented");
}
