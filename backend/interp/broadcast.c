/* backend/interp/broadcast.c - the broadcasting row iterator of broadcast.h (ONNX
 * docs/Broadcasting.md, multidirectional and unidirectional). */
#include <string.h>

#include "backend/interp/broadcast.h"

kr_status kr_bcast_init(kr_bcast *b, const int64_t *out_dims, unsigned out_rank, const int64_t *const *in_dims,
                        const unsigned *in_ranks, unsigned n) {
  memset(b, 0, sizeof *b);
  if (out_rank > KR_OP_MAX_RANK || n > KR_BCAST_MAX_INPUTS) return KR_FAILURE;
  b->n = n;
  int64_t numel = 1;
  for (unsigned d = 0; d < out_rank; d++) numel *= out_dims[d];
  /* Strides of every input aligned on the output's dims (numpy aligns shapes on the right). */
  int64_t dims[KR_OP_MAX_RANK], strides[KR_BCAST_MAX_INPUTS][KR_OP_MAX_RANK];
  for (unsigned k = 0; k < n; k++) {
    unsigned r = in_ranks[k];
    if (r > out_rank) return KR_FAILURE;
    int64_t s = 1;
    for (unsigned d = out_rank; d-- > 0;) {
      int64_t x = d >= out_rank - r ? in_dims[k][d - (out_rank - r)] : 1;
      if (x != out_dims[d] && x != 1) return KR_FAILURE;
      strides[k][d] = x == 1 ? 0 : s;
      s *= x;
    }
  }
  /* Drop size-1 output dims, then merge neighbours every input walks the same way, so the
   * inner row is as long as possible (a per-channel bias over NCHW becomes rows of H*W). */
  unsigned rank = 0;
  for (unsigned d = 0; d < out_rank; d++) {
    if (out_dims[d] == 1) continue;
    bool merge = rank > 0;
    for (unsigned k = 0; merge && k < n; k++)
      if (strides[k][rank - 1] != strides[k][d] * out_dims[d]) merge = false;
    if (merge) {
      dims[rank - 1] *= out_dims[d];
      for (unsigned k = 0; k < n; k++) strides[k][rank - 1] = strides[k][d];
      continue;
    }
    dims[rank] = out_dims[d];
    for (unsigned k = 0; k < n; k++) strides[k][rank] = strides[k][d];
    rank++;
  }
  if (rank == 0) {
    dims[0] = 1;
    for (unsigned k = 0; k < n; k++) strides[k][0] = 0;
    rank = 1;
  }
  b->rank = rank;
  memcpy(b->dims, dims, rank * sizeof *dims);
  for (unsigned k = 0; k < n; k++) {
    memcpy(b->strides[k], strides[k], rank * sizeof(int64_t));
    b->inner_stride[k] = strides[k][rank - 1];
  }
  b->inner = dims[rank - 1];
  b->rows = numel == 0 ? 0 : numel / b->inner;
  return KR_SUCCESS;
}

kr_status kr_bcast_init_tensors(kr_bcast *b, const kr_tensor *out, const kr_tensor *const *ins, unsigned n) {
  const int64_t *dims[KR_BCAST_MAX_INPUTS];
  unsigned ranks[KR_BCAST_MAX_INPUTS];
  if (n > KR_BCAST_MAX_INPUTS) return KR_FAILURE;
  for (unsigned k = 0; k < n; k++) {
    dims[k] = kr_tensor_dims(ins[k]);
    ranks[k] = kr_tensor_rank(ins[k]);
  }
  return kr_bcast_init(b, kr_tensor_dims(out), kr_tensor_rank(out), dims, ranks, n);
}

void kr_bcast_next_row(kr_bcast *b) {
  for (unsigned d = b->rank - 1; d-- > 0;) {
    b->idx[d]++;
    for (unsigned k = 0; k < b->n; k++) b->off[k] += b->strides[k][d];
    if (b->idx[d] < b->dims[d]) return;
    for (unsigned k = 0; k < b->n; k++) b->off[k] -= b->strides[k][d] * b->dims[d];
    b->idx[d] = 0;
  }
}

int64_t kr_bcast_offset(const kr_bcast *b, unsigned k, int64_t out_index) {
  int64_t off = 0;
  for (unsigned d = b->rank; d-- > 0;) {
    off += (out_index % b->dims[d]) * b->strides[k][d];
    out_index /= b->dims[d];
  }
  return off;
}

kr_status kr_bcast_copy(kr_tensor *out, const kr_tensor *in) {
  if (kr_tensor_elem(out) != kr_tensor_elem(in)) return KR_FAILURE;
  kr_bcast b;
  const kr_tensor *ins[1] = {in};
  if (kr_bcast_init_tensors(&b, out, ins, 1)) return KR_FAILURE;
  size_t eb = kr_type_storage_bytes(kr_tensor_elem(out));
  const char *src = in->data;
  char *dst = out->data;
  int64_t s = b.inner_stride[0];
  for (int64_t r = 0; r < b.rows; r++, kr_bcast_next_row(&b)) {
    char *o = dst + (size_t)(r * b.inner) * eb;
    const char *a = src + (size_t)b.off[0] * eb;
    if (s == 1) {
      memcpy(o, a, (size_t)b.inner * eb);
    } else {
      for (int64_t j = 0; j < b.inner; j++) memcpy(o + (size_t)j * eb, a + (size_t)(j * s) * eb, eb);
    }
  }
  return KR_SUCCESS;
}
