/* passes/schedule/emit_reduction.c - element rules of the reduction primitives as per-element
 * loops with a register accumulator (a local 1-element buffer: SIMT regions yield no values,
 * dialects/kernel/ops.def), following the CPU kernels (backend/interp/prim_reduction.c,
 * kernels_reduce.c) step by step so results agree bit for bit:
 *
 *   cum_sum        a kernel.for over the prefix (or, reversed, the suffix) of the axis, summed
 *                  in the CPU's order; floats accumulate in f64 and round once, integers wrap
 *   reduce_window  one kernel.for per windowed axis (window > 1); sum accumulates floats in
 *                  f64, max/min keep the element type and propagate NaN (v > a || v != v)
 *   reduce_*       the "window" template's fallback and any kernel without an override: one
 *   arg_*          kernel.for per reduced axis over the whole reduced set per output element.
 *                  The reduction template overrides these with a block-per-row schedule; this
 *                  rule only keeps the emitter total (and correct) for other callers.
 *
 * The window loops are the "window" template's (passes/schedule/injective.c): one thread per
 * output element, the window inside. */
#include <math.h>
#include <string.h>

#include "passes/schedule/emit_impl.h"

static bool is_float(kr_type t) { return t->kind == KR_TYPE_FLOAT; }

typedef enum red_kind { RED_SUM, RED_PROD, RED_MAX, RED_MIN } red_kind;

/* The accumulator type: f64 for float sums and products (the CPU accumulates in double), the
 * scalar type otherwise. */
static kr_type acc_type(ks_emitter *e, kr_type elem, red_kind k) {
  if (is_float(elem) && (k == RED_SUM || k == RED_PROD)) return kr_type_float(e->k->ctx, KR_F64);
  return es_scalar_type(e, elem);
}

/* The identity: 0, 1, -inf / the type's lowest, +inf / the type's highest. */
static kr_value identity(ks_emitter *e, kr_type elem, kr_type at, red_kind k) {
  if (is_float(at)) {
    double v = k == RED_SUM ? 0.0 : k == RED_PROD ? 1.0 : k == RED_MAX ? -INFINITY : INFINITY;
    return es_const_float(e, at, v);
  }
  unsigned w = at->u.integer.width;
  bool uns = es_is_unsigned(elem);
  int64_t lo = uns || w == 1 ? 0 : w == 64 ? INT64_MIN : -(INT64_C(1) << (w - 1));
  int64_t hi = uns || w == 1 ? -1 : w == 64 ? INT64_MAX : (INT64_C(1) << (w - 1)) - 1;
  int64_t v = k == RED_SUM ? 0 : k == RED_PROD ? 1 : k == RED_MAX ? lo : hi;
  return es_const_int(e, at, v);
}

/* Folds element x (of tensor element type elem) into accumulator value a. */
static kr_value combine(ks_emitter *e, kr_value a, kr_value x, kr_type elem, red_kind k) {
  kr_type at = kr_value_type(a);
  if (is_float(elem)) {
    if (kr_value_type(x) != at) x = es_op1(e, "arith.extf", x, at);
    switch (k) {
    case RED_SUM: return es_op2(e, "arith.addf", a, x);
    case RED_PROD: return es_op2(e, "arith.mulf", a, x);
    case RED_MAX: return es_fmax(e, x, a, true); /* (v > a || v != v) ? v : a */
    case RED_MIN: return es_fmax(e, x, a, false);
    }
  }
  bool uns = es_is_unsigned(elem) || at->u.integer.width == 1;
  switch (k) {
  case RED_SUM: return es_op2(e, "arith.addi", a, x);
  case RED_PROD: return es_op2(e, "arith.muli", a, x);
  case RED_MAX: return es_op2(e, uns ? "arith.maxui" : "arith.maxsi", a, x);
  case RED_MIN: return es_op2(e, uns ? "arith.minui" : "arith.minsi", a, x);
  }
  return NULL;
}

/* The accumulator's value as the result's scalar. */
static kr_value finish(ks_emitter *e, kr_value a, kr_type elem) {
  kr_type st = es_scalar_type(e, elem);
  return kr_value_type(a) == st ? a : es_op1(e, "arith.truncf", a, st);
}

/* ---------------------------------------------------------------------------------------------
 * cum_sum */

static kr_value cum_sum(ks_emitter *e, kr_op *op, const kr_value *index) {
  ks_builder *kb = e->kb;
  kr_value x = kr_op_operand(op, 0);
  unsigned r;
  const int64_t *xd = es_dims(x, &r);
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < 0 || axis >= (int64_t)r) return es_error(e, op, "cum_sum axis out of range");
  bool excl = kr_op_attr_int(op, "exclusive") != 0, rev = kr_op_attr_int(op, "reverse") != 0;
  kr_type elem = es_elem_of(x);
  kr_type at = acc_type(e, elem, RED_SUM);
  kr_value acc = es_acc_alloc(e, at);
  es_acc_store(e, acc, identity(e, elem, at, RED_SUM));
  kr_value j = index[axis], n = ks_index(kb, xd[axis]);
  /* Forward: k = 0 .. j (j - 1 exclusive).  Reverse: k = n-1 down to j (j + 1 exclusive), as
   * t = 0 .. count with k = n - 1 - t, so the additions run in the CPU's order. */
  kr_value ub = rev ? ks_sub(kb, n, excl ? ks_addc(kb, j, 1) : j) : excl ? j : ks_addc(kb, j, 1);
  ks_scope s;
  kr_value lb = ks_index(kb, 0), step = ks_index(kb, 1);
  kr_value t = ks_for(kb, lb, ub, step, &s);
  kr_value xi[KR_KERNEL_MAX_RANK];
  for (unsigned d = 0; d < r; d++) xi[d] = index[d];
  xi[axis] = rev ? ks_sub(kb, ks_index(kb, xd[axis] - 1), t) : t;
  kr_value v = ks_emit_element(e, x, xi);
  if (v) es_acc_store(e, acc, combine(e, es_acc_load(e, acc), v, elem, RED_SUM));
  ks_end(kb, &s);
  if (!v) return NULL;
  return finish(e, es_acc_load(e, acc), elem);
}

/* ---------------------------------------------------------------------------------------------
 * reduce_window */

static kr_value reduce_window(ks_emitter *e, kr_op *op, const kr_value *index) {
  ks_builder *kb = e->kb;
  kr_value x = kr_op_operand(op, 0);
  unsigned r;
  es_dims(x, &r);
  const int64_t *wd, *st, *dl;
  if (kr_op_attr_ints(op, "window", &wd) != r || kr_op_attr_ints(op, "strides", &st) != r ||
      kr_op_attr_ints(op, "dilations", &dl) != r)
    return es_error(e, op, "malformed window");
  const char *ks = kr_op_attr_string(op, "kind");
  red_kind k = ks && !strcmp(ks, "max") ? RED_MAX : ks && !strcmp(ks, "min") ? RED_MIN : RED_SUM;
  kr_type elem = es_elem_of(x);
  kr_type at = acc_type(e, elem, k);
  kr_value acc = es_acc_alloc(e, at);
  es_acc_store(e, acc, identity(e, elem, at, k));
  ks_scope scopes[KR_KERNEL_MAX_RANK];
  unsigned nloops = 0;
  kr_value xi[KR_KERNEL_MAX_RANK];
  for (unsigned d = 0; d < r; d++) {
    kr_value base = ks_mulc(kb, index[d], st[d]);
    if (wd[d] > 1) {
      kr_value w = ks_for_c(kb, 0, wd[d], 1, &scopes[nloops]);
      kr_op_set_attr(scopes[nloops].op, KR_KERNEL_ATTR_UNROLL,
                     kr_attr_integer(e->k->ctx, kr_type_integer(e->k->ctx, 64, KR_SIGNLESS), wd[d]));
      nloops++;
      xi[d] = ks_add(kb, base, ks_mulc(kb, w, dl[d]));
    } else {
      xi[d] = base;
    }
  }
  kr_value v = ks_emit_element(e, x, xi);
  if (v) es_acc_store(e, acc, combine(e, es_acc_load(e, acc), v, elem, k));
  while (nloops) ks_end(kb, &scopes[--nloops]);
  if (!v) return NULL;
  return finish(e, es_acc_load(e, acc), elem);
}

/* ---------------------------------------------------------------------------------------------
 * reduce_* and arg_* (generic) */

static kr_value reduce_axes(ks_emitter *e, kr_op *op, const kr_value *index, red_kind k) {
  ks_builder *kb = e->kb;
  kr_value x = kr_op_operand(op, 0);
  unsigned r;
  const int64_t *xd = es_dims(x, &r);
  const int64_t *axes;
  unsigned na = kr_op_attr_ints(op, "axes", &axes);
  bool keep = kr_op_attr_int(op, "keepdims") != 0, red[KR_KERNEL_MAX_RANK] = {0};
  for (unsigned i = 0; i < na; i++) {
    if (axes[i] < 0 || axes[i] >= (int64_t)r) return es_error(e, op, "reduction axis out of range");
    red[axes[i]] = true;
  }
  kr_type elem = es_elem_of(x);
  kr_type at = acc_type(e, elem, k);
  kr_value acc = es_acc_alloc(e, at);
  es_acc_store(e, acc, identity(e, elem, at, k));
  kr_value xi[KR_KERNEL_MAX_RANK];
  ks_scope scopes[KR_KERNEL_MAX_RANK];
  unsigned nloops = 0, yi = 0;
  for (unsigned d = 0; d < r; d++) {
    if (red[d]) {
      xi[d] = ks_for_c(kb, 0, xd[d], 1, &scopes[nloops++]);
      if (keep) yi++;
    } else {
      xi[d] = index[yi++];
    }
  }
  kr_value v = ks_emit_element(e, x, xi);
  if (v) es_acc_store(e, acc, combine(e, es_acc_load(e, acc), v, elem, k));
  while (nloops) ks_end(kb, &scopes[--nloops]);
  if (!v) return NULL;
  return finish(e, es_acc_load(e, acc), elem);
}

/* arg_max / arg_min: the first (select_last_index: last) extreme along `axis`, a NaN being the
 * extreme (kernels_reduce.c DEFINE_ARG). */
static kr_value arg_extremum(ks_emitter *e, kr_op *op, const kr_value *index, bool is_max) {
  ks_builder *kb = e->kb;
  kr_context *ctx = e->k->ctx;
  kr_value x = kr_op_operand(op, 0);
  unsigned r;
  const int64_t *xd = es_dims(x, &r);
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < 0 || axis >= (int64_t)r || xd[axis] < 1) return es_error(e, op, "arg axis out of range or empty");
  bool keep = kr_op_attr_int(op, "keepdims") != 0, last = kr_op_attr_int(op, "select_last_index") != 0;
  kr_type elem = es_elem_of(x), st = es_scalar_type(e, elem), i64 = kr_type_integer(ctx, 64, KR_SIGNLESS);
  kr_value xi[KR_KERNEL_MAX_RANK];
  for (unsigned d = 0, yi = 0; d < r; d++) {
    if ((int64_t)d == axis) {
      xi[d] = ks_index(kb, 0);
      if (keep) yi++;
    } else {
      xi[d] = index[yi++];
    }
  }
  kr_value first = ks_emit_element(e, x, xi);
  if (!first) return NULL;
  kr_value best = es_acc_alloc(e, st), bi = es_acc_alloc(e, i64);
  es_acc_store(e, best, first);
  es_acc_store(e, bi, es_const_int(e, i64, 0));
  ks_scope s;
  kr_value j = ks_for_c(kb, 1, xd[axis], 1, &s);
  xi[axis] = j;
  kr_value v = ks_emit_element(e, x, xi);
  if (v) {
    kr_value b = es_acc_load(e, best), better;
    if (is_float(elem)) {
      const char *p = is_max ? (last ? "oge" : "ogt") : (last ? "ole" : "olt");
      kr_value vn = es_cmpf(e, "uno", v, v), bn = es_cmpf(e, "uno", b, b);
      kr_value plain = es_or(e, vn, es_cmpf(e, p, v, b));
      better = es_select(e, bn, last ? vn : es_bool(e, false), plain);
    } else {
      bool uns = es_is_unsigned(elem) || st->u.integer.width == 1;
      const char *p = is_max ? (last ? (uns ? "uge" : "sge") : (uns ? "ugt" : "sgt"))
                             : (last ? (uns ? "ule" : "sle") : (uns ? "ult" : "slt"));
      better = es_cmpi(e, p, v, b);
    }
    es_acc_store(e, best, es_select(e, better, v, b));
    kr_value ji = es_op1(e, "arith.index_cast", j, i64);
    kr_value old = es_acc_load(e, bi);
    es_acc_store(e, bi, es_select(e, better, ji, old));
  }
  ks_end(kb, &s);
  if (!v) return NULL;
  return es_acc_load(e, bi);
}

kr_value es_reduction(ks_emitter *e, kr_op *op, const kr_value *index) {
  const char *n = op->name + 5;
  if (!strcmp(n, "cum_sum")) return cum_sum(e, op, index);
  if (!strcmp(n, "reduce_window")) return reduce_window(e, op, index);
  if (!strcmp(n, "reduce_sum")) return reduce_axes(e, op, index, RED_SUM);
  if (!strcmp(n, "reduce_prod")) return reduce_axes(e, op, index, RED_PROD);
  if (!strcmp(n, "reduce_max")) return reduce_axes(e, op, index, RED_MAX);
  if (!strcmp(n, "reduce_min")) return reduce_axes(e, op, index, RED_MIN);
  if (!strcmp(n, "arg_max")) return arg_extremum(e, op, index, true);
  if (!strcmp(n, "arg_min")) return arg_extremum(e, op, index, false);
  return es_error(e, op, "'%s' has no element rule", op->name);
}
