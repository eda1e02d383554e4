/* passes/pass_manager.c - running pipelines (MLIR's PassManager and OpToOpPassAdaptor).
 *
 * A manager is anchored on an op name and runs its entries in order on one op of that name.  A
 * nested manager entry runs on every op named like its anchor directly nested in the regions of
 * the op (blocks in order; the ops are collected first, so passes may erase ops).  After each
 * pass the op is verified (verify-each) and the instrumentation runs; the first failure stops the
 * whole run. */
#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"
#include "korch/asm.h"
#include "passes/pass_impl.h"

kr_pass_manager *kr_pass_manager_create(kr_context *ctx, const char *anchor) {
  kr_pass_manager *pm = calloc(1, sizeof *pm);
  if (!pm) return NULL;
  pm->ctx = ctx;
  pm->anchor = kr_ident_cstr(ctx, anchor);
  pm->config = &pm->own_config;
  pm->own_config.verify_each = true;
  return pm;
}

static void destroy_rec(kr_pass_manager *pm) {
  for (size_t i = 0; i < pm->entries.len; i++) {
    kr_pm_entry *e = &KR_VEC_AT(&pm->entries, kr_pm_entry, i);
    if (e->nested) destroy_rec(e->nested);
    else kr__pass_instance_free(&e->pass);
  }
  kr_vec_free(&pm->entries);
  if (!pm->parent) {
    kr_vec_free(&pm->own_config.print_after);
    if (pm->own_config.default_os_init) kr_ostream_close(&pm->own_config.default_os);
  }
  free(pm);
}

void kr_pass_manager_destroy(kr_pass_manager *pm) {
  /* A nested manager belongs to its parent: destroying it alone would leave a dangling entry. */
  if (pm && !pm->parent) destroy_rec(pm);
}

kr_pass_manager *kr_pass_manager_nest(kr_pass_manager *pm, const char *anchor) {
  if (pm->entries.len) {
    kr_pm_entry *last = &KR_VEC_AT(&pm->entries, kr_pm_entry, pm->entries.len - 1);
    if (last->nested && strcmp(last->nested->anchor, anchor) == 0) return last->nested;
  }
  return kr__pass_manager_nest_new(pm, anchor, strlen(anchor));
}

void kr_pass_run_mark_unchanged(kr_pass_run *run) { run->unchanged = true; }
kr_context *kr_pass_run_context(kr_pass_run *run) { return run->ctx; }

void kr_pass_manager_set_verify_each(kr_pass_manager *pm, bool on) { pm->config->verify_each = on; }

void kr_pass_manager_set_ir_printing(kr_pass_manager *pm, kr_ir_print_mode mode, kr_ostream *os) {
  pm->config->print_mode = mode;
  if (os) pm->config->print_os = os;
}

void kr_pass_manager_add_print_ir_after(kr_pass_manager *pm, const char *name) {
  KR_VEC_PUSH(&pm->config->print_after, kr_ident, kr_ident_cstr(pm->ctx, name));
}

void kr_pass_manager_enable_timing(kr_pass_manager *pm, kr_ostream *os) { pm->config->timing_os = os; }

void kr_pass_manager_set_print_flags(kr_pass_manager *pm, bool generic, bool debuginfo) {
  pm->config->print_flags.generic = generic;
  pm->config->print_flags.debuginfo = debuginfo;
}

/* Nesting on a registered op that is not isolated from above would let passes on one op see and
 * change values of its siblings; MLIR forbids it, so do we (the parser reports it with a column,
 * this catches managers built with kr_pass_manager_nest). */
static kr_status check_nesting(kr_pass_manager *pm, kr_op *root) {
  for (size_t i = 0; i < pm->entries.len; i++) {
    kr_pm_entry *e = &KR_VEC_AT(&pm->entries, kr_pm_entry, i);
    if (!e->nested) continue;
    const kr_op_def *od = kr_context_lookup_op(pm->ctx, e->nested->anchor);
    if (od && !(od->traits & KR_TRAIT_ISOLATED_FROM_ABOVE))
      return kr_emit_error(pm->ctx, root->loc, "can't nest a pass pipeline on '%s': the op is not isolated from above",
                           e->nested->anchor);
    if (KR_FAILED(check_nesting(e->nested, root))) return KR_FAILURE;
  }
  return KR_SUCCESS;
}

static void reset_timers(kr_pass_manager *pm) {
  for (size_t i = 0; i < pm->entries.len; i++) {
    kr_pm_entry *e = &KR_VEC_AT(&pm->entries, kr_pm_entry, i);
    e->seconds = 0;
    e->runs = 0;
    if (e->nested) reset_timers(e->nested);
  }
}

static kr_status run_on(kr_pass_manager *pm, kr_op *op);

static kr_status run_pass(kr_pass_manager *pm, kr_pm_entry *e, kr_op *op) {
  kr_pm_config *cfg = pm->config;
  const kr_pass_def *def = e->pass.def;
  if (def->anchor && strcmp(def->anchor, op->name) != 0)
    return kr_emit_error(pm->ctx, op->loc, "can't run '%s' pass on '%s' op", def->argument, op->name);
  bool need_fp = false;
  bool print = kr__should_print_after(cfg, def, &need_fp);
  uint64_t before = need_fp ? kr__op_fingerprint(op) : 0;
  kr_pass_run run = {pm->ctx, pm, false};
  double t0 = cfg->timing_os ? kr__now_seconds() : 0;
  kr_status st = def->run(op, e->pass.options, &run);
  if (cfg->timing_os) e->seconds += kr__now_seconds() - t0;
  e->runs++;
  if (KR_FAILED(st)) {
    /* As MLIR: the IR the failed pass left behind, for debugging it. */
    if (print) kr__print_ir_after(cfg, def, op, true);
    return KR_FAILURE;
  }
  if (cfg->verify_each && KR_FAILED(kr_op_verify(op)))
    return kr_emit_error(pm->ctx, op->loc, "verification failed after pass '%s'", def->argument);
  if (print && need_fp) print = !run.unchanged && kr__op_fingerprint(op) != before;
  if (print) kr__print_ir_after(cfg, def, op, false);
  return KR_SUCCESS;
}

static kr_status run_nested(kr_pass_manager *pm, kr_pm_entry *e, kr_op *op) {
  kr_pass_manager *n = e->nested;
  kr_vec targets = {0};
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kr_block *b = op->regions[r].first; b; b = b->next)
      for (kr_op *o = b->first; o; o = o->next)
        if (o->name == n->anchor) KR_VEC_PUSH(&targets, kr_op *, o);
  kr_status st = KR_SUCCESS;
  double t0 = pm->config->timing_os ? kr__now_seconds() : 0;
  for (size_t i = 0; i < targets.len && !KR_FAILED(st); i++) {
    st = run_on(n, KR_VEC_AT(&targets, kr_op *, i));
    e->runs++;
  }
  if (pm->config->timing_os) e->seconds += kr__now_seconds() - t0;
  kr_vec_free(&targets);
  return st;
}

static kr_status run_on(kr_pass_manager *pm, kr_op *op) {
  for (size_t i = 0; i < pm->entries.len; i++) {
    kr_pm_entry *e = &KR_VEC_AT(&pm->entries, kr_pm_entry, i);
    kr_status st = e->nested ? run_nested(pm, e, op) : run_pass(pm, e, op);
    if (KR_FAILED(st)) return KR_FAILURE;
  }
  return KR_SUCCESS;
}

kr_status kr_pass_manager_run(kr_pass_manager *pm, kr_op *root) {
  if (root->name != pm->anchor)
    return kr_emit_error(pm->ctx, root->loc, "can't run '%s' pass manager on '%s' op", pm->anchor, root->name);
  if (KR_FAILED(check_nesting(pm, root))) return KR_FAILURE;
  kr_pm_config *cfg = pm->config;
  reset_timers(pm);
  double t0 = cfg->timing_os ? kr__now_seconds() : 0;
  kr_status st = run_on(pm, root);
  if (cfg->timing_os) kr__print_timing(pm, kr__now_seconds() - t0, cfg->timing_os);
  return st;
}
