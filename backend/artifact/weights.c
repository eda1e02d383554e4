/* backend/artifact/weights.c - model.weights (docs/PlanFormat.md): the constants of the host
 * function, raw little-endian element storage (kr_type_storage_bytes per element; f16/bf16 raw
 * bits, i1 one byte), each at the offset the memory plan gave it (korch.weight_offset), zero
 * bytes in the alignment gaps so the file is deterministic. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/artifact/artifact_impl.h"
#include "korch/diag.h"
#include "korch/interp.h"

/* The weights are written straight from the constants' storage into the file, in offset order:
 * a BERT-base-sized model has 57 MB of weights, and building a blob first cost a 57 MB allocation
 * (page faults) and a copy before the write, ~0.25 s of a 3 s compile (bench/compile.sh).
 * kr_plan_read has already refused weight ranges that share a byte, so offset order is file
 * order. */

typedef struct weight_order {
  uint64_t offset, bytes;
  unsigned index;
} weight_order;

static int by_offset(const void *a, const void *b) {
  const weight_order *x = a, *y = b;
  if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

kr_status kr_artifact_weights_check(const kr_plan *plan) {
  for (unsigned i = 0; i < plan->num_weights; i++) {
    const kr_plan_weight *w = &plan->weights[i];
    kr_tensor t;
    if (KR_FAILED(kr_tensor_from_attr(&t, w->value)))
      return kr_op_emit_error(w->constant, "artifact: cannot read the constant's value (a dense or dense_resource "
                                           "tensor of static shape is expected)");
    /* kr_plan_read checked the range against the region; this guards against a plan whose
     * size disagrees with the value actually stored (e.g. a resource blob of another size). */
    bool fits = t.nbytes == w->ref.bytes && w->ref.offset <= plan->weights_bytes &&
                w->ref.bytes <= plan->weights_bytes - w->ref.offset;
    size_t nbytes = t.nbytes;
    kr_tensor_free(&t);
    if (!fits)
      return kr_op_emit_error(w->constant,
                              "artifact: the constant holds %zu bytes but the plan gives it [%llu, %llu) of a "
                              "%llu-byte weights region",
                              nbytes, (unsigned long long)w->ref.offset,
                              (unsigned long long)(w->ref.offset + w->ref.bytes),
                              (unsigned long long)plan->weights_bytes);
  }
  return KR_SUCCESS;
}

static bool write_zeros(FILE *f, uint64_t n) {
  static const unsigned char zeros[4096];
  while (n) {
    size_t k = n < sizeof zeros ? (size_t)n : sizeof zeros;
    if (fwrite(zeros, 1, k, f) != k) return false;
    n -= k;
  }
  return true;
}

int kr_artifact_weights_stream(const kr_plan *plan, FILE *f) {
  weight_order *order = plan->num_weights ? malloc(plan->num_weights * sizeof *order) : NULL;
  if (plan->num_weights && !order) return ENOMEM;
  for (unsigned i = 0; i < plan->num_weights; i++)
    order[i] = (weight_order){plan->weights[i].ref.offset, plan->weights[i].ref.bytes, i};
  if (plan->num_weights) qsort(order, plan->num_weights, sizeof *order, by_offset);
  uint64_t at = 0;
  int err = 0;
  for (unsigned i = 0; i < plan->num_weights && !err; i++) {
    if (!order[i].bytes) continue;
    kr_tensor t;
    if (KR_FAILED(kr_tensor_from_attr(&t, plan->weights[order[i].index].value))) {
      err = EINVAL;   /* kr_artifact_weights_check read it: not reached */
      break;
    }
    errno = 0;
    if (!write_zeros(f, order[i].offset - at) || fwrite(t.data, 1, t.nbytes, f) != t.nbytes) err = errno ? errno : EIO;
    at = order[i].offset + t.nbytes;
    kr_tensor_free(&t);
  }
  errno = 0;
  if (!err && !write_zeros(f, plan->weights_bytes - at)) err = errno ? errno : EIO;
  free(order);
  return err;
}
