/* dialects/op/shape_unary.c - shape inference of the unary ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_infer_abs(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Abs is not implemented");
}

kr_status kr_infer_neg(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Neg is not implemented");
}

kr_status kr_infer_exp(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Exp is not implemented");
}

kr_status kr_infer_log(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Log is not implemented");
}

kr_status kr_infer_sqrt(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Sqrt is not implemented");
}

kr_status kr_infer_reciprocal(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Reciprocal is not implemented");
}

kr_status kr_infer_relu(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Relu is not implemented");
}

kr_status kr_infer_sigmoid(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Sigmoid is not implemented");
}

kr_status kr_infer_tanh(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Tanh is not implemented");
}

kr_status kr_infer_erf(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Erf is not implemented");
}

kr_status kr_infer_floor(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Floor is not implemented");
}

kr_status kr_infer_ceil(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Ceil is not implemented");
}

kr_status kr_infer_round(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Round is not implemented");
}

kr_status kr_infer_sign(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Sign is not implemented");
}

kr_status kr_infer_sin(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Sin is not implemented");
}

kr_status kr_infer_cos(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Cos is not implemented");
}

kr_status kr_infer_softplus(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Softplus is not implemented");
}

kr_status kr_infer_softsign(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Softsign is not implemented");
}

kr_status kr_infer_hard_sigmoid(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX HardSigmoid is not implemented");
}

kr_status kr_infer_hard_swish(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX HardSwish is not implemented");
}

kr_status kr_infer_leaky_relu(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX LeakyRelu is not implemented");
}

kr_status kr_infer_elu(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Elu is not implemented");
}

kr_status kr_infer_selu(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Selu is not implemented");
}

kr_status kr_infer_celu(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Celu is not implemented");
}

kr_status kr_infer_thresholded_relu(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ThresholdedRelu is not implemented");
}

kr_status kr_infer_mish(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Mish is not implemented");
}

kr_status kr_infer_clip(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Clip is not implemented");
}

kr_status kr_infer_identity(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Identity is not implemented");
}

kr_status kr_infer_not(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Not is not implemented");
}

kr_status kr_infer_is_nan(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX IsNaN is not implemented");
}

kr_status kr_infer_is_inf(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX IsInf is not implemented");
}

kr_status kr_infer_cast(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Cast is not implemented");
}

kr_status kr_infer_cast_like(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX CastLike is not implemented");
}

kr_status kr_infer_dropout(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Dropout is not implemented");
}
