/* ir/float16.c - IEEE 754 binary16 and bfloat16 conversions.
 *
 * Rounding is done once, from the exact binary64 value, to nearest with ties to even (IEEE 754
 * §4.3.1 roundTiesToEven).  Converting double -> float -> half would round twice and can be off
 * by one ulp at ties, so both narrow formats share one exact integer rounding routine.  Overflow
 * rounds to infinity; values below half the smallest subnormal round to (signed) zero.
 *
 * NaNs are converted by bit manipulation, never by the hardware: x86 float<->double conversions
 * set the quiet bit, which would turn a signalling NaN attribute (`0x7C01 : f16`) into a different
 * value, while MLIR's APFloat keeps the exact bits.  A NaN keeps its sign and the top bits of its
 * payload, left-aligned in the mantissa; only when that leaves an empty mantissa (which would spell
 * infinity) is the quiet bit set. */
#include <math.h>
#include <string.h>

#include "korch/ir.h"

/* Rounds the binary64 `d` to a format with `ebits` exponent bits and `mbits` stored mantissa bits;
 * returns the bit pattern (sign in bit ebits+mbits). */
static uint32_t round_from_f64(double d, unsigned ebits, unsigned mbits) {
  uint64_t b;
  memcpy(&b, &d, 8);
  uint32_t sign = (uint32_t)(b >> 63) << (ebits + mbits);
  unsigned de = (unsigned)(b >> 52) & 0x7ff;
  uint64_t dm = b & ((1ULL << 52) - 1);
  uint32_t emax_field = (1u << ebits) - 1;
  if (de == 0x7ff) {
    if (dm == 0) return sign | (emax_field << mbits); /* infinity */
    uint32_t payload = (uint32_t)(dm >> (52 - mbits));
    if (!payload) payload = 1u << (mbits - 1);
    return sign | (emax_field << mbits) | payload;
  }
  if (de == 0 && dm == 0) return sign;

  /* |d| = m * 2^e exactly; x = floor(log2 |d|). */
  uint64_t m;
  int e, x;
  if (de == 0) {
    m = dm;
    e = -1074;
    int top = 63 - __builtin_clzll(m);
    x = top + e;
  } else {
    m = dm | (1ULL << 52);
    e = (int)de - 1075;
    x = (int)de - 1023;
  }
  int bias = (1 << (ebits - 1)) - 1;
  int emin = 1 - bias;
  /* The quantum (ulp) of the target at this magnitude: 2^q. */
  int q = (x >= emin ? x : emin) - (int)mbits;
  int shift = q - e;
  uint64_t r;
  if (shift <= 0) {
    r = m << -shift; /* exact: m has at most 53 bits and the result at most mbits+1 */
  } else if (shift >= 64) {
    r = 0; /* below half the smallest subnormal (m < 2^53 <= 2^(shift-1)) */
  } else {
    r = m >> shift;
    uint64_t rem = m & ((1ULL << shift) - 1);
    uint64_t half = 1ULL << (shift - 1);
    if (rem > half || (rem == half && (r & 1))) r++;
  }
  if (x >= emin) {
    /* Normal before rounding: r in [2^mbits, 2^(mbits+1)]. */
    if (r == (1ULL << (mbits + 1))) {
      r >>= 1;
      x++;
    }
    int biased = x + bias;
    if (biased >= (int)emax_field) return sign | (emax_field << mbits);
    return sign | ((uint32_t)biased << mbits) | (uint32_t)(r - (1ULL << mbits));
  }
  /* Subnormal: r in [0, 2^mbits]; r == 2^mbits is the smallest normal, whose encoding is r. */
  return sign | (uint32_t)r;
}

uint16_t kr_f64_to_f16(double d) { return (uint16_t)round_from_f64(d, 5, 10); }
uint16_t kr_f64_to_bf16(double d) { return (uint16_t)round_from_f64(d, 8, 7); }
/* The binary64 bits of the binary32 pattern `b`; exact for every value, NaN payloads included. */
static uint64_t f32_bits_to_f64_bits(uint32_t b) {
  if ((b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu))
    return ((uint64_t)(b >> 31) << 63) | (0x7FFull << 52) | ((uint64_t)(b & 0x7FFFFFu) << 29);
  float f;
  memcpy(&f, &b, 4);
  double d = f; /* not a NaN: the hardware widening is exact */
  uint64_t r;
  memcpy(&r, &d, 8);
  return r;
}

static double f32_bits_to_f64(uint32_t b) {
  uint64_t r = f32_bits_to_f64_bits(b);
  double d;
  memcpy(&d, &r, 8);
  return d;
}

static uint32_t f32_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

uint16_t kr_f32_to_f16(float f) { return kr_f64_to_f16(f32_bits_to_f64(f32_bits(f))); }
uint16_t kr_f32_to_bf16(float f) { return kr_f64_to_bf16(f32_bits_to_f64(f32_bits(f))); }

/* The binary32 bits of the binary16 pattern `h` (exact; NaN payloads kept). */
static uint32_t f16_bits_to_f32_bits(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31;
  unsigned exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  if (exp == 0x1f) return sign | 0x7f800000u | (man << 13); /* inf / NaN, payload kept */
  if (exp == 0) return sign | f32_bits(ldexpf((float)man, -24)); /* subnormal: man * 2^-24, exact */
  return sign | ((exp - 15 + 127) << 23) | (man << 13);
}

float kr_f16_to_f32(uint16_t h) {
  uint32_t bits = f16_bits_to_f32_bits(h);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

uint64_t kr_float_to_bits(kr_float_kind kind, double v) {
  uint64_t b;
  memcpy(&b, &v, 8);
  switch (kind) {
  case KR_F16: return kr_f64_to_f16(v);
  case KR_BF16: return kr_f64_to_bf16(v);
  case KR_F32:
    if (isnan(v)) return round_from_f64(v, 8, 23);
    return f32_bits((float)v); /* not a NaN: hardware rounding is ties to even */
  case KR_F64: break;
  }
  return b;
}

double kr_float_from_bits(kr_float_kind kind, uint64_t bits) {
  switch (kind) {
  case KR_F16: return f32_bits_to_f64(f16_bits_to_f32_bits((uint16_t)bits));
  case KR_BF16: return f32_bits_to_f64((uint32_t)(bits & 0xFFFFu) << 16);
  case KR_F32: return f32_bits_to_f64((uint32_t)bits);
  case KR_F64: break;
  }
  double d;
  memcpy(&d, &bits, 8);
  return d;
}

float kr_bf16_to_f32(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}
