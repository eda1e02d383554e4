/* passes/schedule/direct.c - template "linear-direct": one thread per output element C(b, m, n)
 * with a loop over K, no shared memory.  For skinny problems a block tile would mostly compute
 * padding (a depthwise conv has M = Cout/group = 1, a matvec N = 1): here every thread does
 * useful work and consecutive threads take consecutive n, so the stores (and B's loads, for a
 * matvec's lhs rows or a conv's image) coalesce.  Also the fallback when no tile fits the
 * target.  Thread -> element: kernel.map %gid by spatial(batch, M, N) with %gid the global
 * thread index (a worker past the last element owns no task: the guard). */
#include <stdio.h>
#include <string.h>

#include "korch/diag.h"
#include "korch/prim.h"
#include "passes/schedule/linear_internal.h"

/* Pre-emits, at the channel loop's level, the per-(image, channel) values of the image's
 * prologue: the operands of its prim.broadcast members whose non-unit dims are only the batch
 * and channel dims (an instance norm's mean, scale and shift).  The emitter memoises elements
 * by (value, index), so the kernel-position loops inside reuse them instead of recomputing
 * them per MAC; a pre-emitted value the inner emission does not ask for (an index map that
 * changes the channel) is merely unused. */
static kr_status hoist_channel_values(kl_kernel *lk, kr_value x, kr_value img, kr_value ch, unsigned depth) {
  kr_op *d = kr_value_defining_op(x);
  if (!d || depth > 32 || kr_prim_op_class(d) == KR_PRIM_CONSTANT || kr_prim_op_class(d) == KR_PRIM_NOT_PRIM)
    return KR_SUCCESS;
  if (!strcmp(d->name, "prim.broadcast")) {
    kr_value v = kr_op_operand(d, 0);
    kr_type vt = kr_value_type(v), rt = kr_value_type(kr_op_result(d, 0));
    unsigned vr = vt->u.shaped.rank, rr = rt->u.shaped.rank;
    kr_value idx[KR_KERNEL_MAX_RANK];
    bool ok = vr <= rr;
    for (unsigned j = 0; j < vr && ok; j++) {
      unsigned dd = j + (rr - vr);
      if (vt->u.shaped.dims[j] == 1) idx[j] = ks_index(&lk->kb, 0);
      else if (dd == 0) idx[j] = img;
      else if (dd == 1) idx[j] = ch;
      else ok = false;
    }
    if (ok && !ks_emit_element(lk->e, v, idx)) return KR_FAILURE;
    return KR_SUCCESS;
  }
  for (unsigned i = 0; i < d->num_operands; i++)
    if (KR_FAILED(hoist_channel_values(lk, kr_op_operand(d, i), img, ch, depth + 1))) return KR_FAILURE;
  return KR_SUCCESS;
}

/* The K loop of a conv output element (b = group, m = channel in the group, n = (image, output
 * position)): loops over the input channel and each kernel dim, with every index computed at
 * the shallowest loop it depends on and the padding test of a dim guarding the loops inside
 * it, so the innermost body is a few adds, two loads and an FMA per MAC. */
/* acc[row] += a * bv, where a is A's element at (b, m, k) with m = m0 (rows == 1) or, for a
 * strip of `rows` rows, every m of the repeat(rows) mapping: B's element (with its prologue)
 * is computed once for all of them. */
static kr_status mac_rows(kl_kernel *lk, kr_value acc, kr_value b, kr_value m0, int64_t rows, const kr_value *kc,
                          kr_value bv) {
  ks_builder *kb = &lk->kb;
  const kl_gemm *g = &lk->g;
  kr_value c0 = ks_index(kb, 0), m = m0, r = c0;
  ks_scope strip;
  if (rows > 1) {
    kr_task_mapping rep = kr_task_repeat(1, &rows);
    ks_map(kb, c0, &rep, &r, &strip);
    m = r;
  }
  kl_ref a;
  kl_ref_a(g, kb, b, m, kc, &a);
  kr_value av = ks_emit_element(lk->e, a.tensor, a.index);
  if (!av) return KR_FAILURE;
  ks_store(kb, kl_mac(lk, kl_to_acc(lk, av), kl_to_acc(lk, bv), ks_load(kb, acc, &r, 1)), acc, &r);
  if (rows > 1) ks_end(kb, &strip);
  return KR_SUCCESS;
}

/* The K loop of a conv output element (b = group, m = channel in the group, n = (image, output
 * position)): loops over the input channel and each kernel dim, with every index computed at
 * the shallowest loop it depends on and the padding test of a dim guarding the loops inside
 * it, so the innermost body is a few adds, two loads and an FMA per MAC. */
static kr_status conv_k_loop(kl_kernel *lk, kr_value acc, kr_value b, kr_value m, kr_value n, int64_t rows) {
  ks_builder *kb = &lk->kb;
  const kl_gemm *g = &lk->g;
  kr_value c0 = ks_index(kb, 0);
  int64_t nd[1 + KL_MAX_SP];
  kr_value ni[1 + KL_MAX_SP], base[KL_MAX_SP];
  nd[0] = g->nimg;
  for (unsigned i = 0; i < g->nsp; i++) nd[1 + i] = g->out_sp[i];
  ks_delinearize(kb, n, nd, 1 + g->nsp, ni);
  for (unsigned i = 0; i < g->nsp; i++) base[i] = ks_addc(kb, ks_mulc(kb, ni[1 + i], g->stride[i]), -g->pad_begin[i]);
  kr_value cbase = ks_mulc(kb, b, g->cg);
  ks_scope scopes[2 * KL_MAX_SP + 1];
  unsigned ns = 0;
  kr_value kc[1 + KL_MAX_SP], xi[2 + KL_MAX_SP];
  kc[0] = ks_for_c(kb, 0, g->cg, 1, &scopes[ns++]);
  xi[0] = ni[0];
  xi[1] = ks_add(kb, cbase, kc[0]);
  if (KR_FAILED(hoist_channel_values(lk, kr_op_operand(g->L, 0), ni[0], xi[1], 0))) return KR_FAILURE;
  for (unsigned i = 0; i < g->nsp; i++) {
    kr_value r = ks_for_c(kb, 0, g->ker[i], 1, &scopes[ns++]);
    kc[1 + i] = r;
    kr_value pos = ks_add(kb, base[i], ks_mulc(kb, r, g->dil[i]));
    xi[2 + i] = pos;
    int64_t hi = (g->out_sp[i] - 1) * g->stride[i] + (g->ker[i] - 1) * g->dil[i] - g->pad_begin[i];
    kr_value ok = NULL;
    if (g->pad_begin[i] > 0) ok = kl_cmp(kb, "sge", pos, c0);
    if (hi >= g->in_sp[i]) {
      kr_value u = ks_cmp_lt(kb, pos, ks_index(kb, g->in_sp[i]));
      ok = ok ? ks_and(kb, ok, u) : u;
    }
    if (ok) ks_if(kb, ok, &scopes[ns++]);
  }
  kr_value xv = ks_emit_element(lk->e, kr_op_operand(g->L, 0), xi);
  if (!xv || KR_FAILED(mac_rows(lk, acc, b, m, rows, kc, xv))) return KR_FAILURE;
  while (ns > 0) ks_end(kb, &scopes[--ns]);
  return KR_SUCCESS;
}

/* A matvec (N = 1, K >= 32, 32/64-bit accumulator): one warp per output element, its lanes
 * taking every 32nd k (so a warp's loads of A's row are consecutive: coalesced), then a
 * butterfly of warp shuffles (xor 16, 8, 4, 2, 1) sums the 32 partials and lane 0 stores the
 * epilogue.  Thread -> task: spatial(batch, M, 32) over the global thread index; every warp
 * of the grid is either all inside (32 | workers) or all outside, so each shuffle is reached
 * by its whole warp. */
static bool warp_rows_fit(const kl_gemm *g) {
  unsigned bits = kr_type_bitwidth(g->acc);
  return !g->conv && g->N == 1 && g->K >= 32 && (bits == 32 || bits == 64);
}

static kr_status build_warp_rows(kl_kernel *lk) {
  ks_builder *kb = &lk->kb;
  const kl_gemm *g = &lk->g;
  int64_t max_threads = ks_block_threads(lk->k, 128);
  int64_t total = g->batch * g->M * 32, threads = total < max_threads ? total : max_threads;
  int64_t grid[3] = {(total + threads - 1) / threads, 1, 1};
  if (grid[0] > 2147483647LL) return kr_op_emit_error(lk->k->func, "schedule: %lld rows are too many for one grid", (long long)(total / 32));
  if (KR_FAILED(kl_store_prologues(lk, grid, threads))) return KR_FAILURE;
  int64_t one = 1;
  kr_value acc = ks_alloc(kb, KR_KERNEL_SPACE_LOCAL, 1, &one, NULL, g->acc);
  kr_value c0 = ks_index(kb, 0);
  kr_value gid = ks_add(kb, ks_mulc(kb, ks_block_id(kb, 0), threads), ks_thread_id(kb));
  int64_t shape[3] = {g->batch, g->M, 32};
  kr_task_mapping m = kr_task_spatial(3, shape);
  kr_value task[3];
  ks_scope map, loop, lane0;
  ks_map(kb, gid, &m, task, &map);
  ks_store(kb, kl_zero(kb, g->acc), acc, &c0);
  kr_value k = ks_for(kb, task[2], ks_index(kb, g->K), ks_index(kb, 32), &loop);
  kl_ref a, b;
  kl_ref_a(g, kb, task[0], task[1], &k, &a);
  kl_ref_b(g, kb, task[0], &k, c0, &b);
  kr_value av = ks_emit_element(lk->e, a.tensor, a.index);
  kr_value bv = av ? ks_emit_element(lk->e, b.tensor, b.index) : NULL;
  if (!av || !bv) return KR_FAILURE;
  ks_store(kb, kl_mac(lk, kl_to_acc(lk, av), kl_to_acc(lk, bv), ks_load(kb, acc, &c0, 1)), acc, &c0);
  ks_end(kb, &loop);
  kr_value v = ks_load(kb, acc, &c0, 1);
  for (int64_t off = 16; off >= 1; off /= 2) {
    kr_value ops[2] = {v, ks_shuffle(kb, "xor", v, ks_index(kb, off))};
    v = ks_create1(kb, g->is_float ? "arith.addf" : "arith.addi", ops, 2, g->acc);
  }
  ks_if(kb, kl_cmp(kb, "eq", task[2], c0), &lane0);
  if (KR_FAILED(kl_store_epilogue(lk, task[0], task[1], c0, v))) return KR_FAILURE;
  ks_end(kb, &lane0);
  ks_end(kb, &map);
  char desc[160];
  snprintf(desc, sizeof desc, "direct: one warp per output element (N = 1), lanes split K = %lld, warp-shuffle sum, "
           "%lld threads per block", (long long)g->K, (long long)threads);
  return ks_set_launch(lk->k, "linear-direct", grid, threads, 0, desc);
}

kr_status kl_build_direct(kl_kernel *lk) {
  ks_builder *kb = &lk->kb;
  const kl_gemm *g = &lk->g;
  if (g->batch * g->M > 0 && warp_rows_fit(g)) return build_warp_rows(lk);
  /* A strip of all M rows per thread when M is small and N is not: B's element (the image, with
   * its prologue) is then computed once per k for the M products instead of M times. */
  int64_t rows = g->M > 1 && g->M <= 16 && g->N >= 16 * g->M ? g->M : 1;
  int64_t total = g->batch * (g->M / rows) * g->N;
  int64_t threads = ks_block_threads(lk->k, 128);
  if (total < threads) threads = total < 32 ? 32 : (total + 31) / 32 * 32;
  int64_t grid[3] = {total > 0 ? (total + threads - 1) / threads : 1, 1, 1};
  if (grid[0] > 2147483647LL) return kr_op_emit_error(lk->k->func, "schedule: %lld output elements are too many for one grid", (long long)total);
  if (KR_FAILED(kl_store_prologues(lk, grid, threads))) return KR_FAILURE;
  char desc[192];
  if (rows > 1)
    snprintf(desc, sizeof desc, "direct: one thread per output column of %lld rows, %lld threads per block, K loop of %lld",
             (long long)rows, (long long)threads, (long long)g->K);
  else
    snprintf(desc, sizeof desc, "direct: one thread per output element, %lld threads per block, K loop of %lld",
             (long long)threads, (long long)g->K);
  if (total == 0) return ks_set_launch(lk->k, "linear-direct", grid, threads, 0, desc);
  kr_value acc = ks_alloc(kb, KR_KERNEL_SPACE_LOCAL, 1, &rows, NULL, g->acc);
  kr_value c0 = ks_index(kb, 0);
  kr_value gid = ks_add(kb, ks_mulc(kb, ks_block_id(kb, 0), threads), ks_thread_id(kb));
  /* Thread -> output: spatial(batch, M, N) (consecutive threads along n: coalesced stores), or
   * spatial(batch, N) with the strip's rows as a repeat inside. */
  int64_t shape[3] = {g->batch, g->M, g->N}, shape2[2] = {g->batch, g->N};
  kr_task_mapping m = rows > 1 ? kr_task_spatial(2, shape2) : kr_task_spatial(3, shape);
  kr_value task[3];
  ks_scope map;
  ks_map(kb, gid, &m, task, &map);
  kr_value b = task[0], mrow = rows > 1 ? NULL : task[1], n = rows > 1 ? task[1] : task[2];
  kr_task_mapping rep = kr_task_repeat(1, &rows);
  kr_value r = c0;
  ks_scope sc;
  if (rows > 1) ks_map(kb, c0, &rep, &r, &sc);
  ks_store(kb, kl_zero(kb, g->acc), acc, &r);
  if (rows > 1) ks_end(kb, &sc);
  if (g->conv) {
    if (KR_FAILED(conv_k_loop(lk, acc, b, mrow, n, rows))) return KR_FAILURE;
  } else {
    ks_scope loop;
    kr_value kc = ks_for_c(kb, 0, g->K, 1, &loop);
    kl_ref bref;
    kl_ref_b(g, kb, b, &kc, n, &bref);
    kr_value bv = ks_emit_element(lk->e, bref.tensor, bref.index);
    if (!bv || KR_FAILED(mac_rows(lk, acc, b, mrow, rows, &kc, bv))) return KR_FAILURE;
    ks_end(kb, &loop);
  }
  if (rows > 1) ks_map(kb, c0, &rep, &r, &sc);
  if (KR_FAILED(kl_store_epilogue(lk, b, rows > 1 ? r : mrow, n, ks_load(kb, acc, &r, 1)))) return KR_FAILURE;
  if (rows > 1) ks_end(kb, &sc);
  ks_end(kb, &map);
  return ks_set_launch(lk->k, "linear-direct", grid, threads, 0, desc);
}
