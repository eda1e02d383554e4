/* dialects/kernel/simt_asm.c - custom assembly of the kernel dialect's SIMT ops and of the
 * !kernel.buffer type (dialects/kernel/ops.def, docs/Dialects/kernel.md "Scheduled kernels").
 *
 *   !kernel.buffer<shared, 64x33xf32>   !kernel.buffer<shared, 32x32xf32, strides = [33, 1]>
 *   %t = kernel.thread_id x                          (block_id, block_dim, grid_dim alike)
 *   %l = kernel.lane_id                              (warp_id alike; kernel.barrier has no result)
 *   kernel.for %i = %lb to %ub step %s { ... } {unroll = 4 : i64}
 *   kernel.if %c { ... } else { ... }
 *   kernel.map %w by #kernel.task<spatial(4, 8)> (%i, %j) { ... }
 *   %s = kernel.alloc : !kernel.buffer<shared, 64x33xf32>
 *   %v = kernel.load %buf[%i, %j] : !kernel.buffer<global, 4x8xf32> -> vector<4xf32>
 *   kernel.store %v, %buf[%i, %j] : f32, !kernel.buffer<global, 4x8xf32>
 *   %r = kernel.shuffle xor %v, %off : f32
 *   %e = kernel.vector_extract %v[2] : vector<4xf32>
 *   %v = kernel.vector_from_elements %a, %b : vector<2xf32>
 *
 * Each form ends with the optional attribute dictionary (after the regions for the region ops,
 * as MLIR's scf.for / scf.if print it); attributes the form spells (dim, mode, mapping,
 * position) are elided from it.  Attributes with an invalid value are left in the dictionary so
 * that the printout still shows them (the verifier reports them). */
#include <stdlib.h>
#include <string.h>

#include "dialects/dialect_macros.h"
#include "korch/asm.h"
#include "korch/kernel.h"

#define KR_OP KR_OP_DECLARE_HOOKS
#include "dialects/kernel/ops.def"
#undef KR_OP

kr_type kr_kernel_parse_type(kr_asm_parser *p, kr_context *ctx);
void kr_kernel_print_type(kr_asm_printer *p, kr_type t);

static bool keyword_is(const char *kw, size_t len, const char *s) { return len == strlen(s) && !memcmp(kw, s, len); }

static kr_type i64_type(kr_context *ctx) { return kr_type_integer(ctx, 64, KR_SIGNLESS); }

/* Print hooks also run on ops that have not been verified (a pass's broken output, a diagnostic
 * printing the op): when the counts are not the op's (`nops` < 0: at least -nops operands), they
 * print ` <<malformed>> operands {attrs} : (types) -> (types)` instead of indexing out of range. */
static bool malformed(kr_asm_printer *p, kr_op *op, int nops, unsigned nres, unsigned nregions) {
  bool ok = (nops >= 0 ? op->num_operands == (unsigned)nops : op->num_operands >= (unsigned)-nops) &&
            op->num_results == nres && op->num_regions == nregions;
  if (ok) return false;
  kr_printer_puts(p, " <<malformed>> ");
  kr_printer_print_operands(p, op, 0, op->num_operands);
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
  kr_printer_puts(p, " : (");
  for (unsigned i = 0; i < op->num_operands; i++) {
    if (i) kr_printer_puts(p, ", ");
    kr_printer_print_type(p, kr_value_type(kr_op_operand(op, i)));
  }
  kr_printer_puts(p, ") -> (");
  for (unsigned i = 0; i < op->num_results; i++) {
    if (i) kr_printer_puts(p, ", ");
    kr_printer_print_type(p, kr_value_type(kr_op_result(op, i)));
  }
  kr_printer_puts(p, ")");
  return true;
}

/* ---------------------------------------------------------------------------------------------
 * !kernel.buffer<SPACE, DIMSxELEM[, strides = [s0, ...]]> */

kr_type kr_kernel_parse_type(kr_asm_parser *p, kr_context *ctx) {
  const char *kw;
  size_t len;
  if (kr_parser_parse_keyword(p, &kw, &len)) return NULL;
  if (!keyword_is(kw, len, "buffer")) {
    kr_parser_error(p, "unknown kernel type '%.*s', expected 'buffer'", (int)len, kw);
    return NULL;
  }
  if (kr_parser_expect(p, "<") || kr_parser_parse_keyword(p, &kw, &len)) return NULL;
  int space = -1;
  for (int s = KR_KERNEL_SPACE_GLOBAL; s <= KR_KERNEL_SPACE_LOCAL; s++)
    if (keyword_is(kw, len, kr_kernel_space_name((kr_kernel_space)s))) space = s;
  if (space < 0) {
    kr_parser_error(p, "unknown memory space '%.*s', expected global, shared or local", (int)len, kw);
    return NULL;
  }
  kr_vec dims = {0}, strides = {0};
  kr_type elem, result = NULL;
  if (kr_parser_expect(p, ",") || kr_parser_parse_dimension_list(p, &dims, false) || kr_parser_parse_type(p, &elem))
    goto out;
  if (dims.len > KR_KERNEL_MAX_RANK) {
    kr_parser_error(p, "a buffer has at most %d dimensions", KR_KERNEL_MAX_RANK);
    goto out;
  }
  if (kr_parser_consume(p, ",")) {
    if (kr_parser_parse_keyword(p, &kw, &len)) goto out;
    if (!keyword_is(kw, len, "strides")) {
      kr_parser_error(p, "expected 'strides'");
      goto out;
    }
    if (kr_parser_expect(p, "=") || kr_parser_expect(p, "[")) goto out;
    if (!kr_parser_peek(p, "]")) {
      do {
        int64_t s;
        if (kr_parser_parse_integer(p, &s)) goto out;
        KR_VEC_PUSH(&strides, int64_t, s);
      } while (kr_parser_consume(p, ","));
    }
    if (kr_parser_expect(p, "]")) goto out;
    if (strides.len != dims.len) {
      kr_parser_error(p, "expected %zu strides (one per dimension), but got %zu", dims.len, strides.len);
      goto out;
    }
  }
  if (kr_parser_expect(p, ">")) goto out;
  result = kr_kernel_buffer_type(ctx, (kr_kernel_space)space, (unsigned)dims.len, KR_VEC_DATA(&dims, int64_t),
                                 strides.len ? KR_VEC_DATA(&strides, int64_t) : NULL, elem);
  if (!result)
    kr_parser_error(p, "invalid buffer type: dims must be in [0, 2^40], strides in [0, 2^40], the element an integer or float type, "
                       "and the storage span below 2^62 elements");
out:
  kr_vec_free(&dims);
  kr_vec_free(&strides);
  return result;
}

void kr_kernel_print_type(kr_asm_printer *p, kr_type t) {
  kr_kernel_buffer b;
  if (!kr_kernel_buffer_info(t, &b)) { /* not ours: the generic mnemonic<params> spelling */
    kr_printer_puts(p, t->u.dialect.mnemonic);
    kr_printer_puts(p, "<");
    for (unsigned i = 0; i < t->u.dialect.num_params; i++) {
      if (i) kr_printer_puts(p, ", ");
      kr_printer_print_attr(p, t->u.dialect.params[i]);
    }
    kr_printer_puts(p, ">");
    return;
  }
  kr_printer_printf(p, "buffer<%s, ", kr_kernel_space_name(b.space));
  for (unsigned i = 0; i < b.rank; i++) kr_printer_printf(p, "%lldx", (long long)b.dims[i]);
  kr_printer_print_type(p, b.elem);
  bool row_major = true;
  for (int64_t s = 1, i = (int64_t)b.rank - 1; i >= 0; s *= b.dims[i], i--) row_major &= b.strides[i] == s;
  if (!row_major) {
    kr_printer_puts(p, ", strides = [");
    for (unsigned i = 0; i < b.rank; i++) kr_printer_printf(p, "%s%lld", i ? ", " : "", (long long)b.strides[i]);
    kr_printer_puts(p, "]");
  }
  kr_printer_puts(p, ">");
}

/* ---------------------------------------------------------------------------------------------
 * Thread coordinates: `kernel.thread_id x`, `kernel.lane_id`, `kernel.barrier`. */

static const char *const dim_names[] = {"x", "y", "z"};

kr_status kr_kernel_dim_op_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *ctx = kr_parser_context(p);
  const char *kw;
  size_t len;
  int dim = -1;
  for (int i = 0; i < 3; i++)
    if (kr_parser_peek_keyword(p, dim_names[i])) dim = i;
  if (dim < 0) return kr_parser_error(p, "expected a dimension: x, y or z");
  if (kr_parser_parse_keyword(p, &kw, &len)) return KR_FAILURE;
  kr_op_state_add_attr(st, KR_KERNEL_ATTR_DIM, kr_attr_integer(ctx, i64_type(ctx), dim));
  if (kr_parser_parse_optional_attr_dict(p, st, false)) return KR_FAILURE;
  kr_type index = kr_type_index(ctx);
  kr_op_state_add_results(st, &index, 1);
  return KR_SUCCESS;
}

void kr_kernel_dim_op_print(kr_asm_printer *p, kr_op *op) {
  static const char *const elided[] = {KR_KERNEL_ATTR_DIM};
  kr_attr d = kr_op_get_attr(op, KR_KERNEL_ATTR_DIM);
  bool ok = d && d->kind == KR_ATTR_INTEGER && kr_type_is_integer(d->type, 64) && d->u.i >= 0 && d->u.i <= 2;
  if (malformed(p, op, 0, 1, 0)) return;
  if (ok) kr_printer_printf(p, " %s", dim_names[d->u.i]);
  kr_printer_print_optional_attr_dict(p, op, elided, ok ? 1 : 0, false);
}

kr_status kr_kernel_index_op_parse(kr_asm_parser *p, kr_op_state *st) {
  if (kr_parser_parse_optional_attr_dict(p, st, false)) return KR_FAILURE;
  kr_type index = kr_type_index(kr_parser_context(p));
  kr_op_state_add_results(st, &index, 1);
  return KR_SUCCESS;
}

kr_status kr_kernel_barrier_parse(kr_asm_parser *p, kr_op_state *st) {
  return kr_parser_parse_optional_attr_dict(p, st, false);
}

/* lane_id, warp_id, barrier: only the attribute dictionary. */
void kr_kernel_nullary_print(kr_asm_printer *p, kr_op *op) {
  if (malformed(p, op, 0, strcmp(op->name, KR_KERNEL_BARRIER_OP) ? 1 : 0, 0)) return;
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
}

/* ---------------------------------------------------------------------------------------------
 * Region ops. */

/* A region that must hold a block even when written `{}` (the verifiers and the interpreter
 * then see one shape). */
static void ensure_block(kr_asm_parser *p, kr_region *r) {
  if (kr_region_empty(r)) kr_region_append_block(r, kr_block_create(kr_parser_context(p)));
}

static void index_arg(kr_asm_parser *p, const kr_unresolved_operand *u, kr_asm_argument *a) {
  memset(a, 0, sizeof *a);
  a->ssa = *u;
  a->type = kr_type_index(kr_parser_context(p));
}

/* `%i = %lb to %ub step %s { ... } attr-dict` */
kr_status kr_kernel_for_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *ctx = kr_parser_context(p);
  kr_unresolved_operand iv, b[3];
  if (kr_parser_parse_operand(p, &iv) || kr_parser_expect(p, "=") || kr_parser_parse_operand(p, &b[0]) ||
      kr_parser_expect(p, "to") || kr_parser_parse_operand(p, &b[1]) || kr_parser_expect(p, "step") ||
      kr_parser_parse_operand(p, &b[2]))
    return KR_FAILURE;
  kr_type index = kr_type_index(ctx);
  kr_type types[3] = {index, index, index};
  if (kr_parser_resolve_operands(p, b, 3, types, 3, st)) return KR_FAILURE;
  kr_asm_argument arg;
  index_arg(p, &iv, &arg);
  kr_region *body = kr_op_state_add_region(st);
  if (kr_parser_parse_region(p, body, &arg, 1)) return KR_FAILURE;
  return kr_parser_parse_optional_attr_dict(p, st, false);
}

void kr_kernel_for_print(kr_asm_printer *p, kr_op *op) {
  if (malformed(p, op, 3, 0, 1)) return;
  kr_region *r = kr_op_region(op, 0);
  kr_block *b = kr_region_empty(r) ? NULL : r->first;
  if (!b || b->num_args != 1) { /* invalid: keep what there is visible */
    kr_printer_puts(p, " <<invalid body>> ");
    kr_printer_print_operands(p, op, 0, op->num_operands);
    kr_printer_puts(p, " ");
    kr_printer_print_region(p, r, true);
    kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
    return;
  }
  kr_printer_puts(p, " ");
  kr_printer_print_operand(p, b->args[0]);
  kr_printer_puts(p, " = ");
  kr_printer_print_operand(p, kr_op_operand(op, 0));
  kr_printer_puts(p, " to ");
  kr_printer_print_operand(p, kr_op_operand(op, 1));
  kr_printer_puts(p, " step ");
  kr_printer_print_operand(p, kr_op_operand(op, 2));
  kr_printer_puts(p, " ");
  kr_printer_print_region(p, r, false);
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
}

/* `%c { ... } (else { ... })? attr-dict` */
kr_status kr_kernel_if_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *ctx = kr_parser_context(p);
  kr_unresolved_operand c;
  kr_value v;
  if (kr_parser_parse_operand(p, &c) || kr_parser_resolve_operand(p, &c, kr_type_integer(ctx, 1, KR_SIGNLESS), &v))
    return KR_FAILURE;
  kr_op_state_add_operands(st, &v, 1);
  kr_region *then_r = kr_op_state_add_region(st), *else_r = kr_op_state_add_region(st);
  if (kr_parser_parse_region(p, then_r, NULL, 0)) return KR_FAILURE;
  ensure_block(p, then_r);
  if (kr_parser_consume(p, "else") && kr_parser_parse_region(p, else_r, NULL, 0)) return KR_FAILURE;
  return kr_parser_parse_optional_attr_dict(p, st, false);
}

void kr_kernel_if_print(kr_asm_printer *p, kr_op *op) {
  if (malformed(p, op, 1, 0, 2)) return;
  kr_printer_puts(p, " ");
  kr_printer_print_operand(p, kr_op_operand(op, 0));
  kr_printer_puts(p, " ");
  kr_printer_print_region(p, kr_op_region(op, 0), false);
  kr_region *e = kr_op_region(op, 1);
  /* An else region without ops is no else at all. */
  if (!kr_region_empty(e) && (e->first->first || e->first != e->last)) {
    kr_printer_puts(p, " else ");
    kr_printer_print_region(p, e, false);
  }
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
}

/* `%w by #kernel.task<...> (%i, %j) { ... } attr-dict` */
kr_status kr_kernel_map_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *ctx = kr_parser_context(p);
  kr_unresolved_operand w;
  kr_value v;
  kr_attr mapping;
  if (kr_parser_parse_operand(p, &w) || kr_parser_resolve_operand(p, &w, kr_type_index(ctx), &v) ||
      kr_parser_expect(p, "by") || kr_parser_parse_attr(p, NULL, &mapping) || kr_parser_expect(p, "("))
    return KR_FAILURE;
  kr_op_state_add_operands(st, &v, 1);
  kr_op_state_add_attr(st, KR_KERNEL_ATTR_MAPPING, mapping);
  kr_vec names = {0}, args = {0};
  kr_status s = KR_FAILURE;
  if (kr_parser_parse_operand_list(p, &names) || kr_parser_expect(p, ")")) goto out;
  for (size_t i = 0; i < names.len; i++) {
    kr_asm_argument a;
    index_arg(p, &KR_VEC_AT(&names, kr_unresolved_operand, i), &a);
    kr_vec_push(&args, &a, sizeof a);
  }
  kr_region *body = kr_op_state_add_region(st);
  if (kr_parser_parse_region(p, body, KR_VEC_DATA(&args, kr_asm_argument), (unsigned)args.len)) goto out;
  ensure_block(p, body);
  s = kr_parser_parse_optional_attr_dict(p, st, false);
out:
  kr_vec_free(&names);
  kr_vec_free(&args);
  return s;
}

void kr_kernel_map_print(kr_asm_printer *p, kr_op *op) {
  static const char *const elided[] = {KR_KERNEL_ATTR_MAPPING};
  if (malformed(p, op, 1, 0, 1)) return;
  kr_attr m = kr_op_get_attr(op, KR_KERNEL_ATTR_MAPPING);
  kr_region *r = kr_op_region(op, 0);
  kr_block *b = kr_region_empty(r) ? NULL : r->first;
  kr_printer_puts(p, " ");
  kr_printer_print_operand(p, kr_op_operand(op, 0));
  kr_printer_puts(p, " by ");
  if (m)
    kr_printer_print_attr(p, m);
  else
    kr_printer_puts(p, "<<missing mapping>>");
  kr_printer_puts(p, " (");
  for (unsigned i = 0; b && i < b->num_args; i++) {
    if (i) kr_printer_puts(p, ", ");
    kr_printer_print_operand(p, b->args[i]);
  }
  kr_printer_puts(p, ") ");
  kr_printer_print_region(p, r, false);
  kr_printer_print_optional_attr_dict(p, op, elided, m ? 1 : 0, false);
}

/* ---------------------------------------------------------------------------------------------
 * Buffers. */

/* `attr-dict : !kernel.buffer<...>` */
kr_status kr_kernel_alloc_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_type t;
  if (kr_parser_parse_optional_attr_dict(p, st, false) || kr_parser_expect(p, ":") || kr_parser_parse_type(p, &t))
    return KR_FAILURE;
  kr_op_state_add_results(st, &t, 1);
  return KR_SUCCESS;
}

void kr_kernel_alloc_print(kr_asm_printer *p, kr_op *op) {
  if (malformed(p, op, 0, 1, 0)) return;
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
  kr_printer_puts(p, " : ");
  kr_printer_print_type(p, kr_value_type(kr_op_result(op, 0)));
}

/* `%buf[%i, ...]`: appends the buffer then the indices to `ops`. */
static kr_status parse_subscript(kr_asm_parser *p, kr_vec *ops) {
  kr_unresolved_operand b;
  if (kr_parser_parse_operand(p, &b)) return KR_FAILURE;
  kr_vec_push(ops, &b, sizeof b);
  if (kr_parser_expect(p, "[") || kr_parser_parse_operand_list(p, ops) || kr_parser_expect(p, "]")) return KR_FAILURE;
  return KR_SUCCESS;
}

/* Resolves ops[first] to the buffer type and the rest to index. */
static kr_status resolve_subscript(kr_asm_parser *p, const kr_vec *ops, size_t first, kr_type buffer, kr_op_state *st) {
  kr_type index = kr_type_index(kr_parser_context(p));
  for (size_t i = first; i < ops->len; i++) {
    kr_value v;
    if (kr_parser_resolve_operand(p, &KR_VEC_AT(ops, kr_unresolved_operand, i), i == first ? buffer : index, &v))
      return KR_FAILURE;
    kr_op_state_add_operands(st, &v, 1);
  }
  return KR_SUCCESS;
}

static void print_subscript(kr_asm_printer *p, kr_op *op, unsigned buffer) {
  kr_printer_print_operand(p, kr_op_operand(op, buffer));
  kr_printer_puts(p, "[");
  kr_printer_print_operands(p, op, buffer + 1, op->num_operands - buffer - 1);
  kr_printer_puts(p, "]");
}

/* `%buf[%i, %j] attr-dict : BUFFER -> T` */
kr_status kr_kernel_load_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_vec ops = {0};
  kr_type bt, rt;
  kr_status s = KR_FAILURE;
  if (parse_subscript(p, &ops) || kr_parser_parse_optional_attr_dict(p, st, false) || kr_parser_expect(p, ":") ||
      kr_parser_parse_type(p, &bt) || kr_parser_expect(p, "->") || kr_parser_parse_type(p, &rt) ||
      resolve_subscript(p, &ops, 0, bt, st))
    goto out;
  kr_op_state_add_results(st, &rt, 1);
  s = KR_SUCCESS;
out:
  kr_vec_free(&ops);
  return s;
}

void kr_kernel_load_print(kr_asm_printer *p, kr_op *op) {
  if (malformed(p, op, -1, 1, 0)) return;
  kr_printer_puts(p, " ");
  print_subscript(p, op, 0);
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
  kr_printer_puts(p, " : ");
  kr_printer_print_type(p, kr_value_type(kr_op_operand(op, 0)));
  kr_printer_puts(p, " -> ");
  kr_printer_print_type(p, kr_value_type(kr_op_result(op, 0)));
}

/* `%v, %buf[%i, %j] attr-dict : T, BUFFER` */
kr_status kr_kernel_store_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_vec ops = {0};
  kr_unresolved_operand val;
  kr_type vt, bt;
  kr_value v;
  kr_status s = KR_FAILURE;
  if (kr_parser_parse_operand(p, &val) || kr_parser_expect(p, ",") || parse_subscript(p, &ops) ||
      kr_parser_parse_optional_attr_dict(p, st, false) || kr_parser_expect(p, ":") || kr_parser_parse_type(p, &vt) ||
      kr_parser_expect(p, ",") || kr_parser_parse_type(p, &bt) || kr_parser_resolve_operand(p, &val, vt, &v))
    goto out;
  kr_op_state_add_operands(st, &v, 1);
  if (resolve_subscript(p, &ops, 0, bt, st)) goto out;
  s = KR_SUCCESS;
out:
  kr_vec_free(&ops);
  return s;
}

void kr_kernel_store_print(kr_asm_printer *p, kr_op *op) {
  if (malformed(p, op, -2, 0, 0)) return;
  kr_printer_puts(p, " ");
  kr_printer_print_operand(p, kr_op_operand(op, 0));
  kr_printer_puts(p, ", ");
  print_subscript(p, op, 1);
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
  kr_printer_puts(p, " : ");
  kr_printer_print_type(p, kr_value_type(kr_op_operand(op, 0)));
  kr_printer_puts(p, ", ");
  kr_printer_print_type(p, kr_value_type(kr_op_operand(op, 1)));
}

/* ---------------------------------------------------------------------------------------------
 * Warp shuffle and vectors. */

static const char *const shuffle_modes[] = {"xor", "down", "up", "idx"};

/* `MODE %v, %off attr-dict : T` */
kr_status kr_kernel_shuffle_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *ctx = kr_parser_context(p);
  const char *kw;
  size_t len;
  int mode = -1;
  for (int i = 0; i < 4; i++)
    if (kr_parser_peek_keyword(p, shuffle_modes[i])) mode = i;
  if (mode < 0) return kr_parser_error(p, "expected a shuffle mode: xor, down, up or idx");
  if (kr_parser_parse_keyword(p, &kw, &len)) return KR_FAILURE;
  kr_op_state_add_attr(st, KR_KERNEL_ATTR_MODE, kr_attr_string(ctx, shuffle_modes[mode], strlen(shuffle_modes[mode])));
  kr_unresolved_operand u[2];
  kr_type t;
  if (kr_parser_parse_operand(p, &u[0]) || kr_parser_expect(p, ",") || kr_parser_parse_operand(p, &u[1]) ||
      kr_parser_parse_optional_attr_dict(p, st, false) || kr_parser_expect(p, ":") || kr_parser_parse_type(p, &t))
    return KR_FAILURE;
  kr_type types[2] = {t, kr_type_index(ctx)};
  if (kr_parser_resolve_operands(p, u, 2, types, 2, st)) return KR_FAILURE;
  kr_op_state_add_results(st, &t, 1);
  return KR_SUCCESS;
}

void kr_kernel_shuffle_print(kr_asm_printer *p, kr_op *op) {
  static const char *const elided[] = {KR_KERNEL_ATTR_MODE};
  kr_attr m = kr_op_get_attr(op, KR_KERNEL_ATTR_MODE);
  bool ok = false;
  if (malformed(p, op, 2, 1, 0)) return;
  for (unsigned i = 0; m && m->kind == KR_ATTR_STRING && i < 4; i++) ok |= !strcmp(m->u.string.str, shuffle_modes[i]);
  kr_printer_puts(p, " ");
  if (ok) kr_printer_printf(p, "%s ", m->u.string.str);
  kr_printer_print_operands(p, op, 0, op->num_operands);
  kr_printer_print_optional_attr_dict(p, op, elided, ok ? 1 : 0, false);
  kr_printer_puts(p, " : ");
  kr_printer_print_type(p, kr_value_type(kr_op_operand(op, 0)));
}

/* `%v[POS] attr-dict : vector<NxT>` */
kr_status kr_kernel_vector_extract_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_context *ctx = kr_parser_context(p);
  kr_unresolved_operand u;
  int64_t pos;
  kr_type vt;
  kr_value v;
  if (kr_parser_parse_operand(p, &u) || kr_parser_expect(p, "[") || kr_parser_parse_integer(p, &pos) ||
      kr_parser_expect(p, "]") || kr_parser_parse_optional_attr_dict(p, st, false) || kr_parser_expect(p, ":") ||
      kr_parser_parse_type(p, &vt) || kr_parser_resolve_operand(p, &u, vt, &v))
    return KR_FAILURE;
  if (vt->kind != KR_TYPE_VECTOR) return kr_parser_error(p, "expected a vector type");
  kr_op_state_add_operands(st, &v, 1);
  kr_op_state_add_attr(st, KR_KERNEL_ATTR_POSITION, kr_attr_integer(ctx, i64_type(ctx), pos));
  kr_type et = vt->u.shaped.elem;
  kr_op_state_add_results(st, &et, 1);
  return KR_SUCCESS;
}

void kr_kernel_vector_extract_print(kr_asm_printer *p, kr_op *op) {
  static const char *const elided[] = {KR_KERNEL_ATTR_POSITION};
  kr_attr a = kr_op_get_attr(op, KR_KERNEL_ATTR_POSITION);
  bool ok = a && a->kind == KR_ATTR_INTEGER && kr_type_is_integer(a->type, 64);
  if (malformed(p, op, 1, 1, 0)) return;
  kr_printer_puts(p, " ");
  kr_printer_print_operand(p, kr_op_operand(op, 0));
  if (ok) kr_printer_printf(p, "[%lld]", (long long)a->u.i);
  kr_printer_print_optional_attr_dict(p, op, elided, ok ? 1 : 0, false);
  kr_printer_puts(p, " : ");
  kr_printer_print_type(p, kr_value_type(kr_op_operand(op, 0)));
}

/* `%a, %b, ... attr-dict : vector<NxT>` */
kr_status kr_kernel_vector_from_elements_parse(kr_asm_parser *p, kr_op_state *st) {
  kr_vec ops = {0};
  kr_type vt;
  kr_status s = KR_FAILURE;
  if (kr_parser_parse_operand_list(p, &ops) || kr_parser_parse_optional_attr_dict(p, st, false) ||
      kr_parser_expect(p, ":") || kr_parser_parse_type(p, &vt))
    goto out;
  if (vt->kind != KR_TYPE_VECTOR) {
    kr_parser_error(p, "expected a vector type");
    goto out;
  }
  for (size_t i = 0; i < ops.len; i++) {
    kr_value v;
    if (kr_parser_resolve_operand(p, &KR_VEC_AT(&ops, kr_unresolved_operand, i), vt->u.shaped.elem, &v)) goto out;
    kr_op_state_add_operands(st, &v, 1);
  }
  kr_op_state_add_results(st, &vt, 1);
  s = KR_SUCCESS;
out:
  kr_vec_free(&ops);
  return s;
}

void kr_kernel_vector_from_elements_print(kr_asm_printer *p, kr_op *op) {
  if (malformed(p, op, -1, 1, 0)) return;
  kr_printer_puts(p, " ");
  kr_printer_print_operands(p, op, 0, op->num_operands);
  kr_printer_print_optional_attr_dict(p, op, NULL, 0, false);
  kr_printer_puts(p, " : ");
  kr_printer_print_type(p, kr_value_type(kr_op_result(op, 0)));
}
