/* passes/schedule/reduction_combine.c - the scalar algebra of the reduction template:
 * accumulator types, identities, conversions and the combine of two partial results, as arith
 * ops (reduction_impl.h states the rules and why they match the CPU kernels). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "korch/interp.h"
#include "korch/op.h"
#include "passes/schedule/reduction_impl.h"

/* Predicate numbers of dialects/arith/arith.c. */
enum { CMPI_EQ = 0, CMPI_SLT = 2, CMPI_SGT = 4, CMPI_ULT = 6, CMPI_UGT = 8 };
enum { CMPF_OEQ = 1, CMPF_OGT = 2, CMPF_OLT = 4, CMPF_UNO = 14 };

static kr_value cmp(ks_builder *kb, const char *name, int64_t pred, kr_value x, kr_value y) {
  kr_value ops[2] = {x, y};
  kr_op *op = ks_create(kb, name, ops, 2, kr_type_integer(kb->ctx, 1, KR_SIGNLESS), 0);
  kr_op_set_attr(op, "predicate", kr_attr_integer(kb->ctx, kr_type_integer(kb->ctx, 64, KR_SIGNLESS), pred));
  return kr_op_result(op, 0);
}

kr_value ks_red_cmpi(ks_builder *kb, int64_t pred, kr_value x, kr_value y) { return cmp(kb, "arith.cmpi", pred, x, y); }
kr_value ks_red_cmpf(ks_builder *kb, int64_t pred, kr_value x, kr_value y) { return cmp(kb, "arith.cmpf", pred, x, y); }

static kr_value bin(ks_builder *kb, const char *name, kr_value x, kr_value y) {
  kr_value ops[2] = {x, y};
  return ks_create1(kb, name, ops, 2, kr_value_type(x));
}

static kr_value sel(ks_builder *kb, kr_value c, kr_value x, kr_value y) {
  kr_value ops[3] = {c, x, y};
  return ks_create1(kb, "arith.select", ops, 3, kr_value_type(x));
}

static kr_value cast(ks_builder *kb, const char *name, kr_value v, kr_type to) {
  return ks_create1(kb, name, &v, 1, to);
}

bool ks_red_acc_init(ks_red_acc *a, kr_context *ctx, kr_op *op, kr_type in_elem, kr_type out_elem) {
  memset(a, 0, sizeof *a);
  const char *n = op->name;
  if (!strcmp(n, "prim.reduce_sum"))
    a->kind = KS_RED_SUM;
  else if (!strcmp(n, "prim.reduce_prod"))
    a->kind = KS_RED_PROD;
  else if (!strcmp(n, "prim.reduce_max"))
    a->kind = KS_RED_MAX;
  else if (!strcmp(n, "prim.reduce_min"))
    a->kind = KS_RED_MIN;
  else if (!strcmp(n, "prim.arg_max"))
    a->kind = KS_RED_ARGMAX;
  else if (!strcmp(n, "prim.arg_min"))
    a->kind = KS_RED_ARGMIN;
  else
    return false;
  if (a->kind == KS_RED_ARGMAX || a->kind == KS_RED_ARGMIN) a->last = kr_op_attr_int(op, "select_last_index") != 0;
  a->width = kr_type_bitwidth(in_elem);
  if (in_elem->kind == KR_TYPE_FLOAT) {
    a->is_float = true;
    a->acc = kr_type_float(ctx, in_elem->u.fkind == KR_F64 ? KR_F64 : KR_F32);
  } else if (in_elem->kind == KR_TYPE_INTEGER) {
    a->is_unsigned = in_elem->u.integer.sign == KR_UNSIGNED || in_elem->u.integer.width == 1;
    a->acc = kr_type_integer(ctx, a->width <= 32 ? 32 : 64, KR_SIGNLESS);
  } else {
    return false;
  }
  if (out_elem->kind == KR_TYPE_INTEGER)
    out_elem = kr_type_integer(ctx, out_elem->u.integer.width, KR_SIGNLESS);
  else if (out_elem->kind != KR_TYPE_FLOAT)
    return false;
  a->out = out_elem;
  return true;
}

static bool is_arg(const ks_red_acc *a) { return a->kind == KS_RED_ARGMAX || a->kind == KS_RED_ARGMIN; }
static bool is_max(const ks_red_acc *a) { return a->kind == KS_RED_MAX || a->kind == KS_RED_ARGMAX; }

kr_value ks_red_identity(ks_builder *kb, const ks_red_acc *a) {
  if (a->kind == KS_RED_SUM || a->kind == KS_RED_PROD) {
    int c = a->kind == KS_RED_PROD;
    return a->is_float ? ks_const_float(kb, a->acc, c) : ks_const_int(kb, a->acc, c);
  }
  bool mx = is_max(a);
  if (a->is_float) return ks_const_float(kb, a->acc, mx ? -INFINITY : INFINITY);
  unsigned w = kr_type_bitwidth(a->acc);
  int64_t smin = w == 64 ? INT64_MIN : INT32_MIN, smax = w == 64 ? INT64_MAX : INT32_MAX;
  /* Unsigned values compare with the u predicates: 0 is the least, all ones (-1) the greatest. */
  int64_t c = a->is_unsigned ? (mx ? 0 : -1) : (mx ? smin : smax);
  return ks_const_int(kb, a->acc, c);
}

kr_value ks_red_index_identity(ks_builder *kb, const ks_red_acc *a) {
  return ks_const_int(kb, kr_type_integer(kb->ctx, 64, KR_SIGNLESS), a->last ? -1 : INT64_MAX);
}

kr_value ks_red_to_acc(ks_builder *kb, const ks_red_acc *a, kr_value v) {
  kr_type t = kr_value_type(v);
  if (t == a->acc) return v;
  if (a->is_float)
    return cast(kb, kr_type_bitwidth(t) < kr_type_bitwidth(a->acc) ? "arith.extf" : "arith.truncf", v, a->acc);
  return cast(kb, a->is_unsigned ? "arith.extui" : "arith.extsi", v, a->acc);
}

kr_value ks_red_from_acc(ks_builder *kb, const ks_red_acc *a, kr_value v) {
  if (kr_value_type(v) == a->out) return v;
  if (a->is_float) return cast(kb, "arith.truncf", v, a->out);
  return cast(kb, "arith.trunci", v, a->out);
}

/* Whether b is strictly better than a for max (min): NaN-free order, with the integer
 * predicates by signedness. */
static kr_value beats(ks_builder *kb, const ks_red_acc *a, kr_value av, kr_value bv) {
  bool mx = is_max(a);
  if (a->is_float) return ks_red_cmpf(kb, mx ? CMPF_OGT : CMPF_OLT, bv, av);
  int64_t p = a->is_unsigned ? (mx ? CMPI_UGT : CMPI_ULT) : (mx ? CMPI_SGT : CMPI_SLT);
  return ks_red_cmpi(kb, p, bv, av);
}

void ks_red_combine(ks_builder *kb, const ks_red_acc *a, kr_value av, kr_value ai, kr_value bv, kr_value bi,
                    kr_value *ov, kr_value *oi) {
  switch (a->kind) {
  case KS_RED_SUM: *ov = bin(kb, a->is_float ? "arith.addf" : "arith.addi", av, bv); return;
  case KS_RED_PROD: *ov = bin(kb, a->is_float ? "arith.mulf" : "arith.muli", av, bv); return;
  case KS_RED_MAX:
  case KS_RED_MIN:
    if (!a->is_float) {
      bool mx = a->kind == KS_RED_MAX;
      *ov =
          bin(kb, a->is_unsigned ? (mx ? "arith.maxui" : "arith.minui") : (mx ? "arith.maxsi" : "arith.minsi"), av, bv);
    } else {
      /* (b > a || b != b) ? b : a: a NaN on either side wins, as in the CPU kernel. */
      kr_value c = bin(kb, "arith.ori", beats(kb, a, av, bv), ks_red_cmpf(kb, CMPF_UNO, bv, bv));
      *ov = sel(kb, c, bv, av);
    }
    return;
  case KS_RED_ARGMAX:
  case KS_RED_ARGMIN: {
    /* b wins a tie on the index: the smaller one (first extreme), or the larger one with
     * select_last_index. */
    kr_value idx = ks_red_cmpi(kb, a->last ? CMPI_SGT : CMPI_SLT, bi, ai);
    kr_value eq = a->is_float ? ks_red_cmpf(kb, CMPF_OEQ, bv, av) : ks_red_cmpi(kb, CMPI_EQ, bv, av);
    kr_value better = bin(kb, "arith.ori", beats(kb, a, av, bv), bin(kb, "arith.andi", eq, idx));
    if (a->is_float) {
      /* A NaN is the extreme: a NaN a loses only to a NaN b with the preferred index; a NaN b
       * beats every number. */
      kr_value anan = ks_red_cmpf(kb, CMPF_UNO, av, av), bnan = ks_red_cmpf(kb, CMPF_UNO, bv, bv);
      better = sel(kb, anan, bin(kb, "arith.andi", bnan, idx), bin(kb, "arith.ori", bnan, better));
    }
    *ov = sel(kb, better, bv, av);
    *oi = sel(kb, better, bi, ai);
    return;
  }
  }
}

bool ks_red_is_arg(const ks_red_acc *a) { return is_arg(a); }
