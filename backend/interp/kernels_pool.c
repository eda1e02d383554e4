/* backend/interp/kernels_pool.c - CPU reference kernels of the pool ops: MaxPool, AveragePool,
 * GlobalAveragePool, GlobalMaxPool (ONNX opset 17, Operators.md; window geometry in
 * dialects/op/conv_pool_geom.c).
 *
 * Inputs are read as double (exact for every element type the pools accept) and averages are
 * accumulated in double, so f32 results round once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/op/conv_pool_geom.h"

static int64_t prod(const int64_t *d, unsigned n) {
  int64_t p = 1;
  for (unsigned i = 0; i < n; i++) p *= d[i];
  return p;
}

static bool is_f32(const kr_tensor *t) {
  kr_type e = kr_tensor_elem(t);
  return e->kind == KR_TYPE_FLOAT && e->u.fkind == KR_F32;
}

/* Element i as double: a direct load for f32 (the models' type), the generic accessor else. */
static inline double load(const kr_tensor *t, bool f32, int64_t i) {
  return f32 ? (double)((const float *)t->data)[i] : kr_tensor_get_f64(t, i);
}

static inline void store(kr_tensor *t, bool f32, int64_t i, double v) {
  if (f32) ((float *)t->data)[i] = (float)v;
  else kr_tensor_set_f64(t, i, v);
}

typedef enum pool_kind { POOL_MAX, POOL_AVG } pool_kind;

/* The windows of one (n, c) plane after another; for each output position the kernel offsets
 * are walked as a flat index decoded per axis (ranks are small, windows tiny). */
static kr_status window_pool(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs, pool_kind kind) {
  const kr_tensor *x = ins[0];
  kr_tensor *y = outs[0], *indices = op->num_results > 1 ? outs[1] : NULL;
  unsigned rank = kr_tensor_rank(x), nsp = rank - 2;
  const int64_t *kernel;
  kr_op_attr_ints(op, "kernel_shape", &kernel);
  kr_window_geom g;
  if (kr_window_geom_forward(op, KR_WINDOW_POOL, kr_tensor_dims(x) + 2, kernel, nsp, &g)) return KR_FAILURE;
  bool include_pad = kind == POOL_AVG && kr_op_attr_int(op, "count_include_pad") != 0;
  bool col_major = kr_op_attr_int(op, "storage_order") == 1;
  bool f32 = is_f32(x);
  int64_t planes = kr_tensor_dims(x)[0] * kr_tensor_dims(x)[1];
  int64_t ip = prod(g.in, nsp), opl = prod(g.out, nsp), kp = prod(g.kernel, nsp);
  int64_t rstr[KR_OP_MAX_RANK], cstr[KR_OP_MAX_RANK];   /* row- and column-major spatial strides */
  kr_dims_strides(g.in, nsp, rstr);
  for (int64_t d = 0, s = 1; d < (int64_t)nsp; d++) cstr[d] = s, s *= g.in[d];
  for (int64_t pl = 0; pl < planes; pl++) {
    for (int64_t o = 0; o < opl; o++) {
      int64_t start[KR_OP_MAX_RANK], rem = o;
      for (unsigned d = nsp; d-- > 0;) {
        start[d] = (rem % g.out[d]) * g.stride[d] - g.pad_begin[d];
        rem /= g.out[d];
      }
      double best = 0, sum = 0;
      int64_t best_at = -1, count = 0, padded_count = 0;
      for (int64_t kidx = 0; kidx < kp; kidx++) {
        int64_t r = kidx, off = 0, coff = 0;
        bool inside = true, in_padded = true;
        for (unsigned d = nsp; d-- > 0;) {
          int64_t pos = start[d] + (r % g.kernel[d]) * g.dilation[d];
          r /= g.kernel[d];
          if (pos < 0 || pos >= g.in[d]) inside = false;
          if (pos < -g.pad_begin[d] || pos >= g.in[d] + g.pad_end[d]) in_padded = false;
          off += pos * rstr[d];
          coff += pos * cstr[d];
        }
        if (in_padded) padded_count++;
        if (!inside) continue;
        double v = load(x, f32, pl * ip + off);
        count++;
        if (kind == POOL_AVG) {
          sum += v;
        } else if (best_at < 0 || v > best) {   /* the first maximum wins, as ONNX's reference */
          best = v;
          best_at = pl * ip + (col_major ? coff : off);
        }
      }
      int64_t yi = pl * opl + o;
      if (kind == POOL_AVG) {
        int64_t div = include_pad ? padded_count : count;
        store(y, f32, yi, div ? sum / (double)div : 0.0);
      } else {
        store(y, f32, yi, best);
        if (indices) kr_tensor_set_i64(indices, yi, best_at);
      }
    }
  }
  return KR_SUCCESS;
}

kr_status kr_eval_max_pool(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return window_pool(op, ins, outs, POOL_MAX);
}

kr_status kr_eval_average_pool(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return window_pool(op, ins, outs, POOL_AVG);
}

/* Global pools reduce each (n, c) plane to one value. */
static kr_status global_pool(kr_tensor *const *ins, kr_tensor *const *outs, pool_kind kind) {
  const kr_tensor *x = ins[0];
  kr_tensor *y = outs[0];
  unsigned rank = kr_tensor_rank(x);
  const int64_t *dx = kr_tensor_dims(x);
  int64_t planes = dx[0] * dx[1], plane = prod(dx + 2, rank - 2);
  bool f32 = is_f32(x);
  for (int64_t pl = 0; pl < planes; pl++) {
    double acc = kind == POOL_MAX ? -INFINITY : 0.0;
    for (int64_t i = 0; i < plane; i++) {
      double v = load(x, f32, pl * plane + i);
      if (kind == POOL_AVG) acc += v;
      else if (v > acc || isnan(v)) acc = isnan(acc) ? acc : v;
    }
    store(y, f32, pl, kind == POOL_AVG ? (plane ? acc / (double)plane : 0.0) : acc);
  }
  return KR_SUCCESS;
}

kr_status kr_eval_global_average_pool(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)op;
  return global_pool(ins, outs, POOL_AVG);
}

kr_status kr_eval_global_max_pool(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)op;
  return global_pool(ins, outs, POOL_MAX);
}
