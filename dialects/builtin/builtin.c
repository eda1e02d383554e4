/* dialects/builtin/builtin.c - the `builtin` dialect: builtin.module (MLIR's BuiltinOps.td,
 * ModuleOp).  The printer drops the `builtin.` prefix, so the module reads `module { ... }`. */
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

/* MLIR: "'builtin.module' op can only contain attributes with dialect-prefixed names, found:
 * 'foo'" (ModuleOp::verify); sym_name must be a string. */
kr_status kr_builtin_module_verify(kr_op *op) {
  const kr_attr dict = op->attrs;
  for (unsigned i = 0; i < dict->u.dict.num; i++) {
    const kr_named_attr *e = &dict->u.dict.entries[i];
    if (strcmp(e->name, "sym_name") == 0) {
      if (e->value->kind != KR_ATTR_STRING)
        return kr_op_emit_error(op, "attribute 'sym_name' failed to satisfy constraint: string attribute");
      continue;
    }
    if (strcmp(e->name, "sym_visibility") == 0) continue;
    if (!kr_attr_name_has_dialect_prefix(e->name))
      return kr_op_emit_error(op, "can only contain attributes with dialect-prefixed names, found: '%s'", e->name);
  }
  return KR_SUCCESS;
}

/* `module` @name? (`attributes` {dict})? region; the region always gets its one block, even when
 * written `{}`, as MLIR's ModuleOp::parse does through ensureTerminator/SingleBlock. */
kr_status kr_builtin_module_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *ctx = kr_parser_context(p);
  if (kr_parser_peek(p, "@")) {
    kr_ident name;
    if (kr_parser_parse_symbol_name(p, &name)) return KR_FAILURE;
    kr_op_state_add_attr(st, "sym_name", kr_attr_string(ctx, name, kr_ident_len(name)));
  }
  if (kr_parser_parse_optional_attr_dict(p, st, true)) return KR_FAILURE;
  kr_region *body = kr_op_state_add_region(st);
  if (kr_parser_parse_region(p, body, NULL, 0)) return KR_FAILURE;
  if (kr_region_empty(body)) kr_region_append_block(body, kr_block_create(ctx));
  return KR_SUCCESS;
}

void kr_builtin_module_print(kr_asm_printer *p, kr_op *op) {
  kr_attr name = kr_op_get_attr(op, "sym_name");
  static const char *const elided[] = {"sym_name"};
  unsigned num_elided = 0;
  if (name && name->kind == KR_ATTR_STRING) {
    kr_printer_puts(p, " ");
    kr_printer_print_symbol_name(p, name->u.string.str);
    num_elided = 1;
  }
  kr_printer_print_optional_attr_dict(p, op, elided, num_elided, true);
  kr_printer_puts(p, " ");
  kr_printer_print_region(p, kr_op_region(op, 0), false);
}

static const kr_op_def builtin_ops[] = {
#define KR_OP KR_OP_TABLE_ROW
#include "ops.def"
#undef KR_OP
};

const kr_dialect_def kr_builtin_dialect = {
    .name = "builtin",
    .summary = "the module op that holds every program",
    .ops = builtin_ops,
    .num_ops = KR_ARRAY_SIZE(builtin_ops),
};
