/* passes/orchestrate/orch.h - kernel orchestration (Korch, ASPLOS'24, §4-5): the prim graph, its
 * regions, candidate kernels, their cost, and the selection.  Private to passes/orchestrate/.
 *
 *   graph.c       kr_orch_graph_build: the prim graph of one function, split into regions
 *   candidates.c  kr_orch_enumerate: convex connected sub-graphs inside the schedulability
 *                 contract (docs/Orchestration.md), with their output sets and canonical hashes
 *   cost.c        kr_orch_cost: profile database, else the analytic model
 *   select.c      kr_orch_select_optimal (the BLP, CBC through korch/milp.h, cycle cuts),
 *                 kr_orch_select_greedy, kr_orch_select_unfused
 *   emit.c        kr_orch_emit: the kernel level (kernel.func + kernel.launch)
 *   report.c      the orchestration report and the DOT picture
 *   orchestrate.c the `orchestrate` pass
 *
 * Determinism: everything is ordered by node index (block order of the function) and by
 * candidate index (enumeration order, itself a function of node indices only); no pointer values
 * or hash-table iteration orders decide anything, so the same input gives byte-identical output. */
#ifndef KORCH_PASSES_ORCHESTRATE_ORCH_H
#define KORCH_PASSES_ORCHESTRATE_ORCH_H

#include <stdint.h>

#include "korch/adt.h"
#include "korch/diag.h"
#include "korch/milp.h"
#include "korch/prim.h"
#include "korch/target.h"

/* Regions are at most this many nodes (a longer stretch without a cut point is split where the
 * fewest tensors cross); node sets are fixed-size bitsets. */
#define KR_ORCH_MAX_REGION 256
#define KR_ORCH_WORDS (KR_ORCH_MAX_REGION / 64)
typedef struct kr_bits {
  uint64_t w[KR_ORCH_WORDS];
} kr_bits;
static inline void kr_bits_set(kr_bits *b, unsigned i) { b->w[i >> 6] |= 1ull << (i & 63); }
static inline bool kr_bits_test(const kr_bits *b, unsigned i) { return (b->w[i >> 6] >> (i & 63)) & 1; }
unsigned kr_bits_count(const kr_bits *b);

/* ---------------------------------------------------------------------------------------------
 * The graph.  A node is one non-constant primitive (every primitive has one result: the node's
 * tensor).  Function arguments and prim.constant results are *external* inputs: always
 * available, never produced by a kernel. */
typedef struct kr_orch_node {
  kr_op *op;
  kr_prim_class cls;
  unsigned region;            /* index into graph.regions */
  unsigned local;             /* index inside its region (0..region.n) */
  unsigned *preds;            /* global indices of the nodes producing its operands (distinct, sorted) */
  unsigned num_preds;
  unsigned *succs;            /* global indices of the nodes using its tensor (distinct, sorted) */
  unsigned num_succs;
  bool live_out;              /* used by the terminator (a function result) or by a node of another region */
  int64_t bytes;              /* size of its tensor */
  double flops;               /* arithmetic of the primitive (cost.c's rule; 0 for layout) */
} kr_orch_node;

typedef struct kr_orch_region {
  unsigned first, n;          /* nodes[first .. first + n), consecutive in block order */
} kr_orch_region;

typedef struct kr_orch_graph {
  kr_op *func;
  kr_orch_node *nodes;        /* in block order (a topological order) */
  unsigned num_nodes;
  kr_orch_region *regions;
  unsigned num_regions;
} kr_orch_graph;

/* Builds the graph of `func` (a func.func whose body holds prims, constants and its return) and
 * partitions it into regions of consecutive nodes, at most `max_region` (<= KR_ORCH_MAX_REGION)
 * each: within the next max_region positions a region ends where the fewest tensors cross (a cut
 * point, a tensor every path crosses, is one crossing; ties: the latest position), so stretches
 * between cut points are packed together and a region never splits a residual block that fits.
 * Regions are independent sub-problems whose boundary tensors are written.  Reports ops it
 * cannot take (a non-prim op other than constants and the terminator) at the op.  The graph owns
 * its arrays. */
kr_status kr_orch_graph_build(kr_op *func, unsigned max_region, kr_orch_graph *g);
void kr_orch_graph_free(kr_orch_graph *g);

/* ---------------------------------------------------------------------------------------------
 * Candidates. */
typedef enum kr_kernel_kind {
  KR_KERNEL_INJECTIVE,        /* elementwise + layout only */
  KR_KERNEL_REDUCTION,        /* one reduction domain, with elementwise/broadcast around it */
  KR_KERNEL_LINEAR,           /* one matmul or conv with prologues and epilogues */
} kr_kernel_kind;
const char *kr_kernel_kind_name(kr_kernel_kind k);   /* "injective", "reduction", "linear" */

typedef struct kr_candidate {
  unsigned region;
  kr_bits nodes;              /* region-local indices of its primitives */
  kr_bits writes;             /* the subset whose tensors it writes to memory; contains every sink
                               * of the sub-graph (a node none of whose users is inside) */
  unsigned size;              /* number of nodes */
  kr_kernel_kind kind;
  uint64_t hash;              /* canonical: the sub-graph's op names, attributes, operand wiring
                               * (in node order), tensor types and which are written — equal for
                               * structurally identical candidates anywhere (the profile key) */
  double cost_us;             /* filled by kr_orch_cost */
  bool profiled;              /* cost from the profile database */
} kr_candidate;

typedef struct kr_orch_options {
  unsigned max_size;          /* primitives per candidate (default 16) */
  unsigned max_region;        /* default 128 */
  unsigned max_candidates;    /* per region, a safety cap (default 20000); reported when hit */
  double time_limit_s;        /* per region BLP (default 10) */
  double rel_gap;             /* default 0: prove optimality */
  const char *dump_milp_dir;  /* LP file per region, or NULL */
} kr_orch_options;

/* The sub-graph `nodes` of region r is inside the schedulability contract: connected (ignoring
 * direction), convex (no path leaves it and comes back), at most max_size nodes, and of one kind:
 *  - injective: only elementwise and layout primitives;
 *  - reduction: reductions (reduce_sum/max/min/prod, arg_max/min) that all read tensors of one
 *    shape and reduce the same axes (the "row" domain), plus elementwise primitives and
 *    broadcasts/reshapes whose tensors have the row shape or the reduced shape (with or without
 *    the kept 1s); cum_sum and reduce_window only alone or with elementwise prologues/epilogues
 *    of their input/output shape;
 *  - linear: exactly one matmul or conv; elementwise/layout prologue nodes only feed (transitively)
 *    its operands; elementwise/broadcast epilogue nodes consume (transitively) its result and have
 *    its result's shape.
 * Fills *kind.  This is the contract the scheduling issue implements: every candidate enumerated
 * is schedulable (docs/Orchestration.md states it for users). */
bool kr_orch_schedulable(const kr_orch_graph *g, unsigned r, const kr_bits *nodes, unsigned max_size,
                         kr_kernel_kind *kind);

/* Appends to `out` (a kr_vec of kr_candidate) every schedulable candidate of region r with each
 * of its output sets: writes = sinks + any subset of the other nodes with a user outside the
 * sub-graph or live_out (all subsets when there are at most 3 such optional nodes, else only
 * the two extremes); every single node is a candidate (so a plan always exists).  Candidates
 * come in a deterministic order; duplicates (equal node and write sets) never appear.  Stops at
 * max_candidates and sets *truncated. */
kr_status kr_orch_enumerate(const kr_orch_graph *g, unsigned r, const kr_orch_options *o, kr_vec *out,
                            bool *truncated);

/* The tensors (global node indices) candidate c reads from other kernels: preds of its nodes that
 * are not in it (sorted, distinct); returns the count, fills up to cap. */
unsigned kr_orch_inputs(const kr_orch_graph *g, const kr_candidate *c, unsigned *out, unsigned cap);

/* ---------------------------------------------------------------------------------------------
 * Cost. */
typedef struct kr_cost_model {
  const kr_target *target;
  const kr_profile_db *db;    /* may be NULL */
} kr_cost_model;

/* Modelled (or measured) time of candidate c in microseconds: the profile database's entry for
 * (target, c->hash) when present, else launch_overhead + max(bytes / DRAM bandwidth,
 * flops / peak) where bytes = every distinct input tensor (node tensors from other kernels,
 * arguments, constants) read once + every written tensor written once, and the peak is FP32 for
 * injective/reduction kernels and the tensor-core rate of the element type for linear ones
 * (TF32 for f32, FP16 for f16/bf16).  Sets c->cost_us and c->profiled. */
void kr_orch_cost(const kr_orch_graph *g, kr_candidate *c, const kr_cost_model *m);

/* ---------------------------------------------------------------------------------------------
 * Selection: a plan of region r is a set of candidate indices (into the region's candidate
 * vector) that covers: every live_out node of r is written by a chosen candidate; every input
 * tensor (inside r) of a chosen candidate is written by a chosen candidate; and the chosen
 * candidates can be ordered so each runs after the writers of its inputs (no cycle). */
typedef struct kr_orch_plan {
  unsigned *chosen;           /* candidate indices, in a valid launch order */
  unsigned num_chosen;
  double cost_us;
  kr_milp_status status;      /* optimal plans: the BLP status; baselines: KR_MILP_OPTIMAL */
  double gap, solve_seconds;
  unsigned num_vars, num_rows, num_cuts;
} kr_orch_plan;

void kr_orch_plan_free(kr_orch_plan *p);
/* One candidate per needed primitive (one that reaches a live-out node), writing its tensor;
 * all three selections cover only the needed primitives, so their costs compare like with like. */
kr_status kr_orch_select_unfused(const kr_orch_graph *g, unsigned r, const kr_candidate *cands, unsigned n,
                                 kr_orch_plan *out);
/* Hidet-style greedy fusion: anchors (linear, then reduction primitives) absorb their elementwise
 * /layout prologue chains (single-use producers) and epilogue chains (single-user consumers)
 * while the group stays schedulable; remaining primitives form injective groups the same way. */
kr_status kr_orch_select_greedy(const kr_orch_graph *g, unsigned r, const kr_candidate *cands, unsigned n,
                                const kr_orch_options *o, kr_orch_plan *out);
/* The BLP of Korch §5 solved with CBC (after dropping dominated candidates, which cannot change
 * the optimum; docs/Orchestration.md), the greedy plan as MIP start; cycles in a solution are cut
 * (sum of the cycle's x <= len - 1) and the problem re-solved until none remain.  At a time limit
 * keeps the incumbent and warns with the gap; on solver failure falls back to `greedy` with a
 * warning (status says which). */
kr_status kr_orch_select_optimal(const kr_orch_graph *g, unsigned r, const kr_candidate *cands, unsigned n,
                                 const kr_orch_plan *greedy, const kr_orch_options *o, kr_orch_plan *out);

/* ---------------------------------------------------------------------------------------------
 * Emission: rewrites g->func into the kernel level from one plan per region: each chosen
 * candidate becomes a `kernel.func` (symbol "<func>_k<N>", N in launch order) in the module,
 * holding clones of its primitives (splat/small constants cloned inside; other constants and
 * external inputs become arguments), and a `kernel.launch` in the function, in launch order; the
 * function's prim ops are erased.  Attributes on kernel.func: `korch.kind` (string),
 * `korch.hash` (string, 16 hex digits), `korch.cost_us` (f64), `korch.recomputed` (array<i64>
 * of local indices of primitives also computed by another kernel; absent when none). */
kr_status kr_orch_emit(kr_orch_graph *g, kr_vec *cands_per_region, const kr_orch_plan *plans);

/* The kernel.func of candidate c named `name`, detached (the caller inserts it), exactly as
 * kr_orch_emit builds it: arguments = the candidate's external inputs in order of first use,
 * small constants cloned inside, results = its written tensors in node order, the korch.*
 * attributes (korch.recomputed from `times_computed`, per region-local node how many chosen
 * kernels compute it; NULL: none).  `inputs` (a kr_vec of kr_value, emptied first) receives the
 * values of g->func that the arguments stand for.  Also used by kr_artifact_emit_candidates
 * (backend/artifact/candidates.c) to build the one-kernel modules that korch-run --profile
 * measures, so a profiled kernel is the kernel orchestration would emit. */
kr_op *kr_orch_kernel_func(const kr_orch_graph *g, const kr_candidate *c, const char *name,
                           const unsigned *times_computed, kr_vec *inputs);

#endif
