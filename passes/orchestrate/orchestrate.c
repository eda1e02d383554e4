/* passes/orchestrate/orchestrate.c - the `orchestrate` pass (Korch, ASPLOS'24, §4-5): for every
 * func.func of a prim-level module, builds the primitive graph and its regions (graph.c),
 * enumerates the candidate kernels of each region (candidates.c), costs them (cost.c), selects
 * the kernels (select.c: unfused and greedy always, for the report; the BLP in mode `optimal`)
 * and rewrites the function into the kernel level (emit.c).  docs/Orchestration.md.
 *
 * Options (docs/Passes.md): target (a built-in name or an XML path; default: the module's
 * `korch.target`, else "h200"; stored on the module), mode (optimal | greedy | unfused),
 * max-size, max-region, max-candidates, time-limit (seconds per region), rel-gap, profile-db
 * (measured kernel times), report (the orchestration report), view-graph (a .dot file),
 * dump-milp (a directory: one LP file per region, `<func>.region<N>.lp`).  Files are written
 * only when asked for, atomically; nothing goes to stdout. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "passes/orchestrate/orch.h"
#include "passes/orchestrate/report.h"
#include "passes/pass_impl.h"

typedef struct orchestrate_options {
  const char *target;
  const char *mode;
  uint64_t max_size, max_region, max_candidates;
  double time_limit, rel_gap;
  const char *profile_db, *report, *view_graph, *dump_milp;
} orchestrate_options;

static const kr_pass_option orchestrate_options_table[] = {
  {"target", KR_OPT_STRING, offsetof(orchestrate_options, target), NULL,
   "GPU target of the cost model: a built-in name (a100, h100, h200, v100) or an XML file; default: the module's "
   "korch.target, else h200"},
  {"mode", KR_OPT_STRING, offsetof(orchestrate_options, mode), "optimal",
   "Kernel selection: optimal (the BLP), greedy (Hidet-style fusion) or unfused (one kernel per primitive)"},
  {"max-size", KR_OPT_UINT, offsetof(orchestrate_options, max_size), "16", "Primitives per candidate kernel"},
  {"max-region", KR_OPT_UINT, offsetof(orchestrate_options, max_region), "128",
   "Primitives per region (at most 256); longer stretches are split"},
  {"max-candidates", KR_OPT_UINT, offsetof(orchestrate_options, max_candidates), "20000",
   "Candidates per region, a safety cap (the report marks regions that hit it)"},
  {"time-limit", KR_OPT_DOUBLE, offsetof(orchestrate_options, time_limit), "10",
   "Wall-clock seconds per region for the BLP (0: none)"},
  {"rel-gap", KR_OPT_DOUBLE, offsetof(orchestrate_options, rel_gap), "0",
   "Relative optimality gap at which the BLP stops (0: prove optimality)"},
  {"profile-db", KR_OPT_STRING, offsetof(orchestrate_options, profile_db), NULL,
   "Profile database (XML) of measured kernel times, preferred over the analytic model"},
  {"report", KR_OPT_STRING, offsetof(orchestrate_options, report), NULL, "Write the orchestration report to this file"},
  {"view-graph", KR_OPT_STRING, offsetof(orchestrate_options, view_graph), NULL,
   "Write a Graphviz picture of the kernels over the primitives to this .dot file"},
  {"dump-milp", KR_OPT_STRING, offsetof(orchestrate_options, dump_milp), NULL,
   "Write each region's BLP as an LP file into this directory"},
};

typedef enum orch_mode { MODE_OPTIMAL, MODE_GREEDY, MODE_UNFUSED } orch_mode;

static bool set(const char *s) { return s && s[0]; }

/* Checks that `func`'s body is prim-level; *has_prims tells whether there is anything to do. */
static kr_status check_function(kr_op *func, bool *has_prims) {
  *has_prims = false;
  kr_op *bad = NULL;
  kr_block *body = func->regions[0].first;
  for (kr_op *op = body ? body->first : NULL; op; op = op->next) {
    kr_prim_class c = kr_prim_op_class(op);
    if (c != KR_PRIM_NOT_PRIM) {
      if (c != KR_PRIM_CONSTANT) *has_prims = true;
      continue;
    }
    if (kr_op_has_trait(op, KR_TRAIT_CONSTANT_LIKE) || op == kr_block_terminator(body)) continue;
    if (!strncmp(op->name, "op.", 3))
      return kr_op_emit_error(op, "orchestrate needs the prim level: run op-to-prim first");
    if (!bad) bad = op;
  }
  if (bad && *has_prims)
    return kr_op_emit_error(bad, "orchestrate cannot place this op in a kernel: a function to orchestrate may hold "
                                 "only primitives, constants and its return");
  return KR_SUCCESS;
}

typedef struct func_work {
  kr_orch_graph g;
  kr_vec *cands;
  bool *truncated;
  kr_orch_plan *unfused, *greedy, *optimal;
} func_work;

static void func_work_free(func_work *w) {
  unsigned n = w->g.num_regions;
  for (unsigned r = 0; r < n; r++) {
    if (w->cands) kr_vec_free(&w->cands[r]);
    if (w->unfused) kr_orch_plan_free(&w->unfused[r]);
    if (w->greedy) kr_orch_plan_free(&w->greedy[r]);
    if (w->optimal) kr_orch_plan_free(&w->optimal[r]);
  }
  free(w->cands);
  free(w->truncated);
  free(w->unfused);
  free(w->greedy);
  free(w->optimal);
  kr_orch_graph_free(&w->g);
}

static kr_status orchestrate_function(kr_op *func, orch_mode mode, const kr_orch_options *oo, const kr_cost_model *cm,
                                      kr_ostream *report, kr_ostream *dot, unsigned index) {
  bool has_prims;
  if (KR_FAILED(check_function(func, &has_prims))) return KR_FAILURE;
  if (!has_prims) return KR_SUCCESS;
  func_work w;
  memset(&w, 0, sizeof w);
  if (KR_FAILED(kr_orch_graph_build(func, oo->max_region, &w.g))) return KR_FAILURE;
  kr_status st = KR_FAILURE;
  unsigned nr = w.g.num_regions;
  w.cands = calloc(nr + 1, sizeof *w.cands);
  w.truncated = calloc(nr + 1, sizeof *w.truncated);
  w.unfused = calloc(nr + 1, sizeof *w.unfused);
  w.greedy = calloc(nr + 1, sizeof *w.greedy);
  if (mode == MODE_OPTIMAL) w.optimal = calloc(nr + 1, sizeof *w.optimal);
  if (!w.cands || !w.truncated || !w.unfused || !w.greedy || (mode == MODE_OPTIMAL && !w.optimal)) {
    kr_op_emit_error(func, "orchestration: out of memory");
    goto done;
  }
  for (unsigned r = 0; r < nr; r++) {
    if (KR_FAILED(kr_orch_enumerate(&w.g, r, oo, &w.cands[r], &w.truncated[r]))) goto done;
    if (w.truncated[r])
      kr_op_emit_warning(func, "orchestration: region %u stopped enumerating at max-candidates (%u); the plan may "
                               "miss larger kernels",
                         r, oo->max_candidates);
    kr_candidate *cands = KR_VEC_DATA(&w.cands[r], kr_candidate);
    unsigned n = (unsigned)w.cands[r].len;
    for (unsigned k = 0; k < n; k++) kr_orch_cost(&w.g, &cands[k], cm);
    if (KR_FAILED(kr_orch_select_unfused(&w.g, r, cands, n, &w.unfused[r]))) goto done;
    if (KR_FAILED(kr_orch_select_greedy(&w.g, r, cands, n, oo, &w.greedy[r]))) goto done;
    if (mode == MODE_OPTIMAL && KR_FAILED(kr_orch_select_optimal(&w.g, r, cands, n, &w.greedy[r], oo, &w.optimal[r])))
      goto done;
  }
  const kr_orch_plan *chosen = mode == MODE_OPTIMAL ? w.optimal : mode == MODE_GREEDY ? w.greedy : w.unfused;
  kr_orch_func_result fr = {.g = &w.g,
                            .cands = w.cands,
                            .truncated = w.truncated,
                            .unfused = w.unfused,
                            .greedy = w.greedy,
                            .optimal = w.optimal,
                            .chosen = chosen};
  if (report) kr_orch_report_function(report, &fr);
  if (dot) kr_orch_dot_function(dot, index, &fr);
  st = kr_orch_emit(&w.g, w.cands, chosen);
done:
  func_work_free(&w);
  return st;
}

static kr_status orchestrate_run(kr_op *module, const void *options, kr_pass_run *run) {
  const orchestrate_options *opt = options;
  kr_context *ctx = kr_pass_run_context(run);
  kr_attr loc = module->loc;
  orch_mode mode;
  /* An empty `mode=` is an error like any other unknown mode (it does not mean the default). */
  const char *mode_s = opt->mode ? opt->mode : "optimal";
  if (!strcmp(mode_s, "optimal"))
    mode = MODE_OPTIMAL;
  else if (!strcmp(mode_s, "greedy"))
    mode = MODE_GREEDY;
  else if (!strcmp(mode_s, "unfused"))
    mode = MODE_UNFUSED;
  else
    return kr_emit_error(ctx, loc, "orchestrate: mode must be 'optimal', 'greedy' or 'unfused', not '%s'", mode_s);
  if (opt->max_size < 1 || opt->max_size > KR_ORCH_MAX_REGION)
    return kr_emit_error(ctx, loc, "orchestrate: max-size must be in [1, %d]", KR_ORCH_MAX_REGION);
  if (opt->max_region < 1 || opt->max_region > KR_ORCH_MAX_REGION)
    return kr_emit_error(ctx, loc, "orchestrate: max-region must be in [1, %d]", KR_ORCH_MAX_REGION);
  if (opt->max_candidates < 1 || opt->max_candidates > 100000000)
    return kr_emit_error(ctx, loc, "orchestrate: max-candidates must be in [1, 100000000]");
  if (!(opt->time_limit >= 0) || !(opt->rel_gap >= 0))
    return kr_emit_error(ctx, loc, "orchestrate: time-limit and rel-gap must be non-negative");

  kr_target target;
  const char *target_name = set(opt->target) ? opt->target : NULL;
  if (target_name) {
    if (KR_FAILED(kr_target_load(ctx, target_name, loc, &target))) return KR_FAILURE;
    kr_target_set_module(module, target_name);
  } else {
    if (KR_FAILED(kr_target_of_module(module, &target))) return KR_FAILURE;
    if (!kr_op_get_attr(module, KR_TARGET_ATTR)) kr_target_set_module(module, KR_TARGET_DEFAULT);
  }
  kr_profile_db db = {0};
  bool have_db = false;
  if (set(opt->profile_db)) {
    if (KR_FAILED(kr_profile_db_load(ctx, opt->profile_db, loc, &db))) return KR_FAILURE;
    have_db = true;
  }
  if (set(opt->dump_milp) && mkdir(opt->dump_milp, 0777) != 0 && errno != EEXIST) {
    if (have_db) kr_profile_db_free(&db);
    return kr_emit_error(ctx, loc, "orchestrate: cannot create the directory '%s': %s", opt->dump_milp, strerror(errno));
  }
  kr_orch_options oo = {.max_size = (unsigned)opt->max_size,
                        .max_region = (unsigned)opt->max_region,
                        .max_candidates = (unsigned)opt->max_candidates,
                        .time_limit_s = opt->time_limit,
                        .rel_gap = opt->rel_gap,
                        .dump_milp_dir = set(opt->dump_milp) ? opt->dump_milp : NULL};
  kr_cost_model cm = {.target = &target, .db = have_db ? &db : NULL};
  kr_ostream report, dot;
  bool want_report = set(opt->report), want_dot = set(opt->view_graph);
  if (want_report) {
    kr_ostream_init_mem(&report);
    kr_orch_report_header(&report, &target, mode_s, &oo);
  }
  if (want_dot) {
    kr_ostream_init_mem(&dot);
    kr_orch_dot_begin(&dot);
  }
  /* The functions first (emission adds kernel.funcs to the module as it goes). */
  kr_vec funcs = {0};
  kr_block *mb = module->num_regions ? module->regions[0].first : NULL;
  for (kr_op *op = mb ? mb->first : NULL; op; op = op->next)
    if (!strcmp(op->name, "func.func") && op->regions[0].first) KR_VEC_PUSH(&funcs, kr_op *, op);
  kr_status st = KR_SUCCESS;
  for (size_t i = 0; i < funcs.len && !KR_FAILED(st); i++)
    st = orchestrate_function(KR_VEC_AT(&funcs, kr_op *, i), mode, &oo, &cm, want_report ? &report : NULL,
                              want_dot ? &dot : NULL, (unsigned)i);
  kr_vec_free(&funcs);
  if (!KR_FAILED(st) && want_report) st = kr_orch_write_file(ctx, loc, opt->report, &report);
  if (want_dot) kr_orch_dot_end(&dot);
  if (!KR_FAILED(st) && want_dot) st = kr_orch_write_file(ctx, loc, opt->view_graph, &dot);
  if (want_report) kr_ostream_close(&report);
  if (want_dot) kr_ostream_close(&dot);
  if (have_db) kr_profile_db_free(&db);
  return st;
}

const kr_pass_def kr_orchestrate_pass = {
  .argument = "orchestrate",
  .summary = "Choose the kernels of every prim-level function by a binary linear program (Korch §5) and rewrite it "
             "into kernel.func + kernel.launch",
  .anchor = KR_MODULE_OP,
  .options_size = sizeof(orchestrate_options),
  .options = orchestrate_options_table,
  .num_options = sizeof orchestrate_options_table / sizeof *orchestrate_options_table,
  .run = orchestrate_run,
  .display_name = "Orchestrate",
};
