/* passes/schedule/matmul.c - templates "matmul" and "conv": the tiled batched GEMM of
 * linear_internal.h (Hidet ASPLOS'23 §4.2 and Fig. 7: block tile staged in shared memory, warp
 * tile, thread tile of register accumulators, every thread -> data assignment a task mapping).
 *
 * Grid (ceil(N/BN), ceil(M/BM), batch); T = 32 * warps_m * warps_n threads (1-D).  Buffers:
 *   As : shared [2][BK][P]   A tile transposed (k-major), row pitch P >= BM (kl_a_pitch)
 *   Bs : shared [2][BK][BN]  B tile
 *   acc: local  [TM][TN]     the thread tile's accumulators (acc type: f32 for 16-bit floats)
 * Task mappings (docs/Scheduling.md shows them with the reasons):
 *   copy A  : tasks [BM][BK/va], lanes along k (A's contiguous dim): repeat(..) * spatial(T/(BK/va), BK/va)
 *   copy B  : tasks [BK][BN/vb], lanes along n:                       repeat(..) * spatial(.., BN/vb)
 *   threads : spatial(warps_m, warps_n) * repeat(RM, RN) * spatial(LM, LN) * repeat(VM, VN) over
 *             the [BM][BN] block tile: warps tile the block, LM x LN = 32 lanes tile the warp
 *             tile, and each thread owns TM = RM*VM rows by TN = RN*VN columns.  LM*VM and
 *             LN*VN <= min(32, E) (E = elements 32 banks hold: 32 f32, 16 f64) make the LM (LN)
 *             distinct elements a warp reads from a row of As (Bs) at one k fall in distinct
 *             banks, the other lanes reading the same words (broadcast): the inner loop is
 *             free of bank conflicts.
 *   epilogue: the thread mapping with repeat(VM, 1) over VN-wide column groups when every
 *             stored output is contiguous along n: one vector store per VN outputs.
 * The inner loop (one K tile) is unrolled in the IR: the thread's first task comes from the
 * kernel.map of spatial(warps_m, warps_n) * spatial(LM, LN) and its other tasks lie at constant
 * offsets (what --lower-task-mappings gives the repeat atoms when fully unrolled), so a MAC is
 * one arith.fma on register values and each K step loads TM + TN shared values.
 * Pipeline (2 stages, one barrier per K tile): copy tile 0 -> stage 0; barrier; for kt: copy
 * tile kt+1 -> stage (kt+1)%2 (if any) while computing stage kt%2; barrier.  The copy writes the
 * stage last read before the previous barrier and the compute reads the stage written before
 * it, so no shared access races.  Out-of-range rows/columns/k of a tile load 0 (guarded with
 * kernel.if only when the sizes do not divide). */
#include <stdio.h>
#include <string.h>

#include "korch/diag.h"
#include "passes/schedule/linear_internal.h"

/* The copy mapping of a [rows][cols] tile (cols: the contiguous dim, in vectors) over T
 * threads: consecutive threads take consecutive columns (coalesced). */
static kr_task_mapping copy_mapping(int64_t rows, int64_t cols, int64_t T) {
  kr_task_mapping m, r, s;
  if (cols >= T) {
    int64_t rd[2] = {rows, cols / T}, sd[2] = {1, T};
    r = kr_task_repeat(2, rd);
    s = kr_task_spatial(2, sd);
  } else if (rows * cols > T) {
    int64_t rd[2] = {rows * cols / T, 1}, sd[2] = {T / cols, cols};
    r = kr_task_repeat(2, rd);
    s = kr_task_spatial(2, sd);
  } else {
    int64_t sd[2] = {rows, cols};
    return kr_task_spatial(2, sd);
  }
  kr_task_compose(&r, &s, &m);
  return m;
}

typedef struct tiled {
  kl_kernel *lk;
  kl_tile t;
  int64_t T, P;
  kr_value As, Bs, acc;
  kr_value tid, bz, m_blk, n_blk;
  int vm, vn, rm, rn;
} tiled;

/* The multi-index of linear k (conv: channel, kernel position). */
static void k_index(tiled *s, kr_value k, kr_value *out) {
  const kl_gemm *g = &s->lk->g;
  if (g->k_rank == 1) out[0] = k;
  else ks_delinearize(&s->lk->kb, k, g->k_dims, g->k_rank, out);
}

static kr_value and_opt(ks_builder *kb, kr_value a, kr_value b) { return !a ? b : !b ? a : ks_and(kb, a, b); }

/* Copies K tile `kt` of A and B into shared stage `stage`. */
static kr_status copy_tiles(tiled *s, kr_value stage, kr_value kt) {
  kl_kernel *lk = s->lk;
  ks_builder *kb = &lk->kb;
  const kl_gemm *g = &lk->g;
  const kl_tile *t = &s->t;
  kr_value k0 = ks_mulc(kb, kt, t->bk);
  for (int which = 0; which < 2; which++) {
    bool A = which == 0;
    int v = A ? t->va : t->vb;
    int64_t rows = A ? t->bm : t->bk, cols = (A ? t->bk : t->bn) / v;
    kr_task_mapping m = copy_mapping(rows, cols, s->T);
    kr_value task[2];
    ks_scope map;
    ks_map(kb, s->tid, &m, task, &map);
    kr_value col = ks_mulc(kb, task[1], v);
    kr_value kidx[KL_MAX_SP + 1];
    kl_ref ref;
    kr_value cond = NULL;
    if (A) {
      kr_value gm = ks_add(kb, s->m_blk, task[0]), gk = ks_add(kb, k0, col);
      if (g->M % t->bm) cond = ks_cmp_lt(kb, gm, ks_index(kb, g->M));
      if (g->K % t->bk) cond = and_opt(kb, cond, ks_cmp_lt(kb, gk, ks_index(kb, g->K)));
      k_index(s, gk, kidx);
      kl_ref_a(g, kb, s->bz, gm, kidx, &ref);
    } else {
      kr_value gk = ks_add(kb, k0, task[0]), gn = ks_add(kb, s->n_blk, col);
      if (g->K % t->bk) cond = ks_cmp_lt(kb, gk, ks_index(kb, g->K));
      if (g->N % t->bn) cond = and_opt(kb, cond, ks_cmp_lt(kb, gn, ks_index(kb, g->N)));
      k_index(s, gk, kidx);
      kl_ref_b(g, kb, s->bz, kidx, gn, &ref);
    }
    cond = and_opt(kb, cond, ref.valid);
    ks_scope guard;
    for (int branch = 0; branch < 2; branch++) {
      kr_value vals[4];
      if (branch == 0) {
        if (cond) ks_if(kb, cond, &guard);
        if (v > 1) {
          if (KR_FAILED(ks_emit_elements(lk->e, ref.tensor, ref.index, (unsigned)v, vals))) return KR_FAILURE;
        } else if (!(vals[0] = ks_emit_element(lk->e, ref.tensor, ref.index))) {
          return KR_FAILURE;
        }
      } else {
        if (!cond) break;
        ks_else(kb, &guard);
        for (int j = 0; j < v; j++) vals[j] = kl_zero(kb, g->elem);
      }
      if (A) {
        for (int j = 0; j < v; j++) {
          kr_value idx[3] = {stage, ks_addc(kb, col, j), task[0]};
          ks_store(kb, vals[j], s->As, idx);
        }
      } else {
        kr_value idx[3] = {stage, task[0], col};
        ks_store(kb, v > 1 ? ks_vector_from_elements(kb, vals, (unsigned)v) : vals[0], s->Bs, idx);
      }
    }
    if (cond) ks_end(kb, &guard);
    ks_end(kb, &map);
  }
  return KR_SUCCESS;
}

/* One K tile of the thread tile from shared stage `stage`, unrolled: TM x TN accumulators
 * stay in registers across the BK steps. */
static void compute_tile(tiled *s, kr_value stage, const kr_value *moff, const kr_value *noff, const kr_value *kc,
                         const kr_value *ic, const kr_value *jc) {
  kl_kernel *lk = s->lk;
  ks_builder *kb = &lk->kb;
  const kl_tile *t = &s->t;
  kr_value accv[8][8], a[8], b[8];
  for (int i = 0; i < t->tm; i++)
    for (int j = 0; j < t->tn; j++) {
      kr_value idx[2] = {ic[i], jc[j]};
      accv[i][j] = ks_load(kb, s->acc, idx, 1);
    }
  for (int kk = 0; kk < t->bk; kk++) {
    for (int i = 0; i < t->tm; i++) {
      kr_value idx[3] = {stage, kc[kk], moff[i]};
      a[i] = kl_to_acc(lk, ks_load(kb, s->As, idx, 1));
    }
    for (int j = 0; j < t->tn; j++) {
      kr_value idx[3] = {stage, kc[kk], noff[j]};
      b[j] = kl_to_acc(lk, ks_load(kb, s->Bs, idx, 1));
    }
    for (int i = 0; i < t->tm; i++)
      for (int j = 0; j < t->tn; j++) accv[i][j] = kl_mac(lk, a[i], b[j], accv[i][j]);
  }
  for (int i = 0; i < t->tm; i++)
    for (int j = 0; j < t->tn; j++) {
      kr_value idx[2] = {ic[i], jc[j]};
      ks_store(kb, accv[i][j], s->acc, idx);
    }
}

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

/* Vector width for the global loads of operand `v` whose contiguous extent is `ext` (K for A,
 * N for B) and tile extent `tile`: 4 or 2 where aligned, at most 16 bytes (PTX ld.v4.f32 /
 * ld.v2.f64), and the emitter keeps the last dim contiguous; else 1.  Conv operands are
 * gathered (im2col): scalar. */
static int vec_width(kl_kernel *lk, kr_value v, int64_t ext, int tile) {
  if (lk->g.conv) return 1;
  for (int w = 4; w >= 2; w /= 2)
    if (w * kl_elem_bytes(lk->g.elem) <= 16 && ext % w == 0 && tile % w == 0 &&
        ks_emit_vectorizable(lk->e, v, (unsigned)w))
      return w;
  return 1;
}

/* Whether every output the tile stores can take VN-wide vector stores along n: its last dim is
 * n's innermost component (N for a matmul, the last output dim of a conv), a multiple of VN,
 * and its elements are not i1. */
static bool vector_epilogue(tiled *s) {
  kl_kernel *lk = s->lk;
  const kl_gemm *g = &lk->g;
  int64_t inner = g->conv ? g->out_sp[g->nsp - 1] : g->N;
  if (s->vn < 2 || inner % s->vn) return false;
  kr_value L = kr_op_result(g->L, 0);
  for (unsigned i = 0; i < lk->k->num_outputs; i++) {
    kr_value o = lk->k->outputs[i];
    if (o != L && !lk->epilogue[i]) continue;
    kr_type t = kr_value_type(o);
    unsigned r = t->u.shaped.rank;
    if (!r || t->u.shaped.dims[r - 1] != inner || kr_type_is_integer(t->u.shaped.elem, 1)) return false;
  }
  return true;
}

/* The epilogue: the thread mapping over the block tile, each task storing its accumulator with
 * the epilogue applied; with vector stores the mapping's innermost repeat(VM, VN) becomes
 * repeat(VM, 1) over VN-wide column groups, and a task stores VN consecutive outputs. */
static kr_status epilogue(tiled *s, const kr_task_mapping *warps, const kr_task_mapping *lanes) {
  kl_kernel *lk = s->lk;
  ks_builder *kb = &lk->kb;
  const kl_gemm *g = &lk->g;
  const kl_tile *t = &s->t;
  bool vec = vector_epilogue(s);
  int w = vec ? s->vn : 1;
  int64_t rd[2] = {s->rm, s->rn}, vd[2] = {s->vm, s->vn / w};
  kr_task_mapping rep = kr_task_repeat(2, rd), vm = kr_task_repeat(2, vd), m1, m2, thr;
  /* Repeat atoms of one task are left out (they change nothing). */
  if (s->rm * s->rn > 1) kr_task_compose(warps, &rep, &m1);
  else m1 = *warps;
  kr_task_compose(&m1, lanes, &m2);
  if (vd[0] * vd[1] > 1) kr_task_compose(&m2, &vm, &thr);
  else thr = m2;
  kr_value task[2];
  ks_scope emap;
  ks_map(kb, s->tid, &thr, task, &emap);
  kr_value ncol = ks_mulc(kb, task[1], w); /* the tile column of the task's first output */
  kr_value i = ks_add(kb, ks_mulc(kb, ks_remc(kb, ks_divc(kb, task[0], t->lm * s->vm), s->rm), s->vm),
                      ks_remc(kb, task[0], s->vm));
  kr_value j = ks_add(kb, ks_mulc(kb, ks_remc(kb, ks_divc(kb, ncol, t->ln * s->vn), s->rn), s->vn),
                      ks_remc(kb, ncol, s->vn));
  kr_value gm = ks_add(kb, s->m_blk, task[0]), gn = ks_add(kb, s->n_blk, ncol);
  kr_value cond = NULL;
  if (g->M % t->bm) cond = ks_cmp_lt(kb, gm, ks_index(kb, g->M));
  if (g->N % t->bn) cond = and_opt(kb, cond, ks_cmp_lt(kb, gn, ks_index(kb, g->N)));
  ks_scope guard;
  if (cond) ks_if(kb, cond, &guard);
  kr_status st = KR_SUCCESS;
  if (!vec) {
    kr_value ij[2] = {i, j};
    st = kl_store_epilogue(lk, s->bz, gm, gn, ks_load(kb, s->acc, ij, 1));
  } else {
    unsigned no = lk->k->num_outputs;
    kr_value vals[4][16], first[16][KR_KERNEL_MAX_RANK], idx[16][KR_KERNEL_MAX_RANK];
    if (no > 16) return kr_op_emit_error(lk->k->func, "schedule: more than 16 outputs in a linear kernel");
    for (int c = 0; c < w && !KR_FAILED(st); c++) {
      kr_value ij[2] = {i, ks_addc(kb, j, c)};
      st = kl_epilogue_values(lk, s->bz, gm, ks_addc(kb, gn, c), ks_load(kb, s->acc, ij, 1), vals[c],
                              c == 0 ? first : idx);
    }
    for (unsigned o = 0; o < no && !KR_FAILED(st); o++) {
      if (!vals[0][o]) continue;
      kr_value v[4];
      for (int c = 0; c < w; c++) v[c] = vals[c][o];
      ks_store(kb, ks_vector_from_elements(kb, v, (unsigned)w), lk->k->out_bufs[o], first[o]);
    }
  }
  if (KR_FAILED(st)) return st;
  if (cond) ks_end(kb, &guard);
  ks_end(kb, &emap);
  return KR_SUCCESS;
}

kr_status kl_build_tiled(kl_kernel *lk, const kl_tile *t0) {
  ks_builder *kb = &lk->kb;
  const kl_gemm *g = &lk->g;
  tiled s;
  memset(&s, 0, sizeof s);
  s.lk = lk;
  s.t = *t0;
  kl_tile *t = &s.t;
  s.T = kl_threads(t);
  s.P = kl_a_pitch(t, g);
  int64_t grid[3] = {(g->N + t->bn - 1) / t->bn, (g->M + t->bm - 1) / t->bm, g->batch};
  if (grid[1] > 65535 || grid[2] > 65535) return kl_build_direct(lk);
  /* A's transposed stores stay conflict-free with vectors only while a bank row holds BK
   * elements (kl_a_pitch): not for f64 with BK = 32. */
  t->va = kl_bank_elems(g) >= t->bk ? vec_width(lk, kr_op_operand(g->L, 0), g->K, t->bk) : 1;
  t->vb = vec_width(lk, kr_op_operand(g->L, 1), g->N, t->bn);
  /* A warp's LM (LN) distinct fragment elements of a K step span LM*VM (LN*VN) consecutive
   * elements of a tile row: within one bank row (32 words, i.e. kl_bank_elems elements, at
   * most 32 lanes' worth) they hit distinct banks. */
  int be = (int)(kl_bank_elems(g) < 32 ? kl_bank_elems(g) : 32);
  s.vm = imin(t->tm, imax(1, be / t->lm));
  s.vn = imin(t->tn, imax(1, be / t->ln));
  s.rm = t->tm / s.vm;
  s.rn = t->tn / s.vn;
  if (KR_FAILED(kl_store_prologues(lk, grid, s.T))) return KR_FAILURE;
  int64_t ad[3] = {2, t->bk, t->bm}, as[3] = {t->bk * s.P, s.P, 1}, bd[3] = {2, t->bk, t->bn}, cd[2] = {t->tm, t->tn};
  s.As = ks_alloc(kb, KR_KERNEL_SPACE_SHARED, 3, ad, as, g->elem);
  s.Bs = ks_alloc(kb, KR_KERNEL_SPACE_SHARED, 3, bd, NULL, g->elem);
  s.acc = ks_alloc(kb, KR_KERNEL_SPACE_LOCAL, 2, cd, NULL, g->acc);
  if (!s.As || !s.Bs || !s.acc) return kr_op_emit_error(lk->k->func, "schedule: bad tile buffer type");
  kr_value c0 = ks_index(kb, 0);
  s.tid = ks_thread_id(kb);
  s.n_blk = ks_mulc(kb, ks_block_id(kb, 0), t->bn);
  s.m_blk = ks_mulc(kb, ks_block_id(kb, 1), t->bm);
  s.bz = g->batch > 1 ? ks_block_id(kb, 2) : c0;
  /* Accumulators to 0: the thread tile as one repeat atom. */
  {
    kr_task_mapping rep = kr_task_repeat(2, cd);
    kr_value task[2];
    ks_scope sc;
    ks_map(kb, c0, &rep, task, &sc);
    ks_store(kb, kl_zero(kb, g->acc), s.acc, task);
    ks_end(kb, &sc);
  }
  int64_t KT = (g->K + t->bk - 1) / t->bk;
  /* The thread's position: its first task of the thread mapping. */
  int64_t wd[2] = {t->warps_m, t->warps_n}, ld[2] = {t->lm, t->ln};
  kr_task_mapping warps = kr_task_spatial(2, wd), lanes = kr_task_spatial(2, ld), pos;
  kr_task_compose(&warps, &lanes, &pos);
  kr_value p[2];
  ks_scope pmap;
  ks_map(kb, s.tid, &pos, p, &pmap);
  kr_value m0 = ks_add(kb, ks_mulc(kb, ks_divc(kb, p[0], t->lm), t->wm), ks_mulc(kb, ks_remc(kb, p[0], t->lm), s.vm));
  kr_value n0 = ks_add(kb, ks_mulc(kb, ks_divc(kb, p[1], t->ln), t->wn), ks_mulc(kb, ks_remc(kb, p[1], t->ln), s.vn));
  kr_value moff[8], noff[8], kc[32], ic[8], jc[8];
  for (int i = 0; i < t->tm; i++) {
    moff[i] = ks_addc(kb, m0, (int64_t)(i / s.vm) * t->lm * s.vm + i % s.vm);
    ic[i] = ks_index(kb, i);
  }
  for (int j = 0; j < t->tn; j++) {
    noff[j] = ks_addc(kb, n0, (int64_t)(j / s.vn) * t->ln * s.vn + j % s.vn);
    jc[j] = ks_index(kb, j);
  }
  for (int kk = 0; kk < t->bk; kk++) kc[kk] = ks_index(kb, kk);
  if (KT > 0) {
    if (KR_FAILED(copy_tiles(&s, c0, c0))) return KR_FAILURE;
    ks_barrier(kb);
    ks_scope loop;
    kr_value kt = ks_for_c(kb, 0, KT, 1, &loop);
    kr_value stage = ks_remc(kb, kt, 2);
    kr_value next = ks_addc(kb, kt, 1);
    ks_scope more;
    ks_if(kb, ks_cmp_lt(kb, next, ks_index(kb, KT)), &more);
    if (KR_FAILED(copy_tiles(&s, ks_sub(kb, ks_index(kb, 1), stage), next))) return KR_FAILURE;
    ks_end(kb, &more);
    compute_tile(&s, stage, moff, noff, kc, ic, jc);
    ks_barrier(kb);
    ks_end(kb, &loop);
  }
  ks_end(kb, &pmap);
  if (KR_FAILED(epilogue(&s, &warps, &lanes))) return KR_FAILURE;
  char tile[64], desc[256];
  kl_tile_string(t, tile, sizeof tile);
  snprintf(desc, sizeof desc,
           "block %dx%dx%d, warp %dx%d (lanes %dx%d), thread %dx%d, 2 stages, A pitch %lld, global vectors %d/%d (%s)",
           t->bm, t->bn, t->bk, t->wm, t->wn, t->lm, t->ln, t->tm, t->tn, (long long)s.P, t->va, t->vb, tile);
  return ks_set_launch(lk->k, g->conv ? "conv" : "matmul", grid, s.T, kl_shared_bytes(t, g), desc);
}
