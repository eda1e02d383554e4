/* backend/artifact/candidates.c - kr_artifact_emit_candidates (korch/artifact.h): one artifact per
 * candidate kernel, for korch-run --profile to measure (Korch, ASPLOS'24, section 5: "we profile
 * each candidate kernel on the target GPU"; the BLP then uses the measured times, read back from
 * the profile database by passes/orchestrate/cost.c).
 *
 * The candidates are exactly those --orchestrate enumerates: the same graph and regions
 * (kr_orch_graph_build, max-region 128), the same enumeration (kr_orch_enumerate, max-size and
 * the per-region cap 20000 of the pass's defaults), and each kernel.func is built by the
 * orchestration emitter's own kr_orch_kernel_func, so the hash a measurement is recorded under
 * is the hash --orchestrate looks up, and the kernel measured is the kernel it would emit.
 *
 * Per candidate (unique hash, first occurrence in function / region / enumeration order), a
 * module
 *   module attributes {korch.target = <the module's>} {
 *     kernel.func @<f>_r<R>_c<K>(<its inputs>) -> (<its written tensors>) { <its prims> }
 *     func.func @<f>(<its inputs>) -> (<its written tensors>) {
 *       %r = kernel.launch @<f>_r<R>_c<K>(%args) ; func.return %r }
 *   }
 * is scheduled (`schedule,lower-task-mappings`), planned (kr_plan_buffers) and written with
 * kr_artifact_write_profiled into DIR/<hash>/ with <profile target hash name>.  Inputs that are
 * constants of the original function become arguments too: korch-run fills every input with
 * deterministic values, and a kernel's time does not depend on them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/artifact/artifact_impl.h"
#include "korch/dialect.h"
#include "korch/file.h"
#include "korch/pass.h"
#include "korch/plan.h"
#include "korch/target.h"
#include "passes/orchestrate/orch.h"

/* The orchestrate pass's defaults (passes/orchestrate/orchestrate.c): the enumeration must be
 * the one the pass performs. */
#define CAND_MAX_REGION 128
#define CAND_MAX_PER_REGION 20000
#define CAND_DEFAULT_MAX_SIZE 16

/* Diagnostics of the scheduling of one candidate, held back: a candidate the scheduler rejects
 * is skipped with one warning (carrying the first error), not a failure of the whole run. */
typedef struct held_diags {
  kr_diag_handler old;
  void *old_user;
  bool failed;
  char first_error[512];
  kr_attr first_loc;
} held_diags;

static void hold_handler(const kr_diagnostic *d, void *user) {
  held_diags *h = user;
  if (d->severity == KR_SEV_ERROR) {
    if (!h->failed) {
      snprintf(h->first_error, sizeof h->first_error, "%s", d->message ? d->message : "");
      h->first_loc = d->loc;
    }
    h->failed = true;
    return;
  }
  if (h->old) h->old(d, h->old_user); /* warnings and remarks pass through */
}

/* builtin.module { kernel.func, func.func @<fname> launching it } for candidate c. */
static kr_op *build_module(kr_context *ctx, kr_op *src_module, const kr_orch_graph *g, const kr_candidate *c,
                           const char *kname, const char *fname) {
  kr_vec inputs = {0}, atypes = {0}, rtypes = {0};
  kr_op *kf = kr_orch_kernel_func(g, c, kname, NULL, &inputs);
  for (size_t i = 0; i < inputs.len; i++) KR_VEC_PUSH(&atypes, kr_type, kr_value_type(KR_VEC_AT(&inputs, kr_value, i)));
  unsigned first = g->regions[c->region].first;
  for (unsigned u = 0; u < g->regions[c->region].n; u++)
    if (kr_bits_test(&c->writes, u)) KR_VEC_PUSH(&rtypes, kr_type, kr_value_type(kr_op_result(g->nodes[first + u].op, 0)));
  kr_attr loc = kf->loc;

  kr_op_state ms;
  kr_op_state_init(&ms, ctx, KR_MODULE_OP, loc);
  kr_attr target = kr_op_get_attr(src_module, KR_TARGET_ATTR);
  if (target) kr_op_state_add_attr(&ms, KR_TARGET_ATTR, target);
  kr_region *mr = kr_op_state_add_region(&ms);
  kr_block *mb = kr_block_create(ctx);
  kr_region_append_block(mr, mb);
  kr_op *m = kr_op_create(&ms);
  kr_op_state_free(&ms);
  kr_block_append_op(mb, kf);

  kr_type fty = kr_type_function(ctx, KR_VEC_DATA(&atypes, kr_type), (unsigned)atypes.len, KR_VEC_DATA(&rtypes, kr_type),
                                 (unsigned)rtypes.len);
  kr_op_state fs;
  kr_op_state_init(&fs, ctx, "func.func", loc);
  kr_op_state_add_attr(&fs, "sym_name", kr_attr_string(ctx, fname, strlen(fname)));
  kr_op_state_add_attr(&fs, "function_type", kr_attr_type(ctx, fty));
  kr_region *fr = kr_op_state_add_region(&fs);
  kr_block *fb = kr_block_create(ctx);
  kr_region_append_block(fr, fb);
  kr_vec args = {0};
  for (size_t i = 0; i < atypes.len; i++) KR_VEC_PUSH(&args, kr_value, kr_block_add_arg(fb, KR_VEC_AT(&atypes, kr_type, i), loc));
  kr_op_state ls;
  kr_op_state_init(&ls, ctx, "kernel.launch", loc);
  kr_op_state_add_attr(&ls, "callee", kr_attr_symbol_ref(ctx, kname, NULL, 0));
  kr_op_state_add_operands(&ls, KR_VEC_DATA(&args, kr_value), (unsigned)args.len);
  kr_op_state_add_results(&ls, KR_VEC_DATA(&rtypes, kr_type), (unsigned)rtypes.len);
  kr_op *launch = kr_op_create(&ls);
  kr_op_state_free(&ls);
  kr_block_append_op(fb, launch);
  kr_vec rets = {0};
  for (unsigned i = 0; i < launch->num_results; i++) KR_VEC_PUSH(&rets, kr_value, kr_op_result(launch, i));
  kr_op_state rs;
  kr_op_state_init(&rs, ctx, "func.return", loc);
  kr_op_state_add_operands(&rs, KR_VEC_DATA(&rets, kr_value), (unsigned)rets.len);
  kr_block_append_op(fb, kr_op_create(&rs));
  kr_op_state_free(&rs);
  kr_block_append_op(mb, kr_op_create(&fs));
  kr_op_state_free(&fs);
  kr_vec_free(&inputs);
  kr_vec_free(&atypes);
  kr_vec_free(&rtypes);
  kr_vec_free(&args);
  kr_vec_free(&rets);
  return m;
}

/* The primitives of c joined by ',' ("prim.matmul,prim.add"), for candidates.txt. */
static void prim_list(kr_ostream *os, const kr_orch_graph *g, const kr_candidate *c) {
  unsigned first = g->regions[c->region].first;
  bool any = false;
  for (unsigned u = 0; u < g->regions[c->region].n; u++)
    if (kr_bits_test(&c->nodes, u)) {
      kr_ostream_printf(os, "%s%s", any ? "," : "", g->nodes[first + u].op->name);
      any = true;
    }
}

typedef struct emit_ctx {
  kr_context *ctx;
  kr_op *module;
  const char *dir;
  const kr_artifact_options *options;
  const kr_target *target;
  int64_t max_candidates;
  kr_hmap seen;           /* hash -> written (keys are the hashes themselves) */
  kr_ostream list;        /* candidates.txt */
  unsigned enumerated, duplicates, written, skipped;
  bool stopped;
} emit_ctx;

/* Schedules, plans and writes candidate c (named kname) of graph g. */
static kr_status emit_one(emit_ctx *e, const kr_orch_graph *g, const kr_candidate *c, const char *kname,
                          const char *fname) {
  kr_op *m = build_module(e->ctx, e->module, g, c, kname, fname);
  kr_status st = KR_SUCCESS;
  held_diags h = {0};
  kr_context_get_diag_handler(e->ctx, &h.old, &h.old_user);
  kr_context_set_diag_handler(e->ctx, hold_handler, &h);
  kr_pass_manager *pm = kr_pass_manager_create(e->ctx, KR_MODULE_OP);
  kr_status sst = kr_pass_manager_parse_pipeline(pm, "schedule,lower-task-mappings");
  if (!KR_FAILED(sst)) sst = kr_pass_manager_run(pm, m);
  kr_pass_manager_destroy(pm);
  kr_context_set_diag_handler(e->ctx, h.old, h.old_user);
  char hash[17];
  snprintf(hash, sizeof hash, "%016" PRIx64, c->hash);
  if (KR_FAILED(sst) || h.failed) {
    kr_emit_warning(e->ctx, h.first_loc ? h.first_loc : m->loc,
                    "emit-candidates: candidate %s (hash %s) skipped: the scheduler rejects it: %s", kname, hash,
                    h.first_error);
    e->skipped++;
    goto done;
  }
  kr_plan_options po = kr_plan_default_options();
  if (KR_FAILED(st = kr_plan_buffers(m, &po))) goto done;
  size_t dl = strlen(e->dir);
  char *sub = malloc(dl + 2 + sizeof hash);
  if (!sub) {
    st = kr_emit_error(e->ctx, m->loc, "emit-candidates: out of memory");
    goto done;
  }
  snprintf(sub, dl + 2 + sizeof hash, "%s/%s", e->dir, hash);
  kr_artifact_profile prof = {.target = e->target->name, .hash = hash, .name = kname};
  st = kr_artifact_write_profiled(m, sub, e->options, &prof);
  free(sub);
  if (KR_FAILED(st)) goto done;
  kr_ostream_printf(&e->list, "%s %s ", hash, kname);
  prim_list(&e->list, g, c);
  kr_ostream_printf(&e->list, "\n");
  e->written++;
done:
  kr_op_erase(m);
  return st;
}

static kr_status emit_function(emit_ctx *e, kr_op *func, const kr_orch_options *oo) {
  kr_orch_graph g;
  memset(&g, 0, sizeof g);
  if (KR_FAILED(kr_orch_graph_build(func, oo->max_region, &g))) return KR_FAILURE;
  kr_ident fname = kr_op_symbol_name(func);
  if (!fname) fname = "f";
  kr_cost_model cm = {.target = e->target, .db = NULL};
  kr_status st = KR_SUCCESS;
  for (unsigned r = 0; r < g.num_regions && !KR_FAILED(st) && !e->stopped; r++) {
    kr_vec cands = {0};
    bool truncated = false;
    if (KR_FAILED(st = kr_orch_enumerate(&g, r, oo, &cands, &truncated))) {
      kr_vec_free(&cands);
      break;
    }
    if (truncated)
      kr_op_emit_warning(func, "emit-candidates: region %u stopped enumerating at %u candidates (as the orchestrate "
                               "pass does)", r, oo->max_candidates);
    kr_candidate *cs = KR_VEC_DATA(&cands, kr_candidate);
    e->enumerated += (unsigned)cands.len;
    for (unsigned k = 0; k < (unsigned)cands.len && !KR_FAILED(st); k++) {
      bool inserted = false;
      kr_hmap_insert(&e->seen, cs[k].hash, (const void *)(uintptr_t)cs[k].hash, &inserted);
      if (!inserted) { /* a structurally identical kernel is measured once */
        e->duplicates++;
        continue;
      }
      if (e->max_candidates > 0 && e->written + e->skipped >= (uint64_t)e->max_candidates) {
        kr_op_emit_remark(func, "emit-candidates: stopped after max-candidates (%" PRId64 ") candidates",
                          e->max_candidates);
        e->stopped = true;
        break;
      }
      kr_orch_cost(&g, &cs[k], &cm); /* the analytic estimate, as korch.cost_us */
      char kname[300];
      snprintf(kname, sizeof kname, "%s_r%u_c%u", fname, r, k);
      st = emit_one(e, &g, &cs[k], kname, fname);
    }
    kr_vec_free(&cands);
  }
  kr_orch_graph_free(&g);
  return st;
}

/* *has is whether func holds a primitive other than a constant: functions without one (a host
 * function that --orchestrate already rewrote, a function of constants) are left alone, as the
 * pass does.  An op-level op is an error, as in the pass. */
static kr_status has_prims(kr_op *func, bool *has) {
  *has = false;
  for (kr_op *op = func->regions[0].first->first; op; op = op->next) {
    kr_prim_class c = kr_prim_op_class(op);
    if (c != KR_PRIM_NOT_PRIM && c != KR_PRIM_CONSTANT) *has = true;
    if (!strncmp(op->name, "op.", 3))
      return kr_op_emit_error(op, "emit-candidates needs the prim level (as the orchestrate pass): run op-to-prim first");
  }
  return KR_SUCCESS;
}

kr_status kr_artifact_emit_candidates(kr_op *module, const char *dir, const kr_artifact_options *options,
                                      int64_t max_size, int64_t max_candidates, unsigned *num_written) {
  kr_context *ctx = kr_op_context(module);
  if (num_written) *num_written = 0;
  if (max_size <= 0) max_size = CAND_DEFAULT_MAX_SIZE;
  if (max_size > KR_ORCH_MAX_REGION)
    return kr_emit_error(ctx, module->loc, "emit-candidates: max-size must be in [1, %d]", KR_ORCH_MAX_REGION);
  kr_target target;
  if (KR_FAILED(kr_target_of_module(module, &target))) return KR_FAILURE;
  if (KR_FAILED(kr_register_core_passes(ctx))) return KR_FAILURE; /* idempotent: schedule & co. */
  /* The functions first: a prim-level function is what the orchestrate pass rewrites.  None (a
   * kernel-level, scheduled or planned module) is an error before DIR is created: "0 candidates"
   * would only hide that the module is past the level whose candidates exist. */
  kr_vec funcs = {0};
  kr_block *mb = module->num_regions ? module->regions[0].first : NULL;
  kr_status st = KR_SUCCESS;
  for (kr_op *op = mb ? mb->first : NULL; op && !KR_FAILED(st); op = op->next) {
    bool has = false;
    if (!strcmp(op->name, "func.func") && op->regions[0].first && !KR_FAILED(st = has_prims(op, &has)) && has)
      KR_VEC_PUSH(&funcs, kr_op *, op);
  }
  if (!KR_FAILED(st) && !funcs.len)
    st = kr_emit_error(ctx, module->loc,
                       "emit-candidates needs a prim-level module (a function of primitives, before orchestrate); "
                       "this one has none: it is at the kernel level or later");
  if (KR_FAILED(st)) {
    kr_vec_free(&funcs);
    return st;
  }
  bool created = mkdir(dir, 0777) == 0;
  if (!created && errno != EEXIST) {
    kr_vec_free(&funcs);
    return kr_emit_error(ctx, module->loc, "emit-candidates: cannot create the directory '%s': %s", dir,
                         strerror(errno));
  }
  kr_artifact_options o = options ? *options : kr_artifact_default_options();
  kr_orch_options oo = {.max_size = (unsigned)max_size,
                        .max_region = CAND_MAX_REGION,
                        .max_candidates = CAND_MAX_PER_REGION,
                        .time_limit_s = 10,
                        .rel_gap = 0,
                        .dump_milp_dir = NULL};
  emit_ctx e = {.ctx = ctx, .module = module, .dir = dir, .options = &o, .target = &target,
                .max_candidates = max_candidates};
  kr_ostream_init_mem(&e.list);
  for (size_t i = 0; i < funcs.len && !KR_FAILED(st) && !e.stopped; i++)
    st = emit_function(&e, KR_VEC_AT(&funcs, kr_op *, i), &oo);
  kr_vec_free(&funcs);
  if (!KR_FAILED(st))
    kr_emit_remark(ctx, module->loc,
                   "emit-candidates: %u candidates enumerated (as the orchestrate pass does with max-size %u), %u with a hash "
                   "seen before, %u written to '%s', %u skipped",
                   e.enumerated, oo.max_size, e.duplicates, e.written, dir, e.skipped);
  if (!KR_FAILED(st)) {
    /* candidates.txt last and atomically: it lists only directories that were written. */
    size_t dl = strlen(dir);
    char *path = malloc(dl + sizeof "/candidates.txt");
    kr_file_output out;
    int err = ENOMEM;
    if (path) {
      snprintf(path, dl + sizeof "/candidates.txt", "%s/candidates.txt", dir);
      err = kr_file_output_open(&out, path);
      if (!err) {
        fwrite(kr_ostream_str(&e.list), 1, e.list.len, out.file);
        err = kr_file_output_commit(&out, false);
      }
      kr_file_output_abort(&out);
    }
    if (err) st = kr_emit_error(ctx, module->loc, "emit-candidates: cannot write '%s': %s", path ? path : dir, strerror(err));
    free(path);
  }
  if (KR_FAILED(st) && created) rmdir(dir); /* only when still empty: no candidate was written */
  kr_ostream_close(&e.list);
  kr_hmap_free(&e.seen);
  if (num_written) *num_written = e.written;
  return st;
}
