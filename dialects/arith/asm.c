/* dialects/arith/asm.c - custom assembly of the arith dialect, spelled exactly as MLIR's
 * ArithOps.td assemblyFormat:
 *
 *   %c = arith.constant {attrs}? 42 : i32          (i1: `arith.constant true`)
 *   %r = arith.addi %a, %b {attrs}? : i32          (every same-type op, unary ones too)
 *   %b = arith.cmpi slt, %a, %b {attrs}? : i32     (the type is the operands'; the result is i1-like)
 *   %r = arith.select %c, %a, %b {attrs}? : i32    (shaped condition: `: tensor<4xi1>, tensor<4xi32>`)
 *   %r = arith.extsi %a {attrs}? : i8 to i32 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/arith/arith_impl.h"
#include "korch/asm.h"

static bool is_cmpf(kr_ident name) { return strcmp(name, "arith.cmpf") == 0; }

/* Resolves every unresolved operand to `type`. */
static kr_status resolve_all(kr_asm_parser *p, const kr_vec *ops, kr_type type, kr_op_state *st) {
  kr_type *types = malloc(sizeof(kr_type) * (ops->len ? ops->len : 1));
  if (!types) abort();
  for (size_t i = 0; i < ops->len; i++) types[i] = type;
  kr_status s = kr_parser_resolve_operands(p, KR_VEC_DATA(ops, kr_unresolved_operand), (unsigned)ops->len, types,
                                           (unsigned)ops->len, st);
  free(types);
  return s;
}

/* ---------------------------------------------------------------------------------------------
 * arith.constant */

kr_status kr_arith_constant_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *ctx = kr_parser_context(p);
  if (kr_parser_parse_optional_attr_dict(p, st, false)) return KR_FAILURE;
  kr_attr value;
  if (kr_parser_parse_attr(p, NULL, &value)) return KR_FAILURE;
  value = kr_arith_canonical_const_attr(ctx, value);
  kr_type type = kr_arith_const_attr_type(ctx, value);
  if (!type) return kr_parser_error(p, "expected a typed constant attribute");
  kr_op_state_add_attr(st, "value", value);
  kr_op_state_add_results(st, &type, 1);
  return KR_SUCCESS;
}

void kr_arith_constant_print(kr_asm_printer *p, kr_op *op) {
  static const char *const elided[] = {"value"};
  kr_attr v = kr_op_get_attr(op, "value");
  kr_printer_print_optional_attr_dict(p, op, elided, v ? 1 : 0, false);
  kr_printer_puts(p, " ");
  /* An i1 constant is spelled true/false, its type implied (MLIR's BoolAttr printing). */
  if (!v)
    kr_printer_puts(p, "<<missing value>>");
  else if (v->kind == KR_ATTR_BOOL)
    kr_printer_puts(p, v->u.b ? "true" : "false");
  else if (v->kind == KR_ATTR_INTEGER && kr_type_is_integer(v->type, 1))
    kr_printer_puts(p, v->u.i ? "true" : "false");
  else
    kr_printer_print_attr(p, v);
}

/* ---------------------------------------------------------------------------------------------
 * Ops whose operands and result share one type. */

kr_status kr_arith_same_type_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_vec ops = {0};
  kr_type type;
  kr_status s = KR_FAILURE;
  if (kr_parser_parse_operand_list(p, &ops) || kr_parser_parse_optional_attr_dict(p, st, false) ||
      kr_parser_expect(p, ":") || kr_parser_parse_type(p, &type) || resolve_all(p, &ops, type, st))
    goto out;
  kr_op_state_add_results(st, &type, 1);
  s = KR_SUCCESS;
out:
  kr_vec_free(&ops);
  return s;
}

void kr_arith_same_type_print(kr_asm_printer *p, kr_op *op) {
  kr_printer_puts(p, " ");
  kr_printer_print_operands(p, op, 0, op->num_operands);
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
  kr_printer_puts(p, " : ");
  kr_printer_print_type(p, kr_value_type(kr_op_result(op, 0)));
}

/* ---------------------------------------------------------------------------------------------
 * arith.cmpi / arith.cmpf */

kr_status kr_arith_cmp_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *ctx = kr_parser_context(p);
  bool f = is_cmpf(st->name);
  const char *const *names = f ? kr_arith_cmpf_predicates : kr_arith_cmpi_predicates;
  unsigned n = f ? KR_ARITH_NUM_CMPF_PREDICATES : KR_ARITH_NUM_CMPI_PREDICATES;
  int64_t pred = -1;
  for (unsigned i = 0; i < n && pred < 0; i++)
    if (kr_parser_peek_keyword(p, names[i])) pred = i;
  if (pred < 0) {
    char list[160];
    size_t len = 0;
    for (unsigned i = 0; i < n; i++)
      len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
    return kr_parser_error(p,
                           "expected string or keyword containing one of the following enum values for attribute "
                           "'predicate' [%s]",
                           list);
  }
  const char *kw;
  size_t kwlen;
  if (kr_parser_parse_keyword(p, &kw, &kwlen) || kr_parser_expect(p, ",")) return KR_FAILURE;
  kr_op_state_add_attr(st, "predicate", kr_attr_integer(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), pred));

  kr_vec ops = {0};
  kr_type type;
  kr_status s = KR_FAILURE;
  if (kr_parser_parse_operand_list(p, &ops) || kr_parser_parse_optional_attr_dict(p, st, false) ||
      kr_parser_expect(p, ":") || kr_parser_parse_type(p, &type) || resolve_all(p, &ops, type, st))
    goto out;
  kr_type rt = kr_arith_with_element(ctx, type, kr_type_integer(ctx, 1, KR_SIGNLESS));
  kr_op_state_add_results(st, &rt, 1);
  s = KR_SUCCESS;
out:
  kr_vec_free(&ops);
  return s;
}

void kr_arith_cmp_print(kr_asm_printer *p, kr_op *op) {
  bool f = is_cmpf(op->name);
  kr_attr pred = kr_op_get_attr(op, "predicate");
  int64_t n = f ? KR_ARITH_NUM_CMPF_PREDICATES : KR_ARITH_NUM_CMPI_PREDICATES;
  static const char *const elided[] = {"predicate"};
  bool known = pred && pred->kind == KR_ATTR_INTEGER && pred->u.i >= 0 && pred->u.i < n;
  kr_printer_puts(p, " ");
  kr_printer_puts(p, known ? (f ? kr_arith_cmpf_predicates : kr_arith_cmpi_predicates)[pred->u.i] : "<<invalid>>");
  kr_printer_puts(p, ", ");
  kr_printer_print_operands(p, op, 0, op->num_operands);
  kr_printer_print_optional_attr_dict(p, op, elided, known ? 1 : 0, false);
  kr_printer_puts(p, " : ");
  kr_printer_print_type(p, kr_value_type(kr_op_operand(op, 0)));
}

/* ---------------------------------------------------------------------------------------------
 * arith.select */

kr_status kr_arith_select_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *ctx = kr_parser_context(p);
  kr_vec ops = {0}, types = {0};
  kr_status s = KR_FAILURE;
  if (kr_parser_parse_operand_list(p, &ops) || kr_parser_parse_optional_attr_dict(p, st, false) ||
      kr_parser_expect(p, ":") || kr_parser_parse_type_list(p, &types))
    goto out;
  if (types.len > 2) {
    kr_parser_error(p, "expected one result type, or a condition type and a result type");
    goto out;
  }
  kr_type rt = KR_VEC_AT(&types, kr_type, types.len - 1);
  kr_type ct = types.len == 2 ? KR_VEC_AT(&types, kr_type, 0) : kr_type_integer(ctx, 1, KR_SIGNLESS);
  kr_type all[3] = {ct, rt, rt};
  if (kr_parser_resolve_operands(p, KR_VEC_DATA(&ops, kr_unresolved_operand), (unsigned)ops.len, all, 3, st)) goto out;
  kr_op_state_add_results(st, &rt, 1);
  s = KR_SUCCESS;
out:
  kr_vec_free(&ops);
  kr_vec_free(&types);
  return s;
}

void kr_arith_select_print(kr_asm_printer *p, kr_op *op) {
  kr_printer_puts(p, " ");
  kr_printer_print_operands(p, op, 0, op->num_operands);
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
  kr_printer_puts(p, " : ");
  kr_type ct = kr_value_type(kr_op_operand(op, 0));
  if (kr_type_is_shaped(ct)) {
    kr_printer_print_type(p, ct);
    kr_printer_puts(p, ", ");
  }
  kr_printer_print_type(p, kr_value_type(kr_op_result(op, 0)));
}

/* ---------------------------------------------------------------------------------------------
 * Casts */

kr_status kr_arith_cast_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_unresolved_operand u;
  kr_type from, to;
  kr_value v;
  if (kr_parser_parse_operand(p, &u) || kr_parser_parse_optional_attr_dict(p, st, false) || kr_parser_expect(p, ":") ||
      kr_parser_parse_type(p, &from) || kr_parser_expect(p, "to") || kr_parser_parse_type(p, &to) ||
      kr_parser_resolve_operand(p, &u, from, &v))
    return KR_FAILURE;
  kr_op_state_add_operands(st, &v, 1);
  kr_op_state_add_results(st, &to, 1);
  return KR_SUCCESS;
}

void kr_arith_cast_print(kr_asm_printer *p, kr_op *op) {
  kr_printer_puts(p, " ");
  kr_printer_print_operands(p, op, 0, 1);
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
  kr_printer_puts(p, " : ");
  kr_printer_print_type(p, kr_value_type(kr_op_operand(op, 0)));
  kr_printer_puts(p, " to ");
  kr_printer_print_type(p, kr_value_type(kr_op_result(op, 0)));
}
