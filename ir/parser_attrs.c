/* ir/parser_attrs.c - attributes (MLIR LangRef "Attributes", "Builtin Attributes";
 * mlir/lib/AsmParser/AttributeParser.cpp) and locations (LocationParser.cpp).
 *
 * Literal rules follow MLIR: integers default to i64 and floats to f64 unless `: type` follows
 * (or the caller gives a type); an integer literal must fit its type (signless: either reading);
 * a float attribute written as an integer must be a hexadecimal bit pattern.  Inside
 * `dense<...>` korch is more lenient than MLIR in one way: decimal integers are accepted as
 * elements of float tensors (`dense<[1, 2]> : tensor<2xf32>`). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/parser_impl.h"

typedef struct kp_dense_elem {
  const char *ptr;
  size_t len;
  kr_tok_kind kind;
  bool neg;
} kp_dense_elem;

/* ---------------------------------------------------------------------------------------------
 * Numbers. */

static bool is_hex_literal(const char *s, size_t n) { return n > 1 && s[1] == 'x'; }

/* strtod on a token (C locale, as korch never calls setlocale).  Like MLIR, a literal beyond
 * the double range reads as infinity; `false` is kept for callers that could refuse it. */
static bool parse_double(kr_asm_parser *p, const char *s, size_t n, double *out) {
  char small[64];
  char *buf = small;
  if (n >= sizeof small) {
    p->strbuf.len = 0;
    kr_vec_reserve(&p->strbuf, n + 1, 1);
    buf = p->strbuf.data;
  }
  memcpy(buf, s, n);
  buf[n] = 0;
  *out = strtod(buf, NULL);
  return true;
}

static unsigned float_width(kr_type t) { return t->u.fkind == KR_F64 ? 64 : t->u.fkind == KR_F32 ? 32 : 16; }


/* A float written as an integer literal: only a hexadecimal bit pattern is allowed (MLIR's
 * parseFloatFromIntegerLiteral). */
static kr_status hex_float_bits(kr_asm_parser *p, const char *s, size_t n, bool neg, kr_type t, uint64_t *bits) {
  if (!is_hex_literal(s, n))
    return kp_error_note(p, s, NULL, s, "add a trailing dot to make the literal a float",
                         "unexpected decimal integer literal for a floating point value");
  if (neg) return kp_error_at(p, s, "hexadecimal float literal should not have a leading minus");
  kr_token tk = {s, n, KR_TOK_INTEGER, 0, 0};
  unsigned w = float_width(t);
  if (!kp_int_value(&tk, bits) || (w < 64 && (*bits >> w)))
    return kp_error_at(p, s, "hexadecimal float constant out of range for type");
  return KR_SUCCESS;
}

/* Whether magnitude `mag` (negated when `neg`) fits integer/index type `t` (MLIR's
 * buildAttributeAPInt): signed and index values in [-2^(w-1), 2^(w-1)), unsigned in [0, 2^w),
 * signless in [-2^(w-1), 2^w).  The value is stored two's complement in *out. */
static bool int_fits(uint64_t mag, bool neg, kr_type t, int64_t *out) {
  unsigned w = t->kind == KR_TYPE_INDEX ? 64 : t->u.integer.width;
  bool is_signed = t->kind == KR_TYPE_INDEX || t->u.integer.sign == KR_SIGNED;
  uint64_t half = (uint64_t)1 << (w - 1);
  if (neg) {
    if (mag > half) return false;
    *out = (int64_t)(0 - mag);
  } else if (is_signed) {
    if (mag >= half) return false;
    *out = (int64_t)mag;
  } else {
    if (w < 64 && (mag >> w)) return false;
    *out = (int64_t)mag;
  }
  return true;
}

/* The type of a number literal just read: the caller's hint, else an explicit `: type`, else
 * i64 for integers and f64 for floats (as MLIR), from the parser's type caches. */
static kr_status literal_type(kr_asm_parser *p, kr_type hint, bool is_float, kr_type *t) {
  *t = hint;
  if (hint) return KR_SUCCESS;
  if (kp_consume(p, KR_TOK_COLON)) return kp_parse_type(p, t);
  kr_type *slot = is_float ? &p->float_types[KR_F64] : &p->int_types[KR_SIGNLESS][64];
  if (!*slot) *slot = is_float ? kr_type_float(p->ctx, KR_F64) : kr_type_integer(p->ctx, 64, KR_SIGNLESS);
  *t = *slot;
  return KR_SUCCESS;
}

static kr_status parse_int_attr(kr_asm_parser *p, kr_type hint, bool neg, kr_attr *out) {
  kr_token lit = p->tok;
  kp_next(p);
  kr_type t;
  if (literal_type(p, hint, false, &t)) return KR_FAILURE;
  if (t->kind == KR_TYPE_FLOAT) {
    uint64_t bits;
    if (hex_float_bits(p, lit.ptr, lit.len, neg, t, &bits)) return KR_FAILURE;
    *out = kr_attr_float(p->ctx, t, kr_float_from_bits(t->u.fkind, bits));
    return KR_SUCCESS;
  }
  if (t->kind != KR_TYPE_INTEGER && t->kind != KR_TYPE_INDEX)
    return kp_error_at(p, lit.ptr, "integer literal not valid for specified type");
  if (neg && t->kind == KR_TYPE_INTEGER && t->u.integer.sign == KR_UNSIGNED)
    return kp_error_at(p, lit.ptr, "negative integer literal not valid for unsigned integer type");
  uint64_t mag;
  int64_t v;
  if (!kp_int_value(&lit, &mag) || !int_fits(mag, neg, t, &v))
    return kp_error_at(p, lit.ptr, "integer constant out of range for attribute");
  *out = kr_attr_integer(p->ctx, t, v);
  return KR_SUCCESS;
}

static kr_status parse_float_attr(kr_asm_parser *p, kr_type hint, bool neg, kr_attr *out) {
  kr_token lit = p->tok;
  kp_next(p);
  kr_type t;
  if (literal_type(p, hint, true, &t)) return KR_FAILURE;
  if (t->kind != KR_TYPE_FLOAT) return kp_error_at(p, lit.ptr, "floating point value not valid for specified type");
  double v;
  if (!parse_double(p, lit.ptr, lit.len, &v)) return kp_error_at(p, lit.ptr, "floating point value too large");
  *out = kr_attr_float(p->ctx, t, neg ? -v : v);
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Dictionaries, arrays, symbols. */

kr_status kp_parse_attr_dict_into(kr_asm_parser *p, kr_vec *out, size_t check_from) {
  if (kp_expect(p, KR_TOK_LBRACE, "expected '{' in attribute dictionary") || kp_enter(p)) return KR_FAILURE;
  kr_hmap seen = {0};  /* only for big dictionaries */
  kr_status status = KR_FAILURE;
  if (!kp_consume(p, KR_TOK_RBRACE)) {
    do {
      kr_ident name;
      if (kp_is(p, KR_TOK_STRING)) {
        const char *s;
        size_t n;
        kp_decode_string(p, &p->tok, &s, &n);
        name = kr_ident_get(p->ctx, s, n);
      } else if (kr_tok_is_keyword(p->tok.kind)) {
        name = kr_ident_get(p->ctx, p->tok.ptr, p->tok.len);
      } else {
        kp_error_wrong(p, "expected attribute name");
        goto out;
      }
      if (kr_ident_len(name) == 0) {
        kp_error(p, "expected valid attribute name");
        goto out;
      }
      const kr_named_attr *e = KR_VEC_DATA(out, kr_named_attr);
      bool dup = false;
      size_t n = out->len - check_from;
      if (n <= 32) {
        for (size_t i = check_from; i < out->len && !dup; i++) dup = e[i].name == name;
      } else {
        if (!seen.len)
          for (size_t i = check_from; i < out->len; i++) kr_hmap_insert(&seen, kr_hash_ptr(e[i].name), e[i].name, NULL);
        dup = kr_hmap_find(&seen, kr_hash_ptr(name), name) != NULL;
      }
      if (dup) {
        kp_error(p, "duplicate key '%s' in dictionary attribute", name);
        goto out;
      }
      kp_next(p);
      kr_attr v = kr_attr_unit(p->ctx);
      if (kp_consume(p, KR_TOK_EQUAL) && kp_parse_attr(p, NULL, &v)) goto out;
      kr_named_attr na = {name, v};
      kr_vec_push(out, &na, sizeof na);
      if (seen.len) kr_hmap_insert(&seen, kr_hash_ptr(name), name, NULL);
    } while (kp_consume(p, KR_TOK_COMMA));
    if (kp_expect(p, KR_TOK_RBRACE, "expected '}' in attribute dictionary")) goto out;
  }
  kp_leave(p);
  status = KR_SUCCESS;
out:
  kr_hmap_free(&seen);
  return status;
}

static kr_status parse_dict_attr(kr_asm_parser *p, kr_attr *out) {
  size_t start = p->named.len;
  if (kp_parse_attr_dict_into(p, &p->named, start)) return KR_FAILURE;
  *out = kr_attr_dict(p->ctx, KR_VEC_DATA(&p->named, kr_named_attr) + start, (unsigned)(p->named.len - start));
  p->named.len = start;
  return KR_SUCCESS;
}

static kr_status parse_array_attr(kr_asm_parser *p, kr_attr *out) {
  kp_next(p);
  if (kp_enter(p)) return KR_FAILURE;
  size_t start = p->ptrs.len;
  if (!kp_consume(p, KR_TOK_RSQUARE)) {
    do {
      kr_attr a;
      if (kp_parse_attr(p, NULL, &a)) return KR_FAILURE;
      KR_VEC_PUSH(&p->ptrs, const void *, a);
    } while (kp_consume(p, KR_TOK_COMMA));
    if (kp_expect(p, KR_TOK_RSQUARE, "expected ',' or ']'")) return KR_FAILURE;
  }
  *out = kr_attr_array(p->ctx, KR_VEC_DATA(&p->ptrs, kr_attr) + start, (unsigned)(p->ptrs.len - start));
  p->ptrs.len = start;
  kp_leave(p);
  return KR_SUCCESS;
}

/* The name of an `@name` / `@"name"` token, interned. */
static kr_ident symbol_name(kr_asm_parser *p, const kr_token *t) {
  if (t->len > 1 && t->ptr[1] == '"') {
    const char *s;
    size_t n;
    kp_decode_string(p, t, &s, &n);
    return kr_ident_get(p->ctx, s, n);
  }
  return kr_ident_get(p->ctx, t->ptr + 1, t->len - 1);
}

/* symbol-ref ::= `@` name (`::` `@` name)* */
static kr_status parse_symbol_ref(kr_asm_parser *p, kr_attr *out) {
  kr_ident root = symbol_name(p, &p->tok);
  kp_next(p);
  size_t start = p->ptrs.len;
  while (kp_is(p, KR_TOK_COLON)) {
    /* One token of lookahead: `@a : i32` must leave the `:` alone. */
    kr_lexer lex = p->lex;
    kr_token tok = p->tok;
    const char *prev = p->prev_end;
    kp_next(p);
    if (!kp_is(p, KR_TOK_COLON)) {
      if (kp_is(p, KR_TOK_ERROR)) return KR_FAILURE;
      p->lex = lex;
      p->tok = tok;
      p->prev_end = prev;
      break;
    }
    kp_next(p);
    if (!kp_is(p, KR_TOK_AT_ID)) return kp_error(p, "expected nested symbol reference identifier");
    KR_VEC_PUSH(&p->ptrs, kr_ident, symbol_name(p, &p->tok));
    kp_next(p);
  }
  *out = kr_attr_symbol_ref(p->ctx, root, KR_VEC_DATA(&p->ptrs, kr_ident) + start, (unsigned)(p->ptrs.len - start));
  p->ptrs.len = start;
  return KR_SUCCESS;
}

static kr_status parse_string_attr(kr_asm_parser *p, kr_type hint, kr_attr *out) {
  const char *s;
  size_t n;
  kp_decode_string(p, &p->tok, &s, &n);
  kp_next(p);
  if (hint || !kp_is(p, KR_TOK_COLON)) {
    *out = kr_attr_string_typed(p->ctx, s, n, hint);
    return KR_SUCCESS;
  }
  kp_next(p);
  kr_ident keep = kr_ident_get(p->ctx, s, n);  /* the type may decode strings of its own */
  kr_type t;
  if (kp_parse_type(p, &t)) return KR_FAILURE;
  *out = kr_attr_string_typed(p->ctx, keep, n, t);
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Dense elements: `dense<literal> : tensor<...>` (MLIR's TensorLiteralParser). */

static kr_status dense_element(kr_asm_parser *p) {
  kp_dense_elem e = {p->tok.ptr, p->tok.len, p->tok.kind, false};
  switch (p->tok.kind) {
  case KR_TOK_KW_TRUE:
  case KR_TOK_KW_FALSE:
  case KR_TOK_FLOAT:
  case KR_TOK_INTEGER:
  case KR_TOK_STRING:
    break;
  case KR_TOK_MINUS:
    kp_next(p);
    if (!kp_is(p, KR_TOK_FLOAT) && !kp_is(p, KR_TOK_INTEGER)) return kp_error(p, "expected integer or floating point literal");
    e = (kp_dense_elem){p->tok.ptr, p->tok.len, p->tok.kind, true};
    break;
  case KR_TOK_LPAREN:
    return kp_error(p, "complex element literals are not supported");
  default:
    return kp_error(p, "expected element literal of primitive type");
  }
  kr_vec_push(&p->dense, &e, sizeof e);
  kp_next(p);
  return KR_SUCCESS;
}

/* `[` (list | element) (`,` ...)* `]`: pushes [count, sub-dims...] on p->dims. */
static kr_status dense_list(kr_asm_parser *p) {
  if (kp_enter(p)) return KR_FAILURE;
  kp_next(p);  /* [ */
  size_t me = p->dims.len;
  KR_VEC_PUSH(&p->dims, int64_t, 0);
  size_t sub = p->dims.len, sub_len = 0;
  int64_t count = 0;
  if (!kp_consume(p, KR_TOK_RSQUARE)) {
    do {
      size_t s = p->dims.len;
      if (kp_is(p, KR_TOK_LSQUARE) ? dense_list(p) : dense_element(p)) return KR_FAILURE;
      size_t len = p->dims.len - s;
      if (count == 0) {
        sub_len = len;
      } else {
        int64_t *d = KR_VEC_DATA(&p->dims, int64_t);
        if (len != sub_len || memcmp(d + s, d + sub, len * sizeof *d) != 0)
          return kp_error(p, "tensor literal is invalid; ranks are not consistent between elements");
        p->dims.len = s;
      }
      count++;
    } while (kp_consume(p, KR_TOK_COMMA));
    if (kp_expect(p, KR_TOK_RSQUARE, "expected ']'")) return KR_FAILURE;
  }
  KR_VEC_AT(&p->dims, int64_t, me) = count;
  kp_leave(p);
  return KR_SUCCESS;
}

static void shape_str(kr_ostream *os, const int64_t *d, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (i) kr_ostream_puts(os, ", ");
    kr_ostream_print_i64(os, d[i]);
  }
}

static int hexdig(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static void put_le(unsigned char *dst, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] = (unsigned char)(v >> (8 * i));
}

/* One literal as the bits of element type `et` (MLIR's getIntAttrElements / getFloatAttrElements). */
static kr_status dense_elem_bits(kr_asm_parser *p, const kp_dense_elem *e, kr_type et, uint64_t *bits) {
  if (et->kind == KR_TYPE_FLOAT) {
    if (e->kind == KR_TOK_FLOAT) {
      double v;
      if (!parse_double(p, e->ptr, e->len, &v)) return kp_error_at(p, e->ptr, "floating point value too large");
      *bits = kr_float_to_bits(et->u.fkind, e->neg ? -v : v);
      return KR_SUCCESS;
    }
    if (e->kind != KR_TOK_INTEGER) return kp_error_at(p, e->ptr, "expected floating point literal");
    if (is_hex_literal(e->ptr, e->len)) return hex_float_bits(p, e->ptr, e->len, e->neg, et, bits);
    double v;  /* korch: a decimal integer in a float tensor means that value */
    if (!parse_double(p, e->ptr, e->len, &v)) return kp_error_at(p, e->ptr, "floating point value too large");
    *bits = kr_float_to_bits(et->u.fkind, e->neg ? -v : v);
    return KR_SUCCESS;
  }
  bool is_unsigned = et->kind == KR_TYPE_INTEGER && et->u.integer.sign == KR_UNSIGNED;
  if (e->neg && is_unsigned) return kp_error_at(p, e->ptr, "expected unsigned integer elements, but parsed negative value");
  if (e->kind == KR_TOK_FLOAT) return kp_error_at(p, e->ptr, "expected integer elements, but parsed floating-point");
  if (e->kind == KR_TOK_KW_TRUE || e->kind == KR_TOK_KW_FALSE) {
    if (!kr_type_is_integer(et, 1)) return kp_error_at(p, e->ptr, "expected i1 type for 'true' or 'false' values");
    *bits = e->kind == KR_TOK_KW_TRUE;
    return KR_SUCCESS;
  }
  if (e->kind != KR_TOK_INTEGER) return kp_error_at(p, e->ptr, "expected integer elements, but parsed a string");
  kr_token tk = {e->ptr, e->len, KR_TOK_INTEGER, 0, 0};
  uint64_t mag;
  int64_t v;
  if (!kp_int_value(&tk, &mag) || !int_fits(mag, e->neg, et, &v))
    return kp_error_at(p, e->ptr, "integer constant out of range for type");
  *bits = (uint64_t)v;
  return KR_SUCCESS;
}

static kr_status dense_from_hex(kr_asm_parser *p, const char *dense_ptr, const kr_token *hex, kr_type t, kr_attr *out) {
  const char *h = hex->ptr + 1, *he = hex->ptr + hex->len - 1;
  bool ok = he - h >= 2 && h[0] == '0' && h[1] == 'x' && !((he - h) & 1);
  for (const char *c = h + 2; ok && c < he; c++) ok = hexdig(*c) >= 0;
  if (!ok) return kp_error_at(p, hex->ptr, "expected string containing hex digits starting with `0x`");
  kr_type et = t->u.shaped.elem;
  size_t n = (size_t)(he - h - 2) / 2, esz = kr_type_storage_bytes(et);
  size_t count = (size_t)kr_type_num_elements(t);
  /* i1 elements are bit-packed, least significant bit first, as MLIR (and korch's printer)
   * write them; a single 0x00/0xFF byte is a splat; one byte per element is accepted too. */
  bool packed = et->kind == KR_TYPE_INTEGER && et->u.integer.width == 1 && count > 0 && n == (count + 7) / 8;
  if (!packed && !(n == esz * count || (n == esz && count >= 1))) {
    char *ts = kp_type_str(t);
    kr_status s = kp_error_at(p, dense_ptr, "elements hex data size is invalid for provided type: '%s'", ts);
    free(ts);
    return s;
  }
  p->bytes.len = 0;
  size_t size = packed ? count : n;
  kr_vec_reserve(&p->bytes, size ? size : 1, 1);
  unsigned char *d = p->bytes.data;
  for (size_t i = 0; i < n; i++) {
    unsigned char byte = (unsigned char)(hexdig(h[2 + 2 * i]) * 16 + hexdig(h[3 + 2 * i]));
    if (!packed) {
      d[i] = byte;
      continue;
    }
    for (size_t j = 0; j < 8 && i * 8 + j < count; j++) d[i * 8 + j] = (byte >> j) & 1;
  }
  *out = kr_attr_dense(p->ctx, t, d, size);
  if (!*out) return kp_error_at(p, dense_ptr, "invalid dense elements data");
  return KR_SUCCESS;
}

static bool dense_elem_type_ok(kr_type et) {
  return et->kind == KR_TYPE_INTEGER || et->kind == KR_TYPE_INDEX || et->kind == KR_TYPE_FLOAT;
}

static kr_status parse_dense(kr_asm_parser *p, kr_type hint, kr_attr *out) {
  const char *dense_ptr = p->tok.ptr;
  kp_next(p);
  if (kp_expect(p, KR_TOK_LESS, "expected '<' after 'dense'")) return KR_FAILURE;
  size_t dstart = p->dims.len, estart = p->dense.len;
  kr_token hex = {0};
  bool is_hex = false, is_list = false;
  if (!kp_consume(p, KR_TOK_GREATER)) {
    if (kp_is(p, KR_TOK_STRING)) {
      hex = p->tok;
      is_hex = true;
      kp_next(p);
    } else if (kp_is(p, KR_TOK_LSQUARE)) {
      is_list = true;
      if (dense_list(p)) return KR_FAILURE;
    } else if (dense_element(p)) {
      return KR_FAILURE;
    }
    if (kp_expect(p, KR_TOK_GREATER, "expected '>'")) return KR_FAILURE;
  }
  kr_type t = hint;
  if (!t && (kp_expect(p, KR_TOK_COLON, "expected ':'") || kp_parse_type(p, &t))) return KR_FAILURE;
  if (!kr_type_is_shaped(t)) return kp_error_at(p, dense_ptr, "elements literal must be a shaped type");
  if (!kr_type_has_static_shape(t)) return kp_error_at(p, dense_ptr, "elements literal type must have static shape");
  if (kr_type_num_elements(t) < 0)
    return kp_error_at(p, dense_ptr, "elements literal type has more elements than fit in 64 bits");
  kr_type et = t->u.shaped.elem;
  kr_status status = KR_FAILURE;
  if (!dense_elem_type_ok(et)) {
    char *ts = kp_type_str(et);
    kp_error_at(p, dense_ptr, "expected integer or floating point element type, got '%s'", ts);
    free(ts);
    goto out;
  }
  if (is_hex) {
    status = dense_from_hex(p, dense_ptr, &hex, t, out);
    goto out;
  }
  const int64_t *inferred = KR_VEC_DATA(&p->dims, int64_t) + dstart;
  size_t irank = p->dims.len - dstart;
  if (is_list && (irank != t->u.shaped.rank || memcmp(inferred, t->u.shaped.dims, irank * sizeof(int64_t)) != 0)) {
    kr_ostream os;
    kr_ostream_init_mem(&os);
    kr_ostream_puts(&os, "inferred shape of elements literal ([");
    shape_str(&os, inferred, irank);
    kr_ostream_puts(&os, "]) does not match type ([");
    shape_str(&os, t->u.shaped.dims, t->u.shaped.rank);
    kr_ostream_puts(&os, "])");
    kp_error_at(p, dense_ptr, "%s", kr_ostream_str(&os));
    kr_ostream_close(&os);
    goto out;
  }
  size_t nelems = p->dense.len - estart, count = (size_t)kr_type_num_elements(t);
  if (nelems == 0 && count) {
    char *ts = kp_type_str(t);
    kp_error_at(p, dense_ptr, "parsed zero elements, but type ('%s') expected at least 1", ts);
    free(ts);
    goto out;
  }
  size_t esz = kr_type_storage_bytes(et);
  p->bytes.len = 0;
  kr_vec_reserve(&p->bytes, nelems * esz + 1, 1);
  for (size_t i = 0; i < nelems; i++) {
    uint64_t bits;
    if (dense_elem_bits(p, &KR_VEC_AT(&p->dense, kp_dense_elem, estart + i), et, &bits)) goto out;
    put_le((unsigned char *)p->bytes.data + i * esz, bits, esz);
  }
  *out = kr_attr_dense(p->ctx, t, p->bytes.data, nelems * esz);
  if (!*out) {
    kp_error_at(p, dense_ptr, "invalid dense elements data");
    goto out;
  }
  status = KR_SUCCESS;
out:
  p->dims.len = dstart;
  p->dense.len = estart;
  return status;
}

/* `dense_resource<key> : tensor<...>`: key names a blob of this file's resource section, else
 * one already in the context. */
static kr_status parse_dense_resource(kr_asm_parser *p, kr_type hint, kr_attr *out) {
  kp_next(p);
  if (kp_expect(p, KR_TOK_LESS, "expected '<' after 'dense_resource'")) return KR_FAILURE;
  const char *key_ptr = p->tok.ptr;
  kr_ident key;
  if (kp_is(p, KR_TOK_STRING)) {
    const char *s;
    size_t n;
    kp_decode_string(p, &p->tok, &s, &n);
    key = kr_ident_get(p->ctx, s, n);
  } else if (kr_tok_is_keyword(p->tok.kind)) {
    key = kr_ident_get(p->ctx, p->tok.ptr, p->tok.len);
  } else {
    return kp_error(p, "expected identifier key for 'resource' entry");
  }
  kp_next(p);
  if (kp_expect(p, KR_TOK_GREATER, "expected '>'")) return KR_FAILURE;
  kr_type t = hint;
  const char *type_ptr = p->tok.ptr;
  if (!t && (kp_expect(p, KR_TOK_COLON, "expected ':'") || (type_ptr = p->tok.ptr, kp_parse_type(p, &t))))
    return KR_FAILURE;
  if (!kr_type_is_shaped(t)) return kp_error_at(p, type_ptr, "`dense_resource` expected a shaped type");
  kr_hmap_entry *e = kr_hmap_find(&p->resources, kr_hash_ptr(key), key);
  if (!e && !p->prescanned) {
    if (kp_prescan_sections(p)) return KR_FAILURE;
    e = kr_hmap_find(&p->resources, kr_hash_ptr(key), key);
  }
  const kr_resource *r = e ? e->value : kr_resource_lookup(p->ctx, key);
  if (!r) return kp_error_at(p, key_ptr, "unknown 'resource' key '%s' for dialect 'builtin'", key);
  *out = kr_attr_resource(p->ctx, t, r);
  return KR_SUCCESS;
}

/* `array<i64: 1, 2>` (MLIR's DenseArrayAttr). */
static kr_status parse_dense_array(kr_asm_parser *p, kr_attr *out) {
  kp_next(p);
  if (kp_expect(p, KR_TOK_LESS, "expected '<' after 'array'")) return KR_FAILURE;
  const char *type_ptr = p->tok.ptr;
  kr_type et;
  if (kp_parse_type(p, &et)) return KR_FAILURE;
  if (et->kind != KR_TYPE_INTEGER && et->kind != KR_TYPE_FLOAT) {
    char *ts = kp_type_str(et);
    kr_status s = kp_error_at(p, type_ptr, "expected integer or float type, got: '%s'", ts);
    free(ts);
    return s;
  }
  bool is_int = et->kind == KR_TYPE_INTEGER, is_i1 = kr_type_is_integer(et, 1);
  if (is_int && !is_i1 && et->u.integer.width % 8)
    return kp_error_at(p, type_ptr, "element type bitwidth must be a multiple of 8");
  size_t esz = kr_type_storage_bytes(et), start = p->bytes.len;
  unsigned n = 0;
  if (!kp_consume(p, KR_TOK_GREATER)) {
    if (kp_expect(p, KR_TOK_COLON, "expected ':' after dense array type")) return KR_FAILURE;
    do {
      bool neg = kp_consume(p, KR_TOK_MINUS);
      uint64_t bits;
      if (is_int) {
        if (kp_is(p, KR_TOK_KW_TRUE) || kp_is(p, KR_TOK_KW_FALSE)) {
          if (!is_i1) return kp_error(p, "expected i1 type for 'true' or 'false' values");
          bits = kp_is(p, KR_TOK_KW_TRUE);
        } else if (kp_is(p, KR_TOK_INTEGER)) {
          if (is_i1) return kp_error(p, "expected 'true' or 'false' values for i1 type");
          uint64_t mag;
          int64_t v;
          if ((neg && et->u.integer.sign == KR_UNSIGNED) || !kp_int_value(&p->tok, &mag) || !int_fits(mag, neg, et, &v))
            return kp_error(p, "integer constant out of range");
          bits = (uint64_t)v;
        } else {
          return kp_error(p, "expected integer literal");
        }
      } else if (kp_is(p, KR_TOK_FLOAT)) {
        double v;
        if (!parse_double(p, p->tok.ptr, p->tok.len, &v)) return kp_error(p, "floating point value too large");
        bits = kr_float_to_bits(et->u.fkind, neg ? -v : v);
      } else if (kp_is(p, KR_TOK_INTEGER)) {
        if (hex_float_bits(p, p->tok.ptr, p->tok.len, neg, et, &bits)) return KR_FAILURE;
      } else {
        return kp_error(p, "expected floating point literal");
      }
      kp_next(p);
      kr_vec_reserve(&p->bytes, p->bytes.len + esz, 1);
      put_le((unsigned char *)p->bytes.data + p->bytes.len, bits, esz);
      p->bytes.len += esz;
      n++;
    } while (kp_consume(p, KR_TOK_COMMA));
    if (kp_expect(p, KR_TOK_GREATER, "expected '>' to close an array attribute")) return KR_FAILURE;
  }
  *out = kr_attr_dense_array(p->ctx, et, (unsigned char *)p->bytes.data + start, n);
  p->bytes.len = start;
  if (!*out) return kp_error_at(p, type_ptr, "invalid dense array");
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Locations (LangRef "Builtin Location Attributes"). */

static kr_status location_alias(kr_asm_parser *p, bool may_defer, kr_attr *out);
static bool at_location_alias(const kr_asm_parser *p);
static kr_status nested_location(kr_asm_parser *p, kr_attr *out);

static kr_status parse_location(kr_asm_parser *p, kr_attr *out) {
  kr_context *ctx = p->ctx;
  if (kp_is(p, KR_TOK_STRING)) {
    const char *s;
    size_t n;
    kp_decode_string(p, &p->tok, &s, &n);
    kr_ident name = kr_ident_get(ctx, s, n);
    kp_next(p);
    if (kp_consume(p, KR_TOK_COLON)) {
      uint64_t line, col;
      if (!kp_is(p, KR_TOK_INTEGER) || !kp_int_value(&p->tok, &line) || line > UINT32_MAX)
        return kp_error_wrong(p, "expected integer line number in FileLineColLoc");
      kp_next(p);
      if (kp_expect(p, KR_TOK_COLON, "expected ':' in FileLineColLoc")) return KR_FAILURE;
      if (!kp_is(p, KR_TOK_INTEGER) || !kp_int_value(&p->tok, &col) || col > UINT32_MAX)
        return kp_error_wrong(p, "expected integer column number in FileLineColLoc");
      kp_next(p);
      *out = kr_loc_file(ctx, name, (unsigned)line, (unsigned)col);
      return KR_SUCCESS;
    }
    kr_attr child = NULL;
    if (kp_consume(p, KR_TOK_LPAREN)) {
      if (nested_location(p, &child) ||
          kp_expect(p, KR_TOK_RPAREN, "expected ')' after child location of NameLoc"))
        return KR_FAILURE;
    }
    *out = kr_loc_name(ctx, name, kr_ident_len(name), child);
    return KR_SUCCESS;
  }
  if (!kp_is(p, KR_TOK_BARE_ID)) return kp_error_wrong(p, "expected location instance");
  if (kp_tok_is(p, "callsite")) {
    kp_next(p);
    kr_attr callee, caller;
    if (kp_expect(p, KR_TOK_LPAREN, "expected '(' in callsite location") || nested_location(p, &callee))
      return KR_FAILURE;
    if (!kp_is(p, KR_TOK_BARE_ID) || !kp_tok_is(p, "at")) return kp_error_wrong(p, "expected 'at' in callsite location");
    kp_next(p);
    if (nested_location(p, &caller) || kp_expect(p, KR_TOK_RPAREN, "expected ')' in callsite location"))
      return KR_FAILURE;
    *out = kr_loc_callsite(ctx, callee, caller);
    return KR_SUCCESS;
  }
  if (kp_tok_is(p, "fused")) {
    kp_next(p);
    kr_attr meta = NULL;
    if (kp_consume(p, KR_TOK_LESS)) {
      if (kp_enter(p) || kp_parse_attr(p, NULL, &meta) ||
          kp_expect(p, KR_TOK_GREATER, "expected '>' after fused location metadata"))
        return KR_FAILURE;
      kp_leave(p);
    }
    if (kp_expect(p, KR_TOK_LSQUARE, "expected '[' in fused location")) return KR_FAILURE;
    size_t start = p->ptrs.len;
    if (!kp_consume(p, KR_TOK_RSQUARE)) {
      do {
        kr_attr l;
        if (nested_location(p, &l)) return KR_FAILURE;
        KR_VEC_PUSH(&p->ptrs, kr_attr, l);
      } while (kp_consume(p, KR_TOK_COMMA));
      if (kp_expect(p, KR_TOK_RSQUARE, "expected ']' in fused location")) return KR_FAILURE;
    }
    *out = kr_loc_fused(ctx, KR_VEC_DATA(&p->ptrs, kr_attr) + start, (unsigned)(p->ptrs.len - start), meta);
    p->ptrs.len = start;
    return KR_SUCCESS;
  }
  if (kp_tok_is(p, "unknown")) {
    kp_next(p);
    *out = kr_loc_unknown(ctx);
    return KR_SUCCESS;
  }
  return kp_error_wrong(p, "expected location instance");
}

/* The outermost location costs no nesting level (printing adds `loc(...)` to every op); the
 * locations inside it do. */
kr_status kp_parse_location_instance(kr_asm_parser *p, kr_attr *out) {
  if (at_location_alias(p)) return location_alias(p, false, out);
  return parse_location(p, out);
}

static kr_status nested_location(kr_asm_parser *p, kr_attr *out) {
  if (kp_enter(p) || kp_parse_location_instance(p, out)) return KR_FAILURE;
  kp_leave(p);
  return KR_SUCCESS;
}

/* A `#name` location alias (no dot: `#foo.bar` is a dialect attribute).  *out stays NULL when
 * `may_defer` and the alias is not defined yet. */
static kr_status location_alias(kr_asm_parser *p, bool may_defer, kr_attr *out) {
  *out = NULL;
  kr_hmap_entry *e = kr_hmap_find(&p->attr_aliases, kp_name_hash(p->tok.ptr + 1, p->tok.len - 1), p->tok.ptr + p->tok.len);
  if (!e) {
    if (!may_defer) return kp_error(p, "undefined symbol alias id '%.*s'", (int)p->tok.len - 1, p->tok.ptr + 1);
    kp_next(p);
    return KR_SUCCESS;
  }
  kr_attr loc = e->value;
  if (loc->kind != KR_ATTR_LOCATION) {
    char *s = kp_attr_str(loc);
    kr_status st = kp_error(p, "expected location, but found '%s'", s);
    free(s);
    return st;
  }
  *out = loc;
  kp_next(p);
  return KR_SUCCESS;
}

static bool at_location_alias(const kr_asm_parser *p) {
  return kp_is(p, KR_TOK_HASH_ID) && !memchr(p->tok.ptr, '.', p->tok.len);
}

kr_status kp_parse_optional_trailing_loc(kr_asm_parser *p, kr_attr *out, bool may_defer) {
  if (!kp_is(p, KR_TOK_KW_LOC)) return KR_SUCCESS;
  kp_next(p);
  if (kp_expect(p, KR_TOK_LPAREN, "expected '(' in location")) return KR_FAILURE;
  kr_attr loc;
  if (at_location_alias(p)) {
    kr_token alias = p->tok;
    if (location_alias(p, may_defer, &loc)) return KR_FAILURE;
    if (!loc) {
      kp_deferred_loc d = {out, alias.ptr, alias.len};
      kr_vec_push(&p->deferred_locs, &d, sizeof d);
      loc = kr_loc_unknown(p->ctx);
    }
  } else if (kp_parse_location_instance(p, &loc)) {
    return KR_FAILURE;
  }
  if (kp_expect(p, KR_TOK_RPAREN, "expected ')' in location")) return KR_FAILURE;
  *out = loc;
  return KR_SUCCESS;
}

kr_status kp_resolve_deferred_locs(kr_asm_parser *p) {
  for (size_t i = 0; i < p->deferred_locs.len; i++) {
    kp_deferred_loc *d = &KR_VEC_AT(&p->deferred_locs, kp_deferred_loc, i);
    kr_hmap_entry *e = kr_hmap_find(&p->attr_aliases, kp_name_hash(d->alias + 1, d->len - 1), d->alias + d->len);
    if (!e) return kp_error_at(p, d->alias, "operation location alias was never defined");
    kr_attr loc = e->value;
    if (loc->kind != KR_ATTR_LOCATION) {
      char *s = kp_attr_str(loc);
      kr_status st = kp_error_at(p, d->alias, "expected location, but found '%s'", s);
      free(s);
      return st;
    }
    *d->target = loc;
  }
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * attribute-value */

static kr_status parse_attr(kr_asm_parser *p, kr_type hint, kr_attr *out) {
  switch (p->tok.kind) {
  case KR_TOK_LSQUARE: return parse_array_attr(p, out);
  case KR_TOK_KW_FALSE:
  case KR_TOK_KW_TRUE:
    *out = kr_attr_bool(p->ctx, p->tok.kind == KR_TOK_KW_TRUE);
    kp_next(p);
    return KR_SUCCESS;
  case KR_TOK_KW_DENSE: return parse_dense(p, hint, out);
  case KR_TOK_KW_DENSE_RESOURCE: return parse_dense_resource(p, hint, out);
  case KR_TOK_KW_ARRAY: return parse_dense_array(p, out);
  case KR_TOK_LBRACE: return parse_dict_attr(p, out);
  case KR_TOK_HASH_ID: return kp_parse_extended(p, false, (const void **)out);
  case KR_TOK_FLOAT: return parse_float_attr(p, hint, false, out);
  case KR_TOK_INTEGER: return parse_int_attr(p, hint, false, out);
  case KR_TOK_MINUS:
    kp_next(p);
    if (kp_is(p, KR_TOK_INTEGER)) return parse_int_attr(p, hint, true, out);
    if (kp_is(p, KR_TOK_FLOAT)) return parse_float_attr(p, hint, true, out);
    return kp_error_wrong(p, "expected constant integer or floating point value");
  case KR_TOK_KW_LOC:
    kp_next(p);
    if (kp_expect(p, KR_TOK_LPAREN, "expected '(' in inline location") || kp_parse_location_instance(p, out) ||
        kp_expect(p, KR_TOK_RPAREN, "expected ')' in inline location"))
      return KR_FAILURE;
    return KR_SUCCESS;
  case KR_TOK_STRING: return parse_string_attr(p, hint, out);
  case KR_TOK_AT_ID: return parse_symbol_ref(p, out);
  case KR_TOK_KW_UNIT:
    *out = kr_attr_unit(p->ctx);
    kp_next(p);
    return KR_SUCCESS;
  default: {
    if (!kp_at_type(p)) return kp_error_wrong(p, "expected attribute value");
    kr_type t;
    if (kp_parse_type(p, &t)) return KR_FAILURE;
    *out = kr_attr_type(p->ctx, t);
    return KR_SUCCESS;
  }
  }
}

/* Nesting is counted where attributes recurse (arrays, dictionaries, dense lists, locations,
 * types, dialect hooks), once per level of the text. */
kr_status kp_parse_attr(kr_asm_parser *p, kr_type hint, kr_attr *out) { return parse_attr(p, hint, out); }
