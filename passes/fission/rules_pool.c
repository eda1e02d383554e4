/* passes/fission/rules_pool.c - PLACEHOLDER (lead scaffolding): fission rules of the pool family. */
#include "passes/fission/fission.h"

kr_status kr_fission_max_pool(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_average_pool(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_global_average_pool(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_global_max_pool(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
