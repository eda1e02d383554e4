/* test/lib/test_passes.c - passes that exercise the pass manager (see test_passes.h). */
#include "test_passes.h"

#include <inttypes.h>
#include <stddef.h>

#include "korch/diag.h"
#include "korch/dialect.h"
#include "korch/interp.h"

static kr_status fail_run(kr_op *op, const void *options, kr_pass_run *run) {
  (void)options;
  (void)run;
  return kr_op_emit_error(op, "test-fail: failing as asked");
}

static kr_status break_ir_run(kr_op *op, const void *options, kr_pass_run *run) {
  (void)options;
  kr_context *ctx = kr_pass_run_context(run);
  if (op->num_regions == 0 || !op->regions[0].first) return KR_SUCCESS;
  kr_op_state st;
  kr_op_state_init(&st, ctx, "test.verify_positive", op->loc);
  kr_op_state_add_attr(&st, "value", kr_attr_integer(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), 0));
  kr_op *bad = kr_op_create(&st);
  kr_op_state_free(&st);
  if (!bad) return KR_FAILURE;
  kr_block *b = op->regions[0].first;
  /* Before the terminator, if there is one, so only the op's own verifier complains. */
  if (kr_block_terminator(b)) kr_op_insert_before(bad, b->last);
  else kr_block_append_op(b, bad);
  return KR_SUCCESS;
}

typedef struct test_options {
  bool flag;
  int64_t number;
  uint64_t size;
  double ratio;
  const char *label;
} test_options;

static const kr_pass_option test_options_table[] = {
  {"flag", KR_OPT_BOOL, offsetof(test_options, flag), "false", "a boolean"},
  {"number", KR_OPT_INT, offsetof(test_options, number), "-1", "a signed integer"},
  {"size", KR_OPT_UINT, offsetof(test_options, size), "0", "an unsigned integer"},
  {"ratio", KR_OPT_DOUBLE, offsetof(test_options, ratio), "0.5", "a floating-point number"},
  {"label", KR_OPT_STRING, offsetof(test_options, label), "none", "a string"},
};

static kr_status options_run(kr_op *op, const void *options, kr_pass_run *run) {
  const test_options *o = options;
  kr_pass_run_mark_unchanged(run);
  return kr_op_emit_remark(op, "test-options: flag=%s number=%" PRId64 " size=%" PRIu64 " ratio=%g label='%s'",
                           o->flag ? "true" : "false", o->number, o->size, o->ratio, o->label ? o->label : "");
}

static kr_status func_pass_run(kr_op *op, const void *options, kr_pass_run *run) {
  (void)options;
  kr_pass_run_mark_unchanged(run);
  kr_ident name = kr_op_symbol_name(op);
  return kr_op_emit_remark(op, "test-func-pass on @%s", name ? name : "?");
}

/* test-perturb-constants: a planted numerics bug for the --verify-numerics tests. */
typedef struct perturb_options {
  double factor;
} perturb_options;

static const kr_pass_option perturb_options_table[] = {
  {"factor", KR_OPT_DOUBLE, offsetof(perturb_options, factor), "1.01", "the factor every float constant is scaled by"},
};

/* Scales the float `value` of a constant-like op (scalar float attribute, or a dense tensor of
 * floats) by `factor`; other constants are left alone. */
static kr_walk_result perturb_op(kr_op *op, void *user) {
  double factor = *(const double *)user;
  if (!kr_op_has_trait(op, KR_TRAIT_CONSTANT_LIKE)) return KR_WALK_ADVANCE;
  kr_attr v = kr_op_get_attr(op, "value");
  if (!v) return KR_WALK_ADVANCE;
  kr_context *ctx = kr_op_context(op);
  if (v->kind == KR_ATTR_FLOAT) {
    kr_op_set_attr(op, "value", kr_attr_float(ctx, v->type, v->u.f * factor));
    return KR_WALK_ADVANCE;
  }
  if (v->kind != KR_ATTR_DENSE || !v->type || v->type->kind != KR_TYPE_TENSOR ||
      !kr_type_is_float(v->type->u.shaped.elem))
    return KR_WALK_ADVANCE;
  kr_tensor view, copy;
  if (KR_FAILED(kr_tensor_from_attr(&view, v))) return KR_WALK_ADVANCE;
  if (!KR_FAILED(kr_tensor_alloc(&copy, view.type))) {
    for (int64_t i = 0; i < copy.numel; i++) kr_tensor_set_f64(&copy, i, kr_tensor_get_f64(&view, i) * factor);
    kr_op_set_attr(op, "value", kr_tensor_to_attr(ctx, &copy));
    kr_tensor_free(&copy);
  }
  kr_tensor_free(&view);
  return KR_WALK_ADVANCE;
}

static kr_status perturb_run(kr_op *op, const void *options, kr_pass_run *run) {
  (void)run;
  double factor = ((const perturb_options *)options)->factor;
  kr_op_walk(op, KR_WALK_PRE_ORDER, perturb_op, &factor);
  return KR_SUCCESS;
}

static const kr_pass_def test_passes[] = {
  {.argument = "test-fail", .summary = "Test pass: always fails", .run = fail_run},
  {.argument = "test-break-ir", .summary = "Test pass: leaves the IR invalid", .run = break_ir_run},
  {.argument = "test-options",
   .summary = "Test pass: reports its options",
   .options_size = sizeof(test_options),
   .options = test_options_table,
   .num_options = sizeof(test_options_table) / sizeof(test_options_table[0]),
   .run = options_run},
  {.argument = "test-func-pass", .summary = "Test pass: runs on func.func only", .anchor = "func.func",
   .run = func_pass_run},
  {.argument = "test-perturb-constants",
   .summary = "Test pass: scales every float constant by a factor (a planted numerics bug)",
   .options_size = sizeof(perturb_options),
   .options = perturb_options_table,
   .num_options = sizeof(perturb_options_table) / sizeof(perturb_options_table[0]),
   .run = perturb_run},
};

kr_status kr_register_test_passes(kr_context *ctx) {
  for (size_t i = 0; i < sizeof(test_passes) / sizeof(test_passes[0]); i++)
    if (KR_FAILED(kr_context_register_pass(ctx, &test_passes[i]))) return KR_FAILURE;
  return KR_SUCCESS;
}
