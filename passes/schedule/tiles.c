/* passes/schedule/tiles.c - the tile space of the tiled linear template (matmul.c), filtered by
 * the target's limits and ranked by a small analytic model or the profile database
 * (docs/Scheduling.md "Linear kernels"; Hidet ASPLOS'23 §6.2 uses a hardware-centric space of
 * this kind instead of a loop-oriented one).
 *
 * Space: block tile BM, BN in {16, 32, 64, 128}; K tile BK in {8, 16, 32}; thread tile TM, TN
 * in {2, 4, 8} (with one accumulator row or column a thread issues at least as many shared
 * loads as FMAs, and the interpreter runs more ops per MAC; the `tile` option may still force
 * 1); the 32 lanes of a warp as 4x8 or 8x4 over the warp tile (so the warp tile is
 * (lanes_m*TM) x (lanes_n*TN)); 1..8 warps per block; 2 stages.
 * Filter (include/korch/target.h): threads <= max_threads_per_block; shared memory <= the opt-in
 * limit (> 48 KiB is dynamic shared memory); registers: accumulators + A/B fragments + 24 for
 * addresses and loop state, in 32-bit registers, <= max_regs_per_thread and * threads <=
 * regs_per_block.
 *
 * Syntax of the `tile` option: "BMxBNxBK/WMxWN/TMxTN[/STAGES]", e.g. "64x64x16/32x32/4x4/2":
 * block tile, warp tile, thread tile, stages (only 2).  WM/TM x WN/TN must be 32 lanes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "korch/adt.h"
#include "korch/diag.h"
#include "passes/schedule/linear_internal.h"

int64_t kl_bank_elems(const kl_gemm *g) { return 128 / kl_elem_bytes(g->elem); }

int64_t kl_a_pitch(const kl_tile *t, const kl_gemm *g) {
  /* The copy of A puts a warp's lanes along k (the contiguous dim of A in global memory) and
   * stores them transposed, As[k][m]: lane (m, k) writes element k*P + m.  The 32 banks hold
   * E = 128 / element-bytes consecutive elements, and one access is served per phase of E lanes
   * or fewer (a half warp for 8-byte elements).  With P = E/BK (mod E) the elements k*E/BK + m
   * of a phase's lanes (k < BK, m < E/BK) fall in distinct banks; the same holds with 2- or
   * 4-wide vector copies, which spread k over fewer lanes and m over more.  (f16 elements of
   * one word, m and m + 1, share a word: no conflict.)  For E < BK (f64 with BK = 32) an odd P
   * is the best there is. */
  int64_t e = kl_bank_elems(g), r = (e / t->bk > 1 ? e / t->bk : 1) % e;
  return t->bm + (((r - t->bm % e) % e) + e) % e;
}

int64_t kl_shared_bytes(const kl_tile *t, const kl_gemm *g) {
  return (int64_t)t->stages * t->bk * (kl_a_pitch(t, g) + t->bn) * kl_elem_bytes(g->elem);
}

int kl_threads(const kl_tile *t) { return 32 * t->warps_m * t->warps_n; }

void kl_tile_string(const kl_tile *t, char *buf, size_t n) {
  snprintf(buf, n, "%dx%dx%d/%dx%d/%dx%d/%d", t->bm, t->bn, t->bk, t->wm, t->wn, t->tm, t->tn, t->stages);
}

bool kl_prefer_direct(const kl_gemm *g) {
  /* Fewer than 16 rows or columns would leave most of the smallest tile idle, and a K of a few
   * elements (depthwise: C/group * kernel = 9) makes shared staging pure overhead. */
  return g->M < 16 || g->N < 16 || g->K < 8;
}

static int regs_per_value(const kl_gemm *g) { return kl_elem_bytes(g->acc) > 4 ? 2 : 1; }

static int tile_regs(const kl_tile *t, const kl_gemm *g) {
  return (t->tm * t->tn + t->tm + t->tn) * regs_per_value(g) + 24;
}

/* Derived fields from (bm, bn, bk, tm, tn, lm, ln); false when inconsistent. */
static bool complete(kl_tile *t) {
  if (t->lm * t->ln != 32) return false;
  t->wm = t->lm * t->tm;
  t->wn = t->ln * t->tn;
  if (t->wm > t->bm || t->wn > t->bn || t->bm % t->wm || t->bn % t->wn) return false;
  t->warps_m = t->bm / t->wm;
  t->warps_n = t->bn / t->wn;
  t->stages = 2;
  return true;
}

/* Why `t` does not fit the target, or NULL. */
static const char *misfit(const kl_tile *t, const kl_gemm *g, const kr_target *tg, char *why, size_t n) {
  int threads = kl_threads(t);
  if (t->warps_m * t->warps_n > 8 || threads > tg->max_threads_per_block) {
    snprintf(why, n, "%d warps per block (the space has at most 8, the target %d threads)", threads / 32,
             tg->max_threads_per_block);
    return why;
  }
  int64_t smem = kl_shared_bytes(t, g);
  if (smem > tg->smem_per_block_optin_bytes) {
    snprintf(why, n, "%lld bytes of shared memory (at most %lld)", (long long)smem,
             (long long)tg->smem_per_block_optin_bytes);
    return why;
  }
  int regs = tile_regs(t, g);
  if (regs > tg->max_regs_per_thread || (int64_t)regs * threads > tg->regs_per_block) {
    snprintf(why, n, "about %d registers per thread (at most %d, %d per block)", regs, tg->max_regs_per_thread,
             tg->regs_per_block);
    return why;
  }
  return NULL;
}

/* Modelled time (µs): the larger of issue time and DRAM time.  Per K step a warp issues TM*TN
 * FMAs (4 warp schedulers per SM) and TM + TN shared loads plus its share of the tile copies
 * (one load/store pipe per SM, one wavefront per access: the template is conflict-free), so a
 * small thread tile is bound by shared memory.  The warps of the blocks resident on an SM
 * (limited by threads, shared memory, registers) share those pipes; waves = blocks / (SMs *
 * resident blocks); with fewer than 8 resident warps latency is not hidden (scaled up).  DRAM:
 * A is read once per block column, B once per block row, C written once. */
/* Instructions to produce one element of an operand tile in the copy: the load and the shared
 * store, the index arithmetic of a conv gather, and about two per prologue primitive inlined
 * into it (its elementwise op and its index map).  An expensive operand (a conv image behind
 * a normalisation and a reflect pad) makes the model prefer tiles that reuse it more: a larger
 * BM for B, BN for A. */
static unsigned prologue_ops(kr_value v, unsigned depth) {
  kr_op *d = kr_value_defining_op(v);
  if (!d || depth > 64 || kr_op_has_trait(d, KR_TRAIT_CONSTANT_LIKE)) return 0;
  unsigned n = 1;
  for (unsigned i = 0; i < d->num_operands; i++) n += prologue_ops(kr_op_operand(d, i), depth + 1);
  return n;
}

static double element_cost(const kl_gemm *g, unsigned operand) {
  double c = 2.0 + 2.0 * prologue_ops(kr_op_operand(g->L, operand), 0);
  if (g->conv) c += operand == 0 ? 6.0 * g->nsp + 6.0 : 2.0 * g->nsp; /* gather / delinearised k */
  return c;
}

static double model_us(const kl_tile *t, const kl_gemm *g, const kr_target *tg) {
  int64_t gm = (g->M + t->bm - 1) / t->bm, gn = (g->N + t->bn - 1) / t->bn;
  int64_t blocks = gm * gn * g->batch, kp = (g->K + t->bk - 1) / t->bk * t->bk;
  int threads = kl_threads(t), warps = threads / 32;
  int64_t smem = kl_shared_bytes(t, g);
  int64_t res = tg->max_threads_per_sm / threads;
  if (smem > 0 && tg->smem_per_sm_bytes / smem < res) res = tg->smem_per_sm_bytes / smem;
  int64_t rb = tg->regs_per_sm / ((int64_t)tile_regs(t, g) * threads);
  if (rb < res) res = rb;
  if (res > 32) res = 32;
  if (res < 1) res = 1;
  int64_t per_sm = (blocks + tg->sm_count - 1) / tg->sm_count;
  if (per_sm > res) per_sm = res;
  double waves = ceil((double)blocks / ((double)tg->sm_count * (double)res));
  double fma = (double)kp * t->tm * t->tn / 4.0;
  /* A is operand 0 of a matmul, 1 (the weights) of a conv. */
  double ca = element_cost(g, g->conv ? 1 : 0), cb = element_cost(g, g->conv ? 0 : 1);
  double lsu = (double)kp * (t->tm + t->tn) + (double)kp * (ca * t->bm + cb * t->bn) / threads;
  double per_warp = (fma > lsu ? fma : lsu) + 4.0 * t->tm * t->tn;
  double cycles = waves * (double)per_sm * warps * per_warp;
  double resident_warps = (double)per_sm * warps;
  if (resident_warps < 8) cycles *= 8.0 / resident_warps;
  double t_issue = cycles / tg->sm_clock_mhz;
  double eb = (double)kl_elem_bytes(g->elem);
  double bytes = eb * (double)g->batch * ((double)g->M * g->K * gn + (double)g->K * g->N * gm + (double)g->M * g->N);
  double t_mem = bytes / (tg->dram_bandwidth_gbs * 1e3);
  return t_issue > t_mem ? t_issue : t_mem;
}

static bool parse_override(const char *s, kl_tile *t) {
  int n = 0, stages = 2, used = 0;
  memset(t, 0, sizeof *t);
  n = sscanf(s, "%dx%dx%d/%dx%d/%dx%d%n", &t->bm, &t->bn, &t->bk, &t->wm, &t->wn, &t->tm, &t->tn, &used);
  if (n != 7) return false;
  if (s[used] == '/') {
    int u2 = 0;
    if (sscanf(s + used + 1, "%d%n", &stages, &u2) != 1) return false;
    used += 1 + u2;
  }
  if (s[used] || stages != 2) return false;
  if (t->bm < 1 || t->bn < 1 || t->bk < 1 || t->tm < 1 || t->tn < 1 || t->wm % t->tm || t->wn % t->tn) return false;
  t->lm = t->wm / t->tm;
  t->ln = t->wn / t->tn;
  int wm = t->wm, wn = t->wn;
  if (!complete(t) || t->wm != wm || t->wn != wn) return false;
  /* Powers of two keep every copy mapping exact (threads, rows and columns divide). */
  int v[] = {t->bm, t->bn, t->bk, t->tm, t->tn};
  for (unsigned i = 0; i < 5; i++)
    if (v[i] & (v[i] - 1)) return false;
  return t->bk <= 32;
}

bool kl_choose_tile(kl_kernel *lk, kl_tile *out, kr_status *st) {
  const kl_gemm *g = &lk->g;
  const kr_target *tg = lk->k->target;
  char why[160];
  *st = KR_SUCCESS;
  if (lk->k->tile_override && lk->k->tile_override[0]) {
    if (!parse_override(lk->k->tile_override, out)) {
      *st = kr_op_emit_error(lk->k->func,
                             "schedule: bad tile '%s': expected BMxBNxBK/WMxWN/TMxTN[/2] with powers of two, BK <= 32, "
                             "and (WM/TM) x (WN/TN) = 32 lanes dividing the block tile",
                             lk->k->tile_override);
      return false;
    }
    if (misfit(out, g, tg, why, sizeof why)) {
      *st = kr_op_emit_error(lk->k->func, "schedule: tile '%s' does not fit %s: %s", lk->k->tile_override, tg->name,
                             why);
      return false;
    }
    return true;
  }
  static const int bms[] = {16, 32, 64, 128}, bks[] = {8, 16, 32}, tts[] = {2, 4, 8};
  static const int lanes[2][2] = {{4, 8}, {8, 4}};
  bool found = false, measured = false;
  double best = 0;
  for (unsigned a = 0; a < 4; a++)
    for (unsigned b = 0; b < 4; b++)
      for (unsigned c = 0; c < 3; c++)
        for (unsigned d = 0; d < 3; d++)
          for (unsigned e = 0; e < 3; e++)
            for (unsigned l = 0; l < 2; l++) {
              kl_tile t = {.bm = bms[a], .bn = bms[b], .bk = bks[c], .tm = tts[d], .tn = tts[e],
                           .lm = lanes[l][0], .ln = lanes[l][1]};
              /* f64 with BK = 32: a K tile row wider than the 32 banks (kl_a_pitch). */
              if (!complete(&t) || kl_bank_elems(g) < t.bk || misfit(&t, g, tg, why, sizeof why)) continue;
              double cost = model_us(&t, g, tg);
              bool m = false;
              if (lk->k->profile_db) {
                char s[64];
                kl_tile_string(&t, s, sizeof s);
                double us = kr_profile_db_lookup(lk->k->profile_db, tg->name,
                                                 kr_hash_combine(lk->k->hash, kr_hash_bytes(s, strlen(s))));
                if (us > 0) cost = us, m = true;
              }
              /* A measured configuration beats every modelled one. */
              if (!found || (m && !measured) || (m == measured && cost < best)) {
                *out = t;
                best = cost;
                measured = m;
                found = true;
              }
            }
  return found;
}
