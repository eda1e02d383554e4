/* passes/schedule/injective_transpose.c - the shared-memory variants of the injective template
 * for transposes that move the last axis (docs/Scheduling.md "Injective and window kernels"):
 * the 32x32 tile (here) and the slab (below, after the tile form).
 *
 * A transpose that moves the last axis breaks coalescing in the one-thread-per-element form:
 * consecutive threads write consecutive output elements but read input elements a whole row
 * apart (one 32-byte sector per lane instead of four lanes per sector).  The classic remedy
 * (NVIDIA's "Efficient Matrix Transpose in CUDA C/C++"; Hidet ASPLOS'23 §5 stages the same way
 * through shared memory) moves a 32x32 tile through shared memory:
 *
 *   phase 1  the block reads the tile of the transpose's operand `a` along a's last axis
 *            (consecutive lanes -> consecutive elements of a), computing a's prologue inline,
 *            and stores it in a shared 32x33 tile (row stride 33: the column reads of phase 2
 *            hit 32 different banks, so neither phase has a bank conflict)
 *   barrier
 *   phase 2  the block writes the output tile along the output's last axis, reading the
 *            transposed element from the tile's column and computing the epilogue inline
 *
 * Threads: 256 = spatial(8, 32), each owning 4 rows of the tile: the task mapping
 * repeat(4, 1) * spatial(8, 32) over the 32x32 tile.  Blocks: one per tile, over the other axes
 * ("batch") times the tiles of the two transposed axes.  Partial tiles are guarded.
 *
 * Used when the kernel writes one tensor whose value reaches such a transpose t only through
 * elementwise primitives (so every element of t the epilogue needs is the one at the output's
 * own index, which the tile holds) and both transposed axes have at least 16 elements. */
#include <stdio.h>
#include <string.h>

#include "passes/schedule/emit_impl.h"

#define TILE 32
#define ROWS 8 /* warps per block; each thread covers TILE / ROWS rows */

/* Whether v reaches t (any path inside the old body). */
static bool reaches(kr_value v, kr_value t, unsigned depth) {
  if (v == t) return true;
  kr_op *d = kr_value_defining_op(v);
  if (!d || depth > 64) return false;
  for (unsigned i = 0; i < d->num_operands; i++)
    if (reaches(kr_op_operand(d, i), t, depth + 1)) return true;
  return false;
}

/* Whether every path from v to t goes through elementwise primitives only. */
static bool elementwise_to(kr_value v, kr_value t, unsigned depth) {
  if (v == t) return true;
  kr_op *d = kr_value_defining_op(v);
  if (!d || depth > 64) return false;
  bool ew = kr_prim_op_class(d) == KR_PRIM_ELEMENTWISE;
  for (unsigned i = 0; i < d->num_operands; i++) {
    kr_value o = kr_op_operand(d, i);
    if (!reaches(o, t, depth + 1)) continue;
    if (!ew || !elementwise_to(o, t, depth + 1)) return false;
  }
  return true;
}

/* The transpose to tile for kernel k, or NULL. */
static kr_op *tiled_transpose(ks_kernel *k) {
  if (k->num_outputs != 1) return NULL;
  kr_value out = k->outputs[0];
  for (kr_op *op = k->old_body->first; op; op = op->next) {
    if (strcmp(op->name, "prim.transpose")) continue;
    unsigned r;
    const int64_t *yd = es_dims(kr_op_result(op, 0), &r);
    const int64_t *perm;
    if (r < 2 || kr_op_attr_ints(op, "perm", &perm) != r || perm[r - 1] == (int64_t)r - 1) continue;
    unsigned q = 0;
    while (q < r && perm[q] != (int64_t)r - 1) q++;
    if (q == r || yd[r - 1] < 16 || yd[q] < 16) continue;
    if (elementwise_to(out, kr_op_result(op, 0), 0)) return op;
  }
  return NULL;
}

typedef struct tile_ctx {
  kr_value tile, row, col; /* phase 2: t at this thread's element is tile[col][row] */
} tile_ctx;

static kr_value tile_element(ks_emitter *e, void *user, kr_value v, const kr_value *index) {
  (void)v;
  (void)index; /* elementwise_to guarantees the thread's own element */
  tile_ctx *c = user;
  kr_value idx[2] = {c->col, c->row};
  return es_load(e, c->tile, idx, 1);
}

static kr_value in_range(ks_emitter *e, kr_value base, kr_value off, int64_t dim, int64_t tiles_times_tile) {
  if (tiles_times_tile == dim) return NULL; /* every tile is full */
  return es_index_cmp(e, "slt", ks_add(e->kb, base, off), dim);
}

static kr_value and_opt(ks_builder *kb, kr_value a, kr_value b) { return !a ? b : !b ? a : ks_and(kb, a, b); }

static kr_status tile_form(ks_kernel *k, kr_op *t, bool *applied) {
  kr_value a = kr_op_operand(t, 0), tv = kr_op_result(t, 0), out = k->outputs[0];
  unsigned r;
  const int64_t *yd = es_dims(tv, &r), *ad = es_dims(a, &r);
  const int64_t *perm;
  kr_op_attr_ints(t, "perm", &perm);
  unsigned q = 0, L = r - 1, p = (unsigned)perm[r - 1];
  while (perm[q] != (int64_t)r - 1) q++;
  ks_builder kb;
  ks_builder_init(&kb, k->ctx, k->body, k->func->loc);
  ks_emitter *e = ks_emitter_create(k, &kb);
  if (!e) return kr_op_emit_error(k->func, "schedule: out of memory");
  if (!ks_emit_supported(e, out) || !ks_emit_supported(e, a)) {
    ks_emitter_destroy(e);
    return KR_SUCCESS; /* the plain template reports */
  }
  /* Blocks: batch (the output axes other than q and L, row-major) x tiles of q x tiles of L. */
  int64_t tq = (yd[q] + TILE - 1) / TILE, tl = (yd[L] + TILE - 1) / TILE, batch = 1;
  int64_t bdims[KR_KERNEL_MAX_RANK + 2];
  unsigned nb = 0, baxis[KR_KERNEL_MAX_RANK];
  for (unsigned i = 0; i < r; i++)
    if (i != q && i != L) {
      baxis[nb] = i;
      bdims[nb++] = yd[i];
      batch *= yd[i];
    }
  bdims[nb] = tq;
  bdims[nb + 1] = tl;
  int64_t blocks = batch * tq * tl, threads = TILE * ROWS;
  if (blocks > 2147483647LL) {
    ks_emitter_destroy(e);
    return KR_SUCCESS;
  }
  kr_value bid = ks_block_id(&kb, 0), tid = ks_thread_id(&kb);
  kr_value bidx[KR_KERNEL_MAX_RANK + 2];
  ks_delinearize(&kb, bid, bdims, nb + 2, bidx);
  kr_value q0 = ks_mulc(&kb, bidx[nb], TILE), l0 = ks_mulc(&kb, bidx[nb + 1], TILE);
  int64_t tdims[2] = {TILE, TILE}, strides[2] = {TILE + 1, 1};
  kr_type elem = es_scalar_type(e, es_elem_of(a));
  kr_value tile = ks_alloc(&kb, KR_KERNEL_SPACE_SHARED, 2, tdims, strides, es_elem_of(a));
  int64_t rep_d[2] = {TILE / ROWS, 1}, sp_d[2] = {ROWS, TILE};
  kr_task_mapping rep = kr_task_repeat(2, rep_d), sp = kr_task_spatial(2, sp_d), m;
  kr_task_compose(&rep, &sp, &m);
  (void)elem;

  /* Phase 1: tile[rr][cc] = a[..., p = l0 + rr, ..., last = q0 + cc]. */
  ks_scope s1, g1;
  kr_value task[2];
  ks_map(&kb, tid, &m, task, &s1);
  kr_value ai[KR_KERNEL_MAX_RANK];
  for (unsigned j = 0; j < nb; j++) ai[perm[baxis[j]]] = bidx[j];
  ai[p] = ks_add(&kb, l0, task[0]);
  ai[r - 1] = ks_add(&kb, q0, task[1]);
  kr_value in_p = in_range(e, l0, task[0], ad[p], tl * TILE);
  kr_value in_last = in_range(e, q0, task[1], ad[r - 1], tq * TILE);
  kr_value guard1 = and_opt(&kb, in_p, in_last);
  if (guard1) ks_if(&kb, guard1, &g1);
  kr_value av = ks_emit_element(e, a, ai);
  if (av) ks_store(&kb, av, tile, task);
  if (guard1) ks_end(&kb, &g1);
  ks_end(&kb, &s1);
  if (!av) {
    ks_emitter_destroy(e);
    return KR_FAILURE;
  }
  ks_barrier(&kb);

  /* Phase 2: y[..., q = q0 + rr, ..., L = l0 + cc] from tile[cc][rr]. */
  ks_scope s2, g2;
  ks_map(&kb, tid, &m, task, &s2);
  kr_value yi[KR_KERNEL_MAX_RANK];
  for (unsigned j = 0; j < nb; j++) yi[baxis[j]] = bidx[j];
  yi[q] = ks_add(&kb, q0, task[0]);
  yi[L] = ks_add(&kb, l0, task[1]);
  kr_value in_q = in_range(e, q0, task[0], yd[q], tq * TILE);
  kr_value in_l = in_range(e, l0, task[1], yd[L], tl * TILE);
  kr_value guard2 = and_opt(&kb, in_q, in_l);
  if (guard2) ks_if(&kb, guard2, &g2);
  tile_ctx tc = {tile, task[0], task[1]};
  ks_emitter_override(e, tv, tile_element, &tc);
  kr_value ov = ks_emit_element(e, out, yi);
  if (ov) ks_store(&kb, ov, k->out_bufs[0], yi);
  if (guard2) ks_end(&kb, &g2);
  ks_end(&kb, &s2);
  ks_emitter_destroy(e);
  if (!ov) return KR_FAILURE;
  ks_create(&kb, KR_KERNEL_RETURN_OP, NULL, 0, NULL, 0);
  char desc[160];
  snprintf(desc, sizeof desc, "%lld blocks x %lld threads, 32x32 tiles transposed through shared memory (32x33)",
           (long long)blocks, (long long)threads);
  int64_t grid[3] = {blocks, 1, 1};
  int64_t shared = TILE * (TILE + 1) * (int64_t)kr_type_storage_bytes(es_elem_of(a));
  kr_status st = ks_set_launch(k, "injective", grid, threads, shared, desc);
  if (!KR_FAILED(st)) *applied = true;
  return st;
}

/* ---------------------------------------------------------------------------------------------
 * The slab form: a transpose followed by layout primitives.
 *
 * When the written tensor reaches the transpose t through other layout primitives (segformer's
 * bilinear resize reads t through a reshape and two gathers), the 32x32 tile no longer holds the
 * elements a thread needs.  The slab form instead requires only that t's axis q (the one that
 * was the operand's last axis) is read at the coordinate of one output axis Oq on every path:
 * then a block that owns the outputs with Oq in [c0, c0 + TQ) needs exactly the operand's
 * elements with last coordinate in [c0, c0 + TQ) (and the block's coordinates on the axes
 * fixed per block), a slab it stages in shared memory with rows of TQ consecutive elements (one
 * 32-byte sector each: TQ = 32 / element bytes when the operand's rows are 32-byte aligned, else
 * 32); the block's outputs then run along the output's last axis, coalesced, reading t from the
 * slab through an emitter override.
 *
 * The axis analysis: for each tensor on a path from the output to t, which output axis each of
 * its axes is indexed by (identity), or none (-1).  Elementwise ops keep the map; layout ops
 * map it the way their index maps do (emit_layout.c); paths that disagree give -1. */

#define SLAB_MAX_ELEMS_BYTES KR_KERNEL_STATIC_SMEM_LIMIT

typedef struct axis_trace {
  kr_value t;
  int tmap[KR_KERNEL_MAX_RANK];
  bool seen, bad;
} axis_trace;

static void trace(axis_trace *tr, kr_value v, const int *map, unsigned depth);

static void trace_op(axis_trace *tr, kr_op *d, const int *ym, unsigned depth) {
  unsigned R;
  es_dims(kr_op_result(d, 0), &R);
  const char *n = d->name + 5;
  int xm[KR_KERNEL_MAX_RANK];
  kr_prim_class c = kr_prim_op_class(d);
  if (c == KR_PRIM_CONSTANT || !strcmp(d->name, "arith.constant")) return;
  if (c == KR_PRIM_ELEMENTWISE) {
    for (unsigned i = 0; i < d->num_operands; i++) trace(tr, kr_op_operand(d, i), ym, depth + 1);
    return;
  }
  if (c != KR_PRIM_LAYOUT) {
    tr->bad = true;
    return;
  }
  kr_value x = kr_op_operand(d, 0);
  unsigned r;
  const int64_t *xd = es_dims(x, &r);
  const int64_t *yd = es_dims(kr_op_result(d, 0), &R);
  for (unsigned i = 0; i < r; i++) xm[i] = -1;
  if (!strcmp(n, "broadcast")) {
    for (unsigned i = 0; i < r; i++) xm[i] = xd[i] == yd[R - r + i] ? ym[R - r + i] : -1;
  } else if (!strcmp(n, "transpose")) {
    const int64_t *perm;
    if (kr_op_attr_ints(d, "perm", &perm) != r) {
      tr->bad = true;
      return;
    }
    for (unsigned i = 0; i < r; i++) xm[perm[i]] = ym[i];
  } else if (!strcmp(n, "reshape")) {
    unsigned pre = 0, suf = 0;
    while (pre < r && pre < R && xd[pre] == yd[pre]) pre++;
    while (suf < r - pre && suf < R - pre && xd[r - 1 - suf] == yd[R - 1 - suf]) suf++;
    for (unsigned i = 0; i < pre; i++) xm[i] = ym[i];
    for (unsigned i = 0; i < suf; i++) xm[r - 1 - i] = ym[R - 1 - i];
  } else if (!strcmp(n, "slice")) {
    const int64_t *st, *sp;
    if (kr_op_attr_ints(d, "starts", &st) != r || kr_op_attr_ints(d, "steps", &sp) != r) {
      tr->bad = true;
      return;
    }
    for (unsigned i = 0; i < r; i++) xm[i] = st[i] == 0 && sp[i] == 1 ? ym[i] : -1;
  } else if (!strcmp(n, "pad")) {
    const int64_t *pads, *in = NULL;
    if (kr_op_attr_ints(d, "pads", &pads) != 2 * r) {
      tr->bad = true;
      return;
    }
    if (kr_op_attr_present(d, "interior")) kr_op_attr_ints(d, "interior", &in);
    for (unsigned i = 0; i < r; i++) xm[i] = pads[i] == 0 && pads[r + i] <= 0 && (!in || !in[i]) ? ym[i] : -1;
    if (d->num_operands > 1) {
      int none[1] = {-1};
      trace(tr, kr_op_operand(d, 1), none, depth + 1);
    }
  } else if (!strcmp(n, "concat")) {
    int64_t axis = kr_op_attr_int(d, "axis");
    for (unsigned k = 0; k < d->num_operands; k++) {
      for (unsigned i = 0; i < r; i++) xm[i] = (int64_t)i == axis ? -1 : ym[i];
      trace(tr, kr_op_operand(d, k), xm, depth + 1);
    }
    return;
  } else if (!strcmp(n, "gather")) {
    int64_t axis = kr_op_attr_int(d, "axis");
    unsigned ri;
    es_dims(kr_op_operand(d, 1), &ri);
    for (unsigned i = 0; i < r; i++)
      xm[i] = (int64_t)i < axis ? ym[i] : (int64_t)i == axis ? -1 : ym[i - 1 + ri];
    int im[KR_KERNEL_MAX_RANK];
    for (unsigned i = 0; i < ri; i++) im[i] = ym[axis + i];
    trace(tr, kr_op_operand(d, 1), im, depth + 1);
  } else {
    tr->bad = true;
    return;
  }
  trace(tr, x, xm, depth + 1);
}

static void trace(axis_trace *tr, kr_value v, const int *map, unsigned depth) {
  if (tr->bad) return;
  if (depth > 64) {
    tr->bad = true;
    return;
  }
  unsigned r;
  es_dims(v, &r);
  if (v == tr->t) {
    for (unsigned i = 0; i < r; i++) {
      if (!tr->seen) tr->tmap[i] = map[i];
      else if (tr->tmap[i] != map[i]) tr->tmap[i] = -1;
    }
    tr->seen = true;
    return;
  }
  kr_op *d = kr_value_defining_op(v);
  if (d) trace_op(tr, d, map, depth);
}

typedef struct slab_ctx {
  kr_value slab, c0;
  unsigned rank, q;           /* t's rank and transposed axis */
  const int64_t *perm;        /* t's perm: t axis i is a's axis perm[i] */
  bool full[KR_KERNEL_MAX_RANK]; /* per a axis: staged whole (else fixed per block) */
  int64_t sdims[KR_KERNEL_MAX_RANK]; /* the slab's dims per a axis */
} slab_ctx;

/* t's element at `index` (t's axes): the slab element at a's coordinates. */
static kr_value slab_element(ks_emitter *e, void *user, kr_value v, const kr_value *index) {
  (void)v;
  slab_ctx *c = user;
  ks_builder *kb = ks_emitter_builder(e);
  kr_value si[KR_KERNEL_MAX_RANK];
  for (unsigned i = 0; i < c->rank; i++) {
    unsigned j = (unsigned)c->perm[i];
    si[j] = i == c->q ? ks_sub(kb, index[i], c->c0) : c->full[j] ? index[i] : ks_index(kb, 0);
  }
  kr_value lin = ks_linearize(kb, si, c->sdims, c->rank);
  return es_load(e, c->slab, &lin, 1);
}

static kr_status slab_form(ks_kernel *k, bool *applied) {
  if (k->num_outputs != 1) return KR_SUCCESS;
  kr_value out = k->outputs[0];
  unsigned R;
  const int64_t *od = es_dims(out, &R);
  if (R < 2) return KR_SUCCESS;
  for (kr_op *t = k->old_body->first; t; t = t->next) {
    if (strcmp(t->name, "prim.transpose")) continue;
    kr_value tv = kr_op_result(t, 0), a = kr_op_operand(t, 0);
    unsigned r;
    const int64_t *ad = es_dims(a, &r);
    const int64_t *perm;
    if (r < 2 || kr_op_attr_ints(t, "perm", &perm) != r || perm[r - 1] == (int64_t)r - 1) continue;
    unsigned q = 0;
    while (q < r && perm[q] != (int64_t)r - 1) q++;
    axis_trace tr;
    memset(&tr, 0, sizeof tr);
    tr.t = tv;
    int om[KR_KERNEL_MAX_RANK];
    for (unsigned i = 0; i < R; i++) om[i] = (int)i;
    trace(&tr, out, om, 0);
    if (tr.bad || !tr.seen || tr.tmap[q] < 0 || tr.tmap[q] == (int)R - 1) continue;
    unsigned oq = (unsigned)tr.tmap[q];
    int64_t eb = (int64_t)kr_type_storage_bytes(es_elem_of(a));
    int64_t tq = ad[r - 1] * eb % 32 == 0 && 32 % eb == 0 ? 32 / eb : 32;
    /* Axes fixed per block: t axes mapped to an output axis other than Oq and the output's
     * last (which the threads run along). */
    slab_ctx sc;
    memset(&sc, 0, sizeof sc);
    bool fixed_out[KR_KERNEL_MAX_RANK] = {false};
    int64_t slab = 1;
    for (unsigned i = 0; i < r; i++) {
      unsigned j = (unsigned)perm[i];
      int m = tr.tmap[i];
      bool fixed = i != q && m >= 0 && m != (int)R - 1;
      sc.full[j] = !fixed && i != q;
      sc.sdims[j] = i == q ? tq : fixed ? 1 : ad[j];
      if (fixed) fixed_out[m] = true;
      slab *= sc.sdims[j];
    }
    if (slab * eb > SLAB_MAX_ELEMS_BYTES) continue;
    ks_builder kb;
    ks_builder_init(&kb, k->ctx, k->body, k->func->loc);
    ks_emitter *e = ks_emitter_create(k, &kb);
    if (!e) return kr_op_emit_error(k->func, "schedule: out of memory");
    if (!ks_emit_supported(e, out) || !ks_emit_supported(e, a)) {
      ks_emitter_destroy(e);
      continue;
    }
    /* Blocks: the fixed output axes x the tiles of Oq.  Per block: the other output axes,
     * Oq restricted to the tile. */
    int64_t bdims[KR_KERNEL_MAX_RANK + 1], idims[KR_KERNEL_MAX_RANK];
    unsigned nb = 0, ni = 0, baxis[KR_KERNEL_MAX_RANK], iaxis[KR_KERNEL_MAX_RANK];
    for (unsigned i = 0; i < R; i++) {
      if (fixed_out[i]) {
        baxis[nb] = i;
        bdims[nb++] = od[i];
      } else {
        iaxis[ni] = i;
        idims[ni++] = i == oq ? tq : od[i];
      }
    }
    int64_t tiles = (od[oq] + tq - 1) / tq;
    bdims[nb] = tiles;
    int64_t blocks = tiles, per_block = 1;
    for (unsigned i = 0; i < nb; i++) blocks *= bdims[i];
    for (unsigned i = 0; i < ni; i++) per_block *= idims[i];
    int64_t threads = 256;
    if (per_block < threads) threads = (per_block + 31) / 32 * 32;
    int64_t rep_in = (slab + threads - 1) / threads, rep_out = (per_block + threads - 1) / threads;
    bool ragged = od[oq] % tq != 0 || ad[r - 1] % tq != 0;

    kr_value bid = ks_block_id(&kb, 0), tid = ks_thread_id(&kb);
    kr_value bidx[KR_KERNEL_MAX_RANK + 1];
    ks_delinearize(&kb, bid, bdims, nb + 1, bidx);
    kr_value c0 = ks_mulc(&kb, bidx[nb], tq);
    kr_value buf = ks_alloc(&kb, KR_KERNEL_SPACE_SHARED, 1, &slab, NULL, es_elem_of(a));
    sc.slab = buf;
    sc.c0 = c0;
    sc.rank = r;
    sc.q = q;
    sc.perm = perm;
    kr_task_mapping rep = kr_task_repeat(1, &rep_in), sp = kr_task_spatial(1, &threads), m_in, m_out;
    kr_task_compose(&rep, &sp, &m_in);
    rep = kr_task_repeat(1, &rep_out);
    kr_task_compose(&rep, &sp, &m_out);
    /* The output coordinate of each fixed output axis. */
    kr_value fixed_at[KR_KERNEL_MAX_RANK];
    for (unsigned i = 0; i < nb; i++) fixed_at[baxis[i]] = bidx[i];

    /* Staging: slab[s] = a at (full axes: s's coordinates; a's last: c0 + lane; fixed axes:
     * the block's output coordinate), the prologue computed inline. */
    ks_scope m1, g1;
    kr_value s_;
    ks_map(&kb, tid, &m_in, &s_, &m1);
    kr_value si[KR_KERNEL_MAX_RANK], ai[KR_KERNEL_MAX_RANK];
    ks_delinearize(&kb, s_, sc.sdims, r, si);
    for (unsigned i = 0; i < r; i++) {
      unsigned j = (unsigned)perm[i];
      ai[j] = i == q ? ks_add(&kb, c0, si[j]) : sc.full[j] ? si[j] : fixed_at[tr.tmap[i]];
    }
    kr_value g_in = NULL;
    if (rep_in * threads != slab) g_in = es_index_cmp(e, "slt", s_, slab);
    if (ad[r - 1] % tq) {
      kr_value in_c = es_index_cmp(e, "slt", ai[r - 1], ad[r - 1]);
      g_in = g_in ? ks_and(&kb, g_in, in_c) : in_c;
    }
    if (g_in) ks_if(&kb, g_in, &g1);
    kr_value av = ks_emit_element(e, a, ai);
    if (av) ks_store(&kb, av, buf, &s_);
    if (g_in) ks_end(&kb, &g1);
    ks_end(&kb, &m1);
    if (!av) {
      ks_emitter_destroy(e);
      return KR_FAILURE;
    }
    ks_barrier(&kb);

    /* Outputs: the block's elements in row-major order (the output's last axis fastest). */
    ks_emitter_override(e, tv, slab_element, &sc);
    ks_scope m2, g2;
    kr_value o;
    ks_map(&kb, tid, &m_out, &o, &m2);
    kr_value ii[KR_KERNEL_MAX_RANK], yi[KR_KERNEL_MAX_RANK];
    ks_delinearize(&kb, o, idims, ni, ii);
    for (unsigned i = 0; i < nb; i++) yi[baxis[i]] = bidx[i];
    for (unsigned i = 0; i < ni; i++) yi[iaxis[i]] = iaxis[i] == oq ? ks_add(&kb, c0, ii[i]) : ii[i];
    kr_value g_out = NULL;
    if (rep_out * threads != per_block) g_out = es_index_cmp(e, "slt", o, per_block);
    if (ragged) {
      kr_value in_q = es_index_cmp(e, "slt", yi[oq], od[oq]);
      g_out = g_out ? ks_and(&kb, g_out, in_q) : in_q;
    }
    if (g_out) ks_if(&kb, g_out, &g2);
    kr_value ov = ks_emit_element(e, out, yi);
    if (ov) ks_store(&kb, ov, k->out_bufs[0], yi);
    if (g_out) ks_end(&kb, &g2);
    ks_end(&kb, &m2);
    ks_emitter_destroy(e);
    if (!ov) return KR_FAILURE;
    ks_create(&kb, KR_KERNEL_RETURN_OP, NULL, 0, NULL, 0);
    char desc[200];
    snprintf(desc, sizeof desc,
             "%lld blocks x %lld threads, a slab of %lld elements (rows of %lld along the transposed axis) staged "
             "in shared memory per block",
             (long long)blocks, (long long)threads, (long long)slab, (long long)tq);
    int64_t grid[3] = {blocks, 1, 1};
    kr_status st = ks_set_launch(k, "injective", grid, threads, slab * eb, desc);
    if (!KR_FAILED(st)) *applied = true;
    return st;
  }
  return KR_SUCCESS;
}

kr_status ks_schedule_injective_transpose(ks_kernel *k, bool *applied) {
  *applied = false;
  /* Both forms are written for 256-thread blocks. */
  if (ks_block_threads(k, 256) < 256) return KR_SUCCESS;
  /* Empty tensors (a zero dim) have nothing to stage: the plain template handles them. */
  for (unsigned i = 0; i < k->num_inputs; i++)
    if (kr_type_num_elements(kr_value_type(k->inputs[i])) <= 0) return KR_SUCCESS;
  for (unsigned i = 0; i < k->num_outputs; i++)
    if (kr_type_num_elements(kr_value_type(k->outputs[i])) <= 0) return KR_SUCCESS;
  kr_op *t = tiled_transpose(k);
  if (t) return tile_form(k, t, applied);
  return slab_form(k, applied);
}
