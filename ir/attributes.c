/* ir/attributes.c - builtin attributes, uniqued per context (LangRef "Builtin Attributes").
 *
 * Every constructor fills a candidate on the stack and calls kr_attr_unique, which hashes it,
 * looks it up and copies arrays into the arena only on a miss.  Equality is structural, with
 * nested attributes/types/identifiers compared by pointer (they are unique already).
 *
 * Value normalisation (so that equal values unique to the same pointer):
 * - integers are truncated to the type's width, then sign-extended (signless, signed) or
 *   zero-extended (unsigned); `index` keeps all 64 bits; width 1 stores 0 or 1 whatever the
 *   signedness (MLIR prints i1 values as true/false, never as -1);
 * - floats are rounded to the type and uniqued by the bit pattern of the rounded double, so
 *   -0.0 and 0.0 are different attributes and NaN payloads are kept;
 * - dense i1 elements are stored as bytes 0/1; a dense buffer whose elements are all equal
 *   is stored as a splat. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"

static uint64_t hash_ptrs(uint64_t h, const void *const *p, unsigned n) {
  h = kr_hash_combine(h, n);
  for (unsigned i = 0; i < n; i++) h = kr_hash_combine(h, kr_hash_ptr(p[i]));
  return h;
}

static uint64_t double_bits(double d) {
  uint64_t b;
  memcpy(&b, &d, 8);
  return b;
}

static uint64_t attr_hash(const struct kr_attr_storage *a) {
  uint64_t h = kr_hash_combine(0x6174747200000000ULL, (uint64_t)a->kind);
  h = kr_hash_combine(h, kr_hash_ptr(a->type));
  switch (a->kind) {
  case KR_ATTR_UNIT:
  case KR_ATTR_TYPE: break;
  case KR_ATTR_BOOL: h = kr_hash_combine(h, a->u.b); break;
  case KR_ATTR_INTEGER: h = kr_hash_combine(h, (uint64_t)a->u.i); break;
  case KR_ATTR_FLOAT: h = kr_hash_combine(h, double_bits(a->u.f)); break;
  case KR_ATTR_STRING: h = kr_hash_combine(h, kr_hash_ptr(a->u.string.str)); break;
  case KR_ATTR_ARRAY: h = hash_ptrs(h, (const void *const *)a->u.array.elems, a->u.array.num); break;
  case KR_ATTR_DICT:
    h = kr_hash_combine(h, a->u.dict.num);
    for (unsigned i = 0; i < a->u.dict.num; i++) {
      h = kr_hash_combine(h, kr_hash_ptr(a->u.dict.entries[i].name));
      h = kr_hash_combine(h, kr_hash_ptr(a->u.dict.entries[i].value));
    }
    break;
  case KR_ATTR_SYMBOL_REF:
    h = kr_hash_combine(h, kr_hash_ptr(a->u.symref.root));
    h = hash_ptrs(h, (const void *const *)a->u.symref.nested, a->u.symref.num_nested);
    break;
  case KR_ATTR_DENSE:
    h = kr_hash_combine(h, a->u.dense.splat);
    h = kr_hash_combine(h, kr_hash_bytes(a->u.dense.data, a->u.dense.size));
    break;
  case KR_ATTR_DENSE_ARRAY:
    h = kr_hash_combine(h, a->u.dense_array.num);
    h = kr_hash_combine(h, kr_hash_bytes(a->u.dense_array.data, a->u.dense_array.size));
    break;
  case KR_ATTR_RESOURCE: h = kr_hash_combine(h, kr_hash_ptr(a->u.resource)); break;
  case KR_ATTR_DIALECT:
    h = kr_hash_combine(h, kr_hash_ptr(a->u.dialect.dialect));
    h = kr_hash_combine(h, kr_hash_ptr(a->u.dialect.mnemonic));
    h = hash_ptrs(h, (const void *const *)a->u.dialect.params, a->u.dialect.num_params);
    break;
  case KR_ATTR_OPAQUE:
    h = kr_hash_combine(h, kr_hash_ptr(a->u.opaque.dialect));
    h = kr_hash_combine(h, kr_hash_ptr(a->u.opaque.body));
    break;
  case KR_ATTR_LOCATION:
    h = kr_hash_combine(h, (uint64_t)a->u.loc.kind);
    h = kr_hash_combine(h, kr_hash_ptr(a->u.loc.name));
    h = kr_hash_combine(h, ((uint64_t)a->u.loc.line << 32) | a->u.loc.col);
    h = kr_hash_combine(h, kr_hash_ptr(a->u.loc.child));
    h = kr_hash_combine(h, kr_hash_ptr(a->u.loc.caller));
    h = kr_hash_combine(h, kr_hash_ptr(a->u.loc.metadata));
    h = hash_ptrs(h, (const void *const *)a->u.loc.locs, a->u.loc.num);
    break;
  }
  return h;
}

static bool same_bytes(const void *a, const void *b, size_t n) { return n == 0 || a == b || memcmp(a, b, n) == 0; }

bool kr_attr_storage_eq(const void *pa, const void *pb) {
  const struct kr_attr_storage *a = pa, *b = pb;
  if (a->kind != b->kind || a->type != b->type) return false;
  switch (a->kind) {
  case KR_ATTR_UNIT:
  case KR_ATTR_TYPE: return true;
  case KR_ATTR_BOOL: return a->u.b == b->u.b;
  case KR_ATTR_INTEGER: return a->u.i == b->u.i;
  case KR_ATTR_FLOAT: return double_bits(a->u.f) == double_bits(b->u.f);
  case KR_ATTR_STRING: return a->u.string.str == b->u.string.str;
  case KR_ATTR_ARRAY:
    return a->u.array.num == b->u.array.num &&
           same_bytes(a->u.array.elems, b->u.array.elems, a->u.array.num * sizeof(kr_attr));
  case KR_ATTR_DICT:
    return a->u.dict.num == b->u.dict.num &&
           same_bytes(a->u.dict.entries, b->u.dict.entries, a->u.dict.num * sizeof(kr_named_attr));
  case KR_ATTR_SYMBOL_REF:
    return a->u.symref.root == b->u.symref.root && a->u.symref.num_nested == b->u.symref.num_nested &&
           same_bytes(a->u.symref.nested, b->u.symref.nested, a->u.symref.num_nested * sizeof(kr_ident));
  case KR_ATTR_DENSE:
    return a->u.dense.splat == b->u.dense.splat && a->u.dense.size == b->u.dense.size &&
           same_bytes(a->u.dense.data, b->u.dense.data, a->u.dense.size);
  case KR_ATTR_DENSE_ARRAY:
    return a->u.dense_array.num == b->u.dense_array.num && a->u.dense_array.size == b->u.dense_array.size &&
           same_bytes(a->u.dense_array.data, b->u.dense_array.data, a->u.dense_array.size);
  case KR_ATTR_RESOURCE: return a->u.resource == b->u.resource;
  case KR_ATTR_DIALECT:
    return a->u.dialect.dialect == b->u.dialect.dialect && a->u.dialect.mnemonic == b->u.dialect.mnemonic &&
           a->u.dialect.num_params == b->u.dialect.num_params &&
           same_bytes(a->u.dialect.params, b->u.dialect.params, a->u.dialect.num_params * sizeof(kr_attr));
  case KR_ATTR_OPAQUE: return a->u.opaque.dialect == b->u.opaque.dialect && a->u.opaque.body == b->u.opaque.body;
  case KR_ATTR_LOCATION:
    if (a->u.loc.kind != b->u.loc.kind || a->u.loc.name != b->u.loc.name || a->u.loc.line != b->u.loc.line ||
        a->u.loc.col != b->u.loc.col)
      return false;
    /* A stored file location ends at `col` (see storage_size). */
    if (a->u.loc.kind == KR_LOC_FILE) return true;
    return a->u.loc.child == b->u.loc.child && a->u.loc.caller == b->u.loc.caller &&
           a->u.loc.metadata == b->u.loc.metadata && a->u.loc.num == b->u.loc.num &&
           same_bytes(a->u.loc.locs, b->u.loc.locs, a->u.loc.num * sizeof(kr_attr));
  }
  return false;
}

static const void *dup(kr_context *ctx, const void *p, size_t n, size_t align) {
  return n ? kr_arena_dup(&ctx->arena, p, n, align) : NULL;
}

/* Bytes an attribute of this kind occupies: the header plus its own union member, not the whole
 * union.  Every op has a file location, so this halves the memory locations cost (40 bytes
 * instead of 80); readers only touch the member of the kind they switch on. */
static size_t storage_size(const struct kr_attr_storage *a) {
  size_t head = offsetof(struct kr_attr_storage, u), body;
  switch (a->kind) {
  case KR_ATTR_UNIT:
  case KR_ATTR_TYPE: body = 0; break;
  case KR_ATTR_BOOL: body = sizeof a->u.b; break;
  case KR_ATTR_INTEGER: body = sizeof a->u.i; break;
  case KR_ATTR_FLOAT: body = sizeof a->u.f; break;
  case KR_ATTR_STRING: body = sizeof a->u.string; break;
  case KR_ATTR_ARRAY: body = sizeof a->u.array; break;
  case KR_ATTR_DICT: body = sizeof a->u.dict; break;
  case KR_ATTR_SYMBOL_REF: body = sizeof a->u.symref; break;
  case KR_ATTR_DENSE: body = sizeof a->u.dense; break;
  case KR_ATTR_DENSE_ARRAY: body = sizeof a->u.dense_array; break;
  case KR_ATTR_RESOURCE: body = sizeof a->u.resource; break;
  case KR_ATTR_DIALECT: body = sizeof a->u.dialect; break;
  case KR_ATTR_OPAQUE: body = sizeof a->u.opaque; break;
  case KR_ATTR_LOCATION:
    if (a->u.loc.kind == KR_LOC_FILE)
      return offsetof(struct kr_attr_storage, u.loc.child);
    body = sizeof a->u.loc;
    break;
  default: body = sizeof a->u; break;
  }
  return head + body;
}

kr_attr kr_attr_unique(kr_context *ctx, const struct kr_attr_storage *cand) {
  uint64_t h = attr_hash(cand);
  kr_hmap_entry *e = kr_hmap_find(&ctx->attrs, h, cand);
  if (e) return e->key;
  struct kr_attr_storage *a = kr_arena_dup(&ctx->arena, cand, storage_size(cand), _Alignof(struct kr_attr_storage));
  a->hash = (uint32_t)h;
  switch (a->kind) {
  case KR_ATTR_ARRAY: a->u.array.elems = dup(ctx, cand->u.array.elems, cand->u.array.num * sizeof(kr_attr), 8); break;
  case KR_ATTR_DICT:
    a->u.dict.entries = dup(ctx, cand->u.dict.entries, cand->u.dict.num * sizeof(kr_named_attr), 8);
    break;
  case KR_ATTR_SYMBOL_REF:
    a->u.symref.nested = dup(ctx, cand->u.symref.nested, cand->u.symref.num_nested * sizeof(kr_ident), 8);
    break;
  case KR_ATTR_DENSE:
    /* 16-byte alignment lets consumers read any element type in place. */
    a->u.dense.data = dup(ctx, cand->u.dense.data, cand->u.dense.size, 16);
    break;
  case KR_ATTR_DENSE_ARRAY:
    a->u.dense_array.data = dup(ctx, cand->u.dense_array.data, cand->u.dense_array.size, 16);
    break;
  case KR_ATTR_DIALECT:
    a->u.dialect.params = dup(ctx, cand->u.dialect.params, cand->u.dialect.num_params * sizeof(kr_attr), 8);
    break;
  case KR_ATTR_LOCATION:
    /* A stored file location has no `locs` field (storage_size). */
    if (a->u.loc.kind != KR_LOC_FILE) a->u.loc.locs = dup(ctx, cand->u.loc.locs, cand->u.loc.num * sizeof(kr_attr), 8);
    break;
  default: break;
  }
  kr_hmap_insert(&ctx->attrs, h, a, NULL);
  return a;
}

static void cand_init(struct kr_attr_storage *c, kr_attr_kind kind, kr_type type) {
  memset(c, 0, sizeof *c);
  c->kind = kind;
  c->type = type;
}

kr_attr kr_attr_unit(kr_context *ctx) { return ctx->unit; }
kr_attr kr_attr_bool(kr_context *ctx, bool v) { return v ? ctx->bool_true : ctx->bool_false; }

/* Truncation to the type's width and re-extension (see the file comment). */
static int64_t normalize_int(kr_type type, int64_t v) {
  if (type->kind != KR_TYPE_INTEGER) return v;
  unsigned w = type->u.integer.width;
  if (w == 0 || w >= 64) return v;
  uint64_t mask = (1ULL << w) - 1;
  uint64_t u = (uint64_t)v & mask;
  if (w == 1 || type->u.integer.sign == KR_UNSIGNED) return (int64_t)u;
  if (u & (1ULL << (w - 1))) u |= ~mask;
  return (int64_t)u;
}

kr_attr kr_attr_integer(kr_context *ctx, kr_type type, int64_t v) {
  if (!type || (type->kind != KR_TYPE_INTEGER && type->kind != KR_TYPE_INDEX)) return NULL;
  struct kr_attr_storage c;
  cand_init(&c, KR_ATTR_INTEGER, type);
  c.u.i = normalize_int(type, v);
  return kr_attr_unique(ctx, &c);
}

/* Rounds `v` to the float type `t` and back to double (exact, NaN sign and payload kept). */
static double round_to_type(kr_type t, double v) {
  if (t->u.fkind == KR_F64) return v;
  return kr_float_from_bits(t->u.fkind, kr_float_to_bits(t->u.fkind, v));
}

kr_attr kr_attr_float(kr_context *ctx, kr_type type, double v) {
  if (!kr_type_is_float(type)) return NULL;
  struct kr_attr_storage c;
  cand_init(&c, KR_ATTR_FLOAT, type);
  c.u.f = round_to_type(type, v);
  return kr_attr_unique(ctx, &c);
}

kr_attr kr_attr_string(kr_context *ctx, const char *s, size_t len) { return kr_attr_string_typed(ctx, s, len, NULL); }

kr_attr kr_attr_string_typed(kr_context *ctx, const char *s, size_t len, kr_type type) {
  struct kr_attr_storage c;
  cand_init(&c, KR_ATTR_STRING, type);
  c.u.string.str = kr_ident_get(ctx, s, len);
  return kr_attr_unique(ctx, &c);
}

kr_attr kr_attr_type(kr_context *ctx, kr_type t) {
  struct kr_attr_storage c;
  cand_init(&c, KR_ATTR_TYPE, t);
  return kr_attr_unique(ctx, &c);
}

kr_attr kr_attr_array(kr_context *ctx, const kr_attr *elems, unsigned n) {
  struct kr_attr_storage c;
  cand_init(&c, KR_ATTR_ARRAY, NULL);
  c.u.array.elems = n ? elems : NULL;
  c.u.array.num = n;
  return kr_attr_unique(ctx, &c);
}

/* Byte-wise name order, a proper prefix first (MLIR's StringRef::compare). */
static int ident_cmp(kr_ident a, kr_ident b) {
  if (a == b) return 0;
  size_t la = kr_ident_len(a), lb = kr_ident_len(b);
  int r = memcmp(a, b, la < lb ? la : lb);
  if (r) return r;
  return la < lb ? -1 : la > lb;
}

static int named_cmp(const void *a, const void *b) {
  return ident_cmp(((const kr_named_attr *)a)->name, ((const kr_named_attr *)b)->name);
}

kr_attr kr_attr_dict(kr_context *ctx, const kr_named_attr *entries, unsigned n) {
  if (n == 0) return ctx->empty_dict;
  kr_named_attr small[8];
  kr_named_attr *tmp = n <= 8 ? small : malloc(n * sizeof *tmp);
  if (!tmp) abort();
  memcpy(tmp, entries, n * sizeof *tmp);
  if (n <= 8) {
    for (unsigned i = 1; i < n; i++) {
      kr_named_attr x = tmp[i];
      unsigned j = i;
      while (j > 0 && ident_cmp(tmp[j - 1].name, x.name) > 0) {
        tmp[j] = tmp[j - 1];
        j--;
      }
      tmp[j] = x;
    }
  } else {
    qsort(tmp, n, sizeof *tmp, named_cmp);
  }
  kr_attr res = NULL;
  for (unsigned i = 1; i < n; i++)
    if (tmp[i].name == tmp[i - 1].name) goto out;
  struct kr_attr_storage c;
  cand_init(&c, KR_ATTR_DICT, NULL);
  c.u.dict.entries = tmp;
  c.u.dict.num = n;
  res = kr_attr_unique(ctx, &c);
out:
  if (tmp != small) free(tmp);
  return res;
}

kr_attr kr_attr_dict_empty(kr_context *ctx) { return ctx->empty_dict; }

kr_attr kr_attr_symbol_ref(kr_context *ctx, const char *root, const kr_ident *nested, unsigned n) {
  struct kr_attr_storage c;
  cand_init(&c, KR_ATTR_SYMBOL_REF, NULL);
  c.u.symref.root = kr_ident_cstr(ctx, root);
  c.u.symref.nested = n ? nested : NULL;
  c.u.symref.num_nested = n;
  return kr_attr_unique(ctx, &c);
}

static bool is_i1(kr_type t) { return t->kind == KR_TYPE_INTEGER && t->u.integer.width == 1; }

static bool dense_elem_ok(kr_type e) {
  return e && (e->kind == KR_TYPE_INTEGER || e->kind == KR_TYPE_INDEX || e->kind == KR_TYPE_FLOAT);
}

/* i1 elements are stored as bytes 0/1 so that equal values unique alike: returns `data`, or a
 * normalised malloc'd copy (also stored in *norm, for the caller to free). */
static const unsigned char *normalize_i1(kr_type elem, const void *data, size_t size, unsigned char **norm) {
  const unsigned char *bytes = data;
  if (!is_i1(elem) || !size) return bytes;
  *norm = malloc(size);
  if (!*norm) abort();
  for (size_t i = 0; i < size; i++) (*norm)[i] = bytes[i] != 0;
  return *norm;
}

kr_attr kr_attr_dense(kr_context *ctx, kr_type shaped, const void *data, size_t size) {
  if (!kr_type_is_shaped(shaped) || !kr_type_has_static_shape(shaped)) return NULL;
  kr_type et = shaped->u.shaped.elem;
  if (!dense_elem_ok(et)) return NULL;
  size_t esz = kr_type_storage_bytes(et);
  if (kr_type_num_elements(shaped) < 0) return NULL;
  size_t n = (size_t)kr_type_num_elements(shaped);
  bool fits = !n || esz <= SIZE_MAX / n;   /* else only a splat can describe it */
  bool splat;
  if (size == esz && n >= 1)
    splat = true;
  else if (fits && size == esz * n)
    splat = false;
  else
    return NULL;
  unsigned char *norm = NULL;
  const unsigned char *bytes = normalize_i1(et, data, size, &norm);
  if (!splat && n > 1) {
    splat = true;
    for (size_t i = 1; i < n && splat; i++)
      if (memcmp(bytes, bytes + i * esz, esz) != 0) splat = false;
    if (splat) size = esz;
  }
  struct kr_attr_storage c;
  cand_init(&c, KR_ATTR_DENSE, shaped);
  c.u.dense.data = size ? bytes : NULL;
  c.u.dense.size = size;
  c.u.dense.splat = splat;
  kr_attr a = kr_attr_unique(ctx, &c);
  free(norm);
  return a;
}

kr_attr kr_attr_dense_array(kr_context *ctx, kr_type elem, const void *data, unsigned n) {
  if (!dense_elem_ok(elem)) return NULL;
  size_t size = (size_t)n * kr_type_storage_bytes(elem);
  unsigned char *norm = NULL;
  const unsigned char *bytes = normalize_i1(elem, data, size, &norm);
  struct kr_attr_storage c;
  cand_init(&c, KR_ATTR_DENSE_ARRAY, elem);
  c.u.dense_array.data = size ? bytes : NULL;
  c.u.dense_array.size = size;
  c.u.dense_array.num = n;
  kr_attr a = kr_attr_unique(ctx, &c);
  free(norm);
  return a;
}

kr_attr kr_attr_resource(kr_context *ctx, kr_type shaped, const kr_resource *r) {
  struct kr_attr_storage c;
  cand_init(&c, KR_ATTR_RESOURCE, shaped);
  c.u.resource = r;
  return kr_attr_unique(ctx, &c);
}

kr_attr kr_attr_dialect(kr_context *ctx, const kr_dialect *d, const char *mnemonic, const kr_attr *params, unsigned n) {
  struct kr_attr_storage c;
  cand_init(&c, KR_ATTR_DIALECT, NULL);
  c.u.dialect.dialect = d;
  c.u.dialect.mnemonic = kr_ident_cstr(ctx, mnemonic);
  c.u.dialect.params = n ? params : NULL;
  c.u.dialect.num_params = n;
  return kr_attr_unique(ctx, &c);
}

kr_attr kr_attr_opaque(kr_context *ctx, const char *dialect, const char *body, size_t body_len) {
  struct kr_attr_storage c;
  cand_init(&c, KR_ATTR_OPAQUE, NULL);
  c.u.opaque.dialect = kr_ident_cstr(ctx, dialect);
  c.u.opaque.body = kr_ident_get(ctx, body, body_len);
  return kr_attr_unique(ctx, &c);
}

/* ------------------------------------------------------------------------------------------- */

kr_attr kr_dict_get(kr_attr dict, kr_ident name) {
  if (!dict || dict->kind != KR_ATTR_DICT || !name) return NULL;
  const kr_named_attr *e = dict->u.dict.entries;
  unsigned n = dict->u.dict.num;
  if (n <= 8) {
    for (unsigned i = 0; i < n; i++)
      if (e[i].name == name) return e[i].value;
    return NULL;
  }
  unsigned lo = 0, hi = n;
  while (lo < hi) {
    unsigned mid = (lo + hi) / 2;
    int r = ident_cmp(e[mid].name, name);
    if (r == 0) return e[mid].value;
    if (r < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

kr_attr kr_dict_get_cstr(kr_attr dict, const char *name) {
  if (!dict || dict->kind != KR_ATTR_DICT || !name) return NULL;
  size_t len = strlen(name);
  const kr_named_attr *e = dict->u.dict.entries;
  for (unsigned i = 0; i < dict->u.dict.num; i++)
    if (kr_ident_len(e[i].name) == len && memcmp(e[i].name, name, len) == 0) return e[i].value;
  return NULL;
}

/* Locates element `i` of a dense or resource attribute; NULL if out of range. */
static const unsigned char *dense_elem(kr_attr a, size_t i, kr_type *et) {
  if (!a || !a->type) return NULL;
  *et = kr_type_element(a->type);
  size_t esz = kr_type_storage_bytes(*et);
  if (!esz) return NULL;
  if (a->kind == KR_ATTR_DENSE) {
    if (a->u.dense.splat) return a->u.dense.size >= esz ? a->u.dense.data : NULL;
    if ((i + 1) * esz > a->u.dense.size) return NULL;
    return (const unsigned char *)a->u.dense.data + i * esz;
  }
  if (a->kind == KR_ATTR_RESOURCE && a->u.resource) {
    if ((i + 1) * esz > a->u.resource->size) return NULL;
    return (const unsigned char *)a->u.resource->data + i * esz;
  }
  return NULL;
}

/* Reads `esz` little-endian bytes. */
static uint64_t load_le(const unsigned char *p, size_t esz) {
  uint64_t v = 0;
  for (size_t k = 0; k < esz && k < 8; k++) v |= (uint64_t)p[k] << (8 * k);
  return v;
}

/* Same NaN-preserving widening as a KR_ATTR_FLOAT's storage (kr_float_from_bits). */
static double load_float(const unsigned char *p, kr_type et) {
  kr_float_kind k = et->u.fkind;
  return kr_float_from_bits(k, load_le(p, k == KR_F64 ? 8 : k == KR_F32 ? 4 : 2));
}

static int64_t load_int(const unsigned char *p, kr_type et) {
  uint64_t u = load_le(p, kr_type_storage_bytes(et));
  if (et->kind == KR_TYPE_INDEX) return (int64_t)u;
  unsigned w = et->u.integer.width;
  if (w == 1) return (int64_t)(u & 1);
  return normalize_int(et, (int64_t)u);
}

int64_t kr_dense_get_i64(kr_attr dense, size_t i) {
  kr_type et;
  const unsigned char *p = dense_elem(dense, i, &et);
  if (!p) return 0;
  if (et->kind == KR_TYPE_FLOAT) {
    /* Truncation toward zero, saturating; NaN gives 0 (a C cast would be undefined). */
    double d = load_float(p, et);
    if (isnan(d)) return 0;
    if (d >= 9223372036854775807.0) return INT64_MAX;
    if (d <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)d;
  }
  return load_int(p, et);
}

double kr_dense_get_f64(kr_attr dense, size_t i) {
  kr_type et;
  const unsigned char *p = dense_elem(dense, i, &et);
  if (!p) return 0;
  if (et->kind == KR_TYPE_FLOAT) return load_float(p, et);
  int64_t v = load_int(p, et);
  if (et->kind == KR_TYPE_INTEGER && et->u.integer.sign == KR_UNSIGNED) return (double)(uint64_t)v;
  return (double)v;
}
