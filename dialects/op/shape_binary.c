/* dialects/op/shape_binary.c - shape inference of the binary ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_infer_add(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Add is not implemented");
}

kr_status kr_infer_sub(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Sub is not implemented");
}

kr_status kr_infer_mul(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Mul is not implemented");
}

kr_status kr_infer_div(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Div is not implemented");
}

kr_status kr_infer_pow(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Pow is not implemented");
}

kr_status kr_infer_mod(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Mod is not implemented");
}

kr_status kr_infer_prelu(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX PRelu is not implemented");
}

kr_status kr_infer_max(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Max is not implemented");
}

kr_status kr_infer_min(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Min is not implemented");
}

kr_status kr_infer_sum(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Sum is not implemented");
}

kr_status kr_infer_mean(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Mean is not implemented");
}

kr_status kr_infer_equal(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Equal is not implemented");
}

kr_status kr_infer_less(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Less is not implemented");
}

kr_status kr_infer_greater(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Greater is not implemented");
}

kr_status kr_infer_less_or_equal(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX LessOrEqual is not implemented");
}

kr_status kr_infer_greater_or_equal(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX GreaterOrEqual is not implemented");
}

kr_status kr_infer_and(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX And is not implemented");
}

kr_status kr_infer_or(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Or is not implemented");
}

kr_status kr_infer_xor(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Xor is not implemented");
}

kr_status kr_infer_where(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Where is not implemented");
}

kr_status kr_infer_expand(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Expand is not implemented");
}
