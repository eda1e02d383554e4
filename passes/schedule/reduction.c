/* passes/schedule/reduction.c - template "reduction" (docs/Scheduling.md "Reduction kernels"):
 * the axis-reduction form of the schedulability contract (docs/Orchestration.md) as one SIMT
 * kernel, Hidet-style (ASPLOS'23 §4-5, its reduce template; the CUDA "block reduce" pattern).
 *
 * The kernel's reductions all read tensors of one shape X and reduce one axis set A; K is X with
 * A set to 1 and D is X without A.  A *row* is an index of K (R rows of L = prod(X[A]) elements).
 * Every other member has shape X, K or D, so with one row per group of threads every member is
 * row-local and is computed by compute-inline (the element emitter, emit*.c) at the element it
 * is needed:
 *
 *   block b, thread t:   (r, l) = spatial(P, T) of t   (rows per block P, threads per row T)
 *   row = b * P + r      (a row past R reads row R-1's elements and stores nothing)
 *   for each phase (a maximal run of reductions none of which reads another's result):
 *     acc_i = identity_i for each reduction i of the phase (registers)
 *     for j in repeat(ceil(L / T)) * spatial(T) of l, j < L:  acc_i = combine_i(acc_i, x_i[row, j])
 *     warp butterfly: kernel.shuffle xor over the row's lanes of the warp
 *     when a row spans G > 1 warps: one lane per warp stores its partials to shared[G][P],
 *       ONE kernel.barrier, a final reduction of the G partials
 *     -> every thread of the row holds each result: registered with ks_emitter_override, so
 *        later members (exp(x - max) in softmax, (x - mean)^2 in layer norm) inline it; K/D
 *        members computed from results (mean, 1/sqrt(var + eps)) are emitted once per row
 *   written tensors of shape X: for j in the same mapping, store element (row, j);
 *   of shape K or D: thread l == 0 stores the row's element.
 *
 * Two thread layouts keep global accesses coalesced:
 *   row-major ("row"): when the innermost axis of X is reduced (elements of a row are
 *     contiguous), consecutive threads take consecutive elements of one row; T = the power of
 *     two >= L, at most 256 (1024 when there are fewer than 128 rows), P = 256 / T rows per
 *     block for short rows (several rows per warp when T < 32); with long rows whose last axis
     splits into aligned runs a task is a vector of 4 (or 2) elements (choose_vector);
 *   column-major ("col"): when the innermost axis is kept (a reduction over leading or middle
 *     axes), consecutive threads take consecutive rows (P up to 32, the innermost kept extent),
 *     and the T = 256 / P threads of a row split its elements: a warp reads 32 / P elements of
 *     P neighbouring rows, contiguous in memory.
 * Shared partials go to distinct 4/8-byte words per lane (no bank conflicts; the reads of one
 * row's partials by a warp are broadcasts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/diag.h"
#include "korch/op.h"
#include "korch/prim.h"
#include "passes/schedule/reduction_impl.h"

#define MAX_RED 16

typedef enum shape_class { SHAPE_X, SHAPE_K, SHAPE_D, SHAPE_OTHER } shape_class;

typedef struct red {
  kr_op *op;
  kr_value in, out;
  ks_red_acc acc;
  kr_value result; /* element of the result, valid after its phase (index for arg_*) */
} red;

typedef struct plan {
  ks_kernel *k;
  unsigned rank;                 /* rank of X */
  int64_t x[KR_KERNEL_MAX_RANK]; /* X */
  bool in_a[KR_KERNEL_MAX_RANK]; /* axis d of X is reduced */
  int64_t kdims[KR_KERNEL_MAX_RANK];
  int64_t adims[KR_KERNEL_MAX_RANK]; /* dims of the reduced axes, in order */
  unsigned na;
  int64_t rows, len; /* R, L */
  bool col;          /* column-major thread layout */
  int64_t rpb, tpr;  /* P rows per block, T threads per row (powers of two) */
  int64_t vec;       /* elements per access: 1, or 2/4 (vector loads and stores) */
  int64_t grid;
  red reds[MAX_RED];
  unsigned nred;
  /* emission state */
  ks_builder kb;
  ks_emitter *e;
  kr_value rl, lir, row, valid;      /* row in block, lane in row, row, row < R (NULL: always) */
  kr_value kept[KR_KERNEL_MAX_RANK]; /* this row's coordinate on each kept axis of X */
  struct row_value *rowvals;         /* K/D-shaped members computed from reductions */
  unsigned nrowvals;
  unsigned nphases;
} plan;

/* A K- or D-shaped member that depends on reductions (the mean from the sum, 1/sqrt(var + eps)):
 * computed once per row after the last reduction it needs (`after`), in a register, instead of
 * once per element where X-shaped members use it. */
typedef struct row_value {
  kr_op *op;
  int after;      /* index of the last reduction it depends on */
  kr_value value; /* its element for this thread's row, once emitted */
} row_value;

static int64_t pow2ceil(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

static kr_type tensor_of(kr_value v) {
  kr_type t = kr_value_type(v);
  return t && t->kind == KR_TYPE_TENSOR && kr_type_has_static_shape(t) ? t : NULL;
}

static bool same_dims(kr_type t, unsigned rank, const int64_t *dims) {
  if (t->u.shaped.rank != rank) return false;
  for (unsigned i = 0; i < rank; i++)
    if (t->u.shaped.dims[i] != dims[i]) return false;
  return true;
}

static shape_class classify(const plan *p, kr_value v) {
  kr_type t = tensor_of(v);
  if (!t) return SHAPE_OTHER;
  if (same_dims(t, p->rank, p->x)) return SHAPE_X;
  if (same_dims(t, p->rank, p->kdims)) return SHAPE_K;
  int64_t d[KR_KERNEL_MAX_RANK];
  unsigned n = 0;
  for (unsigned i = 0; i < p->rank; i++)
    if (!p->in_a[i]) d[n++] = p->x[i];
  return same_dims(t, n, d) ? SHAPE_D : SHAPE_OTHER;
}

/* X, A, K and the reductions of the kernel; errors for a kernel outside the axis-reduction form
 * of the contract (orchestration never emits one). */
static kr_status analyse(plan *p) {
  ks_kernel *k = p->k;
  kr_op **members;
  unsigned n = ks_members(k, &members);
  kr_status st = KR_SUCCESS;
  for (unsigned i = 0; i < n && !KR_FAILED(st); i++) {
    kr_op *op = members[i];
    if (kr_prim_op_class(op) != KR_PRIM_REDUCTION) continue;
    if (p->nred == MAX_RED) {
      st = kr_op_emit_error(op, "schedule: the reduction template handles at most %d reductions per kernel", MAX_RED);
      break;
    }
    red *r = &p->reds[p->nred];
    r->op = op;
    r->in = kr_op_operand(op, 0);
    r->out = kr_op_result(op, 0);
    kr_type it = tensor_of(r->in), ot = tensor_of(r->out);
    if (!it || !ot || !ks_red_acc_init(&r->acc, k->ctx, op, it->u.shaped.elem, ot->u.shaped.elem)) {
      st = kr_op_emit_error(op, "schedule: the reduction template has no rule for this reduction");
      break;
    }
    bool mask[KR_KERNEL_MAX_RANK] = {false};
    unsigned rank = it->u.shaped.rank;
    if (rank > KR_KERNEL_MAX_RANK) {
      st = kr_op_emit_error(op, "schedule: rank %u exceeds the kernel buffers' %d", rank, KR_KERNEL_MAX_RANK);
      break;
    }
    if (ks_red_is_arg(&r->acc)) {
      int64_t axis = kr_op_attr_int(op, "axis");
      if (axis < 0 || axis >= (int64_t)rank) {
        st = kr_op_emit_error(op, "schedule: attribute 'axis' %lld is out of range [0, %u)", (long long)axis, rank);
        break;
      }
      mask[axis] = true;
    } else {
      const int64_t *axes;
      unsigned na = kr_op_attr_ints(op, "axes", &axes);
      for (unsigned a = 0; a < na; a++)
        if (axes[a] >= 0 && axes[a] < (int64_t)rank) mask[axes[a]] = true;
    }
    if (p->nred == 0) {
      p->rank = rank;
      for (unsigned d = 0; d < rank; d++) {
        p->x[d] = it->u.shaped.dims[d];
        p->in_a[d] = mask[d];
      }
    } else {
      bool same = same_dims(it, p->rank, p->x);
      for (unsigned d = 0; same && d < rank; d++) same = mask[d] == p->in_a[d];
      if (!same)
        st = kr_op_emit_error(op, "schedule: the reductions of a reduction kernel must read one shape and reduce "
                                  "one axis set (docs/Orchestration.md, the schedulability contract)");
    }
    p->nred++;
  }
  if (!KR_FAILED(st) && p->nred == 0) st = kr_op_emit_error(k->func, "schedule: a reduction kernel without reductions");
  if (!KR_FAILED(st)) {
    p->rows = p->len = 1;
    for (unsigned d = 0; d < p->rank; d++) {
      p->kdims[d] = p->in_a[d] ? 1 : p->x[d];
      if (p->in_a[d])
        p->adims[p->na++] = p->x[d], p->len *= p->x[d];
      else
        p->rows *= p->x[d];
    }
    for (unsigned i = 0; i < n && !KR_FAILED(st); i++) {
      kr_op *op = members[i];
      if (kr_prim_op_class(op) == KR_PRIM_REDUCTION || kr_prim_op_class(op) == KR_PRIM_CONSTANT) continue;
      if (classify(p, kr_op_result(op, 0)) == SHAPE_OTHER)
        st = kr_op_emit_error(op, "schedule: a member of a reduction kernel must have the reductions' input shape, "
                                  "or it with the reduced axes kept as 1 or dropped");
    }
    for (unsigned i = 0; i < k->num_outputs && !KR_FAILED(st); i++)
      if (classify(p, k->outputs[i]) == SHAPE_OTHER)
        st = kr_op_emit_error(k->func, "schedule: output #%u of a reduction kernel has a shape that is not row-local",
                              i);
  }
  free(members);
  return st;
}

/* Elements per thread access in the row layout: 4 or 2 when the row splits into aligned runs
 * along X's last axis (its extent and L divisible), every reduction input and X-shaped output
 * can be computed a vector at a time (ks_emit_vectorizable: every load keeps the last axis
 * contiguous), the vector is at most 16 bytes (PTX ld.v4.f32 / ld.v2.f64), no reduction is an
 * arg_* (whose lanes would need their own indices), and the row keeps at least 64 threads'
 * work (short rows rather use the threads: softmax rows of 64 stay scalar, 2 warps each). */
static int64_t choose_vector(plan *p) {
  ks_kernel *k = p->k;
  for (int64_t w = 4; w >= 2; w /= 2) {
    bool ok = p->x[p->rank - 1] % w == 0 && p->len % w == 0 && p->len / w >= 64;
    for (unsigned i = 0; ok && i < p->nred; i++) {
      red *r = &p->reds[i];
      kr_type et = tensor_of(r->in)->u.shaped.elem;
      ok = !ks_red_is_arg(&r->acc) && w * (int64_t)kr_type_bitwidth(et) <= 128 &&
           ks_emit_vectorizable(p->e, r->in, (unsigned)w);
    }
    for (unsigned i = 0; ok && i < k->num_outputs; i++) {
      if (classify(p, k->outputs[i]) != SHAPE_X) continue;
      kr_type et = tensor_of(k->outputs[i])->u.shaped.elem;
      ok = w * (int64_t)kr_type_bitwidth(et) <= 128 && ks_emit_vectorizable(p->e, k->outputs[i], (unsigned)w);
    }
    if (ok) return w;
  }
  return 1;
}

/* The thread layout (file comment). */
static void choose_layout(plan *p) {
  int64_t maxt = p->k->target->max_threads_per_block;
  if (maxt > 1024) maxt = 1024;
  int64_t inner = 1; /* extent of the kept axes after the last reduced one */
  unsigned last = 0;
  for (unsigned d = 0; d < p->rank; d++)
    if (p->in_a[d]) last = d;
  for (unsigned d = last + 1; d < p->rank; d++) inner *= p->x[d];
  p->col = inner > 1 && p->len > 1;
  int64_t block = 256 < maxt ? 256 : maxt;
  p->vec = p->col ? 1 : choose_vector(p);
  if (!p->col) {
    int64_t cap = p->rows < 128 ? maxt : block;
    p->tpr = pow2ceil(p->len / p->vec);
    if (p->tpr > cap) p->tpr = cap;
    p->rpb = block / p->tpr;
    if (p->rpb < 1) p->rpb = 1;
    if (p->rpb > pow2ceil(p->rows)) p->rpb = pow2ceil(p->rows);
  } else {
    p->rpb = pow2ceil(inner);
    if (p->rpb > 32) p->rpb = 32;
    if (p->rpb > pow2ceil(p->rows)) p->rpb = pow2ceil(p->rows);
    p->tpr = block / p->rpb;
    if (p->tpr > pow2ceil(p->len)) p->tpr = pow2ceil(p->len);
  }
  /* Whole warps: a shuffle needs every lane of its warp. */
  if (p->rpb * p->tpr < KR_KERNEL_WARP_SIZE) p->tpr = KR_KERNEL_WARP_SIZE / p->rpb;
  p->grid = (p->rows + p->rpb - 1) / p->rpb;
}

/* Lanes of one row in a warp (m), the lane-in-row stride in the thread index (s) and the warps
 * a row spans (G). */
static void warp_shape(const plan *p, int64_t *m, int64_t *s, int64_t *g) {
  *s = p->col ? p->rpb : 1;
  *m = KR_KERNEL_WARP_SIZE / *s;
  if (*m < 1) *m = 1;
  if (*m > p->tpr) *m = p->tpr;
  *g = p->tpr / *m;
}

/* The X index of element j (a linear index over the reduced axes) of this thread's row. */
static void x_index(plan *p, kr_value j, kr_value *idx) {
  kr_value red_idx[KR_KERNEL_MAX_RANK];
  ks_delinearize(&p->kb, j, p->adims, p->na, red_idx);
  unsigned a = 0;
  for (unsigned d = 0; d < p->rank; d++) idx[d] = p->in_a[d] ? red_idx[a++] : p->kept[d];
}

/* The index of this thread's row in a tensor of shape K (keep = true) or D. */
static unsigned row_index(plan *p, bool keep, kr_value *idx) {
  unsigned n = 0;
  for (unsigned d = 0; d < p->rank; d++) {
    if (!p->in_a[d])
      idx[n++] = p->kept[d];
    else if (keep)
      idx[n++] = ks_index(&p->kb, 0);
  }
  return n;
}

static kr_value row_result(ks_emitter *e, void *user, kr_value v, const kr_value *index) {
  (void)e, (void)v, (void)index; /* every index the kernel asks for is this thread's row */
  return ((red *)user)->result;
}

/* Opens `kernel.map lir by repeat(ceil(L/T)) * spatial(T)` and the j < L guard; returns j. */
static kr_value open_row_loop(plan *p, ks_scope *map, ks_scope *guard, bool *guarded) {
  int64_t chunks = p->len / p->vec; /* vec divides L */
  int64_t n = (chunks + p->tpr - 1) / p->tpr;
  kr_task_mapping rep = kr_task_repeat(1, &n), sp = kr_task_spatial(1, &p->tpr), m;
  if (n == 1)
    m = sp;
  else
    kr_task_compose(&rep, &sp, &m);
  kr_value c;
  ks_map(&p->kb, p->lir, &m, &c, map);
  *guarded = n * p->tpr > chunks;
  if (*guarded) ks_if(&p->kb, ks_cmp_lt(&p->kb, c, ks_index(&p->kb, chunks)), guard);
  return ks_mulc(&p->kb, c, p->vec); /* the chunk's first element */
}

static void close_row_loop(plan *p, ks_scope *map, ks_scope *guard, bool guarded) {
  if (guarded) ks_end(&p->kb, guard);
  ks_end(&p->kb, map);
}

static kr_value local1(plan *p, kr_type t) {
  int64_t one = 1;
  return ks_alloc(&p->kb, KR_KERNEL_SPACE_LOCAL, 1, &one, NULL, t);
}

static kr_value row_value_element(ks_emitter *e, void *user, kr_value v, const kr_value *index) {
  (void)e, (void)v, (void)index; /* every index the kernel asks for is this thread's row */
  return ((row_value *)user)->value;
}

/* The reductions a value depends on, as the index of the last one (-1: none); *x_dep is set
 * when it depends on an X-shaped member other than through a reduction. */
static int reduction_dep(plan *p, kr_value v, bool *x_dep) {
  kr_op *d = kr_value_defining_op(v);
  if (!d || kr_prim_op_class(d) == KR_PRIM_CONSTANT || kr_prim_op_class(d) == KR_PRIM_NOT_PRIM) return -1;
  for (unsigned i = 0; i < p->nred; i++)
    if (p->reds[i].op == d) return (int)i;
  for (unsigned i = 0; i < p->nrowvals; i++)
    if (p->rowvals[i].op == d) return p->rowvals[i].after;
  shape_class sc = classify(p, v);
  if (sc != SHAPE_K && sc != SHAPE_D) {
    *x_dep = true; /* an X-shaped member: per element */
    return -1;
  }
  int after = -1; /* a K/D member of external operands only */
  for (unsigned o = 0; o < d->num_operands; o++) {
    int r = reduction_dep(p, kr_op_operand(d, o), x_dep);
    if (r > after) after = r;
  }
  return after;
}

/* The K/D-shaped members that depend on reductions, in block order. */
static kr_status find_row_values(plan *p) {
  kr_op **members;
  unsigned n = ks_members(p->k, &members);
  p->rowvals = calloc(n + 1, sizeof *p->rowvals);
  if (!p->rowvals) {
    free(members);
    return kr_op_emit_error(p->k->func, "schedule: out of memory");
  }
  for (unsigned i = 0; i < n; i++) {
    kr_op *op = members[i];
    kr_prim_class c = kr_prim_op_class(op);
    if (c == KR_PRIM_REDUCTION || c == KR_PRIM_CONSTANT || op->num_results != 1) continue;
    shape_class sc = classify(p, kr_op_result(op, 0));
    if (sc != SHAPE_K && sc != SHAPE_D) continue;
    bool x_dep = false;
    int after = -1;
    for (unsigned o = 0; o < op->num_operands; o++) {
      int r = reduction_dep(p, kr_op_operand(op, o), &x_dep);
      if (r > after) after = r;
    }
    if (x_dep || after < 0) continue;
    p->rowvals[p->nrowvals++] = (row_value){.op = op, .after = after};
  }
  free(members);
  return KR_SUCCESS;
}

/* Emits (at the row level) the row values whose last reduction is `after`, and overrides them. */
static kr_status emit_row_values(plan *p, int after) {
  for (unsigned i = 0; i < p->nrowvals; i++) {
    row_value *rv = &p->rowvals[i];
    if (rv->after != after) continue;
    kr_value out = kr_op_result(rv->op, 0), idx[KR_KERNEL_MAX_RANK];
    row_index(p, classify(p, out) == SHAPE_K, idx);
    rv->value = ks_emit_element(p->e, out, idx);
    if (!rv->value) return kr_op_emit_error(rv->op, "schedule: cannot compute this row value");
    ks_emitter_override(p->e, out, row_value_element, rv);
  }
  return KR_SUCCESS;
}

/* Whether v depends on one of the reductions reds[from..to) (through the old body's ops). */
static bool depends_on(plan *p, kr_value v, unsigned from, unsigned to, unsigned depth) {
  kr_op *d = kr_value_defining_op(v);
  if (!d || depth > 64) return false;
  for (unsigned i = from; i < to; i++)
    if (p->reds[i].op == d) return true;
  if (kr_prim_op_class(d) == KR_PRIM_NOT_PRIM) return false;
  for (unsigned o = 0; o < d->num_operands; o++)
    if (depends_on(p, kr_op_operand(d, o), from, to, depth + 1)) return true;
  return false;
}

/* The per-reduction state of a phase. */
typedef struct phase_red {
  kr_value accv, acci; /* register accumulators (value, index) */
  kr_value v, vi;      /* the running partial */
  kr_value sv, si;     /* shared partials [G][P] */
} phase_red;

/* Folds (ov, oi) into reduction r's partial. */
static void fold(plan *p, red *r, phase_red *pr, kr_value ov, kr_value oi) {
  ks_red_combine(&p->kb, &r->acc, pr->v, pr->vi, ov, oi, &pr->v, &pr->vi);
}

/* One phase: the independent reductions reds[first..last) (none reads another's result), in
 * one pass over the row: per-thread partials in registers, a warp butterfly each, and, when a
 * row spans G > 1 warps, their warp partials through shared memory behind ONE barrier and a
 * final reduction.  Sets each r->result and registers it with the emitter. */
static kr_status emit_phase(plan *p, unsigned first, unsigned last) {
  ks_builder *kb = &p->kb;
  kr_type i64 = kr_type_integer(kb->ctx, 64, KR_SIGNLESS);
  kr_value zero = ks_index(kb, 0);
  phase_red st[MAX_RED];
  memset(st, 0, sizeof st);
  for (unsigned i = first; i < last; i++) {
    red *r = &p->reds[i];
    phase_red *pr = &st[i];
    bool arg = ks_red_is_arg(&r->acc);
    pr->accv = local1(p, r->acc.acc);
    ks_store(kb, ks_red_identity(kb, &r->acc), pr->accv, &zero);
    if (arg) {
      pr->acci = local1(p, i64);
      ks_store(kb, ks_red_index_identity(kb, &r->acc), pr->acci, &zero);
    }
  }
  /* The per-thread partials: one pass over this thread's elements of the row. */
  ks_scope vs, map, guard;
  bool guarded;
  if (p->valid) ks_if(kb, p->valid, &vs);
  kr_value j = open_row_loop(p, &map, &guard, &guarded);
  kr_value idx[KR_KERNEL_MAX_RANK], jv = NULL;
  x_index(p, j, idx);
  for (unsigned i = first; i < last; i++) {
    red *r = &p->reds[i];
    phase_red *pr = &st[i];
    bool arg = ks_red_is_arg(&r->acc);
    kr_value xs[4];
    if (KR_FAILED(ks_emit_elements(p->e, r->in, idx, (unsigned)p->vec, xs)))
      return kr_op_emit_error(r->op, "schedule: cannot compute the input of this reduction element by element");
    pr->v = ks_load(kb, pr->accv, &zero, 1);
    pr->vi = arg ? ks_load(kb, pr->acci, &zero, 1) : NULL;
    if (arg && !jv) jv = ks_create1(kb, "arith.index_cast", &j, 1, i64); /* A = {axis}: j is the index */
    for (int64_t w = 0; w < p->vec; w++) fold(p, r, pr, ks_red_to_acc(kb, &r->acc, xs[w]), arg ? jv : NULL);
    ks_store(kb, pr->v, pr->accv, &zero);
    if (arg) ks_store(kb, pr->vi, pr->acci, &zero);
  }
  close_row_loop(p, &map, &guard, guarded);
  if (p->valid) ks_end(kb, &vs);
  /* Warp butterfly (xor): after step k every lane holds the fold of its 2^(k+1)-lane group, so
   * after the last step all the row's lanes of the warp hold the warp's partial. */
  int64_t m, s, g;
  warp_shape(p, &m, &s, &g);
  for (unsigned i = first; i < last; i++) {
    red *r = &p->reds[i];
    phase_red *pr = &st[i];
    bool arg = ks_red_is_arg(&r->acc);
    pr->v = ks_load(kb, pr->accv, &zero, 1);
    pr->vi = arg ? ks_load(kb, pr->acci, &zero, 1) : NULL;
    for (int64_t o = 1; o < m; o <<= 1) {
      kr_value off = ks_index(kb, o * s);
      kr_value ov = ks_shuffle(kb, "xor", pr->v, off), oi = arg ? ks_shuffle(kb, "xor", pr->vi, off) : NULL;
      fold(p, r, pr, ov, oi);
    }
  }
  if (g > 1) {
    /* Cross-warp: shared[G][P]; lane-in-row l = gi * m + (l % m) with gi the row's warp.  The
     * buffers are the phase's own, so no barrier is needed before writing them. */
    int64_t dims[2] = {g, p->rpb};
    ks_builder top = *kb;
    kr_builder_set_insertion_point_to_start(&top.b, p->k->body);
    kr_value slot[2] = {ks_divc(kb, p->lir, m), p->rl};
    ks_scope w;
    bool cond = m > 1;
    if (cond) ks_if(kb, ks_red_cmpi(kb, 0, ks_remc(kb, p->lir, m), zero), &w);
    for (unsigned i = first; i < last; i++) {
      red *r = &p->reds[i];
      phase_red *pr = &st[i];
      bool arg = ks_red_is_arg(&r->acc);
      pr->sv = ks_alloc(&top, KR_KERNEL_SPACE_SHARED, 2, dims, NULL, r->acc.acc);
      pr->si = arg ? ks_alloc(&top, KR_KERNEL_SPACE_SHARED, 2, dims, NULL, i64) : NULL;
      ks_store(kb, pr->v, pr->sv, slot);
      if (arg) ks_store(kb, pr->vi, pr->si, slot);
    }
    if (cond) ks_end(kb, &w);
    ks_barrier(kb);
    for (unsigned i = first; i < last; i++) {
      red *r = &p->reds[i];
      phase_red *pr = &st[i];
      bool arg = ks_red_is_arg(&r->acc);
      if (g <= m) {
        /* Final warp reduction: the row's lanes of each warp load the G partials (lane l takes
         * partial l % G: broadcast reads, one wavefront) and fold them with a butterfly over
         * the low G lanes.  Every lane combines the same values in a mirrored order, and the
         * combines are exactly commutative, so all lanes agree bit for bit. */
        kr_value at[2] = {ks_remc(kb, p->lir, g), p->rl};
        pr->v = ks_load(kb, pr->sv, at, 1);
        pr->vi = arg ? ks_load(kb, pr->si, at, 1) : NULL;
        for (int64_t o = 1; o < g; o <<= 1) {
          kr_value off = ks_index(kb, o * s);
          kr_value ov = ks_shuffle(kb, "xor", pr->v, off), oi = arg ? ks_shuffle(kb, "xor", pr->vi, off) : NULL;
          fold(p, r, pr, ov, oi);
        }
      } else {
        /* Fewer lanes of the row in a warp than partials (column layout): every thread folds
         * its row's partials in the same order, so all agree bit for bit. */
        for (int64_t gi = 0; gi < g; gi++) {
          kr_value at[2] = {ks_index(kb, gi), p->rl};
          kr_value pv = ks_load(kb, pr->sv, at, 1), pi = arg ? ks_load(kb, pr->si, at, 1) : NULL;
          if (gi == 0)
            pr->v = pv, pr->vi = pi;
          else
            fold(p, r, pr, pv, pi);
        }
      }
    }
  }
  for (unsigned i = first; i < last; i++) {
    red *r = &p->reds[i];
    r->result = ks_red_is_arg(&r->acc) ? st[i].vi : ks_red_from_acc(kb, &r->acc, st[i].v);
    ks_emitter_override(p->e, r->out, row_result, r);
  }
  return KR_SUCCESS;
}

/* Stores of the written tensors: shape X in the row loop, K and D by lane 0 of the row. */
static kr_status emit_outputs(plan *p) {
  ks_builder *kb = &p->kb;
  ks_kernel *k = p->k;
  bool any_x = false, any_row = false;
  for (unsigned i = 0; i < k->num_outputs; i++) {
    if (classify(p, k->outputs[i]) == SHAPE_X)
      any_x = true;
    else
      any_row = true;
  }
  ks_scope vs, map, guard, lane0;
  bool guarded;
  if (any_x) {
    if (p->valid) ks_if(kb, p->valid, &vs);
    kr_value j = open_row_loop(p, &map, &guard, &guarded);
    kr_value idx[KR_KERNEL_MAX_RANK];
    x_index(p, j, idx);
    for (unsigned i = 0; i < k->num_outputs; i++) {
      if (classify(p, k->outputs[i]) != SHAPE_X) continue;
      kr_value vs4[4];
      if (KR_FAILED(ks_emit_elements(p->e, k->outputs[i], idx, (unsigned)p->vec, vs4)))
        return kr_op_emit_error(k->func, "schedule: cannot compute output #%u element by element", i);
      ks_store(kb, p->vec > 1 ? ks_vector_from_elements(kb, vs4, (unsigned)p->vec) : vs4[0], k->out_bufs[i], idx);
    }
    close_row_loop(p, &map, &guard, guarded);
    if (p->valid) ks_end(kb, &vs);
  }
  if (any_row) {
    kr_value c = ks_red_cmpi(kb, 0, p->lir, ks_index(kb, 0));
    if (p->valid) c = ks_and(kb, c, p->valid);
    ks_if(kb, c, &lane0);
    for (unsigned i = 0; i < k->num_outputs; i++) {
      shape_class sc = classify(p, k->outputs[i]);
      if (sc == SHAPE_X) continue;
      kr_value idx[KR_KERNEL_MAX_RANK];
      row_index(p, sc == SHAPE_K, idx);
      kr_value v = ks_emit_element(p->e, k->outputs[i], idx);
      if (!v) return kr_op_emit_error(k->func, "schedule: cannot compute output #%u element by element", i);
      ks_store(kb, v, k->out_bufs[i], idx);
    }
    ks_end(kb, &lane0);
  }
  return KR_SUCCESS;
}

kr_status ks_schedule_reduction(ks_kernel *k) {
  plan *p = calloc(1, sizeof *p);
  if (!p) return kr_op_emit_error(k->func, "schedule: out of memory");
  p->k = k;
  kr_status st = analyse(p);
  if (KR_FAILED(st)) {
    free(p);
    return st;
  }
  ks_builder *kb = &p->kb;
  ks_builder_init(kb, k->ctx, k->body, k->func->loc);
  p->e = ks_emitter_create(k, kb);
  if (!p->e) {
    free(p);
    return kr_op_emit_error(k->func, "schedule: out of memory");
  }
  choose_layout(p);
  /* Thread -> (row in block, lane in row): row-major spatial(P, T), or with the row fastest. */
  int64_t tdims[2] = {p->rpb, p->tpr};
  kr_task_mapping tm = kr_task_spatial(2, tdims);
  if (p->col) tm.atoms[0].ranks[0] = 1, tm.atoms[0].ranks[1] = 0;
  kr_value task[2];
  ks_scope thread;
  ks_map(kb, ks_thread_id(kb), &tm, task, &thread);
  p->rl = task[0];
  p->lir = task[1];
  p->row = ks_add(kb, ks_mulc(kb, ks_block_id(kb, 0), p->rpb), p->rl);
  if (p->grid * p->rpb > p->rows) p->valid = ks_cmp_lt(kb, p->row, ks_index(kb, p->rows));
  {
    /* The row's coordinates on the kept axes: the row unravelled over D. */
    int64_t ddims[KR_KERNEL_MAX_RANK];
    kr_value dcoord[KR_KERNEL_MAX_RANK];
    unsigned nd = 0;
    for (unsigned d = 0; d < p->rank; d++)
      if (!p->in_a[d]) ddims[nd++] = p->x[d];
    /* Past the last row (the last block's spare rows) the coordinates are those of row R-1:
     * every load stays in range, and such threads store nothing. */
    kr_value row = p->valid ? ks_min(kb, p->row, ks_index(kb, p->rows - 1)) : p->row;
    ks_delinearize(kb, row, ddims, nd, dcoord);
    for (unsigned d = 0, i = 0; d < p->rank; d++) p->kept[d] = p->in_a[d] ? NULL : dcoord[i++];
  }
  st = find_row_values(p);
  /* Phases: maximal runs of reductions none of which reads another's result (softmax: max,
   * then sum; layer norm: mean, then variance; sum and max of one input: one phase). */
  for (unsigned first = 0, last; first < p->nred && !KR_FAILED(st); first = last) {
    last = first + 1;
    while (last < p->nred && !depends_on(p, p->reds[last].in, first, last, 0)) last++;
    st = emit_phase(p, first, last);
    for (unsigned i = first; i < last && !KR_FAILED(st); i++) st = emit_row_values(p, (int)i);
    p->nphases++;
  }
  if (!KR_FAILED(st)) st = emit_outputs(p);
  ks_end(kb, &thread);
  if (!KR_FAILED(st)) {
    ks_create(kb, KR_KERNEL_RETURN_OP, NULL, 0, NULL, 0);
    int64_t m, s, g;
    warp_shape(p, &m, &s, &g);
    int64_t shared = 0;
    if (g > 1)
      for (unsigned i = 0; i < p->nred; i++)
        shared += g * p->rpb * (kr_type_bitwidth(p->reds[i].acc.acc) / 8 + (ks_red_is_arg(&p->reds[i].acc) ? 8 : 0));
    char desc[256];
    snprintf(
        desc, sizeof desc,
        "%lld rows x %lld, %s layout, %lld rows/block x %lld threads/row, vector %lld, %u reduction%s in %u phase%s",
        (long long)p->rows, (long long)p->len, p->col ? "col" : "row", (long long)p->rpb, (long long)p->tpr,
        (long long)p->vec, p->nred, p->nred == 1 ? "" : "s", p->nphases, p->nphases == 1 ? "" : "s");
    int64_t grid[3] = {p->grid, 1, 1};
    st = ks_set_launch(k, "reduction", grid, p->rpb * p->tpr, shared, desc);
  }
  ks_emitter_destroy(p->e);
  free(p->rowvals);
  free(p);
  return st;
}
