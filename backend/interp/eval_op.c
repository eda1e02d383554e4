/* backend/interp/eval_op.c - evaluation of one op through its dialect's interpreter hook. */
#include <stdlib.h>
#include <string.h>

#include "korch/diag.h"
#include "korch/dialect.h"
#include "korch/interp.h"

kr_status kr_interp_eval_op(kr_op *op, kr_tensor *const *ins, kr_tensor *outs) {
  const kr_interp_hooks *h = op->def ? op->def->interpreter : NULL;
  if (!h || !h->eval) return kr_op_emit_error(op, "has no CPU reference kernel");
  kr_tensor *small[8];
  kr_tensor **outp = op->num_results <= 8 ? small : malloc(op->num_results * sizeof *outp);
  if (!outp) return kr_op_emit_error(op, "out of memory");
  unsigned made = 0;
  kr_status st = KR_SUCCESS;
  for (; made < op->num_results; made++) {
    outp[made] = &outs[made];
    if (kr_tensor_alloc(&outs[made], kr_value_type(kr_op_result(op, made)))) {
      st = kr_op_emit_error(op, "cannot allocate result #%u (needs a static tensor type and enough memory)", made);
      break;
    }
  }
  if (!st) st = h->eval(op, ins, outp);
  if (st)
    for (unsigned i = 0; i < made; i++) kr_tensor_free(&outs[i]);
  if (outp != small) free(outp);
  return st;
}
