/* passes/fission/rules_binary.c - fission rules of the binary family (dialects/op/ops.def, Add ..
 * Expand; ONNX opset 17; Korch, ASPLOS'24, §3 "operator fission").
 *
 * Multidirectional (numpy) broadcasting becomes explicit prim.broadcast (fx_binary, fx_cmp and
 * fx_select insert it).  The primitives run the op-level kernels (backend/interp/
 * kernels_binary.c), so each rule computes the op's result bit for bit: Mod with fmod = 0 is
 * rebuilt from prim.rem exactly as the kernel's Python-style remainder, Pow with mixed element
 * types converts as the kernel does, and the n-ary ops fold left in the kernel's order. */
#include "passes/fission/fission.h"

/* The static dims of op result 0 (every op here has one result). */
static kr_type result_type(kr_op *op) { return kr_value_type(kr_op_result(op, 0)); }

/* Binary arithmetic and logic, one primitive each: Add-14, Sub-14, Mul-14, Div-14 (integers
 * truncate, x/0 = 0 as the kernel), And-7, Or-7, Xor-7. */
#define BINARY(stem, prim)                                                                     \
  kr_status kr_fission_##stem(kr_fission *f, kr_op *op, kr_value *results) {                  \
    (void)op;                                                                                  \
    results[0] = fx_binary(f, prim, fx_operand(f, 0), fx_operand(f, 1));                      \
    return fx_status(f);                                                                       \
  }

BINARY(add, "prim.add")
BINARY(sub, "prim.sub")
BINARY(mul, "prim.mul")
BINARY(div, "prim.div")
BINARY(and, "prim.and")
BINARY(or, "prim.or")
BINARY(xor, "prim.xor")

/* Comparisons (Equal-13, Less-13, Greater-13, LessOrEqual-16, GreaterOrEqual-16): prim.cmp, i1;
 * unsigned operands compare unsigned and NaN compares false, as the kernel. */
#define COMPARE(stem, pred)                                                                    \
  kr_status kr_fission_##stem(kr_fission *f, kr_op *op, kr_value *results) {                  \
    (void)op;                                                                                  \
    results[0] = fx_cmp(f, pred, fx_operand(f, 0), fx_operand(f, 1));                          \
    return fx_status(f);                                                                       \
  }

COMPARE(equal, "eq")
COMPARE(less, "lt")
COMPARE(greater, "gt")
COMPARE(less_or_equal, "le")
COMPARE(greater_or_equal, "ge")

/* Pow-15: Z has X's element type; Y may have another.  Equal types: prim.pow.  Otherwise the
 * kernel computes pow(double x, double y) when either is a float, and exact 64-bit integer
 * powers when both are integers, then converts to X's type; so do we: both cast to f64 (resp.
 * i64; unsigned values zero-extend), prim.pow, cast back (prim.cast converts as the kernel's
 * store: floats round to nearest, bf16 included, float -> int truncates, int -> int wraps).
 * Difference left: a ui64 exponent above INT64_MAX (the kernel clamps it). */
kr_status kr_fission_pow(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value x = fx_operand(f, 0), y = fx_operand(f, 1);
  if (!x || !y) return fx_status(f);
  kr_type xe = fx_elem(x), ye = fx_elem(y);
  if (xe == ye) {
    results[0] = fx_binary(f, "prim.pow", x, y);
    return fx_status(f);
  }
  kr_type wide = fx_is_float(xe) || fx_is_float(ye) ? kr_type_float(f->ctx, KR_F64) : fx_i64(f);
  kr_value xw = fx_cast(f, x, wide);
  kr_value z = fx_binary(f, "prim.pow", xw, fx_cast(f, y, wide));
  results[0] = fx_cast(f, z, kr_type_element(result_type(op)));
  return fx_status(f);
}

/* Mod-13.  fmod = 1: prim.rem (C's fmod / %, the dividend's sign).  fmod = 0: Python's %, the
 * divisor's sign, built as the kernel builds it from the truncated remainder:
 *   r = rem(a, b);  (r != 0 and (r < 0) != (b < 0)) ? r + b : r
 * (integer x % 0 = 0 stays 0; for unsigned types both comparisons are false). */
kr_status kr_fission_mod(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value a = fx_operand(f, 0), b = fx_operand(f, 1);
  kr_value r = fx_binary(f, "prim.rem", a, b);
  if (kr_op_attr_int(op, "fmod")) {
    results[0] = r;
    return fx_status(f);
  }
  kr_value zr = fx_splat_like(f, r, 0.0);
  kr_value r_neg = fx_cmp(f, "lt", r, zr);
  kr_value differ = fx_binary(f, "prim.xor", r_neg, fx_cmp(f, "lt", b, fx_splat_like(f, b, 0.0)));
  kr_value fix = fx_binary(f, "prim.and", fx_cmp(f, "ne", r, zr), differ);
  results[0] = fx_select(f, fix, fx_binary(f, "prim.add", r, b), r);
  return fx_status(f);
}

/* PRelu-16: x < 0 ? slope * x : x, slope broadcast to X (unidirectional: the common shape is
 * X's, which the verifier checked). */
kr_status kr_fission_prelu(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op;
  kr_value x = fx_operand(f, 0), slope = fx_operand(f, 1);
  if (!x) return fx_status(f);
  kr_value neg = fx_binary(f, "prim.mul", slope, x);
  results[0] = fx_select(f, fx_cmp(f, "lt", x, fx_splat_like(f, x, 0.0)), neg, x);
  return fx_status(f);
}

/* Variadic Max-13, Min-13, Sum-13: a left fold (the kernel's order), broadcast to the result
 * shape (a single operand is the result). */
static kr_value fold(kr_fission *f, kr_op *op, const char *prim) {
  kr_value acc = fx_operand(f, 0);
  for (unsigned i = 1; i < op->num_operands; i++) acc = fx_binary(f, prim, acc, fx_operand(f, i));
  kr_type t = result_type(op);
  return fx_broadcast(f, acc, t->u.shaped.dims, t->u.shaped.rank);
}

kr_status kr_fission_max(kr_fission *f, kr_op *op, kr_value *results) {
  results[0] = fold(f, op, "prim.max");
  return fx_status(f);
}
kr_status kr_fission_min(kr_fission *f, kr_op *op, kr_value *results) {
  results[0] = fold(f, op, "prim.min");
  return fx_status(f);
}
kr_status kr_fission_sum(kr_fission *f, kr_op *op, kr_value *results) {
  results[0] = fold(f, op, "prim.add");
  return fx_status(f);
}

/* Mean-13: Sum / n (the kernel divides the sum by n in the element type). */
kr_status kr_fission_mean(kr_fission *f, kr_op *op, kr_value *results) {
  kr_value s = fold(f, op, "prim.add");
  results[0] = op->num_operands > 1 ? fx_binary_scalar(f, "prim.div", s, (double)op->num_operands) : s;
  return fx_status(f);
}

/* Where-16: prim.select with the three operands broadcast to their common shape. */
kr_status kr_fission_where(kr_fission *f, kr_op *op, kr_value *results) {
  (void)op;
  results[0] = fx_select(f, fx_operand(f, 0), fx_operand(f, 1), fx_operand(f, 2));
  return fx_status(f);
}

/* Expand-13: broadcast to broadcast(shape, input.shape), which is the result type shape
 * inference gave the op (`shape` is a constant). */
kr_status kr_fission_expand(kr_fission *f, kr_op *op, kr_value *results) {
  kr_type t = result_type(op);
  results[0] = fx_broadcast(f, fx_operand(f, 0), t->u.shaped.dims, t->u.shaped.rank);
  return fx_status(f);
}
