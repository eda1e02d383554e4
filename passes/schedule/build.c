/* passes/schedule/build.c - IR builder helpers for SIMT code (schedule.h): the one place that
 * knows the operand order and attributes of the kernel dialect's SIMT ops (dialects/kernel/
 * ops.def), so templates read as the programs they build. */
#include <string.h>

#include "passes/schedule/schedule.h"

void ks_builder_init(ks_builder *kb, kr_context *ctx, kr_block *at_end, kr_attr loc) {
  kr_builder_init(&kb->b, ctx);
  if (at_end) kr_builder_set_insertion_point_to_end(&kb->b, at_end);
  kb->ctx = ctx;
  kb->loc = loc;
}

kr_type ks_index_type(ks_builder *kb) { return kr_type_index(kb->ctx); }

kr_op *ks_create(ks_builder *kb, const char *name, const kr_value *operands, unsigned n, kr_type result,
                 unsigned num_regions) {
  kr_op_state st;
  kr_op_state_init(&st, kb->ctx, name, kb->loc);
  if (n) kr_op_state_add_operands(&st, operands, n);
  if (result) kr_op_state_add_results(&st, &result, 1);
  for (unsigned i = 0; i < num_regions; i++) kr_op_state_add_region(&st);
  kr_op *op = kr_builder_create(&kb->b, &st);
  kr_op_state_free(&st);
  return op;
}

kr_value ks_create1(ks_builder *kb, const char *name, const kr_value *operands, unsigned n, kr_type result) {
  kr_op *op = ks_create(kb, name, operands, n, result, 0);
  return op ? kr_op_result(op, 0) : NULL;
}

kr_value ks_const_int(ks_builder *kb, kr_type t, int64_t c) {
  kr_op *op = ks_create(kb, "arith.constant", NULL, 0, t, 0);
  kr_op_set_attr(op, "value", kr_attr_integer(kb->ctx, t, c));
  return kr_op_result(op, 0);
}

kr_value ks_const_float(ks_builder *kb, kr_type t, double c) {
  kr_op *op = ks_create(kb, "arith.constant", NULL, 0, t, 0);
  kr_op_set_attr(op, "value", kr_attr_float(kb->ctx, t, c));
  return kr_op_result(op, 0);
}

kr_value ks_index(ks_builder *kb, int64_t c) { return ks_const_int(kb, ks_index_type(kb), c); }

bool ks_const_value(kr_value v, int64_t *c) {
  kr_op *d = kr_value_defining_op(v);
  if (!d || strcmp(d->name, "arith.constant")) return false;
  kr_attr a = kr_op_get_attr(d, "value");
  if (!a || a->kind != KR_ATTR_INTEGER) return false;
  *c = a->u.i;
  return true;
}

static kr_value binop(ks_builder *kb, const char *name, kr_value a, kr_value b) {
  kr_value ops[2] = {a, b};
  return ks_create1(kb, name, ops, 2, kr_value_type(a));
}

kr_value ks_add(ks_builder *kb, kr_value a, kr_value b) {
  int64_t x, y;
  bool ca = ks_const_value(a, &x), cb = ks_const_value(b, &y);
  if (ca && cb) return ks_index(kb, x + y);
  if (ca && x == 0) return b;
  if (cb && y == 0) return a;
  return binop(kb, "arith.addi", a, b);
}

kr_value ks_sub(ks_builder *kb, kr_value a, kr_value b) {
  int64_t x, y;
  bool ca = ks_const_value(a, &x), cb = ks_const_value(b, &y);
  if (ca && cb) return ks_index(kb, x - y);
  if (cb && y == 0) return a;
  return binop(kb, "arith.subi", a, b);
}

kr_value ks_mul(ks_builder *kb, kr_value a, kr_value b) {
  int64_t x, y;
  bool ca = ks_const_value(a, &x), cb = ks_const_value(b, &y);
  if (ca && cb) return ks_index(kb, x * y);
  if ((ca && x == 0) || (cb && y == 0)) return ks_index(kb, 0);
  if (ca && x == 1) return b;
  if (cb && y == 1) return a;
  return binop(kb, "arith.muli", a, b);
}

kr_value ks_div(ks_builder *kb, kr_value a, kr_value b) {
  int64_t x, y;
  bool ca = ks_const_value(a, &x), cb = ks_const_value(b, &y);
  if (ca && cb && y != 0) return ks_index(kb, x / y);
  if (cb && y == 1) return a;
  if (ca && x == 0) return a;
  return binop(kb, "arith.divsi", a, b);
}

kr_value ks_rem(ks_builder *kb, kr_value a, kr_value b) {
  int64_t x, y;
  bool ca = ks_const_value(a, &x), cb = ks_const_value(b, &y);
  if (ca && cb && y != 0) return ks_index(kb, x % y);
  if (cb && y == 1) return ks_index(kb, 0);
  if (ca && x == 0) return a;
  return binop(kb, "arith.remsi", a, b);
}

kr_value ks_min(ks_builder *kb, kr_value a, kr_value b) {
  int64_t x, y;
  if (ks_const_value(a, &x) && ks_const_value(b, &y)) return ks_index(kb, x < y ? x : y);
  return binop(kb, "arith.minsi", a, b);
}

kr_value ks_addc(ks_builder *kb, kr_value a, int64_t c) { return ks_add(kb, a, ks_index(kb, c)); }
kr_value ks_mulc(ks_builder *kb, kr_value a, int64_t c) { return ks_mul(kb, a, ks_index(kb, c)); }
kr_value ks_divc(ks_builder *kb, kr_value a, int64_t c) { return ks_div(kb, a, ks_index(kb, c)); }
kr_value ks_remc(ks_builder *kb, kr_value a, int64_t c) { return ks_rem(kb, a, ks_index(kb, c)); }

kr_value ks_cmp_lt(ks_builder *kb, kr_value a, kr_value b) {
  kr_value ops[2] = {a, b};
  kr_op *op = ks_create(kb, "arith.cmpi", ops, 2, kr_type_integer(kb->ctx, 1, KR_SIGNLESS), 0);
  kr_op_set_attr(op, "predicate", kr_attr_integer(kb->ctx, kr_type_integer(kb->ctx, 64, KR_SIGNLESS), 2)); /* slt */
  return kr_op_result(op, 0);
}

kr_value ks_and(ks_builder *kb, kr_value a, kr_value b) { return binop(kb, "arith.andi", a, b); }

static kr_value dim_op(ks_builder *kb, const char *name, unsigned dim) {
  kr_op *op = ks_create(kb, name, NULL, 0, ks_index_type(kb), 0);
  kr_op_set_attr(op, KR_KERNEL_ATTR_DIM, kr_attr_integer(kb->ctx, kr_type_integer(kb->ctx, 64, KR_SIGNLESS), dim));
  return kr_op_result(op, 0);
}

kr_value ks_thread_id(ks_builder *kb) { return dim_op(kb, KR_KERNEL_THREAD_ID_OP, 0); }
kr_value ks_block_id(ks_builder *kb, unsigned dim) { return dim_op(kb, KR_KERNEL_BLOCK_ID_OP, dim); }
kr_value ks_lane_id(ks_builder *kb) { return ks_create1(kb, KR_KERNEL_LANE_ID_OP, NULL, 0, ks_index_type(kb)); }
kr_value ks_warp_id(ks_builder *kb) { return ks_create1(kb, KR_KERNEL_WARP_ID_OP, NULL, 0, ks_index_type(kb)); }

/* Creates region `i`'s single block (with `nargs` index arguments) and moves into it. */
static kr_block *enter_region(ks_builder *kb, kr_op *op, unsigned i, unsigned nargs) {
  kr_region *r = kr_op_region(op, i);
  kr_block *blk = kr_block_create(kb->ctx);
  for (unsigned a = 0; a < nargs; a++) kr_block_add_arg(blk, ks_index_type(kb), kb->loc);
  kr_region_append_block(r, blk);
  kr_builder_set_insertion_point_to_end(&kb->b, blk);
  return blk;
}

kr_value ks_for(ks_builder *kb, kr_value lb, kr_value ub, kr_value step, ks_scope *s) {
  kr_value ops[3] = {lb, ub, step};
  s->op = ks_create(kb, KR_KERNEL_FOR_OP, ops, 3, NULL, 1);
  kr_block *blk = enter_region(kb, s->op, 0, 1);
  return blk->args[0];
}

kr_value ks_for_c(ks_builder *kb, int64_t lb, int64_t ub, int64_t step, ks_scope *s) {
  kr_value l = ks_index(kb, lb), u = ks_index(kb, ub), st = ks_index(kb, step);
  return ks_for(kb, l, u, st, s);
}

void ks_if(ks_builder *kb, kr_value cond, ks_scope *s) {
  s->op = ks_create(kb, KR_KERNEL_IF_OP, &cond, 1, NULL, 2);
  enter_region(kb, s->op, 0, 0);
}

void ks_else(ks_builder *kb, ks_scope *s) { enter_region(kb, s->op, 1, 0); }

void ks_map(ks_builder *kb, kr_value worker, const kr_task_mapping *m, kr_value *task, ks_scope *s) {
  s->op = ks_create(kb, KR_KERNEL_MAP_OP, &worker, 1, NULL, 1);
  kr_op_set_attr(s->op, KR_KERNEL_ATTR_MAPPING, kr_task_mapping_attr(kb->ctx, m));
  kr_block *blk = enter_region(kb, s->op, 0, m->rank);
  for (unsigned i = 0; i < m->rank; i++) task[i] = blk->args[i];
}

void ks_end(ks_builder *kb, ks_scope *s) { kr_builder_set_insertion_point_after(&kb->b, s->op); }

kr_value ks_alloc(ks_builder *kb, kr_kernel_space space, unsigned rank, const int64_t *dims, const int64_t *strides,
                  kr_type elem) {
  kr_type t = kr_kernel_buffer_type(kb->ctx, space, rank, dims, strides, elem);
  return t ? ks_create1(kb, KR_KERNEL_ALLOC_OP, NULL, 0, t) : NULL;
}

kr_type ks_scalar_type(kr_context *ctx, kr_type elem) {
  if (elem->kind == KR_TYPE_INTEGER && elem->u.integer.sign != KR_SIGNLESS)
    return kr_type_integer(ctx, elem->u.integer.width, KR_SIGNLESS);
  return elem;
}

kr_value ks_load(ks_builder *kb, kr_value buf, const kr_value *index, unsigned width) {
  kr_kernel_buffer info;
  if (!kr_kernel_buffer_info(kr_value_type(buf), &info)) return NULL;
  kr_value ops[1 + KR_KERNEL_MAX_RANK];
  ops[0] = buf;
  for (unsigned i = 0; i < info.rank; i++) ops[1 + i] = index[i];
  kr_type t = ks_scalar_type(kb->ctx, info.elem);
  if (width > 1) {
    int64_t w = width;
    t = kr_type_vector(kb->ctx, &w, 1, t);
  }
  return ks_create1(kb, KR_KERNEL_LOAD_OP, ops, 1 + info.rank, t);
}

void ks_store(ks_builder *kb, kr_value value, kr_value buf, const kr_value *index) {
  kr_kernel_buffer info;
  if (!kr_kernel_buffer_info(kr_value_type(buf), &info)) return;
  kr_value ops[2 + KR_KERNEL_MAX_RANK];
  ops[0] = value;
  ops[1] = buf;
  for (unsigned i = 0; i < info.rank; i++) ops[2 + i] = index[i];
  ks_create(kb, KR_KERNEL_STORE_OP, ops, 2 + info.rank, NULL, 0);
}

void ks_barrier(ks_builder *kb) { ks_create(kb, KR_KERNEL_BARRIER_OP, NULL, 0, NULL, 0); }

kr_value ks_shuffle(ks_builder *kb, const char *mode, kr_value v, kr_value offset) {
  kr_value ops[2] = {v, offset};
  kr_op *op = ks_create(kb, KR_KERNEL_SHUFFLE_OP, ops, 2, kr_value_type(v), 0);
  kr_op_set_attr(op, KR_KERNEL_ATTR_MODE, kr_attr_string(kb->ctx, mode, strlen(mode)));
  return kr_op_result(op, 0);
}

kr_value ks_vector_extract(ks_builder *kb, kr_value vec, unsigned pos) {
  kr_type vt = kr_value_type(vec);
  kr_op *op = ks_create(kb, KR_KERNEL_VECTOR_EXTRACT_OP, &vec, 1, vt->u.shaped.elem, 0);
  kr_op_set_attr(op, KR_KERNEL_ATTR_POSITION,
                 kr_attr_integer(kb->ctx, kr_type_integer(kb->ctx, 64, KR_SIGNLESS), (int64_t)pos));
  return kr_op_result(op, 0);
}

kr_value ks_vector_from_elements(ks_builder *kb, const kr_value *elems, unsigned n) {
  int64_t w = n;
  kr_type t = kr_type_vector(kb->ctx, &w, 1, kr_value_type(elems[0]));
  return ks_create1(kb, KR_KERNEL_VECTOR_FROM_ELEMENTS_OP, elems, n, t);
}

kr_value ks_linearize(ks_builder *kb, const kr_value *index, const int64_t *dims, unsigned rank) {
  kr_value lin = ks_index(kb, 0);
  for (unsigned i = 0; i < rank; i++) lin = ks_add(kb, ks_mulc(kb, lin, dims[i]), index[i]);
  return lin;
}

void ks_delinearize(ks_builder *kb, kr_value linear, const int64_t *dims, unsigned rank, kr_value *index) {
  for (unsigned i = rank; i-- > 0;) {
    if (i == 0) {
      index[0] = linear; /* the caller keeps linear < prod(dims) */
      break;
    }
    index[i] = ks_remc(kb, linear, dims[i]);
    linear = ks_divc(kb, linear, dims[i]);
  }
  if (rank == 0) (void)linear;
}
