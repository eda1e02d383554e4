/* korch/milp.h - a small mixed-integer linear program interface (solver/, the only code that
 * includes COIN-OR CBC).  Orchestration (Korch, ASPLOS'24, §5) states its binary linear program
 * through it; tests and benchmarks can use it directly.
 *
 *   minimise   sum_j cost_j * x_j
 *   subject to lb_i <= sum_j a_ij * x_j <= ub_i     (rows)
 *              lb_j <= x_j <= ub_j, x_j integer for binary/integer columns
 *
 * A kr_milp owns its columns, rows and the last solution; names are copied.  CBC 2.10's C
 * interface is not thread-safe: solve one problem at a time (orchestration solves its regions
 * one after the other). */
#ifndef KORCH_MILP_H
#define KORCH_MILP_H

#include <stdbool.h>

#include "korch/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_milp kr_milp;

typedef enum kr_milp_col_kind { KR_MILP_BINARY, KR_MILP_INTEGER, KR_MILP_CONTINUOUS } kr_milp_col_kind;

typedef enum kr_milp_status {
  KR_MILP_OPTIMAL,      /* proven optimal (within rel_gap) */
  KR_MILP_FEASIBLE,     /* stopped at the time limit with an incumbent; gap says how far */
  KR_MILP_INFEASIBLE,   /* proven infeasible */
  KR_MILP_NO_SOLUTION,  /* stopped at the limit without any feasible solution */
  KR_MILP_ERROR,        /* the solver failed (reported as a diagnostic) */
} kr_milp_status;

/* "optimal", "feasible (time limit)", "infeasible", "no solution (time limit)", "error". */
const char *kr_milp_status_name(kr_milp_status s);

/* A new empty problem; errors are reported as diagnostics of `ctx` at `loc` (may be NULL). */
kr_milp *kr_milp_create(kr_context *ctx, kr_attr loc);
void kr_milp_destroy(kr_milp *m);

/* Adds a column and returns its index (0, 1, ...), or -1 after a diagnostic when |cost| or a
 * finite bound is 1e20 or more (CBC/Clp abort on such values).  Binary columns ignore lb/ub (0..1).  Bounds
 * may be -INFINITY / INFINITY.  `name` (may be NULL: "x<index>") appears in LP dumps; it must
 * be a valid LP identifier ([A-Za-z_][A-Za-z0-9_.]*). */
int kr_milp_add_col(kr_milp *m, const char *name, kr_milp_col_kind kind, double lb, double ub, double cost);
/* Adds the row lb <= sum coefs[i] * x[cols[i]] <= ub (either bound may be infinite); returns its
 * index.  Column indices must exist; repeated columns are summed. */
int kr_milp_add_row(kr_milp *m, const char *name, const int *cols, const double *coefs, unsigned n, double lb,
                    double ub);
unsigned kr_milp_num_cols(const kr_milp *m);
unsigned kr_milp_num_rows(const kr_milp *m);

/* A MIP start (one value per current column; copied): CBC begins from it, so a solve stopped by
 * the time limit returns an incumbent no worse than it when it is feasible. */
void kr_milp_set_start(kr_milp *m, const double *values);

typedef struct kr_milp_options {
  double time_limit_s;   /* wall-clock seconds (CBC's "timeMode elapsed"); <= 0: no limit */
  double rel_gap;        /* stop when (incumbent - bound) / |incumbent| <= rel_gap; 0: prove optimality */
  bool verbose;          /* let CBC print its log to stdout; otherwise nothing is printed */
  const char *dump_lp;   /* when not NULL: write the problem to this LP file before solving */
} kr_milp_options;

typedef struct kr_milp_result {
  kr_milp_status status;
  double objective;      /* of the incumbent (OPTIMAL / FEASIBLE) */
  double best_bound;     /* CBC's best possible objective */
  double gap;            /* relative: (objective - best_bound) / max(|objective|, 1e-9); 0 when proven optimal with rel_gap 0 */
  const double *values;  /* incumbent column values (owned by m, valid until the next solve / destroy) */
  double seconds;        /* wall-clock solve time */
} kr_milp_result;

/* Solves (options NULL: no limit, gap 0, quiet).  Returns KR_FAILURE only for KR_MILP_ERROR
 * (after a diagnostic) or a failed LP dump; infeasibility is a status, not a failure. */
kr_status kr_milp_solve(kr_milp *m, const kr_milp_options *options, kr_milp_result *out);

/* Writes the problem in CPLEX LP format (readable by the `cbc` command: `cbc FILE.lp solve`),
 * with korch/file.h (atomically: temporary file + rename; a device or FIFO in place; through a
 * symlink, its target is replaced).  Reports I/O errors. */
kr_status kr_milp_write_lp(kr_milp *m, const char *path);

#ifdef __cplusplus
}
#endif
#endif
