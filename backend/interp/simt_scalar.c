/* backend/interp/simt_scalar.c - the SIMT interpreter's scalar ops that are not on the hot path:
 * comparisons, math functions and casts (backend/interp/simt.h).
 *
 * Semantics follow the arith folders (dialects/arith/fold.c) where those define them, and the
 * team contract elsewhere: math functions are computed in double and rounded once to the result
 * type; fptosi/fptoui saturate with NaN -> 0 (PTX cvt.rzi.sat); truncf rounds to nearest even or,
 * with roundingmode = "toward_zero", toward zero (PTX cvt.rz). */
#include <math.h>
#include <string.h>

#include "backend/interp/simt.h"
#include "dialects/arith/arith_impl.h"

bool simt_cmpi(unsigned pred, int64_t a, int64_t b, unsigned w) {
  int64_t sa = simt_sext(a, w), sb = simt_sext(b, w);
  uint64_t ua = simt_zext(a, w), ub = simt_zext(b, w);
  switch (pred) {
  case KR_CMPI_EQ: return ua == ub;
  case KR_CMPI_NE: return ua != ub;
  case KR_CMPI_SLT: return sa < sb;
  case KR_CMPI_SLE: return sa <= sb;
  case KR_CMPI_SGT: return sa > sb;
  case KR_CMPI_SGE: return sa >= sb;
  case KR_CMPI_ULT: return ua < ub;
  case KR_CMPI_ULE: return ua <= ub;
  case KR_CMPI_UGT: return ua > ub;
  case KR_CMPI_UGE: return ua >= ub;
  }
  return false;
}

bool simt_cmpf(unsigned pred, double a, double b) {
  bool uno = isnan(a) || isnan(b);
  switch (pred) {
  case KR_CMPF_FALSE: return false;
  case KR_CMPF_OEQ: return !uno && a == b;
  case KR_CMPF_OGT: return !uno && a > b;
  case KR_CMPF_OGE: return !uno && a >= b;
  case KR_CMPF_OLT: return !uno && a < b;
  case KR_CMPF_OLE: return !uno && a <= b;
  case KR_CMPF_ONE: return !uno && a != b;
  case KR_CMPF_ORD: return !uno;
  case KR_CMPF_UEQ: return uno || a == b;
  case KR_CMPF_UGT: return uno || a > b;
  case KR_CMPF_UGE: return uno || a >= b;
  case KR_CMPF_ULT: return uno || a < b;
  case KR_CMPF_ULE: return uno || a <= b;
  case KR_CMPF_UNE: return uno || a != b;
  case KR_CMPF_UNO: return uno;
  case KR_CMPF_TRUE: return true;
  }
  return false;
}

float simt_round16(float f, bool bf16) {
  return bf16 ? kr_bf16_to_f32(kr_f32_to_bf16(f)) : kr_f16_to_f32(kr_f32_to_f16(f));
}

static double get_f(const simt_reg *r, unsigned kind) { return kind == KR_F64 ? r->d : (double)r->f; }

/* Rounds v once to float kind `kind` and stores it. */
static void put_f(simt_reg *r, unsigned kind, double v) {
  switch (kind) {
  case KR_F64: r->d = v; break;
  case KR_F32: r->f = (float)v; break;
  case KR_F16: r->f = kr_f16_to_f32(kr_f64_to_f16(v)); break;
  case KR_BF16: r->f = kr_bf16_to_f32(kr_f64_to_bf16(v)); break;
  }
}

void simt_do_math(const simt_ins *in, simt_reg *R) {
  double x = get_f(&R[in->a], in->w), y = in->op == SO_MATH2 ? get_f(&R[in->b], in->w) : 0, r;
  switch ((simt_math)in->aux) {
  case SM_EXP: r = exp(x); break;
  case SM_LOG: r = log(x); break;
  case SM_SQRT: r = sqrt(x); break;
  case SM_RSQRT: r = 1.0 / sqrt(x); break;
  case SM_TANH: r = tanh(x); break;
  case SM_ERF: r = erf(x); break;
  case SM_SIN: r = sin(x); break;
  case SM_COS: r = cos(x); break;
  case SM_FLOOR: r = floor(x); break;
  case SM_CEIL: r = ceil(x); break;
  case SM_ROUNDEVEN: r = nearbyint(x); break; /* the default rounding mode: to nearest, ties to even */
  case SM_ABSF: r = fabs(x); break;
  case SM_POW: r = pow(x, y); break;
  case SM_REM: r = fmod(x, y); break;
  default: r = NAN; break;
  }
  put_f(&R[in->d], in->w, r);
}

/* One step toward zero from a non-zero 16-bit float pattern (magnitude - 1 ulp). */
static float toward_zero16(double x, bool bf16) {
  uint16_t h = bf16 ? kr_f64_to_bf16(x) : kr_f64_to_f16(x);
  float r = bf16 ? kr_bf16_to_f32(h) : kr_f16_to_f32(h);
  if (!isnan(x) && fabs((double)r) > fabs(x)) {
    h = (uint16_t)(h - 1);
    r = bf16 ? kr_bf16_to_f32(h) : kr_f16_to_f32(h);
  }
  return r;
}

void simt_do_cast(const simt_ins *in, simt_reg *R) {
  const simt_reg *s = &R[in->a];
  simt_reg *d = &R[in->d];
  unsigned src = (unsigned)in->b, dst = in->w;
  switch ((simt_cast)in->aux) {
  case SC_SITOFP: {
    int64_t v = simt_sext(s->i, src);
    if (dst == KR_F32)
      d->f = (float)v;
    else
      put_f(d, dst, (double)v);
    break;
  }
  case SC_UITOFP: {
    uint64_t v = simt_zext(s->i, src);
    if (dst == KR_F32)
      d->f = (float)v;
    else
      put_f(d, dst, (double)v);
    break;
  }
  case SC_FPTOSI: {
    double t = trunc(get_f(s, src));
    double lim = ldexp(1.0, (int)dst - 1);
    int64_t v;
    if (isnan(t))
      v = 0;
    else if (t < -lim)
      v = dst >= 64 ? INT64_MIN : -(int64_t)lim;
    else if (t >= lim)
      v = dst >= 64 ? INT64_MAX : (int64_t)lim - 1;
    else
      v = (int64_t)t;
    d->i = simt_norm((uint64_t)v, dst);
    break;
  }
  case SC_FPTOUI: {
    double t = trunc(get_f(s, src));
    double lim = ldexp(1.0, (int)dst);
    uint64_t v;
    if (isnan(t) || t <= 0)
      v = 0;
    else if (t >= lim)
      v = dst >= 64 ? UINT64_MAX : ((uint64_t)1 << dst) - 1;
    else
      v = (uint64_t)t;
    d->i = simt_norm(v, dst);
    break;
  }
  case SC_EXTF: put_f(d, dst, get_f(s, src)); break; /* exact */
  case SC_TRUNCF: put_f(d, dst, get_f(s, src)); break;
  case SC_TRUNCF_RZ: {
    double x = get_f(s, src);
    if (dst == KR_F32) {
      float r = (float)x;
      if (!isnan(x) && fabs((double)r) > fabs(x)) r = nextafterf(r, 0.0f);
      d->f = r;
    } else if (dst == KR_F64) {
      d->d = x;
    } else {
      d->f = toward_zero16(x, dst == KR_BF16);
    }
    break;
  }
  }
}
