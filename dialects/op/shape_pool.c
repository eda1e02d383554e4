/* dialects/op/shape_pool.c - shape inference of the pool ops: MaxPool, AveragePool,
 * GlobalAveragePool, GlobalMaxPool (ONNX opset 17, Operators.md). */
#include <string.h>

#include "dialects/op/conv_pool_geom.h"
#include "dialects/op/shape_elementwise.h"

/* X [N, C, D1..Dn] with n = len(kernel_shape) >= 1: the output [N, C, O1..On] of the window
 * geometry (auto_pad, pads, strides, dilations, ceil_mode). */
static kr_status infer_window_pool(kr_op *op, kr_type *out) {
  kr_type x;
  if (kr_op_operand_tensor(op, 0, &x)) return KR_FAILURE;
  unsigned rx = x->u.shaped.rank;
  if (rx < 3) return kr_op_emit_error(op, "operand 'X' must have rank >= 3 ([N, C, D1, ...]), got rank %u", rx);
  const int64_t *kernel;
  unsigned nk = kr_op_attr_ints(op, "kernel_shape", &kernel);
  if (nk != rx - 2)
    return kr_op_emit_error(op, "attribute 'kernel_shape' has %u values but the input has %u spatial axes", nk, rx - 2);
  kr_window_geom g;
  if (kr_window_geom_forward(op, KR_WINDOW_POOL, x->u.shaped.dims + 2, kernel, nk, &g)) return KR_FAILURE;
  int64_t dims[KR_OP_MAX_RANK];
  dims[0] = x->u.shaped.dims[0];
  dims[1] = x->u.shaped.dims[1];
  memcpy(dims + 2, g.out, nk * sizeof *dims);
  *out = kr_type_tensor(kr_op_context(op), dims, rx, kr_type_element(x));
  return KR_SUCCESS;
}

/* MaxPool-12: Y as above; Indices (optional) the same shape, i64. */
kr_status kr_infer_max_pool(kr_op *op, kr_type *results) {
  /* ONNX MaxPool-12 T: float types, int8, uint8 (wider integers accepted). */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_FLOAT | KR_EW_SINT | KR_EW_UINT, &elem_check)) return KR_FAILURE;
  if (infer_window_pool(op, &results[0])) return KR_FAILURE;
  if (op->num_results > 1) {
    kr_type y = results[0];
    int64_t so = kr_op_attr_int(op, "storage_order");
    if (so != 0 && so != 1) return kr_op_emit_error(op, "attribute 'storage_order' must be 0 or 1, got %lld", (long long)so);
    results[1] = kr_type_tensor(kr_op_context(op), y->u.shaped.dims, y->u.shaped.rank,
                                kr_type_integer(kr_op_context(op), 64, KR_SIGNLESS));
  }
  return KR_SUCCESS;
}

/* AveragePool-11. */
kr_status kr_infer_average_pool(kr_op *op, kr_type *results) {
  /* ONNX AveragePool-11 T: float types. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_FLOAT, &elem_check)) return KR_FAILURE;
  return infer_window_pool(op, &results[0]);
}

/* GlobalAveragePool-1 / GlobalMaxPool-1: X [N, C, D1..Dn] -> [N, C, 1, .., 1]. */
static kr_status infer_global_pool(kr_op *op, kr_type *results) {
  kr_type x;
  if (kr_op_operand_tensor(op, 0, &x)) return KR_FAILURE;
  unsigned rx = x->u.shaped.rank;
  if (rx < 2) return kr_op_emit_error(op, "operand 'X' must have rank >= 2 ([N, C, D1, ...]), got rank %u", rx);
  int64_t dims[KR_OP_MAX_RANK];
  for (unsigned d = 0; d < rx; d++) dims[d] = d < 2 ? x->u.shaped.dims[d] : 1;
  results[0] = kr_type_tensor(kr_op_context(op), dims, rx, kr_type_element(x));
  return KR_SUCCESS;
}

kr_status kr_infer_global_average_pool(kr_op *op, kr_type *results) {
  /* ONNX GlobalAveragePool-1 T: float types. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_FLOAT, &elem_check)) return KR_FAILURE;
  return infer_global_pool(op, results);
}

kr_status kr_infer_global_max_pool(kr_op *op, kr_type *results) {
  /* ONNX GlobalMaxPool-1 T: float types; integers accepted as MaxPool-12 accepts int8/uint8. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_FLOAT | KR_EW_SINT | KR_EW_UINT, &elem_check)) return KR_FAILURE;
  return infer_global_pool(op, results);
}
