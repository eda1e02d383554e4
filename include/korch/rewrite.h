/* korch/rewrite.h - the pattern rewriter and the greedy rewrite driver (after MLIR's
 * PatternRewriter and applyPatternsAndFoldGreedily). */
#ifndef KORCH_REWRITE_H
#define KORCH_REWRITE_H

#include "korch/dialect.h"
#include "korch/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_rewrite_listener {
  void (*op_inserted)(kr_op *op, void *user);
  void (*op_erased)(kr_op *op, void *user);      /* before it is erased */
  void (*op_modified)(kr_op *op, void *user);
  void *user;
} kr_rewrite_listener;

/* All IR changes a pattern makes go through the rewriter so the driver can track them. */
struct kr_rewriter {
  kr_builder builder;
  kr_rewrite_listener listener;
};

void kr_rewriter_init(kr_rewriter *rw, kr_context *ctx);
void kr_rewriter_set_insertion_point_before(kr_rewriter *rw, kr_op *op);
void kr_rewriter_set_insertion_point_after(kr_rewriter *rw, kr_op *op);
/* Creates and inserts at the insertion point; NULL on failure. */
kr_op *kr_rewriter_create(kr_rewriter *rw, const kr_op_state *st);
/* Replaces op's results with `vals` (num_results entries) and erases op. */
void kr_rewriter_replace_op(kr_rewriter *rw, kr_op *op, const kr_value *vals);
void kr_rewriter_erase_op(kr_rewriter *rw, kr_op *op);
void kr_rewriter_replace_all_uses(kr_rewriter *rw, kr_value from, kr_value to);
/* Brackets an in-place change (operands or attributes) of `op`. */
void kr_rewriter_modified(kr_rewriter *rw, kr_op *op);
/* Inlines `src` block's ops before `before`, replacing block args with `args`; `src` is erased. */
void kr_rewriter_inline_block_before(kr_rewriter *rw, kr_block *src, kr_op *before, const kr_value *args);

typedef struct kr_greedy_config {
  int max_iterations;   /* sweeps until fixpoint; default 10; -1 unbounded */
  int max_rewrites;     /* per sweep; -1 unbounded */
  bool fold;            /* try kr_op_def::fold (default true) */
  bool top_down;        /* seed the worklist in pre-order (default true) */
  /* After each sweep, erase blocks unreachable from their region's entry (MLIR's
   * enableRegionSimplification; default true). */
  bool region_simplify;
} kr_greedy_config;

void kr_greedy_config_default(kr_greedy_config *c);

/* A set of patterns, sorted by benefit (highest first). */
typedef struct kr_pattern_set {
  kr_vec patterns;   /* const kr_pattern * */
} kr_pattern_set;
void kr_pattern_set_add(kr_pattern_set *s, const kr_pattern *p);
void kr_pattern_set_add_array(kr_pattern_set *s, const kr_pattern *p, unsigned n);
/* Adds every canonicalization pattern of every registered dialect and op. */
void kr_pattern_set_add_canonicalization(kr_pattern_set *s, kr_context *ctx);
void kr_pattern_set_free(kr_pattern_set *s);

/* Applies patterns, folding and trivial dead-code removal to the ops nested in `root`'s regions
 * until nothing changes or the limits are hit.  *changed (may be NULL) tells whether the IR changed.
 * Returns KR_FAILURE (no diagnostic) when it did not converge within max_iterations. */
kr_status kr_apply_patterns_greedily(kr_op *root, const kr_pattern_set *patterns,
                                     const kr_greedy_config *config, bool *changed);

/* Tries to fold one op in place using constant operands; materializes constants through the
 * dialect hook before `op`.  Returns KR_SUCCESS if op was folded (op erased, uses replaced), or
 * updated in place (the fold hook returned op's own results; op stays).  Constant-like ops are
 * never folded (MLIR: that would rematerialize them forever). */
kr_status kr_op_try_fold(kr_rewriter *rw, kr_op *op);

/* Whether `op` can be erased when its results are unused: pure, or region op with
 * KR_TRAIT_NO_SIDE_EFFECT_REGIONS whose nested ops are all pure, and not a terminator or symbol. */
bool kr_op_is_trivially_dead(kr_op *op);
/* The constant attribute `op` produces (KR_TRAIT_CONSTANT_LIKE: its `value` attribute), or NULL. */
kr_attr kr_op_constant_value(kr_op *op);

#ifdef __cplusplus
}
#endif
#endif
