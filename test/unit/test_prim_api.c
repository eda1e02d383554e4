/* Unit tests: the C API of the prim dialect (korch/prim.h): kr_prim_build (builds, infers the
 * result type from the ops.def row's shape rule, inserts; or reports the rule violation and
 * inserts nothing), the orchestration classes (kr_prim_op_class, kr_prim_class_name) and the
 * op dialect's schema accessors on prim ops (row defaults such as keepdims = 1).  Every expected
 * shape is worked out by hand from the rule in dialects/prim/ops.def (arithmetic in comments). */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/korch.h"
#include "korch/op.h"
#include "korch/prim.h"
#include "test/unit/unit_fixture.h"

static kr_block *blk; /* block arguments are the operands; kr_prim_build appends here */
static kr_builder b;

static void setup(void) {
  unit_context_setup(true);
  blk = kr_block_create(ctx);
  kr_builder_init(&b, ctx);
  kr_builder_set_insertion_point_to_end(&b, blk);
}
static void teardown(void) {
  kr_block_erase(blk);
  unit_context_teardown();
}

static kr_value arg(const char *text) { return kr_block_add_arg(blk, unit_type(text), NULL); }

/* A dictionary of n (name, attr) pairs. */
static kr_attr dict(unsigned n, ...) {
  kr_named_attr e[8];
  va_list ap;
  va_start(ap, n);
  for (unsigned i = 0; i < n; i++) {
    const char *name = va_arg(ap, const char *);
    e[i].name = kr_ident_get(ctx, name, strlen(name));
    e[i].value = va_arg(ap, kr_attr);
  }
  va_end(ap);
  kr_attr d = kr_attr_dict(ctx, e, n);
  ck_assert_ptr_nonnull(d);
  return d;
}

/* The printed type of op's result #0. */
static void assert_result(kr_op *op, const char *want) {
  ck_assert_ptr_nonnull(op);
  ck_assert_ptr_eq(kr_value_type(kr_op_result(op, 0)), unit_type(want));
}

/* ------------------------------------------------------------------------------------------- */

START_TEST(build_infers_and_inserts) {
  kr_value x = arg("tensor<2x3xf32>");
  kr_value ab[2] = {x, x};
  kr_op *add = kr_prim_build(&b, "prim.add", ab, 2, NULL, NULL);
  assert_result(add, "tensor<2x3xf32>");
  ck_assert_ptr_eq(add->block, blk);
  /* cmp: i1 of the operands' shape. */
  kr_op *cmp = kr_prim_build(&b, "prim.cmp", ab, 2, dict(1, "predicate", unit_str_attr("lt")), NULL);
  assert_result(cmp, "tensor<2x3xi1>");
  /* Chained: reduce_sum of the add's result over axis 1, keepdims default 1 -> 2x1. */
  kr_value s = kr_op_result(add, 0);
  int64_t ax[] = {1};
  kr_op *red = kr_prim_build(&b, "prim.reduce_sum", &s, 1, dict(1, "axes", unit_i64s_attr(ax, 1)), NULL);
  assert_result(red, "tensor<2x1xf32>");
  /* matmul: batch [2, 1] with [6] -> [2, 6]; [3, 4] x [4, 5] -> [3, 5]. */
  kr_value mm[2] = {arg("tensor<2x1x3x4xf32>"), arg("tensor<6x4x5xf32>")};
  assert_result(kr_prim_build(&b, "prim.matmul", mm, 2, NULL, NULL), "tensor<2x6x3x5xf32>");
  /* conv: 1x4x5x5 * 6x2x3x3, group 2, stride 2, pads 1: (5 + 2 - 2 - 1)/2 + 1 = 3. */
  kr_value cv[2] = {arg("tensor<1x4x5x5xf32>"), arg("tensor<6x2x3x3xf32>")};
  int64_t two[] = {2, 2}, one[] = {1, 1}, pads[] = {1, 1, 1, 1};
  kr_op *conv = kr_prim_build(&b, "prim.conv", cv, 2,
                              dict(4, "strides", unit_i64s_attr(two, 2), "dilations", unit_i64s_attr(one, 2), "pads",
                                   unit_i64s_attr(pads, 4), "group", unit_i64_attr(2)),
                              NULL);
  assert_result(conv, "tensor<1x6x3x3xf32>");
  /* iota: no operands, the type from the attributes. */
  int64_t shape[] = {4, 2};
  kr_op *iota = kr_prim_build(&b, "prim.iota", NULL, 0,
                              dict(3, "shape", unit_i64s_attr(shape, 2), "axis", unit_i64_attr(0), "elem",
                                   kr_attr_type(ctx, kr_type_integer(ctx, 32, KR_SIGNLESS))),
                              NULL);
  assert_result(iota, "tensor<4x2xi32>");
  ck_assert_uint_eq(kr_block_num_ops(blk), 6);
  ck_assert_uint_eq(num_errors, 0);
  /* What was built verifies (declared == inferred). */
  ck_assert_int_eq(kr_op_verify(conv), KR_SUCCESS);
  ck_assert_int_eq(kr_op_verify(red), KR_SUCCESS);
}
END_TEST

START_TEST(build_rejects_rule_violations) {
  /* No implicit broadcast: 2x3 + 1x3 is an error, nothing is inserted. */
  kr_value ab[2] = {arg("tensor<2x3xf32>"), arg("tensor<1x3xf32>")};
  ck_assert_ptr_null(kr_prim_build(&b, "prim.add", ab, 2, NULL, NULL));
  ck_assert_uint_eq(num_errors, 1);
  ck_assert_msg(strstr(last_error, "must have the same type") != NULL, "got: %s", last_error);
  ck_assert_uint_eq(kr_block_num_ops(blk), 0);

  /* A float-only primitive on integers. */
  num_errors = 0;
  kr_value i = arg("tensor<4xi32>");
  ck_assert_ptr_null(kr_prim_build(&b, "prim.exp", &i, 1, NULL, NULL));
  ck_assert_uint_eq(num_errors, 1);
  ck_assert_msg(strstr(last_error, "floating-point") != NULL, "got: %s", last_error);

  /* A schema violation (required attribute missing) is reported the same way. */
  num_errors = 0;
  kr_value x = arg("tensor<2x3xf32>");
  ck_assert_ptr_null(kr_prim_build(&b, "prim.reduce_sum", &x, 1, NULL, NULL));
  ck_assert_uint_eq(num_errors, 1);
  ck_assert_msg(strstr(last_error, "requires attribute 'axes'") != NULL, "got: %s", last_error);

  /* An attribute value the rule rejects: perm [0, 0] is no permutation. */
  num_errors = 0;
  int64_t perm[] = {0, 0};
  ck_assert_ptr_null(kr_prim_build(&b, "prim.transpose", &x, 1, dict(1, "perm", unit_i64s_attr(perm, 2)), NULL));
  ck_assert_uint_eq(num_errors, 1);
  ck_assert_msg(strstr(last_error, "is not a permutation") != NULL, "got: %s", last_error);

  /* Not a primitive at all. */
  num_errors = 0;
  ck_assert_ptr_null(kr_prim_build(&b, "prim.frobnicate", &x, 1, NULL, NULL));
  ck_assert_uint_eq(num_errors, 1);
  ck_assert_msg(strstr(last_error, "not a registered primitive") != NULL, "got: %s", last_error);
  ck_assert_uint_eq(kr_block_num_ops(blk), 0);
}
END_TEST

START_TEST(classes) {
  kr_value x = arg("tensor<1x1x4x4xf32>");
  kr_op *e = kr_prim_build(&b, "prim.exp", &x, 1, NULL, NULL);
  ck_assert_int_eq(kr_prim_op_class(e), KR_PRIM_ELEMENTWISE);
  int64_t w[] = {1, 1, 2, 2}, s[] = {1, 1, 2, 2}, d[] = {1, 1, 1, 1};
  kr_op *rw = kr_prim_build(&b, "prim.reduce_window", &x, 1,
                            dict(4, "kind", unit_str_attr("max"), "window", unit_i64s_attr(w, 4), "strides",
                                 unit_i64s_attr(s, 4), "dilations", unit_i64s_attr(d, 4)),
                            NULL);
  /* (4 - 1 - 1)/2 + 1 = 2 */
  assert_result(rw, "tensor<1x1x2x2xf32>");
  ck_assert_int_eq(kr_prim_op_class(rw), KR_PRIM_REDUCTION);
  int64_t perm[] = {0, 1, 3, 2};
  kr_op *t = kr_prim_build(&b, "prim.transpose", &x, 1, dict(1, "perm", unit_i64s_attr(perm, 4)), NULL);
  ck_assert_int_eq(kr_prim_op_class(t), KR_PRIM_LAYOUT);
  kr_value mm[2] = {arg("tensor<3x4xf32>"), arg("tensor<4x5xf32>")};
  kr_op *m = kr_prim_build(&b, "prim.matmul", mm, 2, NULL, NULL);
  ck_assert_int_eq(kr_prim_op_class(m), KR_PRIM_LINEAR);

  /* prim.constant: the constant class. */
  float vals[2] = {1.0f, 2.0f};
  kr_type ct = unit_type("tensor<2xf32>");
  kr_attr value = kr_attr_dense(ctx, ct, vals, sizeof vals);
  ck_assert_ptr_nonnull(value);
  kr_op_state st;
  kr_op_state_init(&st, ctx, KR_PRIM_CONSTANT_OP, NULL);
  kr_op_state_add_attr(&st, "value", value);
  kr_op_state_add_results(&st, &ct, 1);
  kr_op *c = kr_builder_create(&b, &st);
  kr_op_state_free(&st);
  ck_assert_ptr_nonnull(c);
  ck_assert_int_eq(kr_prim_op_class(c), KR_PRIM_CONSTANT);
  ck_assert_int_eq(kr_op_verify(c), KR_SUCCESS);

  /* An op of the op dialect is not a primitive. */
  kr_op_state_init(&st, ctx, "op.relu", NULL);
  kr_value y = arg("tensor<2xf32>");
  kr_op_state_add_operands(&st, &y, 1);
  kr_type yt = unit_type("tensor<2xf32>");
  kr_op_state_add_results(&st, &yt, 1);
  kr_op *relu = kr_builder_create(&b, &st);
  kr_op_state_free(&st);
  ck_assert_ptr_nonnull(relu);
  ck_assert_int_eq(kr_prim_op_class(relu), KR_PRIM_NOT_PRIM);

  ck_assert_str_eq(kr_prim_class_name(KR_PRIM_ELEMENTWISE), "elementwise");
  ck_assert_str_eq(kr_prim_class_name(KR_PRIM_REDUCTION), "reduction");
  ck_assert_str_eq(kr_prim_class_name(KR_PRIM_LAYOUT), "layout");
  ck_assert_str_eq(kr_prim_class_name(KR_PRIM_LINEAR), "linear");
  ck_assert_str_eq(kr_prim_class_name(KR_PRIM_CONSTANT), "constant");
  ck_assert_str_eq(kr_prim_class_name(KR_PRIM_NOT_PRIM), "?");
  ck_assert_str_eq(kr_prim_class_name(KR_PRIM_NUM_CLASSES), "?");
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

START_TEST(attr_defaults_and_schema) {
  kr_value x = arg("tensor<2x3xf32>");
  int64_t ax[] = {0};
  kr_op *red = kr_prim_build(&b, "prim.reduce_max", &x, 1, dict(1, "axes", unit_i64s_attr(ax, 1)), NULL);
  ck_assert_ptr_nonnull(red);
  /* keepdims defaults to 1 (ops.def), so axis 0 stays as size 1. */
  ck_assert(!kr_op_attr_present(red, "keepdims"));
  ck_assert_int_eq(kr_op_attr_int(red, "keepdims"), 1);
  assert_result(red, "tensor<1x3xf32>");
  const int64_t *axes;
  ck_assert_uint_eq(kr_op_attr_ints(red, "axes", &axes), 1);
  ck_assert_int_eq(axes[0], 0);

  /* An explicit keepdims = 0 wins over the default. */
  kr_op *red0 = kr_prim_build(&b, "prim.reduce_max", &x, 1,
                              dict(2, "axes", unit_i64s_attr(ax, 1), "keepdims", unit_i64_attr(0)), NULL);
  ck_assert_int_eq(kr_op_attr_int(red0, "keepdims"), 0);
  assert_result(red0, "tensor<3xf32>");

  /* arg_max: keepdims 1, select_last_index 0 by default; the result is i64. */
  kr_op *am = kr_prim_build(&b, "prim.arg_max", &x, 1, dict(1, "axis", unit_i64_attr(1)), NULL);
  ck_assert_int_eq(kr_op_attr_int(am, "keepdims"), 1);
  ck_assert_int_eq(kr_op_attr_int(am, "select_last_index"), 0);
  assert_result(am, "tensor<2x1xi64>");

  /* pad: mode defaults to "constant", interior absent; value is an optional operand. */
  int64_t pads[] = {1, 0, 0, 1};
  kr_op *pad = kr_prim_build(&b, "prim.pad", &x, 1, dict(1, "pads", unit_i64s_attr(pads, 4)), NULL);
  ck_assert_str_eq(kr_op_attr_string(pad, "mode"), "constant");
  ck_assert_uint_eq(kr_op_attr_ints(pad, "interior", &axes), 0);
  assert_result(pad, "tensor<3x4xf32>");
  const kr_op_schema *ps = kr_op_get_schema(pad);
  ck_assert_ptr_nonnull(ps);
  ck_assert_ptr_null(ps->onnx_name);
  ck_assert_str_eq(ps->family, "layout");
  ck_assert_uint_eq(ps->num_operands, 2);
  ck_assert(!ps->operands[0].optional);
  ck_assert(ps->operands[1].optional);
  ck_assert_str_eq(ps->operands[1].name, "value");

  /* cum_sum: exclusive and reverse default to 0; conv: group defaults to 1. */
  kr_op *cs = kr_prim_build(&b, "prim.cum_sum", &x, 1, dict(1, "axis", unit_i64_attr(1)), NULL);
  ck_assert_int_eq(kr_op_attr_int(cs, "exclusive"), 0);
  ck_assert_int_eq(kr_op_attr_int(cs, "reverse"), 0);
  kr_value cv[2] = {arg("tensor<1x2x5xf32>"), arg("tensor<3x2x3xf32>")};
  int64_t one[] = {1}, zero2[] = {0, 0};
  kr_op *conv = kr_prim_build(
      &b, "prim.conv", cv, 2,
      dict(3, "strides", unit_i64s_attr(one, 1), "dilations", unit_i64s_attr(one, 1), "pads", unit_i64s_attr(zero2, 2)),
      NULL);
  ck_assert_int_eq(kr_op_attr_int(conv, "group"), 1);
  assert_result(conv, "tensor<1x3x3xf32>"); /* (5 - 2 - 1)/1 + 1 = 3 */

  /* concat's operand is variadic. */
  kr_value cc[3] = {x, x, x};
  kr_op *cat = kr_prim_build(&b, "prim.concat", cc, 3, dict(1, "axis", unit_i64_attr(0)), NULL);
  assert_result(cat, "tensor<6x3xf32>");
  ck_assert(kr_op_get_schema(cat)->operands[0].variadic);
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

START_TEST(verifier_checks_declared_type) {
  /* A prim op created with a wrong declared type fails kr_op_verify with the inferred one. */
  kr_value x = arg("tensor<2x3xf32>");
  int64_t perm[] = {1, 0};
  kr_op_state st;
  kr_op_state_init(&st, ctx, "prim.transpose", NULL);
  kr_op_state_add_operands(&st, &x, 1);
  kr_op_state_add_attr(&st, "perm", unit_i64s_attr(perm, 2));
  kr_type wrong = unit_type("tensor<2x3xf32>");
  kr_op_state_add_results(&st, &wrong, 1);
  kr_op *op = kr_builder_create(&b, &st);
  kr_op_state_free(&st);
  ck_assert_ptr_nonnull(op);
  ck_assert_int_eq(kr_op_verify(op), KR_FAILURE);
  ck_assert_msg(strstr(last_error, "shape inference gives 'tensor<3x2xf32>'") != NULL, "got: %s", last_error);
  /* kr_op_infer_result_types gives the rule's type without touching the op. */
  kr_type got;
  ck_assert_int_eq(kr_op_infer_result_types(op, &got), KR_SUCCESS);
  ck_assert_ptr_eq(got, unit_type("tensor<3x2xf32>"));
  ck_assert_ptr_eq(kr_value_type(kr_op_result(op, 0)), wrong);
}
END_TEST

int main(void) {
  Suite *s = suite_create("prim_api");
  TCase *tc = tcase_create("prim_api");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, build_infers_and_inserts);
  tcase_add_test(tc, build_rejects_rule_violations);
  tcase_add_test(tc, classes);
  tcase_add_test(tc, attr_defaults_and_schema);
  tcase_add_test(tc, verifier_checks_declared_type);
  suite_add_tcase(s, tc);
  return unit_run_suite(s);
}
