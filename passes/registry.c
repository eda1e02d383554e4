/* passes/registry.c - the per-context pass registry (ctx->passes, kept sorted by argument so that
 * lookups are a binary search and --help lists passes alphabetically, as mlir-opt does). */
#include <string.h>

#include "ir/context_impl.h"
#include "passes/pass_impl.h"

/* strcmp of a NUL-terminated `a` against the counted `b`. */
static int cmp_name(const char *a, const char *b, size_t blen) {
  int c = strncmp(a, b, blen);
  if (c) return c;
  return a[blen] ? 1 : 0;
}

/* Index of the first pass whose argument is >= name. */
static size_t lower_bound(kr_context *ctx, const char *name, size_t len) {
  const kr_pass_def **defs = KR_VEC_DATA(&ctx->passes, const kr_pass_def *);
  size_t lo = 0, hi = ctx->passes.len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cmp_name(defs[mid]->argument, name, len) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

kr_status kr_context_register_pass(kr_context *ctx, const kr_pass_def *def) {
  if (!def || !def->argument || !def->argument[0] || !def->run)
    return kr_emit_error(ctx, ctx->unknown_loc, "invalid pass definition: it needs an argument and a run function");
  size_t len = strlen(def->argument);
  if (strpbrk(def->argument, ",(){} \t\n"))
    return kr_emit_error(ctx, ctx->unknown_loc, "invalid pass argument '%s': it may not contain ',(){}' or spaces",
                         def->argument);
  size_t at = lower_bound(ctx, def->argument, len);
  const kr_pass_def **defs = KR_VEC_DATA(&ctx->passes, const kr_pass_def *);
  if (at < ctx->passes.len && strcmp(defs[at]->argument, def->argument) == 0) {
    if (defs[at] == def) return KR_SUCCESS;   /* registering the same def twice is harmless */
    return kr_emit_error(ctx, ctx->unknown_loc, "pass '%s' is already registered", def->argument);
  }
  for (unsigned i = 0; i < def->num_options; i++) {
    const kr_pass_option *o = &def->options[i];
    if (!o->name || o->offset >= def->options_size)
      return kr_emit_error(ctx, ctx->unknown_loc, "pass '%s': option %u is outside the options struct",
                           def->argument, i);
  }
  /* Grow by one, then shift the tail right to keep the order. */
  KR_VEC_PUSH(&ctx->passes, const kr_pass_def *, def);
  defs = KR_VEC_DATA(&ctx->passes, const kr_pass_def *);
  memmove(&defs[at + 1], &defs[at], (ctx->passes.len - 1 - at) * sizeof(*defs));
  defs[at] = def;
  return KR_SUCCESS;
}

const kr_pass_def *kr_context_lookup_pass(kr_context *ctx, const char *name, size_t len) {
  size_t at = lower_bound(ctx, name, len);
  if (at >= ctx->passes.len) return NULL;
  const kr_pass_def *d = KR_VEC_AT(&ctx->passes, const kr_pass_def *, at);
  return cmp_name(d->argument, name, len) == 0 ? d : NULL;
}

unsigned kr_context_num_passes(kr_context *ctx) { return (unsigned)ctx->passes.len; }

const kr_pass_def *kr_context_pass_at(kr_context *ctx, unsigned i) {
  return i < ctx->passes.len ? KR_VEC_AT(&ctx->passes, const kr_pass_def *, i) : NULL;
}

kr_status kr_register_core_passes(kr_context *ctx) {
  static const kr_pass_def *const core[] = {
    &kr_canonicalize_pass, &kr_cse_pass, &kr_dce_pass, &kr_symbol_dce_pass, &kr_inline_pass,
    &kr_prim_reduce_as_matvec_pass, &kr_prim_normalize_after_matmul_pass,
    &kr_op_to_prim_pass, &kr_orchestrate_pass, &kr_schedule_pass, &kr_lower_task_mappings_pass,
    &kr_plan_buffers_pass, &kr_plan_verify_pass,
  };
  for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
    if (KR_FAILED(kr_context_register_pass(ctx, core[i]))) return KR_FAILURE;
  return KR_SUCCESS;
}
