/* test/unit/test_plan.c - the memory plan's C API (korch/plan.h): kr_plan_buffers, and what
 * kr_plan_read hands the artifact writer (inputs, outputs, launches in the scheduled kernel's
 * argument order, weights), and the interpreter's planned level against the unplanned run. */
#include "test/unit/unit_fixture.h"

#include "korch/interp.h"
#include "korch/plan.h"

static const char program[] =
    "module {\n"
    "  kernel.func @add3(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<0xf32>) {\n"
    "    %0 = \"prim.add\"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>\n"
    "    %1 = \"prim.slice\"(%a) {starts = array<i64: 0>, ends = array<i64: 0>, steps = array<i64: 1>} : "
    "(tensor<3xf32>) -> tensor<0xf32>\n"
    "    kernel.return %0, %1 : tensor<3xf32>, tensor<0xf32>\n"
    "  }\n"
    "  kernel.func @exp(%a: tensor<3xf32>) -> tensor<3xf32> {\n"
    "    %0 = \"prim.exp\"(%a) : (tensor<3xf32>) -> tensor<3xf32>\n"
    "    kernel.return %0 : tensor<3xf32>\n"
    "  }\n"
    "  func.func @main(%x: tensor<3xf32> {onnx.name = \"x\"}) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32> "
    "{onnx.name = \"y\"}, tensor<0xf32>) {\n"
    "    %c = \"prim.constant\"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>\n"
    "    %unused = \"prim.constant\"() {value = dense<5.0> : tensor<3xf32>} : () -> tensor<3xf32>\n"
    "    %r = \"prim.constant\"() {value = dense<4.0> : tensor<3xf32>} : () -> tensor<3xf32>\n"
    "    %0:2 = kernel.launch @add3(%x, %c) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<0xf32>)\n"
    "    %1 = kernel.launch @exp(%0#0) : (tensor<3xf32>) -> tensor<3xf32>\n"
    "    return %x, %r, %1, %0#1 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<0xf32>\n"
    "  }\n"
    "}\n";

static void setup(void) {
  unit_context_setup(true);
  ck_assert_int_eq(kr_register_core_passes(ctx), KR_SUCCESS);
}
static void teardown(void) { unit_context_teardown(); }

static kr_op *parse(void) {
  kr_op *m = kr_parse_source(ctx, "plan.kir", program, sizeof program - 1, true);
  ck_assert_msg(m != NULL, "parse failed: %s", last_error);
  return m;
}

START_TEST(read_back) {
  kr_op *m = parse();
  kr_op *f = unit_func_named(m, "main");
  ck_assert(!kr_plan_is_planned(f));
  ck_assert_int_eq(kr_plan_buffers(m, NULL), KR_SUCCESS);
  ck_assert(kr_plan_is_planned(f));
  kr_arena a = {0};
  kr_plan p;
  ck_assert_int_eq(kr_plan_read(f, &a, &p), KR_SUCCESS);
  ck_assert_ptr_eq(p.func, f);
  ck_assert_uint_eq(p.alignment, KR_PLAN_DEFAULT_ALIGNMENT);
  /* Arena: x, %0#0, %1 (256 each, x and %0#0 both live at launch 0, %0#0 and %1 at launch 1, x
   * until the return): three ranges; the zero-sized result takes none. */
  ck_assert_uint_eq(p.arena_bytes, 768);
  ck_assert_uint_eq(p.no_reuse_bytes, 768);
  ck_assert_uint_eq(p.weights_bytes, 512);   /* %c and %r; not %unused */
  ck_assert_uint_eq(p.num_inputs, 1);
  ck_assert_str_eq(p.inputs[0].name, "x");
  ck_assert_uint_eq(p.inputs[0].ref.bytes, 12);
  ck_assert_uint_eq(p.num_outputs, 4);
  ck_assert_str_eq(p.outputs[0].name, "output_0");
  ck_assert_str_eq(p.outputs[2].name, "y");
  ck_assert_int_eq(p.outputs[0].ref.region, KR_PLAN_REGION_ARENA);
  ck_assert_uint_eq(p.outputs[0].ref.offset, p.inputs[0].ref.offset);   /* the argument itself */
  ck_assert_int_eq(p.outputs[1].ref.region, KR_PLAN_REGION_WEIGHTS);
  ck_assert_uint_eq(p.outputs[1].ref.offset, 256);
  ck_assert_uint_eq(p.outputs[3].ref.bytes, 0);
  ck_assert_uint_eq(p.outputs[3].ref.offset, 0);
  ck_assert_uint_eq(p.num_weights, 2);
  ck_assert_ptr_nonnull(p.weights[0].value);
  ck_assert_uint_eq(p.weights[0].ref.offset, 0);
  ck_assert_uint_eq(p.weights[1].ref.offset, 256);
  ck_assert_uint_eq(p.num_launches, 2);
  /* Operands, then results: the scheduled kernel.func's argument order. */
  const kr_plan_launch *l = &p.launches[0];
  ck_assert_str_eq(kr_op_symbol_name(l->kernel), "add3");
  ck_assert_uint_eq(l->num_args, 4);
  ck_assert_int_eq(l->args[0].region, KR_PLAN_REGION_ARENA);
  ck_assert_int_eq(l->args[1].region, KR_PLAN_REGION_WEIGHTS);
  ck_assert_uint_eq(l->args[1].offset, 0);
  ck_assert_uint_eq(l->args[3].bytes, 0);
  ck_assert_ptr_eq(l->args[2].type, unit_type("tensor<3xf32>"));
  /* No two arena ranges live at a launch overlap here: all three are distinct. */
  uint64_t o0 = p.inputs[0].ref.offset, o1 = l->args[2].offset, o2 = p.launches[1].args[1].offset;
  ck_assert(o0 != o1 && o1 != o2 && o0 != o2);
  kr_arena_release(&a);
  /* Planning again gives the same attributes (deterministic, replaces the plan). */
  kr_attr before = f->attrs;
  ck_assert_int_eq(kr_plan_buffers(m, NULL), KR_SUCCESS);
  ck_assert_ptr_eq(f->attrs, before);
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

START_TEST(interp_planned_matches) {
  kr_op *m = parse();
  kr_op *f = unit_func_named(m, "main");
  kr_tensor x;
  ck_assert_int_eq(kr_tensor_alloc(&x, unit_type("tensor<3xf32>")), KR_SUCCESS);
  for (int i = 0; i < 3; i++) kr_tensor_set_f64(&x, i, 0.5 * i - 0.25);
  kr_tensor ref[4], out[4];
  ck_assert_int_eq(kr_interp_run(f, &x, 1, ref, 4), KR_SUCCESS);
  kr_plan_options o = kr_plan_default_options();
  o.alignment = 16;
  ck_assert_int_eq(kr_plan_buffers(m, &o), KR_SUCCESS);
  ck_assert_int_eq(kr_interp_run(f, &x, 1, out, 4), KR_SUCCESS);
  for (int k = 0; k < 4; k++) {
    ck_assert_uint_eq(out[k].nbytes, ref[k].nbytes);
    ck_assert(!out[k].nbytes || !memcmp(out[k].data, ref[k].data, out[k].nbytes));
    kr_tensor_free(&out[k]);
    kr_tensor_free(&ref[k]);
  }
  kr_tensor_free(&x);
}
END_TEST

START_TEST(bad_alignment) {
  kr_op *m = parse();
  kr_plan_options o = kr_plan_default_options();
  o.alignment = 24;
  ck_assert_int_eq(kr_plan_buffers(m, &o), KR_FAILURE);
  ck_assert(strstr(last_error, "power of two in [16, 4096] (bytes), got 24") != NULL);
  ck_assert(!kr_plan_is_planned(unit_func_named(m, "main")));
  o.alignment = 8192; /* a power of two, above the page the plan allows */
  ck_assert_int_eq(kr_plan_buffers(m, &o), KR_FAILURE);
  ck_assert(strstr(last_error, "power of two in [16, 4096] (bytes), got 8192") != NULL);
  ck_assert(!kr_plan_is_planned(unit_func_named(m, "main")));
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("plan");
  TCase *tc = tcase_create("plan");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, read_back);
  tcase_add_test(tc, interp_planned_matches);
  tcase_add_test(tc, bad_alignment);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return unit_run_suite(suite()); }
