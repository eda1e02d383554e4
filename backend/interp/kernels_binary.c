/* backend/interp/kernels_binary.c - CPU reference kernels of the binary and n-ary elementwise
 * ops (ONNX opset 17, Operators.md; integer and NaN behaviour as ONNX's numpy reference), with
 * multidirectional broadcasting through backend/interp/broadcast.h.
 *
 * f32 arithmetic runs typed loops in f32 (as numpy's float32 ufuncs); other floats compute in
 * double and round once on the store; integers compute exactly in int64 / uint64 and wrap
 * modulo 2^width on the store. */
#include <math.h>
#include <string.h>

#include "backend/interp/broadcast.h"
#include "backend/interp/elementwise.h"
#include "backend/interp/prim_shared.h"
#include "dialects/op/op_impl.h"

/* ---------------------------------------------------------------------------------------------
 * Arithmetic: out = f(a, b), one element type. */

typedef void (*f32_bin_loop)(kr_bcast *b, const float *A, const float *B, float *O);

typedef struct binary_fns {
  f32_bin_loop f32; /* NULL: f32 goes through f */
  double (*f)(double, double);
  int64_t (*i)(int64_t, int64_t);    /* signed integers and i1 */
  uint64_t (*u)(uint64_t, uint64_t); /* unsigned integers */
} binary_fns;

/* A typed f32 loop over broadcast rows for the expression EXPR of floats x and y; the common
 * shapes (both contiguous, or y one value per row) get loops the compiler vectorises.  O may
 * alias A (the n-ary ops accumulate in place: same index, read before write). */
#define F32_BINARY(name, EXPR)                                                                                         \
  static void name(kr_bcast *b, const float *A, const float *B, float *O) {                                            \
    int64_t n = b->inner, sa = b->inner_stride[0], sb = b->inner_stride[1];                                            \
    for (int64_t r = 0; r < b->rows; r++, kr_bcast_next_row(b)) {                                                      \
      const float *a = A + b->off[0], *c = B + b->off[1];                                                              \
      float *o = O + r * n;                                                                                            \
      if (sa == 1 && sb == 1) {                                                                                        \
        for (int64_t j = 0; j < n; j++) {                                                                              \
          float x = a[j], y = c[j];                                                                                    \
          o[j] = (EXPR);                                                                                               \
        }                                                                                                              \
      } else if (sa == 1 && sb == 0) {                                                                                 \
        float y = c[0];                                                                                                \
        for (int64_t j = 0; j < n; j++) {                                                                              \
          float x = a[j];                                                                                              \
          o[j] = (EXPR);                                                                                               \
        }                                                                                                              \
      } else {                                                                                                         \
        for (int64_t j = 0; j < n; j++) {                                                                              \
          float x = a[j * sa], y = c[j * sb];                                                                          \
          o[j] = (EXPR);                                                                                               \
        }                                                                                                              \
      }                                                                                                                \
    }                                                                                                                  \
  }

/* numpy's maximum / minimum: a NaN in either operand gives NaN. */
#define NAN_MAX(x, y) ((x) > (y) || isnan(x) ? (x) : (y))
#define NAN_MIN(x, y) ((x) < (y) || isnan(x) ? (x) : (y))

F32_BINARY(f32_add, x + y)
F32_BINARY(f32_sub, x - y)
F32_BINARY(f32_mul, x * y)
F32_BINARY(f32_div, x / y)
F32_BINARY(f32_max, NAN_MAX(x, y))
F32_BINARY(f32_min, NAN_MIN(x, y))
F32_BINARY(f32_prelu, x < 0 ? y * x : x)

static double d_add(double a, double b) { return a + b; }
static double d_sub(double a, double b) { return a - b; }
static double d_mul(double a, double b) { return a * b; }
static double d_div(double a, double b) { return a / b; }
static double d_max(double a, double b) { return NAN_MAX(a, b); }
static double d_min(double a, double b) { return NAN_MIN(a, b); }
static double d_prelu(double x, double s) { return x < 0 ? s * x : x; }
/* Mod-13 fmod=1: C fmod (the dividend's sign); fmod=0: Python's % (the divisor's sign). */
static double d_fmod(double a, double b) { return fmod(a, b); }
static double d_pymod(double a, double b) {
  double r = fmod(a, b);
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

/* Two's complement arithmetic through uint64 (no signed overflow). */
static int64_t i_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t i_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t i_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
/* Div-14 on integers truncates toward zero (the reference casts the true quotient back);
 * division by zero is undefined in ONNX and gives 0 here, INT64_MIN / -1 wraps. */
static int64_t i_div(int64_t a, int64_t b) { return b == 0 ? 0 : b == -1 ? i_sub(0, a) : a / b; }
static int64_t i_max(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t i_min(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t i_prelu(int64_t x, int64_t s) { return x < 0 ? i_mul(s, x) : x; }
static int64_t i_fmod(int64_t a, int64_t b) { return b == 0 || b == -1 ? 0 : a % b; }
static int64_t i_pymod(int64_t a, int64_t b) {
  int64_t r = i_fmod(a, b);
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

static uint64_t u_add(uint64_t a, uint64_t b) { return a + b; }
static uint64_t u_sub(uint64_t a, uint64_t b) { return a - b; }
static uint64_t u_mul(uint64_t a, uint64_t b) { return a * b; }
static uint64_t u_div(uint64_t a, uint64_t b) { return b ? a / b : 0; }
static uint64_t u_max(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t u_min(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t u_prelu(uint64_t x, uint64_t s) {
  (void)s;
  return x;
}
static uint64_t u_mod(uint64_t a, uint64_t b) { return b ? a % b : 0; }

static const binary_fns add_fns = {f32_add, d_add, i_add, u_add};
static const binary_fns sub_fns = {f32_sub, d_sub, i_sub, u_sub};
static const binary_fns mul_fns = {f32_mul, d_mul, i_mul, u_mul};
static const binary_fns div_fns = {f32_div, d_div, i_div, u_div};
static const binary_fns max_fns = {f32_max, d_max, i_max, u_max};
static const binary_fns min_fns = {f32_min, d_min, i_min, u_min};
static const binary_fns prelu_fns = {f32_prelu, d_prelu, i_prelu, u_prelu};
static const binary_fns fmod_fns = {NULL, d_fmod, i_fmod, u_mod};
static const binary_fns pymod_fns = {NULL, d_pymod, i_pymod, u_mod};

/* O = f(A, B) with A, B broadcast to O's shape (all one element type).  O may alias A when A
 * has O's shape. */
static kr_status run_binary(const kr_tensor *A, const kr_tensor *B, kr_tensor *O, const binary_fns *fn) {
  kr_bcast b;
  const kr_tensor *ins[2] = {A, B};
  if (kr_bcast_init_tensors(&b, O, ins, 2)) return KR_FAILURE;
  kr_elem_kind k = kr_elem_kind_of(kr_tensor_elem(O));
  if (k == KR_EK_F32 && fn->f32) {
    fn->f32(&b, A->data, B->data, O->data);
    return KR_SUCCESS;
  }
  int64_t n = b.inner, sa = b.inner_stride[0], sb = b.inner_stride[1];
  for (int64_t r = 0; r < b.rows; r++, kr_bcast_next_row(&b)) {
    for (int64_t j = 0; j < n; j++) {
      int64_t ia = b.off[0] + j * sa, ib = b.off[1] + j * sb, io = r * n + j;
      switch (k) {
      case KR_EK_F32:
        ((float *)O->data)[io] = (float)fn->f(((const float *)A->data)[ia], ((const float *)B->data)[ib]);
        break;
      case KR_EK_F64:
        ((double *)O->data)[io] = fn->f(((const double *)A->data)[ia], ((const double *)B->data)[ib]);
        break;
      case KR_EK_HALF: kr_tensor_set_f64(O, io, fn->f(kr_tensor_get_f64(A, ia), kr_tensor_get_f64(B, ib))); break;
      case KR_EK_UINT: kr_tensor_set_u64(O, io, fn->u(kr_tensor_get_u64(A, ia), kr_tensor_get_u64(B, ib))); break;
      case KR_EK_SINT:
      case KR_EK_BOOL: kr_tensor_set_i64(O, io, fn->i(kr_tensor_get_i64(A, ia), kr_tensor_get_i64(B, ib))); break;
      }
    }
  }
  return KR_SUCCESS;
}

static kr_status binary(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs, const binary_fns *fn) {
  if (run_binary(ins[0], ins[1], outs[0], fn))
    return kr_op_emit_error(op, "operand shapes do not broadcast to the result");
  return KR_SUCCESS;
}

/* Add-14, Sub-14, Mul-14, Div-14. */
kr_status kr_eval_add(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return binary(op, ins, outs, &add_fns);
}
kr_status kr_eval_sub(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return binary(op, ins, outs, &sub_fns);
}
kr_status kr_eval_mul(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return binary(op, ins, outs, &mul_fns);
}
kr_status kr_eval_div(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return binary(op, ins, outs, &div_fns);
}

/* Mod-13: integer division by zero is undefined in ONNX and gives 0 here. */
kr_status kr_eval_mod(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return binary(op, ins, outs, kr_op_attr_int(op, "fmod") ? &fmod_fns : &pymod_fns);
}

kr_status kr_interp_rem(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return binary(op, ins, outs, &fmod_fns);
}

/* PRelu-16: slope broadcast to X (unidirectional; the result has X's shape). */
kr_status kr_eval_prelu(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return binary(op, ins, outs, &prelu_fns);
}

/* ---------------------------------------------------------------------------------------------
 * Pow-15: X and Y may have different element types; Z has X's.  Float X: pow in double.
 * Integer X with integer Y: exact repeated squaring modulo 2^64 (a negative exponent gives the
 * truncated real power: 1 for x = 1, +-1 for x = -1, else 0).  Integer X with float Y: the real
 * power truncated toward zero (numpy's power in float64, cast back). */

static uint64_t ipow(uint64_t x, uint64_t e) {
  uint64_t r = 1;
  for (; e; e >>= 1, x *= x)
    if (e & 1) r *= x;
  return r;
}

static int64_t ipow_signed(int64_t x, int64_t e) {
  if (e >= 0) return (int64_t)ipow((uint64_t)x, (uint64_t)e);
  if (x == 1) return 1;
  if (x == -1) return e & 1 ? -1 : 1;
  return 0;
}

F32_BINARY(f32_pow, (float)pow(x, y))

kr_status kr_eval_pow(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const kr_tensor *X = ins[0], *Y = ins[1];
  kr_tensor *Z = outs[0];
  kr_bcast b;
  const kr_tensor *in[2] = {X, Y};
  if (kr_bcast_init_tensors(&b, Z, in, 2)) return kr_op_emit_error(op, "operand shapes do not broadcast to the result");
  kr_elem_kind xk = kr_elem_kind_of(kr_tensor_elem(X)), yk = kr_elem_kind_of(kr_tensor_elem(Y));
  if (xk == KR_EK_F32 && yk == KR_EK_F32) {
    f32_pow(&b, X->data, Y->data, Z->data);
    return KR_SUCCESS;
  }
  int64_t n = b.inner, sa = b.inner_stride[0], sb = b.inner_stride[1];
  for (int64_t r = 0; r < b.rows; r++, kr_bcast_next_row(&b)) {
    for (int64_t j = 0; j < n; j++) {
      int64_t ix = b.off[0] + j * sa, iy = b.off[1] + j * sb, io = r * n + j;
      if (kr_elem_kind_is_float(xk) || kr_elem_kind_is_float(yk)) {
        double y = yk == KR_EK_UINT ? (double)kr_tensor_get_u64(Y, iy) : kr_tensor_get_f64(Y, iy);
        double x = xk == KR_EK_UINT ? (double)kr_tensor_get_u64(X, ix) : kr_tensor_get_f64(X, ix);
        kr_tensor_set_f64(Z, io, pow(x, y));
      } else {
        /* An unsigned exponent above INT64_MAX is still positive. */
        int64_t e = yk == KR_EK_UINT && kr_tensor_get_u64(Y, iy) > INT64_MAX ? INT64_MAX : kr_tensor_get_i64(Y, iy);
        int64_t x = kr_tensor_get_i64(X, ix);
        kr_tensor_set_i64(Z, io,
                          xk == KR_EK_UINT && e >= 0 ? (int64_t)ipow((uint64_t)x, (uint64_t)e) : ipow_signed(x, e));
      }
    }
  }
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Variadic Max-13, Min-13, Sum-13, Mean-13: the first input broadcast into the result, then
 * each further input combined in place (numpy's reduce order). */

static kr_status nary(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs, const binary_fns *fn) {
  kr_tensor *O = outs[0];
  if (kr_bcast_copy(O, ins[0])) return kr_op_emit_error(op, "operand #0 does not broadcast to the result");
  for (unsigned k = 1; k < op->num_operands; k++)
    if (run_binary(O, ins[k], O, fn)) return kr_op_emit_error(op, "operand #%u does not broadcast to the result", k);
  return KR_SUCCESS;
}

kr_status kr_eval_max(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return nary(op, ins, outs, &max_fns);
}
kr_status kr_eval_min(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return nary(op, ins, outs, &min_fns);
}
kr_status kr_eval_sum(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return nary(op, ins, outs, &add_fns);
}

kr_status kr_eval_mean(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  if (nary(op, ins, outs, &add_fns)) return KR_FAILURE;
  kr_tensor *O = outs[0];
  unsigned n = op->num_operands;
  if (kr_elem_kind_of(kr_tensor_elem(O)) == KR_EK_F32) {
    float *o = O->data;
    for (int64_t i = 0; i < O->numel; i++) o[i] /= (float)n;
  } else {
    for (int64_t i = 0; i < O->numel; i++) kr_tensor_set_f64(O, i, kr_tensor_get_f64(O, i) / n);
  }
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Comparisons (Equal-13, Less-13, Greater-13, LessOrEqual-16, GreaterOrEqual-16) and logic
 * (And-7, Or-7, Xor-7): i1 results, one byte 0/1. */

typedef enum cmp_kind { CMP_EQ, CMP_LT, CMP_GT, CMP_LE, CMP_GE, CMP_NE, LOG_AND, LOG_OR, LOG_XOR } cmp_kind;

#define CMP_APPLY(c, x, y)                                                                                             \
  ((c) == CMP_EQ   ? (x) == (y)                                                                                        \
   : (c) == CMP_LT ? (x) < (y)                                                                                         \
   : (c) == CMP_GT ? (x) > (y)                                                                                         \
   : (c) == CMP_LE ? (x) <= (y)                                                                                        \
   : (c) == CMP_GE ? (x) >= (y)                                                                                        \
                   : (x) != (y))

static kr_status compare(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs, cmp_kind c) {
  const kr_tensor *A = ins[0], *B = ins[1];
  kr_bcast b;
  const kr_tensor *in[2] = {A, B};
  if (kr_bcast_init_tensors(&b, outs[0], in, 2))
    return kr_op_emit_error(op, "operand shapes do not broadcast to the result");
  uint8_t *o = outs[0]->data;
  kr_elem_kind k = kr_elem_kind_of(kr_tensor_elem(A));
  int64_t n = b.inner, sa = b.inner_stride[0], sb = b.inner_stride[1];
  for (int64_t r = 0; r < b.rows; r++, kr_bcast_next_row(&b)) {
    for (int64_t j = 0; j < n; j++) {
      int64_t ia = b.off[0] + j * sa, ib = b.off[1] + j * sb;
      bool v;
      if (c >= LOG_AND) {
        bool x = ((const uint8_t *)A->data)[ia] != 0, y = ((const uint8_t *)B->data)[ib] != 0;
        v = c == LOG_AND ? x && y : c == LOG_OR ? x || y : x != y;
      } else if (k == KR_EK_F32) {
        float x = ((const float *)A->data)[ia], y = ((const float *)B->data)[ib];
        v = CMP_APPLY(c, x, y);
      } else if (kr_elem_kind_is_float(k)) {
        double x = kr_tensor_get_f64(A, ia), y = kr_tensor_get_f64(B, ib);
        v = CMP_APPLY(c, x, y);
      } else if (k == KR_EK_UINT) {
        uint64_t x = kr_tensor_get_u64(A, ia), y = kr_tensor_get_u64(B, ib);
        v = CMP_APPLY(c, x, y);
      } else {
        int64_t x = kr_tensor_get_i64(A, ia), y = kr_tensor_get_i64(B, ib);
        v = CMP_APPLY(c, x, y);
      }
      o[r * n + j] = v;
    }
  }
  return KR_SUCCESS;
}

/* prim.cmp (prim_shared.h): `ne` is the negation of `eq` (true on NaN). */
kr_status kr_interp_compare(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs, kr_interp_cmp c) {
  static const cmp_kind map[] = {[KR_INTERP_CMP_EQ] = CMP_EQ, [KR_INTERP_CMP_NE] = CMP_NE, [KR_INTERP_CMP_LT] = CMP_LT,
                                 [KR_INTERP_CMP_LE] = CMP_LE, [KR_INTERP_CMP_GT] = CMP_GT, [KR_INTERP_CMP_GE] = CMP_GE};
  return compare(op, ins, outs, map[c]);
}

kr_status kr_eval_equal(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return compare(op, ins, outs, CMP_EQ);
}
kr_status kr_eval_less(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return compare(op, ins, outs, CMP_LT);
}
kr_status kr_eval_greater(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return compare(op, ins, outs, CMP_GT);
}
kr_status kr_eval_less_or_equal(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return compare(op, ins, outs, CMP_LE);
}
kr_status kr_eval_greater_or_equal(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return compare(op, ins, outs, CMP_GE);
}
kr_status kr_eval_and(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return compare(op, ins, outs, LOG_AND);
}
kr_status kr_eval_or(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return compare(op, ins, outs, LOG_OR);
}
kr_status kr_eval_xor(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return compare(op, ins, outs, LOG_XOR);
}

/* ---------------------------------------------------------------------------------------------
 * Where-16 and Expand-13: element bytes are copied, so every element type is exact. */

kr_status kr_eval_where(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  kr_bcast b;
  const kr_tensor *in[3] = {ins[0], ins[1], ins[2]};
  if (kr_bcast_init_tensors(&b, outs[0], in, 3))
    return kr_op_emit_error(op, "operand shapes do not broadcast to the result");
  size_t eb = kr_type_storage_bytes(kr_tensor_elem(outs[0]));
  const uint8_t *c = ins[0]->data;
  const char *X = ins[1]->data, *Y = ins[2]->data;
  char *o = outs[0]->data;
  int64_t n = b.inner, sc = b.inner_stride[0], sx = b.inner_stride[1], sy = b.inner_stride[2];
  for (int64_t r = 0; r < b.rows; r++, kr_bcast_next_row(&b)) {
    for (int64_t j = 0; j < n; j++) {
      const char *src =
          c[b.off[0] + j * sc] ? X + (size_t)(b.off[1] + j * sx) * eb : Y + (size_t)(b.off[2] + j * sy) * eb;
      memcpy(o + (size_t)(r * n + j) * eb, src, eb);
    }
  }
  return KR_SUCCESS;
}

kr_status kr_eval_expand(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  if (kr_bcast_copy(outs[0], ins[0])) return kr_op_emit_error(op, "'input' does not broadcast to the result");
  return KR_SUCCESS;
}
