/* backend/interp/kernels_reduce.c - CPU reference kernels of the reduce ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_eval_reduce_sum(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ReduceSum is not implemented");
}

kr_status kr_eval_reduce_mean(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ReduceMean is not implemented");
}

kr_status kr_eval_reduce_max(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ReduceMax is not implemented");
}

kr_status kr_eval_reduce_min(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ReduceMin is not implemented");
}

kr_status kr_eval_reduce_prod(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ReduceProd is not implemented");
}

kr_status kr_eval_reduce_sum_square(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ReduceSumSquare is not implemented");
}

kr_status kr_eval_reduce_l1(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ReduceL1 is not implemented");
}

kr_status kr_eval_reduce_l2(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ReduceL2 is not implemented");
}

kr_status kr_eval_reduce_log_sum(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ReduceLogSum is not implemented");
}

kr_status kr_eval_reduce_log_sum_exp(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ReduceLogSumExp is not implemented");
}

kr_status kr_eval_arg_max(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ArgMax is not implemented");
}

kr_status kr_eval_arg_min(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ArgMin is not implemented");
}

kr_status kr_eval_cum_sum(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX CumSum is not implemented");
}
