/* backend/nvptx/lower_arith.c - arith ops -> LLVM IR for the NVPTX backend (nvptx_impl.h).
 *
 * Semantics are korch's (dialects/arith/ops.def), checked against the interpreter
 * (backend/interp/simt_exec.c, simt_scalar.c), which is the reference for edge cases LLVM leaves
 * undefined:
 *   - integer division/remainder by zero give 0, signed MIN / -1 wraps (LLVM: immediate UB, so
 *     the divisor is made safe with a select before the division);
 *   - shifts by >= the width give 0 (the sign for shrsi), as PTX shl/shr clamp (LLVM: poison);
 *   - fptosi/fptoui saturate with NaN -> 0: llvm.fpto[su]i.sat (LangRef), PTX cvt.rzi.sat;
 *   - f16/bf16 arithmetic and math compute in f32 and round once (fpext, op, fptrunc), as the
 *     interpreter and the schedule's emitters do; this also avoids depending on the GPU's native
 *     f16/bf16 instructions (bf16 arithmetic is sm_90 only);
 *   - truncf {roundingmode = "toward_zero"} uses a bit trick rather than
 *     llvm.experimental.constrained.fptrunc (which NVPTX does not lower in LLVM 19): round to
 *     nearest even, and when that rounded away from zero (|r| > |x|, x not NaN) step the result
 *     one ulp toward zero by decrementing its bit pattern (IEEE 754 encodings are ordered by
 *     magnitude; overflow to inf steps back to the largest finite value, as PTX cvt.rz does).
 * Math: exact operations use LLVM intrinsics that NVPTX lowers to correctly rounded PTX
 * instructions (llvm.sqrt -> sqrt.rn, llvm.fma -> fma.rn, llvm.floor/ceil/roundeven -> cvt.rmi/
 * rpi/rni, llvm.fabs -> abs, llvm.maximum/minimum -> max.NaN/min.NaN or an expansion);
 * transcendental ones call libdevice (__nv_expf, __nv_logf, __nv_tanhf (never __nv_fast_tanhf),
 * __nv_erff, __nv_sinf, __nv_cosf, __nv_powf, __nv_fmodf; the f64 forms without the `f`),
 * which the driver links (libdevice user guide: functions are called by name). */
#include <string.h>

#include "backend/nvptx/lower.h"
#include "korch/diag.h"
#include "korch/dialect.h"

/* Whether `t` is an LLVM half or bfloat (computed in f32). */
static bool is16(nv_lower *L, LLVMTypeRef t) { return t == L->f16 || t == L->bf16; }

/* Widens a 16-bit float to f32 (exact); other values unchanged. */
static LLVMValueRef promote(nv_lower *L, LLVMValueRef v) {
  return is16(L, LLVMTypeOf(v)) ? LLVMBuildFPExt(L->B, v, L->f32, "") : v;
}

/* Rounds an f32 result back to the 16-bit type `t` (nearest even); other values unchanged. */
static LLVMValueRef demote(nv_lower *L, LLVMValueRef v, LLVMTypeRef t) {
  return is16(L, t) && LLVMTypeOf(v) != t ? LLVMBuildFPTrunc(L->B, v, t, "") : v;
}

/* Bit width of an integer or float LLVM type. */
static unsigned bits_of(nv_lower *L, LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind) return LLVMGetIntTypeWidth(t);
  return t == L->f64 ? 64 : t == L->f32 ? 32 : 16;
}

/* arith.constant: scalar integer/index/float/bool values, or a dense vector. */
static LLVMValueRef lower_constant(kr_op *op, LLVMTypeRef t) {
  kr_attr v = kr_op_get_attr(op, "value");
  if (!v) return NULL;
  LLVMTypeRef et = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
  bool fl = LLVMGetTypeKind(et) != LLVMIntegerTypeKind;
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
    if (v->kind != KR_ATTR_DENSE) return NULL;
    unsigned n = LLVMGetVectorSize(t);
    LLVMValueRef elems[16];
    if (n > 16) return NULL;
    for (unsigned k = 0; k < n; k++)
      elems[k] = fl ? LLVMConstReal(et, kr_dense_get_f64(v, k))
                    : LLVMConstInt(et, (unsigned long long)kr_dense_get_i64(v, k), 1);
    return LLVMConstVector(elems, n);
  }
  switch (v->kind) {
  case KR_ATTR_FLOAT: return fl ? LLVMConstReal(et, v->u.f) : NULL;
  case KR_ATTR_INTEGER: return fl ? NULL : LLVMConstInt(et, (unsigned long long)v->u.i, 1);
  case KR_ATTR_BOOL: return fl ? NULL : LLVMConstInt(et, v->u.b, 0);
  case KR_ATTR_DENSE:
    return fl ? LLVMConstReal(et, kr_dense_get_f64(v, 0)) : LLVMConstInt(et, (unsigned long long)kr_dense_get_i64(v, 0), 1);
  default: return NULL;
  }
}

/* Integer division and remainder with the interpreter's total semantics (x / 0 = 0, x % 0 = 0,
 * MIN / -1 = MIN, x % -1 = 0): the divisor becomes 1 where LLVM would have UB. */
static LLVMValueRef lower_div(nv_lower *L, const char *n, LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef t = LLVMTypeOf(a);
  LLVMValueRef zero = LLVMConstInt(t, 0, 0), one = LLVMConstInt(t, 1, 0), m1 = LLVMConstAllOnes(t);
  LLVMValueRef bz = LLVMBuildICmp(L->B, LLVMIntEQ, b, zero, "");
  bool sgn = !strcmp(n, "arith.divsi") || !strcmp(n, "arith.remsi");
  LLVMValueRef bad = sgn ? LLVMBuildOr(L->B, bz, LLVMBuildICmp(L->B, LLVMIntEQ, b, m1, ""), "") : bz;
  LLVMValueRef safe = LLVMBuildSelect(L->B, bad, one, b, "");
  if (!strcmp(n, "arith.divsi")) {
    LLVMValueRef q = LLVMBuildSDiv(L->B, a, safe, "");
    LLVMValueRef neg = LLVMBuildSub(L->B, zero, a, "");
    return LLVMBuildSelect(L->B, bz, zero, LLVMBuildSelect(L->B, bad, neg, q, ""), "");
  }
  if (!strcmp(n, "arith.divui"))
    return LLVMBuildSelect(L->B, bz, zero, LLVMBuildUDiv(L->B, a, safe, ""), "");
  /* x % 1 == 0, which is the wanted result for the replaced divisors. */
  return !strcmp(n, "arith.remsi") ? LLVMBuildSRem(L->B, a, safe, "") : LLVMBuildURem(L->B, a, safe, "");
}

/* Shifts clamped as PTX shl/shr: an amount >= width (unsigned) gives 0, or the sign for shrsi. */
static LLVMValueRef lower_shift(nv_lower *L, const char *n, LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef t = LLVMTypeOf(a);
  LLVMValueRef w = LLVMConstInt(t, bits_of(L, t), 0);
  LLVMValueRef big = LLVMBuildICmp(L->B, LLVMIntUGE, b, w, "");
  if (!strcmp(n, "arith.shrsi")) {
    LLVMValueRef amt = LLVMBuildSelect(L->B, big, LLVMConstInt(t, bits_of(L, t) - 1, 0), b, "");
    return LLVMBuildAShr(L->B, a, amt, "");
  }
  LLVMValueRef amt = LLVMBuildSelect(L->B, big, LLVMConstInt(t, 0, 0), b, "");
  LLVMValueRef r = !strcmp(n, "arith.shli") ? LLVMBuildShl(L->B, a, amt, "") : LLVMBuildLShr(L->B, a, amt, "");
  return LLVMBuildSelect(L->B, big, LLVMConstInt(t, 0, 0), r, "");
}

/* truncf toward zero (see the file comment): RNE, then one ulp toward zero when it rounded up
 * in magnitude. */
static LLVMValueRef trunc_rz(nv_lower *L, LLVMValueRef x, LLVMTypeRef dst) {
  LLVMTypeRef src = LLVMTypeOf(x);
  LLVMValueRef r = LLVMBuildFPTrunc(L->B, x, dst, "");
  LLVMValueRef back = LLVMBuildFPExt(L->B, r, src, "");
  LLVMValueRef ab = nv_intrinsic(L, "llvm.fabs", &src, 1, &back, 1);
  LLVMValueRef ax = nv_intrinsic(L, "llvm.fabs", &src, 1, &x, 1);
  LLVMValueRef up = LLVMBuildFCmp(L->B, LLVMRealOGT, ab, ax, "");
  LLVMTypeRef it = LLVMIntTypeInContext(L->C, bits_of(L, dst));
  LLVMValueRef bits = LLVMBuildBitCast(L->B, r, it, "");
  LLVMValueRef dec = LLVMBuildBitCast(L->B, LLVMBuildSub(L->B, bits, LLVMConstInt(it, 1, 0), ""), dst, "");
  return LLVMBuildSelect(L->B, up, dec, r, "");
}

/* Libdevice math functions by op name (libdevice user guide; f32 name = f64 name + "f"). */
static const struct {
  const char *op, *nv;
} libdevice_ops[] = {
    {"arith.exp", "__nv_exp"}, {"arith.log", "__nv_log"}, {"arith.tanh", "__nv_tanh"},  {"arith.erf", "__nv_erf"},
    {"arith.sin", "__nv_sin"}, {"arith.cos", "__nv_cos"}, {"arith.powf", "__nv_pow"}, {"arith.remf", "__nv_fmod"},
};

/* Exact float operations as LLVM intrinsics. */
static const struct {
  const char *op, *intr;
} intrinsic_ops[] = {
    {"arith.sqrt", "llvm.sqrt"},           {"arith.floor", "llvm.floor"},        {"arith.ceil", "llvm.ceil"},
    {"arith.roundeven", "llvm.roundeven"}, {"arith.absf", "llvm.fabs"},          {"arith.fma", "llvm.fma"},
    {"arith.maximumf", "llvm.maximum"},    {"arith.minimumf", "llvm.minimum"},
};

/* MLIR cmpi predicates (ops.def numbering) -> LLVM. */
static const LLVMIntPredicate cmpi_pred[10] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntSLT, LLVMIntSLE, LLVMIntSGT,
                                               LLVMIntSGE, LLVMIntULT, LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
/* MLIR cmpf predicates -> LLVM (MLIR puts ueq..une before uno; LLVM puts uno at 8). */
static const LLVMRealPredicate cmpf_pred[16] = {
    LLVMRealPredicateFalse, LLVMRealOEQ, LLVMRealOGT, LLVMRealOGE, LLVMRealOLT, LLVMRealOLE,
    LLVMRealONE,            LLVMRealORD, LLVMRealUEQ, LLVMRealUGT, LLVMRealUGE, LLVMRealULT,
    LLVMRealULE,            LLVMRealUNE, LLVMRealUNO, LLVMRealPredicateTrue};

/* Float binary/ternary/unary op on promoted operands; NULL when `n` is not one. */
static LLVMValueRef lower_float(nv_lower *L, const char *n, LLVMValueRef *a, unsigned na) {
  LLVMValueRef p[3];
  for (unsigned i = 0; i < na && i < 3; i++) p[i] = promote(L, a[i]);
  LLVMTypeRef ct = LLVMTypeOf(p[0]);
  if (!strcmp(n, "arith.addf")) return LLVMBuildFAdd(L->B, p[0], p[1], "");
  if (!strcmp(n, "arith.subf")) return LLVMBuildFSub(L->B, p[0], p[1], "");
  if (!strcmp(n, "arith.mulf")) return LLVMBuildFMul(L->B, p[0], p[1], "");
  if (!strcmp(n, "arith.divf")) return LLVMBuildFDiv(L->B, p[0], p[1], "");
  if (!strcmp(n, "arith.negf")) return LLVMBuildFNeg(L->B, p[0], "");
  if (!strcmp(n, "arith.rsqrt")) /* ops.def: 1 / sqrt(x), two rounded steps (not rsqrt.approx) */
    return LLVMBuildFDiv(L->B, LLVMConstReal(ct, 1.0), nv_intrinsic(L, "llvm.sqrt", &ct, 1, p, 1), "");
  for (size_t i = 0; i < sizeof intrinsic_ops / sizeof *intrinsic_ops; i++)
    if (!strcmp(n, intrinsic_ops[i].op)) return nv_intrinsic(L, intrinsic_ops[i].intr, &ct, 1, p, na);
  for (size_t i = 0; i < sizeof libdevice_ops / sizeof *libdevice_ops; i++)
    if (!strcmp(n, libdevice_ops[i].op)) {
      char name[32];
      strcpy(name, libdevice_ops[i].nv);
      if (ct == L->f32) strcat(name, "f");
      return nv_call_extern(L, name, ct, p, na);
    }
  return NULL;
}

/* Casts (ops.def "Casts"). */
static LLVMValueRef lower_cast(nv_lower *L, kr_op *op, LLVMValueRef x, LLVMTypeRef dst) {
  const char *n = op->name;
  LLVMTypeRef src = LLVMTypeOf(x);
  unsigned sw = bits_of(L, src), dw = bits_of(L, dst);
  if (!strcmp(n, "arith.index_cast") || !strcmp(n, "arith.extsi") || !strcmp(n, "arith.trunci") ||
      !strcmp(n, "arith.index_castui") || !strcmp(n, "arith.extui")) {
    if (sw == dw) return x;
    if (sw > dw) return LLVMBuildTrunc(L->B, x, dst, "");
    bool z = !strcmp(n, "arith.index_castui") || !strcmp(n, "arith.extui");
    return z ? LLVMBuildZExt(L->B, x, dst, "") : LLVMBuildSExt(L->B, x, dst, "");
  }
  if (!strcmp(n, "arith.sitofp")) return LLVMBuildSIToFP(L->B, x, dst, "");
  if (!strcmp(n, "arith.uitofp")) return LLVMBuildUIToFP(L->B, x, dst, "");
  if (!strcmp(n, "arith.fptosi") || !strcmp(n, "arith.fptoui")) {
    LLVMValueRef p = promote(L, x);
    LLVMTypeRef over[2] = {dst, LLVMTypeOf(p)};
    return nv_intrinsic(L, !strcmp(n, "arith.fptosi") ? "llvm.fptosi.sat" : "llvm.fptoui.sat", over, 2, &p, 1);
  }
  if (!strcmp(n, "arith.extf")) {
    if (is16(L, src) && is16(L, dst)) return LLVMBuildFPTrunc(L->B, promote(L, x), dst, "");
    return sw == dw ? x : LLVMBuildFPExt(L->B, x, dst, "");
  }
  if (!strcmp(n, "arith.truncf")) {
    kr_attr m = kr_op_get_attr(op, "roundingmode");
    bool rz = m && m->kind == KR_ATTR_STRING && !strcmp(m->u.string.str, "toward_zero");
    if (src == dst) return x;
    if (is16(L, src)) x = promote(L, x); /* f16 <-> bf16: through f32 (exact), then one rounding */
    return rz ? trunc_rz(L, x, dst) : LLVMBuildFPTrunc(L->B, x, dst, "");
  }
  return NULL;
}

/* Integer ops of one type; NULL when `n` is not one. */
static LLVMValueRef lower_int(nv_lower *L, const char *n, LLVMValueRef *a, unsigned na) {
  if (na < 1) return NULL;
  LLVMTypeRef t = LLVMTypeOf(a[0]);
  if (!strcmp(n, "arith.absi")) {
    LLVMValueRef args[2] = {a[0], LLVMConstInt(L->i1, 0, 0)};
    return nv_intrinsic(L, "llvm.abs", &t, 1, args, 2);
  }
  if (na != 2) return NULL;
  if (!strcmp(n, "arith.addi")) return LLVMBuildAdd(L->B, a[0], a[1], "");
  if (!strcmp(n, "arith.subi")) return LLVMBuildSub(L->B, a[0], a[1], "");
  if (!strcmp(n, "arith.muli")) return LLVMBuildMul(L->B, a[0], a[1], "");
  if (!strcmp(n, "arith.andi")) return LLVMBuildAnd(L->B, a[0], a[1], "");
  if (!strcmp(n, "arith.ori")) return LLVMBuildOr(L->B, a[0], a[1], "");
  if (!strcmp(n, "arith.xori")) return LLVMBuildXor(L->B, a[0], a[1], "");
  if (!strcmp(n, "arith.divsi") || !strcmp(n, "arith.divui") || !strcmp(n, "arith.remsi") || !strcmp(n, "arith.remui"))
    return lower_div(L, n, a[0], a[1]);
  if (!strcmp(n, "arith.shli") || !strcmp(n, "arith.shrsi") || !strcmp(n, "arith.shrui")) return lower_shift(L, n, a[0], a[1]);
  static const struct {
    const char *op, *intr;
  } mm[] = {{"arith.maxsi", "llvm.smax"}, {"arith.minsi", "llvm.smin"}, {"arith.maxui", "llvm.umax"}, {"arith.minui", "llvm.umin"}};
  for (size_t i = 0; i < sizeof mm / sizeof *mm; i++)
    if (!strcmp(n, mm[i].op)) return nv_intrinsic(L, mm[i].intr, &t, 1, a, 2);
  return NULL;
}

kr_status nv_lower_arith(nv_lower *L, kr_op *op) {
  const char *n = op->name;
  if (op->num_results != 1) return kr_op_emit_error(op, "is not supported by the NVPTX backend");
  kr_type rkt = kr_value_type(kr_op_result(op, 0));
  LLVMTypeRef rt = nv_type(L, rkt);
  if (!rt) return kr_op_emit_error(op, "result type is not supported by the NVPTX backend");
  if (!strcmp(n, "arith.constant")) {
    LLVMValueRef c = lower_constant(op, rt);
    if (!c) return kr_op_emit_error(op, "constant value is not supported by the NVPTX backend");
    nv_set(L, kr_op_result(op, 0), c);
    return KR_SUCCESS;
  }
  LLVMValueRef a[3];
  unsigned na = op->num_operands;
  if (na > 3) return kr_op_emit_error(op, "is not supported by the NVPTX backend");
  for (unsigned i = 0; i < na; i++) {
    a[i] = nv_get(L, kr_op_operand(op, i));
    if (!a[i]) return kr_op_emit_error(op, "operand #%u not defined before its use", i);
  }
  if (rkt->kind == KR_TYPE_VECTOR && strcmp(n, "arith.select"))
    return kr_op_emit_error(op, "arith on vectors is not supported by the NVPTX backend (use kernel.vector_extract)");
  LLVMValueRef r = NULL;
  if (!strcmp(n, "arith.select") && na == 3) {
    r = LLVMBuildSelect(L->B, a[0], a[1], a[2], "");
  } else if ((!strcmp(n, "arith.cmpi") || !strcmp(n, "arith.cmpf")) && na == 2) {
    kr_attr p = kr_op_get_attr(op, "predicate");
    int64_t pr = p && p->kind == KR_ATTR_INTEGER ? p->u.i : -1;
    if (n[9] == 'i') {
      if (pr < 0 || pr > 9) return kr_op_emit_error(op, "bad predicate");
      r = LLVMBuildICmp(L->B, cmpi_pred[pr], a[0], a[1], "");
    } else {
      if (pr < 0 || pr > 15) return kr_op_emit_error(op, "bad predicate");
      r = LLVMBuildFCmp(L->B, cmpf_pred[pr], promote(L, a[0]), promote(L, a[1]), "");
    }
  } else if (na == 1 && (r = lower_cast(L, op, a[0], rt))) {
    /* done */
  } else if (LLVMGetTypeKind(rt) == LLVMIntegerTypeKind) {
    r = lower_int(L, n, a, na);
  } else if (na >= 1) {
    r = lower_float(L, n, a, na);
    if (r) r = demote(L, r, rt);
  }
  if (!r) return kr_op_emit_error(op, "is not supported by the NVPTX backend");
  nv_set(L, kr_op_result(op, 0), r);
  return KR_SUCCESS;
}
