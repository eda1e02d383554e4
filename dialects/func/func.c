/* dialects/func/func.c - the `func` dialect: func.func, func.return, func.call (MLIR's
 * FuncOps.td / FuncOps.cpp and FunctionInterfaces.cpp).  Verifier messages use MLIR's wording so
 * that tests read the same against mlir-opt.
 *
 * The hooks also serve other dialects' function-like triples with the same assembly (the kernel
 * dialect's kernel.func / kernel.return / kernel.launch, dialects/kernel/): they name ops after
 * the op at hand (`'<its name>'` in messages), and a return or call pairs with the `func` op of
 * its own dialect ("kernel.return" -> "kernel.func"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/core_dialects.h"
#include "dialects/dialect_macros.h"
#include "dialects/dialect_util.h"
#include "korch/asm.h"
#include "korch/diag.h"

#define KR_OP KR_OP_DECLARE_HOOKS
#include "ops.def"
#undef KR_OP

#define FUNC_FUNC "func.func"

/* The function type of a func.func, or NULL when the attribute is missing or malformed (the
 * func.func verifier reports that; users of the type just stay quiet). */
static kr_type func_signature(const kr_op *fn) {
  kr_attr a = kr_op_get_attr(fn, "function_type");
  if (!a || a->kind != KR_ATTR_TYPE || !a->type || a->type->kind != KR_TYPE_FUNCTION) return NULL;
  return a->type;
}

/* "<dialect>.func" for an op name "<dialect>.<op>": the function op a return or call of that
 * dialect pairs with (func.call -> func.func, kernel.launch -> kernel.func). */
static void paired_func_name(const char *name, char *buf, size_t cap) {
  const char *dot = strchr(name, '.');
  int n = dot ? (int)(dot - name) : (int)strlen(name);
  snprintf(buf, cap, "%.*s.func", n, name);
}

/* Whether `op` is the function op of `user`'s dialect. */
static bool is_paired_func(const kr_op *op, const kr_op *user) {
  char want[64];
  paired_func_name(user->name, want, sizeof want);
  return op && strcmp(op->name, want) == 0;
}

/* ---------------------------------------------------------------------------------------------
 * func.func */

/* arg_attrs / res_attrs: an array with one dictionary per argument (result).  MLIR's
 * function_interface_impl::verifyTrait wording. */
static kr_status verify_attr_array(kr_op *op, const char *name, const char *what, unsigned expected) {
  kr_attr a = kr_op_get_attr(op, name);
  if (!a) return KR_SUCCESS;
  bool ok = a->kind == KR_ATTR_ARRAY;
  for (unsigned i = 0; ok && i < a->u.array.num; i++) ok = a->u.array.elems[i]->kind == KR_ATTR_DICT;
  if (!ok)
    return kr_op_emit_error(op, "attribute '%s' failed to satisfy constraint: Array of dictionary attributes", name);
  if (a->u.array.num != expected)
    return kr_op_emit_error(op,
                            "expects %s attribute array to have the same number of elements as the number of "
                            "function %ss, got %u, but expected %u",
                            what, what, a->u.array.num, expected);
  return KR_SUCCESS;
}

kr_status kr_func_func_verify(kr_op *op) {
  kr_attr name = kr_op_get_attr(op, "sym_name");
  if (!name) return kr_op_emit_error(op, "requires attribute 'sym_name'");
  if (name->kind != KR_ATTR_STRING)
    return kr_op_emit_error(op, "attribute 'sym_name' failed to satisfy constraint: string attribute");
  kr_attr fta = kr_op_get_attr(op, "function_type");
  if (!fta) return kr_op_emit_error(op, "requires attribute 'function_type'");
  kr_type fty = func_signature(op);
  if (!fty)
    return kr_op_emit_error(op,
                            "attribute 'function_type' failed to satisfy constraint: type attribute of function type");

  /* SymbolOpInterface: the visibility spellings. */
  kr_attr vis = kr_op_get_attr(op, "sym_visibility");
  bool is_public = true;
  if (vis) {
    const char *v = vis->kind == KR_ATTR_STRING ? vis->u.string.str : NULL;
    if (!v || (strcmp(v, "public") && strcmp(v, "private") && strcmp(v, "nested"))) {
      char *s = kr_attr_to_cstr(vis);
      kr_op_emit_error(op, "visibility expected to be one of [\"public\", \"private\", \"nested\"], but got %s", s);
      free(s);
      return KR_FAILURE;
    }
    is_public = strcmp(v, "public") == 0;
  }

  if (verify_attr_array(op, "arg_attrs", "argument", fty->u.func.num_inputs) ||
      verify_attr_array(op, "res_attrs", "result", fty->u.func.num_results))
    return KR_FAILURE;

  kr_region *body = kr_op_region(op, 0);
  if (kr_region_empty(body)) {
    /* An external declaration would be unresolvable from outside if it were public. */
    if (is_public) return kr_op_emit_error(op, "symbol declaration cannot have public visibility");
    return KR_SUCCESS;
  }
  kr_block *entry = body->first;
  if (entry->num_args != fty->u.func.num_inputs)
    return kr_op_emit_error(op, "entry block must have %u arguments to match function signature",
                            fty->u.func.num_inputs);
  for (unsigned i = 0; i < entry->num_args; i++) {
    kr_type have = kr_value_type(entry->args[i]), want = fty->u.func.inputs[i];
    if (have == want) continue;
    char *hs = kr_type_to_cstr(have), *ws = kr_type_to_cstr(want);
    kr_op_emit_error(op,
                     "type of entry block argument #%u('%s') must match the type of the corresponding argument "
                     "in function signature('%s')",
                     i, hs, ws);
    free(hs);
    free(ws);
    return KR_FAILURE;
  }
  return KR_SUCCESS;
}

/* A dictionary attribute after an argument or result type, if one is written. */
static kr_status parse_optional_dict(kr_asm_parser *p, kr_attr *out) {
  *out = NULL;
  if (!kr_parser_peek(p, "{")) return KR_SUCCESS;
  kr_attr a;
  if (kr_parser_parse_attr(p, NULL, &a)) return KR_FAILURE;
  if (a->kind != KR_ATTR_DICT) return kr_parser_error(p, "expected attribute dictionary");
  *out = a->u.dict.num ? a : NULL;
  return KR_SUCCESS;
}

/* `loc(...)` after an argument, through a scratch op state (the parser API reads trailing
 * locations into one). */
static kr_status parse_optional_arg_loc(kr_asm_parser *p, const char *op_name, kr_attr *out) {
  *out = NULL;
  if (!kr_parser_peek_keyword(p, "loc")) return KR_SUCCESS;
  kr_op_state tmp;
  kr_op_state_init(&tmp, kr_parser_context(p), op_name, NULL);
  kr_status s = kr_parser_parse_optional_trailing_loc(p, &tmp);
  *out = tmp.loc;
  kr_op_state_free(&tmp);
  return s;
}

/* An array attribute of per-argument dictionaries, or NULL when all are empty (MLIR omits it). */
static kr_attr dict_array_or_null(kr_context *ctx, const kr_vec *dicts) {
  const kr_attr *d = KR_VEC_DATA(dicts, kr_attr);
  bool any = false;
  for (size_t i = 0; i < dicts->len; i++) any |= d[i] != NULL;
  if (!any) return NULL;
  kr_attr *elems = malloc(sizeof(kr_attr) * dicts->len);
  if (!elems) abort();
  for (size_t i = 0; i < dicts->len; i++) elems[i] = d[i] ? d[i] : kr_attr_dict_empty(ctx);
  kr_attr arr = kr_attr_array(ctx, elems, (unsigned)dicts->len);
  free(elems);
  return arr;
}

/* The attributes the custom form spells outside the dictionary (MLIR rejects them inside it). */
static const char *const func_inferred_attrs[] = {"sym_name", "function_type", "sym_visibility"};
static const char *const func_elided_attrs[] = {"sym_name", "function_type", "sym_visibility", "arg_attrs",
                                                "res_attrs"};

/* func.func (private|public|nested)? @name `(` args `)` (`->` results)? (`attributes` dict)? region?
 * where args are all `%name: type {dict}? loc(...)?` (a definition) or all `type {dict}?`. */
kr_status kr_func_func_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *ctx = kr_parser_context(p);
  kr_status status = KR_FAILURE;
  kr_vec args = {0}, in_types = {0}, in_dicts = {0}, out_types = {0}, out_dicts = {0};

  static const char *const visibilities[] = {"private", "public", "nested"};
  for (unsigned i = 0; i < 3; i++) {
    if (!kr_parser_peek_keyword(p, visibilities[i])) continue;
    const char *kw;
    size_t len;
    if (kr_parser_parse_keyword(p, &kw, &len)) goto out;
    kr_op_state_add_attr(st, "sym_visibility", kr_attr_string(ctx, kw, len));
    break;
  }
  kr_ident name;
  if (kr_parser_parse_symbol_name(p, &name)) goto out;
  kr_op_state_add_attr(st, "sym_name", kr_attr_string(ctx, name, kr_ident_len(name)));

  /* Arguments. */
  bool named = false;
  if (kr_parser_expect(p, "(")) goto out;
  if (!kr_parser_consume(p, ")")) {
    do {
      kr_asm_argument a;
      memset(&a, 0, sizeof a);
      if (kr_parser_peek_operand(p)) {
        if (in_types.len > 0 && !named) {
          kr_parser_error(p, "expected type instead of SSA identifier");
          goto out;
        }
        named = true;
        if (kr_parser_parse_operand(p, &a.ssa) || kr_parser_expect(p, ":")) goto out;
      } else if (named) {
        kr_parser_error(p, "expected SSA identifier");
        goto out;
      }
      kr_attr dict;
      if (kr_parser_parse_type(p, &a.type) || parse_optional_dict(p, &dict)) goto out;
      if (named && parse_optional_arg_loc(p, st->name, &a.loc)) goto out;
      kr_vec_push(&args, &a, sizeof a);
      KR_VEC_PUSH(&in_types, kr_type, a.type);
      KR_VEC_PUSH(&in_dicts, kr_attr, dict);
    } while (kr_parser_consume(p, ","));
    if (kr_parser_expect(p, ")")) goto out;
  }

  /* Results: a single type, or a parenthesised list whose entries may carry dictionaries. */
  if (kr_parser_consume(p, "->")) {
    if (kr_parser_consume(p, "(")) {
      if (!kr_parser_consume(p, ")")) {
        do {
          kr_type t;
          kr_attr dict;
          if (kr_parser_parse_type(p, &t) || parse_optional_dict(p, &dict)) goto out;
          KR_VEC_PUSH(&out_types, kr_type, t);
          KR_VEC_PUSH(&out_dicts, kr_attr, dict);
        } while (kr_parser_consume(p, ","));
        if (kr_parser_expect(p, ")")) goto out;
      }
    } else {
      kr_type t;
      if (kr_parser_parse_type(p, &t)) goto out;
      KR_VEC_PUSH(&out_types, kr_type, t);
      KR_VEC_PUSH(&out_dicts, kr_attr, NULL);
    }
  }

  size_t first_attr = st->attrs.len;
  kr_attr dict_loc = kr_parser_loc(p);
  if (kr_parser_parse_optional_attr_dict(p, st, true)) goto out;
  for (size_t i = first_attr; i < st->attrs.len; i++) {
    const char *an = KR_VEC_AT(&st->attrs, kr_named_attr, i).name;
    for (unsigned j = 0; j < KR_ARRAY_SIZE(func_inferred_attrs); j++) {
      if (strcmp(an, func_inferred_attrs[j]) != 0) continue;
      kr_emit_error(ctx, dict_loc,
                    "custom op '%s' '%s' is an inferred attribute and should not be specified in the "
                    "explicit attribute dictionary",
                    st->name, an);
      goto out;
    }
  }

  kr_type fty = kr_type_function(ctx, KR_VEC_DATA(&in_types, kr_type), (unsigned)in_types.len,
                                 KR_VEC_DATA(&out_types, kr_type), (unsigned)out_types.len);
  kr_op_state_add_attr(st, "function_type", kr_attr_type(ctx, fty));
  kr_attr arg_attrs = dict_array_or_null(ctx, &in_dicts), res_attrs = dict_array_or_null(ctx, &out_dicts);
  if (arg_attrs) kr_op_state_add_attr(st, "arg_attrs", arg_attrs);
  if (res_attrs) kr_op_state_add_attr(st, "res_attrs", res_attrs);

  /* The body; without one the function is an external declaration (empty region). */
  kr_region *body = kr_op_state_add_region(st);
  if (kr_parser_peek(p, "{")) {
    kr_attr body_loc = kr_parser_loc(p);
    if (kr_parser_parse_region(p, body, named ? KR_VEC_DATA(&args, kr_asm_argument) : NULL,
                               named ? (unsigned)args.len : 0))
      goto out;
    if (kr_region_empty(body)) {
      kr_emit_error(ctx, body_loc, "custom op '%s' expected non-empty function body", st->name);
      goto out;
    }
  }
  status = KR_SUCCESS;
out:
  kr_vec_free(&args);
  kr_vec_free(&in_types);
  kr_vec_free(&in_dicts);
  kr_vec_free(&out_types);
  kr_vec_free(&out_dicts);
  return status;
}

static kr_attr dict_at(kr_attr array, unsigned i) {
  if (!array || array->kind != KR_ATTR_ARRAY || i >= array->u.array.num) return NULL;
  kr_attr d = array->u.array.elems[i];
  return d->kind == KR_ATTR_DICT && d->u.dict.num ? d : NULL;
}

void kr_func_func_print(kr_asm_printer *p, kr_op *op) {
  kr_attr vis = kr_op_get_attr(op, "sym_visibility");
  if (vis && vis->kind == KR_ATTR_STRING) kr_printer_printf(p, " %s", vis->u.string.str);
  kr_attr name = kr_op_get_attr(op, "sym_name");
  kr_printer_puts(p, " ");
  if (name && name->kind == KR_ATTR_STRING)
    kr_printer_print_symbol_name(p, name->u.string.str);
  else
    kr_printer_puts(p, "@<<missing sym_name>>");

  kr_type fty = func_signature(op);
  unsigned ni = fty ? fty->u.func.num_inputs : 0, nr = fty ? fty->u.func.num_results : 0;
  kr_region *body = kr_op_region(op, 0);
  kr_block *entry = kr_region_empty(body) ? NULL : body->first;
  kr_attr arg_attrs = kr_op_get_attr(op, "arg_attrs"), res_attrs = kr_op_get_attr(op, "res_attrs");

  /* A definition names its arguments (the entry block's), a declaration lists types. */
  kr_printer_puts(p, "(");
  for (unsigned i = 0; i < ni; i++) {
    if (i) kr_printer_puts(p, ", ");
    kr_value arg = entry && i < entry->num_args ? entry->args[i] : NULL;
    if (arg) {
      kr_printer_print_operand(p, arg);
      kr_printer_puts(p, ": ");
      kr_printer_print_type(p, kr_value_type(arg));
    } else {
      kr_printer_print_type(p, fty->u.func.inputs[i]);
    }
    kr_attr d = dict_at(arg_attrs, i);
    if (d) {
      kr_printer_puts(p, " ");
      kr_printer_print_attr(p, d);
    }
    if (arg && arg->loc) kr_printer_print_optional_loc(p, arg->loc);
  }
  kr_printer_puts(p, ")");

  if (nr) {
    /* MLIR's printFunctionResultList: parenthesised unless one plain type without attributes. */
    bool parens = nr > 1 || fty->u.func.results[0]->kind == KR_TYPE_FUNCTION || dict_at(res_attrs, 0);
    kr_printer_puts(p, parens ? " -> (" : " -> ");
    for (unsigned i = 0; i < nr; i++) {
      if (i) kr_printer_puts(p, ", ");
      kr_printer_print_type(p, fty->u.func.results[i]);
      kr_attr d = dict_at(res_attrs, i);
      if (d) {
        kr_printer_puts(p, " ");
        kr_printer_print_attr(p, d);
      }
    }
    if (parens) kr_printer_puts(p, ")");
  }

  kr_printer_print_optional_attr_dict(p, op, func_elided_attrs, KR_ARRAY_SIZE(func_elided_attrs), true);
  if (entry) {
    kr_printer_puts(p, " ");
    kr_printer_print_region(p, body, false);
  }
}

/* ---------------------------------------------------------------------------------------------
 * func.return */

kr_status kr_func_return_verify(kr_op *op) {
  kr_op *fn = kr_op_parent_op(op);
  char want[64];
  paired_func_name(op->name, want, sizeof want);
  if (!is_paired_func(fn, op)) return kr_op_emit_error(op, "expects parent op '%s'", want);
  kr_type fty = func_signature(fn);
  if (!fty) return KR_SUCCESS; /* the function's own verifier reports it */
  kr_attr name = kr_op_get_attr(fn, "sym_name");
  const char *fname = name && name->kind == KR_ATTR_STRING ? name->u.string.str : "";
  if (op->num_operands != fty->u.func.num_results)
    return kr_op_emit_error(op, "has %u operands, but enclosing function (@%s) returns %u", op->num_operands, fname,
                            fty->u.func.num_results);
  for (unsigned i = 0; i < op->num_operands; i++) {
    kr_type have = kr_value_type(kr_op_operand(op, i)), want = fty->u.func.results[i];
    if (have == want) continue;
    char *hs = kr_type_to_cstr(have), *ws = kr_type_to_cstr(want);
    kr_op_emit_error(op, "type of return operand %u ('%s') doesn't match function result type ('%s') in function @%s",
                     i, hs, ws, fname);
    free(hs);
    free(ws);
    return KR_FAILURE;
  }
  return KR_SUCCESS;
}

/* Operand types, comma separated. */
static void print_operand_types(kr_asm_printer *p, kr_op *op) {
  for (unsigned i = 0; i < op->num_operands; i++) {
    if (i) kr_printer_puts(p, ", ");
    kr_printer_print_type(p, kr_value_type(kr_op_operand(op, i)));
  }
}

/* Resolves operand i to types[i]; the counts must agree (kr_parser_resolve_operands would also
 * accept one type for all operands).  MLIR: "2 operands present, but expected 1" at the first
 * operand, whose location is `ops_loc`. */
static kr_status resolve_exactly(kr_asm_parser *p, const kr_vec *ops, kr_attr ops_loc, const kr_type *types,
                                 unsigned ntypes, const char *op_name, kr_op_state *st) {
  const kr_unresolved_operand *u = KR_VEC_DATA(ops, kr_unresolved_operand);
  if (ops->len != ntypes && ops->len > 0)
    return kr_emit_error(kr_parser_context(p), ops_loc, "custom op '%s' %u operands present, but expected %u",
                         op_name, (unsigned)ops->len, ntypes);
  return kr_parser_resolve_operands(p, u, (unsigned)ops->len, types, ntypes, st);
}

/* `return` attr-dict (%a, %b `:` type, type)? */
kr_status kr_func_return_parse(kr_asm_parser *p, kr_op_state *st) {
  if (kr_parser_parse_optional_attr_dict(p, st, false)) return KR_FAILURE;
  if (!kr_parser_peek_operand(p)) return KR_SUCCESS;
  kr_vec ops = {0}, types = {0};
  kr_status s = KR_FAILURE;
  kr_attr ops_loc = kr_parser_loc(p);
  if (kr_parser_parse_operand_list(p, &ops) || kr_parser_expect(p, ":") || kr_parser_parse_type_list(p, &types))
    goto out;
  s = resolve_exactly(p, &ops, ops_loc, KR_VEC_DATA(&types, kr_type), (unsigned)types.len, st->name, st);
out:
  kr_vec_free(&ops);
  kr_vec_free(&types);
  return s;
}

void kr_func_return_print(kr_asm_printer *p, kr_op *op) {
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
  if (!op->num_operands) return;
  kr_printer_puts(p, " ");
  kr_printer_print_operands(p, op, 0, op->num_operands);
  kr_printer_puts(p, " : ");
  print_operand_types(p, op);
}

/* ---------------------------------------------------------------------------------------------
 * func.call */

/* "'f32', 'i32'" for a diagnostic note. */
static char *quoted_type_list(const kr_type *types, unsigned n) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  for (unsigned i = 0; i < n; i++) {
    char *s = kr_type_to_cstr(types[i]);
    kr_ostream_printf(&os, "%s'%s'", i ? ", " : "", s);
    free(s);
  }
  const char *str = kr_ostream_str(&os);
  char *out = malloc(strlen(str) + 1);
  if (!out) abort();
  strcpy(out, str);
  kr_ostream_close(&os);
  return out;
}

/* MLIR's CallOp::verifySymbolUses wording. */
kr_status kr_func_call_verify(kr_op *op) {
  kr_attr callee = kr_op_get_attr(op, "callee");
  if (!callee) return kr_op_emit_error(op, "requires attribute 'callee'");
  if (callee->kind != KR_ATTR_SYMBOL_REF || callee->u.symref.num_nested != 0)
    return kr_op_emit_error(op, "attribute 'callee' failed to satisfy constraint: flat symbol reference attribute");
  kr_op *fn = kr_symbol_lookup(op, callee);
  if (!is_paired_func(fn, op)) {
    /* MLIR's wording for func.call; other dialects name the op the callee must be. */
    char want[64];
    paired_func_name(op->name, want, sizeof want);
    return kr_op_emit_error(op, "'%s' does not reference a valid %s", callee->u.symref.root,
                            strcmp(want, FUNC_FUNC) ? want : "function");
  }
  kr_type fty = func_signature(fn);
  if (!fty) return KR_SUCCESS; /* reported by the callee's verifier */

  if (op->num_operands != fty->u.func.num_inputs)
    return kr_op_emit_error(op, "incorrect number of operands for callee");
  for (unsigned i = 0; i < op->num_operands; i++) {
    kr_type have = kr_value_type(kr_op_operand(op, i)), want = fty->u.func.inputs[i];
    if (have == want) continue;
    char *hs = kr_type_to_cstr(have), *ws = kr_type_to_cstr(want);
    kr_op_emit_error(op, "operand type mismatch: expected operand type '%s', but provided '%s' for operand number %u",
                     ws, hs, i);
    free(hs);
    free(ws);
    return KR_FAILURE;
  }

  if (op->num_results != fty->u.func.num_results) return kr_op_emit_error(op, "incorrect number of results for callee");
  for (unsigned i = 0; i < op->num_results; i++) {
    if (kr_value_type(kr_op_result(op, i)) == fty->u.func.results[i]) continue;
    kr_diagnostic *d = kr_op_diag_begin(op, KR_SEV_ERROR, "result type mismatch at index %u", i);
    kr_type *have = malloc(sizeof(kr_type) * op->num_results);
    if (!have) abort();
    for (unsigned j = 0; j < op->num_results; j++) have[j] = kr_value_type(kr_op_result(op, j));
    char *hs = quoted_type_list(have, op->num_results);
    char *ws = quoted_type_list(fty->u.func.results, fty->u.func.num_results);
    kr_diag_note(d, op->loc, "      op result types: %s", hs);
    kr_diag_note(d, op->loc, "function result types: %s", ws);
    kr_diag_report(d);
    free(have);
    free(hs);
    free(ws);
    return KR_FAILURE;
  }
  return KR_SUCCESS;
}

/* `call` @callee `(` operands `)` attr-dict `:` function-type */
kr_status kr_func_call_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *ctx = kr_parser_context(p);
  kr_ident callee;
  if (kr_parser_parse_symbol_name(p, &callee)) return KR_FAILURE;
  kr_op_state_add_attr(st, "callee", kr_attr_symbol_ref(ctx, callee, NULL, 0));
  kr_vec ops = {0};
  kr_status s = KR_FAILURE;
  kr_type fty;
  if (kr_parser_expect(p, "(")) goto out;
  kr_attr ops_loc = kr_parser_loc(p);
  if (kr_parser_parse_operand_list(p, &ops) || kr_parser_expect(p, ")") ||
      kr_parser_parse_optional_attr_dict(p, st, false) || kr_parser_expect(p, ":"))
    goto out;
  kr_attr type_loc = kr_parser_loc(p);
  if (kr_parser_parse_type(p, &fty)) goto out;
  if (fty->kind != KR_TYPE_FUNCTION) {
    kr_emit_error(ctx, type_loc, "custom op '%s' expected function type", st->name);
    goto out;
  }
  if (resolve_exactly(p, &ops, ops_loc, fty->u.func.inputs, fty->u.func.num_inputs, st->name, st)) goto out;
  kr_op_state_add_results(st, fty->u.func.results, fty->u.func.num_results);
  s = KR_SUCCESS;
out:
  kr_vec_free(&ops);
  return s;
}

void kr_func_call_print(kr_asm_printer *p, kr_op *op) {
  kr_attr callee = kr_op_get_attr(op, "callee");
  static const char *const elided[] = {"callee"};
  kr_printer_puts(p, " ");
  if (callee && callee->kind == KR_ATTR_SYMBOL_REF)
    kr_printer_print_attr(p, callee);
  else
    kr_printer_puts(p, "@<<missing callee>>");
  kr_printer_puts(p, "(");
  kr_printer_print_operands(p, op, 0, op->num_operands);
  kr_printer_puts(p, ")");
  kr_printer_print_optional_attr_dict(p, op, elided, callee && callee->kind == KR_ATTR_SYMBOL_REF ? 1 : 0, false);
  kr_printer_puts(p, " : (");
  print_operand_types(p, op);
  kr_printer_puts(p, ") -> ");
  kr_type *res = malloc(sizeof(kr_type) * (op->num_results ? op->num_results : 1));
  if (!res) abort();
  for (unsigned i = 0; i < op->num_results; i++) res[i] = kr_value_type(kr_op_result(op, i));
  /* `-> ()` for none, `-> t` for one non-function type, else parenthesised (MLIR's FunctionType). */
  if (op->num_results == 1 && res[0]->kind != KR_TYPE_FUNCTION)
    kr_printer_print_type(p, res[0]);
  else
    kr_printer_print_type_list(p, res, op->num_results, true);
  free(res);
}

static const kr_op_def func_ops[] = {
#define KR_OP KR_OP_TABLE_ROW
#include "ops.def"
#undef KR_OP
};

const kr_dialect_def kr_func_dialect = {
    .name = "func",
    .summary = "functions, calls and returns",
    .ops = func_ops,
    .num_ops = KR_ARRAY_SIZE(func_ops),
};
