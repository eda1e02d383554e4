/* passes/fission/rules_resize.c - fission rule of op.resize (placeholder while being written). */
#include "passes/fission/fission.h"

kr_status kr_fission_resize(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
