/* passes/orchestrate/report.h - the orchestration report and the DOT picture (report.c), shared
 * by the `orchestrate` pass (orchestrate.c).  Private to passes/orchestrate/. */
#ifndef KORCH_PASSES_ORCHESTRATE_REPORT_H
#define KORCH_PASSES_ORCHESTRATE_REPORT_H

#include "korch/ostream.h"
#include "passes/orchestrate/orch.h"

/* What orchestration decided for one function, region by region (arrays of g->num_regions). */
typedef struct kr_orch_func_result {
  const kr_orch_graph *g;
  const kr_vec *cands;             /* kr_candidate per region */
  const bool *truncated;           /* the enumeration stopped at max-candidates */
  const kr_orch_plan *unfused, *greedy;
  const kr_orch_plan *optimal;     /* NULL unless mode = optimal */
  const kr_orch_plan *chosen;      /* the plans emitted (one of the three) */
} kr_orch_func_result;

/* The report's first lines: target, mode and options. */
void kr_orch_report_header(kr_ostream *os, const kr_target *t, const char *mode, const kr_orch_options *o);
/* One function: the region table (primitives, candidates, BLP variables / rows / cuts, solve
 * time, status, gap, modelled cost of unfused / greedy / optimal plans), its totals and speedups,
 * and the kernels of the emitted plan (name, kind, cost, primitives, recomputed primitives).
 * Must run before kr_orch_emit (it reads the primitives' ops).  Everything but the solve times
 * is a function of the input only. */
void kr_orch_report_function(kr_ostream *os, const kr_orch_func_result *f);

/* The DOT picture (Graphviz): one cluster per kernel holding its primitives (recomputed ones
 * dashed and red, in every kernel that computes them), tensors as edges, arguments, constants
 * and the results as plain nodes.  `index` numbers the function in the module (node ids are
 * prefixed "f<index>_").  Before kr_orch_emit. */
void kr_orch_dot_begin(kr_ostream *os);
void kr_orch_dot_function(kr_ostream *os, unsigned index, const kr_orch_func_result *f);
void kr_orch_dot_end(kr_ostream *os);

/* Writes the in-memory stream `os` to `path` with korch/file.h (atomically: a temporary file
 * beside it, then rename; /dev/null or a FIFO in place; through a symlink, its target is
 * replaced); reports I/O errors at `loc`. */
kr_status kr_orch_write_file(kr_context *ctx, kr_attr loc, const char *path, kr_ostream *os);

/* The name kr_orch_emit gives the n-th kernel of g->func (launch order over the regions):
 * "<func>_k<N>", N the n-th number whose name no other symbol of the module holds (emit.c). */
void kr_orch_kernel_name(const kr_orch_graph *g, unsigned n, char *buf, size_t cap);

#endif
