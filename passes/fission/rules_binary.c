/* passes/fission/rules_binary.c - PLACEHOLDER (lead scaffolding): fission rules of the binary family. */
#include "passes/fission/fission.h"

kr_status kr_fission_add(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_sub(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_mul(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_div(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_pow(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_mod(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_prelu(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_max(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_min(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_sum(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_mean(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_equal(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_less(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_greater(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_less_or_equal(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_greater_or_equal(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_and(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_or(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_xor(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_where(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_expand(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
