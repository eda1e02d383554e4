/* Unit tests: the rewriter, folding, the greedy pattern driver (korch/rewrite.h, after MLIR's
 * PatternRewriter and applyPatternsAndFoldGreedily), with a small dialect `g` defined here. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "korch/korch.h"

static kr_context *ctx;

/* --- the `g` dialect ----------------------------------------------------------------------- */

static kr_attr int_attr(kr_attr a) { return (a && a->kind == KR_ATTR_INTEGER) ? a : NULL; }

/* g.add: constant + constant folds to their sum; x + 0 folds to x. */
static kr_status add_fold(kr_op *op, const kr_attr *operands, kr_fold_result *results) {
  kr_attr l = int_attr(operands[0]), r = int_attr(operands[1]);
  if (l && r) {
    results[0].attr = kr_attr_integer(ctx, l->type, l->u.i + r->u.i);
    return KR_SUCCESS;
  }
  if (r && r->u.i == 0) {
    results[0].value = kr_op_operand(op, 0);
    return KR_SUCCESS;
  }
  return KR_FAILURE;
}

/* Replaces `op` by a new op `name` with the same operands and result types. */
static kr_status replace_with(kr_rewriter *rw, kr_op *op, const char *name) {
  kr_op_state st;
  kr_op_state_init(&st, ctx, name, op->loc);
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kr_value v = kr_op_operand(op, i);
    kr_op_state_add_operands(&st, &v, 1);
  }
  for (uint32_t i = 0; i < op->num_results; i++) {
    kr_type t = kr_value_type(kr_op_result(op, i));
    kr_op_state_add_results(&st, &t, 1);
  }
  kr_op *n = kr_rewriter_create(rw, &st);
  kr_op_state_free(&st);
  if (!n) return KR_FAILURE;
  kr_value vals[4];
  for (uint32_t i = 0; i < op->num_results; i++) vals[i] = kr_op_result(n, i);
  kr_rewriter_replace_op(rw, op, vals);
  return KR_SUCCESS;
}

static kr_status a_to_b(kr_rewriter *rw, kr_op *op) { return replace_with(rw, op, "g.b"); }
static kr_status a_to_c(kr_rewriter *rw, kr_op *op) { return replace_with(rw, op, "g.c"); }
static kr_status ping_to_pong(kr_rewriter *rw, kr_op *op) { return replace_with(rw, op, "g.pong"); }
static kr_status pong_to_ping(kr_rewriter *rw, kr_op *op) { return replace_with(rw, op, "g.ping"); }

static unsigned any_visits;
static kr_status count_any(kr_rewriter *rw, kr_op *op) {
  (void)rw;
  (void)op;
  any_visits++;
  return KR_FAILURE;
}

static const kr_pattern a_to_b_pattern = {"a-to-b", "g.a", 1, a_to_b};
static const kr_pattern ab_patterns[] = {{"a-to-b", "g.a", 1, a_to_b}, {"a-to-c", "g.a", 2, a_to_c}};
static const kr_pattern ping_pong[] = {{"ping", "g.ping", 1, ping_to_pong}, {"pong", "g.pong", 1, pong_to_ping}};
static const kr_pattern any_pattern = {"any", NULL, 5, count_any};

static const kr_op_def g_ops[] = {
  {.name = "g.const", .traits = KR_TRAIT_PURE | KR_TRAIT_CONSTANT_LIKE, .num_operands = 0, .num_results = 1},
  {.name = "g.add", .traits = KR_TRAIT_PURE | KR_TRAIT_COMMUTATIVE, .num_operands = 2, .num_results = 1,
   .fold = add_fold},
  {.name = "g.a", .traits = KR_TRAIT_PURE, .num_operands = 1, .num_results = 1, .patterns = &a_to_b_pattern,
   .num_patterns = 1},
  {.name = "g.b", .traits = KR_TRAIT_PURE, .num_operands = 1, .num_results = 1},
  {.name = "g.c", .traits = KR_TRAIT_PURE, .num_operands = 1, .num_results = 1},
  {.name = "g.ping", .traits = KR_TRAIT_PURE, .num_operands = 1, .num_results = 1},
  {.name = "g.pong", .traits = KR_TRAIT_PURE, .num_operands = 1, .num_results = 1},
  {.name = "g.sink", .traits = 0, .num_operands = KR_VARIADIC, .num_results = 0},
  {.name = "g.wrap", .traits = KR_TRAIT_NO_SIDE_EFFECT_REGIONS, .num_operands = 0, .num_results = 1,
   .num_regions = 1},
  {.name = "g.yield", .traits = KR_TRAIT_TERMINATOR, .num_operands = KR_VARIADIC, .num_results = 0},
};

static kr_op *g_materialize(kr_builder *b, kr_attr value, kr_type type, kr_attr loc) {
  kr_op_state st;
  kr_op_state_init(&st, b->ctx, "g.const", loc);
  kr_op_state_add_attr(&st, "value", value);
  kr_op_state_add_results(&st, &type, 1);
  kr_op *c = kr_builder_create(b, &st);
  kr_op_state_free(&st);
  return c;
}

static const kr_dialect_def g_dialect = {
  .name = "g",
  .summary = "greedy driver tests",
  .ops = g_ops,
  .num_ops = sizeof(g_ops) / sizeof(g_ops[0]),
  .materialize_constant = g_materialize,
};

static void setup(void) {
  ctx = kr_context_create();
  kr_context_set_diag_handler(ctx, kr_diag_print_handler, NULL);
  ck_assert_int_eq(kr_register_core_dialects(ctx), KR_SUCCESS);
  ck_assert_int_eq(kr_context_register_dialect(ctx, &g_dialect), KR_SUCCESS);
  any_visits = 0;
}

static void teardown(void) { kr_context_destroy(ctx); }

static kr_op *parse_v(const char *text, bool verify) {
  kr_op *m = kr_parse_source(ctx, "g.kir", text, strlen(text), verify);
  ck_assert_ptr_nonnull(m);
  return m;
}
static kr_op *parse(const char *text) { return parse_v(text, true); }

/* The first func.func of module `m`. */
static kr_op *first_func(kr_op *m) { return m->regions[0].first->first; }
static kr_block *body(kr_op *func) { return func->regions[0].first; }

static unsigned count_named(kr_op *root, const char *name) {
  unsigned n = 0;
  kr_ident id = kr_ident_cstr(ctx, name);
  for (kr_op *o = body(root)->first; o; o = o->next) n += o->name == id;
  return n;
}

static int64_t const_value(kr_value v) {
  kr_op *d = kr_value_defining_op(v);
  ck_assert_ptr_nonnull(d);
  kr_attr a = kr_op_constant_value(d);
  ck_assert_ptr_nonnull(a);
  return a->u.i;
}

/* --- tests --------------------------------------------------------------------------------- */

START_TEST(fold_materialize_and_dedupe) {
  kr_op *m = parse("func.func @f(%arg: i32) {\n"
                   "  %a = \"g.const\"() {value = 1 : i32} : () -> i32\n"
                   "  %b = \"g.const\"() {value = 2 : i32} : () -> i32\n"
                   "  %s = \"g.add\"(%a, %b) : (i32, i32) -> i32\n"
                   "  \"g.sink\"(%s) : (i32) -> ()\n"
                   "  %c = \"g.const\"() {value = 3 : i32} : () -> i32\n"
                   "  \"g.sink\"(%c) : (i32) -> ()\n"
                   "  %z = \"g.const\"() {value = 0 : i32} : () -> i32\n"
                   "  %t = \"g.add\"(%arg, %z) : (i32, i32) -> i32\n"
                   "  \"g.sink\"(%t) : (i32) -> ()\n"
                   "  return\n"
                   "}\n");
  kr_op *f = first_func(m);
  kr_pattern_set ps = {{0}};
  kr_pattern_set_add_canonicalization(&ps, ctx);
  bool changed = false;
  ck_assert_int_eq(kr_apply_patterns_greedily(f, &ps, NULL, &changed), KR_SUCCESS);
  ck_assert(changed);
  /* One constant (3) left, hoisted to the top; both adds folded away. */
  ck_assert_uint_eq(count_named(f, "g.const"), 1);
  ck_assert_uint_eq(count_named(f, "g.add"), 0);
  kr_op *c = body(f)->first;
  ck_assert_str_eq(c->name, "g.const");
  ck_assert_int_eq(const_value(kr_op_result(c, 0)), 3);
  kr_op *s1 = c->next, *s2 = s1->next, *s3 = s2->next;
  ck_assert_str_eq(s1->name, "g.sink");
  ck_assert_ptr_eq(kr_op_operand(s1, 0), kr_op_result(c, 0));
  ck_assert_ptr_eq(kr_op_operand(s2, 0), kr_op_result(c, 0));
  ck_assert_ptr_eq(kr_op_operand(s3, 0), body(f)->args[0]);
  ck_assert_int_eq(kr_op_verify(m), KR_SUCCESS);

  /* Nothing left to do: no change. */
  ck_assert_int_eq(kr_apply_patterns_greedily(f, &ps, NULL, &changed), KR_SUCCESS);
  ck_assert(!changed);
  kr_pattern_set_free(&ps);
}
END_TEST

START_TEST(highest_benefit_wins) {
  const char *text = "func.func @f(%arg: i32) {\n"
                     "  %a = \"g.a\"(%arg) : (i32) -> i32\n"
                     "  \"g.sink\"(%a) : (i32) -> ()\n"
                     "  return\n"
                     "}\n";
  kr_op *f = first_func(parse(text));
  kr_pattern_set ps = {{0}};
  kr_pattern_set_add_array(&ps, ab_patterns, 2);
  ck_assert_ptr_eq(KR_VEC_AT(&ps.patterns, const kr_pattern *, 0), &ab_patterns[1]);
  ck_assert_int_eq(kr_apply_patterns_greedily(f, &ps, NULL, NULL), KR_SUCCESS);
  ck_assert_uint_eq(count_named(f, "g.c"), 1);
  ck_assert_uint_eq(count_named(f, "g.a") + count_named(f, "g.b"), 0);
  kr_pattern_set_free(&ps);

  /* The op's own canonicalization pattern (a -> b) through the canonicalization set. */
  f = first_func(parse(text));
  kr_pattern_set_add_canonicalization(&ps, ctx);
  ck_assert_int_eq(kr_apply_patterns_greedily(f, &ps, NULL, NULL), KR_SUCCESS);
  ck_assert_uint_eq(count_named(f, "g.b"), 1);
  ck_assert_uint_eq(count_named(f, "g.a"), 0);
  kr_pattern_set_free(&ps);
}
END_TEST

START_TEST(non_convergence_is_reported) {
  kr_op *f = first_func(parse("func.func @f(%arg: i32) {\n"
                              "  %a = \"g.ping\"(%arg) : (i32) -> i32\n"
                              "  \"g.sink\"(%a) : (i32) -> ()\n"
                              "  return\n"
                              "}\n"));
  kr_pattern_set ps = {{0}};
  kr_pattern_set_add_array(&ps, ping_pong, 2);
  kr_greedy_config cfg;
  kr_greedy_config_default(&cfg);
  ck_assert_int_eq(cfg.max_iterations, 10);
  ck_assert_int_eq(cfg.max_rewrites, -1);
  ck_assert(cfg.fold && cfg.top_down && cfg.region_simplify);
  cfg.max_iterations = 3;
  cfg.max_rewrites = 5;   /* per sweep, so that each sweep ends */
  bool changed = false;
  ck_assert_int_eq(kr_apply_patterns_greedily(f, &ps, &cfg, &changed), KR_FAILURE);
  ck_assert(changed);
  /* 3 sweeps of 5 rewrites: ping -> pong 15 times ends on pong. */
  ck_assert_uint_eq(count_named(f, "g.pong"), 1);
  ck_assert_uint_eq(count_named(f, "g.ping"), 0);
  kr_pattern_set_free(&ps);
}
END_TEST

START_TEST(max_rewrites_per_sweep) {
  kr_op *f = first_func(parse("func.func @f(%arg: i32) {\n"
                              "  %a = \"g.a\"(%arg) : (i32) -> i32\n"
                              "  %b = \"g.a\"(%a) : (i32) -> i32\n"
                              "  %c = \"g.a\"(%b) : (i32) -> i32\n"
                              "  \"g.sink\"(%c) : (i32) -> ()\n"
                              "  return\n"
                              "}\n"));
  kr_pattern_set ps = {{0}};
  kr_pattern_set_add(&ps, &a_to_b_pattern);
  kr_greedy_config cfg;
  kr_greedy_config_default(&cfg);
  cfg.max_iterations = 1;
  cfg.max_rewrites = 2;
  ck_assert_int_eq(kr_apply_patterns_greedily(f, &ps, &cfg, NULL), KR_FAILURE);
  ck_assert_uint_eq(count_named(f, "g.a"), 1);
  ck_assert_uint_eq(count_named(f, "g.b"), 2);
  /* Top-down: the first two in program order were rewritten. */
  ck_assert_str_eq(body(f)->first->name, "g.b");
  ck_assert_str_eq(body(f)->first->next->name, "g.b");
  kr_pattern_set_free(&ps);
}
END_TEST

START_TEST(bottom_up_and_any_op_patterns) {
  kr_op *f = first_func(parse("func.func @f(%arg: i32) {\n"
                              "  %a = \"g.a\"(%arg) : (i32) -> i32\n"
                              "  %b = \"g.a\"(%a) : (i32) -> i32\n"
                              "  \"g.sink\"(%b) : (i32) -> ()\n"
                              "  return\n"
                              "}\n"));
  kr_pattern_set ps = {{0}};
  kr_pattern_set_add(&ps, &a_to_b_pattern);
  kr_pattern_set_add(&ps, &any_pattern);
  kr_greedy_config cfg;
  kr_greedy_config_default(&cfg);
  cfg.top_down = false;
  ck_assert_int_eq(kr_apply_patterns_greedily(f, &ps, &cfg, NULL), KR_SUCCESS);
  ck_assert_uint_eq(count_named(f, "g.b"), 2);
  /* The any-op pattern (higher benefit, never matching) saw every op at least once. */
  ck_assert_uint_ge(any_visits, 4);
  kr_pattern_set_free(&ps);
}
END_TEST

START_TEST(dead_code_and_region_ops) {
  kr_op *f = first_func(parse("func.func @f(%arg: i32) {\n"
                              "  %a = \"g.b\"(%arg) : (i32) -> i32\n"
                              "  %b = \"g.b\"(%a) : (i32) -> i32\n"
                              "  %w = \"g.wrap\"() ({\n"
                              "    %x = \"g.b\"(%arg) : (i32) -> i32\n"
                              "    \"g.yield\"(%x) : (i32) -> ()\n"
                              "  }) : () -> i32\n"
                              "  %v = \"g.wrap\"() ({\n"
                              "    \"g.sink\"(%arg) : (i32) -> ()\n"
                              "    \"g.yield\"(%arg) : (i32) -> ()\n"
                              "  }) : () -> i32\n"
                              "  return\n"
                              "}\n"));
  kr_op *wrap_pure = body(f)->first->next->next, *wrap_effect = wrap_pure->next;
  ck_assert(kr_op_is_trivially_dead(wrap_pure));
  ck_assert(!kr_op_is_trivially_dead(wrap_effect));
  ck_assert(!kr_op_is_trivially_dead(body(f)->first));   /* used by %b */
  ck_assert(!kr_op_is_trivially_dead(body(f)->last));    /* a terminator */
  ck_assert(!kr_op_is_trivially_dead(f));                /* a symbol */
  kr_pattern_set ps = {{0}};
  ck_assert_int_eq(kr_apply_patterns_greedily(f, &ps, NULL, NULL), KR_SUCCESS);
  ck_assert_uint_eq(count_named(f, "g.b"), 0);
  ck_assert_uint_eq(count_named(f, "g.wrap"), 1);
  ck_assert_ptr_eq(body(f)->first, wrap_effect);
}
END_TEST

typedef struct events {
  unsigned inserted, erased, modified;
} events;
static void ev_ins(kr_op *op, void *u) { (void)op; ((events *)u)->inserted++; }
static void ev_era(kr_op *op, void *u) { (void)op; ((events *)u)->erased++; }
static void ev_mod(kr_op *op, void *u) { (void)op; ((events *)u)->modified++; }

START_TEST(rewriter_and_try_fold) {
  kr_op *m = parse("func.func @f(%arg: i32) {\n"
                   "  %a = \"g.const\"() {value = 20 : i32} : () -> i32\n"
                   "  %b = \"g.const\"() {value = 22 : i32} : () -> i32\n"
                   "  %s = \"g.add\"(%a, %b) : (i32, i32) -> i32\n"
                   "  %t = \"g.add\"(%arg, %arg) : (i32, i32) -> i32\n"
                   "  \"g.sink\"(%s, %t) : (i32, i32) -> ()\n"
                   "  return\n"
                   "}\n");
  kr_op *f = first_func(m);
  kr_op *a = body(f)->first, *add = a->next->next, *add2 = add->next, *sink = add2->next;
  ck_assert_ptr_nonnull(kr_op_constant_value(a));
  ck_assert_int_eq(kr_op_constant_value(a)->u.i, 20);
  ck_assert_ptr_null(kr_op_constant_value(add));
  events ev = {0, 0, 0};
  kr_rewriter rw;
  kr_rewriter_init(&rw, ctx);
  rw.listener = (kr_rewrite_listener){ev_ins, ev_era, ev_mod, &ev};
  /* Constants are never folded; an add of non-constants does not fold. */
  ck_assert_int_eq(kr_op_try_fold(&rw, a), KR_FAILURE);
  ck_assert_int_eq(kr_op_try_fold(&rw, add2), KR_FAILURE);
  ck_assert_int_eq(kr_op_try_fold(&rw, add), KR_SUCCESS);
  /* A constant 42 was created before the add's place and the sink uses it. */
  kr_op *c = kr_value_defining_op(kr_op_operand(sink, 0));
  ck_assert_str_eq(c->name, "g.const");
  ck_assert_int_eq(const_value(kr_op_operand(sink, 0)), 42);
  ck_assert_ptr_eq(c->next, add2);
  ck_assert_uint_eq(ev.inserted, 1);
  ck_assert_uint_eq(ev.erased, 1);
  ck_assert_uint_eq(ev.modified, 1);   /* the sink's operand changed */

  /* replace_all_uses / modified / erase through the rewriter. */
  kr_rewriter_replace_all_uses(&rw, kr_op_result(add2, 0), body(f)->args[0]);
  ck_assert_uint_eq(ev.modified, 2);
  ck_assert(kr_op_is_trivially_dead(add2));
  kr_rewriter_erase_op(&rw, add2);
  ck_assert_uint_eq(ev.erased, 2);
  kr_rewriter_modified(&rw, sink);
  ck_assert_uint_eq(ev.modified, 3);
  ck_assert_int_eq(kr_op_verify(m), KR_SUCCESS);
}
END_TEST

START_TEST(inline_block_before) {
  /* The wrapped block has no terminator: not valid on its own, fine as material to inline. */
  kr_op *m = parse_v("func.func @f(%arg: i32) {\n"
                   "  %w = \"g.wrap\"() ({\n"
                   "  ^bb0(%x: i32):\n"
                   "    %y = \"g.b\"(%x) : (i32) -> i32\n"
                   "    \"g.sink\"(%y) : (i32) -> ()\n"
                   "  }) : () -> i32\n"
                   "  return\n"
                   "}\n",
                   false);
  kr_op *f = first_func(parse("func.func @g(%arg: i32) {\n  return\n}\n"));
  kr_op *wrap = body(first_func(m))->first;
  kr_block *src = wrap->regions[0].first;
  kr_op *ret = body(f)->last;
  events ev = {0, 0, 0};
  kr_rewriter rw;
  kr_rewriter_init(&rw, ctx);
  rw.listener = (kr_rewrite_listener){ev_ins, ev_era, ev_mod, &ev};
  kr_value args[1] = {body(f)->args[0]};
  kr_rewriter_inline_block_before(&rw, src, ret, args);
  ck_assert_ptr_null(wrap->regions[0].first);
  kr_op *y = body(f)->first;
  ck_assert_str_eq(y->name, "g.b");
  ck_assert_ptr_eq(kr_op_operand(y, 0), body(f)->args[0]);
  ck_assert_str_eq(y->next->name, "g.sink");
  ck_assert_uint_eq(ev.inserted, 2);
  ck_assert_uint_eq(ev.modified, 1);
  ck_assert_int_eq(kr_op_verify(f), KR_SUCCESS);
}
END_TEST

int main(void) {
  Suite *s = suite_create("greedy");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, fold_materialize_and_dedupe);
  tcase_add_test(tc, highest_benefit_wins);
  tcase_add_test(tc, non_convergence_is_reported);
  tcase_add_test(tc, max_rewrites_per_sweep);
  tcase_add_test(tc, bottom_up_and_any_op_patterns);
  tcase_add_test(tc, dead_code_and_region_ops);
  tcase_add_test(tc, rewriter_and_try_fold);
  tcase_add_test(tc, inline_block_before);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
