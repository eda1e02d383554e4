/* passes/fission/rules_layout.c - PLACEHOLDER (lead scaffolding): fission rules of the layout family. */
#include "passes/fission/fission.h"

kr_status kr_fission_reshape(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_flatten(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_transpose(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_squeeze(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_unsqueeze(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_concat(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_split(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_slice(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_pad(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_tile(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_gather(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_gather_elements(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_gather_nd(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_depth_to_space(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_space_to_depth(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_shape(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_size(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_constant_of_shape(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_range(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_trilu(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
kr_status kr_fission_one_hot(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op, (void)results;
  fx_fail(f, "no rule yet");
  return KR_FAILURE;
}
