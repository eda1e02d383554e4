/* Unit tests: the diagnostic engine and its text format (korch/diag.h).  The expected text is
 * what mlir-opt 19 prints for the same situations (llvm::SourceMgr format: file:line:col, the
 * source line with tabs expanded to 8 columns, a caret; "<unknown>:0:" without a file location,
 * with the location printed before the message when it is not loc(unknown)). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/diag.h"
#include "korch/dialect.h"
#include "korch/ir.h"

static kr_context *ctx;

typedef struct collected {
  int n;
  kr_severity sev[8];
  char text[8][512]; /* kr_diag_print output of each */
} collected;

static void collect(const kr_diagnostic *d, void *user) {
  collected *c = user;
  ck_assert_int_lt(c->n, 8);
  c->sev[c->n] = d->severity;
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_diag_print(&os, d);
  snprintf(c->text[c->n], sizeof c->text[0], "%s", kr_ostream_str(&os));
  kr_ostream_close(&os);
  c->n++;
}

static collected got;
static void setup(void) {
  ctx = kr_context_create();
  memset(&got, 0, sizeof got);
  kr_context_set_diag_handler(ctx, collect, &got);
}
static void teardown(void) { kr_context_destroy(ctx); }

static const char src[] = "module {\n  %0 = \"t.op\"() : () -> i32\n\t x\n}\r\nlast";

START_TEST(format_with_source) {
  kr_context_add_source(ctx, "f.kir", src, sizeof src - 1);
  ck_assert_int_eq(kr_emit_error(ctx, kr_loc_file(ctx, "f.kir", 2, 8), "bad %s %d", "thing", 7), KR_FAILURE);
  ck_assert_int_eq(got.n, 1);
  ck_assert_int_eq(got.sev[0], KR_SEV_ERROR);
  ck_assert_str_eq(got.text[0], "f.kir:2:8: error: bad thing 7\n"
                                "  %0 = \"t.op\"() : () -> i32\n"
                                "       ^\n");
  /* A tab expands to the next multiple of 8 in both lines. */
  kr_emit_warning(ctx, kr_loc_file(ctx, "f.kir", 3, 3), "w");
  ck_assert_str_eq(got.text[1], "f.kir:3:3: warning: w\n"
                                "         x\n"
                                "         ^\n");
  /* CR before LF is not part of the line; the last line has no newline. */
  kr_emit_remark(ctx, kr_loc_file(ctx, "f.kir", 4, 1), "r");
  ck_assert_str_eq(got.text[2], "f.kir:4:1: remark: r\n}\n^\n");
  kr_emit_error(ctx, kr_loc_file(ctx, "f.kir", 5, 4), "e");
  ck_assert_str_eq(got.text[3], "f.kir:5:4: error: e\nlast\n   ^\n");
  /* Past the end of the buffer: no source line. */
  kr_emit_error(ctx, kr_loc_file(ctx, "f.kir", 9, 1), "far");
  ck_assert_str_eq(got.text[4], "f.kir:9:1: error: far\n");
  /* Unregistered file: no source line. */
  kr_emit_error(ctx, kr_loc_file(ctx, "other.kir", 1, 1), "x");
  ck_assert_str_eq(got.text[5], "other.kir:1:1: error: x\n");
  kr_context_remove_source(ctx, "f.kir");
  kr_emit_error(ctx, kr_loc_file(ctx, "f.kir", 2, 8), "gone");
  ck_assert_str_eq(got.text[6], "f.kir:2:8: error: gone\n");
  ck_assert_uint_eq(kr_context_num_errors(ctx), 5);
}
END_TEST

START_TEST(format_without_file) {
  kr_emit_error(ctx, kr_loc_unknown(ctx), "plain");
  ck_assert_str_eq(got.text[0], "<unknown>:0: error: plain\n");
  kr_emit_error(ctx, NULL, "null loc");
  ck_assert_str_eq(got.text[1], "<unknown>:0: error: null loc\n");
  kr_emit_error(ctx, kr_loc_name(ctx, "nm", 2, NULL), "msg");
  ck_assert_str_eq(got.text[2], "<unknown>:0: error: loc(\"nm\"): msg\n");
  /* A file location anywhere inside is used. */
  kr_attr locs[] = {kr_loc_name(ctx, "nm", 2, NULL), kr_loc_file(ctx, "q.kir", 4, 5)};
  kr_emit_error(ctx, kr_loc_fused(ctx, locs, 2, NULL), "fused");
  ck_assert_str_eq(got.text[3], "q.kir:4:5: error: fused\n");
  kr_emit_error(ctx, kr_loc_callsite(ctx, locs[0], locs[1]), "cs");
  ck_assert_str_eq(got.text[4], "q.kir:4:5: error: cs\n");
}
END_TEST

START_TEST(notes_and_ops) {
  kr_context_add_source(ctx, "f.kir", src, sizeof src - 1);
  kr_op_state st;
  kr_op_state_init(&st, ctx, "t.op", kr_loc_file(ctx, "f.kir", 2, 3));
  kr_op *op = kr_op_create(&st);
  kr_op_state_free(&st);
  ck_assert_int_eq(kr_op_emit_error(op, "has %d operands", 0), KR_FAILURE);
  ck_assert_str_eq(got.text[0], "f.kir:2:3: error: 't.op' op has 0 operands\n"
                                "  %0 = \"t.op\"() : () -> i32\n"
                                "  ^\n");
  ck_assert_int_eq(kr_op_emit_warning(op, "careful"), KR_SUCCESS);
  ck_assert_int_eq(got.sev[1], KR_SEV_WARNING);
  ck_assert(strstr(got.text[1], "warning: 't.op' op careful\n"));
  ck_assert_int_eq(kr_op_emit_remark(op, "fyi"), KR_SUCCESS);
  ck_assert(strstr(got.text[2], "remark: 't.op' op fyi\n"));
  kr_diagnostic *d = kr_op_diag_begin(op, KR_SEV_ERROR, "expects %s", "more");
  kr_diag_note(d, kr_loc_file(ctx, "f.kir", 1, 1), "defined here");
  kr_diag_note(d, NULL, "second note at the op");
  kr_diag_note(d, kr_loc_unknown(ctx), "third");
  ck_assert_int_eq(got.n, 3); /* nothing delivered before the report */
  kr_diag_report(d);
  ck_assert_int_eq(got.n, 4);
  ck_assert_str_eq(got.text[3], "f.kir:2:3: error: 't.op' op expects more\n"
                                "  %0 = \"t.op\"() : () -> i32\n"
                                "  ^\n"
                                "f.kir:1:1: note: defined here\n"
                                "module {\n"
                                "^\n"
                                "f.kir:2:3: note: second note at the op\n"
                                "  %0 = \"t.op\"() : () -> i32\n"
                                "  ^\n"
                                "<unknown>:0: note: third\n");
  ck_assert_uint_eq(kr_context_num_errors(ctx), 2);
}
END_TEST

START_TEST(handler_management) {
  kr_diag_handler h;
  void *u;
  kr_context_get_diag_handler(ctx, &h, &u);
  ck_assert(h == collect);
  ck_assert_ptr_eq(u, &got);
  kr_context_set_diag_handler(ctx, NULL, NULL);
  kr_emit_error(ctx, NULL, "dropped");
  kr_emit_warning(ctx, NULL, "dropped");
  ck_assert_int_eq(got.n, 0);
  ck_assert_uint_eq(kr_context_num_errors(ctx), 1); /* still counted */
  kr_diagnostic *d = kr_diag_begin(ctx, KR_SEV_REMARK, NULL, "r%d", 1);
  ck_assert_ptr_eq(d->loc, kr_loc_unknown(ctx));
  ck_assert_str_eq(d->message, "r1");
  kr_diag_report(d);
  ck_assert_uint_eq(kr_context_num_errors(ctx), 1);
  /* The ready-made handler writes the same text to a FILE*. */
  FILE *f = tmpfile();
  kr_context_set_diag_handler(ctx, kr_diag_print_handler, f);
  kr_emit_error(ctx, kr_loc_file(ctx, "z.kir", 7, 2), "to file");
  rewind(f);
  char buf[128] = {0};
  ck_assert_uint_gt(fread(buf, 1, sizeof buf - 1, f), 0);
  ck_assert_str_eq(buf, "z.kir:7:2: error: to file\n");
  fclose(f);
  /* Long messages are not truncated. */
  kr_context_set_diag_handler(ctx, collect, &got);
  char long_msg[400];
  memset(long_msg, 'm', sizeof long_msg - 1);
  long_msg[sizeof long_msg - 1] = 0;
  kr_emit_error(ctx, NULL, "%s!", long_msg);
  ck_assert_uint_eq(strlen(got.text[0]), strlen("<unknown>:0: error: ") + 399 + 2);
}
END_TEST

static void loc_str(kr_attr loc, char *out, size_t n) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_loc_print(&os, loc);
  snprintf(out, n, "%s", kr_ostream_str(&os));
  kr_ostream_close(&os);
}

START_TEST(loc_print) {
  char b[256];
  loc_str(kr_loc_unknown(ctx), b, sizeof b);
  ck_assert_str_eq(b, "unknown");
  kr_attr f = kr_loc_file(ctx, "dir/f.kir", 3, 4);
  loc_str(f, b, sizeof b);
  ck_assert_str_eq(b, "\"dir/f.kir\":3:4");
  kr_attr n = kr_loc_name(ctx, "a\"b\\c\n", 6, f);
  loc_str(n, b, sizeof b);
  ck_assert_str_eq(b, "\"a\\22b\\\\c\\0A\"(\"dir/f.kir\":3:4)"); /* llvm::printEscapedString */
  kr_attr g = kr_loc_name(ctx, "g", 1, NULL);
  loc_str(kr_loc_callsite(ctx, g, f), b, sizeof b);
  ck_assert_str_eq(b, "callsite(\"g\" at \"dir/f.kir\":3:4)");
  kr_attr l[] = {g, f};
  loc_str(kr_loc_fused(ctx, l, 2, NULL), b, sizeof b);
  ck_assert_str_eq(b, "fused[\"g\", \"dir/f.kir\":3:4]");
}
END_TEST

static const kr_op_def a_ops[] = {{.name = "a.x"}, {.name = "a.y"}};
static const kr_dialect_def a_def = {.name = "a", .ops = a_ops, .num_ops = 2};
static const kr_dialect_def a_again = {.name = "a", .ops = NULL, .num_ops = 0};
static const kr_op_def b_bad_ops[] = {{.name = "b.ok"}, {.name = "bb.wrong"}};
static const kr_dialect_def b_bad = {.name = "b", .ops = b_bad_ops, .num_ops = 2};
static const kr_op_def c_ops[] = {{.name = "c.x"}, {.name = "c.x"}};
static const kr_dialect_def c_dup = {.name = "c", .ops = c_ops, .num_ops = 2};
static const kr_op_def d_ops[] = {{.name = "d.x", .traits = KR_TRAIT_PURE, .num_operands = 1}};
static const kr_dialect_def d_def = {.name = "d", .ops = d_ops, .num_ops = 1};

START_TEST(dialect_registry) {
  ck_assert_uint_eq(kr_context_num_dialects(ctx), 0);
  ck_assert_int_eq(kr_context_register_dialect(ctx, &a_def), KR_SUCCESS);
  ck_assert_int_eq(kr_context_register_dialect(ctx, &a_def), KR_SUCCESS); /* same def: no-op */
  ck_assert_int_eq(got.n, 0);
  ck_assert_int_eq(kr_context_register_dialect(ctx, &a_again), KR_FAILURE); /* name taken */
  ck_assert_int_eq(got.n, 1);
  ck_assert_int_eq(kr_context_register_dialect(ctx, &b_bad), KR_FAILURE); /* wrong prefix */
  ck_assert_int_eq(kr_context_register_dialect(ctx, &c_dup), KR_FAILURE); /* duplicate op */
  ck_assert_int_eq(got.n, 3);
  ck_assert_ptr_null(kr_context_lookup_op(ctx, kr_ident_cstr(ctx, "b.ok"))); /* nothing half-registered */
  ck_assert_ptr_null(kr_context_lookup_dialect(ctx, "b", 1));
  ck_assert_int_eq(kr_context_register_dialect(ctx, &d_def), KR_SUCCESS);
  ck_assert_uint_eq(kr_context_num_dialects(ctx), 2);
  const kr_dialect *a = kr_context_dialect_at(ctx, 0), *d = kr_context_dialect_at(ctx, 1);
  ck_assert_ptr_null(kr_context_dialect_at(ctx, 2));
  ck_assert_ptr_eq(a->def, &a_def);
  ck_assert_str_eq(d->name, "d");
  ck_assert_ptr_eq(d->name, kr_ident_cstr(ctx, "d"));
  ck_assert_ptr_eq(kr_context_lookup_dialect(ctx, "dx", 1), d);
  ck_assert_ptr_null(kr_context_lookup_dialect(ctx, "dx", 2));
  const kr_op_def *dx = kr_context_lookup_op(ctx, kr_ident_cstr(ctx, "d.x"));
  ck_assert_ptr_nonnull(dx);
  ck_assert_ptr_ne(dx, &d_ops[0]); /* a registered copy */
  ck_assert_ptr_eq(dx->dialect, d);
  ck_assert_ptr_eq(dx->ident, kr_ident_cstr(ctx, "d.x"));
  ck_assert_uint_eq(dx->traits, KR_TRAIT_PURE);
  ck_assert_ptr_eq(kr_context_lookup_op(ctx, kr_ident_cstr(ctx, "a.y")), &a->ops[1]);
  ck_assert_ptr_null(kr_context_lookup_op(ctx, kr_ident_cstr(ctx, "a.z")));
  ck_assert(!kr_context_allow_unregistered(ctx));
  kr_context_set_allow_unregistered(ctx, true);
  ck_assert(kr_context_allow_unregistered(ctx));
  ck_assert_ptr_eq(kr_context_arena(ctx), kr_context_arena(ctx));
}
END_TEST

START_TEST(plugin_errors) {
  ck_assert_int_eq(kr_context_load_plugin(ctx, "/nonexistent/libnothing.so"), KR_FAILURE);
  ck_assert_int_eq(got.n, 1);
  ck_assert(strstr(got.text[0], "<unknown>:0: error: failed to load plugin '/nonexistent/libnothing.so'"));
  /* A real shared object without the init symbol. */
  if (kr_context_load_plugin(ctx, "libm.so.6") == KR_FAILURE) {
    ck_assert_int_eq(got.n, 2);
    ck_assert(strstr(got.text[1], "korch_plugin_init"));
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("diagnostics");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, format_with_source);
  tcase_add_test(tc, format_without_file);
  tcase_add_test(tc, notes_and_ops);
  tcase_add_test(tc, handler_management);
  tcase_add_test(tc, loc_print);
  tcase_add_test(tc, dialect_registry);
  tcase_add_test(tc, plugin_errors);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
