/* ir/resources.c - named blobs behind dense_resource<key> attributes.
 *
 * Keys are unique per context: a taken key gets the first free "_1", "_2", ... suffix, as MLIR's
 * resource manager does for blob names.  Copied blobs live in the arena (alignment up to 4096);
 * adopted malloc buffers are freed by kr_context_destroy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"

static kr_ident unique_key(kr_context *ctx, const char *key) {
  kr_ident id = kr_ident_cstr(ctx, key);
  if (!kr_hmap_find(&ctx->resources, kr_hash_ptr(id), id)) return id;
  size_t len = strlen(key);
  char *buf = malloc(len + 24);
  if (!buf) abort();
  for (unsigned long k = 1;; k++) {
    snprintf(buf, len + 24, "%s_%lu", key, k);
    id = kr_ident_cstr(ctx, buf);
    if (!kr_hmap_find(&ctx->resources, kr_hash_ptr(id), id)) break;
  }
  free(buf);
  return id;
}

static kr_resource *register_blob(kr_context *ctx, const char *key, const void *data, size_t size, uint32_t alignment) {
  kr_resource *r = KR_NEW(&ctx->arena, kr_resource);
  r->key = unique_key(ctx, key);
  r->data = data;
  r->size = size;
  r->alignment = alignment ? alignment : 1;
  kr_hmap_insert(&ctx->resources, kr_hash_ptr(r->key), r->key, NULL)->value = r;
  KR_VEC_PUSH(&ctx->resource_list, kr_resource *, r);
  return r;
}

const kr_resource *kr_resource_create(kr_context *ctx, const char *key, const void *data, size_t size,
                                      uint32_t alignment) {
  if (alignment == 0) alignment = 1;
  if (alignment & (alignment - 1)) return NULL;
  void *copy;
  if (alignment <= 4096) {
    copy = kr_arena_alloc(&ctx->arena, size ? size : 1, alignment);
  } else {
    copy = aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
    if (!copy) return NULL;
    KR_VEC_PUSH(&ctx->owned_buffers, void *, copy);
  }
  if (size) memcpy(copy, data, size);
  return register_blob(ctx, key, copy, size, alignment);
}

const kr_resource *kr_resource_adopt(kr_context *ctx, const char *key, void *data, size_t size, uint32_t alignment) {
  if (alignment == 0) alignment = 1;
  if (data) KR_VEC_PUSH(&ctx->owned_buffers, void *, data);
  return register_blob(ctx, key, data, size, alignment);
}

const kr_resource *kr_resource_lookup(kr_context *ctx, const char *key) {
  kr_ident id = kr_ident_cstr(ctx, key);
  kr_hmap_entry *e = kr_hmap_find(&ctx->resources, kr_hash_ptr(id), id);
  return e ? e->value : NULL;
}
