/* ir/locations.c - location attributes (LangRef "Builtin Location Attributes").
 *
 * Fused locations are canonicalised as MLIR's FusedLoc::get does: nested fused locations with
 * the same metadata are flattened, unknown locations and duplicates are dropped, an empty list
 * becomes loc(unknown) (or fused<meta>[unknown] with metadata), and a single location without
 * metadata is returned as itself.  A name location's unknown child is stored as NULL. */
#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"

static void cand_loc(struct kr_attr_storage *c, kr_loc_kind kind) {
  memset(c, 0, sizeof *c);
  c->kind = KR_ATTR_LOCATION;
  c->u.loc.kind = kind;
}

kr_attr kr_loc_unknown(kr_context *ctx) { return ctx->unknown_loc; }

kr_attr kr_loc_file(kr_context *ctx, const char *filename, unsigned line, unsigned col) {
  struct kr_attr_storage c;
  cand_loc(&c, KR_LOC_FILE);
  /* Callers pass the same filename for every op of a file: compare with the last one instead of
   * hashing and looking the string up a million times. */
  if (!ctx->last_loc_ident || strcmp(filename, ctx->last_loc_ident) != 0)
    ctx->last_loc_ident = kr_ident_cstr(ctx, filename);
  c.u.loc.name = ctx->last_loc_ident;
  c.u.loc.line = line;
  c.u.loc.col = col;
  return kr_attr_unique(ctx, &c);
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
