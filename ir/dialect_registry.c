/* ir/dialect_registry.c - dialect registration, op lookup and dialect plugins (korch/dialect.h). */
#include <dlfcn.h>
#include <string.h>

#include "ir/context_impl.h"

static bool has_prefix(const char *name, const char *dialect) {
  size_t n = strlen(dialect);
  return strncmp(name, dialect, n) == 0 && name[n] == '.' && name[n + 1] != 0;
}

/* Checks everything first so that a rejected dialect leaves no trace. */
kr_status kr_context_register_dialect(kr_context *ctx, const kr_dialect_def *def) {
  kr_attr loc = ctx->unknown_loc;
  for (size_t i = 0; i < ctx->dialects.len; i++) {
    const kr_dialect *d = KR_VEC_AT(&ctx->dialects, kr_dialect *, i);
    if (d->def == def) return KR_SUCCESS;
  }
  if (!def->name || !def->name[0]) return kr_emit_error(ctx, loc, "dialect without a name");
  if (kr_context_lookup_dialect(ctx, def->name, strlen(def->name)))
    return kr_emit_error(ctx, loc, "dialect '%s' is already registered", def->name);
  for (unsigned i = 0; i < def->num_ops; i++) {
    const char *n = def->ops[i].name;
    if (!n || !has_prefix(n, def->name))
      return kr_emit_error(ctx, loc, "op '%s' of dialect '%s' must be named '%s.<op>'", n ? n : "", def->name,
                           def->name);
    kr_ident id = kr_ident_cstr(ctx, n);
    if (kr_context_lookup_op(ctx, id)) return kr_emit_error(ctx, loc, "op '%s' is already registered", n);
    for (unsigned j = 0; j < i; j++)
      if (strcmp(def->ops[j].name, n) == 0)
        return kr_emit_error(ctx, loc, "op '%s' is defined twice in dialect '%s'", n, def->name);
  }
  kr_dialect *d = KR_NEW(&ctx->arena, kr_dialect);
  d->def = def;
  d->name = kr_ident_cstr(ctx, def->name);
  d->num_ops = def->num_ops;
  d->ops = def->num_ops ? KR_NEW_ARRAY(&ctx->arena, kr_op_def, def->num_ops) : NULL;
  for (unsigned i = 0; i < def->num_ops; i++) {
    d->ops[i] = def->ops[i];
    d->ops[i].ident = kr_ident_cstr(ctx, def->ops[i].name);
    d->ops[i].dialect = d;
    kr_hmap_insert(&ctx->op_defs, kr_hash_ptr(d->ops[i].ident), d->ops[i].ident, NULL)->value = &d->ops[i];
  }
  KR_VEC_PUSH(&ctx->dialects, kr_dialect *, d);
  return KR_SUCCESS;
}

const kr_dialect *kr_context_lookup_dialect(kr_context *ctx, const char *name, size_t len) {
  for (size_t i = 0; i < ctx->dialects.len; i++) {
    const kr_dialect *d = KR_VEC_AT(&ctx->dialects, kr_dialect *, i);
    if (kr_ident_len(d->name) == len && memcmp(d->name, name, len) == 0) return d;
  }
  return NULL;
}

const kr_op_def *kr_context_lookup_op(kr_context *ctx, kr_ident name) {
  if (!name || ctx->op_defs.len == 0) return NULL;
  kr_hmap_entry *e = kr_hmap_find(&ctx->op_defs, kr_hash_ptr(name), name);
  return e ? e->value : NULL;
}

unsigned kr_context_num_dialects(kr_context *ctx) { return (unsigned)ctx->dialects.len; }

const kr_dialect *kr_context_dialect_at(kr_context *ctx, unsigned i) {
  return i < ctx->dialects.len ? KR_VEC_AT(&ctx->dialects, kr_dialect *, i) : NULL;
}

kr_status kr_context_load_plugin(kr_context *ctx, const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *err = dlerror();
    return kr_emit_error(ctx, ctx->unknown_loc, "failed to load plugin '%s': %s", path, err ? err : "unknown error");
  }
  /* Object-to-function pointer conversion through memcpy: ISO C has no direct cast for it. */
  void *sym = dlsym(h, KR_PLUGIN_INIT_SYMBOL);
  if (!sym) {
    const char *err = dlerror();
    kr_status s = kr_emit_error(ctx, ctx->unknown_loc, "plugin '%s' has no '%s': %s", path, KR_PLUGIN_INIT_SYMBOL,
                                err ? err : "symbol not found");
    dlclose(h);
    return s;
  }
  kr_plugin_init_fn init;
  memcpy(&init, &sym, sizeof init);
  /* Kept open even when init fails: it may have registered part of its tables already. */
  KR_VEC_PUSH(&ctx->plugins, void *, h);
  if (KR_FAILED(init(ctx))) return kr_emit_error(ctx, ctx->unknown_loc, "plugin '%s': initialisation failed", path);
  return KR_SUCCESS;
}
