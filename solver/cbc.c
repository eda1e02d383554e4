/* solver/cbc.c - kr_milp_solve's back end: COIN-OR CBC 2.10 through its C interface
 * (Cbc_C_Interface.h).  The only file of korch that includes CBC.
 *
 * One fresh Cbc_Model per solve (CBC 2.10's model is not reusable after Cbc_solve), loaded
 * column-major with Cbc_loadProblem.  Facts about CBC 2.10.x this relies on (docs/Solver.md):
 *  - Cbc_solve runs CbcMain1 with the Cbc_setParameter arguments as its command line, then
 *    "-solve -quit".  A model without integer columns takes another path (a bare Clp
 *    initialSolve: no time limit, and Cbc_isProvenInfeasible also says yes for an unbounded
 *    LP), so a pure LP gets one fixed dummy integer column (bounds [0, 0], cost 0).
 *  - The time limit ("seconds") counts CPU time unless "timeMode elapsed" is given.
 *  - A MIP start (Cbc_setMIPStart) is matched by column name; columns are named c<index>
 *    here (unique, whatever the user's names are), rows r<index> (see build_model).
 *  - A time limit that interrupts CglPreProcess (CBC's MIP preprocessing) makes CBC report
 *    "infeasible" and drop the MIP start, or crash in CglPreProcess::postProcess (2.10.8, seen
 *    on orchestration's BLP).  Preprocessing is therefore off ("preprocess off"); kr_milp_solve
 *    (solver/milp.c) still returns a feasible start when CBC gives nothing better.
 *  - Log level 0 ("log 0", "slog 0", Cbc_setLogLevel(model, 0)) silences the message handlers,
 *    but not the raw printf/std::cout calls of CBC 2.10 (e.g. Cbc_solve prints a caught
 *    CoinError with printf; CbcMain1 and Clp have unconditional prints on rare paths).  Library
 *    code must not print, so a quiet solve also points file descriptor 1 at /dev/null around
 *    Cbc_solve (see stdout_silence). */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <Cbc_C_Interface.h>

#include "korch/diag.h"
#include "solver/milp_impl.h"

/* CBC's infinity (COIN_DBL_MAX); +-INFINITY bounds are passed as this. */
#define CBC_INF 1.7976931348623157e308

static double cbc_bound(double v) {
  if (v == INFINITY) return CBC_INF;
  if (v == -INFINITY) return -CBC_INF;
  return v;
}

static void set_param_double(Cbc_Model *cm, const char *name, double v) {
  char buf[40];
  snprintf(buf, sizeof buf, "%.17g", v);
  Cbc_setParameter(cm, name, buf);
}

/* Points fd 1 at /dev/null until stdout_restore; returns the saved descriptor, or -1 when that
 * failed (then nothing is redirected).  Pending stdio output is flushed first so that it is
 * not lost, and CBC's own buffered output is flushed before the restore (std::cout is synced
 * with C stdio by default, so fflush(stdout) covers it).  This affects the whole process: a
 * thread writing to stdout during a quiet solve writes to /dev/null. */
static int stdout_silence(void) {
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  if (saved < 0) return -1;
  int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (devnull < 0 || dup2(devnull, STDOUT_FILENO) < 0) {
    if (devnull >= 0) close(devnull);
    close(saved);
    return -1;
  }
  close(devnull);
  return saved;
}

static void stdout_restore(int saved) {
  if (saved < 0) return;
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
}

/* A CBC model of `m`, columns named c<index> and rows r<index>.  Both must be named: with column
 * names but no row names, ClpPresolve (CBC 2.10.8) crashes in its final resolve. */
static Cbc_Model *build_model(const kr_milp *m) {
  unsigned nc = m->num_cols, nr = m->num_rows;
  bool has_int = false;
  for (unsigned j = 0; j < nc; j++) has_int |= m->cols[j].kind != KR_MILP_CONTINUOUS;
  bool dummy = !has_int;
  unsigned ncbc = nc + (dummy ? 1 : 0);

  /* Column-major copy of the rows (CSC), the bounds and the costs. */
  int *start = calloc(ncbc + 1, sizeof *start);
  int *index = malloc((m->nnz ? m->nnz : 1) * sizeof *index);
  double *value = malloc((m->nnz ? m->nnz : 1) * sizeof *value);
  double *collb = malloc((ncbc ? ncbc : 1) * sizeof *collb), *colub = malloc((ncbc ? ncbc : 1) * sizeof *colub);
  double *obj = malloc((ncbc ? ncbc : 1) * sizeof *obj);
  double *rowlb = malloc((nr ? nr : 1) * sizeof *rowlb), *rowub = malloc((nr ? nr : 1) * sizeof *rowub);
  int *fill = malloc((ncbc ? ncbc : 1) * sizeof *fill);
  if (!start || !index || !value || !collb || !colub || !obj || !rowlb || !rowub || !fill) abort();
  for (size_t k = 0; k < m->nnz; k++) start[m->nz_col[k] + 1]++;
  for (unsigned j = 0; j < ncbc; j++) start[j + 1] += start[j];
  memcpy(fill, start, ncbc * sizeof *fill);
  for (unsigned i = 0; i < nr; i++) {
    const kr_milp_row *r = &m->rows[i];
    for (unsigned k = 0; k < r->n; k++) {
      int c = m->nz_col[r->start + k];
      index[fill[c]] = (int)i;
      value[fill[c]++] = m->nz_val[r->start + k];
    }
    rowlb[i] = cbc_bound(r->lb);
    rowub[i] = cbc_bound(r->ub);
  }
  for (unsigned j = 0; j < nc; j++) {
    collb[j] = cbc_bound(m->cols[j].lb);
    colub[j] = cbc_bound(m->cols[j].ub);
    obj[j] = m->cols[j].cost;
  }
  if (dummy) {
    collb[nc] = 0;
    colub[nc] = 0;
    obj[nc] = 0;
  }

  Cbc_Model *cm = Cbc_newModel();
  Cbc_loadProblem(cm, (int)ncbc, (int)nr, start, index, value, collb, colub, obj, rowlb, rowub);
  free(start);
  free(index);
  free(value);
  free(collb);
  free(colub);
  free(obj);
  free(rowlb);
  free(rowub);
  free(fill);
  char name[32];
  for (unsigned j = 0; j < ncbc; j++) {
    snprintf(name, sizeof name, "c%u", j);
    Cbc_setColName(cm, (int)j, name);
    if (j == nc || m->cols[j].kind != KR_MILP_CONTINUOUS) Cbc_setInteger(cm, (int)j);
  }
  for (unsigned i = 0; i < nr; i++) {
    snprintf(name, sizeof name, "r%u", i);
    Cbc_setRowName(cm, (int)i, name);
  }
  return cm;
}

kr_status kr_milp_solve_cbc(kr_milp *m, const kr_milp_options *o, kr_milp_result *out) {
  unsigned nc = m->num_cols, nr = m->num_rows;
  Cbc_Model *cm = build_model(m);

  /* Parameters: CbcMain1's command line (Cbc_setParameter) and the model's own settings. */
  int log = o->verbose ? 1 : 0;
  Cbc_setLogLevel(cm, log);
  Cbc_setParameter(cm, "log", log ? "1" : "0");
  Cbc_setParameter(cm, "slog", log ? "1" : "0");
  Cbc_setParameter(cm, "timeMode", "elapsed");
  if (o->time_limit_s > 0) {
    Cbc_setMaximumSeconds(cm, o->time_limit_s);
    set_param_double(cm, "seconds", o->time_limit_s);
  }
  Cbc_setAllowableFractionGap(cm, o->rel_gap);
  set_param_double(cm, "ratioGap", o->rel_gap);
  /* Deterministic: fixed seeds, no threads (CBC's "threads 0" is the serial search). */
  Cbc_setParameter(cm, "randomSeed", "1234567");
  Cbc_setParameter(cm, "randomCbcSeed", "1234567");
  Cbc_setParameter(cm, "threads", "0");
  /* No CglPreProcess: a time limit that interrupts it crashes CBC 2.10.8 (see the file comment),
   * and on orchestration's BLP (its binary w columns included) the solve is as fast or faster
   * without it (docs/Solver.md, "Parameters").  The LP presolve (Clp) stays on. */
  Cbc_setParameter(cm, "preprocess", "off");

  /* The MIP start: the values of the integer columns (CBC computes the continuous ones). */
  if (m->start && m->num_start == nc) {
    int *idx = malloc((nc ? nc : 1) * sizeof *idx);
    double *val = malloc((nc ? nc : 1) * sizeof *val);
    if (!idx || !val) abort();
    int k = 0;
    for (unsigned j = 0; j < nc; j++) {
      if (m->cols[j].kind == KR_MILP_CONTINUOUS) continue;
      idx[k] = (int)j;
      val[k++] = m->start[j];
    }
    if (k) Cbc_setMIPStartI(cm, k, idx, val);
    free(idx);
    free(val);
  }

  int saved = o->verbose ? -1 : stdout_silence();
  Cbc_solve(cm);
  stdout_restore(saved);

  const double *best = Cbc_bestSolution(cm);
  kr_status st = KR_SUCCESS;
  if (Cbc_isProvenOptimal(cm) && best)
    out->status = KR_MILP_OPTIMAL;
  else if (Cbc_isProvenInfeasible(cm))
    out->status = KR_MILP_INFEASIBLE;
  else if (Cbc_isContinuousUnbounded(cm))
    st = kr_emit_error(m->ctx, m->loc, "MILP (%u columns, %u rows): the LP relaxation is unbounded", nc, nr);
  else if (Cbc_isAbandoned(cm))
    st = kr_emit_error(m->ctx, m->loc, "MILP (%u columns, %u rows): CBC abandoned the solve (numerical difficulties)",
                       nc, nr);
  else if (Cbc_status(cm) == 1) /* stopped on a limit: time (the only one set here) */
    out->status = best ? KR_MILP_FEASIBLE : KR_MILP_NO_SOLUTION;
  else
    st = kr_emit_error(m->ctx, m->loc, "MILP (%u columns, %u rows): CBC ended with status %d/%d and %s", nc, nr,
                       Cbc_status(cm), Cbc_secondaryStatus(cm), best ? "a solution" : "no solution");
  /* CBC 2.10 does not promise that its incumbent satisfies the model (e.g. after numerical
   * trouble), so it is checked against the bounds, integrality and rows before anyone uses it. */
  if (st == KR_SUCCESS && (out->status == KR_MILP_OPTIMAL || out->status == KR_MILP_FEASIBLE)) {
    char why[256];
    if (!kr_milp_point_feasible(m, best, NULL, why, sizeof why))
      st = kr_emit_error(m->ctx, m->loc, "MILP (%u columns, %u rows): CBC returned an infeasible solution: %s", nc, nr,
                         why);
  }
  if (st != KR_SUCCESS) out->status = KR_MILP_ERROR;

  if (out->status == KR_MILP_OPTIMAL || out->status == KR_MILP_FEASIBLE) {
    /* Integer columns are rounded to exact integers (CBC accepts 1e-6 off); the objective is
     * recomputed from the returned values. */
    m->values = malloc((nc ? nc : 1) * sizeof *m->values);
    if (!m->values) abort();
    double objective = 0;
    for (unsigned j = 0; j < nc; j++) {
      double v = best[j];
      if (m->cols[j].kind != KR_MILP_CONTINUOUS) v = nearbyint(v);
      if (v == 0) v = 0;
      m->values[j] = v;
      objective += m->cols[j].cost * v;
    }
    out->values = m->values;
    out->objective = objective;
    double bound = Cbc_getBestPossibleObjValue(cm);
    if (!(bound <= objective)) bound = objective; /* NaN or a bound past the incumbent */
    out->best_bound = bound;
    out->gap = (objective - bound) / fmax(fabs(objective), 1e-9);
    if (out->status == KR_MILP_OPTIMAL && o->rel_gap == 0) {
      out->gap = 0;
      out->best_bound = objective;
    }
  } else {
    out->best_bound = Cbc_getBestPossibleObjValue(cm);
  }
  Cbc_deleteModel(cm);
  return st;
}
