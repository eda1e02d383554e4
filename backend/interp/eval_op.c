/* backend/interp/eval_op.c - evaluation of one op through its dialect's interpreter hook. */
#include <stdlib.h>
#include <string.h>

#include "korch/diag.h"
#include "korch/dialect.h"
#include "korch/interp.h"
#include "korch/op.h"

kr_status kr_interp_eval_op(kr_op *op, kr_tensor *const *ins, kr_tensor *outs) {
  const kr_interp_hooks *h = op->def ? op->def->interpreter : NULL;
  if (!h || !h->eval) return kr_op_emit_error(op, "has no CPU reference kernel");
  /* Kernels may read ins[i] for every operand their schema names: trailing omitted optional
   * operands are passed as NULL. */
  const kr_op_schema *schema = kr_op_get_schema(op);
  unsigned nin = op->num_operands;
  if (schema && schema->num_operands > nin && schema->max_operands != UINT32_MAX) nin = schema->num_operands;
  kr_tensor *small_in[16];
  kr_tensor **inp = nin <= 16 ? small_in : calloc(nin, sizeof *inp);
  if (!inp) return kr_op_emit_error(op, "out of memory");
  for (unsigned i = 0; i < nin; i++) inp[i] = i < op->num_operands ? ins[i] : NULL;
  kr_tensor *small[8];
  kr_tensor **outp = op->num_results <= 8 ? small : malloc(op->num_results * sizeof *outp);
  if (!outp) {
    if (inp != small_in) free(inp);
    return kr_op_emit_error(op, "out of memory");
  }
  unsigned made = 0;
  kr_status st = KR_SUCCESS;
  for (; made < op->num_results; made++) {
    outp[made] = &outs[made];
    if (kr_tensor_alloc(&outs[made], kr_value_type(kr_op_result(op, made)))) {
      st = kr_op_emit_error(op, "cannot allocate result #%u (needs a static tensor type and enough memory)", made);
      break;
    }
  }
  if (!st) st = h->eval(op, inp, outp);
  if (st)
    for (unsigned i = 0; i < made; i++) kr_tensor_free(&outs[i]);
  if (outp != small) free(outp);
  if (inp != small_in) free(inp);
  return st;
}
