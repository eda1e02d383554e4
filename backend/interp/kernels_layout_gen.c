/* backend/interp/kernels_layout_gen.c - CPU reference kernels of the layout ops that make new
 * tensors from shapes and scalars (ONNX opset 17): Shape-15, Size-13, ConstantOfShape-9,
 * Range-11.  These are what constant folding runs on exporters' shape sub-graphs. */
#include <string.h>

#include "backend/interp/kernels_layout.h"

kr_status kr_eval_shape(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  int64_t rank = kr_tensor_rank(ins[0]), s, e;
  kr_shape_range(op, rank, &s, &e);
  for (int64_t i = s; i < e; i++) kr_tensor_set_i64(outs[0], i - s, kr_tensor_dims(ins[0])[i]);
  return KR_SUCCESS;
}

kr_status kr_eval_size(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)op;
  kr_tensor_set_i64(outs[0], 0, ins[0]->numel);
  return KR_SUCCESS;
}

/* Every element is the one element of `value` (absent: f32 0, which the zeroed output is). */
kr_status kr_eval_constant_of_shape(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins;
  kr_attr v = kr_op_attr_tensor(op, "value");
  if (!v) return KR_SUCCESS;
  kr_tensor t;
  if (kr_tensor_from_attr(&t, v) || t.numel != 1) {
    kr_tensor_free(&t);
    return kr_op_emit_error(op, "attribute 'value' must be a one-element tensor");
  }
  size_t eb = kr_layout_elem_bytes(outs[0]);
  char *dp = outs[0]->data;
  for (int64_t i = 0; i < outs[0]->numel; i++) memcpy(dp + (size_t)i * eb, t.data, eb);
  kr_tensor_free(&t);
  return KR_SUCCESS;
}

/* output[i] = start + i * delta: integers exactly, floats in double then rounded to the type. */
kr_status kr_eval_range(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  kr_tensor *out = outs[0];
  bool is_float = kr_tensor_elem(ins[0])->kind == KR_TYPE_FLOAT;
  double f[3];
  int64_t v[3];
  for (unsigned i = 0; i < 3; i++) f[i] = kr_tensor_get_f64(ins[i], 0), v[i] = kr_tensor_get_i64(ins[i], 0);
  int64_t count;
  if (kr_range_count(op, is_float, f[0], f[1], f[2], v[0], v[1], v[2], &count)) return KR_FAILURE;
  if (count != out->numel)
    return kr_op_emit_error(op, "Range gives %lld elements but the result has %lld", (long long)count, (long long)out->numel);
  for (int64_t i = 0; i < count; i++) {
    if (is_float) kr_tensor_set_f64(out, i, f[0] + (double)i * f[2]);
    else kr_tensor_set_i64(out, i, (int64_t)((uint64_t)v[0] + (uint64_t)i * (uint64_t)v[2]));
  }
  return KR_SUCCESS;
}
