/* solver/milp.c - the solver-independent half of korch/milp.h: problem storage, validation,
 * result bookkeeping and the CPLEX LP writer.  The CBC glue is solver/cbc.c.
 *
 * The LP dialect written here is the subset that COIN-OR's CoinLpIO (what `cbc FILE.lp` and
 * Cbc_readLp use) and CPLEX both read: sections "Minimize", "Subject To", "Bounds", "Binaries",
 * "Generals", "End"; one "coef name" pair per term; names [A-Za-z_][A-Za-z0-9_.]*, at most 96
 * characters (CoinLpIO's limit, less the "_low" suffix of ranged rows), no LP keyword. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "korch/diag.h"
#include "korch/file.h"
#include "solver/milp_impl.h"

#define MILP_MAX_NAME 96   /* CoinLpIO rejects names over 100 characters; ranged rows add "_low" */

const char *kr_milp_status_name(kr_milp_status s) {
  switch (s) {
  case KR_MILP_OPTIMAL: return "optimal";
  case KR_MILP_FEASIBLE: return "feasible (time limit)";
  case KR_MILP_INFEASIBLE: return "infeasible";
  case KR_MILP_NO_SOLUTION: return "no solution (time limit)";
  case KR_MILP_ERROR: return "error";
  }
  return "error";
}

/* Allocation failure cannot be reported meaningfully (as the arena and kr_vec: abort). */
static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) abort();
  return q;
}

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = xrealloc(NULL, n);
  memcpy(d, s, n);
  return d;
}

kr_milp *kr_milp_create(kr_context *ctx, kr_attr loc) {
  kr_milp *m = calloc(1, sizeof *m);
  if (!m) abort();
  m->ctx = ctx;
  m->loc = loc;
  return m;
}

void kr_milp_destroy(kr_milp *m) {
  if (!m) return;
  for (unsigned i = 0; i < m->num_cols; i++) free(m->cols[i].name);
  for (unsigned i = 0; i < m->num_rows; i++) free(m->rows[i].name);
  free(m->cols);
  free(m->rows);
  free(m->nz_col);
  free(m->nz_val);
  free(m->scratch);
  free(m->start);
  free(m->values);
  free(m);
}

unsigned kr_milp_num_cols(const kr_milp *m) { return m->num_cols; }
unsigned kr_milp_num_rows(const kr_milp *m) { return m->num_rows; }

/* Words CoinLpIO takes for section keywords, infinity or "free" wherever a name is expected. */
static bool is_lp_keyword(const char *s) {
  static const char *const kw[] = {"bound", "bounds", "integer", "integers", "general", "generals", "binary",
                                   "binaries", "semi", "semis", "semi-continuous", "sos", "end", "free", "inf",
                                   "infinity", "st", "subject", "minimize", "minimise", "maximize",
                                   "maximise", "min", "max"};
  for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
    if (strcasecmp(s, kw[i]) == 0) return true;
  return false;
}

/* NULL when `name` is a valid LP identifier, else why not. */
static const char *invalid_name(const char *name) {
  size_t n = strlen(name);
  if (n == 0) return "is empty";
  if (n > MILP_MAX_NAME) return "is longer than 96 characters";
  if (!(isalpha((unsigned char)name[0]) || name[0] == '_')) return "must start with a letter or '_'";
  for (size_t i = 1; i < n; i++)
    if (!(isalnum((unsigned char)name[i]) || name[i] == '_' || name[i] == '.'))
      return "may contain only letters, digits, '_' and '.'";
  if (is_lp_keyword(name)) return "is an LP format keyword";
  return NULL;
}

/* A finite bound too large for CBC (infinite bounds are fine: they mean "none"). */
static bool too_big(double v) { return isfinite(v) && !(fabs(v) < KR_MILP_MAX_VALUE); }

int kr_milp_add_col(kr_milp *m, const char *name, kr_milp_col_kind kind, double lb, double ub, double cost) {
  char buf[32];
  if (!name) {
    snprintf(buf, sizeof buf, "x%u", m->num_cols);
    name = buf;
  }
  const char *why = invalid_name(name);
  if (why) {
    m->bad_adds++;
    kr_emit_error(m->ctx, m->loc, "MILP column name '%s' %s", name, why);
    return -1;
  }
  if (kind == KR_MILP_BINARY) {
    lb = 0;
    ub = 1;
  }
  if (isnan(lb) || isnan(ub) || !isfinite(cost) || lb == INFINITY || ub == -INFINITY || lb > ub) {
    m->bad_adds++;
    kr_emit_error(m->ctx, m->loc, "MILP column '%s': invalid bounds [%g, %g] or cost %g", name, lb, ub, cost);
    return -1;
  }
  if (!(fabs(cost) < KR_MILP_MAX_VALUE) || too_big(lb) || too_big(ub)) {
    m->bad_adds++;
    kr_emit_error(m->ctx, m->loc,
                  "MILP column '%s': cost %g or bounds [%g, %g] out of range (magnitudes must stay below %g)", name,
                  cost, lb, ub, KR_MILP_MAX_VALUE);
    return -1;
  }
  if (m->num_cols == m->cap_cols) {
    m->cap_cols = m->cap_cols ? 2 * m->cap_cols : 64;
    m->cols = xrealloc(m->cols, m->cap_cols * sizeof *m->cols);
    m->scratch = xrealloc(m->scratch, m->cap_cols * sizeof *m->scratch);
  }
  m->scratch[m->num_cols] = -1;
  m->cols[m->num_cols] = (kr_milp_col){xstrdup(name), kind, lb, ub, cost};
  return (int)m->num_cols++;
}

int kr_milp_add_row(kr_milp *m, const char *name, const int *cols, const double *coefs, unsigned n, double lb,
                    double ub) {
  char buf[32];
  if (!name) {
    snprintf(buf, sizeof buf, "r%u", m->num_rows);
    name = buf;
  }
  const char *why = invalid_name(name);
  if (why) {
    m->bad_adds++;
    kr_emit_error(m->ctx, m->loc, "MILP row name '%s' %s", name, why);
    return -1;
  }
  if (isnan(lb) || isnan(ub) || lb == INFINITY || ub == -INFINITY || lb > ub) {
    m->bad_adds++;
    kr_emit_error(m->ctx, m->loc, "MILP row '%s': invalid bounds [%g, %g]", name, lb, ub);
    return -1;
  }
  if (too_big(lb) || too_big(ub)) {
    m->bad_adds++;
    kr_emit_error(m->ctx, m->loc, "MILP row '%s': bounds [%g, %g] out of range (magnitudes must stay below %g)", name,
                  lb, ub, KR_MILP_MAX_VALUE);
    return -1;
  }
  for (unsigned i = 0; i < n; i++) {
    if (cols[i] < 0 || (unsigned)cols[i] >= m->num_cols || !isfinite(coefs[i])) {
      m->bad_adds++;
      kr_emit_error(m->ctx, m->loc, "MILP row '%s': term %u refers to column %d (of %u) with coefficient %g", name,
                    i, cols[i], m->num_cols, coefs[i]);
      return -1;
    }
    if (!(fabs(coefs[i]) < KR_MILP_MAX_VALUE)) {
      m->bad_adds++;
      kr_emit_error(m->ctx, m->loc,
                    "MILP row '%s': coefficient %g of term %u out of range (magnitudes must stay below %g)", name,
                    coefs[i], i, KR_MILP_MAX_VALUE);
      return -1;
    }
  }
  if (m->nnz + n > m->cap_nz) {
    size_t cap = m->cap_nz ? m->cap_nz : 256;
    while (cap < m->nnz + n) cap *= 2;
    m->nz_col = xrealloc(m->nz_col, cap * sizeof *m->nz_col);
    m->nz_val = xrealloc(m->nz_val, cap * sizeof *m->nz_val);
    m->cap_nz = cap;
  }
  /* Repeated columns are summed into their first occurrence (scratch: column -> position). */
  size_t start = m->nnz;
  unsigned k = 0;
  for (unsigned i = 0; i < n; i++) {
    int c = cols[i];
    if (m->scratch[c] >= 0) {
      m->nz_val[start + (unsigned)m->scratch[c]] += coefs[i];
      continue;
    }
    m->scratch[c] = (int)k;
    m->nz_col[start + k] = c;
    m->nz_val[start + k] = coefs[i];
    k++;
  }
  for (unsigned i = 0; i < k; i++) m->scratch[m->nz_col[start + i]] = -1;
  m->nnz += k;
  if (m->num_rows == m->cap_rows) {
    m->cap_rows = m->cap_rows ? 2 * m->cap_rows : 64;
    m->rows = xrealloc(m->rows, m->cap_rows * sizeof *m->rows);
  }
  m->rows[m->num_rows] = (kr_milp_row){xstrdup(name), start, k, lb, ub};
  return (int)m->num_rows++;
}

void kr_milp_set_start(kr_milp *m, const double *values) {
  free(m->start);
  m->start = NULL;
  m->num_start = 0;
  if (!values || m->num_cols == 0) return;
  m->start = xrealloc(NULL, m->num_cols * sizeof *m->start);
  memcpy(m->start, values, m->num_cols * sizeof *m->start);
  m->num_start = m->num_cols;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool kr_milp_point_feasible(const kr_milp *m, const double *x, double *obj, char *why, size_t cap) {
  if (why && cap) why[0] = 0;
  double sum = 0;
  for (unsigned j = 0; j < m->num_cols; j++) {
    const kr_milp_col *c = &m->cols[j];
    double v = x[j];
    if (!isfinite(v)) {
      if (why) snprintf(why, cap, "column '%s' is %g", c->name, v);
      return false;
    }
    if (c->kind != KR_MILP_CONTINUOUS) {
      if (fabs(v - nearbyint(v)) > 1e-6) {
        if (why) snprintf(why, cap, "integer column '%s' is %.17g", c->name, v);
        return false;
      }
      v = nearbyint(v);
    }
    if (v < c->lb - 1e-6 * fmax(1, fabs(c->lb)) || v > c->ub + 1e-6 * fmax(1, fabs(c->ub))) {
      if (why) snprintf(why, cap, "column '%s' = %.17g is outside its bounds [%g, %g]", c->name, v, c->lb, c->ub);
      return false;
    }
    sum += c->cost * v;
  }
  for (unsigned i = 0; i < m->num_rows; i++) {
    const kr_milp_row *r = &m->rows[i];
    double a = 0, mag = 0;
    for (unsigned k = 0; k < r->n; k++) {
      int c = m->nz_col[r->start + k];
      double v = m->cols[c].kind != KR_MILP_CONTINUOUS ? nearbyint(x[c]) : x[c];
      a += m->nz_val[r->start + k] * v;
      mag += fabs(m->nz_val[r->start + k] * v);
    }
    /* Relative to the row's largest magnitude (bound or terms): CBC's tolerances are ~1e-7. */
    double lt = 1e-6 * fmax(fmax(1, mag), r->lb > -INFINITY ? fabs(r->lb) : 0);
    double ut = 1e-6 * fmax(fmax(1, mag), r->ub < INFINITY ? fabs(r->ub) : 0);
    if (a < r->lb - lt || a > r->ub + ut) {
      if (why) snprintf(why, cap, "row '%s' = %.17g violates its bounds [%g, %g]", r->name, a, r->lb, r->ub);
      return false;
    }
  }
  if (obj) *obj = sum;
  return true;
}

/* Whether the MIP start is a feasible point (kr_milp_point_feasible); its objective through *obj. */
static bool start_feasible(const kr_milp *m, double *obj) {
  if (!m->start || m->num_start != m->num_cols) return false;
  return kr_milp_point_feasible(m, m->start, obj, NULL, 0);
}

/* The guarantee of kr_milp_set_start: a solve with a feasible start returns an incumbent no worse
 * than it.  CBC 2.10 does not always keep it: the MIP start is applied after preprocessing, and a
 * time limit that interrupts preprocessing makes CBC report "infeasible" ("Pre-processing says
 * infeasible or unbounded") and drop the start.  The start then becomes the incumbent. */
static void keep_start(kr_milp *m, kr_milp_result *out) {
  double sobj;
  if (!start_feasible(m, &sobj)) return;
  bool better = out->status == KR_MILP_OPTIMAL || out->status == KR_MILP_FEASIBLE;
  if (better && out->objective <= sobj + 1e-9 * fmax(1, fabs(sobj))) return;
  if (!m->values) m->values = xrealloc(NULL, (m->num_cols ? m->num_cols : 1) * sizeof *m->values);
  for (unsigned j = 0; j < m->num_cols; j++) {
    double v = m->start[j];
    if (m->cols[j].kind != KR_MILP_CONTINUOUS) v = nearbyint(v);
    m->values[j] = v == 0 ? 0 : v;
  }
  out->status = KR_MILP_FEASIBLE;
  out->values = m->values;
  out->objective = sobj;
  if (!(out->best_bound <= sobj)) out->best_bound = -INFINITY; /* NaN or past the start: unknown */
  out->gap = (sobj - out->best_bound) / fmax(fabs(sobj), 1e-9);
}

kr_status kr_milp_solve(kr_milp *m, const kr_milp_options *options, kr_milp_result *out) {
  kr_milp_options defaults = {0};
  const kr_milp_options *o = options ? options : &defaults;
  *out = (kr_milp_result){.status = KR_MILP_ERROR, .objective = NAN, .best_bound = NAN, .gap = NAN};
  free(m->values);
  m->values = NULL;
  double t0 = now_seconds();
  if (m->bad_adds) {
    kr_emit_error(m->ctx, m->loc, "MILP has %u rejected column/row definition(s); not solving", m->bad_adds);
    return KR_FAILURE;
  }
  if (!(o->rel_gap >= 0) || isnan(o->time_limit_s)) {
    kr_emit_error(m->ctx, m->loc, "MILP options: invalid rel_gap %g or time_limit_s %g", o->rel_gap,
                  o->time_limit_s);
    return KR_FAILURE;
  }
  if (o->dump_lp && KR_FAILED(kr_milp_write_lp(m, o->dump_lp))) return KR_FAILURE;
  double t1 = now_seconds();
  kr_status st = kr_milp_solve_cbc(m, o, out);
  double solve_s = now_seconds() - t1;
  if (st == KR_SUCCESS) {
    /* "Infeasible" at the time limit is not a proof (see keep_start). */
    if (out->status == KR_MILP_INFEASIBLE && o->time_limit_s > 0 && solve_s >= o->time_limit_s)
      out->status = KR_MILP_NO_SOLUTION;
    if (m->start) keep_start(m, out);
  }
  out->seconds = now_seconds() - t0;
  return st;
}

/* --- the LP writer --------------------------------------------------------------------------- */

/* The shortest of %.15g / %.16g / %.17g that reads back as exactly `v` (finite). */
static void fmt_num(char buf[40], double v) {
  if (v == 0) v = 0; /* no "-0" */
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, 40, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
}

typedef struct lp_writer {
  FILE *f;
  unsigned terms;  /* on the current expression, for line breaks */
} lp_writer;

/* " + 3 x" / " - 3 x", the first term without "+"; eight terms a line. */
static void put_term(lp_writer *w, double coef, const char *name) {
  char num[40];
  if (w->terms && w->terms % 8 == 0) fputs("\n   ", w->f);
  bool neg = coef < 0;
  fmt_num(num, neg ? -coef : coef);
  if (w->terms == 0)
    fprintf(w->f, neg ? " - %s %s" : " %s %s", num, name);
  else
    fprintf(w->f, " %c %s %s", neg ? '-' : '+', num, name);
  w->terms++;
}

static void put_row(lp_writer *w, const kr_milp *m, const kr_milp_row *r, const char *suffix, const char *sense,
                    double rhs) {
  char num[40];
  fprintf(w->f, " %s%s:", r->name, suffix);
  w->terms = 0;
  for (unsigned i = 0; i < r->n; i++) put_term(w, m->nz_val[r->start + i], m->cols[m->nz_col[r->start + i]].name);
  if (r->n == 0) put_term(w, 0, m->cols[0].name); /* CoinLpIO wants a term; the row is checked non-free */
  fmt_num(num, rhs);
  fprintf(w->f, " %s %s\n", sense, num);
}

static int cmp_name_ptr(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Column and row names must be unique in an LP file (columns and rows separately). */
static kr_status check_unique_names(kr_milp *m) {
  unsigned n = m->num_cols > m->num_rows ? m->num_cols : m->num_rows;
  const char **v = xrealloc(NULL, (n ? n : 1) * sizeof *v);
  kr_status st = KR_SUCCESS;
  for (int pass = 0; pass < 2 && st == KR_SUCCESS; pass++) {
    unsigned k = pass == 0 ? m->num_cols : m->num_rows;
    for (unsigned i = 0; i < k; i++) v[i] = pass == 0 ? m->cols[i].name : m->rows[i].name;
    qsort(v, k, sizeof *v, cmp_name_ptr);
    for (unsigned i = 1; i < k; i++)
      if (strcmp(v[i - 1], v[i]) == 0) {
        st = kr_emit_error(m->ctx, m->loc, "cannot write the MILP as LP: two %s are named '%s'",
                           pass == 0 ? "columns" : "rows", v[i]);
        break;
      }
  }
  free(v);
  return st;
}

static void write_lp_body(const kr_milp *m, FILE *f) {
  lp_writer w = {f, 0};
  char a[40], b[40];
  unsigned nbin = 0, nint = 0;
  for (unsigned j = 0; j < m->num_cols; j++) {
    nbin += m->cols[j].kind == KR_MILP_BINARY;
    nint += m->cols[j].kind == KR_MILP_INTEGER;
  }
  fprintf(f, "\\ korch MILP: %u columns (%u binary, %u integer, %u continuous), %u rows, %zu nonzeros\n",
          m->num_cols, nbin, nint, m->num_cols - nbin - nint, m->num_rows, m->nnz);
  fputs("Minimize\n obj:", f);
  for (unsigned j = 0; j < m->num_cols; j++)
    if (m->cols[j].cost != 0) put_term(&w, m->cols[j].cost, m->cols[j].name);
  if (w.terms == 0 && m->num_cols) put_term(&w, 0, m->cols[0].name);
  fputs("\nSubject To\n", f);
  for (unsigned i = 0; i < m->num_rows; i++) {
    const kr_milp_row *r = &m->rows[i];
    bool has_lb = r->lb > -INFINITY, has_ub = r->ub < INFINITY;
    if (!has_lb && !has_ub) {
      fprintf(f, "\\ %s: free row (no finite bound), omitted\n", r->name);
    } else if (has_lb && has_ub && r->lb == r->ub) {
      put_row(&w, m, r, "", "=", r->lb);
    } else if (has_lb && has_ub) { /* a ranged row as CoinLpIO writes it: NAME (<=) and NAME_low (>=) */
      put_row(&w, m, r, "", "<=", r->ub);
      put_row(&w, m, r, "_low", ">=", r->lb);
    } else if (has_lb) {
      put_row(&w, m, r, "", ">=", r->lb);
    } else {
      put_row(&w, m, r, "", "<=", r->ub);
    }
  }
  /* Every non-binary column gets an explicit bound line, so that a column that appears nowhere
   * else still exists when the file is read back. */
  fputs("Bounds\n", f);
  for (unsigned j = 0; j < m->num_cols; j++) {
    const kr_milp_col *c = &m->cols[j];
    if (c->kind == KR_MILP_BINARY) continue;
    bool has_lb = c->lb > -INFINITY, has_ub = c->ub < INFINITY;
    fmt_num(a, has_lb ? c->lb : 0);
    fmt_num(b, has_ub ? c->ub : 0);
    if (!has_lb && !has_ub)
      fprintf(f, " %s free\n", c->name);
    else if (has_lb && has_ub && c->lb == c->ub)
      fprintf(f, " %s = %s\n", c->name, a);
    else if (has_lb && has_ub)
      fprintf(f, " %s <= %s <= %s\n", a, c->name, b);
    else if (has_lb)
      fprintf(f, " %s >= %s\n", c->name, a);
    else
      fprintf(f, " -inf <= %s <= %s\n", c->name, b);
  }
  for (int pass = 0; pass < 2; pass++) {
    kr_milp_col_kind kind = pass == 0 ? KR_MILP_BINARY : KR_MILP_INTEGER;
    if ((pass == 0 ? nbin : nint) == 0) continue;
    fputs(pass == 0 ? "Binaries\n" : "Generals\n", f);
    unsigned k = 0;
    for (unsigned j = 0; j < m->num_cols; j++) {
      if (m->cols[j].kind != kind) continue;
      fprintf(f, "%s%s", k % 8 == 0 ? (k ? "\n " : " ") : " ", m->cols[j].name);
      k++;
    }
    fputc('\n', f);
  }
  fputs("End\n", f);
}

kr_status kr_milp_write_lp(kr_milp *m, const char *path) {
  if (m->bad_adds)
    return kr_emit_error(m->ctx, m->loc, "cannot write the MILP as LP: %u rejected column/row definition(s)",
                         m->bad_adds);
  if (m->num_cols == 0 && m->num_rows > 0)
    return kr_emit_error(m->ctx, m->loc, "cannot write the MILP as LP: rows without columns");
  if (KR_FAILED(check_unique_names(m))) return KR_FAILURE;
  /* korch/file.h: atomic for a regular file, in place for a device or FIFO, through links. */
  kr_file_output out;
  int err = kr_file_output_open(&out, path);
  if (err) {
    const char *failed = kr_file_output_failed_path(&out);
    kr_status st = kr_emit_error(m->ctx, m->loc, "cannot write MILP LP file '%s': %s", failed ? failed : path,
                                 strerror(err));
    kr_file_output_abort(&out);
    return st;
  }
  write_lp_body(m, out.file);
  err = kr_file_output_commit(&out, false);
  if (err) {
    kr_file_output_abort(&out);
    return kr_emit_error(m->ctx, m->loc, "cannot write MILP LP file '%s': %s", path, strerror(err));
  }
  return KR_SUCCESS;
}
