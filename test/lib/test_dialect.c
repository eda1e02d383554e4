/* test/lib/test_dialect.c - the `test` dialect (ops in ops.def): hooks, the `!test.pair<T, U>`
 * type, the `#test.color<...>` attribute and registration. */
#include "test_dialect.h"

#include <string.h>

#include "dialects/dialect_macros.h"
#include "korch/asm.h"
#include "korch/diag.h"

#define KR_OP KR_OP_DECLARE_HOOKS
#include "ops.def"
#undef KR_OP

#define TEST_DIALECT "test"

/* ---------------------------------------------------------------------------------------------
 * Ops. */

/* MLIR's BranchOpInterface check (emitted without the op-name prefix, as MLIR does). */
kr_status kr_test_br_verify(kr_op *op) {
  if (op->num_successors != 1) return KR_SUCCESS;
  kr_block *dest = op->successors[0];
  kr_context *ctx = kr_op_context(op);
  if (op->num_operands != dest->num_args)
    return kr_emit_error(ctx, op->loc, "branch has %u operands for successor #0, but target block has %u",
                         op->num_operands, dest->num_args);
  for (unsigned i = 0; i < op->num_operands; i++)
    if (kr_value_type(kr_op_operand(op, i)) != kr_value_type(dest->args[i]))
      return kr_emit_error(ctx, op->loc, "type mismatch for bb argument #%u of successor #0", i);
  return KR_SUCCESS;
}

kr_status kr_test_verify_positive_verify(kr_op *op) {
  kr_attr v = kr_op_get_attr(op, "value");
  if (!v) return kr_op_emit_error(op, "requires attribute 'value'");
  if (v->kind != KR_ATTR_INTEGER || v->u.i <= 0) return kr_op_emit_error(op, "attribute 'value' must be positive");
  return KR_SUCCESS;
}

kr_status kr_test_constant_verify(kr_op *op) {
  if (!kr_op_get_attr(op, "value")) return kr_op_emit_error(op, "requires attribute 'value'");
  return KR_SUCCESS;
}

kr_status kr_test_constant_fold(kr_op *op, const kr_attr *operands, kr_fold_result *results) {
  (void)operands;
  results[0].attr = kr_op_get_attr(op, "value");
  results[0].value = NULL;
  return results[0].attr ? KR_SUCCESS : KR_FAILURE;
}

kr_status kr_test_fold_to_operand_fold(kr_op *op, const kr_attr *operands, kr_fold_result *results) {
  (void)operands;
  results[0].attr = NULL;
  results[0].value = kr_op_operand(op, 0);
  return KR_SUCCESS;
}

kr_status kr_test_op_a_to_op_b(kr_rewriter *rw, kr_op *op) {
  kr_op_state st;
  kr_op_state_init(&st, kr_op_context(op), "test.op_b", op->loc);
  kr_value operand = kr_op_operand(op, 0);
  kr_type type = kr_value_type(kr_op_result(op, 0));
  kr_op_state_add_operands(&st, &operand, 1);
  kr_op_state_add_results(&st, &type, 1);
  for (unsigned i = 0; i < op->attrs->u.dict.num; i++)
    kr_op_state_add_attr(&st, op->attrs->u.dict.entries[i].name, op->attrs->u.dict.entries[i].value);
  kr_rewriter_set_insertion_point_before(rw, op);
  kr_op *b = kr_rewriter_create(rw, &st);
  kr_op_state_free(&st);
  if (!b) return KR_FAILURE;
  kr_value r = kr_op_result(b, 0);
  kr_rewriter_replace_op(rw, op, &r);
  return KR_SUCCESS;
}

/* `%r = test.custom %a, %b : i32 {attrs}?` */
kr_status kr_test_custom_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_vec ops = {0};
  kr_type type;
  kr_status s = KR_FAILURE;
  if (kr_parser_parse_operand_list(p, &ops) || kr_parser_expect(p, ":") || kr_parser_parse_type(p, &type) ||
      kr_parser_parse_optional_attr_dict(p, st, false))
    goto out;
  for (size_t i = 0; i < ops.len; i++) {
    kr_value v;
    if (kr_parser_resolve_operand(p, &KR_VEC_AT(&ops, kr_unresolved_operand, i), type, &v)) goto out;
    kr_op_state_add_operands(st, &v, 1);
  }
  kr_op_state_add_results(st, &type, 1);
  s = KR_SUCCESS;
out:
  kr_vec_free(&ops);
  return s;
}

void kr_test_custom_print(kr_asm_printer *p, kr_op *op) {
  kr_printer_puts(p, " ");
  kr_printer_print_operands(p, op, 0, op->num_operands);
  kr_printer_puts(p, " : ");
  kr_printer_print_type(p, kr_value_type(kr_op_result(op, 0)));
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
}

/* ---------------------------------------------------------------------------------------------
 * Dialect hooks. */

static const kr_dialect *test_dialect_of(kr_context *ctx) {
  return kr_context_lookup_dialect(ctx, TEST_DIALECT, sizeof TEST_DIALECT - 1);
}

static bool keyword_is(const char *kw, size_t len, const char *s) { return strlen(s) == len && !memcmp(kw, s, len); }

/* `pair<T, U>` after `!test.` */
static kr_type test_parse_type(kr_asm_parser *p, kr_context *ctx) {
  const char *kw;
  size_t len;
  if (kr_parser_parse_keyword(p, &kw, &len)) return NULL;
  if (!keyword_is(kw, len, "pair")) {
    kr_parser_error(p, "unknown test type '%.*s'", (int)len, kw);
    return NULL;
  }
  kr_type a, b;
  if (kr_parser_expect(p, "<") || kr_parser_parse_type(p, &a) || kr_parser_expect(p, ",") ||
      kr_parser_parse_type(p, &b) || kr_parser_expect(p, ">"))
    return NULL;
  kr_attr params[2] = {kr_attr_type(ctx, a), kr_attr_type(ctx, b)};
  return kr_type_dialect(ctx, test_dialect_of(ctx), "pair", params, 2);
}

static void test_print_type(kr_asm_printer *p, kr_type t) {
  kr_printer_puts(p, t->u.dialect.mnemonic);
  kr_printer_puts(p, "<");
  for (unsigned i = 0; i < t->u.dialect.num_params; i++) {
    if (i) kr_printer_puts(p, ", ");
    kr_attr a = t->u.dialect.params[i];
    if (a->kind == KR_ATTR_TYPE)
      kr_printer_print_type(p, a->type);
    else
      kr_printer_print_attr(p, a);
  }
  kr_printer_puts(p, ">");
}

static const char *const colors[] = {"red", "green", "blue"};

/* `color<red|green|blue>` after `#test.` */
static kr_attr test_parse_attr(kr_asm_parser *p, kr_context *ctx) {
  const char *kw;
  size_t len;
  if (kr_parser_parse_keyword(p, &kw, &len)) return NULL;
  if (!keyword_is(kw, len, "color")) {
    kr_parser_error(p, "unknown test attribute '%.*s'", (int)len, kw);
    return NULL;
  }
  if (kr_parser_expect(p, "<") || kr_parser_parse_keyword(p, &kw, &len)) return NULL;
  bool known = false;
  for (unsigned i = 0; i < sizeof colors / sizeof colors[0]; i++) known |= keyword_is(kw, len, colors[i]);
  if (!known) {
    kr_parser_error(p, "unknown color '%.*s', expected red, green or blue", (int)len, kw);
    return NULL;
  }
  kr_attr color = kr_attr_string(ctx, kw, len);
  if (kr_parser_expect(p, ">")) return NULL;
  return kr_attr_dialect(ctx, test_dialect_of(ctx), "color", &color, 1);
}

static void test_print_attr(kr_asm_printer *p, kr_attr a) {
  kr_printer_puts(p, a->u.dialect.mnemonic);
  kr_printer_puts(p, "<");
  if (a->u.dialect.num_params == 1 && a->u.dialect.params[0]->kind == KR_ATTR_STRING)
    kr_printer_puts(p, a->u.dialect.params[0]->u.string.str);
  kr_printer_puts(p, ">");
}

/* Folded constants of any kind become test.constant. */
static kr_op *test_materialize_constant(kr_builder *b, kr_attr value, kr_type type, kr_attr loc) {
  kr_op_state st;
  kr_op_state_init(&st, b->ctx, "test.constant", loc);
  kr_op_state_add_attr(&st, "value", value);
  kr_op_state_add_results(&st, &type, 1);
  kr_op *c = kr_builder_create(b, &st);
  kr_op_state_free(&st);
  return c;
}

static const kr_op_def test_ops[] = {
#define KR_OP KR_OP_TABLE_ROW
#include "ops.def"
#undef KR_OP
};

static const kr_dialect_def test_dialect = {
    .name = TEST_DIALECT,
    .summary = "ops exercising every trait and hook, for tests",
    .ops = test_ops,
    .num_ops = KR_ARRAY_SIZE(test_ops),
    .parse_type = test_parse_type,
    .print_type = test_print_type,
    .parse_attr = test_parse_attr,
    .print_attr = test_print_attr,
    .materialize_constant = test_materialize_constant,
};

kr_status kr_register_test_dialect(kr_context *ctx) { return kr_context_register_dialect(ctx, &test_dialect); }
