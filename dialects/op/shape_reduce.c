/* dialects/op/shape_reduce.c - shape inference of the reduce ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_infer_reduce_sum(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ReduceSum is not implemented");
}

kr_status kr_infer_reduce_mean(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ReduceMean is not implemented");
}

kr_status kr_infer_reduce_max(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ReduceMax is not implemented");
}

kr_status kr_infer_reduce_min(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ReduceMin is not implemented");
}

kr_status kr_infer_reduce_prod(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ReduceProd is not implemented");
}

kr_status kr_infer_reduce_sum_square(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ReduceSumSquare is not implemented");
}

kr_status kr_infer_reduce_l1(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ReduceL1 is not implemented");
}

kr_status kr_infer_reduce_l2(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ReduceL2 is not implemented");
}

kr_status kr_infer_reduce_log_sum(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ReduceLogSum is not implemented");
}

kr_status kr_infer_reduce_log_sum_exp(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ReduceLogSumExp is not implemented");
}

kr_status kr_infer_arg_max(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ArgMax is not implemented");
}

kr_status kr_infer_arg_min(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ArgMin is not implemented");
}

kr_status kr_infer_cum_sum(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX CumSum is not implemented");
}
