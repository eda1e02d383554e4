/* backend/interp/kernels_binary.c - CPU reference kernels of the binary ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_eval_add(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Add is not implemented");
}

kr_status kr_eval_sub(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Sub is not implemented");
}

kr_status kr_eval_mul(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Mul is not implemented");
}

kr_status kr_eval_div(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Div is not implemented");
}

kr_status kr_eval_pow(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Pow is not implemented");
}

kr_status kr_eval_mod(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Mod is not implemented");
}

kr_status kr_eval_prelu(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX PRelu is not implemented");
}

kr_status kr_eval_max(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Max is not implemented");
}

kr_status kr_eval_min(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Min is not implemented");
}

kr_status kr_eval_sum(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Sum is not implemented");
}

kr_status kr_eval_mean(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Mean is not implemented");
}

kr_status kr_eval_equal(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Equal is not implemented");
}

kr_status kr_eval_less(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Less is not implemented");
}

kr_status kr_eval_greater(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Greater is not implemented");
}

kr_status kr_eval_less_or_equal(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX LessOrEqual is not implemented");
}

kr_status kr_eval_greater_or_equal(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX GreaterOrEqual is not implemented");
}

kr_status kr_eval_and(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX And is not implemented");
}

kr_status kr_eval_or(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Or is not implemented");
}

kr_status kr_eval_xor(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Xor is not implemented");
}

kr_status kr_eval_where(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Where is not implemented");
}

kr_status kr_eval_expand(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Expand is not implemented");
}
