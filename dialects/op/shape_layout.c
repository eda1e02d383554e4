/* dialects/op/shape_layout.c - shape inference of the layout ops (ONNX opset 17). */
#include "dialects/op/op_impl.h"

kr_status kr_infer_reshape(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Reshape is not implemented");
}

kr_status kr_infer_flatten(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Flatten is not implemented");
}

kr_status kr_infer_transpose(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Transpose is not implemented");
}

kr_status kr_infer_squeeze(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Squeeze is not implemented");
}

kr_status kr_infer_unsqueeze(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Unsqueeze is not implemented");
}

kr_status kr_infer_concat(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Concat is not implemented");
}

kr_status kr_infer_split(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Split is not implemented");
}

kr_status kr_infer_slice(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Slice is not implemented");
}

kr_status kr_infer_pad(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Pad is not implemented");
}

kr_status kr_infer_tile(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Tile is not implemented");
}

kr_status kr_infer_gather(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Gather is not implemented");
}

kr_status kr_infer_gather_elements(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX GatherElements is not implemented");
}

kr_status kr_infer_gather_nd(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX GatherND is not implemented");
}

kr_status kr_infer_depth_to_space(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX DepthToSpace is not implemented");
}

kr_status kr_infer_space_to_depth(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX SpaceToDepth is not implemented");
}

kr_status kr_infer_resize(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Resize is not implemented");
}

kr_status kr_infer_shape(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Shape is not implemented");
}

kr_status kr_infer_size(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Size is not implemented");
}

kr_status kr_infer_constant_of_shape(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX ConstantOfShape is not implemented");
}

kr_status kr_infer_range(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Range is not implemented");
}

kr_status kr_infer_trilu(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX Trilu is not implemented");
}

kr_status kr_infer_one_hot(kr_op *op, kr_type *results) {
  (void)results;
  return kr_op_emit_error(op, "shape inference of ONNX OneHot is not implemented");
}
