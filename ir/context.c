/* ir/context.c - kr_context lifetime, interned identifiers, context flags. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"

/* Identifier storage: [context][size_t len][bytes][NUL]; a kr_ident points at the bytes.  The
 * context pointer lets an op find its context through its name (kr_op_context) at 8 bytes per
 * distinct identifier instead of 8 bytes per op. */
typedef struct ident_header {
  kr_context *ctx;
  size_t len;
} ident_header;

size_t kr_ident_len(kr_ident id) { return ((const ident_header *)id)[-1].len; }
kr_context *kr_ident_context(kr_ident id) { return ((const ident_header *)id)[-1].ctx; }

static bool ident_eq(const void *a, const void *b) {
  size_t la = kr_ident_len(a), lb = kr_ident_len(b);
  return la == lb && memcmp(a, b, la) == 0;
}

typedef struct ident_probe {
  const char *s;
  size_t len;
} ident_probe;

static bool ident_match(const void *key, const void *arg) {
  const ident_probe *p = arg;
  return kr_ident_len(key) == p->len && memcmp(key, p->s, p->len) == 0;
}

kr_ident kr_ident_get(kr_context *ctx, const char *s, size_t len) {
  uint64_t h = kr_hash_bytes(s, len);
  ident_probe probe = {s, len};
  kr_hmap_entry *e = kr_hmap_find_by(&ctx->idents, h, ident_match, &probe);
  if (e) return e->key;
  ident_header *hdr = kr_arena_alloc(&ctx->arena, sizeof(ident_header) + len + 1, _Alignof(ident_header));
  hdr->ctx = ctx;
  hdr->len = len;
  char *chars = (char *)(hdr + 1);
  if (len) memcpy(chars, s, len);
  chars[len] = 0;
  kr_hmap_insert(&ctx->idents, h, chars, NULL);
  return chars;
}

kr_ident kr_ident_cstr(kr_context *ctx, const char *s) { return kr_ident_get(ctx, s, strlen(s)); }

/* ------------------------------------------------------------------------------------------- */

kr_context *kr_context_create(void) {
  kr_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) abort();
  ctx->idents.eq = ident_eq;
  ctx->types.eq = kr_type_storage_eq;
  ctx->attrs.eq = kr_attr_storage_eq;
  ctx->op_defs.eq = NULL;   /* keyed by kr_ident: pointer identity */
  ctx->resources.eq = NULL; /* keyed by kr_ident */

  struct kr_attr_storage c;
  memset(&c, 0, sizeof c);
  c.kind = KR_ATTR_DICT;
  ctx->empty_dict = kr_attr_unique(ctx, &c);
  memset(&c, 0, sizeof c);
  c.kind = KR_ATTR_LOCATION;
  c.u.loc.kind = KR_LOC_UNKNOWN;
  ctx->unknown_loc = kr_attr_unique(ctx, &c);
  memset(&c, 0, sizeof c);
  c.kind = KR_ATTR_UNIT;
  ctx->unit = kr_attr_unique(ctx, &c);
  memset(&c, 0, sizeof c);
  c.kind = KR_ATTR_BOOL;
  c.u.b = true;
  ctx->bool_true = kr_attr_unique(ctx, &c);
  c.u.b = false;
  ctx->bool_false = kr_attr_unique(ctx, &c);
  return ctx;
}

void kr_context_destroy(kr_context *ctx) {
  if (!ctx) return;
  kr_hmap_free(&ctx->idents);
  kr_hmap_free(&ctx->types);
  kr_hmap_free(&ctx->attrs);
  kr_hmap_free(&ctx->op_defs);
  kr_hmap_free(&ctx->resources);
  kr_loc_lines_free(ctx);
  kr_vec_free(&ctx->dialects);
  kr_vec_free(&ctx->passes);
  kr_vec_free(&ctx->resource_list);
  kr_vec_free(&ctx->sources);
  for (size_t i = 0; i < ctx->owned_buffers.len; i++) free(KR_VEC_AT(&ctx->owned_buffers, void *, i));
  kr_vec_free(&ctx->owned_buffers);
  kr_arena_release(&ctx->arena);
  /* Plugins last: their dialect and pass tables were referenced by the data freed above. */
  for (size_t i = ctx->plugins.len; i-- > 0;) dlclose(KR_VEC_AT(&ctx->plugins, void *, i));
  kr_vec_free(&ctx->plugins);
  free(ctx);
}

void kr_context_set_allow_unregistered(kr_context *ctx, bool allow) { ctx->allow_unregistered = allow; }
bool kr_context_allow_unregistered(const kr_context *ctx) { return ctx->allow_unregistered; }
kr_arena *kr_context_arena(kr_context *ctx) { return &ctx->arena; }
