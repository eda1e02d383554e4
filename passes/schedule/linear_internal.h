/* passes/schedule/linear_internal.h - the linear templates' internal interface (templates
 * "matmul", "conv", "linear-direct"; docs/Scheduling.md "Linear kernels").
 *
 *   linear.c     dispatch: finds the kernel's one prim.matmul / prim.conv (L), builds the GEMM
 *                view, picks the template; epilogue stores; the separate phase that stores
 *                written prologue / side-input members over their own index space
 *   operands.c   the GEMM view of prim.matmul: batch dims, broadcast, A(b,m,k), B(b,k,n)
 *   conv.c       the GEMM view of prim.conv (implicit GEMM): A = weights, B = im2col(input)
 *   matmul.c     the tiled template (block / warp / thread tiles, shared memory, 2 stages)
 *   direct.c     one thread per output element with a K loop
 *   tiles.c      the tile space, its target filter, the cost model, the `tile` option
 *
 * Every linear kernel is read as a batched GEMM: C[b, m, n] = sum_k A[b, m, k] * B[b, k, n]
 * (Hidet ASPLOS'23 §4.2 writes matmul and implicit-GEMM conv with one template), where each of
 * A, B and C is an index map onto L's operands and result.  K is a multi-index (k_rank dims,
 * row-major) so that the direct template can loop over conv's (channel, kernel position)
 * without divisions, while the tiled template linearises it. */
#ifndef KORCH_PASSES_SCHEDULE_LINEAR_INTERNAL_H
#define KORCH_PASSES_SCHEDULE_LINEAR_INTERNAL_H

#include "passes/schedule/schedule.h"

#define KL_MAX_SP 6 /* conv spatial dims supported (prim.conv allows N-d; ONNX uses 1-3) */

typedef struct kl_gemm {
  ks_kernel *k;
  kr_op *L;           /* the prim.matmul or prim.conv of the old body */
  bool conv;
  kr_type elem;       /* element type of L's operands and result */
  kr_type acc;        /* accumulator: f32 for f16/bf16, else elem (integers wrap in elem) */
  bool is_float;
  int64_t batch, M, N, K; /* GEMM sizes; batch = prod(result batch dims) or conv groups */
  unsigned k_rank;    /* K = prod(k_dims[0..k_rank)) */
  int64_t k_dims[KL_MAX_SP + 1];
  unsigned out_rank;  /* L's result */
  int64_t out_dims[KR_KERNEL_MAX_RANK];
  /* matmul */
  unsigned nb;        /* result batch dims */
  unsigned lhs_rank, rhs_rank;
  int64_t lhs_dims[KR_KERNEL_MAX_RANK], rhs_dims[KR_KERNEL_MAX_RANK];
  /* conv (x [n, C, D...], w [Cout, C/group, k...], y [n, Cout, O...]) */
  unsigned nsp;
  int64_t nimg, cg, mg, group;
  int64_t in_sp[KL_MAX_SP], ker[KL_MAX_SP], out_sp[KL_MAX_SP];
  int64_t stride[KL_MAX_SP], dil[KL_MAX_SP], pad_begin[KL_MAX_SP];
  bool padded;        /* some input position can fall outside x (pads > 0 or overhang) */
} kl_gemm;

/* One element of a GEMM operand: element `index` of old-body tensor `tensor` (an operand of L,
 * so ks_emit_element inlines its prologue), valid only when `valid` (i1) holds, NULL meaning
 * always (conv padding makes some im2col elements zero). */
typedef struct kl_ref {
  kr_value tensor;
  kr_value index[KR_KERNEL_MAX_RANK];
  kr_value valid;
} kl_ref;

/* Builds the GEMM view of L (operands.c for matmul, conv.c for conv); reports unsupported
 * forms at L. */
kr_status kl_gemm_init(ks_kernel *k, kr_op *L, kl_gemm *g);
kr_status kl_conv_init(ks_kernel *k, kr_op *L, kl_gemm *g);
/* Index maps at the builder's point: A(b, m, k), B(b, k, n) (k: k_rank components) and the
 * index of C(b, m, n) in L's result (out_rank values); dispatch to the conv forms when g->conv. */
void kl_ref_a(const kl_gemm *g, ks_builder *kb, kr_value b, kr_value m, const kr_value *k, kl_ref *out);
void kl_ref_b(const kl_gemm *g, ks_builder *kb, kr_value b, const kr_value *k, kr_value n, kl_ref *out);
void kl_out_index(const kl_gemm *g, ks_builder *kb, kr_value b, kr_value m, kr_value n, kr_value *out);
void kl_conv_ref_a(const kl_gemm *g, ks_builder *kb, kr_value b, kr_value m, const kr_value *k, kl_ref *out);
void kl_conv_ref_b(const kl_gemm *g, ks_builder *kb, kr_value b, const kr_value *k, kr_value n, kl_ref *out);
void kl_conv_out_index(const kl_gemm *g, ks_builder *kb, kr_value b, kr_value m, kr_value n, kr_value *out);

/* The linear kernel being built: the GEMM view, the emitter with L overridden by `cur` (the
 * accumulator of the output element being stored), and which outputs are epilogue values. */
typedef struct kl_kernel {
  ks_kernel *k;
  kl_gemm g;
  ks_builder kb;
  ks_emitter *e;
  kr_value cur;         /* L's element at the current epilogue point (elem type) */
  bool *epilogue;       /* per output: L reaches it (stored in L's tile) */
} kl_kernel;

/* The thread-tile configuration of the tiled template (tiles.c). */
typedef struct kl_tile {
  int bm, bn, bk;       /* block tile BMxBN, K-tile BK */
  int tm, tn;           /* thread tile (accumulators per thread) */
  int lm, ln;           /* lanes of a warp over the warp tile: lm * ln = 32 */
  int wm, wn;           /* warp tile = (lm*tm) x (ln*tn) */
  int warps_m, warps_n; /* warps per block = (bm/wm) x (bn/wn) */
  int stages;           /* 2: double buffering */
  int va, vb;           /* global load vector widths of the A and B tiles (1, 2, 4) */
} kl_tile;

/* Elements of L's type that 32 banks of 4 bytes hold side by side (f32: 32, f64: 16, f16: 64). */
int64_t kl_bank_elems(const kl_gemm *g);
/* Shared-memory row pitch of the transposed A tile [BK][BM] (elements): BM padded so that
 * a warp's copy stores (lanes along k) hit distinct banks (tiles.c). */
int64_t kl_a_pitch(const kl_tile *t, const kl_gemm *g);
int64_t kl_shared_bytes(const kl_tile *t, const kl_gemm *g);
int kl_threads(const kl_tile *t);
/* "64x64x16/32x32/4x4/2" (block / warp / thread tile / stages). */
void kl_tile_string(const kl_tile *t, char *buf, size_t n);
/* Picks the tile (the `tile` option, the profile database, else the cost model).  Returns
 * false when nothing fits (the caller falls back to the direct template); reports a bad
 * `tile` option as an error in *st. */
bool kl_choose_tile(kl_kernel *lk, kl_tile *out, kr_status *st);
/* Whether the problem is skinny enough for the direct template. */
bool kl_prefer_direct(const kl_gemm *g);

kr_status kl_build_tiled(kl_kernel *lk, const kl_tile *t);
kr_status kl_build_direct(kl_kernel *lk);

/* Shared pieces (linear.c). */
/* Stores the epilogue at output element C(b, m, n) whose accumulator is `acc` (acc type):
 * L itself when written, every written epilogue member at its own index. */
kr_status kl_store_epilogue(kl_kernel *lk, kr_value b, kr_value m, kr_value n, kr_value acc);
/* The values kl_store_epilogue stores, without storing them: vals[i] (NULL for an output that
 * is not L or an epilogue) at index idx[i] of output i. */
kr_status kl_epilogue_values(kl_kernel *lk, kr_value b, kr_value m, kr_value n, kr_value acc, kr_value *vals,
                             kr_value (*idx)[KR_KERNEL_MAX_RANK]);
/* Phase 0: every written member L does not reach (prologue, side input), over its own index
 * space with a grid-stride loop (docs/Orchestration.md: a block only sees tiles). */
kr_status kl_store_prologues(kl_kernel *lk, const int64_t grid[3], int64_t threads);
/* Scalar helpers. */
kr_value kl_cmp(ks_builder *kb, const char *pred, kr_value a, kr_value b);
kr_value kl_zero(ks_builder *kb, kr_type t);
kr_value kl_mac(kl_kernel *lk, kr_value a, kr_value b, kr_value acc); /* acc + a*b in acc type */
kr_value kl_to_acc(kl_kernel *lk, kr_value v);  /* elem -> acc */
kr_value kl_from_acc(kl_kernel *lk, kr_value v); /* acc -> elem */
int64_t kl_elem_bytes(kr_type t);

#endif
