/* backend/interp/prim_linear.c - CPU reference kernels of the linear primitives
 * (dialects/prim/ops.def; Korch, ASPLOS'24, §3).
 *
 * Both run the op-level kernels of kernels_linear.c, so they agree bit for bit with the ops they
 * come from: f32 through OpenBLAS sgemm on the tensors' storage, f64 dgemm, f16/bf16 widened to
 * double and rounded once, integer matmul in int64 wrapping.
 *   matmul: MatMul-13 restricted to operands of rank >= 2 (batch dims broadcast).
 *   conv:   Conv-11 without bias: kr_window_geom_forward reads `strides`, `dilations`, `pads`
 *           (all given) and finds no `auto_pad` (NOTSET); `group` as Conv's; im2col + gemm per
 *           group (a direct loop for depthwise 2-D f32). */
#include "dialects/op/op_impl.h"
#include "dialects/prim/prim_impl.h"

kr_status kr_prim_eval_matmul(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  if (kr_tensor_rank(ins[0]) < 2 || kr_tensor_rank(ins[1]) < 2)
    return kr_op_emit_error(op, "operands must have rank >= 2");
  return kr_eval_mat_mul(op, ins, outs);
}

kr_status kr_prim_eval_conv(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  if (kr_tensor_rank(ins[0]) < 3 || kr_tensor_rank(ins[1]) != kr_tensor_rank(ins[0]) ||
      kr_tensor_rank(outs[0]) != kr_tensor_rank(ins[0]))
    return kr_op_emit_error(op, "'x' and 'w' must have one rank >= 3");
  /* The kernel trusts the channel geometry: check it (the verifier does too). */
  const int64_t *dx = kr_tensor_dims(ins[0]), *dw = kr_tensor_dims(ins[1]), *dy = kr_tensor_dims(outs[0]);
  int64_t group = kr_op_attr_int(op, "group");
  if (group < 1 || dx[1] % group || dw[0] % group || dw[1] != dx[1] / group || dy[0] != dx[0] || dy[1] != dw[0])
    return kr_op_emit_error(op, "channels do not match: x [%lld, %lld, ...], w [%lld, %lld, ...], group %lld",
                            (long long)dx[0], (long long)dx[1], (long long)dw[0], (long long)dw[1], (long long)group);
  return kr_eval_conv(op, ins, outs);
}
