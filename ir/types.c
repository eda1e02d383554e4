/* ir/types.c - builtin types, uniqued per context (LangRef "Builtin Types").
 *
 * A candidate is filled on the stack (arrays pointing at caller memory), hashed, and looked up;
 * only a miss copies the arrays into the arena.  Equality is structural; nested types and
 * attributes are already unique, so arrays of them compare with memcmp. */
#include <string.h>

#include "ir/context_impl.h"

static uint64_t hash_ptrs(uint64_t h, const void *const *p, unsigned n) {
  for (unsigned i = 0; i < n; i++) h = kr_hash_combine(h, kr_hash_ptr(p[i]));
  return h;
}

static uint64_t type_hash(const struct kr_type_storage *t) {
  uint64_t h = kr_hash_combine(0x7479706500000000ULL, (uint64_t)t->kind);
  switch (t->kind) {
  case KR_TYPE_INTEGER: h = kr_hash_combine(h, t->u.integer.width * 4u + (unsigned)t->u.integer.sign); break;
  case KR_TYPE_FLOAT: h = kr_hash_combine(h, (uint64_t)t->u.fkind); break;
  case KR_TYPE_INDEX:
  case KR_TYPE_NONE: break;
  case KR_TYPE_TENSOR:
  case KR_TYPE_VECTOR:
    h = kr_hash_combine(h, kr_hash_ptr(t->u.shaped.elem));
    h = kr_hash_combine(h, t->u.shaped.unranked);
    h = kr_hash_combine(h, kr_hash_bytes(t->u.shaped.dims, t->u.shaped.rank * sizeof(int64_t)));
    break;
  case KR_TYPE_FUNCTION:
    h = kr_hash_combine(h, t->u.func.num_inputs);
    h = hash_ptrs(h, (const void *const *)t->u.func.inputs, t->u.func.num_inputs);
    h = kr_hash_combine(h, t->u.func.num_results);
    h = hash_ptrs(h, (const void *const *)t->u.func.results, t->u.func.num_results);
    break;
  case KR_TYPE_TUPLE:
    h = kr_hash_combine(h, t->u.tuple.num);
    h = hash_ptrs(h, (const void *const *)t->u.tuple.elems, t->u.tuple.num);
    break;
  case KR_TYPE_DIALECT:
    h = kr_hash_combine(h, kr_hash_ptr(t->u.dialect.dialect));
    h = kr_hash_combine(h, kr_hash_ptr(t->u.dialect.mnemonic));
    h = hash_ptrs(h, (const void *const *)t->u.dialect.params, t->u.dialect.num_params);
    break;
  case KR_TYPE_OPAQUE:
    h = kr_hash_combine(h, kr_hash_ptr(t->u.opaque.dialect));
    h = kr_hash_combine(h, kr_hash_ptr(t->u.opaque.body));
    break;
  }
  return h;
}

static bool same_array(const void *a, const void *b, size_t bytes) {
  return bytes == 0 || a == b || memcmp(a, b, bytes) == 0;
}

bool kr_type_storage_eq(const void *pa, const void *pb) {
  const struct kr_type_storage *a = pa, *b = pb;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case KR_TYPE_INTEGER: return a->u.integer.width == b->u.integer.width && a->u.integer.sign == b->u.integer.sign;
  case KR_TYPE_FLOAT: return a->u.fkind == b->u.fkind;
  case KR_TYPE_INDEX:
  case KR_TYPE_NONE: return true;
  case KR_TYPE_TENSOR:
  case KR_TYPE_VECTOR:
    return a->u.shaped.elem == b->u.shaped.elem && a->u.shaped.unranked == b->u.shaped.unranked &&
           a->u.shaped.rank == b->u.shaped.rank &&
           same_array(a->u.shaped.dims, b->u.shaped.dims, a->u.shaped.rank * sizeof(int64_t));
  case KR_TYPE_FUNCTION:
    return a->u.func.num_inputs == b->u.func.num_inputs && a->u.func.num_results == b->u.func.num_results &&
           same_array(a->u.func.inputs, b->u.func.inputs, a->u.func.num_inputs * sizeof(kr_type)) &&
           same_array(a->u.func.results, b->u.func.results, a->u.func.num_results * sizeof(kr_type));
  case KR_TYPE_TUPLE:
    return a->u.tuple.num == b->u.tuple.num &&
           same_array(a->u.tuple.elems, b->u.tuple.elems, a->u.tuple.num * sizeof(kr_type));
  case KR_TYPE_DIALECT:
    return a->u.dialect.dialect == b->u.dialect.dialect && a->u.dialect.mnemonic == b->u.dialect.mnemonic &&
           a->u.dialect.num_params == b->u.dialect.num_params &&
           same_array(a->u.dialect.params, b->u.dialect.params, a->u.dialect.num_params * sizeof(kr_attr));
  case KR_TYPE_OPAQUE: return a->u.opaque.dialect == b->u.opaque.dialect && a->u.opaque.body == b->u.opaque.body;
  }
  return false;
}

static const void *dup_array(kr_context *ctx, const void *p, size_t bytes, size_t align) {
  if (!bytes) return NULL;
  return kr_arena_dup(&ctx->arena, p, bytes, align);
}

static kr_type type_unique(kr_context *ctx, struct kr_type_storage *cand) {
  uint64_t h = type_hash(cand);
  cand->hash = (uint32_t)h;
  kr_hmap_entry *e = kr_hmap_find(&ctx->types, h, cand);
  if (e) return e->key;
  struct kr_type_storage *t = kr_arena_dup(&ctx->arena, cand, sizeof *cand, _Alignof(struct kr_type_storage));
  switch (t->kind) {
  case KR_TYPE_TENSOR:
  case KR_TYPE_VECTOR:
    t->u.shaped.dims = dup_array(ctx, cand->u.shaped.dims, cand->u.shaped.rank * sizeof(int64_t), _Alignof(int64_t));
    break;
  case KR_TYPE_FUNCTION:
    t->u.func.inputs =
        dup_array(ctx, cand->u.func.inputs, cand->u.func.num_inputs * sizeof(kr_type), _Alignof(kr_type));
    t->u.func.results =
        dup_array(ctx, cand->u.func.results, cand->u.func.num_results * sizeof(kr_type), _Alignof(kr_type));
    break;
  case KR_TYPE_TUPLE:
    t->u.tuple.elems = dup_array(ctx, cand->u.tuple.elems, cand->u.tuple.num * sizeof(kr_type), _Alignof(kr_type));
    break;
  case KR_TYPE_DIALECT:
    t->u.dialect.params =
        dup_array(ctx, cand->u.dialect.params, cand->u.dialect.num_params * sizeof(kr_attr), _Alignof(kr_attr));
    break;
  default: break;
  }
  kr_hmap_insert(&ctx->types, h, t, NULL);
  return t;
}

static void cand_init(struct kr_type_storage *c, kr_type_kind kind) {
  memset(c, 0, sizeof *c);
  c->kind = kind;
}

kr_type kr_type_integer(kr_context *ctx, unsigned width, kr_signedness sign) {
  struct kr_type_storage c;
  cand_init(&c, KR_TYPE_INTEGER);
  c.u.integer.width = width;
  c.u.integer.sign = sign;
  return type_unique(ctx, &c);
}

kr_type kr_type_index(kr_context *ctx) {
  struct kr_type_storage c;
  cand_init(&c, KR_TYPE_INDEX);
  return type_unique(ctx, &c);
}

kr_type kr_type_float(kr_context *ctx, kr_float_kind kind) {
  struct kr_type_storage c;
  cand_init(&c, KR_TYPE_FLOAT);
  c.u.fkind = kind;
  return type_unique(ctx, &c);
}

kr_type kr_type_none(kr_context *ctx) {
  struct kr_type_storage c;
  cand_init(&c, KR_TYPE_NONE);
  return type_unique(ctx, &c);
}

static kr_type shaped(kr_context *ctx, kr_type_kind kind, const int64_t *dims, unsigned rank, kr_type elem,
                      bool unranked) {
  struct kr_type_storage c;
  cand_init(&c, kind);
  c.u.shaped.elem = elem;
  c.u.shaped.dims = rank ? dims : NULL;
  c.u.shaped.rank = rank;
  c.u.shaped.unranked = unranked;
  return type_unique(ctx, &c);
}

kr_type kr_type_tensor(kr_context *ctx, const int64_t *dims, unsigned rank, kr_type elem) {
  return shaped(ctx, KR_TYPE_TENSOR, dims, rank, elem, false);
}

kr_type kr_type_unranked_tensor(kr_context *ctx, kr_type elem) {
  return shaped(ctx, KR_TYPE_TENSOR, NULL, 0, elem, true);
}

kr_type kr_type_vector(kr_context *ctx, const int64_t *dims, unsigned rank, kr_type elem) {
  return shaped(ctx, KR_TYPE_VECTOR, dims, rank, elem, false);
}

kr_type kr_type_function(kr_context *ctx, const kr_type *inputs, unsigned ni, const kr_type *results, unsigned nr) {
  struct kr_type_storage c;
  cand_init(&c, KR_TYPE_FUNCTION);
  c.u.func.inputs = ni ? inputs : NULL;
  c.u.func.num_inputs = ni;
  c.u.func.results = nr ? results : NULL;
  c.u.func.num_results = nr;
  return type_unique(ctx, &c);
}

kr_type kr_type_tuple(kr_context *ctx, const kr_type *elems, unsigned n) {
  struct kr_type_storage c;
  cand_init(&c, KR_TYPE_TUPLE);
  c.u.tuple.elems = n ? elems : NULL;
  c.u.tuple.num = n;
  return type_unique(ctx, &c);
}

kr_type kr_type_dialect(kr_context *ctx, const kr_dialect *d, const char *mnemonic, const kr_attr *params, unsigned n) {
  struct kr_type_storage c;
  cand_init(&c, KR_TYPE_DIALECT);
  c.u.dialect.dialect = d;
  c.u.dialect.mnemonic = kr_ident_cstr(ctx, mnemonic);
  c.u.dialect.params = n ? params : NULL;
  c.u.dialect.num_params = n;
  return type_unique(ctx, &c);
}

kr_type kr_type_opaque(kr_context *ctx, const char *dialect, const char *body, size_t body_len) {
  struct kr_type_storage c;
  cand_init(&c, KR_TYPE_OPAQUE);
  c.u.opaque.dialect = kr_ident_cstr(ctx, dialect);
  c.u.opaque.body = kr_ident_get(ctx, body, body_len);
  return type_unique(ctx, &c);
}

/* ------------------------------------------------------------------------------------------- */

bool kr_type_is_integer(kr_type t, unsigned width) {
  if (!t || t->kind != KR_TYPE_INTEGER) return false;
  if (width == 0) return true;
  return t->u.integer.sign == KR_SIGNLESS && t->u.integer.width == width;
}

bool kr_type_is_float(kr_type t) { return t && t->kind == KR_TYPE_FLOAT; }

bool kr_type_is_shaped(kr_type t) { return t && (t->kind == KR_TYPE_TENSOR || t->kind == KR_TYPE_VECTOR); }

bool kr_type_has_static_shape(kr_type t) {
  if (!kr_type_is_shaped(t) || t->u.shaped.unranked) return false;
  for (unsigned i = 0; i < t->u.shaped.rank; i++)
    if (t->u.shaped.dims[i] < 0) return false;
  return true;
}

kr_type kr_type_element(kr_type t) { return kr_type_is_shaped(t) ? t->u.shaped.elem : t; }

int64_t kr_type_num_elements(kr_type t) {
  if (!kr_type_is_shaped(t)) return 1;
  if (!kr_type_has_static_shape(t)) return -1;
  int64_t n = 1;
  for (unsigned i = 0; i < t->u.shaped.rank; i++) {
    int64_t d = t->u.shaped.dims[i];
    /* A shape whose product does not fit in int64 has no element count (-1, as if dynamic):
     * dense elements of it cannot exist. */
    if (d != 0 && n > INT64_MAX / d) {
      for (unsigned j = i + 1; j < t->u.shaped.rank; j++)
        if (t->u.shaped.dims[j] == 0) return 0;
      return -1;
    }
    n *= d;
  }
  return n;
}

unsigned kr_type_bitwidth(kr_type t) {
  if (!t) return 0;
  switch (t->kind) {
  case KR_TYPE_INTEGER: return t->u.integer.width;
  case KR_TYPE_INDEX: return 64;
  case KR_TYPE_FLOAT:
    switch (t->u.fkind) {
    case KR_F16:
    case KR_BF16: return 16;
    case KR_F32: return 32;
    case KR_F64: return 64;
    }
    return 0;
  default: return 0;
  }
}

size_t kr_type_storage_bytes(kr_type t) { return (kr_type_bitwidth(t) + 7) / 8; }
