/* examples/dialect-plugin/toy_dialect.c - an out-of-tree dialect for korch, loaded at run time:
 *
 *   korch-opt --load-dialect-plugin=./korch_example_plugin.so input.kir
 *
 * It registers the `toy` dialect (three ops) and one pass, using only korch's public headers.
 * The shared object does not link libkorch: the kr_* functions it calls are resolved from the
 * host tool when it is loaded (korch-opt exports the whole library), so the plugin and the tool
 * share one copy of the code and of the context's registries.
 *
 * The table below is what korch's own dialects generate from their ops.def X-macro files (see
 * docs/WritingADialect.md); an out-of-tree dialect may just as well write the rows directly.
 *
 *   %c = toy.constant 3 : i32            a constant (any integer or float attribute)
 *   %s = toy.add %a, %b : i32            addition, folded when both operands are constants
 *   toy.print %s : i32                   prints a value (a side effect: never removed)
 *
 * and the pass `toy-strip-prints`, which erases every toy.print. */
#include <string.h>

#include <korch/korch.h>

/* ---------------------------------------------------------------------------------------------
 * toy.constant */

static kr_status constant_verify(kr_op *op) {
  kr_attr v = kr_op_get_attr(op, "value");
  if (!v || (v->kind != KR_ATTR_INTEGER && v->kind != KR_ATTR_FLOAT))
    return kr_op_emit_error(op, "requires an integer or float attribute 'value'");
  if (v->type != kr_value_type(kr_op_result(op, 0))) return kr_op_emit_error(op, "'value' must have the result type");
  return KR_SUCCESS;
}

static kr_status constant_fold(kr_op *op, const kr_attr *operands, kr_fold_result *results) {
  (void)operands;
  results[0].attr = kr_op_get_attr(op, "value");
  results[0].value = NULL;
  return KR_SUCCESS;
}

/* `toy.constant attr-dict? 3 : i32`: the attribute carries the result type. */
static kr_status constant_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_attr v;
  if (kr_parser_parse_optional_attr_dict(p, st, false) || kr_parser_parse_attr(p, NULL, &v)) return KR_FAILURE;
  if (v->kind != KR_ATTR_INTEGER && v->kind != KR_ATTR_FLOAT)
    return kr_parser_error(p, "expected an integer or float constant");
  kr_op_state_add_attr(st, "value", v);
  kr_op_state_add_results(st, &v->type, 1);
  return KR_SUCCESS;
}

static void constant_print(kr_asm_printer *p, kr_op *op) {
  static const char *const elided[] = {"value"};
  kr_printer_print_optional_attr_dict(p, op, elided, 1, false);
  kr_printer_puts(p, " ");
  kr_printer_print_attr(p, kr_op_get_attr(op, "value"));
}

/* ---------------------------------------------------------------------------------------------
 * toy.add: integers wrap at their width (kr_attr_integer truncates), floats round to their type
 * (kr_attr_float rounds). */

static kr_status add_verify(kr_op *op) {
  kr_type t = kr_value_type(kr_op_result(op, 0));
  if (t->kind != KR_TYPE_INTEGER && t->kind != KR_TYPE_FLOAT)
    return kr_op_emit_error(op, "expects an integer or float type");
  return KR_SUCCESS;
}

static kr_status add_fold(kr_op *op, const kr_attr *operands, kr_fold_result *results) {
  kr_context *ctx = kr_op_context(op);
  kr_type t = kr_value_type(kr_op_result(op, 0));
  /* Only constants of the operands' type count (another dialect's constant may hold anything). */
  kr_attr a = operands[0] && operands[0]->type == t ? operands[0] : NULL;
  kr_attr b = operands[1] && operands[1]->type == t ? operands[1] : NULL;
  results[0].attr = NULL;
  results[0].value = NULL;
  if (a && b && a->kind == KR_ATTR_INTEGER && b->kind == KR_ATTR_INTEGER) {
    results[0].attr = kr_attr_integer(ctx, t, (int64_t)((uint64_t)a->u.i + (uint64_t)b->u.i));
    return KR_SUCCESS;
  }
  if (a && b && a->kind == KR_ATTR_FLOAT && b->kind == KR_ATTR_FLOAT) {
    results[0].attr = kr_attr_float(ctx, t, a->u.f + b->u.f);
    return KR_SUCCESS;
  }
  /* x + 0 = x for integers (not for floats: -0.0 + 0.0 is +0.0). */
  if (b && b->kind == KR_ATTR_INTEGER && b->u.i == 0) {
    results[0].value = kr_op_operand(op, 0);
    return KR_SUCCESS;
  }
  return KR_FAILURE;
}

/* (x + c1) + c2 -> x + (c1 + c2): the two constants fold into one.  korch's greedy driver has
 * already moved constants to the right (toy.add is commutative), so only that shape is matched.
 * The sum is built with add_fold, the op's own folder, so wrap-around and rounding agree. */
static kr_status add_reassociate(kr_rewriter *rw, kr_op *op) {
  kr_op *inner = kr_value_defining_op(kr_op_operand(op, 0));
  kr_op *c2 = kr_value_defining_op(kr_op_operand(op, 1));
  if (!inner || inner->name != op->name || !c2 || !kr_op_constant_value(c2)) return KR_FAILURE;
  kr_op *c1 = kr_value_defining_op(kr_op_operand(inner, 1));
  if (!c1 || !kr_op_constant_value(c1)) return KR_FAILURE;
  kr_attr consts[2] = {kr_op_constant_value(c1), kr_op_constant_value(c2)};
  kr_fold_result sum;
  if (add_fold(op, consts, &sum) || !sum.attr) return KR_FAILURE;

  kr_type t = kr_value_type(kr_op_result(op, 0));
  kr_rewriter_set_insertion_point_before(rw, op);
  kr_op_state st;
  kr_op_state_init(&st, kr_op_context(op), "toy.constant", op->loc);
  kr_op_state_add_attr(&st, "value", sum.attr);
  kr_op_state_add_results(&st, &t, 1);
  kr_op *c = kr_rewriter_create(rw, &st);
  kr_op_state_free(&st);
  if (!c) return KR_FAILURE;
  kr_op_state_init(&st, kr_op_context(op), "toy.add", op->loc);
  kr_value operands[2] = {kr_op_operand(inner, 0), kr_op_result(c, 0)};
  kr_op_state_add_operands(&st, operands, 2);
  kr_op_state_add_results(&st, &t, 1);
  kr_op *add = kr_rewriter_create(rw, &st);
  kr_op_state_free(&st);
  if (!add) return KR_FAILURE;
  kr_value r = kr_op_result(add, 0);
  kr_rewriter_replace_op(rw, op, &r);
  return KR_SUCCESS;
}

static const kr_pattern add_patterns[] = {
    {"toy-add-reassociate-constants", "toy.add", 1, add_reassociate},
};

/* Binary and print ops share the custom form `%a, %b attr-dict? : type`. */
static kr_status operands_colon_type_parse(kr_asm_parser *p, kr_op_state *st, bool has_result) {
  kr_vec ops = {0};
  kr_type t;
  kr_status s = KR_FAILURE;
  if (kr_parser_parse_operand_list(p, &ops) || kr_parser_parse_optional_attr_dict(p, st, false) ||
      kr_parser_expect(p, ":") || kr_parser_parse_type(p, &t))
    goto out;
  for (size_t i = 0; i < ops.len; i++) {
    kr_value v;
    if (kr_parser_resolve_operand(p, &KR_VEC_AT(&ops, kr_unresolved_operand, i), t, &v)) goto out;
    kr_op_state_add_operands(st, &v, 1);
  }
  if (has_result) kr_op_state_add_results(st, &t, 1);
  s = KR_SUCCESS;
out:
  kr_vec_free(&ops);
  return s;
}

static void operands_colon_type_print(kr_asm_printer *p, kr_op *op) {
  kr_printer_puts(p, " ");
  kr_printer_print_operands(p, op, 0, op->num_operands);
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
  kr_printer_puts(p, " : ");
  kr_printer_print_type(p, kr_value_type(kr_op_operand(op, 0)));
}

static kr_status add_parse(kr_asm_parser *p, kr_op_state *st) { return operands_colon_type_parse(p, st, true); }
static kr_status print_parse(kr_asm_parser *p, kr_op_state *st) { return operands_colon_type_parse(p, st, false); }

/* ---------------------------------------------------------------------------------------------
 * The dialect. */

static const kr_op_def toy_ops[] = {
    {
        .name = "toy.constant",
        .traits = KR_TRAIT_PURE | KR_TRAIT_CONSTANT_LIKE,
        .num_operands = 0,
        .num_results = 1,
        .num_regions = 0,
        .summary = "an integer or float constant",
        .verify = constant_verify,
        .fold = constant_fold,
        .parse = constant_parse,
        .print = constant_print,
    },
    {
        .name = "toy.add",
        .traits = KR_TRAIT_PURE | KR_TRAIT_COMMUTATIVE | KR_TRAIT_SAME_OPERANDS_AND_RESULT_TYPE,
        .num_operands = 2,
        .num_results = 1,
        .num_regions = 0,
        .summary = "adds two integers or floats",
        .verify = add_verify,
        .fold = add_fold,
        .patterns = add_patterns,
        .num_patterns = sizeof add_patterns / sizeof add_patterns[0],
        .parse = add_parse,
        .print = operands_colon_type_print,
    },
    {
        .name = "toy.print",
        .traits = 0,
        .num_operands = 1,
        .num_results = 0,
        .num_regions = 0,
        .summary = "prints a value",
        .parse = print_parse,
        .print = operands_colon_type_print,
    },
};

/* Folded values become toy.constant ops (integers and floats only). */
static kr_op *toy_materialize_constant(kr_builder *b, kr_attr value, kr_type type, kr_attr loc) {
  if ((value->kind != KR_ATTR_INTEGER && value->kind != KR_ATTR_FLOAT) || value->type != type) return NULL;
  kr_op_state st;
  kr_op_state_init(&st, b->ctx, "toy.constant", loc);
  kr_op_state_add_attr(&st, "value", value);
  kr_op_state_add_results(&st, &type, 1);
  kr_op *c = kr_builder_create(b, &st);
  kr_op_state_free(&st);
  return c;
}

static const kr_dialect_def toy_dialect = {
    .name = "toy",
    .summary = "an example dialect loaded from a plugin",
    .ops = toy_ops,
    .num_ops = sizeof toy_ops / sizeof toy_ops[0],
    .materialize_constant = toy_materialize_constant,
};

/* ---------------------------------------------------------------------------------------------
 * The pass `toy-strip-prints`. */

static kr_walk_result strip_print(kr_op *op, void *user) {
  bool *changed = user;
  if (strcmp(op->name, "toy.print") == 0) {
    kr_op_erase(op); /* post-order walks allow erasing the visited op */
    *changed = true;
  }
  return KR_WALK_ADVANCE;
}

static kr_status strip_prints_run(kr_op *op, const void *options, kr_pass_run *run) {
  (void)options;
  bool changed = false;
  kr_op_walk(op, KR_WALK_POST_ORDER, strip_print, &changed);
  if (!changed) kr_pass_run_mark_unchanged(run);
  return KR_SUCCESS;
}

static const kr_pass_def strip_prints_pass = {
    .argument = "toy-strip-prints",
    .summary = "Erase every toy.print op",
    .run = strip_prints_run,
};

/* The entry point korch-opt looks up (KR_PLUGIN_INIT_SYMBOL). */
kr_status korch_plugin_init(kr_context *ctx) {
  if (kr_context_register_dialect(ctx, &toy_dialect)) return KR_FAILURE;
  /* Loading the plugin twice is harmless: the dialect registration is idempotent, the pass's not. */
  if (kr_context_lookup_pass(ctx, strip_prints_pass.argument, strlen(strip_prints_pass.argument))) return KR_SUCCESS;
  return kr_context_register_pass(ctx, &strip_prints_pass);
}
