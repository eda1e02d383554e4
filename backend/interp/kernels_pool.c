/* backend/interp/kernels_pool.c - CPU reference kernels of the pool ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_eval_max_pool(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX MaxPool is not implemented");
}

kr_status kr_eval_average_pool(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX AveragePool is not implemented");
}

kr_status kr_eval_global_average_pool(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX GlobalAveragePool is not implemented");
}

kr_status kr_eval_global_max_pool(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX GlobalMaxPool is not implemented");
}
