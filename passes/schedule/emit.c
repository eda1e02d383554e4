/* passes/schedule/emit.c - the element emitter (schedule.h): compute-inline of a kernel's
 * primitives, Hidet's post-scheduling fusion (ASPLOS'23 §5) seen from the consumer: a template
 * asks for the scalar value of element `index` of a tensor of the old body, and the emitter walks
 * the producers back to the kernel's inputs, inlining elementwise expressions (emit_elementwise.c)
 * and index maps (emit_layout.c), with loads from the global buffers at the leaves.
 *
 * This file holds the dispatch, memoisation, overrides, the leaves (kernel arguments and
 * constants), the vector path and the support checks, plus the scalar builders the rule files
 * share (emit_impl.h).
 *
 * Memoisation: an element is emitted once per (value, index values, width) and reused while the
 * insertion block is the block it was emitted in or a block nested in it and the value comes
 * before the insertion point (then the value dominates the use).  Index values compare by identity, or by value when both are
 * arith.constant, since the index builders (build.c) create a fresh constant for each literal. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "passes/schedule/emit_impl.h"

/* ---------------------------------------------------------------------------------------------
 * Types and shared scalar builders */

kr_type es_elem_of(kr_value tensor) { return kr_type_element(kr_value_type(tensor)); }

const int64_t *es_dims(kr_value tensor, unsigned *rank) {
  kr_type t = kr_value_type(tensor);
  *rank = t->u.shaped.rank;
  return t->u.shaped.dims;
}

bool es_is_unsigned(kr_type elem) { return elem->kind == KR_TYPE_INTEGER && elem->u.integer.sign == KR_UNSIGNED; }

kr_type es_scalar_type(ks_emitter *e, kr_type elem) { return ks_scalar_type(e->k->ctx, elem); }

kr_value es_error(ks_emitter *e, kr_op *op, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!e->failed) {
    if (op) kr_op_emit_error(op, "schedule: %s", msg);
    else kr_op_emit_error(e->k->func, "schedule: %s", msg);
  }
  e->failed = true;
  return NULL;
}

kr_value es_op1(ks_emitter *e, const char *name, kr_value a, kr_type result) {
  return ks_create1(e->kb, name, &a, 1, result);
}

kr_value es_op2(ks_emitter *e, const char *name, kr_value a, kr_value b) {
  kr_value ops[2] = {a, b};
  return ks_create1(e->kb, name, ops, 2, kr_value_type(a));
}

/* MLIR's predicate numbering (dialects/arith/ops.def). */
static const char *const cmpi_names[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
static const char *const cmpf_names[] = {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                                         "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};

static kr_value cmp(ks_emitter *e, const char *name, const char *const *names, unsigned n, const char *pred, kr_value a,
                    kr_value b) {
  unsigned p = 0;
  while (p < n && strcmp(names[p], pred)) p++;
  kr_value ops[2] = {a, b};
  kr_context *ctx = e->k->ctx;
  kr_op *op = ks_create(e->kb, name, ops, 2, kr_type_integer(ctx, 1, KR_SIGNLESS), 0);
  kr_op_set_attr(op, "predicate", kr_attr_integer(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), p));
  return kr_op_result(op, 0);
}

kr_value es_cmpi(ks_emitter *e, const char *pred, kr_value a, kr_value b) {
  return cmp(e, "arith.cmpi", cmpi_names, 10, pred, a, b);
}

kr_value es_cmpf(ks_emitter *e, const char *pred, kr_value a, kr_value b) {
  return cmp(e, "arith.cmpf", cmpf_names, 16, pred, a, b);
}

kr_value es_select(ks_emitter *e, kr_value c, kr_value a, kr_value b) {
  if (a == b) return a;
  kr_value ops[3] = {c, a, b};
  return ks_create1(e->kb, "arith.select", ops, 3, kr_value_type(a));
}

kr_value es_const_int(ks_emitter *e, kr_type t, int64_t v) { return ks_const_int(e->kb, t, v); }
kr_value es_const_float(ks_emitter *e, kr_type t, double v) { return ks_const_float(e->kb, t, v); }
kr_value es_bool(ks_emitter *e, bool v) {
  return ks_const_int(e->kb, kr_type_integer(e->k->ctx, 1, KR_SIGNLESS), v ? 1 : 0);
}
kr_value es_or(ks_emitter *e, kr_value a, kr_value b) { return es_op2(e, "arith.ori", a, b); }

kr_value es_index_cmp(ks_emitter *e, const char *pred, kr_value a, int64_t c) {
  return es_cmpi(e, pred, a, ks_index(e->kb, c));
}

kr_value es_clamp_index(ks_emitter *e, kr_value i, int64_t lo, int64_t hi) {
  int64_t c;
  if (ks_const_value(i, &c)) return ks_index(e->kb, c < lo ? lo : c > hi ? hi : c);
  kr_value r = es_op2(e, "arith.maxsi", i, ks_index(e->kb, lo));
  return ks_min(e->kb, r, ks_index(e->kb, hi));
}

kr_value es_acc_alloc(ks_emitter *e, kr_type t) {
  int64_t one = 1;
  return ks_alloc(e->kb, KR_KERNEL_SPACE_LOCAL, 1, &one, NULL, t);
}

kr_value es_acc_load(ks_emitter *e, kr_value acc) {
  kr_value zero = ks_index(e->kb, 0);
  return es_load(e, acc, &zero, 1);
}

void es_acc_store(ks_emitter *e, kr_value acc, kr_value v) {
  kr_value zero = ks_index(e->kb, 0);
  ks_store(e->kb, v, acc, &zero);
}

kr_type es_compute_type(ks_emitter *e, kr_type elem) {
  if (elem->kind == KR_TYPE_FLOAT && (elem->u.fkind == KR_F16 || elem->u.fkind == KR_BF16))
    return kr_type_float(e->k->ctx, KR_F32);
  return elem;
}

kr_value es_to_compute(ks_emitter *e, kr_value x, kr_type elem) {
  kr_type c = es_compute_type(e, elem);
  return c == elem ? x : es_op1(e, "arith.extf", x, c);
}

kr_value es_from_compute(ks_emitter *e, kr_value x, kr_type elem) {
  return kr_value_type(x) == elem ? x : es_op1(e, "arith.truncf", x, elem);
}

kr_value es_fmax(ks_emitter *e, kr_value a, kr_value b, bool is_max) {
  /* One statement per op: C leaves the order of argument evaluation open, the IR must not. */
  kr_value gt = es_cmpf(e, is_max ? "ogt" : "olt", a, b);
  kr_value nan = es_cmpf(e, "uno", a, a);
  kr_value c = es_or(e, gt, nan);
  return es_select(e, c, a, b);
}

/* ---------------------------------------------------------------------------------------------
 * Lifetime, overrides, memoisation */

ks_emitter *ks_emitter_create(ks_kernel *k, ks_builder *kb) {
  ks_emitter *e = calloc(1, sizeof *e);
  if (e) {
    e->k = k;
    e->kb = kb;
  }
  return e;
}

void ks_emitter_destroy(ks_emitter *e) {
  if (!e) return;
  free(e->memo);
  free(e->overrides);
  free(e);
}

ks_builder *ks_emitter_builder(ks_emitter *e) { return e->kb; }

void ks_emitter_override(ks_emitter *e, kr_value v, ks_element_fn fn, void *user) {
  for (size_t i = 0; i < e->num_overrides; i++)
    if (e->overrides[i].v == v) {
      e->overrides[i].fn = fn;
      e->overrides[i].user = user;
      return;
    }
  if (e->num_overrides == e->cap_overrides) {
    size_t cap = e->cap_overrides ? 2 * e->cap_overrides : 8;
    es_override *o = realloc(e->overrides, cap * sizeof *o);
    if (!o) return;
    e->overrides = o;
    e->cap_overrides = cap;
  }
  e->overrides[e->num_overrides++] = (es_override){v, fn, user};
}

static const es_override *find_override(ks_emitter *e, kr_value v) {
  for (size_t i = 0; i < e->num_overrides; i++)
    if (e->overrides[i].v == v && e->overrides[i].fn) return &e->overrides[i];
  return NULL;
}

#define ES_LANE_KEY 16 /* memo widths from here on key lane indices (lane_index) */

static bool same_index(kr_value a, kr_value b) {
  if (a == b) return true;
  int64_t x, y;
  return ks_const_value(a, &x) && ks_const_value(b, &y) && x == y;
}

/* Whether value v, emitted while the insertion block was `blk`, dominates the builder's
 * insertion point: `blk` must be the insertion block or enclose it, and v must come before the
 * point (appending at the end of `blk` always does; an insertion point in the middle of a block,
 * or an ancestor region op created before v, is checked by block order). */
static bool dominates_insertion(kr_value v, kr_block *blk, const kr_builder *b) {
  kr_block *cur = b->block;
  kr_op *at = b->before; /* NULL: the end of cur */
  while (cur && cur != blk) {
    at = kr_block_parent_op(cur);
    cur = at ? at->block : NULL;
  }
  if (!cur) return false;
  kr_op *d = kr_value_defining_op(v);
  if (!at || !d || d->block != cur) return true;
  return kr_op_is_before_in_block(d, at);
}

static es_memo *memo_find(ks_emitter *e, kr_value v, const kr_value *index, unsigned rank, unsigned width) {
  for (size_t i = e->num_memo; i-- > 0;) {
    es_memo *m = &e->memo[i];
    if (m->v != v || m->width != width || m->rank != rank) continue;
    bool eq = true;
    for (unsigned d = 0; d < rank && eq; d++) eq = same_index(m->index[d], index[d]);
    if (eq && dominates_insertion(m->out[0], m->block, &e->kb->b)) return m;
  }
  return NULL;
}

static void memo_add(ks_emitter *e, kr_value v, const kr_value *index, unsigned rank, unsigned width,
                     const kr_value *out) {
  if (rank > KR_KERNEL_MAX_RANK || (width > 4 && width < ES_LANE_KEY)) return;
  if (e->num_memo == e->cap_memo) {
    size_t cap = e->cap_memo ? 2 * e->cap_memo : 64;
    es_memo *m = realloc(e->memo, cap * sizeof *m);
    if (!m) return; /* memoisation is an optimisation: without memory, emit again */
    e->memo = m;
    e->cap_memo = cap;
  }
  es_memo *m = &e->memo[e->num_memo++];
  memset(m, 0, sizeof *m);
  m->v = v;
  m->rank = rank;
  m->width = width;
  for (unsigned d = 0; d < rank; d++) m->index[d] = index[d];
  for (unsigned l = 0; l < width && l < 4; l++) m->out[l] = out[l];
  m->block = e->kb->b.block;
}

/* ---------------------------------------------------------------------------------------------
 * Leaves: kernel arguments and constants */

/* The global buffer of v when v is an argument of the old body, else NULL. */
static kr_value input_buffer(ks_emitter *e, kr_value v) {
  for (unsigned i = 0; i < e->k->num_inputs; i++)
    if (e->k->inputs[i] == v) return e->k->in_bufs[i];
  return NULL;
}

kr_value es_load(ks_emitter *e, kr_value buf, const kr_value *index, unsigned width) {
  return ks_load(e->kb, buf, index, width);
}


static bool is_constant_op(kr_op *d) {
  return d && (!strcmp(d->name, KR_PRIM_CONSTANT_OP) || !strcmp(d->name, "arith.constant"));
}

/* Constants with more elements than this are not inlined (orchestration passes them as launch
 * operands unless they are splats or have at most 16 elements, passes/orchestrate/emit.c). */
#define ES_MAX_INLINE_CONSTANT 64

static kr_attr dense_value(kr_op *d) {
  kr_attr a = kr_op_get_attr(d, "value");
  return a && a->kind == KR_ATTR_DENSE ? a : NULL;
}

static bool constant_supported(kr_op *d) {
  kr_attr a = dense_value(d);
  return a && (a->u.dense.splat || kr_type_num_elements(a->type) <= ES_MAX_INLINE_CONSTANT);
}

/* Element i of a dense attribute as an arith.constant of the scalar type. */
static kr_value dense_element(ks_emitter *e, kr_attr a, int64_t i) {
  kr_type elem = kr_type_element(a->type), st = es_scalar_type(e, elem);
  size_t eb = kr_type_storage_bytes(elem);
  const unsigned char *p = (const unsigned char *)a->u.dense.data + (a->u.dense.splat ? 0 : (size_t)i * eb);
  uint64_t bits = 0;
  for (size_t b = 0; b < eb && b < 8; b++) bits |= (uint64_t)p[b] << (8 * b);
  if (elem->kind == KR_TYPE_FLOAT) return es_const_float(e, st, kr_float_from_bits(elem->u.fkind, bits));
  return es_const_int(e, st, (int64_t)bits); /* kr_attr_integer wraps to the width */
}

/* A splat: one constant.  A small dense constant: a select chain on the linear index. */
static kr_value constant_element(ks_emitter *e, kr_op *d, kr_value v, const kr_value *index) {
  kr_attr a = dense_value(d);
  if (!constant_supported(d))
    return es_error(e, d, "a dense constant of more than %d elements cannot be inlined into a kernel",
                    ES_MAX_INLINE_CONSTANT);
  if (a->u.dense.splat) return dense_element(e, a, 0);
  unsigned rank;
  const int64_t *dims = es_dims(v, &rank);
  int64_t n = kr_type_num_elements(a->type);
  if (n <= 0) return es_error(e, d, "an element of an empty constant");
  kr_value lin = ks_linearize(e->kb, index, dims, rank);
  int64_t c;
  if (ks_const_value(lin, &c) && c >= 0 && c < n) return dense_element(e, a, c);
  kr_value r = dense_element(e, a, n - 1);
  for (int64_t i = n - 1; i-- > 0;) r = es_select(e, es_index_cmp(e, "eq", lin, i), dense_element(e, a, i), r);
  return r;
}

/* ---------------------------------------------------------------------------------------------
 * Scalar emission */

kr_value ks_emit_element(ks_emitter *e, kr_value v, const kr_value *index) {
  if (e->failed) return NULL;
  unsigned rank;
  es_dims(v, &rank);
  if (rank > KR_KERNEL_MAX_RANK) return es_error(e, kr_value_defining_op(v), "rank %u is above %d", rank, KR_KERNEL_MAX_RANK);
  es_memo *m = memo_find(e, v, index, rank, 1);
  if (m) return m->out[0];
  kr_value r = NULL;
  const es_override *o = find_override(e, v);
  kr_op *d = kr_value_defining_op(v);
  if (o) {
    r = o->fn(e, o->user, v, index);
    if (!r) e->failed = true;
  } else if (!d) {
    kr_value buf = input_buffer(e, v);
    if (!buf) return es_error(e, NULL, "a block argument that is not a kernel input");
    r = es_load(e, buf, index, 1);
  } else {
    kr_attr saved = e->kb->loc;
    e->kb->loc = d->loc; /* every op implementing a primitive carries its location */
    if (is_constant_op(d)) {
      r = constant_element(e, d, v, index);
    } else {
      switch (kr_prim_op_class(d)) {
      case KR_PRIM_ELEMENTWISE: r = es_elementwise(e, d, index); break;
      case KR_PRIM_LAYOUT: r = es_layout(e, d, index); break;
      case KR_PRIM_REDUCTION: r = es_reduction(e, d, index); break;
      case KR_PRIM_CONSTANT: r = constant_element(e, d, v, index); break;
      case KR_PRIM_LINEAR:
        r = es_error(e, d, "'%s' has no element rule: a linear template must override it", d->name);
        break;
      default: r = es_error(e, d, "'%s' is not a primitive the emitter knows", d->name); break;
      }
    }
    e->kb->loc = saved;
  }
  if (r) memo_add(e, v, index, rank, 1, &r);
  return r;
}

/* ---------------------------------------------------------------------------------------------
 * The vector path */

static bool vec_ok(ks_emitter *e, kr_value v, unsigned width, unsigned depth);

static bool operands_vec_ok(ks_emitter *e, kr_op *d, unsigned width, unsigned depth) {
  for (unsigned i = 0; i < d->num_operands; i++)
    if (!vec_ok(e, kr_op_operand(d, i), width, depth + 1)) return false;
  return true;
}

static bool vec_ok(ks_emitter *e, kr_value v, unsigned width, unsigned depth) {
  if (depth > 256) return false;
  if (find_override(e, v)) return true;
  unsigned rank;
  const int64_t *dims = es_dims(v, &rank);
  kr_op *d = kr_value_defining_op(v);
  if (!d) return rank >= 1 && dims[rank - 1] % width == 0; /* a global buffer, row-major */
  if (is_constant_op(d)) return true;
  switch (kr_prim_op_class(d)) {
  case KR_PRIM_ELEMENTWISE: return operands_vec_ok(e, d, width, depth);
  case KR_PRIM_LAYOUT: {
    bool bcast = false;
    if (!es_layout_vector_map(e, d, NULL, width, NULL, &bcast, false)) return false;
    return bcast || vec_ok(e, kr_op_operand(d, 0), width, depth + 1);
  }
  default: return false;
  }
}

bool ks_emit_vectorizable(ks_emitter *e, kr_value v, unsigned width) {
  unsigned rank;
  const int64_t *dims = es_dims(v, &rank);
  if (width < 2 || rank < 1 || dims[rank - 1] % width) return false;
  return vec_ok(e, v, width, 0);
}

/* Lane indices base + lane are memoised like elements (key: the base value, rank 0, width
 * ES_LANE_KEY + lane), so the per-lane elements of different tensors find each other's. */
static void lane_index(ks_emitter *e, const kr_value *index, unsigned rank, unsigned lane, kr_value *out) {
  for (unsigned d = 0; d < rank; d++) out[d] = index[d];
  kr_value base = index[rank - 1];
  es_memo *m = lane ? memo_find(e, base, NULL, 0, ES_LANE_KEY + lane) : NULL;
  if (m) {
    out[rank - 1] = m->out[0];
    return;
  }
  out[rank - 1] = ks_addc(e->kb, base, lane);
  if (lane) memo_add(e, base, NULL, 0, ES_LANE_KEY + lane, &out[rank - 1]);
}

static kr_status per_lane(ks_emitter *e, kr_value v, const kr_value *index, unsigned rank, unsigned width,
                          kr_value *out) {
  kr_value li[KR_KERNEL_MAX_RANK];
  for (unsigned l = 0; l < width; l++) {
    lane_index(e, index, rank, l, li);
    out[l] = ks_emit_element(e, v, li);
    if (!out[l]) return KR_FAILURE;
  }
  return KR_SUCCESS;
}

static kr_status vec_emit(ks_emitter *e, kr_value v, const kr_value *index, unsigned width, kr_value *out);

static kr_status vec_emit_uncached(ks_emitter *e, kr_value v, const kr_value *index, unsigned rank, unsigned width,
                                   kr_value *out) {
  const int64_t *dims = es_dims(v, &rank);
  kr_op *d = kr_value_defining_op(v);
  if (find_override(e, v)) return per_lane(e, v, index, rank, width, out);
  if (!d) {
    kr_value buf = input_buffer(e, v);
    if (!buf || dims[rank - 1] % width) return per_lane(e, v, index, rank, width, out);
    kr_value vec = es_load(e, buf, index, width);
    for (unsigned l = 0; l < width; l++) out[l] = ks_vector_extract(e->kb, vec, l);
    return KR_SUCCESS;
  }
  if (is_constant_op(d)) {
    kr_attr a = dense_value(d);
    if (!a || !a->u.dense.splat) return per_lane(e, v, index, rank, width, out);
    kr_value s = ks_emit_element(e, v, index);
    for (unsigned l = 0; l < width; l++) out[l] = s;
    return s ? KR_SUCCESS : KR_FAILURE;
  }
  kr_prim_class cls = kr_prim_op_class(d);
  if (cls == KR_PRIM_ELEMENTWISE) {
    kr_value lanes[3][4];
    if (d->num_operands > 3) return per_lane(e, v, index, rank, width, out);
    for (unsigned i = 0; i < d->num_operands; i++)
      if (vec_emit(e, kr_op_operand(d, i), index, width, lanes[i])) return KR_FAILURE;
    kr_attr saved = e->kb->loc;
    e->kb->loc = d->loc;
    for (unsigned l = 0; l < width && !e->failed; l++) {
      kr_value ops[3], li[KR_KERNEL_MAX_RANK];
      for (unsigned i = 0; i < d->num_operands; i++) ops[i] = lanes[i][l];
      bool iota = !strcmp(d->name, "prim.iota"); /* the only rule that reads the index */
      if (iota) lane_index(e, index, rank, l, li);
      out[l] = es_elementwise_apply(e, d, ops, iota ? li : index);
      if (!out[l]) e->failed = true;
    }
    e->kb->loc = saved;
    return e->failed ? KR_FAILURE : KR_SUCCESS;
  }
  if (cls == KR_PRIM_LAYOUT) {
    kr_value oi[KR_KERNEL_MAX_RANK];
    bool bcast = false;
    kr_attr saved = e->kb->loc;
    e->kb->loc = d->loc;
    bool ok = es_layout_vector_map(e, d, index, width, oi, &bcast, true);
    e->kb->loc = saved;
    if (!ok) return per_lane(e, v, index, rank, width, out);
    kr_value x = kr_op_operand(d, 0);
    if (bcast) {
      kr_value s = ks_emit_element(e, x, oi);
      for (unsigned l = 0; l < width; l++) out[l] = s;
      return s ? KR_SUCCESS : KR_FAILURE;
    }
    return vec_emit(e, x, oi, width, out);
  }
  return per_lane(e, v, index, rank, width, out);
}

static kr_status vec_emit(ks_emitter *e, kr_value v, const kr_value *index, unsigned width, kr_value *out) {
  if (e->failed) return KR_FAILURE;
  unsigned rank;
  es_dims(v, &rank);
  if (rank < 1 || rank > KR_KERNEL_MAX_RANK) {
    es_error(e, kr_value_defining_op(v), "a vector of elements needs a tensor of rank 1 to %d", KR_KERNEL_MAX_RANK);
    return KR_FAILURE;
  }
  es_memo *m = memo_find(e, v, index, rank, width);
  if (m) {
    for (unsigned l = 0; l < width; l++) out[l] = m->out[l];
    return KR_SUCCESS;
  }
  if (vec_emit_uncached(e, v, index, rank, width, out)) {
    e->failed = true;
    return KR_FAILURE;
  }
  memo_add(e, v, index, rank, width, out);
  return KR_SUCCESS;
}

kr_status ks_emit_elements(ks_emitter *e, kr_value v, const kr_value *index, unsigned width, kr_value *out) {
  if (width != 1 && width != 2 && width != 4) {
    es_error(e, kr_value_defining_op(v), "vector width %u is not 1, 2 or 4", width);
    return KR_FAILURE;
  }
  if (width == 1) {
    out[0] = ks_emit_element(e, v, index);
    return out[0] ? KR_SUCCESS : KR_FAILURE;
  }
  return vec_emit(e, v, index, width, out);
}

/* ---------------------------------------------------------------------------------------------
 * Support */

static bool supported(ks_emitter *e, kr_value v, unsigned depth) {
  if (depth > 1024) return false;
  if (find_override(e, v)) return true;
  kr_op *d = kr_value_defining_op(v);
  if (!d) return input_buffer(e, v) != NULL;
  if (is_constant_op(d)) return constant_supported(d);
  kr_prim_class c = kr_prim_op_class(d);
  if (c != KR_PRIM_ELEMENTWISE && c != KR_PRIM_LAYOUT && c != KR_PRIM_REDUCTION) return false;
  for (unsigned i = 0; i < d->num_operands; i++)
    if (!supported(e, kr_op_operand(d, i), depth + 1)) return false;
  return true;
}

bool ks_emit_supported(ks_emitter *e, kr_value v) { return supported(e, v, 0); }
