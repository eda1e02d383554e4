/* backend/interp/prim_elementwise.c - CPU reference kernels of the elementwise primitives
 * (dialects/prim/ops.def; Korch, ASPLOS'24, §3).
 *
 * Every primitive that mirrors an op of the op dialect runs that op's kernel (kernels_unary.c,
 * kernels_binary.c), so a fissioned program computes bit for bit what the op-level program does:
 * f32 in typed loops (unary formulas in double rounded once, binary arithmetic in f32), f16/bf16
 * through double, integers exactly in 64 bits wrapping modulo 2^width, max/min propagating NaN,
 * round half to even, integer x/0 = x%0 = 0, Cast's conversions (to bf16: rounding to nearest
 * even by default, as the op-level kernels store bf16 results; truncating, as op.cast and ONNX's
 * test data, with rounding = "toward_zero").  The op-level kernels read no attribute these primitives lack (the unary
 * ones read alpha/beta/gamma, absent here: 0).  Operands of one shape are the trivial case of
 * the op-level broadcasting.  Only iota is new. */
#include <math.h>
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

/* Where-16 with operands of one shape. */
MIRROR(select, where)

/* |v| (as an unsigned magnitude m, sign `neg`) rounded to bf16, nearest with ties to even, in one
 * rounding (through f64 an integer above 2^53 would round twice): the leading 8 significant bits,
 * rounded on the rest, are exact in double, which kr_f64_to_bf16 then converts exactly. */
static uint16_t int_to_bf16_nearest(uint64_t m, bool neg) {
  int e = 63;
  while (e > 0 && !(m >> e)) e--;
  double r = (double)m;
  if (e > 7) {
    int shift = e - 7;
    uint64_t q = m >> shift, rest = m & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
    if (rest > half || (rest == half && (q & 1))) q++;
    r = ldexp((double)q, shift);
  }
  return kr_f64_to_bf16(neg ? -r : r);
}

/* Cast-13 with `rounding` (ops.def): "toward_zero" is op.cast's own conversion (its kernel:
 * to bf16 through f32, truncated); "nearest_even" (the default) is the same table except that a
 * conversion to bf16 rounds to nearest, ties to even, from the exact source value (floats through
 * f64, which holds every f16/bf16/f32 exactly; integers directly), as the op-level kernels store
 * their bf16 results (kr_tensor_set_f64). */
kr_status kr_prim_eval_cast(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs) {
  const char *rounding = kr_op_attr_string(op, "rounding");
  kr_type to = kr_tensor_elem(outs[0]), from = kr_tensor_elem(ins[0]);
  bool to_bf16 = to->kind == KR_TYPE_FLOAT && to->u.fkind == KR_BF16;
  if (rounding && !strcmp(rounding, "toward_zero")) {
    if (!to_bf16) return kr_op_emit_error(op, "attribute 'rounding' toward_zero is only allowed with 'to' = bf16");
    return kr_eval_cast(op, ins, outs);
  }
  if (rounding && strcmp(rounding, "nearest_even"))
    return kr_op_emit_error(op, "attribute 'rounding' must be nearest_even or toward_zero, got \"%s\"", rounding);
  if (!to_bf16 || from == to) return kr_eval_cast(op, ins, outs);
  const kr_tensor *x = ins[0];
  uint16_t *o = outs[0]->data;
  kr_elem_kind fk = kr_elem_kind_of(from);
  for (int64_t i = 0; i < x->numel; i++) {
    if (kr_elem_kind_is_float(fk)) {
      o[i] = kr_f64_to_bf16(kr_tensor_get_f64(x, i));
    } else if (fk == KR_EK_UINT) {
      o[i] = int_to_bf16_nearest(kr_tensor_get_u64(x, i), false);
    } else {
      int64_t v = kr_tensor_get_i64(x, i);
      o[i] = int_to_bf16_nearest(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
    }
  }
  return KR_SUCCESS;
}

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
