/* ir/context_impl.h - private layout of kr_context (libfirm's *_t.h split: public API in
 * include/korch, representation here).  Only libkorch sources include this. */
#ifndef KORCH_IR_CONTEXT_IMPL_H
#define KORCH_IR_CONTEXT_IMPL_H

#include "korch/adt.h"
#include "korch/arena.h"
#include "korch/diag.h"
#include "korch/dialect.h"
#include "korch/ir.h"

typedef struct kr_source {
  kr_ident filename;
  const char *buf;
  size_t len;
} kr_source;

struct kr_context {
  kr_arena arena;            /* types, attributes, identifiers, ops, blocks, regions, values */
  kr_hmap idents;            /* interned strings */
  kr_hmap types;             /* uniqued types */
  kr_hmap attrs;             /* uniqued attributes */
  kr_hmap op_defs;           /* kr_ident -> const kr_op_def* */
  kr_vec dialects;           /* kr_dialect * in registration order */
  kr_vec passes;             /* const kr_pass_def * (passes/registry.c keeps it sorted by name) */
  kr_hmap resources;         /* kr_ident key -> kr_resource* */
  kr_vec resource_list;      /* kr_resource * in creation order */
  kr_vec sources;            /* kr_source */
  kr_vec plugins;            /* void * dlopen handles, closed at destroy */
  kr_diag_handler diag_handler;
  void *diag_user;
  unsigned num_errors;
  bool allow_unregistered;
  /* frequently used, created at context creation */
  kr_attr empty_dict, unknown_loc, unit;
  kr_attr bool_true, bool_false;
  kr_ident last_loc_ident;   /* filename of the last kr_loc_file (ir/locations.c) */
  kr_hmap loc_lines;         /* kr_ident file -> struct kr_loc_lines * (ir/locations.c) */
  struct kr_loc_lines *last_loc_lines;
  kr_vec owned_buffers;      /* void *: malloc'd blobs adopted by kr_resource_adopt, freed at destroy */
};

/* --- private helpers shared by the ir/ sources --------------------------------------------- */

/* kr_hmap_find with a caller-supplied matcher: `match(stored_key, arg)`.  Lets the uniquers look
 * a candidate up without materialising it (ir/adt.c). */
kr_hmap_entry *kr_hmap_find_by(const kr_hmap *m, uint64_t hash,
                               bool (*match)(const void *key, const void *arg), const void *arg);

/* kr_op::order spacing: an insertion between two ops takes the midpoint, so most insertions
 * keep the block's order valid (MLIR's Operation::orderIndex scheme; ir/operations.c, blocks.c). */
#define KR_ORDER_STRIDE 8u

/* The context that interned `id` (stored in the identifier's header, ir/context.c).  An op
 * finds its context through its name this way, so kr_op needs no context field. */
kr_context *kr_ident_context(kr_ident id);

/* Uniquing of attribute storage: `cand` is a fully filled candidate (arrays may point at caller
 * memory; hash is computed here).  Returns the unique copy, copying arrays into the arena
 * (ir/attributes.c). */
kr_attr kr_attr_unique(kr_context *ctx, const struct kr_attr_storage *cand);

/* Frees the per-file line tables that unique file locations (ir/locations.c). */
void kr_loc_lines_free(kr_context *ctx);

/* Structural equality of type / attribute storage: the eq callbacks of ctx->types and
 * ctx->attrs (ir/types.c, ir/attributes.c). */
bool kr_type_storage_eq(const void *a, const void *b);
bool kr_attr_storage_eq(const void *a, const void *b);

#endif
