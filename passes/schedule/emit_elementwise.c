/* passes/schedule/emit_elementwise.c - element rules of the elementwise primitives
 * (dialects/prim/ops.def) as scalar arith code with the semantics of their CPU kernels
 * (backend/interp/prim_elementwise.c over kernels_unary.c and kernels_binary.c):
 *
 *   floats    f16/bf16 extend to f32, compute, round back (arith.extf / arith.truncf); f32 and
 *             f64 compute in their own type.  max/min propagate NaN and pick the operand the CPU
 *             picks (so even the sign of a zero agrees); round is half to even (roundeven);
 *             sign keeps NaN and zeros; cmp's `ne` is true on NaN (une), the others ordered.
 *   integers  signless arith on the type's width (two's complement wrap = the CPU's 64-bit
 *             arithmetic stored modulo 2^width); signed or unsigned ops from the tensor type;
 *             x/0 = x%0 = 0 and x/-1 = -x (guarded with selects, since arith leaves them
 *             undefined); pow exact by repeated squaring, a negative exponent giving the
 *             truncated real power (1, +-1 or 0) as kernels_binary.c's ipow_signed.
 *   i1        and/or/xor/not as bit ops; comparisons of i1 are unsigned (0 < 1).
 *   cast      ONNX Cast as kernels_unary.c / prim_elementwise.c: float -> int truncates and
 *             saturates, NaN -> 0 (korch's arith.fptosi/fptoui); anything -> i1 is x != 0;
 *             int -> int wraps or extends by the source's signedness; to bf16 rounds to
 *             nearest even, or with rounding = "toward_zero" through f32 truncated
 *             (arith.truncf roundingmode = "toward_zero").
 *   iota      the index along `axis`, converted as an integer index would be. */
#include <string.h>

#include "passes/schedule/emit_impl.h"

static bool is_float(kr_type t) { return t->kind == KR_TYPE_FLOAT; }
static bool is_bool(kr_type t) { return t->kind == KR_TYPE_INTEGER && t->u.integer.width == 1; }
static unsigned width_of(kr_type t) { return t->kind == KR_TYPE_INDEX ? 64 : t->u.integer.width; }

/* A float constant of the scalar's type when x is one (for pow's exponent). */
static bool float_constant(kr_value x, double *v) {
  kr_op *d = kr_value_defining_op(x);
  if (!d || strcmp(d->name, "arith.constant")) return false;
  kr_attr a = kr_op_get_attr(d, "value");
  if (!a || a->kind != KR_ATTR_FLOAT) return false;
  *v = a->u.f;
  return true;
}

/* ---------------------------------------------------------------------------------------------
 * cast */

static kr_value truncf_toward_zero(ks_emitter *e, kr_value x, kr_type to) {
  kr_op *op = ks_create(e->kb, "arith.truncf", &x, 1, to, 0);
  kr_op_set_attr(op, "roundingmode", kr_attr_string(e->k->ctx, "toward_zero", 11));
  return kr_op_result(op, 0);
}

static kr_value cast(ks_emitter *e, kr_op *op, kr_value x, kr_type from, kr_type to, bool toward_zero) {
  kr_context *ctx = e->k->ctx;
  kr_type sf = es_scalar_type(e, from), st = es_scalar_type(e, to);
  kr_type f32 = kr_type_float(ctx, KR_F32);
  bool to_bf16 = is_float(to) && to->u.fkind == KR_BF16;
  if (from == to) return x;
  if (is_bool(to)) {
    if (is_float(from)) return es_cmpf(e, "une", x, es_const_float(e, sf, 0.0));
    return es_cmpi(e, "ne", x, es_const_int(e, sf, 0));
  }
  if (is_bool(from)) {
    if (is_float(to)) {
      kr_value one = es_const_float(e, st, 1.0), zero = es_const_float(e, st, 0.0);
      return es_select(e, x, one, zero);
    }
    return es_op1(e, "arith.extui", x, st);
  }
  if (!is_float(from) && !is_float(to)) {
    unsigned wf = width_of(sf), wt = width_of(st);
    if (wf == wt) return x;
    if (wt < wf) return es_op1(e, "arith.trunci", x, st);
    return es_op1(e, es_is_unsigned(from) ? "arith.extui" : "arith.extsi", x, st);
  }
  const char *itof = es_is_unsigned(from) ? "arith.uitofp" : "arith.sitofp";
  if (!is_float(from)) {
    if (to_bf16 && toward_zero) return truncf_toward_zero(e, es_op1(e, itof, x, f32), st);
    return es_op1(e, itof, x, st);
  }
  if (!is_float(to)) return es_op1(e, es_is_unsigned(to) ? "arith.fptoui" : "arith.fptosi", x, st);
  /* float -> float */
  unsigned bf = kr_type_bitwidth(from), bt = kr_type_bitwidth(to);
  if (bt > bf) return es_op1(e, "arith.extf", x, st);
  if (bt == bf) x = es_op1(e, "arith.extf", x, f32); /* f16 <-> bf16 through f32 (exact) */
  if (to_bf16 && toward_zero) {
    if (kr_value_type(x) != f32) x = es_op1(e, "arith.truncf", x, f32); /* f64: as the CPU, (float)x first */
    return truncf_toward_zero(e, x, st);
  }
  (void)op;
  return es_op1(e, "arith.truncf", x, st);
}

/* ---------------------------------------------------------------------------------------------
 * Integer helpers */

static kr_value int_div(ks_emitter *e, kr_value a, kr_value b, bool uns, bool rem) {
  kr_type t = kr_value_type(a);
  kr_value zero = es_const_int(e, t, 0), one = es_const_int(e, t, 1);
  kr_value bz = es_cmpi(e, "eq", b, zero);
  if (uns) {
    kr_value q = es_op2(e, rem ? "arith.remui" : "arith.divui", a, es_select(e, bz, one, b));
    return es_select(e, bz, zero, q);
  }
  /* b = -1: the quotient is -a (wrapping, so INT_MIN / -1 = INT_MIN), the remainder 0; both
   * avoid the one signed division that overflows. */
  kr_value bm = es_cmpi(e, "eq", b, es_const_int(e, t, -1));
  kr_value special = es_or(e, bz, bm);
  kr_value q = es_op2(e, rem ? "arith.remsi" : "arith.divsi", a, es_select(e, special, one, b));
  kr_value at_m1 = rem ? zero : es_op2(e, "arith.subi", zero, a);
  return es_select(e, bz, zero, es_select(e, bm, at_m1, q));
}

/* x^y on integers of one width: repeated squaring over y's bits (exact modulo 2^width). */
static kr_value int_pow(ks_emitter *e, kr_value x, kr_value y, bool uns) {
  kr_type t = kr_value_type(x);
  unsigned w = width_of(t);
  kr_value one = es_const_int(e, t, 1), zero = es_const_int(e, t, 0);
  if (uns && w == 64) { /* kernels_binary.c: an unsigned exponent above INT64_MAX counts as INT64_MAX */
    kr_value lim = es_const_int(e, t, INT64_MIN);
    kr_value small = es_cmpi(e, "ult", y, lim);
    kr_value max = es_const_int(e, t, INT64_MAX);
    y = es_select(e, small, y, max);
  }
  kr_value r = one, b = x;
  for (unsigned bit = 0; bit < w; bit++) {
    kr_value sh = bit ? es_op2(e, "arith.shrui", y, es_const_int(e, t, bit)) : y;
    kr_value set = es_cmpi(e, "ne", es_op2(e, "arith.andi", sh, one), zero);
    r = es_select(e, set, es_op2(e, "arith.muli", r, b), r);
    if (bit + 1 < w) b = es_op2(e, "arith.muli", b, b);
  }
  if (uns) return r;
  /* A negative exponent: the real power truncated toward zero. */
  kr_value m1 = es_const_int(e, t, -1);
  kr_value low = es_op2(e, "arith.andi", y, one);
  kr_value odd = es_cmpi(e, "ne", low, zero);
  kr_value is_one = es_cmpi(e, "eq", x, one), is_m1 = es_cmpi(e, "eq", x, m1);
  kr_value pm1 = es_select(e, odd, m1, one);
  kr_value at_m1 = es_select(e, is_m1, pm1, zero);
  kr_value neg_res = es_select(e, is_one, one, at_m1);
  kr_value neg = es_cmpi(e, "slt", y, zero);
  return es_select(e, neg, neg_res, r);
}

/* ---------------------------------------------------------------------------------------------
 * The rules */

static const struct {
  const char *prim, *arith;
} float_unary[] = {
  {"prim.exp", "arith.exp"},   {"prim.log", "arith.log"},     {"prim.sqrt", "arith.sqrt"},
  {"prim.tanh", "arith.tanh"}, {"prim.erf", "arith.erf"},     {"prim.sin", "arith.sin"},
  {"prim.cos", "arith.cos"},   {"prim.floor", "arith.floor"}, {"prim.ceil", "arith.ceil"},
  {"prim.round", "arith.roundeven"},
};

static kr_value unary(ks_emitter *e, kr_op *op, kr_value x, kr_type t) {
  const char *n = op->name;
  if (is_float(t)) {
    if (!strcmp(n, "prim.neg")) return es_op1(e, "arith.negf", x, kr_value_type(x));
    if (!strcmp(n, "prim.abs")) return es_op1(e, "arith.absf", x, kr_value_type(x));
    if (!strcmp(n, "prim.sign")) {
      kr_type st = kr_value_type(x);
      kr_value z = es_const_float(e, st, 0.0);
      kr_value lt = es_cmpf(e, "olt", x, z), m1 = es_const_float(e, st, -1.0);
      kr_value neg = es_select(e, lt, m1, x);
      kr_value gt = es_cmpf(e, "ogt", x, z), p1 = es_const_float(e, st, 1.0);
      return es_select(e, gt, p1, neg);
    }
    for (size_t i = 0; i < sizeof float_unary / sizeof *float_unary; i++)
      if (!strcmp(n, float_unary[i].prim)) {
        kr_value c = es_to_compute(e, x, t);
        return es_from_compute(e, es_op1(e, float_unary[i].arith, c, kr_value_type(c)), t);
      }
    return es_error(e, op, "'%s' is not defined on floats", n);
  }
  kr_type st = kr_value_type(x);
  bool uns = es_is_unsigned(t);
  if (!strcmp(n, "prim.not")) return es_op2(e, "arith.xori", x, es_const_int(e, st, 1));
  kr_value zero = es_const_int(e, st, 0);
  if (!strcmp(n, "prim.neg")) return es_op2(e, "arith.subi", zero, x);
  if (!strcmp(n, "prim.abs")) {
    if (uns) return x;
    kr_value lt = es_cmpi(e, "slt", x, zero);
    kr_value negx = es_op2(e, "arith.subi", zero, x);
    return es_select(e, lt, negx, x);
  }
  if (!strcmp(n, "prim.sign")) {
    kr_value one = es_const_int(e, st, 1);
    if (uns) {
      kr_value nz = es_cmpi(e, "ne", x, zero);
      return es_select(e, nz, one, zero);
    }
    kr_value lt = es_cmpi(e, "slt", x, zero), m1 = es_const_int(e, st, -1);
    kr_value neg = es_select(e, lt, m1, zero);
    kr_value gt = es_cmpi(e, "sgt", x, zero);
    return es_select(e, gt, one, neg);
  }
  return es_error(e, op, "'%s' is not defined on integers", n);
}

static const char *cmp_pred(const char *p, bool fl, bool uns) {
  static const char *const names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  static const char *const fpred[] = {"oeq", "une", "olt", "ole", "ogt", "oge"};
  static const char *const spred[] = {"eq", "ne", "slt", "sle", "sgt", "sge"};
  static const char *const upred[] = {"eq", "ne", "ult", "ule", "ugt", "uge"};
  for (unsigned i = 0; i < 6; i++)
    if (p && !strcmp(p, names[i])) return fl ? fpred[i] : uns ? upred[i] : spred[i];
  return NULL;
}

static kr_value binary(ks_emitter *e, kr_op *op, kr_value a, kr_value b, kr_type t) {
  const char *n = op->name + 5; /* after "prim." */
  if (!strcmp(n, "cmp")) {
    kr_type ot = es_elem_of(kr_op_operand(op, 0));
    const char *p = cmp_pred(kr_op_attr_string(op, "predicate"), is_float(ot), es_is_unsigned(ot) || is_bool(ot));
    if (!p) return es_error(e, op, "unknown predicate");
    return is_float(ot) ? es_cmpf(e, p, a, b) : es_cmpi(e, p, a, b);
  }
  if (is_float(t)) {
    if (!strcmp(n, "max") || !strcmp(n, "min")) return es_fmax(e, a, b, n[1] == 'a');
    const char *name = !strcmp(n, "add")   ? "arith.addf"
                       : !strcmp(n, "sub") ? "arith.subf"
                       : !strcmp(n, "mul") ? "arith.mulf"
                       : !strcmp(n, "div") ? "arith.divf"
                       : !strcmp(n, "rem") ? "arith.remf"
                       : !strcmp(n, "pow") ? "arith.powf"
                                           : NULL;
    if (!name) return es_error(e, op, "'%s' is not defined on floats", op->name);
    double c;
    kr_value x = es_to_compute(e, a, t);
    if (!strcmp(n, "pow") && float_constant(b, &c)) {
      /* pow(x, 1) = x and pow(x, 2) = x*x exactly (the product of two floats of x's type is
       * exact in double, where the CPU computes pow, so both round once the same way). */
      if (c == 1.0) return a;
      if (c == 2.0) return es_from_compute(e, es_op2(e, "arith.mulf", x, x), t);
    }
    kr_value y = es_to_compute(e, b, t);
    return es_from_compute(e, es_op2(e, name, x, y), t);
  }
  bool uns = es_is_unsigned(t);
  if (!strcmp(n, "and")) return es_op2(e, "arith.andi", a, b);
  if (!strcmp(n, "or")) return es_op2(e, "arith.ori", a, b);
  if (!strcmp(n, "xor")) return es_op2(e, "arith.xori", a, b);
  if (!strcmp(n, "add")) return es_op2(e, "arith.addi", a, b);
  if (!strcmp(n, "sub")) return es_op2(e, "arith.subi", a, b);
  if (!strcmp(n, "mul")) return es_op2(e, "arith.muli", a, b);
  if (!strcmp(n, "div")) return int_div(e, a, b, uns, false);
  if (!strcmp(n, "rem")) return int_div(e, a, b, uns, true);
  if (!strcmp(n, "pow")) return int_pow(e, a, b, uns);
  if (!strcmp(n, "max")) return es_op2(e, uns ? "arith.maxui" : "arith.maxsi", a, b);
  if (!strcmp(n, "min")) return es_op2(e, uns ? "arith.minui" : "arith.minsi", a, b);
  return es_error(e, op, "'%s' is not defined on integers", op->name);
}

static kr_value iota(ks_emitter *e, kr_op *op, const kr_value *index, kr_type t) {
  int64_t axis = kr_op_attr_int(op, "axis");
  unsigned rank;
  es_dims(kr_op_result(op, 0), &rank);
  if (axis < 0 || axis >= (int64_t)rank) return es_error(e, op, "iota axis out of range");
  kr_value i = index[axis];
  kr_type st = es_scalar_type(e, t);
  if (is_bool(t)) return es_cmpi(e, "ne", i, ks_index(e->kb, 0));
  if (!is_float(t)) return es_op1(e, "arith.index_cast", i, st);
  kr_value i64 = es_op1(e, "arith.index_cast", i, kr_type_integer(e->k->ctx, 64, KR_SIGNLESS));
  return es_op1(e, "arith.sitofp", i64, st);
}

kr_value es_elementwise_apply(ks_emitter *e, kr_op *op, const kr_value *x, const kr_value *index) {
  kr_type t = es_elem_of(kr_op_result(op, 0));
  const char *n = op->name;
  if (!strcmp(n, "prim.iota")) return iota(e, op, index, t);
  if (!strcmp(n, "prim.select")) return es_select(e, x[0], x[1], x[2]);
  if (!strcmp(n, "prim.cast")) {
    const char *r = kr_op_attr_string(op, "rounding");
    return cast(e, op, x[0], es_elem_of(kr_op_operand(op, 0)), t, r && !strcmp(r, "toward_zero"));
  }
  if (op->num_operands == 1) return unary(e, op, x[0], t);
  if (op->num_operands == 2) return binary(e, op, x[0], x[1], t);
  return es_error(e, op, "'%s' has no element rule", n);
}

kr_value es_elementwise(ks_emitter *e, kr_op *op, const kr_value *index) {
  kr_value x[3];
  if (op->num_operands > 3) return es_error(e, op, "'%s' has more than three operands", op->name);
  for (unsigned i = 0; i < op->num_operands; i++) {
    x[i] = ks_emit_element(e, kr_op_operand(op, i), index);
    if (!x[i]) return NULL;
  }
  return es_elementwise_apply(e, op, x, index);
}
