/* passes/canonicalize.c - `canonicalize` (MLIR's Canonicalizer): every registered op's and
 * dialect's canonicalization patterns plus folding and dead-code removal, applied greedily to the
 * ops nested in the op the pass runs on.  Best effort: not converging is not an error unless
 * test-convergence is set. */
#include <stddef.h>

#include "passes/pass_impl.h"

typedef struct canonicalize_options {
  int64_t max_iterations;
  int64_t max_num_rewrites;
  bool region_simplify;
  bool test_convergence;
  bool top_down;
} canonicalize_options;

static const kr_pass_option canonicalize_options_table[] = {
  {"max-iterations", KR_OPT_INT, offsetof(canonicalize_options, max_iterations), "10",
   "Max. iterations between applying patterns / simplifying regions (-1: no limit)"},
  {"max-num-rewrites", KR_OPT_INT, offsetof(canonicalize_options, max_num_rewrites), "-1",
   "Max. number of pattern rewrites within an iteration (-1: no limit)"},
  {"region-simplify", KR_OPT_BOOL, offsetof(canonicalize_options, region_simplify), "true",
   "Erase blocks unreachable from their region's entry block"},
  {"test-convergence", KR_OPT_BOOL, offsetof(canonicalize_options, test_convergence), "false",
   "Test only: fail the pass when the rewrite does not converge"},
  {"top-down", KR_OPT_BOOL, offsetof(canonicalize_options, top_down), "true",
   "Seed the worklist in general top-down order"},
};

static kr_status canonicalize_run(kr_op *op, const void *options, kr_pass_run *run) {
  const canonicalize_options *o = options;
  kr_context *ctx = kr_pass_run_context(run);
  kr_pattern_set patterns = {{0}};
  kr_pattern_set_add_canonicalization(&patterns, ctx);
  kr_greedy_config config;
  kr_greedy_config_default(&config);
  config.max_iterations = o->max_iterations < 0 ? -1 : (int)o->max_iterations;
  config.max_rewrites = o->max_num_rewrites < 0 ? -1 : (int)o->max_num_rewrites;
  config.top_down = o->top_down;
  config.region_simplify = o->region_simplify;
  bool changed = false;
  kr_status converged = kr_apply_patterns_greedily(op, &patterns, &config, &changed);
  kr_pattern_set_free(&patterns);
  if (!changed) kr_pass_run_mark_unchanged(run);
  if (o->test_convergence && KR_FAILED(converged))
    return kr_op_emit_error(op, "canonicalization did not converge within %lld iterations",
                            (long long)o->max_iterations);
  return KR_SUCCESS;
}

const kr_pass_def kr_canonicalize_pass = {
  .argument = "canonicalize",
  .summary = "Canonicalize operations",
  .anchor = NULL,
  .options_size = sizeof(canonicalize_options),
  .options = canonicalize_options_table,
  .num_options = sizeof(canonicalize_options_table) / sizeof(canonicalize_options_table[0]),
  .run = canonicalize_run,
  .display_name = "Canonicalizer",
};
