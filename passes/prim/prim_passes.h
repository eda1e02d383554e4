/* passes/prim/prim_passes.h - private to the prim-level rewrite passes (reduce_as_matvec.c,
 * normalize_after_matmul.c): their driver (prim_passes.c) and building primitives through a
 * rewriter with result types computed by the pass (these passes never depend on shape
 * inference to type what they create). */
#ifndef KORCH_PASSES_PRIM_PRIM_PASSES_H
#define KORCH_PASSES_PRIM_PRIM_PASSES_H

#include <string.h>

#include "korch/op.h"
#include "korch/pass.h"
#include "korch/prim.h"
#include "korch/rewrite.h"

/* A pass's rewrite of one matched op: returns whether it changed the IR.  `arg` is the pass's
 * options (or whatever kr__pp_rewrite_each was given). */
typedef bool (*kr__pp_rewrite_fn)(kr_rewriter *rw, kr_op *op, const void *arg);

/* The body of a prim pass's run hook: collects every op named `name` nested in op's regions
 * (pre-order, all of them before the first rewrite, so rewrites never disturb the walk), calls
 * rewrite(rw, each, arg) in walk order with one rewriter, and marks the run unchanged when no
 * call changed anything.  Returns KR_SUCCESS (an op that does not qualify is left as it is). */
kr_status kr__pp_rewrite_each(kr_op *op, kr_pass_run *run, const char *name, kr__pp_rewrite_fn rewrite,
                              const void *arg);

static inline bool kr__pp_named(const kr_op *op, const char *name) { return op && !strcmp(op->name, name); }

static inline bool kr__pp_static_tensor(kr_type t) {
  return t && t->kind == KR_TYPE_TENSOR && kr_type_has_static_shape(t) && t->u.shaped.rank <= KR_OP_MAX_RANK;
}

/* Creates the primitive `name`(operands) with attributes `attrs` and the one result type `type`
 * at the rewriter's insertion point, located at `loc`.  Returns its result, NULL on failure. */
static inline kr_value kr__pp_create(kr_rewriter *rw, const char *name, const kr_value *operands, unsigned n,
                                     const kr_named_attr *attrs, unsigned na, kr_type type, kr_attr loc) {
  kr_op_state st;
  kr_op_state_init(&st, rw->builder.ctx, name, loc);
  kr_op_state_add_operands(&st, operands, n);
  for (unsigned i = 0; i < na; i++) kr_op_state_add_attr(&st, attrs[i].name, attrs[i].value);
  kr_op_state_add_results(&st, &type, 1);
  kr_op *op = kr_rewriter_create(rw, &st);
  kr_op_state_free(&st);
  return op ? kr_op_result(op, 0) : NULL;
}

/* An `array<i64: ...>` attribute named `name`. */
static inline kr_named_attr kr__pp_ints(kr_context *ctx, const char *name, const int64_t *vals, unsigned n) {
  return (kr_named_attr){kr_ident_cstr(ctx, name), kr_attr_dense_array(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), vals, n)};
}

/* prim.reshape of x to `type` (x itself when it already has it). */
static inline kr_value kr__pp_reshape(kr_rewriter *rw, kr_value x, kr_type type, kr_attr loc) {
  if (kr_value_type(x) == type) return x;
  kr_named_attr a = kr__pp_ints(rw->builder.ctx, "shape", type->u.shaped.dims, type->u.shaped.rank);
  return kr__pp_create(rw, "prim.reshape", &x, 1, &a, 1, type, loc);
}

/* A splat prim.constant of `type` (a static float tensor) whose every element is `v`. */
static inline kr_value kr__pp_splat(kr_rewriter *rw, kr_type type, double v, kr_attr loc) {
  kr_context *ctx = rw->builder.ctx;
  kr_type e = kr_type_element(type);
  unsigned char buf[8];
  size_t size = kr_type_storage_bytes(e);
  if (e->kind != KR_TYPE_FLOAT) return NULL;
  switch (e->u.fkind) {
  case KR_F16: { uint16_t h = kr_f64_to_f16(v); memcpy(buf, &h, 2); break; }
  case KR_BF16: { uint16_t h = kr_f64_to_bf16(v); memcpy(buf, &h, 2); break; }
  case KR_F32: { float f = (float)v; memcpy(buf, &f, 4); break; }
  case KR_F64: memcpy(buf, &v, 8); break;
  }
  kr_attr value = kr_attr_dense(ctx, type, buf, size);
  if (!value) return NULL;
  kr_named_attr a = {kr_ident_cstr(ctx, "value"), value};
  return kr__pp_create(rw, KR_PRIM_CONSTANT_OP, NULL, 0, &a, 1, type, loc);
}

#endif
