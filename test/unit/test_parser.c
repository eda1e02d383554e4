/* test/unit/test_parser.c - the .kir parser through kr_parse_source, kr_parse_type_str and
 * kr_parse_attr_str: the IR built for good inputs (inspected directly, not through the printer)
 * and, for bad inputs, the first diagnostic's message and exact line:column.
 *
 * Expected messages and positions are MLIR's (mlir-opt 19 reports the same text at the same
 * place for the constructs MLIR has), except where korch's wording is documented to differ
 * (unregistered dialects, korch's 64-bit integer limit, nesting depth). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/korch.h"
#include "test_dialect.h"

static kr_context *ctx;

/* The diagnostics of the last parse. */
typedef struct seen_diag {
  kr_severity sev;
  char msg[512];
  unsigned line, col;
  unsigned notes;
} seen_diag;
static seen_diag diags[16];
static unsigned ndiags;

static void collect(const kr_diagnostic *d, void *user) {
  (void)user;
  if (ndiags == 16) return;
  seen_diag *s = &diags[ndiags++];
  s->sev = d->severity;
  snprintf(s->msg, sizeof s->msg, "%s", d->message);
  kr_attr fl = kr_loc_find_file(d->loc);
  s->line = fl ? fl->u.loc.line : 0;
  s->col = fl ? fl->u.loc.col : 0;
  s->notes = 0;
  for (kr_diagnostic *n = d->notes; n; n = n->next) s->notes++;
}

static void setup(void) {
  ctx = kr_context_create();
  ck_assert(!kr_register_core_dialects(ctx));
  ck_assert(!kr_register_test_dialect(ctx));
  kr_context_set_diag_handler(ctx, collect, NULL);
  ndiags = 0;
}

static void teardown(void) { kr_context_destroy(ctx); }

static kr_op *parse(const char *text) {
  ndiags = 0;
  return kr_parse_source(ctx, "t.kir", text, strlen(text), true);
}

static kr_op *parse_unreg(const char *text) {
  kr_context_set_allow_unregistered(ctx, true);
  return parse(text);
}

/* The first op of the module body. */
static kr_op *first_op(kr_op *module) { return module->regions[0].first->first; }

#define EXPECT_ERROR(text, line_, col_, message)                                                  \
  do {                                                                                            \
    kr_op *m_ = parse(text);                                                                      \
    ck_assert_ptr_null(m_);                                                                       \
    ck_assert_uint_ge(ndiags, 1);                                                                 \
    ck_assert_str_eq(diags[0].msg, message);                                                      \
    ck_assert_uint_eq(diags[0].line, line_);                                                      \
    ck_assert_uint_eq(diags[0].col, col_);                                                        \
  } while (0)

/* ---------------------------------------------------------------------------------------------
 * Good inputs. */

START_TEST(generic_ops_and_values) {
  kr_op *m = parse_unreg("%0 = \"x.a\"() : () -> i32\n"
                         "%1:2 = \"x.b\"(%0, %0) : (i32, i32) -> (i32, f32)\n"
                         "\"x.c\"(%1#1, %1#0) : (f32, i32) -> ()\n");
  ck_assert_ptr_nonnull(m);
  ck_assert_str_eq(m->name, "builtin.module");
  kr_op *a = first_op(m), *b = a->next, *c = b->next;
  ck_assert_str_eq(a->name, "x.a");
  ck_assert_ptr_null(a->def);
  ck_assert_uint_eq(b->num_results, 2);
  ck_assert_ptr_eq(kr_op_operand(b, 0), kr_op_result(a, 0));
  ck_assert_ptr_eq(kr_op_operand(c, 0), kr_op_result(b, 1));
  ck_assert_ptr_eq(kr_op_operand(c, 1), kr_op_result(b, 0));
  ck_assert(kr_type_is_float(kr_value_type(kr_op_result(b, 1))));
  /* Each op's location is its name token, as in MLIR. */
  ck_assert_uint_eq(b->loc->u.loc.line, 2);
  ck_assert_uint_eq(b->loc->u.loc.col, 8);
  /* The implicit module is at file:0:0. */
  ck_assert_uint_eq(m->loc->u.loc.line, 0);
}
END_TEST

START_TEST(result_groups) {
  kr_op *m = parse_unreg("%a, %b:2, %c = \"x.a\"() : () -> (i1, i8, i16, i32)\n"
                         "\"x.u\"(%a, %b#1, %c, %b) : (i1, i16, i32, i8) -> ()\n");
  ck_assert_ptr_nonnull(m);
  kr_op *a = first_op(m), *u = a->next;
  ck_assert_ptr_eq(kr_op_operand(u, 0), kr_op_result(a, 0));
  ck_assert_ptr_eq(kr_op_operand(u, 1), kr_op_result(a, 2));
  ck_assert_ptr_eq(kr_op_operand(u, 2), kr_op_result(a, 3));
  ck_assert_ptr_eq(kr_op_operand(u, 3), kr_op_result(a, 1));
}
END_TEST

START_TEST(forward_references) {
  /* In a CFG region: ^bb1 is reached from ^bb2 only, so %v dominates its use. */
  kr_op *f = parse("func.func @f() {\n  \"test.br\"()[^bb2] : () -> ()\n"
                   "^bb1:\n  \"test.side_effect\"(%v) : (i32) -> ()\n  return\n"
                   "^bb2:\n  %v = \"test.pure\"() : () -> i32\n  \"test.br\"()[^bb1] : () -> ()\n}\n");
  ck_assert_ptr_nonnull(f);
  kr_block *bb1 = first_op(f)->regions[0].first->next, *bb2 = bb1->next;
  ck_assert_ptr_eq(kr_op_operand(bb1->first, 0), kr_op_result(bb2->first, 0));
  /* Graph-like uses before definitions, in nested regions too (parsed without verification:
   * korch's module body is not a graph region for the verifier). */
  kr_context_set_allow_unregistered(ctx, true);
  const char *text = "\"x.use\"(%v) : (i32) -> ()\n"
                     "\"x.r\"() ({ \"x.in\"(%w#1) : (f32) -> () }) : () -> ()\n"
                     "%v = \"x.def\"() : () -> i32\n"
                     "%w:2 = \"x.def2\"() : () -> (i32, f32)\n";
  kr_op *m = kr_parse_source(ctx, "t.kir", text, strlen(text), false);
  ck_assert_ptr_nonnull(m);
  kr_op *use = first_op(m), *r = use->next, *def = r->next, *def2 = def->next;
  ck_assert_ptr_eq(kr_op_operand(use, 0), kr_op_result(def, 0));
  ck_assert(kr_value_has_one_use(kr_op_result(def, 0)));
  kr_op *in = r->regions[0].first->first;
  ck_assert_ptr_eq(kr_op_operand(in, 0), kr_op_result(def2, 1));
}
END_TEST

START_TEST(blocks_and_successors) {
  kr_op *m = parse("func.func @f(%arg0: i32) -> i32 {\n"
                   "  \"test.br\"(%arg0)[^bb2] : (i32) -> ()\n"
                   "^bb1(%x: i32):\n"
                   "  return %x : i32\n"
                   "^bb2(%y: i32 loc(\"y.c\":7:9)):\n"
                   "  \"test.br\"(%y)[^bb1] : (i32) -> ()\n"
                   "}\n");
  ck_assert_ptr_nonnull(m);
  kr_op *f = first_op(m);
  ck_assert_str_eq(f->name, "func.func");
  kr_region *body = &f->regions[0];
  ck_assert_uint_eq(kr_region_num_blocks(body), 3);
  kr_block *entry = body->first, *bb1 = entry->next, *bb2 = bb1->next;
  ck_assert_uint_eq(entry->num_args, 1);
  kr_op *br = entry->first;
  ck_assert_ptr_eq(br->successors[0], bb2);
  ck_assert_ptr_eq(kr_op_operand(br, 0), entry->args[0]);
  ck_assert_ptr_eq(bb2->last->successors[0], bb1);
  ck_assert_ptr_eq(kr_op_operand(bb2->last, 0), bb2->args[0]);
  ck_assert_str_eq(bb1->last->name, "func.return");  /* `return` inside func.func */
  ck_assert_ptr_eq(kr_op_operand(bb1->last, 0), bb1->args[0]);
  /* Block argument locations: the name token, or the explicit loc(...). */
  ck_assert_uint_eq(bb1->args[0]->loc->u.loc.line, 3);
  ck_assert_uint_eq(bb1->args[0]->loc->u.loc.col, 6);
  ck_assert_str_eq(bb2->args[0]->loc->u.loc.name, "y.c");
  ck_assert_uint_eq(bb2->args[0]->loc->u.loc.line, 7);
}
END_TEST

START_TEST(names_are_scoped_per_region) {
  kr_op *m = parse_unreg("\"x.r\"() ({ %a = \"x.a\"() : () -> i32 }) : () -> ()\n"
                         "\"x.r\"() ({ %a = \"x.b\"() : () -> f32 }) : () -> ()\n"
                         "%a = \"x.c\"() : () -> i64\n");
  ck_assert_ptr_nonnull(m);
}
END_TEST

START_TEST(single_module_is_the_result) {
  kr_op *m = parse("module @m attributes {test.x = 1} {\n}\n");
  ck_assert_ptr_nonnull(m);
  ck_assert_str_eq(m->name, "builtin.module");
  ck_assert_str_eq(kr_op_symbol_name(m), "m");
  ck_assert_uint_eq(m->loc->u.loc.line, 1);
  ck_assert_uint_eq(m->loc->u.loc.col, 1);
  ck_assert_ptr_null(m->block);
}
END_TEST

START_TEST(attributes) {
  kr_op *m = parse_unreg(
      "\"x.a\"() {i = 42, n = -7 : i8, u = 255 : ui8, s8 = 255 : i8, h = 0x10 : index, b = true, un,\n"
      " f = 1.5, f32 = -2.0e-1 : f32, nan = 0x7FC00000 : f32, s = \"a\\\"b\\n\\41\", st = \"q\" : i32,\n"
      " ty = tensor<2x?xf32>, arr = [1, [2], {k}], sym = @a::@b::@\"c d\",\n"
      " dn = dense<[[1, 2], [3, 4]]> : tensor<2x2xi16>, sp = dense<1.0> : tensor<3xf32>,\n"
      " fi = dense<[1, -2]> : tensor<2xf64>, bo = dense<[true, false]> : tensor<2xi1>,\n"
      " hex = dense<\"0x0000803F00000040\"> : tensor<2xf32>, da = array<i32: 1, -2>,\n"
      " l = loc(callsite(\"f\"(\"a.c\":1:2) at fused<\"m\">[\"b.c\":3:4, unknown]))} : () -> ()\n");
  ck_assert_ptr_nonnull(m);
  kr_attr d = first_op(m)->attrs;
  kr_attr a;
  a = kr_dict_get_cstr(d, "i");
  ck_assert_int_eq(a->kind, KR_ATTR_INTEGER);
  ck_assert_int_eq(a->u.i, 42);
  ck_assert(kr_type_is_integer(a->type, 64));
  ck_assert_int_eq(kr_dict_get_cstr(d, "n")->u.i, -7);
  ck_assert_int_eq(kr_dict_get_cstr(d, "u")->u.i, 255);
  ck_assert_int_eq(kr_dict_get_cstr(d, "s8")->u.i, -1); /* signless 255 : i8 reads as -1 */
  ck_assert_int_eq(kr_dict_get_cstr(d, "h")->u.i, 16);
  ck_assert_int_eq(kr_dict_get_cstr(d, "b")->kind, KR_ATTR_BOOL);
  ck_assert_int_eq(kr_dict_get_cstr(d, "un")->kind, KR_ATTR_UNIT);
  ck_assert_double_eq(kr_dict_get_cstr(d, "f")->u.f, 1.5);
  ck_assert_double_eq(kr_dict_get_cstr(d, "f32")->u.f, (double)-0.2f);
  ck_assert(isnan(kr_dict_get_cstr(d, "nan")->u.f));
  a = kr_dict_get_cstr(d, "s");
  ck_assert_uint_eq(kr_ident_len(a->u.string.str), 5);
  ck_assert_mem_eq(a->u.string.str, "a\"b\nA", 5);
  ck_assert(kr_type_is_integer(kr_dict_get_cstr(d, "st")->type, 32));
  a = kr_dict_get_cstr(d, "ty");
  ck_assert_int_eq(a->kind, KR_ATTR_TYPE);
  ck_assert_int_eq(a->type->u.shaped.dims[1], KR_DYNAMIC);
  a = kr_dict_get_cstr(d, "arr");
  ck_assert_uint_eq(a->u.array.num, 3);
  ck_assert_int_eq(a->u.array.elems[2]->kind, KR_ATTR_DICT);
  a = kr_dict_get_cstr(d, "sym");
  ck_assert_str_eq(a->u.symref.root, "a");
  ck_assert_uint_eq(a->u.symref.num_nested, 2);
  ck_assert_str_eq(a->u.symref.nested[1], "c d");
  a = kr_dict_get_cstr(d, "dn");
  for (int i = 0; i < 4; i++) ck_assert_int_eq(kr_dense_get_i64(a, (size_t)i), i + 1);
  a = kr_dict_get_cstr(d, "sp");
  ck_assert(a->u.dense.splat);
  ck_assert_double_eq(kr_dense_get_f64(a, 2), 1.0);
  ck_assert_double_eq(kr_dense_get_f64(kr_dict_get_cstr(d, "fi"), 1), -2.0);
  a = kr_dict_get_cstr(d, "bo");
  ck_assert_int_eq(kr_dense_get_i64(a, 0), 1);
  ck_assert_int_eq(kr_dense_get_i64(a, 1), 0);
  a = kr_dict_get_cstr(d, "hex");
  ck_assert_double_eq(kr_dense_get_f64(a, 0), 1.0);
  ck_assert_double_eq(kr_dense_get_f64(a, 1), 2.0);
  a = kr_dict_get_cstr(d, "da");
  ck_assert_uint_eq(a->u.dense_array.num, 2);
  ck_assert_int_eq(((const int32_t *)a->u.dense_array.data)[1], -2);
  a = kr_dict_get_cstr(d, "l");
  ck_assert_int_eq(a->u.loc.kind, KR_LOC_CALLSITE);
  ck_assert_int_eq(a->u.loc.child->u.loc.kind, KR_LOC_NAME);
  ck_assert_int_eq(a->u.loc.caller->u.loc.kind, KR_LOC_FUSED);
}
END_TEST

START_TEST(types) {
  static const char *const good[] = {"i1", "i64", "si8", "ui32", "index", "f16", "bf16", "f32", "f64", "none",
                                     "tensor<2x?x3xf32>", "tensor<*xi8>", "tensor<f32>", "tensor<0xf32>",
                                     "vector<4x4xf32>", "tuple<>", "tuple<i32, tuple<f32>>", "(i32, f32) -> i1",
                                     "() -> ()", "(i32) -> (f32, (i1) -> i1)", "!test.pair<i32, f32>"};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) ck_assert_msg(kr_parse_type_str(ctx, good[i]), "%s", good[i]);
  kr_type t = kr_parse_type_str(ctx, "tensor<2x?x3xf32>");
  ck_assert_uint_eq(t->u.shaped.rank, 3);
  ck_assert_int_eq(t->u.shaped.dims[1], KR_DYNAMIC);
  ck_assert_ptr_eq(kr_parse_type_str(ctx, "tensor<0xf32>")->u.shaped.elem, kr_type_float(ctx, KR_F32));
  ck_assert_ptr_eq(kr_parse_type_str(ctx, "ui32"), kr_type_integer(ctx, 32, KR_UNSIGNED));
  t = kr_parse_type_str(ctx, "!test.pair<i32, f32>");
  ck_assert_int_eq(t->kind, KR_TYPE_DIALECT);
  /* Opaque types keep their text; only with unregistered dialects allowed. */
  ck_assert_ptr_null(kr_parse_type_str(ctx, "!foo.bar<x, \"y>\", [{}]>"));
  kr_context_set_allow_unregistered(ctx, true);
  t = kr_parse_type_str(ctx, "!foo.bar<x, \"y>\", [{}]>");
  ck_assert_int_eq(t->kind, KR_TYPE_OPAQUE);
  ck_assert_str_eq(t->u.opaque.dialect, "foo");
  ck_assert_str_eq(t->u.opaque.body, "bar<x, \"y>\", [{}]>");
}
END_TEST

START_TEST(aliases) {
  kr_op *m = parse_unreg("#a = [1, 2]\n!t = tensor<4xf32>\n!ft = (i32) -> i32\n"
                         "%0 = \"x.a\"() {v = #a, w = #test.color<green>} : () -> !t\n"
                         "%i = \"x.i\"() : () -> i32\n%1 = \"x.b\"(%i) : !ft\n");
  ck_assert_ptr_nonnull(m);
  kr_op *a = first_op(m);
  ck_assert_uint_eq(kr_op_get_attr(a, "v")->u.array.num, 2);
  ck_assert_int_eq(kr_op_get_attr(a, "w")->kind, KR_ATTR_DIALECT);
  ck_assert_int_eq(kr_value_type(kr_op_result(a, 0))->kind, KR_TYPE_TENSOR);
}
END_TEST

START_TEST(resources_before_section) {
  kr_op *m = parse("\"test.constant\"() {value = dense_resource<blob1> : tensor<2xi32>} : () -> tensor<2xi32>\n"
                   "{-#\n  dialect_resources: {\n    builtin: {\n"
                   "      blob1: \"0x040000000100000002000000\"\n    }\n  }\n#-}\n");
  ck_assert_ptr_nonnull(m);
  kr_attr v = kr_op_get_attr(first_op(m), "value");
  ck_assert_int_eq(v->kind, KR_ATTR_RESOURCE);
  const kr_resource *r = v->u.resource;
  ck_assert_uint_eq(r->size, 8);
  ck_assert_uint_eq(r->alignment, 4);
  ck_assert_int_eq(((const int32_t *)r->data)[1], 2);
  ck_assert_uint_eq((uintptr_t)r->data % 4, 0);
  /* Used inside nested regions, with sections before and after the use. */
  m = parse("{-# dialect_resources: { builtin: { early: \"0x0100000007\" } } #-}\n"
            "func.func @f() {\n"
            "  \"test.region\"() ({\n"
            "    %0 = \"test.constant\"() {value = dense_resource<late> : tensor<1xi8>} : () -> tensor<1xi8>\n"
            "    %1 = \"test.constant\"() {value = dense_resource<early> : tensor<1xi8>} : () -> tensor<1xi8>\n"
            "    \"test.yield\"() : () -> ()\n"
            "  }) : () -> ()\n"
            "  return\n"
            "}\n"
            "{-# dialect_resources: { builtin: { late: \"0x0100000009\" } } #-}\n");
  ck_assert_ptr_nonnull(m);
  kr_op *c0 = first_op(m)->regions[0].first->first->regions[0].first->first;
  ck_assert_int_eq(((const int8_t *)kr_op_get_attr(c0, "value")->u.resource->data)[0], 9);
  ck_assert_int_eq(((const int8_t *)kr_op_get_attr(c0->next, "value")->u.resource->data)[0], 7);
}
END_TEST

START_TEST(custom_hooks) {
  kr_op *m = parse("%0 = \"test.constant\"() {value = 1 : i32} : () -> i32\n"
                   "%1 = test.custom %0, %0 : i32 {k = 2}\n");
  ck_assert_ptr_nonnull(m);
  kr_op *c = first_op(m)->next;
  ck_assert_str_eq(c->name, "test.custom");
  ck_assert_uint_eq(c->num_operands, 2);
  ck_assert_uint_eq(c->loc->u.loc.col, 6);
}
END_TEST

START_TEST(standalone_attrs) {
  kr_attr a = kr_parse_attr_str(ctx, "dense<[[1.5], [2.5]]> : tensor<2x1xf16>");
  ck_assert_ptr_nonnull(a);
  ck_assert_double_eq(kr_dense_get_f64(a, 1), 2.5);
  ck_assert_ptr_eq(kr_parse_attr_str(ctx, "1 : i32"), kr_attr_integer(ctx, kr_type_integer(ctx, 32, KR_SIGNLESS), 1));
  /* i1 hex is bit-packed, LSB first (MLIR's storage, and what the printer writes). */
  a = kr_parse_attr_str(ctx, "dense<\"0x0D01\"> : tensor<9xi1>");
  ck_assert_ptr_nonnull(a);
  static const int bits[9] = {1, 0, 1, 1, 0, 0, 0, 0, 1};
  for (int i = 0; i < 9; i++) ck_assert_int_eq(kr_dense_get_i64(a, (size_t)i) != 0, bits[i]);
  a = kr_parse_attr_str(ctx, "dense<\"0xFF\"> : tensor<20xi1>");
  ck_assert(a && a->u.dense.splat && kr_dense_get_i64(a, 19));
  ck_assert_ptr_null(kr_parse_attr_str(ctx, "1 : i32 x"));
  ck_assert_str_eq(diags[ndiags - 1].msg, "found trailing characters: 'x'");
}
END_TEST

/* The buffer is not NUL-terminated (exactly `len` bytes, so ASan sees an over-read), and NUL
 * bytes inside it are whitespace, as in MLIR. */
START_TEST(buffer_without_terminator) {
  static const char text[] = "\"test.pure\"() : () -> ()\0\n\"test.pure\"() : () -> i32";
  size_t len = sizeof text - 1;
  char *buf = malloc(len);
  memcpy(buf, text, len);
  kr_op *m = kr_parse_source(ctx, "t.kir", buf, len, true);
  ck_assert_ptr_nonnull(m);
  ck_assert_uint_eq(kr_block_num_ops(m->regions[0].first), 2);
  /* Truncated in the middle of every token kind: errors, never a read past the end. */
  for (size_t cut = 1; cut < len; cut++) {
    char *b = malloc(cut);
    memcpy(b, text, cut);
    kr_parse_source(ctx, "t.kir", b, cut, true);
    free(b);
  }
  kr_context_remove_source(ctx, "t.kir");
  free(buf);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Bad inputs: the first diagnostic, its text and its line:column. */

START_TEST(lexer_errors) {
  EXPECT_ERROR("\"test.pure\"() : () -> ()\n  $", 2, 3, "unexpected character");
  EXPECT_ERROR("\"test.pure\"() {s = \"abc\n\"} : () -> ()", 1, 24, "expected '\"' in string literal");
  EXPECT_ERROR("\"test.pure\"() {s = \"a\\qb\"} : () -> ()", 1, 22, "unknown escape in string literal");
  EXPECT_ERROR("\"test.pure\"(% ) : () -> ()", 1, 13, "invalid SSA name");
  EXPECT_ERROR("\"test.pure\"() {s = @1} : () -> ()", 1, 21, "@ identifier expected to start with letter or '_'");
  EXPECT_ERROR("\"test.pure\"() {s = \"abc", 1, 24, "expected '\"' in string literal");
  EXPECT_ERROR("\"test.pure\"() {s = .} : () -> ()", 1, 21, "expected three consecutive dots for an ellipsis");
}
END_TEST

START_TEST(syntax_errors) {
  EXPECT_ERROR("\"test.pure\"() : () -> ()\n42", 1, 25, "expected operation name in quotes");
  /* A missing token is reported after the previous line's last token (MLIR's emitWrongTokenError). */
  EXPECT_ERROR("\"test.pure\"() : () -> ()\n\"test.pure\"() // c\n\"test.pure\"() : () -> ()", 2, 14,
               "expected ':' followed by operation type");
  EXPECT_ERROR("\"test.pure\"( : () -> ()", 1, 13, "expected ')' to end operand list");
  EXPECT_ERROR("%0 \"test.pure\"() : () -> ()", 1, 3, "expected '=' after SSA name");
  EXPECT_ERROR("\"test.pure\"() : i32", 1, 17, "expected function type");
  EXPECT_ERROR("%0 = \"test.pure\"(%0) : () -> i32", 1, 24, "expected 1 operand type but had 0");
  EXPECT_ERROR("%0:0 = \"test.pure\"() : () -> i32", 1, 4, "expected named operation to have at least 1 result");
  EXPECT_ERROR("%0:2 = \"test.pure\"() : () -> i32", 1, 1, "operation defines 1 results but was provided 2 to bind");
  EXPECT_ERROR("%0 = \"test.pure\"() : () -> ()", 1, 1, "cannot name an operation with no results");
  EXPECT_ERROR("\"\"() : () -> ()", 1, 1, "empty operation name is invalid");
  EXPECT_ERROR("\"test.pure\"() ({) : () -> ()", 1, 17, "expected operation name in quotes");
  EXPECT_ERROR("\"test.pure\"() : () -> () loc(\"a\":x)", 1, 34, "expected integer line number in FileLineColLoc");
  EXPECT_ERROR("\"test.pure\"() : () -> () loc(callsite(unknown on unknown))", 1, 46,
               "expected 'at' in callsite location");
}
END_TEST

START_TEST(name_errors) {
  EXPECT_ERROR("\"test.pure\"(%x) : (i32) -> ()\n\"test.pure\"(%y) : (i32) -> ()", 1, 13,
               "use of undeclared SSA value name");
  ck_assert_uint_eq(ndiags, 2); /* every undeclared name is reported, in source order */
  ck_assert_uint_eq(diags[1].line, 2);
  EXPECT_ERROR("%0 = \"test.pure\"() : () -> i32\n%0 = \"test.pure\"() : () -> i32", 2, 1,
               "redefinition of SSA value '%0'");
  ck_assert_uint_eq(diags[0].notes, 1);
  EXPECT_ERROR("%0 = \"test.pure\"() : () -> i32\n\"test.pure\"(%0) : (f32) -> ()", 2, 13,
               "use of value '%0' expects different type than prior uses: 'f32' vs 'i32'");
  EXPECT_ERROR("\"test.pure\"(%0) : (f32) -> ()\n%0 = \"test.pure\"() : () -> i32", 2, 1,
               "definition of SSA value '%0#0' has type 'i32'");
  EXPECT_ERROR("%0 = \"test.pure\"() : () -> i32\n\"test.pure\"(%0#1) : (i32) -> ()", 2, 13,
               "reference to invalid result number");
  EXPECT_ERROR("\"test.region\"() ({ %a = \"test.pure\"() : () -> i32 }) : () -> ()\n"
               "\"test.pure\"(%a) : (i32) -> ()",
               2, 13, "use of undeclared SSA value name");
  EXPECT_ERROR("func.func @f() {\n  \"test.br\"()[^bb9] : () -> ()\n}", 2, 15, "reference to an undefined block");
  EXPECT_ERROR("func.func @f() {\n  \"test.br\"()[^bb1] : () -> ()\n^bb1:\n  return\n^bb1:\n  return\n}", 5, 1,
               "redefinition of block '^bb1'");
  EXPECT_ERROR("func.func @f(%a: i32) {\n^bb0(%b: i32):\n  return\n}", 2, 1,
               "invalid block name in region with named arguments");
  EXPECT_ERROR("%a = \"test.pure\"() : () -> i32\nfunc.func @f(%a: i32) {\n  return\n}", 2, 14,
               "region entry argument '%a' is already in use");
  EXPECT_ERROR("\"test.pure\"() [^bb1] : () -> ()", 1, 15, "successors in non-terminator");
}
END_TEST

START_TEST(op_name_errors) {
  EXPECT_ERROR("\"foo.bar\"() : () -> ()", 1, 1,
               "unregistered operation 'foo.bar' found in dialect ('foo') that does not allow unknown operations; use "
               "--allow-unregistered-dialect");
  EXPECT_ERROR("func.func @f() {\n  frobnicate\n}", 2, 3, "custom op 'frobnicate' is unknown (tried 'func.frobnicate' as well)");
  EXPECT_ERROR("arith.bogus %0", 1, 1, "custom op 'arith.bogus' is unknown");
  EXPECT_ERROR("foo.bar %0", 1, 1, "dialect 'foo' not found for custom op 'foo.bar'");
  EXPECT_ERROR("%0 = test.custom %a : i32 {k = 1, k = 2}", 1, 35, "duplicate key 'k' in dictionary attribute");
  EXPECT_ERROR("\"test.pure\"() {a, a} : () -> ()", 1, 19, "duplicate key 'a' in dictionary attribute");
  /* Custom hooks' own errors carry MLIR's prefix. */
  EXPECT_ERROR("\"test.pure\"() : () -> !test.quad<i32>", 1, 33, "unknown test type 'quad'");
}
END_TEST

START_TEST(type_errors) {
  EXPECT_ERROR("\"test.pure\"() : () -> i65", 1, 23, "integer bitwidth is limited to 64 bits");
  EXPECT_ERROR("\"test.pure\"() : () -> tensor<2xf32", 1, 34, "expected '>' in tensor type");
  EXPECT_ERROR("\"test.pure\"() : () -> tensor<2x3>", 1, 33, "expected 'x' in dimension list");
  EXPECT_ERROR("\"test.pure\"() : () -> tensor<99999999999999999999xf32>", 1, 30, "invalid dimension");
  EXPECT_ERROR("\"test.pure\"() : () -> vector<0xf32>", 1, 32, "vector types must have positive constant sizes");
  EXPECT_ERROR("\"test.pure\"() : () -> vector<?xf32>", 1, 30, "expected non-function type");
  EXPECT_ERROR("\"test.pure\"() : () -> tensor<2x(i32) -> i32>", 1, 32, "invalid tensor element type");
  EXPECT_ERROR("\"test.pure\"() : () -> !nope", 1, 23, "undefined symbol alias id 'nope'");
  EXPECT_ERROR("\"test.pure\"() : () -> !test.pair<x", 1, 33, "unbalanced '<' character in pretty dialect name");
  EXPECT_ERROR("\"test.pure\"() : () -> !foo.bar", 1, 23,
               "type '!foo.bar' of unregistered dialect 'foo'; use --allow-unregistered-dialect");
  EXPECT_ERROR("\"test.pure\"() : () -> (i32 -> i32", 1, 27, "expected ')'");
  EXPECT_ERROR("\"test.pure\"() : () -> !test.", 1, 23, "expected a mnemonic after '!test.'");
  EXPECT_ERROR("\"test.pure\"() {a = #test.} : () -> ()", 1, 20, "expected a mnemonic after '#test.'");
}
END_TEST

START_TEST(attr_errors) {
  EXPECT_ERROR("\"test.pure\"() {a = 256 : i8} : () -> ()", 1, 20, "integer constant out of range for attribute");
  EXPECT_ERROR("\"test.pure\"() {a = -129 : i8} : () -> ()", 1, 21, "integer constant out of range for attribute");
  EXPECT_ERROR("\"test.pure\"() {a = 99999999999999999999} : () -> ()", 1, 20, "integer constant out of range for attribute");
  EXPECT_ERROR("\"test.pure\"() {a = -1 : ui8} : () -> ()", 1, 21,
               "negative integer literal not valid for unsigned integer type");
  EXPECT_ERROR("\"test.pure\"() {a = 1 : f32} : () -> ()", 1, 20,
               "unexpected decimal integer literal for a floating point value");
  EXPECT_ERROR("\"test.pure\"() {a = 0x1FFFFFFFF : f32} : () -> ()", 1, 20, "hexadecimal float constant out of range for type");
  EXPECT_ERROR("\"test.pure\"() {a = 1.0 : i32} : () -> ()", 1, 20, "floating point value not valid for specified type");
  EXPECT_ERROR("\"test.pure\"() {a = 1e999} : () -> ()", 1, 21, "expected '}' in attribute dictionary");
  EXPECT_ERROR("\"test.pure\"() {a = [1, } : () -> ()", 1, 23, "expected attribute value");
  EXPECT_ERROR("\"test.pure\"() {a = @x::y} : () -> ()", 1, 24, "expected nested symbol reference identifier");
  EXPECT_ERROR("\"test.pure\"() {a = #nope} : () -> ()", 1, 20, "undefined symbol alias id 'nope'");
  EXPECT_ERROR("\"test.pure\"() {a = #test.color<pink>} : () -> ()", 1, 36,
               "unknown color 'pink', expected red, green or blue");
}
END_TEST

START_TEST(dense_errors) {
  EXPECT_ERROR("\"test.pure\"() {a = dense<[1, 2, 3]> : tensor<2xi32>} : () -> ()", 1, 20,
               "inferred shape of elements literal ([3]) does not match type ([2])");
  EXPECT_ERROR("\"test.pure\"() {a = dense<[[1], [2, 3]]> : tensor<2x2xi32>} : () -> ()", 1, 38,
               "tensor literal is invalid; ranks are not consistent between elements");
  EXPECT_ERROR("\"test.pure\"() {a = dense<[1.5]> : tensor<1xi32>} : () -> ()", 1, 27,
               "expected integer elements, but parsed floating-point");
  EXPECT_ERROR("\"test.pure\"() {a = dense<[1, 300]> : tensor<2xi8>} : () -> ()", 1, 30,
               "integer constant out of range for type");
  EXPECT_ERROR("\"test.pure\"() {a = dense<[-1]> : tensor<1xui8>} : () -> ()", 1, 28,
               "expected unsigned integer elements, but parsed negative value");
  EXPECT_ERROR("\"test.pure\"() {a = dense<[true]> : tensor<1xi8>} : () -> ()", 1, 27,
               "expected i1 type for 'true' or 'false' values");
  EXPECT_ERROR("\"test.pure\"() {a = dense<> : tensor<2xi32>} : () -> ()", 1, 20,
               "parsed zero elements, but type ('tensor<2xi32>') expected at least 1");
  EXPECT_ERROR("\"test.pure\"() {a = dense<1> : tensor<?xi32>} : () -> ()", 1, 20,
               "elements literal type must have static shape");
  EXPECT_ERROR("\"test.pure\"() {a = dense<1> : i32} : () -> ()", 1, 20, "elements literal must be a shaped type");
  EXPECT_ERROR("\"test.pure\"() {a = dense<\"0x0102\"> : tensor<2xi32>} : () -> ()", 1, 20,
               "elements hex data size is invalid for provided type: 'tensor<2xi32>'");
  EXPECT_ERROR("\"test.pure\"() {a = array<i32: 1, 1.5>} : () -> ()", 1, 34, "expected integer literal");
  EXPECT_ERROR("\"test.pure\"() {a = dense_resource<nope> : tensor<2xi32>} : () -> ()", 1, 35,
               "unknown 'resource' key 'nope' for dialect 'builtin'");
}
END_TEST

START_TEST(resource_errors) {
  EXPECT_ERROR("{-# dialect_resources: { builtin: { k: \"0x0300000001\" } } #-}", 1, 40,
               "expected hex string blob for key 'k' to encode alignment in first 4 bytes, but got non-power-of-2 value: 3");
  EXPECT_ERROR("{-# dialect_resources: { builtin: { k: \"0x01\" } } #-}", 1, 40,
               "expected hex string blob for key 'k' to encode alignment in first 4 bytes");
  EXPECT_ERROR("{-# dialect_resources: { builtin: { k: \"xyz\" } } #-}", 1, 40, "expected hex string blob for key 'k'");
  EXPECT_ERROR("{-# other: {} #-}", 1, 5, "unknown key 'other' in file metadata dictionary");
  EXPECT_ERROR("{-# dialect_resources: { builtin: { k: \"0x0000000801\" } } #-}", 1, 40,
               "resource 'k' asks for an alignment of 134217728 bytes; at most 4096 are supported");
  EXPECT_ERROR("{-# dialect_resources: { nodialect: {} } #-}", 1, 26, "dialect 'nodialect' is unknown");
}
END_TEST

START_TEST(alias_errors) {
  EXPECT_ERROR("#a = 1\n#a = 2", 2, 1, "redefinition of attribute alias id 'a'");
  EXPECT_ERROR("!a.b = i32", 1, 1, "type names with a '.' are reserved for dialect-defined names");
  EXPECT_ERROR("!a i32", 1, 3, "expected '=' in type alias definition");
}
END_TEST

/* Deep nesting is an error, not a stack overflow. */
START_TEST(nesting_limit) {
  size_t n = 100000;
  char *buf = malloc(n * 2 + 64);  /* the longest text below is 10 bytes x n/20 */
  size_t k = 0;
  k += (size_t)sprintf(buf, "\"test.pure\"() {a = ");
  for (size_t i = 0; i < n; i++) buf[k++] = '[';
  for (size_t i = 0; i < n; i++) buf[k++] = ']';
  k += (size_t)sprintf(buf + k, "} : () -> ()");
  ck_assert_ptr_null(kr_parse_source(ctx, "t.kir", buf, k, true));
  ck_assert_str_eq(diags[0].msg, "nesting is too deep (more than 1000 levels)");
  k = 0;
  for (size_t i = 0; i < n / 10; i++) k += (size_t)sprintf(buf + k, "\"test.region\"() ({");
  ndiags = 0;
  ck_assert_ptr_null(kr_parse_source(ctx, "t.kir", buf, k, true));
  ck_assert_str_eq(diags[0].msg, "nesting is too deep (more than 1000 levels)");
  /* Locations whose fused metadata is a location, and so on. */
  k = (size_t)sprintf(buf, "\"test.pure\"() : () -> () loc(");
  for (size_t i = 0; i < n / 20; i++) k += (size_t)sprintf(buf + k, "fused<loc(");
  ndiags = 0;
  ck_assert_ptr_null(kr_parse_source(ctx, "t.kir", buf, k, true));
  ck_assert_str_eq(diags[0].msg, "nesting is too deep (more than 1000 levels)");
  /* Below the text limit, the IR's own depth decides (the printed form may be a few levels
   * deeper than the text): module region + op dictionary + 958 arrays = 960 levels is the most. */
  for (size_t depth = 958; depth <= 959; depth++) {
    k = (size_t)sprintf(buf, "\"test.pure\"() {a = ");
    for (size_t i = 0; i < depth; i++) buf[k++] = '[';
    for (size_t i = 0; i < depth; i++) buf[k++] = ']';
    k += (size_t)sprintf(buf + k, "} : () -> ()");
    ndiags = 0;
    kr_op *m = kr_parse_source(ctx, "t.kir", buf, k, true);
    if (depth == 958) {
      ck_assert_ptr_nonnull(m);
    } else {
      ck_assert_ptr_null(m);
      ck_assert_str_eq(diags[0].msg, "nesting is too deep (more than 960 levels)");
    }
  }
  kr_context_remove_source(ctx, "t.kir");
  free(buf);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * The custom-assembly API (korch/asm.h), through a small dialect whose parse hooks call every
 * kr_parser_* function. */

/* `ptest.ints -5, 0x10, true` -> {v = [-5, 16, 1]} */
static kr_status ptest_ints_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *c = kr_parser_context(p);
  kr_attr elems[3];
  for (int i = 0; i < 3; i++) {
    int64_t v;
    if ((i && kr_parser_expect(p, ",")) || kr_parser_parse_integer(p, &v)) return KR_FAILURE;
    elems[i] = kr_attr_integer(c, kr_type_integer(c, 64, KR_SIGNLESS), v);
  }
  kr_op_state_add_attr(st, "v", kr_attr_array(c, elems, 3));
  return KR_SUCCESS;
}

/* `%r = ptest.add %a, %b : i32 {attrs}?` (one type for all operands) */
static kr_status ptest_add_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_vec ops = {0}, types = {0};
  kr_status s = KR_FAILURE;
  if (kr_parser_parse_operand_list(p, &ops) || kr_parser_parse_colon_type_list(p, &types) ||
      kr_parser_parse_optional_attr_dict(p, st, false) ||
      kr_parser_resolve_operands(p, KR_VEC_DATA(&ops, kr_unresolved_operand), (unsigned)ops.len,
                                 KR_VEC_DATA(&types, kr_type), (unsigned)types.len, st))
    goto out;
  kr_op_state_add_results(st, KR_VEC_DATA(&types, kr_type), 1);
  s = KR_SUCCESS;
out:
  kr_vec_free(&ops);
  kr_vec_free(&types);
  return s;
}

/* `ptest.region (%x: i32, %y: f32 loc(...)) attributes {..}? { ... }` */
static kr_status ptest_region_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_vec args = {0};
  kr_status s = KR_FAILURE;
  if (kr_parser_parse_argument_list(p, &args, true) || kr_parser_parse_optional_attr_dict(p, st, true)) goto out;
  s = kr_parser_parse_region(p, kr_op_state_add_region(st), KR_VEC_DATA(&args, kr_asm_argument), (unsigned)args.len);
out:
  kr_vec_free(&args);
  return s;
}

/* `%r:N = ptest.shape 4x?x8x f32 -> (types)`: dims and element as attributes, results from the
 * arrow list. */
static kr_status ptest_shape_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *c = kr_parser_context(p);
  kr_vec dims = {0}, results = {0};
  kr_type elem;
  kr_status s = KR_FAILURE;
  if (kr_parser_parse_dimension_list(p, &dims, true) || kr_parser_parse_type(p, &elem) ||
      kr_parser_parse_arrow_type_list(p, &results))
    goto out;
  kr_op_state_add_attr(st, "shape", kr_attr_type(c, kr_type_tensor(c, KR_VEC_DATA(&dims, int64_t), (unsigned)dims.len, elem)));
  kr_op_state_add_results(st, KR_VEC_DATA(&results, kr_type), (unsigned)results.len);
  s = KR_SUCCESS;
out:
  kr_vec_free(&dims);
  kr_vec_free(&results);
  return s;
}

/* `ptest.words "text" keyword (@sym)?` with an error of the hook's own for `bad` */
static kr_status ptest_words_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *c = kr_parser_context(p);
  kr_ident str, sym;
  const char *kw;
  size_t len;
  if (kr_parser_parse_string(p, &str)) return KR_FAILURE;
  if (kr_parser_peek_keyword(p, "bad")) return kr_parser_error(p, "does not like '%s'", "bad");
  if (kr_parser_parse_keyword(p, &kw, &len)) return KR_FAILURE;
  kr_op_state_add_attr(st, "str", kr_attr_string(c, str, kr_ident_len(str)));
  kr_op_state_add_attr(st, "kw", kr_attr_string(c, kw, len));
  if (kr_parser_peek(p, "@")) {
    if (kr_parser_parse_symbol_name(p, &sym)) return KR_FAILURE;
    kr_op_state_add_attr(st, "sym", kr_attr_symbol_ref(c, sym, NULL, 0));
  }
  return kr_parser_parse_optional_trailing_loc(p, st);
}

/* `ptest.br ^bb(, ^bb)*` */
static kr_status ptest_br_parse(kr_asm_parser *p, kr_op_state *st) {
  do {
    kr_block *b;
    if (kr_parser_parse_successor(p, &b)) return KR_FAILURE;
    kr_op_state_add_successors(st, &b, 1);
  } while (kr_parser_consume(p, ","));
  return KR_SUCCESS;
}

/* `%r = ptest.attr <attribute with an i16 hint>` */
static kr_status ptest_attr_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *c = kr_parser_context(p);
  kr_attr a;
  if (kr_parser_parse_attr(p, kr_type_integer(c, 16, KR_SIGNLESS), &a)) return KR_FAILURE;
  kr_op_state_add_attr(st, "value", a);
  return KR_SUCCESS;
}

static const kr_op_def ptest_ops[] = {
    {.name = "ptest.ints", .num_operands = 0, .num_results = 0, .parse = ptest_ints_parse},
    {.name = "ptest.add", .num_operands = KR_VARIADIC, .num_results = 1, .parse = ptest_add_parse},
    {.name = "ptest.region", .num_operands = 0, .num_results = 0, .num_regions = 1, .parse = ptest_region_parse},
    {.name = "ptest.shape", .num_operands = 0, .num_results = KR_VARIADIC, .parse = ptest_shape_parse},
    {.name = "ptest.words", .num_operands = 0, .num_results = 0, .parse = ptest_words_parse},
    {.name = "ptest.br", .traits = KR_TRAIT_TERMINATOR, .num_operands = 0, .num_results = 0, .parse = ptest_br_parse},
    {.name = "ptest.attr", .num_operands = 0, .num_results = 0, .parse = ptest_attr_parse},
};
static const kr_dialect_def ptest_dialect = {.name = "ptest", .ops = ptest_ops, .num_ops = sizeof ptest_ops / sizeof *ptest_ops};

START_TEST(custom_assembly_api) {
  ck_assert(!kr_context_register_dialect(ctx, &ptest_dialect));
  kr_context_set_allow_unregistered(ctx, true);
  const char *text = "ptest.ints -5, 0x10, true\n"
                     "%a = \"x.a\"() : () -> i32\n"
                     "%s = ptest.add %a, %a, %a : i32 {tag}\n"
                     "ptest.region (%x: i32, %y: f32 loc(\"l.c\":1:2)) attributes {k = 1} {\n"
                     "  \"x.use\"(%x, %y, %s) : (i32, f32, i32) -> ()\n"
                     "}\n"
                     "%r:2 = ptest.shape 4x?x8xf32 -> (i8, f16)\n"
                     "ptest.words \"a\\nb\" zzz @sym loc(unknown)\n"
                     "ptest.attr 300\n"
                     "\"x.r\"() ({\n"
                     "  ptest.br ^bb1, ^bb1\n"
                     "^bb1:\n"
                     "  \"x.end\"() : () -> ()\n"
                     "}) : () -> ()\n";
  kr_op *m = kr_parse_source(ctx, "t.kir", text, strlen(text), false);
  ck_assert_ptr_nonnull(m);
  kr_op *ints = first_op(m), *a = ints->next, *add = a->next, *reg = add->next, *shape = reg->next;
  kr_op *words = shape->next, *attr = words->next, *xr = attr->next;
  kr_attr v = kr_op_get_attr(ints, "v");
  ck_assert_int_eq(v->u.array.elems[0]->u.i, -5);
  ck_assert_int_eq(v->u.array.elems[1]->u.i, 16);
  ck_assert_int_eq(v->u.array.elems[2]->u.i, 1);
  ck_assert_uint_eq(add->num_operands, 3);
  ck_assert_ptr_eq(kr_op_operand(add, 2), kr_op_result(a, 0));
  ck_assert_ptr_nonnull(kr_op_get_attr(add, "tag"));
  kr_block *entry = reg->regions[0].first;
  ck_assert_uint_eq(entry->num_args, 2);
  ck_assert_str_eq(entry->args[1]->loc->u.loc.name, "l.c");
  ck_assert_uint_eq(entry->args[0]->loc->u.loc.col, 15); /* the %x name */
  ck_assert_ptr_eq(kr_op_operand(entry->first, 1), entry->args[1]);
  ck_assert_ptr_eq(kr_op_operand(entry->first, 2), kr_op_result(add, 0));
  ck_assert_int_eq(kr_op_get_attr(reg, "k")->u.i, 1);
  kr_type st = kr_op_get_attr(shape, "shape")->type;
  ck_assert_uint_eq(st->u.shaped.rank, 3);
  ck_assert_int_eq(st->u.shaped.dims[1], KR_DYNAMIC);
  ck_assert_ptr_eq(st->u.shaped.elem, kr_type_float(ctx, KR_F32));
  ck_assert_uint_eq(shape->num_results, 2);
  ck_assert_mem_eq(kr_op_get_attr(words, "str")->u.string.str, "a\nb", 3);
  ck_assert_str_eq(kr_op_get_attr(words, "kw")->u.string.str, "zzz");
  ck_assert_str_eq(kr_op_get_attr(words, "sym")->u.symref.root, "sym");
  ck_assert_int_eq(words->loc->u.loc.kind, KR_LOC_UNKNOWN);
  ck_assert_int_eq(kr_op_get_attr(attr, "value")->u.i, 300);
  ck_assert(kr_type_is_integer(kr_op_get_attr(attr, "value")->type, 16));
  kr_op *br = xr->regions[0].first->first;
  ck_assert_uint_eq(br->num_successors, 2);
  ck_assert_ptr_eq(br->successors[1], xr->regions[0].first->next);

  /* Errors through the API: the hook's own message carries the op prefix, the API's do not. */
  EXPECT_ERROR("ptest.words \"x\" bad", 1, 17, "custom op 'ptest.words' does not like 'bad'");
  EXPECT_ERROR("ptest.ints 1, 99999999999999999999, 3", 1, 15, "integer value too large");
  EXPECT_ERROR("ptest.ints 1 2", 1, 13, "expected ','");
  EXPECT_ERROR("%a = \"x.a\"() : () -> i32\n%s = ptest.add %a, %a : i32, i32, i32", 2, 16,
               "2 operands present, but expected 3");
  EXPECT_ERROR("ptest.region (%x#1: i32) {\n}", 1, 17, "result number not allowed in argument list");
  EXPECT_ERROR("ptest.shape 4x?x8xf32 (i8)", 1, 22, "expected '->'");
  EXPECT_ERROR("ptest.words 7", 1, 12, "expected string");
  EXPECT_ERROR("ptest.words \"x\" @s", 1, 16, "expected valid keyword");
  EXPECT_ERROR("ptest.attr 70000", 1, 12, "integer constant out of range for attribute");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("parser");
  TCase *good = tcase_create("good");
  tcase_add_checked_fixture(good, setup, teardown);
  tcase_add_test(good, generic_ops_and_values);
  tcase_add_test(good, result_groups);
  tcase_add_test(good, forward_references);
  tcase_add_test(good, blocks_and_successors);
  tcase_add_test(good, names_are_scoped_per_region);
  tcase_add_test(good, single_module_is_the_result);
  tcase_add_test(good, attributes);
  tcase_add_test(good, types);
  tcase_add_test(good, aliases);
  tcase_add_test(good, resources_before_section);
  tcase_add_test(good, custom_hooks);
  tcase_add_test(good, standalone_attrs);
  tcase_add_test(good, buffer_without_terminator);
  tcase_add_test(good, custom_assembly_api);
  suite_add_tcase(s, good);
  TCase *bad = tcase_create("bad");
  tcase_add_checked_fixture(bad, setup, teardown);
  tcase_add_test(bad, lexer_errors);
  tcase_add_test(bad, syntax_errors);
  tcase_add_test(bad, name_errors);
  tcase_add_test(bad, op_name_errors);
  tcase_add_test(bad, type_errors);
  tcase_add_test(bad, attr_errors);
  tcase_add_test(bad, dense_errors);
  tcase_add_test(bad, resource_errors);
  tcase_add_test(bad, alias_errors);
  tcase_add_test(bad, nesting_limit);
  tcase_set_timeout(bad, 60);
  suite_add_tcase(s, bad);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
