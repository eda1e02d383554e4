/* passes/fission/rules_unary.c - PLACEHOLDER (lead scaffolding): fission rules of the unary family. */
#include "passes/fission/fission.h"

kr_status kr_fission_abs(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_neg(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_exp(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_log(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_sqrt(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_reciprocal(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_relu(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_sigmoid(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_tanh(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_erf(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_floor(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_ceil(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_round(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_sign(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_sin(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_cos(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_softplus(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_softsign(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_hard_sigmoid(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_hard_swish(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_leaky_relu(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_elu(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_selu(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_celu(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_thresholded_relu(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_mish(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_clip(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_identity(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_not(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_is_nan(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_is_inf(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_cast(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_cast_like(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_dropout(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
