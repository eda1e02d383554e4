/* dialects/kernel/kernel.c - the `kernel` dialect (korch/kernel.h, docs/Dialects/kernel.md):
 * the kernel level that kernel orchestration (Korch, ASPLOS'24, §4-5) produces.
 *
 * kernel.func, kernel.return and kernel.launch share func.func / func.return / func.call's
 * custom assembly and verifiers (dialects/func/func.c, which pair a return or call with the
 * `func` op of the op's own dialect); this file adds what is particular to kernels: a body is
 * required and holds primitives only, the korch.* attributes are well formed, and launches come
 * from host functions. */
#include <stdint.h>
#include <string.h>

#include "dialects/core_dialects.h"
#include "dialects/dialect_macros.h"
#include "korch/diag.h"
#include "korch/kernel.h"
#include "korch/prim.h"

kr_type kr_kernel_parse_type(kr_asm_parser *p, kr_context *ctx);
void kr_kernel_print_type(kr_asm_printer *p, kr_type t);
kr_attr kr_kernel_parse_attr(kr_asm_parser *p, kr_context *ctx);
void kr_kernel_print_attr(kr_asm_printer *p, kr_attr a);

#define KR_OP KR_OP_DECLARE_HOOKS
#include "dialects/func/ops.def" /* the func hooks this dialect reuses */
#include "ops.def"
#undef KR_OP

/* The registered dialect name of `op`, or NULL for an unregistered op. */
static const char *dialect_of(const kr_op *op) {
  return op->def && op->def->dialect ? op->def->dialect->def->name : NULL;
}

/* ---------------------------------------------------------------------------------------------
 * kernel.func */

/* Whether `op` may sit directly in a kernel.func body: primitives (KR_PRIM_* classes, including
 * prim.constant), any constant-like op, and the kernel (kernel.func aside: kernels do not nest)
 * and arith dialects (for the scheduling level's ops). */
static bool allowed_in_body(const kr_op *op) {
  if (kr_prim_op_class(op) != KR_PRIM_NOT_PRIM) return true;
  if (kr_op_has_trait(op, KR_TRAIT_CONSTANT_LIKE)) return true;
  const char *d = dialect_of(op);
  if (!d) return false;
  if (!strcmp(d, "kernel")) return strcmp(op->name, KR_KERNEL_FUNC_OP) != 0;
  return !strcmp(d, "arith");
}

/* The optional korch.* attributes of korch/kernel.h. */
static kr_status verify_korch_attrs(kr_op *op) {
  kr_attr kind = kr_op_get_attr(op, KR_KERNEL_ATTR_KIND);
  if (kind) {
    const char *k = kind->kind == KR_ATTR_STRING ? kind->u.string.str : NULL;
    if (!k || (strcmp(k, KR_KERNEL_KIND_INJECTIVE) && strcmp(k, KR_KERNEL_KIND_REDUCTION) &&
               strcmp(k, KR_KERNEL_KIND_LINEAR)))
      return kr_op_emit_error(op, "attribute '" KR_KERNEL_ATTR_KIND "' must be one of \"" KR_KERNEL_KIND_INJECTIVE
                                  "\", \"" KR_KERNEL_KIND_REDUCTION "\", \"" KR_KERNEL_KIND_LINEAR "\"");
  }
  kr_attr hash = kr_op_get_attr(op, KR_KERNEL_ATTR_HASH);
  if (hash) {
    bool ok = hash->kind == KR_ATTR_STRING && kr_ident_len(hash->u.string.str) == 16;
    for (unsigned i = 0; ok && i < 16; i++) ok = strchr("0123456789abcdef", hash->u.string.str[i]) != NULL;
    if (!ok)
      return kr_op_emit_error(op, "attribute '" KR_KERNEL_ATTR_HASH "' must be a string of 16 lower-case hex digits");
  }
  kr_attr cost = kr_op_get_attr(op, KR_KERNEL_ATTR_COST_US);
  if (cost && (cost->kind != KR_ATTR_FLOAT || !(cost->u.f >= 0)))
    return kr_op_emit_error(op, "attribute '" KR_KERNEL_ATTR_COST_US "' must be a non-negative float attribute");
  kr_attr rec = kr_op_get_attr(op, KR_KERNEL_ATTR_RECOMPUTED);
  if (rec) {
    bool ok = rec->kind == KR_ATTR_DENSE_ARRAY && rec->type && rec->type->kind == KR_TYPE_INTEGER &&
              rec->type->u.integer.width == 64;
    for (unsigned i = 0; ok && i < rec->u.dense_array.num; i++) {
      int64_t v;
      memcpy(&v, (const char *)rec->u.dense_array.data + 8 * (size_t)i, sizeof v);
      ok = v >= 0;
    }
    if (!ok)
      return kr_op_emit_error(op, "attribute '" KR_KERNEL_ATTR_RECOMPUTED
                                  "' must be an array<i64> of non-negative primitive indices");
  }
  return KR_SUCCESS;
}

kr_status kr_kernel_func_verify(kr_op *op) {
  /* Before func.func's checks, whose message for a missing body is about public declarations. */
  if (kr_region_empty(kr_op_region(op, 0)))
    return kr_op_emit_error(op, "requires a body: a kernel cannot be an external declaration");
  if (kr_func_func_verify(op) || verify_korch_attrs(op)) return KR_FAILURE;
  kr_ident name = kr_op_symbol_name(op);
  for (kr_block *b = kr_op_region(op, 0)->first; b; b = b->next)
    for (kr_op *o = b->first; o; o = o->next)
      if (!allowed_in_body(o))
        return kr_op_emit_error(o,
                                "is not allowed in the body of '" KR_KERNEL_FUNC_OP "' @%s: a kernel holds "
                                "primitives (prim dialect), constant-like ops and ops of the kernel and arith "
                                "dialects",
                                name ? name : "?");
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * kernel.launch */

kr_status kr_kernel_launch_verify(kr_op *op) {
  kr_op *parent = kr_op_parent_op(op);
  if (!parent || strcmp(parent->name, "func.func") != 0)
    return kr_op_emit_error(op,
                            "expects parent op 'func.func': kernels are launched from host functions, not from %s%s%s",
                            parent ? "'" : "", parent ? parent->name : "the top level", parent ? "'" : "");
  return kr_func_call_verify(op);
}

bool kr_kernel_is_scheduled(kr_op *func) { return kr_op_get_attr(func, KR_KERNEL_ATTR_BLOCK) != NULL; }

static const kr_op_def kernel_ops[] = {
#define KR_OP KR_OP_TABLE_ROW
#include "ops.def"
#undef KR_OP
};

static const kr_dialect_def kernel_dialect = {
    .name = "kernel",
    .summary = "kernel level: kernels of primitives and their launches (Korch's orchestration output)",
    .ops = kernel_ops,
    .num_ops = KR_ARRAY_SIZE(kernel_ops),
    .parse_type = kr_kernel_parse_type,  /* !kernel.buffer (simt_asm.c) */
    .print_type = kr_kernel_print_type,
    .parse_attr = kr_kernel_parse_attr,  /* #kernel.task (task_mapping_asm.c) */
    .print_attr = kr_kernel_print_attr,
};

kr_status kr_register_kernel_dialect(kr_context *ctx) { return kr_context_register_dialect(ctx, &kernel_dialect); }
