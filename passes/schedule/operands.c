/* passes/schedule/operands.c - the GEMM view of prim.matmul (linear_internal.h): lhs [..., M, K]
 * x rhs [..., K, N] -> [..., M, N], batch dims right-aligned and broadcast as numpy does
 * (dialects/prim/ops.def; ONNX MatMul-13).  The GEMM batch index b is the row-major linear index
 * of the result's batch dims; an operand's batch index is b unravelled, right-aligned, with 0 on
 * its size-1 (broadcast) dims. */
#include <string.h>

#include "korch/diag.h"
#include "passes/schedule/linear_internal.h"

static void dims_of(kr_value v, unsigned *rank, int64_t *dims) {
  kr_type t = kr_value_type(v);
  *rank = t->u.shaped.rank;
  memcpy(dims, t->u.shaped.dims, *rank * sizeof *dims);
}

static kr_status common_init(ks_kernel *k, kr_op *L, kl_gemm *g) {
  memset(g, 0, sizeof *g);
  g->k = k;
  g->L = L;
  kr_type rt = kr_value_type(kr_op_result(L, 0));
  if (!rt || rt->kind != KR_TYPE_TENSOR || !kr_type_has_static_shape(rt) || rt->u.shaped.rank > KR_KERNEL_MAX_RANK)
    return kr_op_emit_error(L, "schedule: a linear primitive needs a static result shape of rank <= %d",
                            KR_KERNEL_MAX_RANK);
  dims_of(kr_op_result(L, 0), &g->out_rank, g->out_dims);
  g->elem = rt->u.shaped.elem;
  g->is_float = kr_type_is_float(g->elem);
  if (!g->is_float && !kr_type_is_integer(g->elem, 0))
    return kr_op_emit_error(L, "schedule: the linear templates support integer and float elements only");
  g->acc = g->elem;
  if (g->is_float && (g->elem->u.fkind == KR_F16 || g->elem->u.fkind == KR_BF16))
    g->acc = kr_type_float(k->ctx, KR_F32); /* 16-bit floats accumulate in f32 (prim.matmul's rule) */
  return KR_SUCCESS;
}

kr_status kl_gemm_init(ks_kernel *k, kr_op *L, kl_gemm *g) {
  if (!strcmp(L->name, "prim.conv")) return kl_conv_init(k, L, g);
  if (KR_FAILED(common_init(k, L, g))) return KR_FAILURE;
  dims_of(kr_op_operand(L, 0), &g->lhs_rank, g->lhs_dims);
  dims_of(kr_op_operand(L, 1), &g->rhs_rank, g->rhs_dims);
  if (g->lhs_rank < 2 || g->rhs_rank < 2 || g->out_rank < 2)
    return kr_op_emit_error(L, "schedule: prim.matmul needs operands of rank >= 2");
  g->nb = g->out_rank - 2;
  g->M = g->lhs_dims[g->lhs_rank - 2];
  g->K = g->lhs_dims[g->lhs_rank - 1];
  g->N = g->rhs_dims[g->rhs_rank - 1];
  g->batch = 1;
  for (unsigned i = 0; i < g->nb; i++) g->batch *= g->out_dims[i];
  g->k_rank = 1;
  g->k_dims[0] = g->K;
  return KR_SUCCESS;
}

/* The batch part of an operand's index: b unravelled over the result's batch dims, right-aligned
 * onto the operand's (rank - 2) batch dims, 0 where the operand has size 1 (broadcast). */
static void batch_index(const kl_gemm *g, ks_builder *kb, kr_value b, unsigned rank, const int64_t *dims,
                        kr_value *out) {
  kr_value full[KR_KERNEL_MAX_RANK];
  ks_delinearize(kb, b, g->out_dims, g->nb, full);
  unsigned ob = rank - 2;
  for (unsigned i = 0; i < ob; i++) {
    unsigned ri = g->nb - ob + i;
    out[i] = dims[i] == 1 ? ks_index(kb, 0) : full[ri];
  }
}

void kl_ref_a(const kl_gemm *g, ks_builder *kb, kr_value b, kr_value m, const kr_value *k, kl_ref *out) {
  if (g->conv) {
    kl_conv_ref_a(g, kb, b, m, k, out);
    return;
  }
  out->tensor = kr_op_operand(g->L, 0);
  batch_index(g, kb, b, g->lhs_rank, g->lhs_dims, out->index);
  out->index[g->lhs_rank - 2] = m;
  out->index[g->lhs_rank - 1] = k[0];
  out->valid = NULL;
}

void kl_ref_b(const kl_gemm *g, ks_builder *kb, kr_value b, const kr_value *k, kr_value n, kl_ref *out) {
  if (g->conv) {
    kl_conv_ref_b(g, kb, b, k, n, out);
    return;
  }
  out->tensor = kr_op_operand(g->L, 1);
  batch_index(g, kb, b, g->rhs_rank, g->rhs_dims, out->index);
  out->index[g->rhs_rank - 2] = k[0];
  out->index[g->rhs_rank - 1] = n;
  out->valid = NULL;
}

void kl_out_index(const kl_gemm *g, ks_builder *kb, kr_value b, kr_value m, kr_value n, kr_value *out) {
  if (g->conv) {
    kl_conv_out_index(g, kb, b, m, n, out);
    return;
  }
  ks_delinearize(kb, b, g->out_dims, g->nb, out);
  out[g->nb] = m;
  out[g->nb + 1] = n;
}
