/* solver/milp_impl.h - the representation of a kr_milp (korch/milp.h), shared by solver/milp.c
 * (storage, validation, the LP writer) and solver/cbc.c (the CBC glue, the only file that
 * includes CBC).  Not installed. */
#ifndef KORCH_SOLVER_MILP_IMPL_H
#define KORCH_SOLVER_MILP_IMPL_H

#include <stddef.h>

#include "korch/milp.h"

typedef struct kr_milp_col {
  char *name;             /* malloc'd; never NULL (defaults to "x<index>") */
  kr_milp_col_kind kind;
  double lb, ub;          /* binary: 0, 1 */
  double cost;
} kr_milp_col;

typedef struct kr_milp_row {
  char *name;             /* malloc'd; never NULL (defaults to "r<index>") */
  size_t start;           /* first entry in kr_milp.nz_col / nz_val */
  unsigned n;             /* entries (distinct columns, in first-appearance order) */
  double lb, ub;
} kr_milp_row;

struct kr_milp {
  kr_context *ctx;
  kr_attr loc;            /* where diagnostics point (NULL: unknown location) */
  kr_milp_col *cols;
  unsigned num_cols, cap_cols;
  kr_milp_row *rows;
  unsigned num_rows, cap_rows;
  int *nz_col;            /* row-major coefficients of all rows */
  double *nz_val;
  size_t nnz, cap_nz;
  int *scratch;           /* per column: position in the row being added, or -1 (cap_cols) */
  double *start;          /* MIP start (num_start values; NULL: none) */
  unsigned num_start;
  double *values;         /* the last incumbent (num_cols values), NULL before a solve */
  unsigned bad_adds;      /* rejected add_col/add_row calls: solving is then an error */
};

/* Costs, coefficients and finite bounds must be smaller than this in magnitude (kr_milp_add_col
 * and kr_milp_add_row reject larger ones with a diagnostic): Clp asserts |cost| < 1e25 (it aborts
 * the process, ClpSimplex.cpp), and CBC reads values from 1e20 on as infinite. */
#define KR_MILP_MAX_VALUE 1e20

/* Whether `x` (one value per column) is a feasible point of `m`: finite; integer columns within
 * 1e-6 of an integer (their rounded value counts); bounds within 1e-6 relative to the bound;
 * rows within 1e-6 relative to the largest of 1, the bound and the row's largest term.  Its
 * objective goes to *obj (may be NULL); when infeasible, a message naming the first violated
 * column or row goes to why[cap] (may be NULL).  Checks the MIP start and CBC's incumbent. */
bool kr_milp_point_feasible(const kr_milp *m, const double *x, double *obj, char *why, size_t cap);

/* Solves `m` with CBC (solver/cbc.c); `o` is never NULL.  Fills everything in *out except
 * `seconds`. */
kr_status kr_milp_solve_cbc(kr_milp *m, const kr_milp_options *o, kr_milp_result *out);

#endif
