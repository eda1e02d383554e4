/* backend/artifact/weights.c - model.weights (docs/PlanFormat.md): the constants of the host
 * function, raw little-endian element storage (kr_type_storage_bytes per element; f16/bf16 raw
 * bits, i1 one byte), each at the offset the memory plan gave it (korch.weight_offset), zero
 * bytes in the alignment gaps so the file is deterministic. */
#include <stdlib.h>
#include <string.h>

#include "backend/artifact/artifact_impl.h"
#include "korch/diag.h"
#include "korch/interp.h"

kr_status kr_artifact_weights(const kr_plan *plan, unsigned char **data, uint64_t *bytes) {
  *data = NULL;
  *bytes = plan->weights_bytes;
  if (plan->weights_bytes > SIZE_MAX / 2)
    return kr_op_emit_error(plan->func, "artifact: the weights region (%llu bytes) is too large for this host",
                            (unsigned long long)plan->weights_bytes);
  unsigned char *blob = plan->weights_bytes ? calloc(1, (size_t)plan->weights_bytes) : NULL;
  if (plan->weights_bytes && !blob)
    return kr_op_emit_error(plan->func, "artifact: out of memory for the %llu bytes of weights",
                            (unsigned long long)plan->weights_bytes);
  for (unsigned i = 0; i < plan->num_weights; i++) {
    const kr_plan_weight *w = &plan->weights[i];
    kr_tensor t;
    if (KR_FAILED(kr_tensor_from_attr(&t, w->value))) {
      free(blob);
      return kr_op_emit_error(w->constant, "artifact: cannot read the constant's value (a dense or dense_resource "
                                           "tensor of static shape is expected)");
    }
    /* kr_plan_read checked the range against the region; this guards against a plan whose
     * size disagrees with the value actually stored (e.g. a resource blob of another size). */
    bool fits = t.nbytes == w->ref.bytes && w->ref.offset <= plan->weights_bytes &&
                w->ref.bytes <= plan->weights_bytes - w->ref.offset;
    if (!fits) {
      kr_tensor_free(&t);
      free(blob);
      return kr_op_emit_error(w->constant,
                              "artifact: the constant holds %zu bytes but the plan gives it [%llu, %llu) of a "
                              "%llu-byte weights region",
                              t.nbytes, (unsigned long long)w->ref.offset,
                              (unsigned long long)(w->ref.offset + w->ref.bytes),
                              (unsigned long long)plan->weights_bytes);
    }
    if (t.nbytes) memcpy(blob + w->ref.offset, t.data, t.nbytes);
    kr_tensor_free(&t);
  }
  *data = blob;
  return KR_SUCCESS;
}
