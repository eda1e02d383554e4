/* backend/interp/kernels_linear.c - CPU reference kernels of the linear ops: MatMul, Gemm,
 * Conv, ConvTranspose, Einsum (ONNX opset 17, Operators.md).
 *
 * f32 goes straight to OpenBLAS's sgemm on the tensors' storage (the models are f32 and must
 * interpret in seconds); f64 uses dgemm; f16/bf16 are widened to double, computed with dgemm and
 * rounded once on store; integer MatMul/Einsum accumulate in int64 (wrapping, as two's
 * complement hardware does).  Conv is im2col + gemm per group, ConvTranspose gemm + col2im. */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/op/conv_pool_geom.h"
#include "dialects/op/einsum.h"

static bool is_f32(const kr_tensor *t) {
  kr_type e = kr_tensor_elem(t);
  return e->kind == KR_TYPE_FLOAT && e->u.fkind == KR_F32;
}

static bool is_f64(const kr_tensor *t) {
  kr_type e = kr_tensor_elem(t);
  return e->kind == KR_TYPE_FLOAT && e->u.fkind == KR_F64;
}

/* A malloc'd copy of t's elements as double (NULL when out of memory). */
static double *to_f64(const kr_tensor *t) {
  double *d = malloc((size_t)(t->numel ? t->numel : 1) * sizeof *d);
  if (d)
    for (int64_t i = 0; i < t->numel; i++) d[i] = kr_tensor_get_f64(t, i);
  return d;
}

static void from_f64(kr_tensor *t, const double *d) {
  for (int64_t i = 0; i < t->numel; i++) kr_tensor_set_f64(t, i, d[i]);
}

static int64_t prod(const int64_t *d, unsigned n) {
  int64_t p = 1;
  for (unsigned i = 0; i < n; i++) p *= d[i];
  return p;
}

/* ---------------------------------------------------------------------------------------------
 * Real-number vtable: the Conv/ConvTranspose/MatMul drivers run on float (f32 tensors, in place)
 * or double (everything else, widened). */
typedef struct real_ops {
  size_t size;
  void (*gemm)(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
               const void *b, int64_t ldb, double beta, void *c, int64_t ldc);
  void (*add)(void *dst, int64_t i, double v);   /* dst[i] += v */
  void (*im2col)(const kr_window_geom *g, int64_t channels, const void *x, void *col);
  void (*col2im)(const kr_window_geom *g, int64_t channels, const void *col, void *y);
} real_ops;

static void gemm_f32(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
                     const void *b, int64_t ldb, double beta, void *c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (blasint)m, (blasint)n,
              (blasint)k, (float)alpha, a, (blasint)lda, b, (blasint)ldb, (float)beta, c, (blasint)ldc);
}

static void gemm_f64(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
                     const void *b, int64_t ldb, double beta, void *c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (blasint)m, (blasint)n,
              (blasint)k, alpha, a, (blasint)lda, b, (blasint)ldb, beta, c, (blasint)ldc);
}

static void add_f32(void *d, int64_t i, double v) { ((float *)d)[i] += (float)v; }
static void add_f64(void *d, int64_t i, double v) { ((double *)d)[i] += v; }

/* The column matrix of a convolution: rows (c, k1..kn) for each of `channels` input channels
 * and kernel offsets, columns the output positions; entries outside the input are 0.  The
 * innermost spatial axis is a tight loop; outer axes walk an odometer. */
#define DEFINE_IM2COL(T, NAME)                                                                                 \
  static void NAME(const kr_window_geom *g, int64_t channels, const void *xv, void *colv) {                    \
    const T *x = xv;                                                                                           \
    T *col = colv;                                                                                             \
    unsigned n = g->nsp, last = n - 1;                                                                         \
    int64_t kp = prod(g->kernel, n), ip = prod(g->in, n), op = prod(g->out, n), outer = op / g->out[last];     \
    int64_t istr[KR_OP_MAX_RANK];                                                                              \
    kr_dims_strides(g->in, n, istr);                                                                           \
    for (int64_t c = 0; c < channels; c++)                                                                     \
      for (int64_t kidx = 0; kidx < kp; kidx++) {                                                              \
        int64_t k[KR_OP_MAX_RANK], r = kidx;                                                                   \
        for (unsigned d = n; d-- > 0;) k[d] = r % g->kernel[d], r /= g->kernel[d];                             \
        T *row = col + (c * kp + kidx) * op;                                                                   \
        const T *xc = x + c * ip;                                                                              \
        int64_t s = g->stride[last], base_l = k[last] * g->dilation[last] - g->pad_begin[last];                \
        for (int64_t o = 0; o < outer; o++) {                                                                  \
          int64_t rem = o, off = 0;                                                                            \
          bool valid = true;                                                                                   \
          for (unsigned d = last; d-- > 0;) {                                                                  \
            int64_t od = rem % g->out[d];                                                                      \
            rem /= g->out[d];                                                                                  \
            int64_t id = od * g->stride[d] - g->pad_begin[d] + k[d] * g->dilation[d];                          \
            if (id < 0 || id >= g->in[d]) valid = false;                                                       \
            off += id * istr[d];                                                                               \
          }                                                                                                    \
          T *dst = row + o * g->out[last];                                                                     \
          if (!valid) {                                                                                        \
            memset(dst, 0, (size_t)g->out[last] * sizeof(T));                                                  \
            continue;                                                                                          \
          }                                                                                                    \
          const T *src = xc + off;                                                                             \
          for (int64_t ol = 0; ol < g->out[last]; ol++) {                                                      \
            int64_t il = ol * s + base_l;                                                                      \
            dst[ol] = il >= 0 && il < g->in[last] ? src[il] : (T)0;                                            \
          }                                                                                                    \
        }                                                                                                      \
      }                                                                                                        \
  }

/* The adjoint of im2col for ConvTranspose: column rows (m, k1..kn) over the *input* positions
 * i scatter-add into output position i*s - pad_begin + k*dilation when it lies inside. */
#define DEFINE_COL2IM(T, NAME)                                                                                 \
  static void NAME(const kr_window_geom *g, int64_t channels, const void *colv, void *yv) {                    \
    const T *col = colv;                                                                                       \
    T *y = yv;                                                                                                 \
    unsigned n = g->nsp, last = n - 1;                                                                         \
    int64_t kp = prod(g->kernel, n), ip = prod(g->in, n), op = prod(g->out, n), outer = ip / g->in[last];      \
    int64_t ostr[KR_OP_MAX_RANK];                                                                              \
    kr_dims_strides(g->out, n, ostr);                                                                          \
    for (int64_t c = 0; c < channels; c++)                                                                     \
      for (int64_t kidx = 0; kidx < kp; kidx++) {                                                              \
        int64_t k[KR_OP_MAX_RANK], r = kidx;                                                                   \
        for (unsigned d = n; d-- > 0;) k[d] = r % g->kernel[d], r /= g->kernel[d];                             \
        const T *row = col + (c * kp + kidx) * ip;                                                             \
        T *yc = y + c * op;                                                                                    \
        int64_t s = g->stride[last], base_l = k[last] * g->dilation[last] - g->pad_begin[last];                \
        for (int64_t o = 0; o < outer; o++) {                                                                  \
          int64_t rem = o, off = 0;                                                                            \
          bool valid = true;                                                                                   \
          for (unsigned d = last; d-- > 0;) {                                                                  \
            int64_t id = rem % g->in[d];                                                                       \
            rem /= g->in[d];                                                                                   \
            int64_t od = id * g->stride[d] - g->pad_begin[d] + k[d] * g->dilation[d];                          \
            if (od < 0 || od >= g->out[d]) valid = false;                                                      \
            off += od * ostr[d];                                                                               \
          }                                                                                                    \
          if (!valid) continue;                                                                                \
          const T *src = row + o * g->in[last];                                                                \
          T *dst = yc + off;                                                                                   \
          for (int64_t il = 0; il < g->in[last]; il++) {                                                       \
            int64_t ol = il * s + base_l;                                                                      \
            if (ol >= 0 && ol < g->out[last]) dst[ol] += src[il];                                              \
          }                                                                                                    \
        }                                                                                                      \
      }                                                                                                        \
  }

DEFINE_IM2COL(float, im2col_f32)
DEFINE_IM2COL(double, im2col_f64)
DEFINE_COL2IM(float, col2im_f32)
DEFINE_COL2IM(double, col2im_f64)

static const real_ops ops_f32 = {sizeof(float), gemm_f32, add_f32, im2col_f32, col2im_f32};
static const real_ops ops_f64 = {sizeof(double), gemm_f64, add_f64, im2col_f64, col2im_f64};

/* Views of operands as arrays of the compute type: f32 tensors in place, others widened to a
 * malloc'd double copy (tracked for release). */
typedef struct real_view {
  const real_ops *ops;
  void *bufs[4];
  unsigned nbufs;
} real_view;

static void *view_in(real_view *v, const kr_tensor *t) {
  if (!t) return NULL;
  if (v->ops == &ops_f32 || is_f64(t)) return t->data;
  double *d = to_f64(t);
  v->bufs[v->nbufs++] = d;
  return d;
}

/* The output array: in place for f32/f64, else a zeroed double buffer stored by view_finish. */
static void *view_out(real_view *v, kr_tensor *t) {
  if (v->ops == &ops_f32 || is_f64(t)) return t->data;
  double *d = calloc((size_t)(t->numel ? t->numel : 1), sizeof *d);
  v->bufs[v->nbufs++] = d;
  return d;
}

static void view_release(real_view *v) {
  for (unsigned i = 0; i < v->nbufs; i++) free(v->bufs[i]);
  v->nbufs = 0;
}

static bool view_oom(const real_view *v) {
  for (unsigned i = 0; i < v->nbufs; i++)
    if (!v->bufs[i]) return true;
  return false;
}

static void view_init(real_view *v, const kr_tensor *t) {
  v->ops = is_f32(t) ? &ops_f32 : &ops_f64;
  v->nbufs = 0;
}

/* ---------------------------------------------------------------------------------------------
 * MatMul-13. */

/* Integer matmul of one batch: int64 accumulation wrapping modulo 2^64 (then to the element
 * width on store). */
static void matmul_int(const kr_tensor *a, int64_t ao, const kr_tensor *b, int64_t bo, kr_tensor *y, int64_t yo,
                       int64_t m, int64_t n, int64_t k) {
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      uint64_t acc = 0;
      for (int64_t p = 0; p < k; p++)
        acc += (uint64_t)kr_tensor_get_i64(a, ao + i * k + p) * (uint64_t)kr_tensor_get_i64(b, bo + p * n + j);
      kr_tensor_set_i64(y, yo + i * n + j, (int64_t)acc);
    }
}

kr_status kr_eval_mat_mul(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *a = ins[0], *b = ins[1];
  kr_tensor *y = outs[0];
  unsigned ra = kr_tensor_rank(a), rb = kr_tensor_rank(b), ry = kr_tensor_rank(y);
  const int64_t *da = kr_tensor_dims(a), *db = kr_tensor_dims(b), *dy = kr_tensor_dims(y);
  int64_t m = ra >= 2 ? da[ra - 2] : 1, k = da[ra - 1], n = rb >= 2 ? db[rb - 1] : 1;
  /* Batch axes: Y's leading axes; A's and B's right-align with them and broadcast. */
  unsigned nb = ry - (ra >= 2) - (rb >= 2), ba = ra > 2 ? ra - 2 : 0, bb = rb > 2 ? rb - 2 : 0;
  int64_t batches = prod(dy, nb), a_batches = prod(da, ba), b_batches = prod(db, bb);
  /* Y is zeroed already: an empty product needs no work (and BLAS rejects K = 0 strides). */
  if (y->numel == 0 || k == 0) return KR_SUCCESS;
  bool integer = kr_tensor_elem(a)->kind != KR_TYPE_FLOAT;
  real_view v;
  view_init(&v, a);
  const char *pa = NULL, *pb = NULL;
  char *py = NULL;
  if (!integer) {
    pa = view_in(&v, a);
    pb = view_in(&v, b);
    py = view_out(&v, y);
    if (view_oom(&v)) {
      view_release(&v);
      return kr_op_emit_error(op, "out of memory");
    }
    /* A stack of matrices times one matrix: a single gemm over all rows of A. */
    if (b_batches == 1 && a_batches == batches) {
      v.ops->gemm(false, false, m * batches, n, k, 1.0, pa, k, pb, n, 0.0, py, n);
      goto done;
    }
  }
  for (int64_t bi = 0; bi < batches; bi++) {
    /* Batch offsets of A and B by broadcasting bi's multi-index. */
    int64_t rem = bi, ao = 0, bo = 0, sa = 1, sb = 1;
    for (unsigned d = nb; d-- > 0;) {
      int64_t idx = rem % dy[d];
      rem /= dy[d];
      int64_t pos_a = (int64_t)d - (int64_t)(nb - ba), pos_b = (int64_t)d - (int64_t)(nb - bb);
      if (pos_a >= 0) {
        if (da[pos_a] != 1) ao += idx * sa;
        sa *= da[pos_a];
      }
      if (pos_b >= 0) {
        if (db[pos_b] != 1) bo += idx * sb;
        sb *= db[pos_b];
      }
    }
    if (integer) {
      matmul_int(a, ao * m * k, b, bo * k * n, y, bi * m * n, m, n, k);
    } else {
      size_t es = v.ops->size;
      v.ops->gemm(false, false, m, n, k, 1.0, pa + (size_t)(ao * m * k) * es, k, pb + (size_t)(bo * k * n) * es, n, 0.0,
                  py + (size_t)(bi * m * n) * es, n);
    }
  }
done:
  if (!integer && py != y->data) from_f64(y, (const double *)py);
  view_release(&v);
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Gemm-13. */

kr_status kr_eval_gemm(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  /* ins has one entry per operand: a trailing omitted C is not there at all. */
  const kr_tensor *a = ins[0], *b = ins[1], *c = op->num_operands > 2 ? ins[2] : NULL;
  kr_tensor *y = outs[0];
  bool ta = kr_op_attr_int(op, "transA") != 0, tb = kr_op_attr_int(op, "transB") != 0;
  double alpha = kr_op_attr_float(op, "alpha"), beta = kr_op_attr_float(op, "beta");
  const int64_t *da = kr_tensor_dims(a), *db = kr_tensor_dims(b);
  int64_t m = ta ? da[1] : da[0], k = ta ? da[0] : da[1], n = tb ? db[0] : db[1];
  /* Everything but f32 (integers included: alpha and beta are floats) computes in double. */
  real_view v;
  view_init(&v, a);
  const void *pa = view_in(&v, a), *pb = view_in(&v, b), *pc = view_in(&v, c);
  void *py = view_out(&v, y);
  if (view_oom(&v)) {
    view_release(&v);
    return kr_op_emit_error(op, "out of memory");
  }
  /* Y starts as C broadcast to [M, N] so that gemm applies beta in its accumulation. */
  double gemm_beta = 0.0;
  if (pc && beta != 0.0) {
    unsigned rc = kr_tensor_rank(c);
    const int64_t *dc = kr_tensor_dims(c);
    int64_t cm = rc == 2 ? dc[0] : 1, cn = rc >= 1 ? dc[rc - 1] : 1;
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        int64_t ci = (cm == 1 ? 0 : i) * cn + (cn == 1 ? 0 : j);
        if (v.ops == &ops_f32) ((float *)py)[i * n + j] = ((const float *)pc)[ci];
        else ((double *)py)[i * n + j] = ((const double *)pc)[ci];
      }
    gemm_beta = beta;
  }
  if (m > 0 && n > 0) {
    if (k > 0) {
      v.ops->gemm(ta, tb, m, n, k, alpha, pa, da[1], pb, db[1], gemm_beta, py, n);
    } else {
      for (int64_t i = 0; i < m * n; i++)
        if (v.ops == &ops_f32) ((float *)py)[i] *= (float)gemm_beta;
        else ((double *)py)[i] *= gemm_beta;
    }
  }
  if (py != y->data) from_f64(y, py);
  view_release(&v);
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Conv-11 and ConvTranspose-11. */

/* Window geometry and channel counts, recomputed from the operands exactly as shape inference
 * does (conv_pool_geom.c). */
static kr_status conv_geom(kr_op *op, const kr_tensor *x, const kr_tensor *w, bool transpose, kr_window_geom *g) {
  unsigned nsp = kr_tensor_rank(x) - 2;
  return transpose ? kr_window_geom_transpose(op, kr_tensor_dims(x) + 2, kr_tensor_dims(w) + 2, nsp, g)
                   : kr_window_geom_forward(op, KR_WINDOW_CONV, kr_tensor_dims(x) + 2, kr_tensor_dims(w) + 2, nsp, g);
}

static void add_bias(const real_ops *ops, void *y, const void *bias, int64_t batch, int64_t channels, int64_t plane) {
  for (int64_t nb = 0; nb < batch; nb++)
    for (int64_t c = 0; c < channels; c++) {
      double bv = ops == &ops_f32 ? ((const float *)bias)[c] : ((const double *)bias)[c];
      int64_t base = (nb * channels + c) * plane;
      if (ops == &ops_f32) {
        float *p = (float *)y + base;
        for (int64_t i = 0; i < plane; i++) p[i] += (float)bv;
      } else {
        for (int64_t i = 0; i < plane; i++) ops->add(y, base + i, bv);
      }
    }
}

/* Depthwise f32 convolution (group == C == M, one filter per channel) in 2-D: a direct loop
 * beats im2col + a 1-row gemm per channel. */
static void conv_depthwise_2d_f32(const kr_window_geom *g, int64_t batch, int64_t channels, const float *x,
                                  const float *w, float *y) {
  int64_t ih = g->in[0], iw = g->in[1], oh = g->out[0], ow = g->out[1], kh = g->kernel[0], kw = g->kernel[1];
  for (int64_t nc = 0; nc < batch * channels; nc++) {
    const float *xp = x + nc * ih * iw, *wp = w + (nc % channels) * kh * kw;
    float *yp = y + nc * oh * ow;
    for (int64_t i = 0; i < oh; i++)
      for (int64_t j = 0; j < ow; j++) {
        double acc = 0;
        for (int64_t a = 0; a < kh; a++) {
          int64_t r = i * g->stride[0] - g->pad_begin[0] + a * g->dilation[0];
          if (r < 0 || r >= ih) continue;
          for (int64_t b = 0; b < kw; b++) {
            int64_t s = j * g->stride[1] - g->pad_begin[1] + b * g->dilation[1];
            if (s >= 0 && s < iw) acc += (double)xp[r * iw + s] * wp[a * kw + b];
          }
        }
        yp[i * ow + j] = (float)acc;
      }
  }
}

static kr_status conv_common(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs, bool transpose) {
  const kr_tensor *x = ins[0], *w = ins[1], *bias = op->num_operands > 2 ? ins[2] : NULL;
  kr_tensor *y = outs[0];
  kr_window_geom g;
  if (conv_geom(op, x, w, transpose, &g)) return KR_FAILURE;
  const int64_t *dx = kr_tensor_dims(x), *dy = kr_tensor_dims(y);
  int64_t batch = dx[0], cin = dx[1], cout = dy[1], group = kr_op_attr_int(op, "group");
  int64_t cg = cin / group, mg = cout / group, kp = prod(g.kernel, g.nsp), ip = prod(g.in, g.nsp),
          opl = prod(g.out, g.nsp);
  if (y->numel == 0) return KR_SUCCESS;
  if (cg == 0) {   /* no input channels: Y is the bias alone */
    for (int64_t i = 0; bias && i < y->numel; i++)
      kr_tensor_set_f64(y, i, kr_tensor_get_f64(bias, (i / opl) % cout));
    return KR_SUCCESS;
  }
  real_view v;
  view_init(&v, x);
  const char *px = view_in(&v, x), *pw = view_in(&v, w), *pbias = view_in(&v, bias);
  char *py = view_out(&v, y);
  if (view_oom(&v)) {
    view_release(&v);
    return kr_op_emit_error(op, "out of memory");
  }
  const real_ops *ro = v.ops;
  size_t es = ro->size;
  if (!transpose && ro == &ops_f32 && g.nsp == 2 && group == cin && group == cout) {
    conv_depthwise_2d_f32(&g, batch, cin, (const float *)px, (const float *)pw, (float *)py);
  } else if (!transpose) {
    /* A pointwise convolution reads X directly as its column matrix. */
    bool direct = kp == 1;
    for (unsigned d = 0; d < g.nsp; d++)
      direct = direct && g.stride[d] == 1 && g.pad_begin[d] == 0 && g.pad_end[d] == 0;
    int64_t rows = cg * kp;
    void *col = direct ? NULL : malloc((size_t)(rows * opl) * es);
    if (!direct && !col) {
      view_release(&v);
      return kr_op_emit_error(op, "out of memory (im2col buffer of %lld x %lld)", (long long)rows, (long long)opl);
    }
    for (int64_t nb = 0; nb < batch; nb++)
      for (int64_t gi = 0; gi < group; gi++) {
        const char *xg = px + (size_t)((nb * cin + gi * cg) * ip) * es;
        if (!direct) ro->im2col(&g, cg, xg, col);
        ro->gemm(false, false, mg, opl, rows, 1.0, pw + (size_t)(gi * mg * rows) * es, rows, direct ? xg : col, opl, 0.0,
                 py + (size_t)((nb * cout + gi * mg) * opl) * es, opl);
      }
    free(col);
  } else {
    /* W is [C, M/group, k...]: per group, col[mg*kp, ip] = W_g^T X_g, then scatter-add. */
    int64_t rows = mg * kp;
    void *col = malloc((size_t)(rows * ip) * es);
    if (!col) {
      view_release(&v);
      return kr_op_emit_error(op, "out of memory (col2im buffer of %lld x %lld)", (long long)rows, (long long)ip);
    }
    for (int64_t nb = 0; nb < batch; nb++)
      for (int64_t gi = 0; gi < group; gi++) {
        const char *xg = px + (size_t)((nb * cin + gi * cg) * ip) * es;
        ro->gemm(true, false, rows, ip, cg, 1.0, pw + (size_t)(gi * cg * rows) * es, rows, xg, ip, 0.0, col, ip);
        ro->col2im(&g, mg, col, py + (size_t)((nb * cout + gi * mg) * opl) * es);
      }
    free(col);
  }
  if (pbias) add_bias(ro, py, pbias, batch, cout, opl);
  if (py != y->data) from_f64(y, (const double *)py);
  view_release(&v);
  return KR_SUCCESS;
}

kr_status kr_eval_conv(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return conv_common(op, ins, outs, false);
}

kr_status kr_eval_conv_transpose(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return conv_common(op, ins, outs, true);
}

/* ---------------------------------------------------------------------------------------------
 * Einsum-12: one loop nest over the output labels (outer) and the summed labels (inner);
 * each operand advances by the sum of its strides of the axes carrying a label (a repeated
 * label walks the diagonal; a broadcast size-1 axis has stride 0). */
kr_status kr_eval_einsum(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  unsigned n = op->num_operands;
  kr_type types[KR_EINSUM_MAX_OPERANDS];
  if (n > KR_EINSUM_MAX_OPERANDS) return kr_op_emit_error(op, "has %u operands, at most %d supported", n, KR_EINSUM_MAX_OPERANDS);
  for (unsigned i = 0; i < n; i++) types[i] = ins[i]->type;
  kr_einsum p;
  if (kr_einsum_plan(op, types, n, &p)) return KR_FAILURE;
  /* Loop labels: the output's, then every other used label (summed). */
  unsigned loop[KR_EINSUM_MAX_LABELS], nl = 0;
  bool in_out[KR_EINSUM_MAX_LABELS] = {0};
  for (unsigned q = 0; q < p.out_rank; q++) loop[nl++] = p.out_label[q], in_out[p.out_label[q]] = true;
  for (unsigned l = 0; l < KR_EINSUM_MAX_LABELS; l++)
    if (p.used[l] && !in_out[l]) loop[nl++] = l;
  int64_t dims[KR_EINSUM_MAX_LABELS], strides[KR_EINSUM_MAX_OPERANDS][KR_EINSUM_MAX_LABELS];
  for (unsigned j = 0; j < nl; j++) dims[j] = p.used[loop[j]] ? p.dim[loop[j]] : 1;
  for (unsigned i = 0; i < n; i++) {
    int64_t st[KR_OP_MAX_RANK];
    kr_dims_strides(kr_tensor_dims(ins[i]), p.rank[i], st);
    for (unsigned j = 0; j < nl; j++) {
      strides[i][j] = 0;
      for (unsigned a = 0; a < p.rank[i]; a++)
        if (p.label[i][a] == loop[j] && kr_tensor_dims(ins[i])[a] != 1) strides[i][j] += st[a];
    }
  }
  bool integer = kr_tensor_elem(ins[0])->kind != KR_TYPE_FLOAT;
  double *fd[KR_EINSUM_MAX_OPERANDS] = {0};
  kr_status st = KR_SUCCESS;
  for (unsigned i = 0; !integer && i < n; i++)
    if (!(fd[i] = to_f64(ins[i]))) st = kr_op_emit_error(op, "out of memory");
  int64_t out_total = outs[0]->numel, sum_total = prod(dims + p.out_rank, nl - p.out_rank);
  for (int64_t o = 0; !st && o < out_total; o++) {
    int64_t base[KR_EINSUM_MAX_OPERANDS] = {0}, rem = o;
    for (unsigned j = p.out_rank; j-- > 0;) {
      int64_t idx = rem % dims[j];
      rem /= dims[j];
      for (unsigned i = 0; i < n; i++) base[i] += idx * strides[i][j];
    }
    double facc = 0;
    uint64_t iacc = 0;
    int64_t idx[KR_EINSUM_MAX_LABELS] = {0}, off[KR_EINSUM_MAX_OPERANDS];
    memcpy(off, base, sizeof off);
    for (int64_t s = 0; s < sum_total; s++) {
      if (integer) {
        uint64_t t = 1;
        for (unsigned i = 0; i < n; i++) t *= (uint64_t)kr_tensor_get_i64(ins[i], off[i]);
        iacc += t;
      } else {
        double t = 1;
        for (unsigned i = 0; i < n; i++) t *= fd[i][off[i]];
        facc += t;
      }
      /* Odometer over the summed labels, innermost last. */
      for (unsigned j = nl; j-- > p.out_rank;) {
        for (unsigned i = 0; i < n; i++) off[i] += strides[i][j];
        if (++idx[j] < dims[j]) break;
        for (unsigned i = 0; i < n; i++) off[i] -= strides[i][j] * dims[j];
        idx[j] = 0;
      }
    }
    if (integer) kr_tensor_set_i64(outs[0], o, (int64_t)iacc);
    else kr_tensor_set_f64(outs[0], o, facc);
  }
  for (unsigned i = 0; i < n; i++) free(fd[i]);
  return st;
}
