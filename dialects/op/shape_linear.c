/* dialects/op/shape_linear.c - shape inference of the linear ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_infer_mat_mul(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX MatMul is not implemented");
}

kr_status kr_infer_gemm(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Gemm is not implemented");
}

kr_status kr_infer_conv(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Conv is not implemented");
}

kr_status kr_infer_conv_transpose(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ConvTranspose is not implemented");
}

kr_status kr_infer_einsum(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Einsum is not implemented");
}
