/* backend/interp/kernels_norm.c - CPU reference kernels of the norm ops (ONNX opset 17):
 * Softmax/LogSoftmax/Hardmax-13, LayerNormalization-17, BatchNormalization-15,
 * InstanceNormalization-6, LpNormalization-1, MeanVarianceNormalization-13.
 *
 * Every kernel converts its inputs to double once (backend/interp/f64_buffer.h), computes in
 * double (statistics with two passes: mean, then the mean squared deviation, which cannot go
 * negative) and converts the results back; there is no element-type switch inside the loops. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "backend/interp/f64_buffer.h"
#include "dialects/op/shape_reduce.h"

/* Splits x's dims around `axis` (attribute, normalised): outer x n x inner. */
static kr_status split_axis(kr_op *op, const kr_tensor *x, int64_t *axis, int64_t *outer, int64_t *n, int64_t *inner) {
  unsigned rank = kr_tensor_rank(x);
  if (kr_op_normalize_axis(op, "attribute 'axis' value", kr_op_attr_int(op, "axis"), rank, axis)) return KR_FAILURE;
  const int64_t *dims = kr_tensor_dims(x);
  *outer = *inner = 1;
  *n = dims[*axis];
  for (int64_t d = 0; d < *axis; d++) *outer *= dims[d];
  for (unsigned d = (unsigned)*axis + 1; d < rank; d++) *inner *= dims[d];
  return KR_SUCCESS;
}

static void free_all(double **v, unsigned n) {
  for (unsigned i = 0; i < n; i++) free(v[i]);
}

/* ---------------------------------------------------------------------------------------------
 * Softmax family: one row v[0], v[stride], ... v[(n-1)*stride] at a time, in place. */
typedef enum smkind { SM_SOFTMAX, SM_LOG, SM_HARD } smkind;

static void softmax_row(double *v, int64_t n, int64_t stride, smkind k) {
  if (n == 0) return;
  double m = v[0];
  int64_t arg = 0;
  if (k == SM_HARD) {
    /* Hardmax-13: 1 at the first maximum, chosen as ONNX's reference (np.argmax) and ArgMax
     * (kernels_reduce.c) choose it: a NaN is the maximum, the first NaN if there are several. */
    for (int64_t j = 1; j < n && m == m; j++)
      if (v[j * stride] > m || v[j * stride] != v[j * stride]) m = v[j * stride], arg = j;
    for (int64_t j = 0; j < n; j++) v[j * stride] = j == arg;
    return;
  }
  for (int64_t j = 1; j < n; j++)
    if (v[j * stride] > m) m = v[j * stride];
  /* Subtracting the maximum keeps e^x finite (test_softmax_large_number). */
  if (isinf(m)) m = 0;
  double s = 0;
  if (k == SM_SOFTMAX) {
    for (int64_t j = 0; j < n; j++) s += v[j * stride] = exp(v[j * stride] - m);
    for (int64_t j = 0; j < n; j++) v[j * stride] /= s;
  } else {
    for (int64_t j = 0; j < n; j++) s += exp(v[j * stride] - m);
    double lse = m + log(s);
    for (int64_t j = 0; j < n; j++) v[j * stride] -= lse;
  }
}

static kr_status softmax_like(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs, smkind k) {
  int64_t axis, outer, n, inner;
  if (split_axis(op, ins[0], &axis, &outer, &n, &inner)) return KR_FAILURE;
  double *v = kr_load_f64(ins[0]);
  if (!v) return kr_op_emit_error(op, "out of memory");
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) softmax_row(v + o * n * inner + i, n, inner, k);
  kr_store_f64(outs[0], v);
  free(v);
  return KR_SUCCESS;
}

kr_status kr_eval_softmax(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return softmax_like(op, ins, outs, SM_SOFTMAX);
}

kr_status kr_eval_log_softmax(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return softmax_like(op, ins, outs, SM_LOG);
}

kr_status kr_eval_hardmax(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return softmax_like(op, ins, outs, SM_HARD);
}

/* ---------------------------------------------------------------------------------------------
 * LayerNormalization-17. */

/* t broadcast (numpy rules, right-aligned) to `dims`, as a malloc'd double array. */
static double *expand_f64(const kr_tensor *t, const int64_t *dims, unsigned rank) {
  int64_t numel = 1;
  for (unsigned d = 0; d < rank; d++) numel *= dims[d];
  double *src = kr_load_f64(t), *dst = malloc((size_t)(numel ? numel : 1) * sizeof *dst);
  if (!src || !dst) {
    free(src), free(dst);
    return NULL;
  }
  unsigned sr = kr_tensor_rank(t);
  int64_t sstr[KR_OP_MAX_RANK], str[KR_OP_MAX_RANK] = {0}, idx[KR_OP_MAX_RANK] = {0};
  kr_dims_strides(kr_tensor_dims(t), sr, sstr);
  for (unsigned d = 0; d < sr; d++)
    if (kr_tensor_dims(t)[d] != 1) str[rank - sr + d] = sstr[d];
  int64_t s = 0;
  for (int64_t i = 0; i < numel; i++) {
    dst[i] = src[s];
    for (unsigned d = rank; d-- > 0;) {
      s += str[d];
      if (++idx[d] < dims[d]) break;
      s -= str[d] * dims[d];
      idx[d] = 0;
    }
  }
  free(src);
  return dst;
}

/* Y = (X - mean) / sqrt(var + epsilon) * Scale + B over the dims [axis, rank); Mean and
 * InvStdDev (optional results) per leading index.  Scale/B of at most rank - axis dims are
 * expanded to the normalised shape, larger ones to X's whole shape. */
kr_status kr_eval_layer_normalization(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *x = ins[0];
  int64_t axis, outer, n, inner;
  if (split_axis(op, x, &axis, &outer, &n, &inner)) return KR_FAILURE;
  int64_t m = n * inner;
  unsigned rank = kr_tensor_rank(x);
  double eps = kr_op_attr_float(op, "epsilon");
  const kr_tensor *sb[2] = {ins[1], op->num_operands > 2 ? ins[2] : NULL};
  double *v[5] = {kr_load_f64(x), NULL, NULL, malloc((size_t)(outer ? outer : 1) * sizeof(double)),
                  malloc((size_t)(outer ? outer : 1) * sizeof(double))};
  bool full[2] = {false, false};
  bool ok = v[0] && v[3] && v[4];
  for (unsigned k = 0; ok && k < 2; k++) {
    if (!sb[k]) continue;
    full[k] = kr_tensor_rank(sb[k]) > rank - (unsigned)axis;
    v[1 + k] = full[k] ? expand_f64(sb[k], kr_tensor_dims(x), rank)
                       : expand_f64(sb[k], kr_tensor_dims(x) + axis, rank - (unsigned)axis);
    ok = v[1 + k] != NULL;
  }
  if (!ok) {
    free_all(v, 5);
    return kr_op_emit_error(op, "out of memory");
  }
  double *xs = v[0], *scale = v[1], *bias = v[2], *mean = v[3], *inv = v[4];
  for (int64_t o = 0; o < outer; o++) {
    double *r = xs + o * m, s = 0, q = 0;
    for (int64_t j = 0; j < m; j++) s += r[j];
    double mu = s / (double)m;
    for (int64_t j = 0; j < m; j++) q += (r[j] - mu) * (r[j] - mu);
    double is = 1.0 / sqrt(q / (double)m + eps);
    const double *sc = scale + (full[0] ? o * m : 0), *bi = bias ? bias + (full[1] ? o * m : 0) : NULL;
    if (bi)
      for (int64_t j = 0; j < m; j++) r[j] = (r[j] - mu) * is * sc[j] + bi[j];
    else
      for (int64_t j = 0; j < m; j++) r[j] = (r[j] - mu) * is * sc[j];
    mean[o] = mu;
    inv[o] = is;
  }
  kr_store_f64(outs[0], xs);
  if (op->num_results > 1) kr_store_f64(outs[1], mean);
  if (op->num_results > 2) kr_store_f64(outs[2], inv);
  free_all(v, 5);
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Per-channel normalisations of [N, C, spatial...] inputs. */

/* Mean and (biased) variance of the `cnt` values x[0], x[stride_outer * k + j] for k < outer,
 * j < inner: the statistics of one channel over N and the spatial dims. */
static void channel_stats(const double *x, int64_t outer, int64_t outer_stride, int64_t inner, double *mean, double *var) {
  double s = 0, q = 0, cnt = (double)(outer * inner);
  for (int64_t k = 0; k < outer; k++)
    for (int64_t j = 0; j < inner; j++) s += x[k * outer_stride + j];
  double mu = s / cnt;
  for (int64_t k = 0; k < outer; k++)
    for (int64_t j = 0; j < inner; j++) {
      double d = x[k * outer_stride + j] - mu;
      q += d * d;
    }
  *mean = mu;
  *var = q / cnt;
}

/* BatchNormalization-15.  Inference: Y = (X - input_mean) / sqrt(input_var + epsilon) * scale
 * + B per channel.  training_mode = 1: the batch's own mean and biased variance over N and the
 * spatial dims normalise X, and running_mean = input_mean * momentum + mean * (1 - momentum)
 * (likewise running_var), as ONNX's reference implementation (_batchnorm_training_mode). */
kr_status kr_eval_batch_normalization(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *x = ins[0];
  const int64_t *dims = kr_tensor_dims(x);
  int64_t N = dims[0], C = dims[1], S = 1;
  for (unsigned d = 2; d < kr_tensor_rank(x); d++) S *= dims[d];
  double eps = kr_op_attr_float(op, "epsilon"), mom = kr_op_attr_float(op, "momentum");
  bool training = kr_op_attr_int(op, "training_mode") != 0;
  double *v[5];
  bool ok = true;
  for (unsigned i = 0; i < 5; i++) ok &= (v[i] = kr_load_f64(ins[i])) != NULL;
  if (!ok) {
    free_all(v, 5);
    return kr_op_emit_error(op, "out of memory");
  }
  double *xs = v[0], *scale = v[1], *bias = v[2], *mean = v[3], *var = v[4];
  for (int64_t c = 0; c < C; c++) {
    double mu = mean[c], va = var[c];
    if (training) {
      channel_stats(xs + c * S, N, C * S, S, &mu, &va);
      mean[c] = mean[c] * mom + mu * (1 - mom);
      var[c] = var[c] * mom + va * (1 - mom);
    }
    double a = scale[c] / sqrt(va + eps), b = bias[c] - mu * a;
    for (int64_t k = 0; k < N; k++) {
      double *r = xs + (k * C + c) * S;
      for (int64_t j = 0; j < S; j++) r[j] = r[j] * a + b;
    }
  }
  kr_store_f64(outs[0], xs);
  if (op->num_results > 1) kr_store_f64(outs[1], mean);
  if (op->num_results > 2) kr_store_f64(outs[2], var);
  free_all(v, 5);
  return KR_SUCCESS;
}

/* InstanceNormalization-6: each (n, c) plane normalised over the spatial dims with its own
 * mean and biased variance, then scale[c] * . + B[c]. */
kr_status kr_eval_instance_normalization(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *x = ins[0];
  const int64_t *dims = kr_tensor_dims(x);
  int64_t N = dims[0], C = dims[1], S = 1;
  for (unsigned d = 2; d < kr_tensor_rank(x); d++) S *= dims[d];
  double eps = kr_op_attr_float(op, "epsilon");
  double *v[3];
  bool ok = true;
  for (unsigned i = 0; i < 3; i++) ok &= (v[i] = kr_load_f64(ins[i])) != NULL;
  if (!ok) {
    free_all(v, 3);
    return kr_op_emit_error(op, "out of memory");
  }
  for (int64_t k = 0; k < N; k++)
    for (int64_t c = 0; c < C; c++) {
      double *r = v[0] + (k * C + c) * S, mu, va;
      channel_stats(r, 1, 0, S, &mu, &va);
      double a = v[1][c] / sqrt(va + eps), b = v[2][c] - mu * a;
      for (int64_t j = 0; j < S; j++) r[j] = r[j] * a + b;
    }
  kr_store_f64(outs[0], v[0]);
  free_all(v, 3);
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * LpNormalization-1: x / ||x||_p along `axis` (p = 1: sum of |x|; p = 2: Euclidean).  A zero
 * norm means the slice is all zeros; it stays zeros (no 0/0). */
kr_status kr_eval_lp_normalization(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  int64_t axis, outer, n, inner, p = kr_op_attr_int(op, "p");
  if (p != 1 && p != 2) return kr_op_emit_error(op, "attribute 'p' must be 1 or 2, got %lld", (long long)p);
  if (split_axis(op, ins[0], &axis, &outer, &n, &inner)) return KR_FAILURE;
  double *v = kr_load_f64(ins[0]);
  if (!v) return kr_op_emit_error(op, "out of memory");
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      double *r = v + o * n * inner + i, s = 0;
      for (int64_t j = 0; j < n; j++) s += p == 1 ? fabs(r[j * inner]) : r[j * inner] * r[j * inner];
      double norm = p == 1 ? s : sqrt(s);
      if (norm != 0)
        for (int64_t j = 0; j < n; j++) r[j * inner] /= norm;
    }
  kr_store_f64(outs[0], v);
  free(v);
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * MeanVarianceNormalization-13, ONNX's function body: Y = (X - E[X]) / (sqrt(E[X^2] - E[X]^2)
 * + 1e-9), the expectations over `axes`.  The variance is computed as E[(X - E[X])^2], equal in
 * exact arithmetic and never negative. */
kr_status kr_eval_mean_variance_normalization(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *x = ins[0];
  unsigned rank = kr_tensor_rank(x);
  const int64_t *dims = kr_tensor_dims(x), *axes;
  unsigned na = kr_op_attr_ints(op, "axes", &axes);
  bool mask[KR_OP_MAX_RANK];
  if (rank > KR_OP_MAX_RANK) return kr_op_emit_error(op, "rank %u exceeds the supported maximum %d", rank, KR_OP_MAX_RANK);
  if (kr_axes_to_mask(op, "attribute 'axes'", axes, na, rank, mask)) return KR_FAILURE;
  /* The statistics group of every element: the row-major index over the kept dims. */
  int64_t gstr[KR_OP_MAX_RANK], idx[KR_OP_MAX_RANK] = {0}, groups = 1;
  for (unsigned d = rank; d-- > 0;) {
    gstr[d] = mask[d] ? 0 : groups;
    if (!mask[d]) groups *= dims[d];
  }
  double *v = kr_load_f64(x), *sum = calloc((size_t)(groups ? groups : 1), sizeof *sum),
         *sq = calloc((size_t)(groups ? groups : 1), sizeof *sq);
  int64_t *grp = malloc((size_t)(x->numel ? x->numel : 1) * sizeof *grp);
  if (!v || !sum || !sq || !grp) {
    free(v), free(sum), free(sq), free(grp);
    return kr_op_emit_error(op, "out of memory");
  }
  int64_t g = 0;
  for (int64_t i = 0; i < x->numel; i++) {
    grp[i] = g;
    for (unsigned d = rank; d-- > 0;) {
      g += gstr[d];
      if (++idx[d] < dims[d]) break;
      g -= gstr[d] * dims[d];
      idx[d] = 0;
    }
  }
  double cnt = groups ? (double)x->numel / (double)groups : 0;
  for (int64_t i = 0; i < x->numel; i++) sum[grp[i]] += v[i];
  for (int64_t k = 0; k < groups; k++) sum[k] /= cnt;
  for (int64_t i = 0; i < x->numel; i++) {
    double d = v[i] - sum[grp[i]];
    sq[grp[i]] += d * d;
  }
  for (int64_t k = 0; k < groups; k++) sq[k] = sqrt(sq[k] / cnt) + 1e-9;
  for (int64_t i = 0; i < x->numel; i++) v[i] = (v[i] - sum[grp[i]]) / sq[grp[i]];
  kr_store_f64(outs[0], v);
  free(v), free(sum), free(sq), free(grp);
  return KR_SUCCESS;
}
