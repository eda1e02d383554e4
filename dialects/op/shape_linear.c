/* dialects/op/shape_linear.c - shape inference of the linear ops: MatMul, Gemm, Conv,
 * ConvTranspose, Einsum (ONNX opset 17, Operators.md). */
#include <stdlib.h>
#include <string.h>

#include "dialects/dialect_util.h"
#include "dialects/op/conv_pool_geom.h"
#include "dialects/op/shape_elementwise.h"
#include "dialects/op/einsum.h"

static kr_type tensor_of(kr_op *op, const int64_t *dims, unsigned rank, kr_type elem) {
  return kr_type_tensor(kr_op_context(op), dims, rank, elem);
}

/* Operands i and j must share their element type (ONNX type constraint T). */
static kr_status same_elem(kr_op *op, kr_type a, kr_type b, unsigned i, unsigned j) {
  if (kr_type_element(a) == kr_type_element(b)) return KR_SUCCESS;
  const kr_op_schema *s = kr_op_get_schema(op);
  unsigned last = s->num_operands - 1;
  char *x = kr_type_to_cstr(a), *y = kr_type_to_cstr(b);
  kr_op_emit_error(op, "operands #%u '%s' ('%s') and #%u '%s' ('%s') must have the same element type", i,
                   s->operands[i < last ? i : last].name, x, j, s->operands[j < last ? j : last].name, y);
  free(x), free(y);
  return KR_FAILURE;
}

/* MatMul-13: numpy matmul.  A 1-D A is [1, K] and a 1-D B is [K, 1], the added axis being
 * removed from the result; the batch axes (all but the last two) broadcast. */
kr_status kr_infer_mat_mul(kr_op *op, kr_type *results) {
  /* ONNX MatMul-13 T: numeric types, not bool. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  kr_type a, b;
  if (kr_op_operand_tensor(op, 0, &a) || kr_op_operand_tensor(op, 1, &b) || same_elem(op, a, b, 0, 1))
    return KR_FAILURE;
  unsigned ra = a->u.shaped.rank, rb = b->u.shaped.rank;
  const int64_t *da = a->u.shaped.dims, *db = b->u.shaped.dims;
  if (ra == 0 || rb == 0) return kr_op_emit_error(op, "operands must have rank >= 1 (ONNX MatMul), got a scalar");
  int64_t ka = da[ra - 1], kb = rb == 1 ? db[0] : db[rb - 2];
  if (ka != kb) {
    char *x = kr_type_to_cstr(a), *y = kr_type_to_cstr(b);
    kr_op_emit_error(op, "inner dimensions do not match: A '%s' has K = %lld, B '%s' has K = %lld", x, (long long)ka, y,
                     (long long)kb);
    free(x), free(y);
    return KR_FAILURE;
  }
  /* Batch axes of each operand (possibly none). */
  unsigned ba = ra > 2 ? ra - 2 : 0, bb = rb > 2 ? rb - 2 : 0, rbatch = ba > bb ? ba : bb;
  int64_t dims[KR_OP_MAX_RANK + 2];
  for (unsigned d = 0; d < rbatch; d++) {
    int64_t x = d + ba >= rbatch ? da[d + ba - rbatch] : 1, y = d + bb >= rbatch ? db[d + bb - rbatch] : 1;
    if (x != y && x != 1 && y != 1) {
      char *p = kr_type_to_cstr(a), *q = kr_type_to_cstr(b);
      kr_op_emit_error(op, "batch dimensions of '%s' and '%s' do not broadcast", p, q);
      free(p), free(q);
      return KR_FAILURE;
    }
    dims[d] = x == 1 ? y : x;
  }
  unsigned r = rbatch;
  if (ra >= 2) dims[r++] = da[ra - 2];
  if (rb >= 2) dims[r++] = db[rb - 1];
  results[0] = tensor_of(op, dims, r, kr_type_element(a));
  return KR_SUCCESS;
}

/* Gemm-13: Y[M, N] = alpha * op(A) * op(B) + beta * C, A and B 2-D, C unidirectionally
 * broadcastable to [M, N]. */
kr_status kr_infer_gemm(kr_op *op, kr_type *results) {
  /* ONNX Gemm-13 T: numeric types, not bool. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_NUMERIC, &elem_check)) return KR_FAILURE;
  kr_type a, b, c;
  if (kr_op_operand_tensor(op, 0, &a) || kr_op_operand_tensor(op, 1, &b) || same_elem(op, a, b, 0, 1))
    return KR_FAILURE;
  if (a->u.shaped.rank != 2 || b->u.shaped.rank != 2)
    return kr_op_emit_error(op, "operands 'A' and 'B' must be 2-D (ONNX Gemm), got ranks %u and %u", a->u.shaped.rank,
                            b->u.shaped.rank);
  bool ta = kr_op_attr_int(op, "transA") != 0, tb = kr_op_attr_int(op, "transB") != 0;
  const int64_t *da = a->u.shaped.dims, *db = b->u.shaped.dims;
  int64_t m = ta ? da[1] : da[0], ka = ta ? da[0] : da[1];
  int64_t kb = tb ? db[1] : db[0], n = tb ? db[0] : db[1];
  if (ka != kb)
    return kr_op_emit_error(op, "inner dimensions do not match: op(A) is %lldx%lld, op(B) is %lldx%lld (transA = %d, transB = %d)",
                            (long long)m, (long long)ka, (long long)kb, (long long)n, ta, tb);
  if (kr_op_operand_present(op, 2)) {
    if (kr_op_operand_tensor(op, 2, &c) || same_elem(op, a, c, 0, 2)) return KR_FAILURE;
    unsigned rc = c->u.shaped.rank;
    const int64_t *dc = c->u.shaped.dims;
    int64_t want[2] = {m, n};
    bool ok = rc <= 2;
    for (unsigned d = 0; ok && d < rc; d++) ok = dc[d] == 1 || dc[d] == want[2 - rc + d];
    if (!ok) {
      char *s = kr_type_to_cstr(c);
      kr_op_emit_error(op, "operand 'C' ('%s') is not unidirectionally broadcastable to [%lld, %lld]", s, (long long)m,
                       (long long)n);
      free(s);
      return KR_FAILURE;
    }
  }
  int64_t dims[2] = {m, n};
  results[0] = tensor_of(op, dims, 2, kr_type_element(a));
  return KR_SUCCESS;
}

/* The kernel sizes: W's spatial dims, which `kernel_shape` (when present) must repeat. */
static kr_status conv_kernel(kr_op *op, kr_type w, unsigned nsp, int64_t *kernel) {
  const int64_t *ks;
  unsigned n = kr_op_attr_ints(op, "kernel_shape", &ks);
  for (unsigned i = 0; i < nsp; i++) kernel[i] = w->u.shaped.dims[2 + i];
  if (!ks || !kr_op_attr_present(op, "kernel_shape")) return KR_SUCCESS;
  if (n != nsp)
    return kr_op_emit_error(op, "attribute 'kernel_shape' has %u values but the input has %u spatial axes", n, nsp);
  for (unsigned i = 0; i < nsp; i++)
    if (ks[i] != kernel[i])
      return kr_op_emit_error(op, "attribute 'kernel_shape' value %lld on spatial axis %u differs from W's size %lld",
                              (long long)ks[i], i, (long long)kernel[i]);
  return KR_SUCCESS;
}

/* X [N, C, D1..Dn] and W [M or C, ., k1..kn] with n >= 1; B, when present, a 1-D tensor of
 * `bias` elements.  Sets *nsp. */
static kr_status conv_operands(kr_op *op, kr_type *x, kr_type *w, unsigned *nsp) {
  if (kr_op_operand_tensor(op, 0, x) || kr_op_operand_tensor(op, 1, w) || same_elem(op, *x, *w, 0, 1))
    return KR_FAILURE;
  unsigned rx = (*x)->u.shaped.rank, rw = (*w)->u.shaped.rank;
  if (rx < 3) return kr_op_emit_error(op, "operand 'X' must have rank >= 3 ([N, C, D1, ...]), got rank %u", rx);
  if (rw != rx)
    return kr_op_emit_error(op, "operand 'W' must have the rank of 'X' (%u: [M, C/group, k1, ...]), got rank %u", rx, rw);
  *nsp = rx - 2;
  return KR_SUCCESS;
}

static kr_status conv_bias(kr_op *op, kr_type x, int64_t channels) {
  kr_type b;
  if (!kr_op_operand_present(op, 2)) return KR_SUCCESS;
  if (kr_op_operand_tensor(op, 2, &b) || same_elem(op, x, b, 0, 2)) return KR_FAILURE;
  if (b->u.shaped.rank != 1 || b->u.shaped.dims[0] != channels) {
    char *s = kr_type_to_cstr(b);
    kr_op_emit_error(op, "operand 'B' must be 1-D with %lld elements (one per output channel), got '%s'",
                     (long long)channels, s);
    free(s);
    return KR_FAILURE;
  }
  return KR_SUCCESS;
}

/* Conv-11: Y [N, M, O1..On], O from conv_pool_geom (auto_pad, pads, strides, dilations);
 * X's C must equal W's dim 1 times group, and group must divide M. */
kr_status kr_infer_conv(kr_op *op, kr_type *results) {
  /* ONNX Conv-11 T: float types. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_FLOAT, &elem_check)) return KR_FAILURE;
  kr_type x, w;
  unsigned nsp = 0;
  if (conv_operands(op, &x, &w, &nsp)) return KR_FAILURE;
  const int64_t *dx = x->u.shaped.dims, *dw = w->u.shaped.dims;
  int64_t group = kr_op_attr_int(op, "group");
  if (group < 1) return kr_op_emit_error(op, "attribute 'group' must be positive, got %lld", (long long)group);
  if (dx[1] != dw[1] * group)
    return kr_op_emit_error(op, "input channels (%lld) must equal W's dim 1 (%lld) times group (%lld)", (long long)dx[1],
                            (long long)dw[1], (long long)group);
  if (dw[0] % group)
    return kr_op_emit_error(op, "output channels (W's dim 0 = %lld) must be a multiple of group (%lld)", (long long)dw[0],
                            (long long)group);
  int64_t kernel[KR_OP_MAX_RANK];
  kr_window_geom g;
  if (conv_kernel(op, w, nsp, kernel) || conv_bias(op, x, dw[0]) ||
      kr_window_geom_forward(op, KR_WINDOW_CONV, dx + 2, kernel, nsp, &g))
    return KR_FAILURE;
  int64_t dims[KR_OP_MAX_RANK];
  dims[0] = dx[0];
  dims[1] = dw[0];
  memcpy(dims + 2, g.out, nsp * sizeof *dims);
  results[0] = tensor_of(op, dims, nsp + 2, kr_type_element(x));
  return KR_SUCCESS;
}

/* ConvTranspose-11: W is [C, M/group, k1..kn]; Y [N, M, O1..On] (conv_pool_geom). */
kr_status kr_infer_conv_transpose(kr_op *op, kr_type *results) {
  /* ONNX ConvTranspose-11 T: float types. */
  kr_type elem_check;
  if (kr_ew_operand(op, 0, KR_EW_FLOAT, &elem_check)) return KR_FAILURE;
  kr_type x, w;
  unsigned nsp = 0;
  if (conv_operands(op, &x, &w, &nsp)) return KR_FAILURE;
  const int64_t *dx = x->u.shaped.dims, *dw = w->u.shaped.dims;
  int64_t group = kr_op_attr_int(op, "group");
  if (group < 1) return kr_op_emit_error(op, "attribute 'group' must be positive, got %lld", (long long)group);
  if (dx[1] != dw[0])
    return kr_op_emit_error(op, "input channels (%lld) must equal W's dim 0 (%lld)", (long long)dx[1], (long long)dw[0]);
  if (dx[1] % group)
    return kr_op_emit_error(op, "input channels (%lld) must be a multiple of group (%lld)", (long long)dx[1],
                            (long long)group);
  int64_t kernel[KR_OP_MAX_RANK];
  kr_window_geom g;
  if (conv_kernel(op, w, nsp, kernel) || conv_bias(op, x, dw[1] * group) ||
      kr_window_geom_transpose(op, dx + 2, kernel, nsp, &g))
    return KR_FAILURE;
  int64_t dims[KR_OP_MAX_RANK];
  dims[0] = dx[0];
  dims[1] = dw[1] * group;
  memcpy(dims + 2, g.out, nsp * sizeof *dims);
  results[0] = tensor_of(op, dims, nsp + 2, kr_type_element(x));
  return KR_SUCCESS;
}

/* Einsum-12: the output shape from the parsed equation (einsum.h). */
kr_status kr_infer_einsum(kr_op *op, kr_type *results) {
  unsigned n = op->num_operands;
  kr_type types[KR_EINSUM_MAX_OPERANDS];
  if (n > KR_EINSUM_MAX_OPERANDS)
    return kr_op_emit_error(op, "has %u operands, at most %d supported", n, KR_EINSUM_MAX_OPERANDS);
  for (unsigned i = 0; i < n; i++) {
    if (kr_op_operand_tensor(op, i, &types[i])) return KR_FAILURE;
    if (i && kr_type_element(types[i]) != kr_type_element(types[0])) return same_elem(op, types[0], types[i], 0, i);
  }
  kr_einsum plan;
  if (kr_einsum_plan(op, types, n, &plan)) return KR_FAILURE;
  results[0] = tensor_of(op, plan.out_dims, plan.out_rank, kr_type_element(types[0]));
  return KR_SUCCESS;
}
