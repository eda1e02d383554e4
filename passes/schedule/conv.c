/* passes/schedule/conv.c - the GEMM view of prim.conv: convolution as an implicit GEMM (no
 * im2col buffer; Chetlur et al., cuDNN 2014 §3; Hidet ASPLOS'23 §6 schedules conv this way).
 *
 * x [n, C, D1..Dd], w [Cout, C/group, k1..kd], y [n, Cout, O1..Od] (ONNX Conv-11 without bias,
 * dialects/prim/ops.def).  Per group g (the GEMM batch):
 *   M = Cout/group           (rows: output channels of the group)
 *   N = n * prod(O)          (columns: image and output position, row-major)
 *   K = C/group * prod(k)    (input channel of the group and kernel position, row-major)
 *   A[g, m, (c, r)]  = w[g*M + m, c, r...]                          (weights: row-major [M, K])
 *   B[g, (c, r), (i, o)] = x[i, g*C/group + c, o*s + r*dil - pad_begin]   (0 outside x: padding)
 *   C[g, m, (i, o)]  = y[i, g*M + m, o...]
 * Weights as A and the image as B put the contiguous dims where the matmul template expects
 * them: A along k (w is row-major over (c, r)), B and C along n (NCHW keeps the output position
 * innermost), so the global->shared copies and the epilogue stores coalesce as for a matmul. */
#include <string.h>

#include "korch/diag.h"
#include "korch/op.h"
#include "passes/schedule/linear_internal.h"

kr_status kl_conv_init(ks_kernel *k, kr_op *L, kl_gemm *g) {
  memset(g, 0, sizeof *g);
  g->k = k;
  g->L = L;
  g->conv = true;
  kr_type xt = kr_value_type(kr_op_operand(L, 0)), wt = kr_value_type(kr_op_operand(L, 1)),
          yt = kr_value_type(kr_op_result(L, 0));
  if (!kr_type_has_static_shape(xt) || !kr_type_has_static_shape(wt) || !kr_type_has_static_shape(yt))
    return kr_op_emit_error(L, "schedule: prim.conv needs static shapes");
  unsigned rank = xt->u.shaped.rank;
  if (rank < 3 || rank - 2 > KL_MAX_SP)
    return kr_op_emit_error(L, "schedule: prim.conv with %u spatial dims is outside the supported 1..%d",
                            rank < 2 ? 0 : rank - 2, KL_MAX_SP);
  g->nsp = rank - 2;
  g->out_rank = rank;
  memcpy(g->out_dims, yt->u.shaped.dims, rank * sizeof(int64_t));
  g->elem = yt->u.shaped.elem;
  g->is_float = kr_type_is_float(g->elem);
  if (!g->is_float && !kr_type_is_integer(g->elem, 0))
    return kr_op_emit_error(L, "schedule: the linear templates support integer and float elements only");
  g->acc = g->elem;
  if (g->is_float && (g->elem->u.fkind == KR_F16 || g->elem->u.fkind == KR_BF16))
    g->acc = kr_type_float(k->ctx, KR_F32);
  const int64_t *xd = xt->u.shaped.dims, *wd = wt->u.shaped.dims, *yd = yt->u.shaped.dims;
  const int64_t *strides, *dils, *pads;
  unsigned ns = kr_op_attr_ints(L, "strides", &strides), nd = kr_op_attr_ints(L, "dilations", &dils),
           np = kr_op_attr_ints(L, "pads", &pads);
  if (ns != g->nsp || nd != g->nsp || np != 2 * g->nsp)
    return kr_op_emit_error(L, "schedule: prim.conv's strides/dilations/pads do not match its %u spatial dims", g->nsp);
  g->group = kr_op_attr_int(L, "group");
  if (g->group < 1) g->group = 1;
  g->nimg = xd[0];
  g->cg = wd[1];
  g->mg = yd[1] / g->group;
  g->batch = g->group;
  g->M = g->mg;
  g->N = g->nimg;
  g->K = g->cg;
  g->k_rank = 1 + g->nsp;
  g->k_dims[0] = g->cg;
  for (unsigned i = 0; i < g->nsp; i++) {
    g->in_sp[i] = xd[2 + i];
    g->ker[i] = wd[2 + i];
    g->out_sp[i] = yd[2 + i];
    g->stride[i] = strides[i];
    g->dil[i] = dils[i];
    g->pad_begin[i] = pads[i];
    g->N *= g->out_sp[i];
    g->K *= g->ker[i];
    g->k_dims[1 + i] = g->ker[i];
    int64_t hi = (g->out_sp[i] - 1) * g->stride[i] + (g->ker[i] - 1) * g->dil[i] - g->pad_begin[i];
    if (g->pad_begin[i] > 0 || hi >= g->in_sp[i]) g->padded = true;
  }
  return KR_SUCCESS;
}

void kl_conv_ref_a(const kl_gemm *g, ks_builder *kb, kr_value b, kr_value m, const kr_value *k, kl_ref *out) {
  out->tensor = kr_op_operand(g->L, 1);
  out->index[0] = ks_add(kb, ks_mulc(kb, b, g->mg), m);
  for (unsigned i = 0; i < g->k_rank; i++) out->index[1 + i] = k[i];
  out->valid = NULL;
}

void kl_conv_ref_b(const kl_gemm *g, ks_builder *kb, kr_value b, const kr_value *k, kr_value n, kl_ref *out) {
  out->tensor = kr_op_operand(g->L, 0);
  int64_t nd[1 + KL_MAX_SP];
  kr_value ni[1 + KL_MAX_SP];
  nd[0] = g->nimg;
  for (unsigned i = 0; i < g->nsp; i++) nd[1 + i] = g->out_sp[i];
  ks_delinearize(kb, n, nd, 1 + g->nsp, ni);
  out->index[0] = ni[0];
  out->index[1] = ks_add(kb, ks_mulc(kb, b, g->cg), k[0]);
  out->valid = NULL;
  for (unsigned i = 0; i < g->nsp; i++) {
    kr_value pos = ks_add(kb, ks_mulc(kb, ni[1 + i], g->stride[i]), ks_mulc(kb, k[1 + i], g->dil[i]));
    pos = ks_addc(kb, pos, -g->pad_begin[i]);
    out->index[2 + i] = pos;
    /* Only the bounds this dim can cross are tested (pads 0 and no overhang: none). */
    int64_t hi = (g->out_sp[i] - 1) * g->stride[i] + (g->ker[i] - 1) * g->dil[i] - g->pad_begin[i];
    kr_value c = NULL;
    if (g->pad_begin[i] > 0) c = kl_cmp(kb, "sge", pos, ks_index(kb, 0));
    if (hi >= g->in_sp[i]) {
      kr_value u = ks_cmp_lt(kb, pos, ks_index(kb, g->in_sp[i]));
      c = c ? ks_and(kb, c, u) : u;
    }
    if (c) out->valid = out->valid ? ks_and(kb, out->valid, c) : c;
  }
}

void kl_conv_out_index(const kl_gemm *g, ks_builder *kb, kr_value b, kr_value m, kr_value n, kr_value *out) {
  int64_t nd[1 + KL_MAX_SP];
  kr_value ni[1 + KL_MAX_SP];
  nd[0] = g->nimg;
  for (unsigned i = 0; i < g->nsp; i++) nd[1 + i] = g->out_sp[i];
  ks_delinearize(kb, n, nd, 1 + g->nsp, ni);
  out[0] = ni[0];
  out[1] = ks_add(kb, ks_mulc(kb, b, g->mg), m);
  for (unsigned i = 0; i < g->nsp; i++) out[2 + i] = ni[1 + i];
}
