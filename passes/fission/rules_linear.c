/* passes/fission/rules_linear.c - fission rules of the linear family (Korch, ASPLOS'24, §3):
 * MatMul, Gemm, Conv, ConvTranspose and Einsum (ONNX opset 17) into prim.matmul / prim.conv and
 * the layout, elementwise and reduction primitives around them.
 *
 * Each rule computes exactly what the op-level reference kernel computes
 * (backend/interp/kernels_linear.c; shapes dialects/op/shape_linear.c): window geometry comes from
 * dialects/op/conv_pool_geom.c and the Einsum equation from dialects/op/einsum.c, the very
 * functions shape inference and the kernels use, so the three can never disagree. */
#include <stdlib.h>
#include <string.h>

#include "dialects/op/conv_pool_geom.h"
#include "dialects/op/einsum.h"
#include "passes/fission/fission.h"

static int64_t prod(const int64_t *d, unsigned n) {
  int64_t p = 1;
  for (unsigned i = 0; i < n; i++) p *= d[i];
  return p;
}

/* The declared type of op result i (what the driver checks the replacement against). */
static kr_type result_type(kr_op *op, unsigned i) { return kr_value_type(kr_op_result(op, i)); }

/* v reshaped to the declared shape of op result i. */
static kr_value reshape_to_result(kr_fission *f, kr_value v, unsigned i) {
  kr_type t = result_type(f->op, i);
  return fx_reshape(f, v, t->u.shaped.dims, t->u.shaped.rank);
}

/* ---------------------------------------------------------------------------------------------
 * MatMul-13: numpy matmul.  A 1-D A is [1, K] and a 1-D B is [K, 1] (numpy prepends/appends a
 * 1 and removes it afterwards); prim.matmul broadcasts the batch axes itself; the final
 * prim.reshape to the op's result shape removes the added 1s. */
kr_status kr_fission_mat_mul(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value a = fx_operand(f, 0), b = fx_operand(f, 1);
  (void)op;
  if (fx_rank(a) == 1) {
    int64_t d[2] = {1, fx_dims(a)[0]};
    a = fx_reshape(f, a, d, 2);
  }
  if (fx_rank(b) == 1) {
    int64_t d[2] = {fx_dims(b)[0], 1};
    b = fx_reshape(f, b, d, 2);
  }
  results[0] = reshape_to_result(f, fx_matmul(f, a, b), 0);
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * Gemm-13: Y = alpha * op(A) op(B) + beta * C, op = transpose when transA/transB; C (optional)
 * broadcasts unidirectionally to [M, N] (numpy rules, which fx_binary applies).  As the kernel:
 * beta == 0 ignores C (no NaN from 0 * inf), and integer operands with a non-unit alpha/beta
 * compute in f64 and convert once at the end (the kernel computes every non-f32 type in double). */
kr_status kr_fission_gemm(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value a = fx_operand(f, 0), b = fx_operand(f, 1), c = fx_operand(f, 2);
  double alpha = kr_op_attr_float(op, "alpha"), beta = kr_op_attr_float(op, "beta");
  kr_type elem = fx_elem(a);
  if (beta == 0.0) c = NULL;
  if (!fx_is_float(elem) && (alpha != 1.0 || (c && beta != 1.0))) {
    kr_type f64 = kr_type_float(f->ctx, KR_F64);
    a = fx_cast(f, a, f64), b = fx_cast(f, b, f64);
    if (c) c = fx_cast(f, c, f64);
  }
  static const int64_t swap[2] = {1, 0};
  if (kr_op_attr_int(op, "transA")) a = fx_transpose(f, a, swap);
  if (kr_op_attr_int(op, "transB")) b = fx_transpose(f, b, swap);
  kr_value y = fx_matmul(f, a, b);
  if (alpha != 1.0) y = fx_binary_scalar(f, "prim.mul", y, alpha);
  if (c) {
    if (beta != 1.0) c = fx_binary_scalar(f, "prim.mul", c, beta);
    y = fx_binary(f, "prim.add", y, c);
  }
  results[0] = fx_cast(f, y, elem);
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * Conv-11 and ConvTranspose-11. */

/* y + bias with bias [M] reshaped to [M, 1, ..., 1] and broadcast over y [N, M, O...]. */
static kr_value add_channel_bias(kr_fission *f, kr_value y, kr_value bias) {
  if (!bias || !y) return y;
  int64_t d[KR_OP_MAX_RANK];
  unsigned r = fx_rank(y) - 1;
  for (unsigned i = 0; i < r; i++) d[i] = i ? 1 : fx_dims(bias)[0];
  return fx_binary(f, "prim.add", y, fx_reshape(f, bias, d, r));
}

static kr_value conv_prim(kr_fission *f, kr_value x, kr_value w, const int64_t *strides, const int64_t *dilations,
                          const int64_t *pads, unsigned nsp, int64_t group) {
  kr_value v[2] = {x, w};
  if (f->failed || !x || !w) return NULL;
  return fx_prim(f, "prim.conv", v, 2,
                 fx_dict(f, 4, "strides", fx_attr_ints(f, strides, nsp), "dilations", fx_attr_ints(f, dilations, nsp),
                         "pads", fx_attr_ints(f, pads, 2 * nsp), "group", fx_attr_i(f, group)));
}

/* Conv: auto_pad, default strides/dilations and kernel_shape become explicit through
 * kr_window_geom_forward (the kernel's own geometry); prim.conv takes them; the optional bias B
 * [M] is added per output channel. */
kr_status kr_fission_conv(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = fx_operand(f, 0), w = fx_operand(f, 1), bias = fx_operand(f, 2);
  unsigned nsp = fx_rank(x) - 2;
  kr_window_geom g;
  if (kr_window_geom_forward(op, KR_WINDOW_CONV, fx_dims(x) + 2, fx_dims(w) + 2, nsp, &g)) {
    f->failed = true;   /* reported at the op */
    return KR_FAILURE;
  }
  int64_t pads[2 * KR_OP_MAX_RANK];
  for (unsigned i = 0; i < nsp; i++) pads[i] = g.pad_begin[i], pads[nsp + i] = g.pad_end[i];
  kr_value y = conv_prim(f, x, w, g.stride, g.dilation, pads, nsp, kr_op_attr_int(op, "group"));
  results[0] = add_channel_bias(f, y, bias);
  return fx_status(f);
}

/* ConvTranspose as a plain convolution over a zero-interleaved input.
 *
 * With X [N, C, D...], W [C, M/group, k...], stride s, dilation d, pads pb/pe and
 * output_padding op (all per spatial axis, from kr_window_geom_transpose, which also resolves
 * auto_pad and output_shape exactly as the kernel), the kernel scatters
 *     y[o] += x[i] * w[k]   for   o = i*s - pb + k*d.
 * Let xz be x with s-1 zeros between neighbours (xz[i*s] = x[i]); then
 *     y[o] = sum_k xz[o + pb - k*d] w[k] = sum_k' xp[o + k'*d] wf[k'],
 * with wf the weight flipped along every spatial axis (k' = k-1-k) and xp = xz padded by
 * d*(k-1) - pb at the beginning and d*(k-1) - pe + op at the end (negative entries crop): a
 * stride-1, dilation-d convolution without pads.  The output size is then
 * s*(D-1) + 1 + 2*d*(k-1) - pb - pe + op - d*(k-1) = s*(D-1) + op + d*(k-1) + 1 - pb - pe, the
 * ConvTranspose size.  Groups: W's [C, M/g] pair becomes prim.conv's [M, C/g] by a reshape to
 * [g, C/g, M/g, k...], a transpose of the middle pair and a reshape to [M, C/g, k...].
 *
 * Why zero-interleave rather than a transposed-convolution primitive: the prim set keeps one
 * linear primitive per kind (prim.conv) for orchestration to schedule, tile and fuse around; the
 * weight's regrouping and flip are layout primitives that constant-fold for a constant weight
 * (they are no larger than their operand).  The cost: prim.conv multiplies the (s-1)/s
 * interleaved zeros of every strided axis as well (s^n times the FLOPs of the scatter form for
 * an n-d stride s), and prim.pad materialises the interleaved input. */
kr_status kr_fission_conv_transpose(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = fx_operand(f, 0), w = fx_operand(f, 1), bias = fx_operand(f, 2);
  unsigned r = fx_rank(x), nsp = r - 2;
  kr_window_geom g;
  if (kr_window_geom_transpose(op, fx_dims(x) + 2, fx_dims(w) + 2, nsp, &g)) {
    f->failed = true;   /* reported at the op */
    return KR_FAILURE;
  }
  int64_t group = kr_op_attr_int(op, "group");
  const int64_t *dw = fx_dims(w);
  int64_t cin = dw[0], mg = dw[1], cg = group > 0 ? cin / group : 0;
  if (group < 1 || cg * group != cin || fx_dims(x)[1] != cin)
    return fx_fail(f, "group %lld does not divide the %lld input channels", (long long)group, (long long)cin),
           KR_FAILURE;
  if (r + 1 > KR_OP_MAX_RANK) return fx_fail(f, "rank %u is too large to regroup the weight", r), KR_FAILURE;
  /* Weight [C, M/g, k...] -> [g, C/g, M/g, k...] -> [g, M/g, C/g, k...] -> [M, C/g, k...]. */
  int64_t d5[KR_OP_MAX_RANK], perm[KR_OP_MAX_RANK], d4[KR_OP_MAX_RANK];
  d5[0] = group, d5[1] = cg, d5[2] = mg;
  perm[0] = 0, perm[1] = 2, perm[2] = 1;
  d4[0] = group * mg, d4[1] = cg;
  for (unsigned i = 0; i < nsp; i++) d5[3 + i] = dw[2 + i], perm[3 + i] = 3 + i, d4[2 + i] = dw[2 + i];
  kr_value wt;
  if (group == 1) {   /* [C, M, k...] -> [M, C, k...] directly */
    for (unsigned i = 0; i < r; i++) perm[i] = i < 2 ? 1 - i : i;
    wt = fx_transpose(f, w, perm);
  } else {
    wt = fx_reshape(f, w, d5, r + 1);
    wt = fx_transpose(f, wt, perm);
    wt = fx_reshape(f, wt, d4, r);
  }
  /* Flip every spatial axis of the weight. */
  int64_t st[KR_OP_MAX_RANK], en[KR_OP_MAX_RANK], sp[KR_OP_MAX_RANK];
  for (unsigned i = 0; i < r; i++) {
    bool spatial = i >= 2 && d4[i] > 1;
    st[i] = spatial ? d4[i] - 1 : 0;
    en[i] = spatial ? -1 : d4[i];
    sp[i] = spatial ? -1 : 1;
  }
  wt = fx_slice(f, wt, st, en, sp);
  /* Input: interleave stride-1 zeros, then pad/crop the ends. */
  int64_t pads[2 * KR_OP_MAX_RANK] = {0}, interior[KR_OP_MAX_RANK] = {0}, ones[KR_OP_MAX_RANK], zeros[2 * KR_OP_MAX_RANK];
  for (unsigned i = 0; i < nsp; i++) {
    int64_t span = g.dilation[i] * (g.kernel[i] - 1);
    interior[2 + i] = g.stride[i] - 1;
    pads[2 + i] = span - g.pad_begin[i];
    pads[r + 2 + i] = span - g.pad_end[i] + g.out_padding[i];
    ones[i] = 1;
  }
  memset(zeros, 0, sizeof zeros);
  bool strided = false;
  for (unsigned i = 0; i < nsp; i++) strided = strided || g.stride[i] > 1;
  kr_value xp = fx_pad(f, x, pads, strided ? interior : NULL, "constant", NULL);
  kr_value y = conv_prim(f, xp, wt, ones, g.dilation, zeros, nsp, group);
  results[0] = add_channel_bias(f, y, bias);
  return fx_status(f);
}

/* ---------------------------------------------------------------------------------------------
 * Einsum-12.
 *
 * The equation is parsed by kr_einsum_plan (the kernel's parser; labels 52+e are the broadcast
 * ellipsis axes, so ellipses need nothing special here).  Per operand:
 *   1. a label repeated within the operand (a diagonal, "ii->i") becomes one axis by a
 *      prim.gather of the flattened operand with constant linear indices;
 *   2. an axis of size 1 whose label has a larger size elsewhere broadcasts: it is dropped (the
 *      operand does not depend on that label);
 * then the operands are contracted pairwise, left to right.  For a pair (A, B) a label is
 * "needed" when the output or a later operand has it:
 *   - only in A (or only in B) and not needed: summed out first (prim.reduce_sum);
 *   - in both and needed: a batch axis; in both and not needed: contracted;
 *   - only in one and needed: a free (M or N) axis;
 * A is transposed/reshaped to [batch, M, K], B to [batch, K, N], prim.matmul gives
 * [batch, M, N] (prim.mul of [batch, M, 1] and [batch, 1, N] when nothing is contracted), and
 * the result's labels are batch ++ M ++ N.  Finally labels not in the output are summed out and
 * the rest transposed (and reshaped) to the output.  The sums run in the operands' element type
 * (prim.matmul accumulates floats in at least f32; integers wrap as in the kernel). */

typedef struct ein_term {
  kr_value v;
  unsigned rank;
  unsigned label[KR_OP_MAX_RANK];
} ein_term;

static bool term_has(const ein_term *t, unsigned l) {
  for (unsigned a = 0; a < t->rank; a++)
    if (t->label[a] == l) return true;
  return false;
}

/* Sums out the axes of t whose label is not in keep[]. */
static void ein_sum_out(kr_fission *f, ein_term *t, const bool *keep) {
  int64_t axes[KR_OP_MAX_RANK];
  unsigned n = 0, kept = 0;
  for (unsigned a = 0; a < t->rank; a++) {
    if (keep[t->label[a]]) t->label[kept++] = t->label[a];
    else axes[n++] = a;
  }
  if (!n) return;
  t->v = fx_reduce(f, "prim.reduce_sum", t->v, axes, n, false);
  t->rank = kept;
}

/* Operand i as a term with distinct labels and no broadcast size-1 axes (steps 1 and 2). */
static void ein_prepare(kr_fission *f, const kr_einsum *p, kr_value x, unsigned i, ein_term *t) {
  const int64_t *dx = fx_dims(x);
  unsigned rank = p->rank[i];
  /* Distinct labels in order of first occurrence; a size-1 axis of a repeated label broadcasts
   * (stride 0 in the kernel), so a distinct label's size is the largest of its axes. */
  unsigned u = 0, ul[KR_OP_MAX_RANK];
  int64_t ud[KR_OP_MAX_RANK];
  for (unsigned a = 0; a < rank; a++) {
    unsigned j = 0;
    while (j < u && ul[j] != p->label[i][a]) j++;
    if (j == u) ul[u] = p->label[i][a], ud[u++] = dx[a];
    else if (dx[a] > ud[j]) ud[j] = dx[a];
  }
  t->v = x;
  t->rank = u;
  memcpy(t->label, ul, u * sizeof *ul);
  if (u < rank) {
    /* Diagonal: y[idx over distinct labels] = x_flat[sum_a idx[label a] * stride_a]. */
    int64_t strides[KR_OP_MAX_RANK], n = prod(ud, u), flat = fx_numel(x);
    kr_dims_strides(dx, rank, strides);
    int64_t *lin = malloc((size_t)(n ? n : 1) * sizeof *lin);
    if (!lin) {
      fx_fail(f, "out of memory");
      return;
    }
    for (int64_t e = 0; e < n; e++) {
      int64_t idx[KR_OP_MAX_RANK], rem = e, off = 0;
      for (unsigned j = u; j-- > 0;) idx[j] = rem % ud[j], rem /= ud[j];
      for (unsigned a = 0; a < rank; a++) {
        unsigned j = 0;
        while (ul[j] != p->label[i][a]) j++;
        if (dx[a] != 1) off += idx[j] * strides[a];
      }
      lin[e] = off;
    }
    kr_value ind = fx_const_i64(f, fx_i64(f), lin, ud, u);
    free(lin);
    t->v = fx_gather(f, fx_reshape(f, x, &flat, 1), ind, 0);
  }
  /* Drop broadcast size-1 axes. */
  int64_t nd[KR_OP_MAX_RANK];
  unsigned k = 0;
  for (unsigned j = 0; j < u; j++) {
    if (ud[j] == 1 && p->dim[ul[j]] > 1) continue;
    t->label[k] = ul[j];
    nd[k++] = ud[j];
  }
  if (k < u) {
    t->rank = k;
    t->v = fx_reshape(f, t->v, nd, k);
  }
}

/* a (x) b over their labels, keeping the labels in need[] (see above). */
static void ein_contract(kr_fission *f, ein_term *a, ein_term *b, const bool *need) {
  bool keep_a[KR_EINSUM_MAX_LABELS], keep_b[KR_EINSUM_MAX_LABELS];
  for (unsigned l = 0; l < KR_EINSUM_MAX_LABELS; l++) {
    keep_a[l] = need[l] || term_has(b, l);
    keep_b[l] = need[l] || term_has(a, l);
  }
  ein_sum_out(f, a, keep_a);
  ein_sum_out(f, b, keep_b);
  if (f->failed) return;
  const int64_t *da = fx_dims(a->v), *db = fx_dims(b->v);
  /* Axis positions of batch, M, K (in A's order) and N (in B's order). */
  unsigned bat[KR_OP_MAX_RANK], mm[KR_OP_MAX_RANK], kk[KR_OP_MAX_RANK], nn[KR_OP_MAX_RANK], nb = 0, nm = 0, nk = 0,
           nn_ = 0;
  for (unsigned x = 0; x < a->rank; x++) {
    unsigned l = a->label[x];
    if (!term_has(b, l)) mm[nm++] = x;
    else if (need[l]) bat[nb++] = x;
    else kk[nk++] = x;
  }
  for (unsigned x = 0; x < b->rank; x++)
    if (!term_has(a, b->label[x])) nn[nn_++] = x;
  if (nb + nm + nn_ > KR_OP_MAX_RANK) {
    fx_fail(f, "the intermediate product has rank %u, more than %d", nb + nm + nn_, KR_OP_MAX_RANK);
    return;
  }
  int64_t pa[KR_OP_MAX_RANK], pb[KR_OP_MAX_RANK], bp = 1, mp = 1, kp = 1, np = 1;
  unsigned ia = 0, ib = 0;
  int64_t outd[KR_OP_MAX_RANK];
  unsigned outl[KR_OP_MAX_RANK], no = 0;
  for (unsigned j = 0; j < nb; j++) {
    pa[ia++] = bat[j];
    bp *= da[bat[j]];
    outd[no] = da[bat[j]], outl[no++] = a->label[bat[j]];
  }
  for (unsigned j = 0; j < nm; j++) {
    pa[ia++] = mm[j];
    mp *= da[mm[j]];
    outd[no] = da[mm[j]], outl[no++] = a->label[mm[j]];
  }
  for (unsigned j = 0; j < nk; j++) pa[ia++] = kk[j], kp *= da[kk[j]];
  for (unsigned j = 0; j < nn_; j++) {
    np *= db[nn[j]];
    outd[no] = db[nn[j]], outl[no++] = b->label[nn[j]];
  }
  /* B's permutation: batch and K in A's label order, then N. */
  for (unsigned j = 0; j < nb; j++) {
    unsigned l = a->label[bat[j]], q = 0;
    while (b->label[q] != l) q++;
    pb[ib++] = q;
  }
  for (unsigned j = 0; j < nk; j++) {
    unsigned l = a->label[kk[j]], q = 0;
    while (b->label[q] != l) q++;
    pb[ib++] = q;
  }
  for (unsigned j = 0; j < nn_; j++) pb[ib++] = nn[j];
  kr_value av = fx_transpose(f, a->v, pa), bv = fx_transpose(f, b->v, pb), y;
  /* [batch, M, K] x [batch, K, N]; without batch labels plain [M, K] x [K, N]. */
  unsigned mr = nb ? 3 : 2;
  int64_t sa[3] = {bp, mp, nk ? kp : 1}, sb[3] = {bp, nk ? kp : 1, np};
  av = fx_reshape(f, av, sa + 3 - mr, mr);
  bv = fx_reshape(f, bv, sb + 3 - mr, mr);
  y = nk ? fx_matmul(f, av, bv) : fx_binary(f, "prim.mul", av, bv);   /* nothing contracted: outer product */
  a->v = fx_reshape(f, y, outd, no);
  a->rank = no;
  memcpy(a->label, outl, no * sizeof *outl);
}

kr_status kr_fission_einsum(kr_fission *f, kr_op *op, kr_value *results) {
  unsigned n = op->num_operands;
  if (n == 0 || n > KR_EINSUM_MAX_OPERANDS)
    return fx_fail(f, "has %u operands, 1 to %d supported", n, KR_EINSUM_MAX_OPERANDS), KR_FAILURE;
  kr_type types[KR_EINSUM_MAX_OPERANDS];
  for (unsigned i = 0; i < n; i++) types[i] = kr_value_type(kr_op_operand(op, i));
  kr_einsum p;
  if (kr_einsum_plan(op, types, n, &p)) {
    f->failed = true;   /* reported at the op */
    return KR_FAILURE;
  }
  bool in_out[KR_EINSUM_MAX_LABELS] = {0};
  for (unsigned q = 0; q < p.out_rank; q++) in_out[p.out_label[q]] = true;
  ein_term acc, next;
  ein_prepare(f, &p, kr_op_operand(op, 0), 0, &acc);
  for (unsigned i = 1; i < n && !f->failed; i++) {
    ein_prepare(f, &p, kr_op_operand(op, i), i, &next);
    bool need[KR_EINSUM_MAX_LABELS];
    memcpy(need, in_out, sizeof need);
    for (unsigned j = i + 1; j < n; j++)
      for (unsigned a = 0; a < p.rank[j]; a++) need[p.label[j][a]] = true;
    ein_contract(f, &acc, &next, need);
  }
  if (f->failed) return KR_FAILURE;
  ein_sum_out(f, &acc, in_out);
  /* Output order; an output label absent here has size 1 (the final reshape inserts it). */
  int64_t perm[KR_OP_MAX_RANK];
  unsigned k = 0;
  for (unsigned q = 0; q < p.out_rank; q++)
    for (unsigned a = 0; a < acc.rank; a++)
      if (acc.label[a] == p.out_label[q]) perm[k++] = a;
  if (k != acc.rank) return fx_fail(f, "internal: einsum labels left over"), KR_FAILURE;
  results[0] = reshape_to_result(f, fx_transpose(f, acc.v, perm), 0);
  return fx_status(f);
}
