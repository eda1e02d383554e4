/* ir/locations.c - location attributes (LangRef "Builtin Location Attributes").
 *
 * Fused locations are canonicalised as MLIR's FusedLoc::get does: nested fused locations with
 * the same metadata are flattened, unknown locations and duplicates are dropped, an empty list
 * becomes loc(unknown) (or fused<meta>[unknown] with metadata), and a single location without
 * metadata is returned as itself.  A name location's unknown child is stored as NULL. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"

static void cand_loc(struct kr_attr_storage *c, kr_loc_kind kind) {
  memset(c, 0, sizeof *c);
  c->kind = KR_ATTR_LOCATION;
  c->u.loc.kind = kind;
}

kr_attr kr_loc_unknown(kr_context *ctx) { return ctx->unknown_loc; }

/* File locations are uniqued through a per-file table indexed by line instead of ctx->attrs:
 * every op has one, they arrive in line order while parsing, and probing a million-entry hash
 * table for them was half of the parse time (perf on bench/ir_throughput).  The table is paged
 * (KR_LOC_PAGE lines a page, pages made on first use) so a stray `loc("f":9999999:1)` costs one
 * page; lines past KR_LOC_TABLE_LINES go through ctx->attrs as before.  Which path a location
 * takes depends on its line only, so each location still has exactly one storage.  Locations of
 * one line are chained through the link stored just before each of them. */
enum { KR_LOC_PAGE = 4096, KR_LOC_TABLE_LINES = 1 << 24 };

struct kr_loc_lines {
  kr_ident file;
  kr_vec pages;   /* kr_attr * pages of KR_LOC_PAGE heads, NULL until used */
};

static kr_attr *loc_link(kr_attr a) { return (kr_attr *)((char *)(uintptr_t)a - sizeof(kr_attr)); }

static struct kr_loc_lines *loc_lines(kr_context *ctx, kr_ident file) {
  if (ctx->last_loc_lines && ctx->last_loc_lines->file == file) return ctx->last_loc_lines;
  bool inserted;
  kr_hmap_entry *e = kr_hmap_insert(&ctx->loc_lines, kr_hash_ptr(file), file, &inserted);
  if (inserted) {
    struct kr_loc_lines *l = calloc(1, sizeof *l);
    if (!l) abort(); /* as the arena does */
    l->file = file;
    e->value = l;
  }
  return ctx->last_loc_lines = e->value;
}

void kr_loc_lines_free(kr_context *ctx) {
  for (size_t i = 0; i < ctx->loc_lines.cap; i++)
    if (ctx->loc_lines.slots && ctx->loc_lines.slots[i].hash) {
      struct kr_loc_lines *l = ctx->loc_lines.slots[i].value;
      kr_vec_free(&l->pages);
      free(l);
    }
  kr_hmap_free(&ctx->loc_lines);
  ctx->last_loc_lines = NULL;
}

kr_attr kr_loc_file(kr_context *ctx, const char *filename, unsigned line, unsigned col) {
  /* Callers pass the same filename for every op of a file: compare with the last one instead of
   * hashing and looking the string up a million times. */
  if (!ctx->last_loc_ident || strcmp(filename, ctx->last_loc_ident) != 0)
    ctx->last_loc_ident = kr_ident_cstr(ctx, filename);
  kr_ident file = ctx->last_loc_ident;
  if (line >= KR_LOC_TABLE_LINES) {
    struct kr_attr_storage c;
    cand_loc(&c, KR_LOC_FILE);
    c.u.loc.name = file;
    c.u.loc.line = line;
    c.u.loc.col = col;
    return kr_attr_unique(ctx, &c);
  }
  struct kr_loc_lines *l = loc_lines(ctx, file);
  size_t page = line / KR_LOC_PAGE;
  if (page >= l->pages.len) {
    kr_vec_reserve(&l->pages, page + 1, sizeof(kr_attr *));
    memset(KR_VEC_DATA(&l->pages, kr_attr *) + l->pages.len, 0, (page + 1 - l->pages.len) * sizeof(kr_attr *));
    l->pages.len = page + 1;
  }
  kr_attr **slot = &KR_VEC_AT(&l->pages, kr_attr *, page);
  if (!*slot) *slot = KR_NEW_ARRAY(&ctx->arena, kr_attr, KR_LOC_PAGE);
  kr_attr *head = &(*slot)[line % KR_LOC_PAGE];
  for (kr_attr a = *head; a; a = *loc_link(a))
    if (a->u.loc.col == col) return a;
  /* The link, then the attribute up to the end of its file fields (ir/attributes.c sizes
   * stored attributes the same way). */
  size_t size = offsetof(struct kr_attr_storage, u.loc.child);
  char *mem = kr_arena_alloc(&ctx->arena, sizeof(kr_attr) + size, _Alignof(struct kr_attr_storage));
  struct kr_attr_storage *a = (struct kr_attr_storage *)(mem + sizeof(kr_attr));
  memset(a, 0, size);
  a->kind = KR_ATTR_LOCATION;
  a->u.loc.kind = KR_LOC_FILE;
  a->u.loc.name = file;
  a->u.loc.line = line;
  a->u.loc.col = col;
  a->hash = (uint32_t)kr_hash_combine(kr_hash_ptr(file), ((uint64_t)line << 32) | col);
  *(kr_attr *)mem = *head;
  *head = a;
  return a;
}

kr_attr kr_loc_name(kr_context *ctx, const char *name, size_t len, kr_attr child) {
  struct kr_attr_storage c;
  cand_loc(&c, KR_LOC_NAME);
  c.u.loc.name = kr_ident_get(ctx, name, len);
  c.u.loc.child = child == ctx->unknown_loc ? NULL : child;
  return kr_attr_unique(ctx, &c);
}

static bool is_unknown(kr_attr l) { return l->kind == KR_ATTR_LOCATION && l->u.loc.kind == KR_LOC_UNKNOWN; }

static void add_unique(kr_vec *v, kr_attr l) {
  for (size_t i = 0; i < v->len; i++)
    if (KR_VEC_AT(v, kr_attr, i) == l) return;
  KR_VEC_PUSH(v, kr_attr, l);
}

kr_attr kr_loc_fused(kr_context *ctx, const kr_attr *locs, unsigned n, kr_attr metadata) {
  kr_vec flat = {0};
  for (unsigned i = 0; i < n; i++) {
    kr_attr l = locs[i];
    if (!l) continue;
    if (l->kind == KR_ATTR_LOCATION && l->u.loc.kind == KR_LOC_FUSED && l->u.loc.metadata == metadata) {
      for (unsigned j = 0; j < l->u.loc.num; j++) add_unique(&flat, l->u.loc.locs[j]);
      continue;
    }
    if (!is_unknown(l)) add_unique(&flat, l);
  }
  kr_attr res;
  if (flat.len == 0 && !metadata) {
    res = ctx->unknown_loc;
  } else if (flat.len == 1 && !metadata) {
    res = KR_VEC_AT(&flat, kr_attr, 0);
  } else {
    if (flat.len == 0) KR_VEC_PUSH(&flat, kr_attr, ctx->unknown_loc);
    struct kr_attr_storage c;
    cand_loc(&c, KR_LOC_FUSED);
    c.u.loc.locs = KR_VEC_DATA(&flat, kr_attr);
    c.u.loc.num = (unsigned)flat.len;
    c.u.loc.metadata = metadata;
    res = kr_attr_unique(ctx, &c);
  }
  kr_vec_free(&flat);
  return res;
}

kr_attr kr_loc_callsite(kr_context *ctx, kr_attr callee, kr_attr caller) {
  struct kr_attr_storage c;
  cand_loc(&c, KR_LOC_CALLSITE);
  c.u.loc.child = callee;
  c.u.loc.caller = caller;
  return kr_attr_unique(ctx, &c);
}

kr_attr kr_loc_find_file(kr_attr loc) {
  if (!loc || loc->kind != KR_ATTR_LOCATION) return NULL;
  switch (loc->u.loc.kind) {
  case KR_LOC_UNKNOWN: return NULL;
  case KR_LOC_FILE: return loc;
  case KR_LOC_NAME: return kr_loc_find_file(loc->u.loc.child);
  case KR_LOC_CALLSITE: {
    kr_attr r = kr_loc_find_file(loc->u.loc.child);
    return r ? r : kr_loc_find_file(loc->u.loc.caller);
  }
  case KR_LOC_FUSED:
    for (unsigned i = 0; i < loc->u.loc.num; i++) {
      kr_attr r = kr_loc_find_file(loc->u.loc.locs[i]);
      if (r) return r;
    }
    return NULL;
  }
  return NULL;
}
