/* backend/interp/simt_report.c - the SIMT interpreter's memory report (docs/Interpreter.md
 * "Memory report"): global sectors and shared-memory wavefronts per warp-level instruction.
 *
 * The lanes of a warp execute a load/store together on the GPU.  The interpreter runs threads
 * one at a time, so it rebuilds the warp-level instructions afterwards: the k-th dynamic
 * execution of a static access op by each lane of a warp belongs to the same instruction (exact
 * for converged warps, which is what the templates produce).
 *   global: sectors = distinct 32-byte segments the active lanes touch (the L2/DRAM transaction
 *           unit, CUDA C Best Practices Guide "Coalesced Access to Global Memory"); minimum =
 *           ceil(distinct bytes / 32), the sectors the same bytes need when packed and aligned.
 *   shared: 32 banks of 4 bytes; a wavefront serves at most one distinct 4-byte word per bank
 *           (lanes reading the same word share it: broadcast).  8-byte accesses are served per
 *           half warp (2 phases of 16 lanes), 16-byte accesses per quarter warp (4 phases of 8
 *           lanes) (CUDA Programming Guide, "Shared Memory" of compute capability 5.x+).
 *           wavefronts = sum over phases of max over banks of distinct words; minimum = sum
 *           over phases of ceil(distinct words / 32); conflicts = wavefronts - minimum. */
#include <stdlib.h>
#include <string.h>

#include "backend/interp/simt.h"

/* Stable counting sort of src[n] into dst by key(r) in [0, range). */
static bool counting_sort(const simt_rec *src, simt_rec *dst, size_t n, uint32_t range, bool by_acc) {
  size_t *count = calloc((size_t)range + 1, sizeof *count);
  if (!count) return false;
  for (size_t i = 0; i < n; i++) count[(by_acc ? src[i].acc : src[i].occ) + 1]++;
  for (uint32_t k = 0; k < range; k++) count[k + 1] += count[k];
  for (size_t i = 0; i < n; i++) dst[count[by_acc ? src[i].acc : src[i].occ]++] = src[i];
  free(count);
  return true;
}

/* Sorts v[n] (at most a few hundred values: insertion sort) and returns the number of distinct
 * values. */
static size_t distinct(uint64_t *v, size_t n) {
  if (!n) return 0;
  for (size_t i = 1; i < n; i++) {
    uint64_t x = v[i];
    size_t j = i;
    for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
    v[j] = x;
  }
  size_t d = 1;
  for (size_t i = 1; i < n; i++) d += v[i] != v[i - 1];
  return d;
}

static void global_group(const simt_rec *r, size_t n, kr_simt_kernel_stats *st) {
  uint64_t seg[KR_KERNEL_WARP_SIZE * 4], bytes[KR_KERNEL_WARP_SIZE * 16];
  size_t ns = 0, nb = 0;
  for (size_t i = 0; i < n && i < KR_KERNEL_WARP_SIZE; i++) {
    for (uint64_t s = r[i].addr >> 5; s <= (r[i].addr + r[i].bytes - 1) >> 5 && ns < sizeof seg / sizeof *seg; s++)
      seg[ns++] = s;
    for (uint64_t b = 0; b < r[i].bytes && nb < sizeof bytes / sizeof *bytes; b++) bytes[nb++] = r[i].addr + b;
  }
  st->global_accesses++;
  st->global_sectors += (int64_t)distinct(seg, ns);
  st->global_min_sectors += (int64_t)((distinct(bytes, nb) + 31) / 32);
}

static void shared_group(const simt_program *p, const simt_rec *r, size_t n, kr_simt_kernel_stats *st) {
  unsigned width = r[0].bytes;
  unsigned lanes_per_phase = width <= 4 ? 32 : width <= 8 ? 16 : 8;
  int64_t wf = 0, min = 0;
  for (unsigned ph = 0; ph < KR_KERNEL_WARP_SIZE / lanes_per_phase; ph++) {
    uint64_t words[KR_KERNEL_WARP_SIZE * 4];
    size_t nw = 0;
    for (size_t i = 0; i < n; i++) {
      if (r[i].lane / lanes_per_phase != ph) continue;
      for (uint64_t w = r[i].addr >> 2; w <= (r[i].addr + r[i].bytes - 1) >> 2 && nw < sizeof words / sizeof *words;
           w++)
        words[nw++] = w;
    }
    if (!nw) continue;
    size_t d = distinct(words, nw);
    /* words is sorted: compact the distinct ones, then count per bank. */
    size_t k = 0;
    for (size_t i = 0; i < nw; i++)
      if (!i || words[i] != words[i - 1]) words[k++] = words[i];
    unsigned per_bank[32] = {0}, worst = 0;
    for (size_t i = 0; i < k; i++)
      if (++per_bank[words[i] % 32] > worst) worst = per_bank[words[i] % 32];
    wf += worst;
    min += (int64_t)((d + 31) / 32);
  }
  st->shared_accesses++;
  st->shared_wavefronts += wf;
  st->shared_min_wavefronts += min;
  if (p->acc[r[0].acc].inner) {
    st->inner_shared_accesses++;
    st->inner_shared_conflicts += wf - min;
  }
}

void simt_report_warp(const simt_program *p, simt_rec *recs, size_t n, kr_simt_kernel_stats *st) {
  if (!n || !st) return;
  /* Group by (access, occurrence): two stable counting sorts, by occurrence then by access
   * (linear time; a comparison sort of the millions of records of a matmul block dominated). */
  uint32_t max_occ = 0;
  for (size_t i = 0; i < n; i++)
    if (recs[i].occ > max_occ) max_occ = recs[i].occ;
  simt_rec *tmp = malloc(n * sizeof *tmp);
  if (!tmp || !counting_sort(recs, tmp, n, max_occ + 1, false) || !counting_sort(tmp, recs, n, p->nacc, true)) {
    free(tmp);
    return; /* out of memory: the report misses this warp */
  }
  free(tmp);
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && recs[j].acc == recs[i].acc && recs[j].occ == recs[i].occ) j++;
    const simt_buf *b = &p->bufs[p->acc[recs[i].acc].buf];
    if (b->space == KR_KERNEL_SPACE_GLOBAL)
      global_group(recs + i, j - i, st);
    else if (b->space == KR_KERNEL_SPACE_SHARED)
      shared_group(p, recs + i, j - i, st);
    i = j;
  }
}
