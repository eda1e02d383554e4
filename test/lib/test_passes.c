/* test/lib/test_passes.c - passes that exercise the pass manager (see test_passes.h). */
#include "test_passes.h"

#include <inttypes.h>
#include <stddef.h>

#include "korch/diag.h"
#include "korch/dialect.h"

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
};

kr_status kr_register_test_passes(kr_context *ctx) {
  for (size_t i = 0; i < sizeof(test_passes) / sizeof(test_passes[0]); i++)
    if (KR_FAILED(kr_context_register_pass(ctx, &test_passes[i]))) return KR_FAILURE;
  return KR_SUCCESS;
}
