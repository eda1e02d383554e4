/* backend/interp/prim_elementwise.c - CPU reference kernels of the elementwise primitives
 * (dialects/prim/ops.def; Korch, ASPLOS'24, §3).
 *
 * Every primitive that mirrors an op of the op dialect runs that op's kernel (kernels_unary.c,
 * kernels_binary.c), so a fissioned program computes bit for bit what the op-level program does:
 * f32 in typed loops (unary formulas in double rounded once, binary arithmetic in f32), f16/bf16
 * through double, integers exactly in 64 bits wrapping modulo 2^width, max/min propagating NaN,
 * round half to even, integer x/0 = x%0 = 0, Cast's conversions (f32 -> bf16 truncating, as
 * ONNX's test data).  The op-level kernels read no attribute these primitives lack (the unary
 * ones read alpha/beta/gamma, absent here: 0).  Operands of one shape are the trivial case of
 * the op-level broadcasting.  Only iota is new. */
#include <string.h>

#include "backend/interp/elementwise.h"
#include "backend/interp/prim_shared.h"
#include "dialects/op/op_impl.h"
#include "dialects/prim/prim_impl.h"

/* ----- unary (Neg-13, Abs-13, Exp-13, Log-13, Sqrt-13, Tanh-13, Erf-13, Sin-7, Cos-7, Floor-13,
 * Ceil-13, Round-11, Sign-13, Not-1) ----- */
#define MIRROR(stem, op_stem)                                                                  \
  kr_status kr_prim_eval_##stem(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {    \
    return kr_eval_##op_stem(op, ins, outs);                                                   \
  }

MIRROR(neg, neg)
MIRROR(abs, abs)
MIRROR(exp, exp)
MIRROR(log, log)
MIRROR(sqrt, sqrt)
MIRROR(tanh, tanh)
MIRROR(erf, erf)
MIRROR(sin, sin)
MIRROR(cos, cos)
MIRROR(floor, floor)
MIRROR(ceil, ceil)
MIRROR(round, round)
MIRROR(sign, sign)
MIRROR(not, not)

/* ----- binary (Add-14, Sub-14, Mul-14, Div-14, Pow-15, Max-13, Min-13, And-7, Or-7, Xor-7) ----- */
MIRROR(add, add)
MIRROR(sub, sub)
MIRROR(mul, mul)
MIRROR(div, div)
MIRROR(pow, pow)
MIRROR(max, max)
MIRROR(min, min)
MIRROR(and, and)
MIRROR(or, or)
MIRROR(xor, xor)

/* Where-16 with operands of one shape; Cast-13 (the same conversion table as op.cast). */
MIRROR(select, where)
MIRROR(cast, cast)

/* Mod-13 with fmod = 1: the remainder takes the dividend's sign; integer x % 0 = 0. */
kr_status kr_prim_eval_rem(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  return kr_interp_rem(op, ins, outs);
}

/* `predicate` eq ne lt le gt ge: the op-level comparisons (Equal, Less, ...), `ne` their
 * negation of eq, true on NaN. */
kr_status kr_prim_eval_cmp(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  static const struct {
    const char *name;
    kr_interp_cmp c;
  } preds[] = {{"eq", KR_INTERP_CMP_EQ}, {"ne", KR_INTERP_CMP_NE}, {"lt", KR_INTERP_CMP_LT},
               {"le", KR_INTERP_CMP_LE}, {"gt", KR_INTERP_CMP_GT}, {"ge", KR_INTERP_CMP_GE}};
  const char *p = kr_op_attr_string(op, "predicate");
  for (unsigned i = 0; p && i < sizeof preds / sizeof preds[0]; i++)
    if (!strcmp(p, preds[i].name)) return kr_interp_compare(op, ins, outs, preds[i].c);
  return kr_op_emit_error(op, "attribute 'predicate' must be one of eq, ne, lt, le, gt, ge, got \"%s\"", p ? p : "");
}

/* y[i_0, ..., i_{r-1}] = i_axis converted to y's element type (kr_tensor_set_i64's rules: integers
 * wrap, floats round to nearest even, i1 is i_axis != 0).  y viewed as [outer, n, inner]: each
 * run of `inner` elements holds one index. */
kr_status kr_prim_eval_iota(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  (void)ins;
  kr_tensor *y = outs[0];
  unsigned rank = kr_tensor_rank(y);
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < 0 || axis >= (int64_t)rank)
    return kr_op_emit_error(op, "attribute 'axis' %lld is out of range [0, %u)", (long long)axis, rank);
  if (y->numel == 0) return KR_SUCCESS;
  const int64_t *dims = kr_tensor_dims(y);
  int64_t n = dims[axis], inner = 1;
  for (unsigned d = (unsigned)axis + 1; d < rank; d++) inner *= dims[d];
  int64_t outer = y->numel / (n * inner);
  kr_type e = kr_tensor_elem(y);
  kr_elem_kind k = kr_elem_kind_of(e);
  int64_t i = 0;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < n; j++) {
      if (k == KR_EK_F32) {
        float *p = (float *)y->data + i;
        for (int64_t q = 0; q < inner; q++) p[q] = (float)j;
      } else if (k == KR_EK_F64) {
        double *p = (double *)y->data + i;
        for (int64_t q = 0; q < inner; q++) p[q] = (double)j;
      } else if (e->kind == KR_TYPE_INTEGER && e->u.integer.width == 64) {
        int64_t *p = (int64_t *)y->data + i;
        for (int64_t q = 0; q < inner; q++) p[q] = j;
      } else if (e->kind == KR_TYPE_INTEGER && e->u.integer.width == 32) {
        int32_t *p = (int32_t *)y->data + i;
        for (int64_t q = 0; q < inner; q++) p[q] = (int32_t)(uint32_t)j;
      } else {
        for (int64_t q = 0; q < inner; q++) kr_tensor_set_i64(y, i + q, j);
      }
      i += inner;
    }
  return KR_SUCCESS;
}
