/* dialects/kernel/kernel.c - the `kernel` dialect (korch/kernel.h, docs/Dialects/kernel.md):
 * the kernel level that kernel orchestration (Korch, ASPLOS'24, §4-5) produces.
 *
 * kernel.func, kernel.return and kernel.launch share func.func / func.return / func.call's
 * custom assembly and verifiers (dialects/func/func.c, which pair a return or call with the
 * `func` op of the op's own dialect); this file adds what is particular to kernels: a body is
 * required and holds primitives only, the korch.* attributes are well formed, and launches come
 * from host functions. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/core_dialects.h"
#include "dialects/dialect_macros.h"
#include "korch/asm.h"
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

/* ---------------------------------------------------------------------------------------------
 * Scheduled kernel.func (korch/kernel.h "Scheduling level") */

/* An array<i64> of three entries each >= 1 (x, y, z of a CUDA launch); copied to v. */
static bool launch_dims(kr_attr a, int64_t v[3]) {
  if (!a || a->kind != KR_ATTR_DENSE_ARRAY || !a->type || !kr_type_is_integer(a->type, 64) || a->u.dense_array.num != 3)
    return false;
  memcpy(v, a->u.dense_array.data, 3 * sizeof(int64_t));
  return v[0] >= 1 && v[1] >= 1 && v[2] >= 1;
}

typedef struct shared_bytes {
  int64_t total;
  bool overflow;
} shared_bytes;

/* Adds the bytes of each shared kernel.alloc (its storage span times the element's storage
 * size; i1 takes a byte): the block's shared memory, as the PTX .shared declarations need. */
static kr_walk_result add_shared_alloc(kr_op *op, void *user) {
  shared_bytes *sb = user;
  kr_kernel_buffer b;
  if (strcmp(op->name, KR_KERNEL_ALLOC_OP) || op->num_results != 1 ||
      !kr_kernel_buffer_info(kr_value_type(kr_op_result(op, 0)), &b) || b.space != KR_KERNEL_SPACE_SHARED)
    return KR_WALK_ADVANCE;
  int64_t bytes = (int64_t)kr_type_storage_bytes(b.elem);
  if (b.span > (INT64_MAX - sb->total) / (bytes ? bytes : 1))
    sb->overflow = true;
  else
    sb->total += b.span * bytes;
  return KR_WALK_ADVANCE;
}

/* The scheduled form: global !kernel.buffer arguments (destination-passing style), no results,
 * the launch configuration korch.grid / korch.block (CUDA: at most 1024 threads per block),
 * korch.template, and shared memory within the static 48 KiB or declared dynamic. */
static kr_status verify_scheduled(kr_op *op) {
  kr_attr ft = kr_op_get_attr(op, "function_type");
  kr_type fty = ft && ft->kind == KR_ATTR_TYPE ? ft->type : NULL;
  if (!fty || fty->kind != KR_TYPE_FUNCTION) return KR_SUCCESS; /* func.func's verifier reported it */
  for (unsigned i = 0; i < fty->u.func.num_inputs; i++) {
    kr_kernel_buffer b;
    kr_type t = fty->u.func.inputs[i];
    bool global = kr_kernel_buffer_info(t, &b) && b.space == KR_KERNEL_SPACE_GLOBAL;
    /* The launch binds a dense row-major tensor: other strides would silently permute it. */
    if (global && t == kr_kernel_buffer_type(kr_op_context(op), b.space, b.rank, b.dims, NULL, b.elem)) continue;
    char *s = kr_type_to_cstr(t);
    kr_op_emit_error(op, "scheduled kernel: argument #%u must be a row-major global !kernel.buffer, but got '%s'", i,
                     s);
    free(s);
    return KR_FAILURE;
  }
  if (fty->u.func.num_results)
    return kr_op_emit_error(op,
                            "scheduled kernel: expects no results (outputs are written to the buffer arguments "
                            "after the inputs), but got %u",
                            fty->u.func.num_results);
  int64_t grid[3], block[3];
  if (!launch_dims(kr_op_get_attr(op, KR_KERNEL_ATTR_GRID), grid))
    return kr_op_emit_error(op, "scheduled kernel: attribute '" KR_KERNEL_ATTR_GRID
                                "' must be an array<i64> of 3 positive entries (x, y, z)");
  if (!launch_dims(kr_op_get_attr(op, KR_KERNEL_ATTR_BLOCK), block))
    return kr_op_emit_error(op, "scheduled kernel: attribute '" KR_KERNEL_ATTR_BLOCK
                                "' must be an array<i64> of 3 positive entries (x, y, z)");
  if (grid[0] > 2147483647LL || grid[1] > 65535 || grid[2] > 65535)
    return kr_op_emit_error(op,
                            "scheduled kernel: '" KR_KERNEL_ATTR_GRID "' is %lld x %lld x %lld, over CUDA's limits "
                            "2^31 - 1 x 65535 x 65535",
                            (long long)grid[0], (long long)grid[1], (long long)grid[2]);
  if (block[0] > 1024 || block[1] > 1024 || block[2] > 1024 || block[0] * block[1] * block[2] > 1024)
    return kr_op_emit_error(op,
                            "scheduled kernel: a block has at most 1024 threads, but '" KR_KERNEL_ATTR_BLOCK
                            "' asks for %lld x %lld x %lld",
                            (long long)block[0], (long long)block[1], (long long)block[2]);
  kr_attr tmpl = kr_op_get_attr(op, KR_KERNEL_ATTR_TEMPLATE);
  if (!tmpl || tmpl->kind != KR_ATTR_STRING || !kr_ident_len(tmpl->u.string.str))
    return kr_op_emit_error(op,
                            "scheduled kernel: requires a non-empty string attribute '" KR_KERNEL_ATTR_TEMPLATE "'");
  kr_attr sched = kr_op_get_attr(op, KR_KERNEL_ATTR_SCHEDULE);
  if (sched && sched->kind != KR_ATTR_STRING)
    return kr_op_emit_error(op, "scheduled kernel: attribute '" KR_KERNEL_ATTR_SCHEDULE "' must be a string");

  shared_bytes sb = {0, false};
  kr_op_walk(op, KR_WALK_PRE_ORDER, add_shared_alloc, &sb);
  kr_attr dyn = kr_op_get_attr(op, KR_KERNEL_ATTR_DYNAMIC_SMEM);
  if (dyn && (dyn->kind != KR_ATTR_INTEGER || !kr_type_is_integer(dyn->type, 64) || dyn->u.i < 0))
    return kr_op_emit_error(op, "scheduled kernel: attribute '" KR_KERNEL_ATTR_DYNAMIC_SMEM
                                "' must be a non-negative 64-bit integer (bytes)");
  if (sb.overflow) return kr_op_emit_error(op, "scheduled kernel: the shared buffers' total size overflows");
  if (dyn && dyn->u.i < sb.total)
    return kr_op_emit_error(op,
                            "scheduled kernel: '" KR_KERNEL_ATTR_DYNAMIC_SMEM "' (%lld) is smaller than the %lld "
                            "bytes of the kernel's shared buffers",
                            (long long)dyn->u.i, (long long)sb.total);
  if (!dyn && sb.total > KR_KERNEL_STATIC_SMEM_LIMIT)
    return kr_op_emit_error(op,
                            "scheduled kernel: its shared buffers take %lld bytes, more than the %d bytes of "
                            "static shared memory; set '" KR_KERNEL_ATTR_DYNAMIC_SMEM "' to use dynamic shared memory",
                            (long long)sb.total, KR_KERNEL_STATIC_SMEM_LIMIT);
  return KR_SUCCESS;
}

kr_status kr_kernel_func_verify(kr_op *op) {
  /* Before func.func's checks, whose message for a missing body is about public declarations. */
  if (kr_region_empty(kr_op_region(op, 0)))
    return kr_op_emit_error(op, "requires a body: a kernel cannot be an external declaration");
  if (kr_func_func_verify(op) || verify_korch_attrs(op)) return KR_FAILURE;
  if (kr_kernel_is_scheduled(op)) {
    if (verify_scheduled(op)) return KR_FAILURE;
  } else {
    static const char *const launch_attrs[] = {KR_KERNEL_ATTR_GRID, KR_KERNEL_ATTR_TEMPLATE,
                                               KR_KERNEL_ATTR_DYNAMIC_SMEM};
    for (unsigned i = 0; i < KR_ARRAY_SIZE(launch_attrs); i++)
      if (kr_op_get_attr(op, launch_attrs[i]))
        return kr_op_emit_error(
            op, "attribute '%s' belongs to a scheduled kernel, which also has '" KR_KERNEL_ATTR_BLOCK "'",
            launch_attrs[i]);
  }
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

/* Whether global buffer type `bt` holds tensor type `tt`: same element type and dims (a
 * global buffer is the tensor's dense row-major storage). */
static bool buffer_holds(kr_type bt, kr_type tt) {
  kr_kernel_buffer b;
  if (!kr_kernel_buffer_info(bt, &b) || !tt || tt->kind != KR_TYPE_TENSOR || tt->u.shaped.unranked ||
      tt->u.shaped.elem != b.elem || tt->u.shaped.rank != b.rank)
    return false;
  for (unsigned i = 0; i < b.rank; i++)
    if (tt->u.shaped.dims[i] != b.dims[i]) return false;
  return true;
}

/* A launch of a scheduled kernel keeps its tensor operands and results; the callee takes one
 * buffer per operand, then one per result (destination-passing style), each holding it. */
static kr_status verify_scheduled_launch(kr_op *op, kr_op *fn) {
  kr_attr ft = kr_op_get_attr(fn, "function_type");
  kr_type fty = ft && ft->kind == KR_ATTR_TYPE ? ft->type : NULL;
  if (!fty || fty->kind != KR_TYPE_FUNCTION) return KR_SUCCESS; /* the callee's verifier reports it */
  unsigned n = op->num_operands + op->num_results;
  if (fty->u.func.num_inputs != n)
    return kr_op_emit_error(op, "the scheduled kernel takes %u buffers, but the launch has %u operands and %u results",
                            fty->u.func.num_inputs, op->num_operands, op->num_results);
  for (unsigned i = 0; i < n; i++) {
    bool is_op = i < op->num_operands;
    kr_type tt = kr_value_type(is_op ? kr_op_operand(op, i) : kr_op_result(op, i - op->num_operands));
    if (buffer_holds(fty->u.func.inputs[i], tt)) continue;
    char *bs = kr_type_to_cstr(fty->u.func.inputs[i]), *ts = kr_type_to_cstr(tt);
    kr_op_emit_error(op,
                     "%s #%u of type '%s' does not match the scheduled kernel's argument #%u '%s' (same "
                     "dims and element type)",
                     is_op ? "operand" : "result", is_op ? i : i - op->num_operands, ts, i, bs);
    free(bs);
    free(ts);
    return KR_FAILURE;
  }
  return KR_SUCCESS;
}

kr_status kr_kernel_launch_verify(kr_op *op) {
  kr_op *parent = kr_op_parent_op(op);
  if (!parent || strcmp(parent->name, "func.func") != 0)
    return kr_op_emit_error(op,
                            "expects parent op 'func.func': kernels are launched from host functions, not from %s%s%s",
                            parent ? "'" : "", parent ? parent->name : "the top level", parent ? "'" : "");
  kr_attr callee = kr_op_get_attr(op, "callee");
  kr_op *fn = callee && callee->kind == KR_ATTR_SYMBOL_REF ? kr_symbol_lookup(op, callee) : NULL;
  if (!fn || strcmp(fn->name, KR_KERNEL_FUNC_OP) || !kr_kernel_is_scheduled(fn)) return kr_func_call_verify(op);
  return verify_scheduled_launch(op, fn);
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
    .parse_type = kr_kernel_parse_type, /* !kernel.buffer (simt_asm.c) */
    .print_type = kr_kernel_print_type,
    .parse_attr = kr_kernel_parse_attr, /* #kernel.task (task_mapping_asm.c) */
    .print_attr = kr_kernel_print_attr,
};

kr_status kr_register_kernel_dialect(kr_context *ctx) { return kr_context_register_dialect(ctx, &kernel_dialect); }
