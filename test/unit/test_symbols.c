/* Unit tests: symbols and symbol tables (LangRef "Symbols and Symbol Tables"). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "korch/dialect.h"
#include "korch/ir.h"

static kr_context *ctx;

static const kr_op_def s_ops[] = {
    {.name = "s.table", .traits = KR_TRAIT_SYMBOL_TABLE | KR_TRAIT_SYMBOL | KR_TRAIT_NO_TERMINATOR},
    {.name = "s.func", .traits = KR_TRAIT_SYMBOL},
};
static const kr_dialect_def s_dialect = {.name = "s", .ops = s_ops, .num_ops = 2};

static void setup(void) {
  ctx = kr_context_create();
  ck_assert_int_eq(kr_context_register_dialect(ctx, &s_dialect), KR_SUCCESS);
}
static void teardown(void) { kr_context_destroy(ctx); }

/* An op `name` with optional sym_name, optional extra attribute, and `nreg` single-block regions;
 * appended to `parent_block` if non-NULL. */
static kr_op *mk(kr_block *parent_block, const char *name, const char *sym, int nreg, const char *attr_name,
                 kr_attr attr) {
  kr_op_state st;
  kr_op_state_init(&st, ctx, name, NULL);
  if (sym) kr_op_state_add_attr(&st, "sym_name", kr_attr_string(ctx, sym, strlen(sym)));
  if (attr_name) kr_op_state_add_attr(&st, attr_name, attr);
  for (int i = 0; i < nreg; i++) kr_region_append_block(kr_op_state_add_region(&st), kr_block_create(ctx));
  kr_op *op = kr_op_create(&st);
  kr_op_state_free(&st);
  if (parent_block) kr_block_append_op(parent_block, op);
  return op;
}

static kr_block *body(kr_op *op) { return op->regions[0].first; }

static kr_attr ref(const char *root, const char *n1, const char *n2) {
  kr_ident nested[2];
  unsigned n = 0;
  if (n1) nested[n++] = kr_ident_cstr(ctx, n1);
  if (n2) nested[n++] = kr_ident_cstr(ctx, n2);
  return kr_attr_symbol_ref(ctx, root, nested, n);
}

START_TEST(names_and_visibility) {
  kr_op *f = mk(NULL, "s.func", "f", 0, "sym_visibility", kr_attr_string(ctx, "private", 7));
  ck_assert_ptr_eq(kr_op_symbol_name(f), kr_ident_cstr(ctx, "f"));
  ck_assert(kr_op_symbol_is_private(f));
  kr_op *g = mk(NULL, "s.func", "g", 0, "sym_visibility", kr_attr_string(ctx, "nested", 6));
  ck_assert(!kr_op_symbol_is_private(g));
  kr_op *h = mk(NULL, "s.func", "h", 0, NULL, NULL);
  ck_assert(!kr_op_symbol_is_private(h));
  kr_op *none = mk(NULL, "s.func", NULL, 0, NULL, NULL);
  ck_assert_ptr_null(kr_op_symbol_name(none));
  /* sym_name must be a string to make a symbol. */
  kr_op *bad = mk(NULL, "x.op", NULL, 0, "sym_name", kr_attr_unit(ctx));
  ck_assert_ptr_null(kr_op_symbol_name(bad));
  /* Unregistered ops with a string sym_name are symbols too (MLIR's getNameIfSymbol). */
  kr_op *u = mk(NULL, "x.op", "u", 0, NULL, NULL);
  ck_assert_ptr_eq(kr_op_symbol_name(u), kr_ident_cstr(ctx, "u"));
}
END_TEST

START_TEST(lookup_flat_and_nested) {
  /* top { @f  @inner { @g  @f  caller }  @deep { @inner2 { @h } } } */
  kr_op *top = mk(NULL, "s.table", NULL, 1, NULL, NULL);
  kr_op *f = mk(body(top), "s.func", "f", 0, NULL, NULL);
  kr_op *inner = mk(body(top), "s.table", "inner", 1, NULL, NULL);
  kr_op *g = mk(body(inner), "s.func", "g", 0, NULL, NULL);
  kr_op *inner_f = mk(body(inner), "s.func", "f", 0, NULL, NULL);
  kr_op *fn_with_body = mk(body(inner), "s.func", "caller", 1, NULL, NULL);
  kr_op *call = mk(body(fn_with_body), "x.call", NULL, 0, NULL, NULL);
  kr_op *deep = mk(body(top), "s.table", "deep", 1, NULL, NULL);
  kr_op *inner2 = mk(body(deep), "s.table", "inner2", 1, NULL, NULL);
  kr_op *h = mk(body(inner2), "s.func", "h", 0, NULL, NULL);

  ck_assert_ptr_eq(kr_symbol_table_of(call), inner);
  ck_assert_ptr_eq(kr_symbol_table_of(inner), inner); /* itself */
  ck_assert_ptr_eq(kr_symbol_table_of(f), top);
  ck_assert_ptr_null(kr_symbol_table_of(mk(NULL, "x.lonely", NULL, 0, NULL, NULL)));

  ck_assert_ptr_eq(kr_symbol_lookup_in(top, kr_ident_cstr(ctx, "f")), f);
  ck_assert_ptr_eq(kr_symbol_lookup_in(inner, kr_ident_cstr(ctx, "f")), inner_f);
  ck_assert_ptr_null(kr_symbol_lookup_in(top, kr_ident_cstr(ctx, "g"))); /* not directly inside */
  ck_assert_ptr_null(kr_symbol_lookup_in(f, kr_ident_cstr(ctx, "g")));   /* no region */

  /* From the call: the nearest table only (MLIR's lookupNearestSymbolFrom): the inner @f, and
   * nothing of the enclosing table. */
  ck_assert_ptr_eq(kr_symbol_lookup(call, ref("g", NULL, NULL)), g);
  ck_assert_ptr_eq(kr_symbol_lookup(call, ref("f", NULL, NULL)), inner_f);
  ck_assert_ptr_null(kr_symbol_lookup(call, ref("deep", NULL, NULL)));
  ck_assert_ptr_null(kr_symbol_lookup(call, ref("deep", "inner2", "h")));
  /* From the top table, nested references walk down. */
  ck_assert_ptr_eq(kr_symbol_lookup(f, ref("deep", "inner2", "h")), h);
  ck_assert_ptr_eq(kr_symbol_lookup(f, ref("deep", "inner2", NULL)), inner2);
  ck_assert_ptr_null(kr_symbol_lookup(f, ref("deep", "h", NULL)));
  ck_assert_ptr_null(kr_symbol_lookup(call, ref("missing", NULL, NULL)));
  ck_assert_ptr_eq(kr_symbol_lookup(f, ref("inner", "g", NULL)), g);
  ck_assert_ptr_eq(kr_symbol_lookup(top, ref("f", NULL, NULL)), f);
  ck_assert_ptr_null(kr_symbol_lookup(f, ref("f", "x", NULL))); /* @f is not a table */
  ck_assert_ptr_null(kr_symbol_lookup(call, kr_attr_unit(ctx)));

  kr_symbol_table t;
  kr_symbol_table_init(&t, top);
  ck_assert_ptr_eq(t.op, top);
  ck_assert_ptr_eq(kr_symbol_table_lookup(&t, kr_ident_cstr(ctx, "f")), f);
  ck_assert_ptr_eq(kr_symbol_table_lookup(&t, kr_ident_cstr(ctx, "deep")), deep);
  ck_assert_ptr_null(kr_symbol_table_lookup(&t, kr_ident_cstr(ctx, "g")));
  ck_assert_uint_eq(t.map.len, 3);
  kr_symbol_table_free(&t);
}
END_TEST

typedef struct uses {
  int n;
  kr_attr seen[16];
  kr_op *users[16];
} uses;

static void collect(kr_op *user, kr_attr symref, void *ud) {
  uses *u = ud;
  ck_assert_int_eq(symref->kind, KR_ATTR_SYMBOL_REF);
  u->users[u->n] = user;
  u->seen[u->n++] = symref;
}

START_TEST(symbol_uses) {
  kr_op *top = mk(NULL, "s.table", NULL, 1, NULL, NULL);
  kr_attr a = ref("a", NULL, NULL), b = ref("b", "c", NULL), c = ref("c", NULL, NULL);
  kr_attr arr_in[] = {kr_attr_unit(ctx), b};
  kr_attr arr = kr_attr_array(ctx, arr_in, 2);
  kr_named_attr de[] = {{kr_ident_cstr(ctx, "q"), c}, {kr_ident_cstr(ctx, "r"), kr_attr_unit(ctx)}};
  kr_attr dict = kr_attr_dict(ctx, de, 2);
  kr_attr outer_arr_in[] = {dict};
  kr_op *u1 = mk(body(top), "x.u", NULL, 1, "callee", a);
  kr_op_set_attr(u1, "list", arr);
  kr_op *u2 = mk(body(u1), "x.v", NULL, 0, "nested", kr_attr_array(ctx, outer_arr_in, 1));
  uses got = {0};
  kr_op_walk_symbol_uses(u1, false, collect, &got);
  ck_assert_int_eq(got.n, 2);
  /* Attributes are visited in dictionary order: callee (@a), then list ([unit, @b::@c]). */
  ck_assert_ptr_eq(got.seen[0], a);
  ck_assert_ptr_eq(got.seen[1], b);
  ck_assert_ptr_eq(got.users[1], u1);
  memset(&got, 0, sizeof got);
  kr_op_walk_symbol_uses(top, true, collect, &got);
  ck_assert_int_eq(got.n, 3);
  ck_assert_ptr_eq(got.seen[2], c);
  ck_assert_ptr_eq(got.users[2], u2);
  memset(&got, 0, sizeof got);
  kr_op_walk_symbol_uses(top, false, collect, &got);
  ck_assert_int_eq(got.n, 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("symbols");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, names_and_visibility);
  tcase_add_test(tc, lookup_flat_and_nested);
  tcase_add_test(tc, symbol_uses);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
