/* passes/schedule/injective_window.c - the shared-memory staged variant of the "window"
 * template for reduce_window (docs/Scheduling.md "Injective and window kernels").
 *
 * In the direct form each thread reads its window straight from global memory.  When the
 * pooled planes are small (yolo's 5x5 max pools over 9x9 maps) a warp's lanes span several
 * short rows and each access touches about twice the sectors its bytes need.  Pooling's
 * windowed axes are the trailing ones, so the input "planes" (the trailing axes from the first
 * pooled one on) of consecutive outer indices are one contiguous range of memory: a block stages
 * P whole planes of the window's input in shared memory with consecutive threads on consecutive
 * elements (coalesced, the window's prologue computed inline on the way), waits at a barrier,
 * and then computes the P planes' outputs from shared memory, the window loop reading the staged
 * tile through an emitter override and the epilogue inlined before the coalesced store.
 *
 *   threads = min(256, P * plane_out rounded up to a warp)
 *   P       = the planes whose outputs fill 256 threads (at least 1), fewer when P input
 *             planes exceed 48 KiB of static shared memory (then the direct form is used),
 *             rounded down to a multiple of the planes that keep every block 32-byte aligned
 *   staging: kernel.map %t by repeat(ceil(P * plane_in / threads)) * spatial(threads)
 *   compute: kernel.map %t by repeat(ceil(P * plane_out / threads)) * spatial(threads)
 *
 * Used for a kernel whose reduce_window pools trailing axes only (leading axes: window 1,
 * stride 1, dilation 1) and whose written tensors all have the window's output shape. */
#include <stdio.h>
#include <string.h>

#include "passes/schedule/emit_impl.h"

#define WIN_THREADS 256

typedef struct stage_ctx {
  kr_value tile;     /* shared, [P * plane_in] */
  kr_value base;     /* linear index of the block's first staged element */
  const int64_t *xd; /* the window input's dims */
  unsigned rank;
} stage_ctx;

/* The window input's element at `index`: the staged copy. */
static kr_value staged_element(ks_emitter *e, void *user, kr_value v, const kr_value *index) {
  (void)v;
  stage_ctx *c = user;
  ks_builder *kb = ks_emitter_builder(e);
  kr_value lin = ks_linearize(kb, index, c->xd, c->rank);
  kr_value off = ks_sub(kb, lin, c->base);
  return es_load(e, c->tile, &off, 1);
}

static int64_t gcd(int64_t a, int64_t b) { return b ? gcd(b, a % b) : a; }
static int64_t lcm(int64_t a, int64_t b) { return a / gcd(a, b) * b; }
/* Planes whose bytes add up to a multiple of 32. */
static int64_t align_granule(int64_t plane_bytes) { return 32 / gcd(plane_bytes, 32); }

kr_status ks_schedule_window_staged(ks_kernel *k, bool *applied) {
  *applied = false;
  kr_op *w = NULL;
  for (kr_op *op = k->old_body->first; op; op = op->next)
    if (!strcmp(op->name, "prim.reduce_window")) w = op;
  if (!w) return KR_SUCCESS;
  kr_value x = kr_op_operand(w, 0), y = kr_op_result(w, 0);
  unsigned r;
  const int64_t *xd = es_dims(x, &r), *yd = es_dims(y, &r);
  const int64_t *wd, *sd, *dl;
  if (r == 0 || kr_op_attr_ints(w, "window", &wd) != r || kr_op_attr_ints(w, "strides", &sd) != r ||
      kr_op_attr_ints(w, "dilations", &dl) != r)
    return KR_SUCCESS;
  unsigned f = 0; /* the first pooled axis */
  while (f < r && wd[f] == 1 && sd[f] == 1 && dl[f] == 1 && xd[f] == yd[f]) f++;
  if (f == r) return KR_SUCCESS;
  for (unsigned i = 0; i < k->num_outputs; i++) {
    unsigned ro;
    const int64_t *od = es_dims(k->outputs[i], &ro);
    if (ro != r || memcmp(od, yd, r * sizeof *od)) return KR_SUCCESS;
  }
  int64_t outer = 1, plane_in = 1, plane_out = 1;
  for (unsigned d = 0; d < r; d++) {
    if (d < f) outer *= xd[d];
    else plane_in *= xd[d], plane_out *= yd[d];
  }
  if (outer < 1 || plane_out < 1 || plane_in < 1) return KR_SUCCESS; /* empty: the direct form */
  int64_t eb = (int64_t)kr_type_storage_bytes(es_elem_of(x));
  int64_t max_threads = ks_block_threads(k, WIN_THREADS);
  int64_t planes = max_threads / plane_out;
  if (planes < 1) planes = 1;
  if (planes > outer) planes = outer;
  while (planes > 1 && planes * plane_in * eb > KR_KERNEL_STATIC_SMEM_LIMIT) planes--;
  /* Blocks start on 32-byte boundaries of the input and of every output when P is a multiple of
   * this granule (a misaligned start makes each warp touch one sector more, CUDA C Programming
   * Guide, "Device Memory Accesses"): P rounds down to it when it can. */
  int64_t granule = align_granule(plane_in * eb);
  for (unsigned i = 0; i < k->num_outputs; i++)
    granule = lcm(granule, align_granule(plane_out * (int64_t)kr_type_storage_bytes(es_elem_of(k->outputs[i]))));
  if (planes >= granule) planes = planes / granule * granule;
  if (planes * plane_in * eb > KR_KERNEL_STATIC_SMEM_LIMIT) return KR_SUCCESS;

  ks_builder kb;
  ks_builder_init(&kb, k->ctx, k->body, k->func->loc);
  ks_emitter *e = ks_emitter_create(k, &kb);
  if (!e) return kr_op_emit_error(k->func, "schedule: out of memory");
  bool ok = ks_emit_supported(e, x);
  for (unsigned i = 0; i < k->num_outputs && ok; i++) ok = ks_emit_supported(e, k->outputs[i]);
  if (!ok) {
    ks_emitter_destroy(e);
    return KR_SUCCESS; /* the direct form reports */
  }
  int64_t n_in = planes * plane_in, n_out = planes * plane_out;
  int64_t threads = n_out < max_threads ? (n_out + 31) / 32 * 32 : max_threads;
  int64_t blocks = (outer + planes - 1) / planes;
  int64_t rep_in = (n_in + threads - 1) / threads, rep_out = (n_out + threads - 1) / threads;
  bool ragged = outer % planes != 0; /* the last block holds fewer planes */

  kr_value bid = ks_block_id(&kb, 0), tid = ks_thread_id(&kb);
  kr_value first_plane = ks_mulc(&kb, bid, planes);
  kr_value base_in = ks_mulc(&kb, first_plane, plane_in), base_out = ks_mulc(&kb, first_plane, plane_out);
  /* Elements this block stages and writes: P planes, fewer in the last block. */
  kr_value count_in = ks_index(&kb, n_in), count_out = ks_index(&kb, n_out);
  if (ragged) {
    kr_value left = ks_sub(&kb, ks_index(&kb, outer), first_plane);
    kr_value have = ks_min(&kb, left, ks_index(&kb, planes));
    count_in = ks_mulc(&kb, have, plane_in);
    count_out = ks_mulc(&kb, have, plane_out);
  }
  kr_value tile = ks_alloc(&kb, KR_KERNEL_SPACE_SHARED, 1, &n_in, NULL, es_elem_of(x));
  kr_task_mapping rep = kr_task_repeat(1, &rep_in), sp = kr_task_spatial(1, &threads), m_in, m_out;
  kr_task_compose(&rep, &sp, &m_in);
  rep = kr_task_repeat(1, &rep_out);
  kr_task_compose(&rep, &sp, &m_out);

  /* Staging: tile[s] = x at linear index base_in + s (the prologue computed inline). */
  ks_scope map1, g1;
  kr_value s;
  ks_map(&kb, tid, &m_in, &s, &map1);
  bool guard_in = ragged || rep_in * threads != n_in;
  if (guard_in) ks_if(&kb, es_cmpi(e, "slt", s, count_in), &g1);
  kr_value xi[KR_KERNEL_MAX_RANK];
  ks_delinearize(&kb, ks_add(&kb, base_in, s), xd, r, xi);
  kr_value xv = ks_emit_element(e, x, xi);
  if (xv) ks_store(&kb, xv, tile, &s);
  if (guard_in) ks_end(&kb, &g1);
  ks_end(&kb, &map1);
  if (!xv) {
    ks_emitter_destroy(e);
    return KR_FAILURE;
  }
  ks_barrier(&kb);

  /* Compute: output element base_out + o of every written tensor, x read from the tile. */
  stage_ctx sc = {tile, base_in, xd, r};
  ks_emitter_override(e, x, staged_element, &sc);
  ks_scope map2, g2;
  kr_value o;
  ks_map(&kb, tid, &m_out, &o, &map2);
  bool guard_out = ragged || rep_out * threads != n_out;
  if (guard_out) ks_if(&kb, es_cmpi(e, "slt", o, count_out), &g2);
  kr_value yi[KR_KERNEL_MAX_RANK];
  ks_delinearize(&kb, ks_add(&kb, base_out, o), yd, r, yi);
  kr_status st = KR_SUCCESS;
  for (unsigned i = 0; i < k->num_outputs && !KR_FAILED(st); i++) {
    kr_value v = ks_emit_element(e, k->outputs[i], yi);
    if (!v) st = KR_FAILURE;
    else ks_store(&kb, v, k->out_bufs[i], yi);
  }
  if (guard_out) ks_end(&kb, &g2);
  ks_end(&kb, &map2);
  ks_emitter_destroy(e);
  if (KR_FAILED(st)) return st;
  ks_create(&kb, KR_KERNEL_RETURN_OP, NULL, 0, NULL, 0);
  char desc[200];
  snprintf(desc, sizeof desc,
           "%lld blocks x %lld threads, %lld plane%s of %lld elements staged in shared memory per block, 1 element "
           "per task",
           (long long)blocks, (long long)threads, (long long)planes, planes == 1 ? "" : "s", (long long)plane_in);
  int64_t grid[3] = {blocks, 1, 1};
  st = ks_set_launch(k, "window", grid, threads, n_in * eb, desc);
  if (!KR_FAILED(st)) *applied = true;
  return st;
}
