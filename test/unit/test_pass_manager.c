/* Unit tests: the pass registry, pipeline parsing and printing, options, nesting, failure
 * propagation, verify-each and the instrumentation (korch/pass.h, after MLIR's
 * PassManagement.md). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/korch.h"

static kr_context *ctx;
static char diags[8192];   /* "sev line:col: message\n" per diagnostic */

static void collect(const kr_diagnostic *d, void *user) {
  (void)user;
  kr_attr f = kr_loc_find_file(d->loc);
  size_t n = strlen(diags);
  const char *sev = d->severity == KR_SEV_ERROR ? "error" : d->severity == KR_SEV_REMARK ? "remark" : "other";
  snprintf(diags + n, sizeof diags - n, "%s %u:%u: %s\n", sev, f ? f->u.loc.line : 0, f ? f->u.loc.col : 0,
           d->message);
}

/* --- test passes --------------------------------------------------------------------------- */

typedef struct opts {
  bool flag;
  int64_t count;
  uint64_t size;
  double ratio;
  const char *label;
} opts;

static const kr_pass_option opts_table[] = {
  {"flag", KR_OPT_BOOL, offsetof(opts, flag), "false", "a bool"},
  {"count", KR_OPT_INT, offsetof(opts, count), "-1", "an int"},
  {"size", KR_OPT_UINT, offsetof(opts, size), NULL, "a uint"},
  {"ratio", KR_OPT_DOUBLE, offsetof(opts, ratio), "0.25", "a double"},
  {"label", KR_OPT_STRING, offsetof(opts, label), "none", "a string"},
};

static opts seen;          /* options of the last run of `opts` */
static char trace[1024];   /* "pass@op " per run */

static void note(const char *pass, kr_op *op) {
  size_t n = strlen(trace);
  kr_ident name = kr_op_symbol_name(op);
  snprintf(trace + n, sizeof trace - n, "%s@%s ", pass, name ? name : op->name);
}

static kr_status opts_run(kr_op *op, const void *o, kr_pass_run *run) {
  seen = *(const opts *)o;
  note("opts", op);
  kr_pass_run_mark_unchanged(run);
  return KR_SUCCESS;
}

static kr_status count_run(kr_op *op, const void *o, kr_pass_run *run) {
  (void)o;
  ck_assert_ptr_eq(kr_pass_run_context(run), ctx);
  note("count", op);
  kr_pass_run_mark_unchanged(run);
  return KR_SUCCESS;
}

static kr_status fail_run(kr_op *op, const void *o, kr_pass_run *run) {
  (void)o;
  (void)run;
  note("fail", op);
  return kr_op_emit_error(op, "failing");
}

/* Erases the func.return of a function: the verifier must then reject the function. */
static kr_status break_run(kr_op *op, const void *o, kr_pass_run *run) {
  (void)o;
  (void)run;
  note("break", op);
  kr_block *b = op->regions[0].first;
  if (b && b->last) kr_op_erase(b->last);
  return KR_SUCCESS;
}

/* Sets a (dialect-prefixed, so the module verifier accepts it) attribute: a change that
 * --print-ir-after-change must see. */
static kr_status touch_run(kr_op *op, const void *o, kr_pass_run *run) {
  (void)o;
  (void)run;
  note("touch", op);
  kr_op_set_attr(op, "test.touched", kr_attr_unit(ctx));
  return KR_SUCCESS;
}

static const kr_pass_def opts_pass = {.argument = "opts",
                                      .summary = "options",
                                      .options_size = sizeof(opts),
                                      .options = opts_table,
                                      .num_options = 5,
                                      .run = opts_run,
                                      .display_name = "Opts"};
static const kr_pass_def count_pass = {.argument = "count", .summary = "counts", .run = count_run};
static const kr_pass_def fail_pass = {.argument = "fail", .summary = "fails", .run = fail_run};
static const kr_pass_def break_pass = {.argument = "break", .summary = "breaks", .run = break_run,
                                       .anchor = "func.func"};
static const kr_pass_def touch_pass = {.argument = "touch", .summary = "touches", .run = touch_run,
                                       .display_name = "Touch"};

static const char *src =
    "func.func @a(%x: i32) -> i32 {\n"
    "  return %x : i32\n"
    "}\n"
    "func.func @b(%x: i32) -> i32 {\n"
    "  %0 = arith.addi %x, %x : i32\n"
    "  return %0 : i32\n"
    "}\n"
    "func.func @c() {\n"
    "  return\n"
    "}\n";

static kr_op *module;

static void setup(void) {
  ctx = kr_context_create();
  diags[0] = 0;
  trace[0] = 0;
  memset(&seen, 0, sizeof seen);
  kr_context_set_diag_handler(ctx, collect, NULL);
  ck_assert_int_eq(kr_register_core_dialects(ctx), KR_SUCCESS);
  ck_assert_int_eq(kr_register_core_passes(ctx), KR_SUCCESS);
  ck_assert_int_eq(kr_context_register_pass(ctx, &opts_pass), KR_SUCCESS);
  ck_assert_int_eq(kr_context_register_pass(ctx, &count_pass), KR_SUCCESS);
  ck_assert_int_eq(kr_context_register_pass(ctx, &fail_pass), KR_SUCCESS);
  ck_assert_int_eq(kr_context_register_pass(ctx, &break_pass), KR_SUCCESS);
  ck_assert_int_eq(kr_context_register_pass(ctx, &touch_pass), KR_SUCCESS);
  module = kr_parse_source(ctx, "t.kir", src, strlen(src), true);
  ck_assert_ptr_nonnull(module);
}

static void teardown(void) { kr_context_destroy(ctx); }

/* The pipeline text of `pm`; the caller frees it. */
static char *pipeline_str(kr_pass_manager *pm) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_pass_manager_print_pipeline(pm, &os);
  char *s = strdup(kr_ostream_str(&os));
  kr_ostream_close(&os);
  return s;
}

static void assert_pipeline(kr_pass_manager *pm, const char *want) {
  char *got = pipeline_str(pm);
  ck_assert_str_eq(got, want);
  free(got);
}

/* Parses `text` into a fresh module manager, expecting failure with exactly `diag`. */
static void assert_parse_error(const char *text, const char *diag) {
  kr_pass_manager *pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  diags[0] = 0;
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(pm, text), KR_FAILURE);
  ck_assert_str_eq(diags, diag);
  assert_pipeline(pm, "builtin.module()");   /* all or nothing */
  kr_pass_manager_destroy(pm);
}

/* --- registry ------------------------------------------------------------------------------ */

START_TEST(registry_sorted_and_unique) {
  unsigned n = kr_context_num_passes(ctx);
  ck_assert_uint_eq(n, 18);   /* 13 core passes (korch/pass.h) + this file's 5 */
  for (unsigned i = 1; i < n; i++)
    ck_assert_int_lt(strcmp(kr_context_pass_at(ctx, i - 1)->argument, kr_context_pass_at(ctx, i)->argument), 0);
  ck_assert_ptr_null(kr_context_pass_at(ctx, n));
  ck_assert_ptr_eq(kr_context_lookup_pass(ctx, "opts", 4), &opts_pass);
  ck_assert_ptr_eq(kr_context_lookup_pass(ctx, "cse,canonicalize", 3)->argument, kr_context_lookup_pass(ctx, "cse", 3)->argument);
  ck_assert_ptr_null(kr_context_lookup_pass(ctx, "cs", 2));
  ck_assert_ptr_null(kr_context_lookup_pass(ctx, "csee", 4));
  /* The same def again is fine; another def with a taken name is not. */
  ck_assert_int_eq(kr_context_register_pass(ctx, &opts_pass), KR_SUCCESS);
  static const kr_pass_def dup = {.argument = "cse", .summary = "dup", .run = count_run};
  ck_assert_int_eq(kr_context_register_pass(ctx, &dup), KR_FAILURE);
  ck_assert(strstr(diags, "pass 'cse' is already registered") != NULL);
  static const kr_pass_def bad = {.argument = "a(b", .summary = "bad", .run = count_run};
  ck_assert_int_eq(kr_context_register_pass(ctx, &bad), KR_FAILURE);
  ck_assert_uint_eq(kr_context_num_passes(ctx), n);
  ck_assert_int_eq(kr_register_core_passes(ctx), KR_SUCCESS);   /* idempotent */
}
END_TEST

/* --- parsing and printing ------------------------------------------------------------------ */

START_TEST(parse_and_print_full_pipeline) {
  kr_pass_manager *pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(
                       pm, "builtin.module(func.func(cse,canonicalize{max-iterations=4 top-down=false}),symbol-dce)"),
                   KR_SUCCESS);
  assert_pipeline(pm, "builtin.module(func.func(cse,canonicalize{max-iterations=4 max-num-rewrites=-1 "
                      "region-simplify=true test-convergence=false top-down=false}),symbol-dce)");
  /* Appending a bare list, with spaces, nesting and an empty nested pipeline. */
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(pm, " dce , func.func( cse ) ,func.func()"), KR_SUCCESS);
  assert_pipeline(pm, "builtin.module(func.func(cse,canonicalize{max-iterations=4 max-num-rewrites=-1 "
                      "region-simplify=true test-convergence=false top-down=false}),symbol-dce,dce,"
                      "func.func(cse),func.func())");
  kr_pass_manager_destroy(pm);
}
END_TEST

START_TEST(printed_pipeline_reparses) {
  kr_pass_manager *pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(pm, "opts{label={a b} ratio=1e-3},func.func(inline)"), KR_SUCCESS);
  char *text = pipeline_str(pm);
  ck_assert_str_eq(text, "builtin.module(opts{count=-1 flag=false label={a b} ratio=0.001 size=0},"
                         "func.func(inline{default-pipeline=canonicalize max-iterations=4}))");
  kr_pass_manager *pm2 = kr_pass_manager_create(ctx, KR_MODULE_OP);
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(pm2, text), KR_SUCCESS);
  assert_pipeline(pm2, text);
  free(text);
  kr_pass_manager_destroy(pm);
  kr_pass_manager_destroy(pm2);
}
END_TEST

START_TEST(options_of_every_kind) {
  kr_pass_manager *pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(
                       pm, "builtin.module(opts{flag count=-42 size=0x10 ratio=2.5 label=\"hello world\"})"),
                   KR_SUCCESS);
  ck_assert_int_eq(kr_pass_manager_run(pm, module), KR_SUCCESS);
  ck_assert(seen.flag);
  ck_assert_int_eq(seen.count, -42);
  ck_assert_uint_eq(seen.size, 16);
  ck_assert(seen.ratio == 2.5);
  ck_assert_str_eq(seen.label, "hello world");
  ck_assert_ptr_eq(seen.label, kr_ident_cstr(ctx, "hello world"));   /* interned */
  kr_pass_manager_destroy(pm);

  /* Defaults, and quoting with single quotes and braces; later settings win. */
  pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(pm, "opts{label='x y' flag=1 flag=false}"), KR_SUCCESS);
  ck_assert_int_eq(kr_pass_manager_run(pm, module), KR_SUCCESS);
  ck_assert(!seen.flag);
  ck_assert_int_eq(seen.count, -1);
  ck_assert_uint_eq(seen.size, 0);
  ck_assert(seen.ratio == 0.25);
  ck_assert_str_eq(seen.label, "x y");
  kr_pass_manager_destroy(pm);

  /* kr_pass_manager_add_pass takes the option text alone. */
  pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  ck_assert_int_eq(kr_pass_manager_add_pass(pm, "opts", "count=7 label={}"), KR_SUCCESS);
  ck_assert_int_eq(kr_pass_manager_add_pass(pm, "cse", NULL), KR_SUCCESS);
  ck_assert_int_eq(kr_pass_manager_run(pm, module), KR_SUCCESS);
  ck_assert_int_eq(seen.count, 7);
  ck_assert_str_eq(seen.label, "");
  diags[0] = 0;
  ck_assert_int_eq(kr_pass_manager_add_pass(pm, "opts", "count=x"), KR_FAILURE);
  ck_assert_str_eq(diags, "error 1:12: invalid value 'x' for integer option 'count'\n");
  diags[0] = 0;
  ck_assert_int_eq(kr_pass_manager_add_pass(pm, "nope", ""), KR_FAILURE);
  ck_assert_str_eq(diags, "error 0:0: 'nope' does not refer to a registered pass\n");
  assert_pipeline(pm, "builtin.module(opts{count=7 flag=false label= ratio=0.25 size=0},cse)");
  kr_pass_manager_destroy(pm);
}
END_TEST

START_TEST(parse_errors_have_columns) {
  assert_parse_error("builtin.module(foo)", "error 1:16: 'foo' does not refer to a registered pass\n");
  assert_parse_error("cse,,dce", "error 1:5: '' does not refer to a registered pass\n");
  assert_parse_error("builtin.module(func.func(cse)",
                     "error 1:15: encountered unbalanced parentheses while parsing pipeline\n");
  assert_parse_error("builtin.module(func.func(cse),dce",
                     "error 1:15: encountered unbalanced parentheses while parsing pipeline\n");
  assert_parse_error("func.func(cse", "error 1:10: encountered unbalanced parentheses while parsing pipeline\n");
  assert_parse_error("builtin.module(cse))",
                     "error 1:20: encountered extra closing ')' creating unbalanced parentheses while parsing "
                     "pipeline\n");
  assert_parse_error("canonicalize{x=1}", "error 1:14: no such option 'x' for pass 'canonicalize'\n");
  assert_parse_error("canonicalize{max-iterations=abc}",
                     "error 1:29: invalid value 'abc' for integer option 'max-iterations'\n");
  assert_parse_error("canonicalize{top-down=maybe}", "error 1:23: invalid value 'maybe' for boolean option 'top-down'\n");
  assert_parse_error("opts{size=-1}", "error 1:11: invalid value '-1' for unsigned integer option 'size'\n");
  assert_parse_error("opts{ratio=1.5x}", "error 1:12: invalid value '1.5x' for floating-point option 'ratio'\n");
  assert_parse_error("opts{count}", "error 1:6: missing value for integer option 'count' of pass 'opts'\n");
  assert_parse_error("canonicalize{max-iterations=4", "error 1:13: missing closing '}' while processing pass options\n");
  assert_parse_error("cse dce", "error 1:5: expected ',' after 'cse'\n");
  assert_parse_error("builtin.module(arith.addi(cse))",
                     "error 1:16: can't nest a pass pipeline on 'arith.addi': the op is not isolated from above\n");
  assert_parse_error("cse(dce)", "error 1:1: 'cse' is a pass, not an operation name: it cannot anchor a nested pipeline\n");
  /* A failure deep inside leaves nothing behind (checked by assert_parse_error). */
  assert_parse_error("cse,func.func(dce,bogus)", "error 1:19: 'bogus' does not refer to a registered pass\n");
}
END_TEST

/* --- running ------------------------------------------------------------------------------- */

START_TEST(nested_managers_run_on_each_op) {
  kr_pass_manager *pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  kr_pass_manager *fpm = kr_pass_manager_nest(pm, "func.func");
  ck_assert_ptr_eq(kr_pass_manager_nest(pm, "func.func"), fpm);   /* reuses the last one */
  ck_assert_int_eq(kr_pass_manager_add_pass(fpm, "count", NULL), KR_SUCCESS);
  ck_assert_int_eq(kr_pass_manager_add_pass(pm, "count", NULL), KR_SUCCESS);
  ck_assert_int_eq(kr_pass_manager_add_pass(kr_pass_manager_nest(pm, "func.func"), "opts", NULL), KR_SUCCESS);
  assert_pipeline(pm, "builtin.module(func.func(count),count,func.func(opts{count=-1 flag=false label=none "
                      "ratio=0.25 size=0}))");
  ck_assert_int_eq(kr_pass_manager_run(pm, module), KR_SUCCESS);
  ck_assert_str_eq(trace, "count@a count@b count@c count@builtin.module opts@a opts@b opts@c ");
  kr_pass_manager_destroy(pm);
}
END_TEST

START_TEST(anchor_mismatches) {
  kr_pass_manager *pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  kr_op *func = module->regions[0].first->first;
  ck_assert_int_eq(kr_pass_manager_run(pm, func), KR_FAILURE);
  ck_assert(strstr(diags, "error 1:1: can't run 'builtin.module' pass manager on 'func.func' op\n") != NULL);
  /* `break` is anchored on func.func: fine nested, an error on the module. */
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(pm, "break"), KR_SUCCESS);
  diags[0] = 0;
  ck_assert_int_eq(kr_pass_manager_run(pm, module), KR_FAILURE);
  ck_assert(strstr(diags, "can't run 'break' pass on 'builtin.module' op\n") != NULL);
  ck_assert_str_eq(trace, "");
  kr_pass_manager_destroy(pm);
  /* A manager built by hand may nest on a non-isolated op: rejected when run. */
  pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  ck_assert_int_eq(kr_pass_manager_add_pass(kr_pass_manager_nest(pm, "arith.addi"), "count", NULL), KR_SUCCESS);
  diags[0] = 0;
  ck_assert_int_eq(kr_pass_manager_run(pm, module), KR_FAILURE);
  ck_assert(strstr(diags, "can't nest a pass pipeline on 'arith.addi': the op is not isolated from above") != NULL);
  kr_pass_manager_destroy(pm);
  /* Unregistered ops may anchor nested managers (nothing to check). */
  pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(pm, "foo.bar(count)"), KR_SUCCESS);
  ck_assert_int_eq(kr_pass_manager_run(pm, module), KR_SUCCESS);
  kr_pass_manager_destroy(pm);
}
END_TEST

START_TEST(first_failure_stops_everything) {
  kr_pass_manager *pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(pm, "func.func(count,fail,count),count"), KR_SUCCESS);
  ck_assert_int_eq(kr_pass_manager_run(pm, module), KR_FAILURE);
  ck_assert_str_eq(trace, "count@a fail@a ");
  ck_assert_str_eq(diags, "error 1:1: 'func.func' op failing\n");
  kr_pass_manager_destroy(pm);
}
END_TEST

START_TEST(verify_each) {
  kr_pass_manager *pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(pm, "func.func(break,count)"), KR_SUCCESS);
  ck_assert_int_eq(kr_pass_manager_run(pm, module), KR_FAILURE);
  ck_assert_str_eq(trace, "break@a ");
  ck_assert(strstr(diags, "error 1:1: verification failed after pass 'break'\n") != NULL);
  kr_pass_manager_destroy(pm);

  /* Without verify-each the broken IR goes through. */
  trace[0] = 0;
  pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  kr_pass_manager_set_verify_each(pm, false);
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(pm, "func.func(count)"), KR_SUCCESS);
  ck_assert_int_eq(kr_pass_manager_run(pm, module), KR_SUCCESS);
  ck_assert_str_eq(trace, "count@a count@b count@c ");
  ck_assert_int_eq(kr_op_verify(module), KR_FAILURE);
  kr_pass_manager_destroy(pm);
}
END_TEST

static char *run_printing(const char *pipeline, kr_ir_print_mode mode, const char *after) {
  kr_pass_manager *pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(pm, pipeline), KR_SUCCESS);
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_pass_manager_set_ir_printing(pm, mode, &os);
  if (after) kr_pass_manager_add_print_ir_after(pm, after);
  ck_assert_int_eq(kr_pass_manager_run(pm, module), KR_SUCCESS);
  char *s = strdup(kr_ostream_str(&os));
  kr_ostream_close(&os);
  kr_pass_manager_destroy(pm);
  return s;
}

static unsigned count_of(const char *hay, const char *needle) {
  unsigned n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

START_TEST(print_ir_after_all_and_change) {
  char *s = run_printing("func.func(count),touch", KR_PRINT_IR_AFTER_ALL, NULL);
  ck_assert_uint_eq(count_of(s, "// -----// IR Dump After count (count) //----- //\nfunc.func @"), 3);
  ck_assert_uint_eq(count_of(s, "// -----// IR Dump After Touch (touch) //----- //\nmodule attributes {test.touched}"), 1);
  ck_assert_uint_eq(count_of(s, "}\n\n"), 4);   /* each dump ends with a blank line */
  free(s);

  /* Only `touch` changes anything (count marks itself unchanged, opts changes nothing). */
  s = run_printing("func.func(count,touch),opts", KR_PRINT_IR_AFTER_CHANGE, NULL);
  ck_assert_uint_eq(count_of(s, "IR Dump After"), 3);
  ck_assert_uint_eq(count_of(s, "// -----// IR Dump After Touch (touch) //----- //\nfunc.func @"), 3);
  free(s);
  /* touch again: the attribute is already there, so the IR does not change. */
  s = run_printing("func.func(touch)", KR_PRINT_IR_AFTER_CHANGE, NULL);
  ck_assert_str_eq(s, "");
  free(s);

  /* --print-ir-after=NAME selects passes by argument. */
  s = run_printing("func.func(count,cse),cse,opts", KR_PRINT_IR_NONE, "cse");
  ck_assert_uint_eq(count_of(s, "IR Dump After CSE (cse)"), 4);
  ck_assert_uint_eq(count_of(s, "IR Dump After"), 4);
  free(s);
}
END_TEST

START_TEST(timing_table) {
  kr_pass_manager *pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(pm, "func.func(cse,canonicalize),symbol-dce"), KR_SUCCESS);
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_pass_manager_enable_timing(pm, &os);
  ck_assert_int_eq(kr_pass_manager_run(pm, module), KR_SUCCESS);
  const char *s = kr_ostream_str(&os);
  ck_assert(strncmp(s, "===-------------------------------------------------------------------------===\n"
                       "                         ... Execution time report ...\n"
                       "===-------------------------------------------------------------------------===\n"
                       "  Total Execution Time: ", 190) == 0);
  ck_assert(strstr(s, " seconds\n\n  ----Wall Time----  ----Name----\n") != NULL);
  const char *rows[] = {"%)  'func.func' Pipeline\n", "%)    CSE\n", "%)    Canonicalizer\n", "%)  SymbolDCE\n",
                        "%)  Rest\n", "(100.0%)  Total\n"};
  const char *at = s;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const char *p = strstr(at, rows[i]);
    ck_assert_msg(p != NULL, "row %zu missing in\n%s", i, s);
    at = p;
  }
  kr_ostream_close(&os);
  kr_pass_manager_destroy(pm);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pass_manager");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, registry_sorted_and_unique);
  tcase_add_test(tc, parse_and_print_full_pipeline);
  tcase_add_test(tc, printed_pipeline_reparses);
  tcase_add_test(tc, options_of_every_kind);
  tcase_add_test(tc, parse_errors_have_columns);
  tcase_add_test(tc, nested_managers_run_on_each_op);
  tcase_add_test(tc, anchor_mismatches);
  tcase_add_test(tc, first_failure_stops_everything);
  tcase_add_test(tc, verify_each);
  tcase_add_test(tc, print_ir_after_all_and_change);
  tcase_add_test(tc, timing_table);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
