/* ir/print_attrs.c - printing types and attributes in MLIR's spelling (AsmPrinter.cpp's
 * printType / printAttribute), byte for byte where the construct exists in MLIR:
 *   i32 si8 ui8 index f16 bf16 f32 f64 none tensor<1x?xf32> tensor<*xf32> vector<4xf32>
 *   (i32) -> i1  tuple<i32>  !dialect.body  #dialect.body
 *   42 : i32 (`: i64` dropped only inside arrays), true, 1.000000e+00 : f32, "s\0A" (escapes as
 *   \XX), [..], {a = 1 : i64, unit_attr}, @sym::@nested, dense<[[1, 2]]> : tensor<1x2xi32>,
 *   dense<1.0> splats, dense<"0xHEX"> above the hex threshold (i1 bit-packed as MLIR), dense<>,
 *   array<i64: 1, 2>, dense_resource<key> : tensor<..>, loc(...). */
#include <stdlib.h>
#include <string.h>

#include "ir/printer_impl.h"

/* ---------------------------------------------------------------------------------------------
 * Small lexical helpers. */

void kr_print_u64(kr_ostream *os, uint64_t v) {
  char tmp[24];
  char *p = tmp + sizeof tmp;
  do {
    *--p = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  kr_ostream_write(os, p, (size_t)(tmp + sizeof tmp - p));
}

static void print_i64(kr_ostream *os, int64_t v) {
  if (v < 0) {
    kr_ostream_putc(os, '-');
    kr_print_u64(os, 0ULL - (uint64_t)v);
  } else {
    kr_print_u64(os, (uint64_t)v);
  }
}

static const char hex_upper[] = "0123456789ABCDEF";

void kr_print_escaped(kr_ostream *os, const char *s, size_t n) {
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c <= 0x7E && c != '"' && c != '\\') continue;
    kr_ostream_write(os, s + start, i - start);
    char esc[3] = {'\\', '\\', 0};
    if (c == '\\') {
      kr_ostream_write(os, esc, 2);
    } else {
      esc[1] = hex_upper[c >> 4];
      esc[2] = hex_upper[c & 15];
      kr_ostream_write(os, esc, 3);
    }
    start = i + 1;
  }
  kr_ostream_write(os, s + start, n - start);
}

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool kr_is_bare_identifier(const char *s, size_t n) {
  if (!n || !(is_alpha(s[0]) || s[0] == '_')) return false;
  for (size_t i = 1; i < n; i++)
    if (!(is_alpha(s[i]) || is_digit(s[i]) || s[i] == '_' || s[i] == '$' || s[i] == '.')) return false;
  return true;
}

static void print_quoted(kr_ostream *os, const char *s, size_t n) {
  kr_ostream_putc(os, '"');
  kr_print_escaped(os, s, n);
  kr_ostream_putc(os, '"');
}

void kr_print_keyword_or_string(kr_ostream *os, const char *s, size_t n) {
  if (kr_is_bare_identifier(s, n)) kr_ostream_write(os, s, n);
  else print_quoted(os, s, n);
}

static void print_ident_kw(kr_ostream *os, kr_ident id) { kr_print_keyword_or_string(os, id, kr_ident_len(id)); }

/* ---------------------------------------------------------------------------------------------
 * Types. */

static void print_type(kr_asm_printer *p, kr_type t);

static void print_type_list(kr_asm_printer *p, const kr_type *ts, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    if (i) kr_ostream_write(p->os, ", ", 2);
    print_type(p, ts[i]);
  }
}

/* MLIR's printArrowTypeList after ` -> `: one non-function type bare, else parenthesised. */
static void print_result_types(kr_asm_printer *p, const kr_type *ts, unsigned n) {
  bool wrap = n != 1 || ts[0]->kind == KR_TYPE_FUNCTION;
  if (wrap) kr_ostream_putc(p->os, '(');
  print_type_list(p, ts, n);
  if (wrap) kr_ostream_putc(p->os, ')');
}

static void print_dims(kr_ostream *os, const int64_t *dims, unsigned rank) {
  for (unsigned i = 0; i < rank; i++) {
    if (dims[i] == KR_DYNAMIC) kr_ostream_putc(os, '?');
    else print_i64(os, dims[i]);
    kr_ostream_putc(os, 'x');
  }
}

/* `!dialect.body`; a body that starts with '<' was written `!dialect<...>`. */
static void print_opaque(kr_ostream *os, char sigil, kr_ident dialect, kr_ident body) {
  kr_ostream_putc(os, sigil);
  kr_ostream_write(os, dialect, kr_ident_len(dialect));
  size_t n = kr_ident_len(body);
  if (n && body[0] != '<') kr_ostream_putc(os, '.');
  kr_ostream_write(os, body, n);
}

/* Dialect types and attributes of a dialect without a print hook: `mnemonic<p1, p2>`. */
static void print_mnemonic_params(kr_asm_printer *p, kr_ident mnemonic, const kr_attr *params, unsigned n) {
  kr_ostream_puts(p->os, mnemonic);
  if (!n) return;
  kr_ostream_putc(p->os, '<');
  for (unsigned i = 0; i < n; i++) {
    if (i) kr_ostream_write(p->os, ", ", 2);
    kr_printer_print_attr_elide(p, params[i], false);
  }
  kr_ostream_putc(p->os, '>');
}

static void print_type(kr_asm_printer *p, kr_type t) {
  kr_ostream *os = p->os;
  if (!t) {
    kr_ostream_puts(os, "<<NULL TYPE>>");
    return;
  }
  switch (t->kind) {
  case KR_TYPE_INTEGER:
    if (t->u.integer.sign == KR_SIGNED) kr_ostream_write(os, "si", 2);
    else if (t->u.integer.sign == KR_UNSIGNED) kr_ostream_write(os, "ui", 2);
    else kr_ostream_putc(os, 'i');
    kr_print_u64(os, t->u.integer.width);
    return;
  case KR_TYPE_INDEX: kr_ostream_write(os, "index", 5); return;
  case KR_TYPE_FLOAT:
    switch (t->u.fkind) {
    case KR_F16: kr_ostream_write(os, "f16", 3); return;
    case KR_BF16: kr_ostream_write(os, "bf16", 4); return;
    case KR_F32: kr_ostream_write(os, "f32", 3); return;
    case KR_F64: kr_ostream_write(os, "f64", 3); return;
    }
    return;
  case KR_TYPE_NONE: kr_ostream_write(os, "none", 4); return;
  case KR_TYPE_TENSOR:
  case KR_TYPE_VECTOR:
    kr_ostream_puts(os, t->kind == KR_TYPE_TENSOR ? "tensor<" : "vector<");
    if (t->u.shaped.unranked) kr_ostream_write(os, "*x", 2);
    else print_dims(os, t->u.shaped.dims, t->u.shaped.rank);
    print_type(p, t->u.shaped.elem);
    kr_ostream_putc(os, '>');
    return;
  case KR_TYPE_FUNCTION:
    kr_ostream_putc(os, '(');
    print_type_list(p, t->u.func.inputs, t->u.func.num_inputs);
    kr_ostream_write(os, ") -> ", 5);
    print_result_types(p, t->u.func.results, t->u.func.num_results);
    return;
  case KR_TYPE_TUPLE:
    kr_ostream_write(os, "tuple<", 6);
    print_type_list(p, t->u.tuple.elems, t->u.tuple.num);
    kr_ostream_putc(os, '>');
    return;
  case KR_TYPE_DIALECT: {
    const kr_dialect *d = t->u.dialect.dialect;
    kr_ostream_putc(os, '!');
    kr_ostream_puts(os, d->name);
    kr_ostream_putc(os, '.');
    if (d->def && d->def->print_type) d->def->print_type(p, t);
    else print_mnemonic_params(p, t->u.dialect.mnemonic, t->u.dialect.params, t->u.dialect.num_params);
    return;
  }
  case KR_TYPE_OPAQUE: print_opaque(os, '!', t->u.opaque.dialect, t->u.opaque.body); return;
  }
}

/* ---------------------------------------------------------------------------------------------
 * Dense elements. */

/* Element `i` of little-endian storage of `esz` bytes as an unsigned 64-bit pattern. */
static uint64_t load_le(const unsigned char *data, size_t esz, size_t i) {
  const unsigned char *b = data + i * esz;
  uint64_t v = 0;
  for (size_t k = esz; k-- > 0;) v = (v << 8) | b[k];
  return v;
}

/* The low bits of `raw` as an integer of type `t` (integer or index): unsigned types print
 * unsigned, the others sign-extended from their width (APInt::print). */
static void print_int_value(kr_ostream *os, kr_type t, uint64_t raw) {
  unsigned width = t->kind == KR_TYPE_INDEX ? 64 : t->u.integer.width;
  if (width < 64) raw &= ((uint64_t)1 << width) - 1;
  if (t->kind == KR_TYPE_INTEGER && t->u.integer.sign == KR_UNSIGNED) {
    kr_print_u64(os, raw);
    return;
  }
  if (width < 64 && (raw >> (width - 1)) & 1) raw |= ~(((uint64_t)1 << width) - 1);
  print_i64(os, (int64_t)raw);
}

/* One element as MLIR's printDenseIntElement / printFloatValue print it. */
static void print_dense_elem(kr_ostream *os, kr_type et, const unsigned char *data, size_t esz, size_t i) {
  uint64_t raw = load_le(data, esz, i);
  if (et->kind == KR_TYPE_FLOAT) {
    kr_print_float_bits(os, et->u.fkind, raw, NULL);
    return;
  }
  if (et->kind == KR_TYPE_INTEGER && et->u.integer.width == 1) {   /* any signedness: isInteger(1) */
    kr_ostream_puts(os, raw & 1 ? "true" : "false");
    return;
  }
  print_int_value(os, et, raw);
}

/* MLIR's printDenseElementsAttrImpl: nested brackets following the shape via a mixed-radix
 * counter; a splat (or a 0-d tensor) prints its one element; no elements print nothing. */
static void print_dense_elements(kr_ostream *os, kr_type shaped, const unsigned char *data, bool splat) {
  kr_type et = shaped->u.shaped.elem;
  size_t esz = kr_type_storage_bytes(et);
  if (splat) {
    print_dense_elem(os, et, data, esz, 0);
    return;
  }
  int64_t total = kr_type_num_elements(shaped);
  if (total <= 0) return;
  unsigned rank = shaped->u.shaped.rank;
  const int64_t *shape = shaped->u.shaped.dims;
  enum { MAX_RANK_FAST = 16 };
  int64_t counter_fast[MAX_RANK_FAST];
  int64_t *counter = rank <= MAX_RANK_FAST ? counter_fast : malloc(rank * sizeof *counter);
  if (!counter) return;
  memset(counter, 0, (rank ? rank : 1) * sizeof *counter);
  unsigned open = 0;
  for (int64_t idx = 0; idx < total; idx++) {
    if (idx) kr_ostream_write(os, ", ", 2);
    while (open < rank) {
      kr_ostream_putc(os, '[');
      open++;
    }
    print_dense_elem(os, et, data, esz, (size_t)idx);
    if (!rank) continue;
    ++counter[rank - 1];
    for (unsigned i = rank - 1; i > 0; i--) {
      if (counter[i] >= shape[i]) {
        counter[i] = 0;
        ++counter[i - 1];
        --open;
        kr_ostream_putc(os, ']');
      }
    }
  }
  while (open-- > 0) kr_ostream_putc(os, ']');
  if (counter != counter_fast) free(counter);
}

/* Writes "0x" and the bytes in uppercase hex, a chunk at a time (weights can be 100s of MB). */
static void print_hex_bytes(kr_ostream *os, const unsigned char *data, size_t n) {
  char buf[4096];
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (k + 2 > sizeof buf) {
      kr_ostream_write(os, buf, k);
      k = 0;
    }
    buf[k++] = hex_upper[data[i] >> 4];
    buf[k++] = hex_upper[data[i] & 15];
  }
  kr_ostream_write(os, buf, k);
}

/* `"0x..."` of the raw little-endian data; i1 elements are bit-packed, least significant bit
 * first, as MLIR stores them. */
static void print_dense_hex(kr_ostream *os, kr_type et, const unsigned char *data, size_t size) {
  kr_ostream_write(os, "\"0x", 3);
  if (kr_type_bitwidth(et) == 1 && et->kind == KR_TYPE_INTEGER) {
    size_t nbytes = (size + 7) / 8;
    for (size_t b = 0; b < nbytes; b++) {
      unsigned char byte = 0;
      for (size_t j = 0; j < 8 && b * 8 + j < size; j++) byte |= (unsigned char)((data[b * 8 + j] & 1) << j);
      print_hex_bytes(os, &byte, 1);
    }
  } else {
    print_hex_bytes(os, data, size);
  }
  kr_ostream_putc(os, '"');
}

/* ---------------------------------------------------------------------------------------------
 * Attributes. */

static void note_resource(kr_asm_printer *p, const kr_resource *r) {
  if (!p->collect_resources || !r) return;
  bool inserted;
  kr_hmap_entry *e = kr_hmap_insert(&p->resource_set, kr_hash_ptr(r), r, &inserted);
  if (!inserted) return;
  e->value = (void *)r;
  KR_VEC_PUSH(&p->resources, const kr_resource *, r);
}

static void print_symref(kr_ostream *os, kr_attr a) {
  kr_ostream_putc(os, '@');
  print_ident_kw(os, a->u.symref.root);
  for (unsigned i = 0; i < a->u.symref.num_nested; i++) {
    kr_ostream_write(os, "::@", 3);
    print_ident_kw(os, a->u.symref.nested[i]);
  }
}

void kr_printer_print_named_attr(kr_asm_printer *p, kr_ident name, kr_attr value) {
  print_ident_kw(p->os, name);
  if (value && value->kind == KR_ATTR_UNIT) return;
  kr_ostream_write(p->os, " = ", 3);
  kr_printer_print_attr_elide(p, value, false);
}

static void print_dense_array(kr_asm_printer *p, kr_attr a) {
  kr_ostream *os = p->os;
  kr_type et = a->type;
  kr_ostream_write(os, "array<", 6);
  print_type(p, et);
  size_t esz = kr_type_storage_bytes(et);
  for (unsigned i = 0; i < a->u.dense_array.num; i++) {
    kr_ostream_write(os, i ? ", " : ": ", 2);
    print_dense_elem(os, et, a->u.dense_array.data, esz, i);
  }
  kr_ostream_putc(os, '>');
}

void kr_printer_print_attr_elide(kr_asm_printer *p, kr_attr a, bool may_elide_type) {
  kr_ostream *os = p->os;
  if (!a) {
    kr_ostream_puts(os, "<<NULL ATTRIBUTE>>");
    return;
  }
  switch (a->kind) {
  case KR_ATTR_UNIT: kr_ostream_write(os, "unit", 4); return;
  case KR_ATTR_BOOL: kr_ostream_puts(os, a->u.b ? "true" : "false"); return;
  case KR_ATTR_INTEGER: {
    kr_type t = a->type;
    if (t->kind == KR_TYPE_INTEGER && t->u.integer.width == 1 && t->u.integer.sign == KR_SIGNLESS) {
      kr_ostream_puts(os, a->u.i ? "true" : "false");   /* MLIR elides the type of i1 */
      return;
    }
    print_int_value(os, t, (uint64_t)a->u.i);
    if (may_elide_type && kr_type_is_integer(t, 64)) return;
    break;
  }
  case KR_ATTR_FLOAT: {
    bool hex;
    kr_print_float_bits(os, a->type->u.fkind, kr_float_to_bits(a->type->u.fkind, a->u.f), &hex);
    if (may_elide_type && a->type->u.fkind == KR_F64 && !hex) return;
    break;
  }
  case KR_ATTR_STRING:
    print_quoted(os, a->u.string.str, kr_ident_len(a->u.string.str));
    break;
  case KR_ATTR_TYPE: print_type(p, a->type); return;
  case KR_ATTR_ARRAY:
    kr_ostream_putc(os, '[');
    for (unsigned i = 0; i < a->u.array.num; i++) {
      if (i) kr_ostream_write(os, ", ", 2);
      kr_printer_print_attr_elide(p, a->u.array.elems[i], true);
    }
    kr_ostream_putc(os, ']');
    return;
  case KR_ATTR_DICT:
    kr_ostream_putc(os, '{');
    for (unsigned i = 0; i < a->u.dict.num; i++) {
      if (i) kr_ostream_write(os, ", ", 2);
      kr_printer_print_named_attr(p, a->u.dict.entries[i].name, a->u.dict.entries[i].value);
    }
    kr_ostream_putc(os, '}');
    return;
  case KR_ATTR_SYMBOL_REF: print_symref(os, a); return;
  case KR_ATTR_DENSE: {
    kr_type et = a->type->u.shaped.elem;
    kr_ostream_write(os, "dense<", 6);
    if (!a->u.dense.splat && a->u.dense.size > p->flags.hex_threshold)
      print_dense_hex(os, et, a->u.dense.data, a->u.dense.size);
    else
      print_dense_elements(os, a->type, a->u.dense.data, a->u.dense.splat);
    kr_ostream_putc(os, '>');
    break;
  }
  case KR_ATTR_DENSE_ARRAY: print_dense_array(p, a); return;
  case KR_ATTR_RESOURCE:
    kr_ostream_write(os, "dense_resource<", 15);
    if (a->u.resource) print_ident_kw(os, a->u.resource->key);
    kr_ostream_putc(os, '>');
    note_resource(p, a->u.resource);
    break;
  case KR_ATTR_DIALECT: {
    const kr_dialect *d = a->u.dialect.dialect;
    kr_ostream_putc(os, '#');
    kr_ostream_puts(os, d->name);
    kr_ostream_putc(os, '.');
    if (d->def && d->def->print_attr) d->def->print_attr(p, a);
    else print_mnemonic_params(p, a->u.dialect.mnemonic, a->u.dialect.params, a->u.dialect.num_params);
    return;
  }
  case KR_ATTR_OPAQUE: print_opaque(os, '#', a->u.opaque.dialect, a->u.opaque.body); return;
  case KR_ATTR_LOCATION:
    kr_ostream_write(os, "loc(", 4);
    kr_loc_print(os, a);
    kr_ostream_putc(os, ')');
    return;
  }
  /* Typed attributes end with ` : type` (strings only when they carry one). */
  if (a->type && a->type->kind != KR_TYPE_NONE) {
    kr_ostream_write(os, " : ", 3);
    print_type(p, a->type);
  }
}

/* ---------------------------------------------------------------------------------------------
 * Public entry points for lone types and attributes, and the printer-side wrappers. */

void kr_type_print(kr_ostream *os, kr_type t) {
  kr_asm_printer p;
  kr_asm_printer_init(&p, os, NULL);
  print_type(&p, t);
  kr_asm_printer_free(&p);
}

void kr_attr_print(kr_ostream *os, kr_attr a) {
  kr_asm_printer p;
  kr_asm_printer_init(&p, os, NULL);
  kr_printer_print_attr_elide(&p, a, false);
  kr_asm_printer_free(&p);
}

void kr_printer_print_type(kr_asm_printer *p, kr_type t) { print_type(p, t); }

void kr_printer_print_attr(kr_asm_printer *p, kr_attr a) { kr_printer_print_attr_elide(p, a, false); }

void kr_printer_print_type_list(kr_asm_printer *p, const kr_type *types, unsigned n, bool paren_if_not_one) {
  if (paren_if_not_one) print_result_types(p, types, n);
  else print_type_list(p, types, n);
}

void kr_printer_print_symbol_name(kr_asm_printer *p, kr_ident name) {
  kr_ostream_putc(p->os, '@');
  print_ident_kw(p->os, name);
}

/* ---------------------------------------------------------------------------------------------
 * Text for messages (korch/asm.h). */

/* Moves the in-memory stream's buffer out to a plain malloc'd string. */
static char *take_string(kr_ostream *os) {
  const char *s = kr_ostream_str(os);
  size_t n = strlen(s);
  char *out = malloc(n + 1);
  if (out) memcpy(out, s, n + 1);
  kr_ostream_close(os);
  if (!out) abort(); /* same policy as the arena's out-of-memory hook */
  return out;
}

char *kr_type_to_cstr(kr_type t) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  if (t)
    kr_type_print(&os, t);
  else
    kr_ostream_puts(&os, "<<NULL TYPE>>");
  return take_string(&os);
}

char *kr_attr_to_cstr(kr_attr a) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  if (a)
    kr_attr_print(&os, a);
  else
    kr_ostream_puts(&os, "<<NULL ATTRIBUTE>>");
  return take_string(&os);
}
