/* backend/interp/kernels_layout.c - CPU reference kernels of the layout ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_eval_reshape(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Reshape is not implemented");
}

kr_status kr_eval_flatten(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Flatten is not implemented");
}

kr_status kr_eval_transpose(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Transpose is not implemented");
}

kr_status kr_eval_squeeze(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Squeeze is not implemented");
}

kr_status kr_eval_unsqueeze(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Unsqueeze is not implemented");
}

kr_status kr_eval_concat(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Concat is not implemented");
}

kr_status kr_eval_split(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Split is not implemented");
}

kr_status kr_eval_slice(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Slice is not implemented");
}

kr_status kr_eval_pad(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Pad is not implemented");
}

kr_status kr_eval_tile(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Tile is not implemented");
}

kr_status kr_eval_gather(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Gather is not implemented");
}

kr_status kr_eval_gather_elements(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX GatherElements is not implemented");
}

kr_status kr_eval_gather_nd(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX GatherND is not implemented");
}

kr_status kr_eval_depth_to_space(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX DepthToSpace is not implemented");
}

kr_status kr_eval_space_to_depth(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX SpaceToDepth is not implemented");
}

kr_status kr_eval_resize(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Resize is not implemented");
}

kr_status kr_eval_shape(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Shape is not implemented");
}

kr_status kr_eval_size(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Size is not implemented");
}

kr_status kr_eval_constant_of_shape(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX ConstantOfShape is not implemented");
}

kr_status kr_eval_range(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Range is not implemented");
}

kr_status kr_eval_trilu(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX Trilu is not implemented");
}

kr_status kr_eval_one_hot(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins, (void)outs;
  return kr_op_emit_error(op, "the CPU kernel of ONNX OneHot is not implemented");
}
