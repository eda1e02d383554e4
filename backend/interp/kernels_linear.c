/* backend/interp/kernels_linear.c - CPU reference kernels of the linear ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_eval_mat_mul(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX MatMul is not implemented");
}

kr_status kr_eval_gemm(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Gemm is not implemented");
}

kr_status kr_eval_conv(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Conv is not implemented");
}

kr_status kr_eval_conv_transpose(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ConvTranspose is not implemented");
}

kr_status kr_eval_einsum(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Einsum is not implemented");
}
