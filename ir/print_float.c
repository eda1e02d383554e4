/* ir/print_float.c - floats spelled exactly as MLIR spells them (AsmPrinter's printFloatValue).
 *
 * MLIR first tries llvm::APFloat::toString(precision 6, no padding, keep zeros), which is
 * scientific notation with six decimals ("1.000000e+00"), and keeps it when it parses back to the
 * same bits.  Otherwise it uses APFloat's default toString (enough digits for the type,
 * "9.99999974E-6" or "3.14159274") when that contains a '.', and else the bit pattern in hex.
 * APFloat's digit generation has quirks we must reproduce to print the same bytes: it first
 * truncates the exact decimal expansion to a bit budget (AdjustToPrecision on the APInt), and then
 * rounds the remaining digits half-up.  So this file keeps the exact value as a big integer
 * (significand times 5^e for negative binary exponents) and follows the same steps.  The
 * round-trip test is exact too (decimal value against the rounding interval of the float), so
 * the result never depends on the C library's strtod. */
#include <string.h>

#include "ir/printer_impl.h"

/* ---------------------------------------------------------------------------------------------
 * A small fixed-size unsigned big integer: enough for 2^-1074 * 10^330 scaled comparisons
 * (about 2600 bits). */
enum { BN_LIMBS = 112 };

typedef struct bn {
  uint32_t d[BN_LIMBS];   /* little-endian limbs */
  unsigned n;             /* limbs in use; d[n-1] != 0 unless n == 0 */
} bn;

static void bn_set(bn *a, uint64_t v) {
  a->n = 0;
  while (v) {
    a->d[a->n++] = (uint32_t)v;
    v >>= 32;
  }
}

static void bn_mul_small(bn *a, uint32_t m) {
  uint64_t carry = 0;
  for (unsigned i = 0; i < a->n; i++) {
    uint64_t t = (uint64_t)a->d[i] * m + carry;
    a->d[i] = (uint32_t)t;
    carry = t >> 32;
  }
  if (carry && a->n < BN_LIMBS) a->d[a->n++] = (uint32_t)carry;
}

static void bn_mul_pow5(bn *a, unsigned e) {
  static const uint32_t pow5[14] = {1u, 5u, 25u, 125u, 625u, 3125u, 15625u, 78125u, 390625u,
                                    1953125u, 9765625u, 48828125u, 244140625u, 1220703125u};
  for (; e >= 13; e -= 13) bn_mul_small(a, pow5[13]);
  if (e) bn_mul_small(a, pow5[e]);
}

static void bn_shl(bn *a, unsigned s) {
  if (!a->n) return;
  unsigned limbs = s / 32, bits = s % 32;
  if (a->n + limbs + 1 > BN_LIMBS) limbs = BN_LIMBS - a->n - 1;   /* cannot happen for our sizes */
  if (bits) {
    uint32_t carry = 0;
    for (unsigned i = 0; i < a->n; i++) {
      uint32_t v = a->d[i];
      a->d[i] = (v << bits) | carry;
      carry = v >> (32 - bits);
    }
    if (carry) a->d[a->n++] = carry;
  }
  if (limbs) {
    memmove(a->d + limbs, a->d, a->n * sizeof a->d[0]);
    memset(a->d, 0, limbs * sizeof a->d[0]);
    a->n += limbs;
  }
}

/* a /= d; returns the remainder. */
static uint32_t bn_div_small(bn *a, uint32_t d) {
  uint64_t r = 0;
  for (unsigned i = a->n; i-- > 0;) {
    uint64_t cur = (r << 32) | a->d[i];
    a->d[i] = (uint32_t)(cur / d);
    r = cur % d;
  }
  while (a->n && !a->d[a->n - 1]) a->n--;
  return (uint32_t)r;
}

static const uint32_t pow10_u32[10] = {1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
                                       100000000u, 1000000000u};

/* a = floor(a / 10^t); chained floor divisions equal one floor division by the product. */
static void bn_div_pow10(bn *a, unsigned t) {
  for (; t >= 9; t -= 9) bn_div_small(a, pow10_u32[9]);
  if (t) bn_div_small(a, pow10_u32[t]);
}

static unsigned bn_bits(const bn *a) {
  if (!a->n) return 0;
  uint32_t top = a->d[a->n - 1];
  unsigned b = 0;
  while (top) {
    b++;
    top >>= 1;
  }
  return 32 * (a->n - 1) + b;
}

static int bn_cmp(const bn *a, const bn *b) {
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  for (unsigned i = a->n; i-- > 0;)
    if (a->d[i] != b->d[i]) return a->d[i] < b->d[i] ? -1 : 1;
  return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Float formats. */
typedef struct fmt_info {
  unsigned precision;   /* significand bits including the implicit one */
  unsigned exp_bits;
  int bias;
  unsigned total_bits;
} fmt_info;

static fmt_info format_of(kr_float_kind k) {
  switch (k) {
  case KR_F16: return (fmt_info){11, 5, 15, 16};
  case KR_BF16: return (fmt_info){8, 8, 127, 16};
  case KR_F32: return (fmt_info){24, 8, 127, 32};
  case KR_F64: break;
  }
  return (fmt_info){53, 11, 1023, 64};
}


/* A decimal number: digits[0] is the LEAST significant digit (APFloat's buffer order), value
 * = digits * 10^exp. */
typedef struct dec_buf {
  char digits[64];
  unsigned n;
  int exp;
} dec_buf;

/* APFloat's AdjustToPrecision on the digit buffer: keep `prec` digits, rounding half-up by the
 * first dropped digit, and drop the trailing zeros that creates. */
static void adjust_digits(dec_buf *b, unsigned prec) {
  unsigned n = b->n;
  if (n <= prec) return;
  unsigned first = n - prec;   /* index of the least significant kept digit */
  if (b->digits[first - 1] < '5') {
    while (first < n && b->digits[first] == '0') first++;
  } else {
    unsigned i;
    for (i = first; i != n; i++) {
      if (b->digits[i] == '9') {
        first++;
      } else {
        b->digits[i]++;
        break;
      }
    }
    if (first == n) {   /* carried through every digit: exactly one digit of precision */
      b->exp += (int)first;
      b->digits[0] = '1';
      b->n = 1;
      return;
    }
  }
  b->exp += (int)first;
  memmove(b->digits, b->digits + first, n - first);
  b->n = n - first;
}

/* The decimal digits of sig * 2^exp2 (sig != 0) as APFloat's toStringImpl computes them for
 * `prec` significant digits (before the scientific/plain formatting). */
static void to_digits(uint64_t sig, int exp2, unsigned prec, dec_buf *out) {
  while (!(sig & 1)) {   /* ignore trailing binary zeros */
    sig >>= 1;
    exp2++;
  }
  bn n;
  bn_set(&n, sig);
  int exp = 0;
  if (exp2 > 0) {
    bn_shl(&n, (unsigned)exp2);
  } else if (exp2 < 0) {
    /* N * 2^-e == N * 5^e * 10^-e */
    bn_mul_pow5(&n, (unsigned)-exp2);
    exp = exp2;
  }
  /* AdjustToPrecision on the integer: drop whole decimal digits beyond a bit budget (196/59
   * slightly overestimates lg 10), truncating. */
  unsigned bits = bn_bits(&n);
  unsigned required = (prec * 196 + 58) / 59;
  if (bits > required) {
    unsigned tens = (bits - required) * 59 / 196;
    if (tens) {
      exp += (int)tens;
      bn_div_pow10(&n, tens);
    }
  }
  /* Digits, least significant first, dropping trailing zeros. */
  out->n = 0;
  bool in_trail = true;
  while (n.n) {
    uint32_t chunk = bn_div_small(&n, pow10_u32[9]);
    unsigned count = n.n ? 9 : 0;   /* a full chunk unless it holds the leading digits */
    for (unsigned i = 0; count ? i < count : chunk != 0; i++) {
      unsigned d = chunk % 10;
      chunk /= 10;
      if (in_trail && !d) {
        exp++;
      } else if (out->n < sizeof out->digits) {
        out->digits[out->n++] = (char)('0' + d);
        in_trail = false;
      }
    }
  }
  out->exp = exp;
  adjust_digits(out, prec);
}

/* APFloat's final formatting (toStringImpl after the digits) into `s`; returns the length. */
static size_t format_digits(char *s, bool neg, const dec_buf *b, unsigned prec, unsigned max_padding,
                            bool truncate_zero) {
  size_t k = 0;
  if (neg) s[k++] = '-';
  unsigned nd = b->n;
  int exp = b->exp;
  bool scientific;
  if (!max_padding) {
    scientific = true;
  } else if (exp >= 0) {
    scientific = (unsigned)exp > max_padding || nd + (unsigned)exp > prec;
  } else {
    int msd = exp + (int)(nd - 1);
    scientific = msd >= 0 ? false : (unsigned)-msd > max_padding;
  }
  if (scientific) {
    exp += (int)(nd - 1);
    s[k++] = b->digits[nd - 1];
    s[k++] = '.';
    if (nd == 1 && truncate_zero) {
      s[k++] = '0';
    } else {
      for (unsigned i = 1; i != nd; i++) s[k++] = b->digits[nd - 1 - i];
    }
    if (!truncate_zero && prec > nd - 1)
      for (unsigned i = 0; i < prec - nd + 1; i++) s[k++] = '0';
    s[k++] = truncate_zero ? 'E' : 'e';
    s[k++] = exp >= 0 ? '+' : '-';
    unsigned e = (unsigned)(exp < 0 ? -exp : exp);
    char eb[8];
    unsigned en = 0;
    do {
      eb[en++] = (char)('0' + e % 10);
      e /= 10;
    } while (e);
    if (!truncate_zero && en < 2) eb[en++] = '0';
    while (en) s[k++] = eb[--en];
    return k;
  }
  if (exp >= 0) {
    for (unsigned i = 0; i != nd; i++) s[k++] = b->digits[nd - 1 - i];
    for (int i = 0; i != exp; i++) s[k++] = '0';
    return k;
  }
  int whole = exp + (int)nd;
  unsigned i = 0;
  if (whole > 0) {
    for (; i != (unsigned)whole; i++) s[k++] = b->digits[nd - i - 1];
    s[k++] = '.';
  } else {
    unsigned zeros = 1 + (unsigned)-whole;
    s[k++] = '0';
    s[k++] = '.';
    for (unsigned z = 1; z != zeros; z++) s[k++] = '0';
  }
  for (; i != nd; i++) s[k++] = b->digits[nd - i - 1];
  return k;
}

/* Compares n * 10^k with m * 2^j exactly. */
static int cmp_dec_bin(uint64_t n, int k, uint64_t m, int j) {
  bn a, b;
  bn_set(&a, n);
  bn_set(&b, m);
  if (k >= 0) {
    bn_mul_pow5(&a, (unsigned)k);
    bn_shl(&a, (unsigned)k);
  } else {
    bn_mul_pow5(&b, (unsigned)-k);
    bn_shl(&b, (unsigned)-k);
  }
  if (j >= 0) bn_shl(&b, (unsigned)j);
  else bn_shl(&a, (unsigned)-j);
  return bn_cmp(&a, &b);
}

/* Whether the decimal `d` rounds (to nearest, ties to even) to the finite non-zero magnitude
 * sig * 2^e (sig including the implicit bit; `biased` its biased exponent field). */
static bool rounds_back(const dec_buf *d, uint64_t sig, int e, unsigned biased, const fmt_info *f) {
  uint64_t n = 0;
  for (unsigned i = d->n; i-- > 0;) n = n * 10 + (uint64_t)(d->digits[i] - '0');
  bool even = !(sig & 1);
  int c_hi = cmp_dec_bin(n, d->exp, 2 * sig + 1, e - 1);
  if (c_hi > 0 || (c_hi == 0 && !even)) return false;
  int c_lo;
  if (sig == (uint64_t)1 << (f->precision - 1) && biased > 1)   /* the gap below halves */
    c_lo = cmp_dec_bin(n, d->exp, 4 * sig - 1, e - 2);
  else
    c_lo = cmp_dec_bin(n, d->exp, 2 * sig - 1, e - 1);
  return c_lo > 0 || (c_lo == 0 && even);
}

static void print_hex_bits(kr_ostream *os, uint64_t bits) {
  char buf[20];
  size_t k = sizeof buf;
  do {
    buf[--k] = "0123456789ABCDEF"[bits & 15];
    bits >>= 4;
  } while (bits);
  buf[--k] = 'x';
  buf[--k] = '0';
  kr_ostream_write(os, buf + k, sizeof buf - k);
}

void kr_print_float_bits(kr_ostream *os, kr_float_kind kind, uint64_t bits, bool *printed_hex) {
  fmt_info f = format_of(kind);
  unsigned mant_bits = f.precision - 1;
  uint64_t mant = bits & (((uint64_t)1 << mant_bits) - 1);
  unsigned biased = (unsigned)(bits >> mant_bits) & ((1u << f.exp_bits) - 1);
  bool neg = (bits >> (f.total_bits - 1)) & 1;
  if (printed_hex) *printed_hex = false;
  if (biased == (1u << f.exp_bits) - 1) {   /* inf or NaN */
    if (printed_hex) *printed_hex = true;
    print_hex_bits(os, bits);
    return;
  }
  if (biased == 0 && mant == 0) {
    kr_ostream_puts(os, neg ? "-0.000000e+00" : "0.000000e+00");
    return;
  }
  uint64_t sig;
  int e;
  if (biased == 0) {
    sig = mant;
    e = 1 - f.bias - (int)mant_bits;
  } else {
    sig = mant | ((uint64_t)1 << mant_bits);
    e = (int)biased - f.bias - (int)mant_bits;
  }
  char s[96];
  dec_buf d;
  to_digits(sig, e, 6, &d);
  if (rounds_back(&d, sig, e, biased, &f)) {
    kr_ostream_write(os, s, format_digits(s, neg, &d, 6, 0, false));
    return;
  }
  unsigned prec = 2 + f.precision * 59 / 196;
  to_digits(sig, e, prec, &d);
  size_t len = format_digits(s, neg, &d, prec, 3, true);
  if (memchr(s, '.', len)) {
    kr_ostream_write(os, s, len);
    return;
  }
  if (printed_hex) *printed_hex = true;
  print_hex_bits(os, bits);
}
