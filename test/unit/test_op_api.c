/* Unit tests: the C API of the op dialect (korch/op.h): registration, schema lookup by ONNX
 * name, the parsed ops.def rows, attribute accessors with ONNX defaults, constant operands and
 * op.none, the shape helpers, shape inference through kr_op_infer_and_set_types, and the
 * generic verifier.  Every expected shape and default is taken from ONNX Operators.md (opset 17)
 * and computed by hand in the comments. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/korch.h"
#include "korch/op.h"
#include "test/unit/unit_fixture.h"

static kr_block *blk;          /* holds the block arguments used as operands */

static void setup(void) {
  unit_context_setup(true);
  blk = kr_block_create(ctx);
}
static void teardown(void) { unit_context_teardown(); }

/* A value of type `text` (a block argument). */
static kr_value arg(const char *text) { return kr_block_add_arg(blk, unit_type(text), NULL); }

static kr_attr f32_attr(double v) { return kr_attr_float(ctx, kr_type_float(ctx, KR_F32), v); }

typedef struct named {
  const char *name;
  kr_attr value;
} named;

/* A detached op `name` with operands, `nres` results typed `none` (to be inferred) and attrs. */
static kr_op *mk(const char *name, const kr_value *ops, unsigned n, unsigned nres, const named *attrs, unsigned na) {
  kr_op_state st;
  kr_op_state_init(&st, ctx, name, NULL);
  kr_op_state_add_operands(&st, ops, n);
  kr_type none = kr_type_none(ctx);
  for (unsigned i = 0; i < nres; i++) kr_op_state_add_results(&st, &none, 1);
  for (unsigned i = 0; i < na; i++) kr_op_state_add_attr(&st, attrs[i].name, attrs[i].value);
  kr_op *op = kr_op_create(&st);
  kr_op_state_free(&st);
  ck_assert_ptr_nonnull(op);
  return op;
}

/* An op.constant producing `value` (appended to blk so it has a home). */
static kr_value constant(kr_attr value) {
  ck_assert_ptr_nonnull(value);
  kr_op_state st;
  kr_op_state_init(&st, ctx, KR_OP_CONSTANT, NULL);
  kr_op_state_add_attr(&st, "value", value);
  kr_op_state_add_results(&st, &value->type, 1);
  kr_op *c = kr_op_create(&st);
  kr_op_state_free(&st);
  kr_block_append_op(blk, c);
  return kr_op_result(c, 0);
}

static kr_value i64_constant(const int64_t *v, int64_t n) {
  return constant(kr_attr_dense(ctx, kr_type_tensor(ctx, &n, 1, kr_type_integer(ctx, 64, KR_SIGNLESS)), v,
                                (size_t)n * sizeof *v));
}

static kr_value none_value(void) {
  kr_op_state st;
  kr_op_state_init(&st, ctx, KR_OP_NONE, NULL);
  kr_type none = kr_type_none(ctx);
  kr_op_state_add_results(&st, &none, 1);
  kr_op *c = kr_op_create(&st);
  kr_op_state_free(&st);
  kr_block_append_op(blk, c);
  return kr_op_result(c, 0);
}

/* Infers op's types and checks result 0 against `expected`. */
static void expect_infer(kr_op *op, const char *expected) {
  unit_reset_errors();
  ck_assert_msg(kr_op_infer_and_set_types(op) == KR_SUCCESS, "inference failed: %s", last_error);
  ck_assert_uint_eq(num_errors, 0);
  kr_type want = unit_type(expected);
  kr_type got = kr_value_type(kr_op_result(op, 0));
  ck_assert_msg(got == want, "%s: unexpected result type (rank %u, dim0 %lld)", expected, got->u.shaped.rank,
                got->kind == KR_TYPE_TENSOR && got->u.shaped.rank ? (long long)got->u.shaped.dims[0] : -1LL);
}

static void expect_infer_error(kr_op *op, const char *substring) {
  unit_reset_errors();
  ck_assert_int_eq(kr_op_infer_and_set_types(op), KR_FAILURE);
  ck_assert_uint_ge(num_errors, 1);
  ck_assert_msg(strstr(last_error, substring) != NULL, "error '%s' does not contain '%s'", last_error, substring);
}

/* ------------------------------------------------------------------------------------------- */

START_TEST(registration) {
  /* kr_register_core_dialects registered op (setup); registering it again is a no-op. */
  ck_assert_ptr_nonnull(kr_context_lookup_dialect(ctx, "op", 2));
  ck_assert_int_eq(kr_register_op_dialect(ctx), KR_SUCCESS);
  ck_assert_ptr_nonnull(kr_context_lookup_op(ctx, kr_ident_cstr(ctx, "op.conv")));
  ck_assert_ptr_nonnull(kr_context_lookup_op(ctx, kr_ident_cstr(ctx, KR_OP_CONSTANT)));
  ck_assert_ptr_nonnull(kr_context_lookup_op(ctx, kr_ident_cstr(ctx, KR_OP_NONE)));
  ck_assert_ptr_null(kr_context_lookup_op(ctx, kr_ident_cstr(ctx, "op.no_such_op")));
  ck_assert_uint_eq(num_errors, 0);
  /* A second context gets the same ops. */
  kr_context *c2 = kr_context_create();
  ck_assert_int_eq(kr_register_core_dialects(c2), KR_SUCCESS);
  ck_assert_ptr_nonnull(kr_context_lookup_op(c2, kr_ident_cstr(c2, "op.mat_mul")));
  kr_context_destroy(c2);
}
END_TEST

START_TEST(names_for_onnx) {
  /* Op names are the ONNX names in snake_case under op. (ops.def header). */
  ck_assert_str_eq(kr_op_name_for_onnx(ctx, "Conv"), "op.conv");
  ck_assert_str_eq(kr_op_name_for_onnx(ctx, "MatMul"), "op.mat_mul");
  ck_assert_str_eq(kr_op_name_for_onnx(ctx, "ReduceMean"), "op.reduce_mean");
  ck_assert_str_eq(kr_op_name_for_onnx(ctx, "LeakyRelu"), "op.leaky_relu");
  ck_assert_str_eq(kr_op_name_for_onnx(ctx, "GlobalAveragePool"), "op.global_average_pool");
  ck_assert_str_eq(kr_op_name_for_onnx(ctx, "IsNaN"), "op.is_nan");
  ck_assert_ptr_null(kr_op_name_for_onnx(ctx, "NoSuchOp"));
  ck_assert_ptr_null(kr_op_name_for_onnx(ctx, "conv"));   /* ONNX names are case-sensitive */
  ck_assert_ptr_null(kr_op_name_for_onnx(ctx, ""));

  const kr_op_schema *s = kr_op_schema_by_onnx_name(ctx, "Conv");
  ck_assert_ptr_nonnull(s);
  ck_assert_str_eq(s->onnx_name, "Conv");
  ck_assert_str_eq(s->family, "linear");
  ck_assert(s->infer != NULL);
  ck_assert_ptr_null(kr_op_schema_by_onnx_name(ctx, "NoSuchOp"));
  ck_assert_ptr_null(kr_op_schema_by_onnx_name(ctx, "Constant"));   /* imported as op.constant, not a row */

  /* kr_op_get_schema of an op is the row looked up by name; other dialects have none. */
  kr_value a = arg("tensor<2x3xf32>"), b = arg("tensor<3x4xf32>");
  kr_value ab[] = {a, b};
  kr_op *mm = mk("op.mat_mul", ab, 2, 1, NULL, 0);
  ck_assert_ptr_eq(kr_op_get_schema(mm), kr_op_schema_by_onnx_name(ctx, "MatMul"));
  kr_op *ret = mk("func.return", NULL, 0, 0, NULL, 0);
  ck_assert_ptr_null(kr_op_get_schema(ret));
  ck_assert_ptr_null(
      kr_op_get_schema(kr_value_defining_op(constant(kr_attr_dense(ctx, unit_type("tensor<1xf32>"), "\0\0\0\0", 4)))));
}
END_TEST

static const kr_op_attr_spec *attr_spec(const kr_op_schema *s, const char *name) {
  for (unsigned i = 0; i < s->num_attrs; i++)
    if (!strcmp(s->attrs[i].name, name)) return &s->attrs[i];
  ck_abort_msg("%s has no attribute %s", s->onnx_name, name);
  return NULL;
}

START_TEST(schema_operands) {
  /* Resize-13: X, then roi, scales, sizes, all optional and all shape operands. */
  const kr_op_schema *r = kr_op_schema_by_onnx_name(ctx, "Resize");
  ck_assert_uint_eq(r->num_operands, 4);
  ck_assert_str_eq(r->operands[0].name, "X");
  ck_assert(!r->operands[0].optional && !r->operands[0].variadic && !r->operands[0].shape);
  static const char *const rn[] = {"roi", "scales", "sizes"};
  for (unsigned i = 1; i < 4; i++) {
    ck_assert_str_eq(r->operands[i].name, rn[i - 1]);
    ck_assert(r->operands[i].optional);
    ck_assert(r->operands[i].shape);
    ck_assert(!r->operands[i].variadic);
  }
  ck_assert_uint_eq(r->min_operands, 1);
  ck_assert_uint_eq(r->max_operands, 4);
  ck_assert_uint_eq(r->num_results, 1);
  ck_assert_str_eq(r->results[0].name, "Y");

  /* Concat-13: one variadic operand (1 or more), required attribute axis. */
  const kr_op_schema *c = kr_op_schema_by_onnx_name(ctx, "Concat");
  ck_assert_uint_eq(c->num_operands, 1);
  ck_assert_str_eq(c->operands[0].name, "inputs");
  ck_assert(c->operands[0].variadic && !c->operands[0].optional && !c->operands[0].shape);
  ck_assert_uint_eq(c->min_operands, 1);
  ck_assert_uint_eq(c->max_operands, UINT32_MAX);
  const kr_op_attr_spec *axis = attr_spec(c, "axis");
  ck_assert_int_eq(axis->kind, KR_OPATTR_INT);
  ck_assert(axis->required && !axis->has_default);

  /* Reshape-14: data and the (required) shape operand; allowzero defaults to 0. */
  const kr_op_schema *rs = kr_op_schema_by_onnx_name(ctx, "Reshape");
  ck_assert_uint_eq(rs->num_operands, 2);
  ck_assert_str_eq(rs->operands[1].name, "shape");
  ck_assert(rs->operands[1].shape && !rs->operands[1].optional && !rs->operands[1].variadic);
  ck_assert(!rs->operands[0].shape);
  ck_assert_uint_eq(rs->min_operands, 2);
  ck_assert_uint_eq(rs->max_operands, 2);

  /* Split-13: variadic results; Dropout-13: optional result mask. */
  const kr_op_schema *sp = kr_op_schema_by_onnx_name(ctx, "Split");
  ck_assert(sp->results[0].variadic);
  ck_assert_uint_eq(sp->min_results, 1);
  ck_assert_uint_eq(sp->max_results, UINT32_MAX);
  ck_assert(sp->operands[1].optional && sp->operands[1].shape);
  const kr_op_schema *dr = kr_op_schema_by_onnx_name(ctx, "Dropout");
  ck_assert_uint_eq(dr->num_results, 2);
  ck_assert(dr->results[1].optional);
  ck_assert_uint_eq(dr->min_results, 1);
  ck_assert_uint_eq(dr->max_results, 2);
}
END_TEST

START_TEST(schema_attr_defaults) {
  /* Conv-11: auto_pad "NOTSET", group 1; dilations/pads/strides/kernel_shape have no default
   * value in the schema (ONNX: "inferred" / "defaults to 1 / 0 along each axis"). */
  const kr_op_schema *cv = kr_op_schema_by_onnx_name(ctx, "Conv");
  const kr_op_attr_spec *ap = attr_spec(cv, "auto_pad");
  ck_assert_int_eq(ap->kind, KR_OPATTR_STRING);
  ck_assert(ap->has_default && !ap->required);
  ck_assert_str_eq(ap->dflt_string, "NOTSET");
  const kr_op_attr_spec *g = attr_spec(cv, "group");
  ck_assert_int_eq(g->kind, KR_OPATTR_INT);
  ck_assert(g->has_default);
  ck_assert_int_eq(g->dflt_int, 1);
  const kr_op_attr_spec *pads = attr_spec(cv, "pads");
  ck_assert_int_eq(pads->kind, KR_OPATTR_INTS);
  ck_assert(!pads->has_default && !pads->required);
  ck_assert_uint_eq(cv->num_attrs, 6);

  /* Gemm-13: alpha = beta = 1.0, transA = transB = 0. */
  const kr_op_schema *gm = kr_op_schema_by_onnx_name(ctx, "Gemm");
  ck_assert_int_eq(attr_spec(gm, "alpha")->kind, KR_OPATTR_FLOAT);
  ck_assert(attr_spec(gm, "alpha")->dflt_float == 1.0);
  ck_assert(attr_spec(gm, "beta")->dflt_float == 1.0);
  ck_assert_int_eq(attr_spec(gm, "transA")->dflt_int, 0);
  ck_assert_int_eq(attr_spec(gm, "transB")->dflt_int, 0);
  ck_assert(attr_spec(gm, "transB")->has_default);
  ck_assert_uint_eq(gm->min_operands, 2);
  ck_assert_uint_eq(gm->max_operands, 3);
  ck_assert(gm->operands[2].optional);

  /* LeakyRelu-16: alpha = 0.01. */
  const kr_op_schema *lr = kr_op_schema_by_onnx_name(ctx, "LeakyRelu");
  ck_assert_uint_eq(lr->num_attrs, 1);
  ck_assert_double_eq_tol(attr_spec(lr, "alpha")->dflt_float, 0.01, 1e-12);

  /* MeanVarianceNormalization-13: axes = [0, 2, 3]. */
  const kr_op_attr_spec *ax = attr_spec(kr_op_schema_by_onnx_name(ctx, "MeanVarianceNormalization"), "axes");
  ck_assert_uint_eq(ax->num_dflt_ints, 3);
  ck_assert_int_eq(ax->dflt_ints[0], 0);
  ck_assert_int_eq(ax->dflt_ints[1], 2);
  ck_assert_int_eq(ax->dflt_ints[2], 3);

  /* Cast-13: `to` is a required type attribute. */
  const kr_op_attr_spec *to = attr_spec(kr_op_schema_by_onnx_name(ctx, "Cast"), "to");
  ck_assert_int_eq(to->kind, KR_OPATTR_TYPE);
  ck_assert(to->required);
}
END_TEST

START_TEST(attr_accessors) {
  kr_value x = arg("tensor<1x2x5x5xf32>"), w = arg("tensor<4x2x3x3xf32>");
  kr_value xw[] = {x, w};
  /* All defaults. */
  kr_op *c = mk("op.conv", xw, 2, 1, NULL, 0);
  ck_assert_int_eq(kr_op_attr_int(c, "group"), 1);
  ck_assert_str_eq(kr_op_attr_string(c, "auto_pad"), "NOTSET");
  const int64_t *v = (const int64_t *)1;
  ck_assert_uint_eq(kr_op_attr_ints(c, "pads", &v), 0);
  ck_assert_ptr_null(v);
  ck_assert(!kr_op_attr_present(c, "group"));
  /* Names outside the schema: 0 / NULL. */
  ck_assert_int_eq(kr_op_attr_int(c, "no_such"), 0);
  ck_assert_ptr_null(kr_op_attr_string(c, "no_such"));
  ck_assert(kr_op_attr_float(c, "no_such") == 0.0);

  /* Present values win. */
  static const int64_t pads[] = {1, 0, 2, 1};
  named at[] = {{"group", unit_i64_attr(2)}, {"pads", unit_i64s_attr(pads, 4)}, {"auto_pad", unit_str_attr("VALID")}};
  kr_op *c2 = mk("op.conv", xw, 2, 1, at, 3);
  ck_assert_int_eq(kr_op_attr_int(c2, "group"), 2);
  ck_assert(kr_op_attr_present(c2, "group"));
  ck_assert_str_eq(kr_op_attr_string(c2, "auto_pad"), "VALID");
  ck_assert_uint_eq(kr_op_attr_ints(c2, "pads", &v), 4);
  ck_assert_int_eq(v[0], 1);
  ck_assert_int_eq(v[2], 2);
  ck_assert_int_eq(v[3], 1);

  /* Float defaults are ONNX f32 values: LeakyRelu's 0.01 reads as (float)0.01. */
  kr_value xs[] = {x};
  kr_op *lr = mk("op.leaky_relu", xs, 1, 1, NULL, 0);
  ck_assert(kr_op_attr_float(lr, "alpha") == (double)0.01f);
  named la[] = {{"alpha", f32_attr(0.5)}};
  kr_op *lr2 = mk("op.leaky_relu", xs, 1, 1, la, 1);
  ck_assert(kr_op_attr_float(lr2, "alpha") == 0.5);

  /* Gemm defaults and present values. */
  kr_value a = arg("tensor<2x3xf32>"), b = arg("tensor<3x4xf32>");
  kr_value abv[] = {a, b};
  kr_op *g = mk("op.gemm", abv, 2, 1, NULL, 0);
  ck_assert(kr_op_attr_float(g, "alpha") == 1.0);
  ck_assert(kr_op_attr_float(g, "beta") == 1.0);
  ck_assert_int_eq(kr_op_attr_int(g, "transA"), 0);
  named ga[] = {{"beta", f32_attr(0.25)}, {"transB", unit_i64_attr(1)}};
  kr_op *g2 = mk("op.gemm", abv, 2, 1, ga, 2);
  ck_assert(kr_op_attr_float(g2, "beta") == 0.25);
  ck_assert(kr_op_attr_float(g2, "alpha") == 1.0);
  ck_assert_int_eq(kr_op_attr_int(g2, "transB"), 1);

  /* Ints default: MeanVarianceNormalization axes = [0, 2, 3]. */
  kr_op *mvn = mk("op.mean_variance_normalization", xs, 1, 1, NULL, 0);
  ck_assert_uint_eq(kr_op_attr_ints(mvn, "axes", &v), 3);
  ck_assert_int_eq(v[1], 2);

  /* Type and tensor attributes. */
  named ca[] = {{"to", kr_attr_type(ctx, kr_type_float(ctx, KR_F16))}};
  kr_op *cast = mk("op.cast", xs, 1, 1, ca, 1);
  ck_assert_ptr_eq(kr_op_attr_type(cast, "to"), kr_type_float(ctx, KR_F16));
  ck_assert_ptr_null(kr_op_attr_type(lr, "to"));
  kr_value shp = i64_constant((const int64_t[]){2, 3}, 2);
  kr_attr fill = kr_attr_dense(ctx, unit_type("tensor<1xi32>"), (const int32_t[]){7}, 4);
  named cos_a[] = {{"value", fill}};
  kr_op *cos = mk("op.constant_of_shape", &shp, 1, 1, cos_a, 1);
  ck_assert_ptr_eq(kr_op_attr_tensor(cos, "value"), fill);
  expect_infer(cos, "tensor<2x3xi32>");
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

START_TEST(infer_conv) {
  /* Conv: O = floor((D + pad_begin + pad_end - ((k - 1) * dilation + 1)) / stride) + 1.
   * X [2, 4, 11, 9], W [6, 2, 3, 2], group 2 (C = 2 * 2), pads [1, 0, 2, 1], strides [2, 3],
   * dilations [2, 1]:
   *   H: floor((11 + 1 + 2 - (2*2 + 1)) / 2) + 1 = floor(9 / 2) + 1 = 5
   *   W: floor((9 + 0 + 1 - (1*1 + 1)) / 3) + 1 = floor(8 / 3) + 1 = 3
   * Y [2, 6, 5, 3]. */
  kr_value x = arg("tensor<2x4x11x9xf32>"), w = arg("tensor<6x2x3x2xf32>"), bias = arg("tensor<6xf32>");
  static const int64_t pads[] = {1, 0, 2, 1}, strides[] = {2, 3}, dil[] = {2, 1};
  named at[] = {{"group", unit_i64_attr(2)},
                {"pads", unit_i64s_attr(pads, 4)},
                {"strides", unit_i64s_attr(strides, 2)},
                {"dilations", unit_i64s_attr(dil, 2)}};
  kr_value ops[] = {x, w, bias};
  expect_infer(mk("op.conv", ops, 3, 1, at, 4), "tensor<2x6x5x3xf32>");

  /* SAME_UPPER: O = ceil(D / stride).  X [1, 1, 7, 5], W [1, 1, 3, 3], strides 2 -> [4, 3]. */
  kr_value x2 = arg("tensor<1x1x7x5xf32>"), w2 = arg("tensor<1x1x3x3xf32>");
  static const int64_t s2[] = {2, 2};
  named at2[] = {{"auto_pad", unit_str_attr("SAME_UPPER")}, {"strides", unit_i64s_attr(s2, 2)}};
  kr_value ops2[] = {x2, w2};
  expect_infer(mk("op.conv", ops2, 2, 1, at2, 2), "tensor<1x1x4x3xf32>");
  /* VALID: O = floor((D - k) / stride) + 1 = [3, 2]. */
  named at3[] = {{"auto_pad", unit_str_attr("VALID")}, {"strides", unit_i64s_attr(s2, 2)}};
  expect_infer(mk("op.conv", ops2, 2, 1, at3, 2), "tensor<1x1x3x2xf32>");
  /* No attributes: pads 0, strides 1 -> [5, 3]. */
  expect_infer(mk("op.conv", ops2, 2, 1, NULL, 0), "tensor<1x1x5x3xf32>");

  /* C must be W's dim 1 times group: 4 != 2 * 1. */
  kr_value bad[] = {x, w};
  expect_infer_error(mk("op.conv", bad, 2, 1, NULL, 0), "input channels (4) must equal W's dim 1 (2) times group (1)");
  /* Bias of the wrong length. */
  kr_value b5 = arg("tensor<5xf32>");
  kr_value ops5[] = {x, w, b5};
  named g2[] = {{"group", unit_i64_attr(2)}};
  expect_infer_error(mk("op.conv", ops5, 3, 1, g2, 1), "'B'");
}
END_TEST

START_TEST(infer_matmul_gemm) {
  /* numpy matmul: batch dims broadcast, [2, 1, 3, 4] x [5, 4, 6] -> [2, 5, 3, 6]. */
  kr_value a = arg("tensor<2x1x3x4xf32>"), b = arg("tensor<5x4x6xf32>");
  kr_value ab[] = {a, b};
  expect_infer(mk("op.mat_mul", ab, 2, 1, NULL, 0), "tensor<2x5x3x6xf32>");
  /* 1-D A is [1, K] with the 1 removed: [4] x [3, 4, 6] -> [3, 6]. */
  kr_value v = arg("tensor<4xf32>"), c = arg("tensor<3x4x6xf32>");
  kr_value vc[] = {v, c};
  expect_infer(mk("op.mat_mul", vc, 2, 1, NULL, 0), "tensor<3x6xf32>");
  /* 1-D B is [K, 1] with the 1 removed: [2, 3, 4] x [4] -> [2, 3]; [4] x [4] -> scalar. */
  kr_value d = arg("tensor<2x3x4xf32>");
  kr_value dv[] = {d, v};
  expect_infer(mk("op.mat_mul", dv, 2, 1, NULL, 0), "tensor<2x3xf32>");
  kr_value vv[] = {v, v};
  expect_infer(mk("op.mat_mul", vv, 2, 1, NULL, 0), "tensor<f32>");
  /* K mismatch, batch mismatch. */
  kr_value e = arg("tensor<5x6xf32>");
  kr_value de[] = {d, e};
  expect_infer_error(mk("op.mat_mul", de, 2, 1, NULL, 0), "inner dimensions do not match");
  kr_value f = arg("tensor<3x4x6xf32>"), g = arg("tensor<2x3x4xf32>");
  kr_value gf[] = {g, f};
  expect_infer_error(mk("op.mat_mul", gf, 2, 1, NULL, 0), "do not broadcast");

  /* Gemm: A [3, 2] with transA is [2, 3]; B [4, 3] with transB is [3, 4] -> Y [2, 4]. */
  kr_value ga = arg("tensor<3x2xf32>"), gb = arg("tensor<4x3xf32>"), gc = arg("tensor<4xf32>");
  kr_value gops[] = {ga, gb, gc};
  named t[] = {{"transA", unit_i64_attr(1)}, {"transB", unit_i64_attr(1)}};
  expect_infer(mk("op.gemm", gops, 3, 1, t, 2), "tensor<2x4xf32>");
  /* Without transposes the inner dims are 2 and 4. */
  expect_infer_error(mk("op.gemm", gops, 3, 1, NULL, 0), "inner dimensions do not match");
}
END_TEST

START_TEST(infer_reshape_constant_shape) {
  /* Reshape [2, 3, 4] (24 elements) with shape [0, -1, 2]: 0 copies dim 0 (2), -1 is
   * 24 / (2 * 2) = 6 -> [2, 6, 2]. */
  kr_value data = arg("tensor<2x3x4xf32>");
  kr_value ops[] = {data, i64_constant((const int64_t[]){0, -1, 2}, 3)};
  kr_op *r = mk("op.reshape", ops, 2, 1, NULL, 0);
  expect_infer(r, "tensor<2x6x2xf32>");
  /* The shape operand reads back through kr_op_constant_ints. */
  int64_t out[4];
  ck_assert_int_eq(kr_op_constant_ints(r, 1, out, 4), 3);
  ck_assert_int_eq(out[0], 0);
  ck_assert_int_eq(out[1], -1);
  ck_assert_int_eq(out[2], 2);
  double fo[4];
  ck_assert_int_eq(kr_op_constant_floats(r, 1, fo, 4), 3);
  ck_assert(fo[1] == -1.0);
  /* [4, 0, -1]: 0 copies dim 1 (3), -1 is 24 / 12 = 2 -> [4, 3, 2]. */
  kr_value ops2[] = {data, i64_constant((const int64_t[]){4, 0, -1}, 3)};
  expect_infer(mk("op.reshape", ops2, 2, 1, NULL, 0), "tensor<4x3x2xf32>");
  /* 24 is not a multiple of 5. */
  kr_value ops3[] = {data, i64_constant((const int64_t[]){-1, 5}, 2)};
  expect_infer_error(mk("op.reshape", ops3, 2, 1, NULL, 0), "cannot reshape 24 elements");
  /* allowzero = 1: a 0 is a real 0-sized dim.  [0, 3] (0 elements) to [3, 0]; a 0 next to a -1
   * is then ambiguous and invalid (Reshape-14). */
  kr_value empty = arg("tensor<0x3xf32>");
  named az[] = {{"allowzero", unit_i64_attr(1)}};
  kr_value ops6[] = {empty, i64_constant((const int64_t[]){3, 0}, 2)};
  expect_infer(mk("op.reshape", ops6, 2, 1, az, 1), "tensor<3x0xf32>");
  kr_value ops7[] = {empty, i64_constant((const int64_t[]){0, -1}, 2)};
  expect_infer_error(mk("op.reshape", ops7, 2, 1, az, 1), "has both 0 and -1 while allowzero = 1");
  /* Without allowzero the same [3, 0] copies dim 1 (3): [3, 3] has 9 elements, not 0. */
  kr_value ops8[] = {empty, i64_constant((const int64_t[]){3, 0}, 2)};
  expect_infer_error(mk("op.reshape", ops8, 2, 1, NULL, 0), "cannot reshape 0 elements");
  kr_value ops4[] = {data, i64_constant((const int64_t[]){-1, -1}, 2)};
  expect_infer_error(mk("op.reshape", ops4, 2, 1, NULL, 0), "more than one -1");

  /* A shape operand that is not a constant is an error naming it. */
  kr_value ops5[] = {data, arg("tensor<3xi64>")};
  kr_op *r5 = mk("op.reshape", ops5, 2, 1, NULL, 0);
  expect_infer_error(r5, "operand #1 ('shape') must be a constant");
  unit_reset_errors();
  ck_assert_int_eq(kr_op_constant_ints(r5, 1, out, 4), -1);
  ck_assert_str_eq(last_error,
                   "'op.reshape' op operand #1 ('shape') must be a constant (its value decides the result shape)");
  /* More elements than the caller's capacity. */
  unit_reset_errors();
  ck_assert_int_eq(kr_op_constant_ints(r, 1, out, 2), -1);
  ck_assert_str_eq(last_error, "'op.reshape' op operand #1 ('shape') has 3 elements, at most 2 supported");
}
END_TEST

START_TEST(constant_operands_and_none) {
  /* Clip(input, <none>, max): the middle optional operand is op.none. */
  kr_value x = arg("tensor<2x2xf32>");
  kr_attr maxv = kr_attr_dense(ctx, unit_type("tensor<f32>"), (const float[]){6.0f}, 4);
  kr_value ops[] = {x, none_value(), constant(maxv)};
  kr_op *clip = mk("op.clip", ops, 3, 1, NULL, 0);
  ck_assert(kr_op_operand_present(clip, 0));
  ck_assert(!kr_op_operand_present(clip, 1));
  ck_assert(kr_op_operand_present(clip, 2));
  ck_assert(!kr_op_operand_present(clip, 3));    /* beyond the operand list */
  ck_assert(!kr_op_operand_present(clip, 100));
  ck_assert_ptr_null(kr_op_constant_operand(clip, 0));   /* a block argument */
  ck_assert_ptr_null(kr_op_constant_operand(clip, 1));   /* op.none */
  ck_assert_ptr_eq(kr_op_constant_operand(clip, 2), maxv);
  ck_assert_ptr_null(kr_op_constant_operand(clip, 3));
  expect_infer(clip, "tensor<2x2xf32>");
  double d[1];
  ck_assert_int_eq(kr_op_constant_floats(clip, 2, d, 1), 1);
  ck_assert(d[0] == 6.0);
  /* Integer reads of a float constant are refused. */
  int64_t i[1];
  unit_reset_errors();
  ck_assert_int_eq(kr_op_constant_ints(clip, 2, i, 1), -1);
  ck_assert_str_eq(last_error, "'op.clip' op operand #2 ('max') must hold integers");

  /* A required operand may not be op.none. */
  kr_value bad[] = {none_value(), x};
  expect_infer_error(mk("op.add", bad, 2, 1, NULL, 0), "operand #0 ('A') is required but is 'none'");

  /* Splat and i32 constants read as ints. */
  kr_value sp = constant(kr_attr_dense(ctx, unit_type("tensor<3xi32>"), (const int32_t[]){-2}, 4));
  kr_value sops[] = {x, sp};
  kr_op *user = mk("op.reshape", sops, 2, 1, NULL, 0);
  int64_t out[3];
  ck_assert_int_eq(kr_op_constant_ints(user, 1, out, 3), 3);
  ck_assert_int_eq(out[0], -2);
  ck_assert_int_eq(out[2], -2);
}
END_TEST

START_TEST(normalize_axis) {
  kr_value x = arg("tensor<2x3x4xf32>");
  kr_op *op = mk("op.softmax", &x, 1, 1, NULL, 0);
  int64_t out = 99;
  ck_assert_int_eq(kr_op_normalize_axis(op, "attribute 'axis' value", -1, 3, &out), KR_SUCCESS);
  ck_assert_int_eq(out, 2);
  ck_assert_int_eq(kr_op_normalize_axis(op, "attribute 'axis' value", -3, 3, &out), KR_SUCCESS);
  ck_assert_int_eq(out, 0);
  ck_assert_int_eq(kr_op_normalize_axis(op, "attribute 'axis' value", 2, 3, &out), KR_SUCCESS);
  ck_assert_int_eq(out, 2);
  ck_assert_uint_eq(num_errors, 0);
  out = 99;
  ck_assert_int_eq(kr_op_normalize_axis(op, "attribute 'axis' value", 3, 3, &out), KR_FAILURE);
  ck_assert_str_eq(last_error, "'op.softmax' op attribute 'axis' value 3 is out of range [-3, 3)");
  ck_assert_int_eq(out, 99);
  ck_assert_int_eq(kr_op_normalize_axis(op, "attribute 'axis' value", -4, 3, &out), KR_FAILURE);
  ck_assert_str_eq(last_error, "'op.softmax' op attribute 'axis' value -4 is out of range [-3, 3)");
  ck_assert_uint_eq(num_errors, 2);
  /* Through shape inference: Softmax axis = 3 on a rank-3 input. */
  named ax[] = {{"axis", unit_i64_attr(3)}};
  expect_infer_error(mk("op.softmax", &x, 1, 1, ax, 1), "out of range [-3, 3)");
  named ax2[] = {{"axis", unit_i64_attr(-3)}};
  expect_infer(mk("op.softmax", &x, 1, 1, ax2, 1), "tensor<2x3x4xf32>");
}
END_TEST

START_TEST(broadcast_shapes) {
  kr_value x = arg("tensor<2x3xf32>");
  kr_op *op = mk("op.add", (kr_value[]){x, x}, 2, 1, NULL, 0);
  int64_t dims[KR_OP_MAX_RANK];
  unsigned rank = 0;
  /* [2, 1, 3] , [4, 1] , [] -> [2, 4, 3] (Broadcasting.md). */
  kr_type ok[] = {unit_type("tensor<2x1x3xf32>"), unit_type("tensor<4x1xf32>"), unit_type("tensor<f32>")};
  ck_assert_int_eq(kr_op_broadcast_shapes(op, ok, 3, dims, &rank), KR_SUCCESS);
  ck_assert_uint_eq(rank, 3);
  ck_assert_int_eq(dims[0], 2);
  ck_assert_int_eq(dims[1], 4);
  ck_assert_int_eq(dims[2], 3);
  /* A 0-sized dim broadcasts with 1 (to 0). */
  kr_type zero[] = {unit_type("tensor<0x1xf32>"), unit_type("tensor<1x5xf32>")};
  ck_assert_int_eq(kr_op_broadcast_shapes(op, zero, 2, dims, &rank), KR_SUCCESS);
  ck_assert_int_eq(dims[0], 0);
  ck_assert_int_eq(dims[1], 5);
  ck_assert_uint_eq(num_errors, 0);
  /* [2, 3] and [4, 3]: 2 vs 4. */
  kr_type bad[] = {unit_type("tensor<2x3xf32>"), unit_type("tensor<4x3xf32>")};
  ck_assert_int_eq(kr_op_broadcast_shapes(op, bad, 2, dims, &rank), KR_FAILURE);
  ck_assert_uint_eq(num_errors, 1);
  ck_assert_str_eq(last_error, "'op.add' op operands have incompatible shapes for broadcasting: "
                               "'tensor<2x3xf32>' and 'tensor<4x3xf32>'");
  /* Three operands: the conflict is between the 2nd and the 3rd; the message names those two,
   * not the first (which broadcasts with both). */
  kr_type bad3[] = {unit_type("tensor<1xf32>"), unit_type("tensor<2x3xf32>"), unit_type("tensor<4x3xf32>")};
  ck_assert_int_eq(kr_op_broadcast_shapes(op, bad3, 3, dims, &rank), KR_FAILURE);
  ck_assert_str_eq(last_error, "'op.add' op operands have incompatible shapes for broadcasting: "
                               "'tensor<2x3xf32>' and 'tensor<4x3xf32>'");
  /* Through Add's shape inference. */
  kr_value y = arg("tensor<4x3xf32>");
  expect_infer_error(mk("op.add", (kr_value[]){x, y}, 2, 1, NULL, 0), "incompatible shapes for broadcasting");
  kr_value z = arg("tensor<5x1x3xf32>");
  expect_infer(mk("op.add", (kr_value[]){x, z}, 2, 1, NULL, 0), "tensor<5x2x3xf32>");
}
END_TEST

START_TEST(operand_tensor) {
  kr_value x = arg("tensor<2x?xf32>");
  kr_op *op = mk("op.relu", &x, 1, 1, NULL, 0);
  kr_type t = NULL;
  ck_assert_int_eq(kr_op_operand_tensor(op, 0, &t), KR_FAILURE);
  ck_assert_str_eq(last_error,
                   "'op.relu' op operand #0 ('X') must be a tensor with a static shape, got 'tensor<2x?xf32>'");
  ck_assert_ptr_null(t);
  expect_infer_error(op, "must be a tensor with a static shape");
  kr_value y = arg("tensor<2x3xf32>");
  kr_op *op2 = mk("op.relu", &y, 1, 1, NULL, 0);
  ck_assert_int_eq(kr_op_operand_tensor(op2, 0, &t), KR_SUCCESS);
  ck_assert_ptr_eq(t, unit_type("tensor<2x3xf32>"));
  /* Schema checks come first: wrong operand count, unknown attribute, required attribute. */
  expect_infer_error(mk("op.relu", (kr_value[]){y, y}, 2, 1, NULL, 0), "expects 1 operands (ONNX Relu), got 2");
  named bogus[] = {{"alpha", f32_attr(1.0)}};
  expect_infer_error(mk("op.relu", &y, 1, 1, bogus, 1), "unknown attribute 'alpha' (ONNX Relu opset 17)");
  expect_infer_error(mk("op.concat", &y, 1, 1, NULL, 0), "requires attribute 'axis'");
  named wrongkind[] = {{"axis", f32_attr(1.0)}};
  expect_infer_error(mk("op.concat", &y, 1, 1, wrongkind, 1), "attribute 'axis' must be an integer");
  /* Discardable (dialect-prefixed) attributes are allowed. */
  named disc[] = {{"onnx.name", unit_str_attr("n")}};
  expect_infer(mk("op.relu", &y, 1, 1, disc, 1), "tensor<2x3xf32>");
}
END_TEST

static const char wrong_type_kir[] =
    "func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {\n"
    "  %0 = \"op.add\"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>\n"
    "  return %a : tensor<2x3xf32>\n"
    "}\n";

START_TEST(verifier_rejects_wrong_result_type) {
  kr_op *m = kr_parse_source(ctx, "wrong.kir", wrong_type_kir, sizeof wrong_type_kir - 1, false);
  ck_assert_ptr_nonnull(m);
  ck_assert_uint_eq(num_errors, 0);
  ck_assert_int_eq(kr_op_verify(m), KR_FAILURE);
  ck_assert_uint_eq(num_errors, 1);
  /* [2, 3] + [3] broadcasts to [2, 3]. */
  ck_assert_str_eq(last_error, "'op.add' op result #0 ('C') has type 'tensor<3x3xf32>' but shape inference gives "
                               "'tensor<2x3xf32>'");
  /* Parsing with verification fails the same way. */
  unit_reset_errors();
  ck_assert_ptr_null(kr_parse_source(ctx, "wrong2.kir", wrong_type_kir, sizeof wrong_type_kir - 1, true));
  ck_assert(strstr(last_error, "but shape inference gives 'tensor<2x3xf32>'") != NULL);
  /* The corrected declaration verifies. */
  static const char good[] =
      "func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {\n"
      "  %0 = \"op.add\"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>\n"
      "  return %0 : tensor<2x3xf32>\n"
      "}\n";
  unit_reset_errors();
  kr_op *g = kr_parse_source(ctx, "good.kir", good, sizeof good - 1, true);
  ck_assert_ptr_nonnull(g);
  ck_assert_int_eq(kr_op_verify(g), KR_SUCCESS);
  ck_assert_uint_eq(num_errors, 0);
  kr_context_remove_source(ctx, "wrong.kir");
  kr_context_remove_source(ctx, "wrong2.kir");
  kr_context_remove_source(ctx, "good.kir");
}
END_TEST

START_TEST(infer_result_types_without_setting) {
  kr_value x = arg("tensor<1x3x4x4xf32>");
  kr_op *gap = mk("op.global_average_pool", &x, 1, 1, NULL, 0);
  kr_type res[1] = {NULL};
  ck_assert_int_eq(kr_op_infer_result_types(gap, res), KR_SUCCESS);
  ck_assert_ptr_eq(res[0], unit_type("tensor<1x3x1x1xf32>"));
  /* Not set on the op. */
  ck_assert_ptr_eq(kr_value_type(kr_op_result(gap, 0)), kr_type_none(ctx));
  /* Not an op of the op dialect. */
  kr_op *ret = mk("func.return", NULL, 0, 0, NULL, 0);
  ck_assert_int_eq(kr_op_infer_result_types(ret, res), KR_FAILURE);
  ck_assert(strstr(last_error, "is not an op of the op dialect") != NULL);
  /* Split into 3 equal parts along axis 1 (default split: 6 / 3 = 2 each). */
  kr_value s = arg("tensor<2x6xf32>");
  named ax[] = {{"axis", unit_i64_attr(1)}};
  kr_op *split = mk("op.split", &s, 1, 3, ax, 1);
  ck_assert_int_eq(kr_op_infer_and_set_types(split), KR_SUCCESS);
  for (unsigned i = 0; i < 3; i++)
    ck_assert_ptr_eq(kr_value_type(kr_op_result(split, i)), unit_type("tensor<2x2xf32>"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("op_api");
  TCase *tc = tcase_create("op_api");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, registration);
  tcase_add_test(tc, names_for_onnx);
  tcase_add_test(tc, schema_operands);
  tcase_add_test(tc, schema_attr_defaults);
  tcase_add_test(tc, attr_accessors);
  tcase_add_test(tc, infer_conv);
  tcase_add_test(tc, infer_matmul_gemm);
  tcase_add_test(tc, infer_reshape_constant_shape);
  tcase_add_test(tc, constant_operands_and_none);
  tcase_add_test(tc, normalize_axis);
  tcase_add_test(tc, broadcast_shapes);
  tcase_add_test(tc, operand_tensor);
  tcase_add_test(tc, verifier_rejects_wrong_result_type);
  tcase_add_test(tc, infer_result_types_without_setting);
  suite_add_tcase(s, tc);
  return unit_run_suite(s);
}
