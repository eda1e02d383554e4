/* Unit tests: the MILP interface (korch/milp.h, solver/).  Expected optima come from brute force
 * (enumeration of the integer columns, closed-form LP vertices), never from the solver.  The
 * test does not include CBC: LP dumps are checked as text, and solved with the `cbc` program
 * when it is installed. */
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "korch/diag.h"
#include "korch/korch.h"
#include "korch/milp.h"
#include "solver/milp_impl.h"   /* kr_milp_point_feasible, KR_MILP_MAX_VALUE (internal) */
#include "test/unit/unit_fixture.h"

/* The solver reports errors only (no warnings), so the fixture's error-only handler sees them all. */
static void setup(void) { unit_context_setup(false); }
static void teardown(void) { unit_context_teardown(); }

/* A small deterministic generator (xorshift64*), so instances do not depend on libc's rand. */
static uint64_t rng_state;
static unsigned rng(unsigned n) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (unsigned)((rng_state * 2685821657736338717ull) >> 33) % n;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --- a knapsack with a covering row: brute force over 2^12 ----------------------------------- */

enum { KN = 12 };
static const double kn_value[KN] = {10, 13, 7, 8, 15, 4, 9, 11, 6, 12, 5, 14};
static const double kn_weight[KN] = {5, 7, 3, 4, 8, 2, 5, 6, 3, 7, 2, 8};
static const double kn_cap = 25;

/* max value s.t. weight <= cap and x0 + x1 + x2 >= 1 (the covering row), as a minimisation. */
static kr_milp *knapsack(void) {
  kr_milp *m = kr_milp_create(ctx, NULL);
  int cols[KN];
  for (int j = 0; j < KN; j++) {
    char name[16];
    snprintf(name, sizeof name, "item%d", j);
    ck_assert_int_eq(kr_milp_add_col(m, name, KR_MILP_BINARY, 0, 1, -kn_value[j]), j);
    cols[j] = j;
  }
  ck_assert_int_eq(kr_milp_add_row(m, "capacity", cols, kn_weight, KN, -INFINITY, kn_cap), 0);
  const double ones[3] = {1, 1, 1};
  ck_assert_int_eq(kr_milp_add_row(m, "cover", cols, ones, 3, 1, INFINITY), 1);
  return m;
}

static double knapsack_brute_force(void) {
  double best = INFINITY;
  for (unsigned s = 0; s < (1u << KN); s++) {
    double w = 0, v = 0;
    for (int j = 0; j < KN; j++)
      if (s & (1u << j)) w += kn_weight[j], v += kn_value[j];
    if (w <= kn_cap && (s & 7u) && -v < best) best = -v;
  }
  return best;
}

START_TEST(knapsack_optimal) {
  kr_milp *m = knapsack();
  ck_assert_uint_eq(kr_milp_num_cols(m), KN);
  ck_assert_uint_eq(kr_milp_num_rows(m), 2);
  kr_milp_result r;
  ck_assert_int_eq(kr_milp_solve(m, NULL, &r), KR_SUCCESS);
  ck_assert_int_eq(r.status, KR_MILP_OPTIMAL);
  ck_assert_str_eq(kr_milp_status_name(r.status), "optimal");
  double expect = knapsack_brute_force();
  ck_assert_double_eq_tol(r.objective, expect, 1e-9);
  ck_assert_double_eq_tol(r.gap, 0, 1e-12);
  ck_assert(r.best_bound <= r.objective + 1e-9);
  /* The values are an exact 0/1 point that is feasible and has that objective. */
  double w = 0, v = 0;
  for (int j = 0; j < KN; j++) {
    ck_assert(r.values[j] == 0 || r.values[j] == 1);
    w += kn_weight[j] * r.values[j];
    v -= kn_value[j] * r.values[j];
  }
  ck_assert(w <= kn_cap);
  ck_assert(r.values[0] + r.values[1] + r.values[2] >= 1);
  ck_assert_double_eq_tol(v, expect, 1e-9);
  ck_assert(r.seconds >= 0);
  ck_assert_uint_eq(num_errors, 0);
  /* Solving again gives the same point (a fresh CBC model each time; deterministic). */
  double first[KN];
  memcpy(first, r.values, sizeof first);
  kr_milp_result r2;
  ck_assert_int_eq(kr_milp_solve(m, NULL, &r2), KR_SUCCESS);
  ck_assert_int_eq(r2.status, KR_MILP_OPTIMAL);
  for (int j = 0; j < KN; j++) ck_assert_double_eq(r2.values[j], first[j]);
  kr_milp_destroy(m);
}
END_TEST

START_TEST(infeasible) {
  kr_milp *m = kr_milp_create(ctx, NULL);
  int c[2] = {kr_milp_add_col(m, "a", KR_MILP_BINARY, 0, 1, 1), kr_milp_add_col(m, "b", KR_MILP_BINARY, 0, 1, 1)};
  const double one[2] = {1, 1};
  kr_milp_add_row(m, "need3", c, one, 2, 3, INFINITY); /* a + b >= 3 with binaries */
  kr_milp_result r;
  ck_assert_int_eq(kr_milp_solve(m, NULL, &r), KR_SUCCESS); /* a status, not a failure */
  ck_assert_int_eq(r.status, KR_MILP_INFEASIBLE);
  ck_assert_ptr_null(r.values);
  ck_assert_uint_eq(num_errors, 0);
  kr_milp_destroy(m);

  /* Infeasible only through integrality: 2 y = 1, y integer. */
  m = kr_milp_create(ctx, NULL);
  int y = kr_milp_add_col(m, "y", KR_MILP_INTEGER, -5, 5, 0);
  const double two = 2;
  kr_milp_add_row(m, "odd", &y, &two, 1, 1, 1);
  ck_assert_int_eq(kr_milp_solve(m, NULL, &r), KR_SUCCESS);
  ck_assert_int_eq(r.status, KR_MILP_INFEASIBLE);
  kr_milp_destroy(m);
}
END_TEST

/* min -x - 2y + z  s.t.  2x + 3y <= 12.5,  y - x <= 0.25,  z >= x - 3,  z >= 3 - x,
 *   x integer in [-2, 10], y continuous >= 0, z continuous free.
 * For fixed x the best y is min((12.5 - 2x) / 3, x + 0.25) (when >= 0) and z = |x - 3|. */
START_TEST(mixed_integer_continuous) {
  kr_milp *m = kr_milp_create(ctx, NULL);
  int x = kr_milp_add_col(m, "x", KR_MILP_INTEGER, -2, 10, -1);
  int y = kr_milp_add_col(m, "y", KR_MILP_CONTINUOUS, 0, INFINITY, -2);
  int z = kr_milp_add_col(m, "z", KR_MILP_CONTINUOUS, -INFINITY, INFINITY, 1);
  kr_milp_add_row(m, "r1", (int[]){x, y}, (double[]){2, 3}, 2, -INFINITY, 12.5);
  kr_milp_add_row(m, "r2", (int[]){y, x}, (double[]){1, -1}, 2, -INFINITY, 0.25);
  kr_milp_add_row(m, "abs1", (int[]){z, x}, (double[]){1, -1}, 2, -3, INFINITY);
  kr_milp_add_row(m, "abs2", (int[]){z, x}, (double[]){1, 1}, 2, 3, INFINITY);
  double best = INFINITY, best_x = 0;
  for (int xi = -2; xi <= 10; xi++) {
    double ymax = fmin((12.5 - 2 * xi) / 3, xi + 0.25);
    if (ymax < 0) continue;
    double v = -xi - 2 * ymax + fabs(xi - 3.0);
    if (v < best) best = v, best_x = xi;
  }
  kr_milp_result r;
  ck_assert_int_eq(kr_milp_solve(m, NULL, &r), KR_SUCCESS);
  ck_assert_int_eq(r.status, KR_MILP_OPTIMAL);
  ck_assert_double_eq_tol(r.objective, best, 1e-6);
  ck_assert_double_eq(r.values[x], best_x);
  ck_assert_double_eq_tol(r.values[z], fabs(best_x - 3), 1e-6);
  kr_milp_destroy(m);
}
END_TEST

/* A pure LP: min -x - y, x + 2y <= 4, 3x + y <= 6, x, y >= 0: the vertex (1.6, 1.2), -2.8. */
START_TEST(pure_lp_and_unbounded) {
  kr_milp *m = kr_milp_create(ctx, NULL);
  kr_milp_add_col(m, NULL, KR_MILP_CONTINUOUS, 0, INFINITY, -1);
  kr_milp_add_col(m, NULL, KR_MILP_CONTINUOUS, 0, INFINITY, -1);
  kr_milp_add_row(m, NULL, (int[]){0, 1}, (double[]){1, 2}, 2, -INFINITY, 4);
  kr_milp_add_row(m, NULL, (int[]){0, 1}, (double[]){3, 1}, 2, -INFINITY, 6);
  kr_milp_result r;
  ck_assert_int_eq(kr_milp_solve(m, NULL, &r), KR_SUCCESS);
  ck_assert_int_eq(r.status, KR_MILP_OPTIMAL);
  ck_assert_double_eq_tol(r.objective, -2.8, 1e-7);
  ck_assert_double_eq_tol(r.values[0], 1.6, 1e-7);
  ck_assert_double_eq_tol(r.values[1], 1.2, 1e-7);
  kr_milp_destroy(m);

  /* Unbounded (min -x, x >= 0, integer): an error with a diagnostic, never "infeasible". */
  m = kr_milp_create(ctx, NULL);
  kr_milp_add_col(m, "x", KR_MILP_INTEGER, 0, INFINITY, -1);
  kr_milp_add_col(m, "w", KR_MILP_BINARY, 0, 1, 1);
  kr_milp_add_row(m, "r", (int[]){0, 1}, (double[]){1, 1}, 2, 1, INFINITY);
  ck_assert_int_eq(kr_milp_solve(m, NULL, &r), KR_FAILURE);
  ck_assert_int_eq(r.status, KR_MILP_ERROR);
  ck_assert_uint_eq(num_errors, 1);
  ck_assert_msg(strstr(last_error, "unbounded"), "%s", last_error);
  kr_milp_destroy(m);
}
END_TEST

/* Repeated columns in a row are summed: 2 x <= 1 with x binary forces x = 0. */
START_TEST(repeated_columns_summed) {
  kr_milp *m = kr_milp_create(ctx, NULL);
  kr_milp_add_col(m, "x", KR_MILP_BINARY, 0, 1, -1);
  kr_milp_add_row(m, "r", (int[]){0, 0}, (double[]){1, 1}, 2, -INFINITY, 1);
  kr_milp_result r;
  ck_assert_int_eq(kr_milp_solve(m, NULL, &r), KR_SUCCESS);
  ck_assert_int_eq(r.status, KR_MILP_OPTIMAL);
  ck_assert_double_eq(r.values[0], 0);
  kr_milp_destroy(m);
}
END_TEST

/* --- a hard set cover: a time limit with a MIP start ------------------------------------------ */

enum { SC_COLS = 2000, SC_ROWS = 600 };

typedef struct set_cover {
  kr_milp *m;
  double cost[SC_COLS];
  unsigned char covers[SC_ROWS][SC_COLS];
  double greedy[SC_COLS];
  double greedy_cost;
} set_cover;

/* Each row is covered by 6..15 random columns; costs 10..99.  The start is the greedy cover
 * (cheapest cost per newly covered row first). */
static set_cover *make_set_cover(void) {
  set_cover *sc = calloc(1, sizeof *sc);
  rng_state = 0x9E3779B97F4A7C15ull;
  sc->m = kr_milp_create(ctx, NULL);
  for (int j = 0; j < SC_COLS; j++) {
    sc->cost[j] = 10 + rng(90);
    ck_assert_int_eq(kr_milp_add_col(sc->m, NULL, KR_MILP_BINARY, 0, 1, sc->cost[j]), j);
  }
  int cols[32];
  double ones[32];
  for (int i = 0; i < SC_ROWS; i++) {
    unsigned n = 6 + rng(10);
    for (unsigned k = 0; k < n; k++) {
      cols[k] = (int)rng(SC_COLS);
      ones[k] = 1;
      sc->covers[i][cols[k]] = 1;
    }
    kr_milp_add_row(sc->m, NULL, cols, ones, n, 1, INFINITY);
  }
  static unsigned char covered[SC_ROWS];
  memset(covered, 0, sizeof covered);
  for (;;) {
    int best = -1;
    double best_ratio = INFINITY;
    for (int j = 0; j < SC_COLS; j++) {
      if (sc->greedy[j]) continue;
      unsigned gain = 0;
      for (int i = 0; i < SC_ROWS; i++) gain += !covered[i] && sc->covers[i][j];
      if (gain && sc->cost[j] / gain < best_ratio) best_ratio = sc->cost[j] / gain, best = j;
    }
    if (best < 0) break;
    sc->greedy[best] = 1;
    sc->greedy_cost += sc->cost[best];
    for (int i = 0; i < SC_ROWS; i++) covered[i] |= sc->covers[i][best];
  }
  return sc;
}

static void check_cover(const set_cover *sc, const double *x) {
  for (int i = 0; i < SC_ROWS; i++) {
    bool ok = false;
    for (int j = 0; j < SC_COLS && !ok; j++) ok = sc->covers[i][j] && x[j] == 1;
    ck_assert_msg(ok, "row %d is not covered", i);
  }
}

START_TEST(time_limit_keeps_start) {
  set_cover *sc = make_set_cover();
  kr_milp_set_start(sc->m, sc->greedy);
  kr_milp_options o = {.time_limit_s = 0.2};
  kr_milp_result r;
  double t0 = now();
  ck_assert_int_eq(kr_milp_solve(sc->m, &o, &r), KR_SUCCESS);
  double wall = now() - t0;
  ck_assert_msg(r.status == KR_MILP_FEASIBLE || r.status == KR_MILP_OPTIMAL, "status %s",
                kr_milp_status_name(r.status));
  ck_assert_msg(r.objective <= sc->greedy_cost + 1e-9, "objective %g, start %g", r.objective, sc->greedy_cost);
  check_cover(sc, r.values);
  double cost = 0;
  for (int j = 0; j < SC_COLS; j++) cost += sc->cost[j] * r.values[j];
  ck_assert_double_eq_tol(cost, r.objective, 1e-9);
  ck_assert(r.best_bound <= r.objective + 1e-9);
  ck_assert(r.gap >= 0);
  if (r.status == KR_MILP_FEASIBLE) ck_assert_double_eq_tol(r.gap, (r.objective - r.best_bound) / r.objective, 1e-9);
  /* Wall clock: generous (sanitizers, a loaded machine), but far below an unlimited solve. */
  ck_assert_msg(wall < 30, "a 0.2 s limit took %g s", wall);
  ck_assert(r.seconds <= wall + 1e-3);

  /* Without a start the same limit may end with or without an incumbent, but never with
   * "infeasible" (the instance is feasible: the greedy cover exists).  CBC 2.10 itself says
   * infeasible when the limit interrupts its preprocessing. */
  kr_milp_set_start(sc->m, NULL);
  ck_assert_int_eq(kr_milp_solve(sc->m, &o, &r), KR_SUCCESS);
  ck_assert_msg(r.status == KR_MILP_NO_SOLUTION || r.status == KR_MILP_FEASIBLE || r.status == KR_MILP_OPTIMAL,
                "status %s", kr_milp_status_name(r.status));
  if (r.status == KR_MILP_NO_SOLUTION) ck_assert_ptr_null(r.values);
  else check_cover(sc, r.values);
  kr_milp_destroy(sc->m);
  free(sc);
}
END_TEST

/* --- nothing reaches stdout unless verbose ----------------------------------------------------- */

/* Runs a solve of the set cover with stdout pointed at a temporary file; returns its size. */
static long solve_capturing_stdout(bool verbose, kr_milp_status *status) {
  set_cover *sc = make_set_cover();
  kr_milp_set_start(sc->m, sc->greedy);
  char path[] = "/tmp/korch_milp_stdout_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  ck_assert_int_ge(saved, 0);
  ck_assert_int_ge(dup2(fd, STDOUT_FILENO), 0);
  kr_milp_options o = {.time_limit_s = 0.3, .verbose = verbose};
  kr_milp_result r;
  kr_status st = kr_milp_solve(sc->m, &o, &r);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  struct stat sb;
  ck_assert_int_eq(fstat(fd, &sb), 0);
  close(fd);
  unlink(path);
  ck_assert_int_eq(st, KR_SUCCESS);
  *status = r.status;
  kr_milp_destroy(sc->m);
  free(sc);
  return (long)sb.st_size;
}

START_TEST(quiet_stdout) {
  kr_milp_status s;
  long quiet = solve_capturing_stdout(false, &s);
  ck_assert_msg(quiet == 0, "a quiet solve wrote %ld bytes to stdout", quiet);
  ck_assert(s == KR_MILP_FEASIBLE || s == KR_MILP_OPTIMAL);
  /* The same capture does see CBC's log when asked for (so the check above can fail). */
  long verbose = solve_capturing_stdout(true, &s);
  ck_assert_msg(verbose > 0, "a verbose solve printed nothing");
  /* Also the small problems (CBC's other code paths: presolve solves them). */
  char path[] = "/tmp/korch_milp_stdout_XXXXXX";
  int fd = mkstemp(path);
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  dup2(fd, STDOUT_FILENO);
  kr_milp *m = knapsack();
  kr_milp_result r;
  kr_milp_solve(m, NULL, &r);
  kr_milp_destroy(m);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  struct stat sb;
  fstat(fd, &sb);
  close(fd);
  unlink(path);
  ck_assert_int_eq(r.status, KR_MILP_OPTIMAL);
  ck_assert_msg(sb.st_size == 0, "a quiet knapsack solve wrote %ld bytes", (long)sb.st_size);
}
END_TEST

/* --- the LP dump ------------------------------------------------------------------------------ */

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = 0;
  fclose(f);
  return s;
}

static bool have_cbc(void) { return system("command -v cbc >/dev/null 2>&1") == 0; }

START_TEST(lp_dump) {
  char dir[] = "/tmp/korch_milp_lp_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[256], path2[256];
  snprintf(path, sizeof path, "%s/knap.lp", dir);
  snprintf(path2, sizeof path2, "%s/again.lp", dir);
  kr_milp *m = knapsack();
  /* Every kind of column and row: integer with negative/infinite bounds, free, fixed, ranged. */
  int g = kr_milp_add_col(m, "g", KR_MILP_INTEGER, -3, 7, 0.5);
  int f = kr_milp_add_col(m, "f", KR_MILP_CONTINUOUS, -INFINITY, INFINITY, 0);
  int h = kr_milp_add_col(m, "h", KR_MILP_CONTINUOUS, -INFINITY, 2.5, 0);
  int k = kr_milp_add_col(m, "k", KR_MILP_CONTINUOUS, 1.25, 1.25, 0);
  kr_milp_add_row(m, "range", (int[]){g, f, h}, (double[]){1, -1, 0.1}, 3, -2, 4);
  kr_milp_add_row(m, "fix", (int[]){f, k}, (double[]){1, 1}, 2, 1, 1);
  kr_milp_add_row(m, "nothing", (int[]){g}, (double[]){1}, 1, -INFINITY, INFINITY);
  kr_milp_options o = {.dump_lp = path};
  kr_milp_result r;
  ck_assert_int_eq(kr_milp_solve(m, &o, &r), KR_SUCCESS);
  ck_assert_int_eq(r.status, KR_MILP_OPTIMAL);
  char *lp = read_file(path);
  ck_assert_ptr_nonnull(lp);
  const char *expect[] = {
      "Minimize\n obj: - 10 item0 - 13 item1 - 7 item2",
      "\nSubject To\n capacity: 5 item0 + 7 item1 + 3 item2",
      " <= 25\n",
      " cover: 1 item0 + 1 item1 + 1 item2 >= 1\n",
      " range: 1 g - 1 f + 0.1 h <= 4\n range_low: 1 g - 1 f + 0.1 h >= -2\n",
      " fix: 1 f + 1 k = 1\n",
      "\\ nothing: free row",
      "\nBounds\n -3 <= g <= 7\n f free\n -inf <= h <= 2.5\n k = 1.25\n",
      "\nBinaries\n item0 item1 item2 item3 item4 item5 item6 item7\n item8 item9 item10 item11\n",
      "Generals\n g\nEnd\n",
  };
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
    ck_assert_msg(strstr(lp, expect[i]), "missing <<%s>> in:\n%s", expect[i], lp);
  /* Deterministic, and no temporary file left behind. */
  ck_assert_int_eq(kr_milp_write_lp(m, path2), KR_SUCCESS);
  char *lp2 = read_file(path2);
  ck_assert_str_eq(lp, lp2);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 2", dir);
  ck_assert_int_eq(system(cmd), 0);
  /* `cbc` reads it and finds the same optimum. */
  if (have_cbc()) {
    char out[300];
    snprintf(out, sizeof out, "%s/cbc.out", dir);
    snprintf(cmd, sizeof cmd, "cbc '%s' solve > '%s' 2>&1", path, out);
    ck_assert_int_eq(system(cmd), 0);
    char *log = read_file(out);
    char want[64];
    snprintf(want, sizeof want, "Objective value:");
    const char *p = strstr(log, want);
    ck_assert_msg(p, "%s", log);
    ck_assert_double_eq_tol(strtod(p + strlen(want), NULL), r.objective, 1e-6);
    free(log);
    unlink(out);
  } else {
    fprintf(stderr, "lp_dump: `cbc` not installed; LP file not solved\n");
  }
  free(lp);
  free(lp2);
  unlink(path);
  unlink(path2);
  rmdir(dir);
  kr_milp_destroy(m);
}
END_TEST

START_TEST(errors) {
  kr_milp *m = kr_milp_create(ctx, NULL);
  ck_assert_int_eq(kr_milp_add_col(m, "1bad", KR_MILP_BINARY, 0, 1, 1), -1);
  ck_assert_uint_eq(num_errors, 1);
  ck_assert_msg(strstr(last_error, "'1bad'"), "%s", last_error);
  ck_assert_int_eq(kr_milp_add_col(m, "End", KR_MILP_BINARY, 0, 1, 1), -1);
  ck_assert_int_eq(kr_milp_add_col(m, "x", KR_MILP_INTEGER, 3, 2, 1), -1);
  ck_assert_int_eq(kr_milp_add_col(m, "x", KR_MILP_INTEGER, 0, 2, 1), 0);
  ck_assert_int_eq(kr_milp_add_row(m, "r", (int[]){1}, (double[]){1}, 1, 0, 1), -1);
  ck_assert_uint_eq(kr_milp_num_cols(m), 1);
  ck_assert_uint_eq(kr_milp_num_rows(m), 0);
  unsigned before = num_errors;
  kr_milp_result r;
  ck_assert_int_eq(kr_milp_solve(m, NULL, &r), KR_FAILURE);
  ck_assert_int_eq(r.status, KR_MILP_ERROR);
  ck_assert_uint_eq(num_errors, before + 1);
  kr_milp_destroy(m);

  /* An unwritable LP path is a failure with a diagnostic, before anything is solved. */
  m = knapsack();
  before = num_errors;
  kr_milp_options o = {.dump_lp = "/nonexistent-dir/x.lp"};
  ck_assert_int_eq(kr_milp_solve(m, &o, &r), KR_FAILURE);
  ck_assert_uint_eq(num_errors, before + 1);
  ck_assert_msg(strstr(last_error, "/nonexistent-dir/x.lp"), "%s", last_error);
  /* Duplicate names cannot be written as LP (but solve fine). */
  kr_milp_add_col(m, "item3", KR_MILP_BINARY, 0, 1, 0);
  ck_assert_int_eq(kr_milp_write_lp(m, "/tmp/korch_milp_dup.lp"), KR_FAILURE);
  ck_assert_msg(strstr(last_error, "'item3'"), "%s", last_error);
  ck_assert_int_eq(kr_milp_solve(m, NULL, &r), KR_SUCCESS);
  ck_assert_int_eq(r.status, KR_MILP_OPTIMAL);
  kr_milp_destroy(m);
}
END_TEST

/* Values CBC cannot take are rejected when added (Clp aborted the process on a cost of 1e30:
 * "ClpSimplex.cpp: Assertion fabs(obj[i]) < 1.0e25"); infinite bounds stay fine. */
START_TEST(huge_values_rejected) {
  kr_milp *m = kr_milp_create(ctx, NULL);
  ck_assert_int_eq(kr_milp_add_col(m, "big", KR_MILP_BINARY, 0, 1, 1e30), -1);
  ck_assert_msg(strstr(last_error, "'big'") && strstr(last_error, "out of range"), "%s", last_error);
  ck_assert_int_eq(kr_milp_add_col(m, "big2", KR_MILP_INTEGER, 0, 1e20, 1), -1);
  ck_assert_int_eq(kr_milp_add_col(m, "big3", KR_MILP_CONTINUOUS, -1e25, INFINITY, 1), -1);
  ck_assert_int_eq(kr_milp_add_col(m, "big4", KR_MILP_CONTINUOUS, 0, 1, -1e20), -1);
  ck_assert_uint_eq(num_errors, 4);
  ck_assert_int_eq(kr_milp_add_col(m, "x", KR_MILP_CONTINUOUS, -INFINITY, INFINITY, 9.99e19), 0);
  ck_assert_int_eq(kr_milp_add_col(m, "y", KR_MILP_INTEGER, -1e19, 1e19, -1), 1);
  ck_assert_int_eq(kr_milp_add_row(m, "r", (int[]){0, 1}, (double[]){1e25, 1}, 2, 0, 1), -1);
  ck_assert_msg(strstr(last_error, "'r'") && strstr(last_error, "coefficient 1e+25"), "%s", last_error);
  ck_assert_int_eq(kr_milp_add_row(m, "r2", (int[]){0, 1}, (double[]){1, 1}, 2, -INFINITY, 1e21), -1);
  ck_assert_int_eq(kr_milp_add_row(m, "r3", (int[]){0, 1}, (double[]){1, -1e19}, 2, -1e19, INFINITY), 0);
  ck_assert_uint_eq(num_errors, 6);
  ck_assert_uint_eq(kr_milp_num_cols(m), 2);
  ck_assert_uint_eq(kr_milp_num_rows(m), 1);
  /* A problem with a rejected definition is not solved (an error, not a crash). */
  kr_milp_result r;
  ck_assert_int_eq(kr_milp_solve(m, NULL, &r), KR_FAILURE);
  ck_assert_int_eq(r.status, KR_MILP_ERROR);
  kr_milp_destroy(m);
}
END_TEST

/* The feasibility check CBC's incumbent goes through (and the MIP start): hand-made points of
 * the knapsack, feasible and not, with the objective summed by hand. */
START_TEST(point_feasibility) {
  kr_milp *m = knapsack();
  double x[KN] = {0};
  char why[256];
  double obj = 0;
  /* Items 0, 2, 4: weight 5 + 3 + 8 = 16 <= 25, covers; value 10 + 7 + 15 = 32. */
  x[0] = x[2] = x[4] = 1;
  ck_assert(kr_milp_point_feasible(m, x, &obj, why, sizeof why));
  ck_assert_double_eq(obj, -32);
  ck_assert_str_eq(why, "");
  /* Within the 1e-6 integrality tolerance: still feasible, counted as 1. */
  x[4] = 1 - 5e-7;
  ck_assert(kr_milp_point_feasible(m, x, &obj, NULL, 0));
  ck_assert_double_eq(obj, -32);
  /* Fractional binary. */
  x[4] = 0.5;
  ck_assert(!kr_milp_point_feasible(m, x, &obj, why, sizeof why));
  ck_assert_msg(strstr(why, "integer column 'item4'"), "%s", why);
  /* Outside its bounds. */
  x[4] = 2;
  ck_assert(!kr_milp_point_feasible(m, x, NULL, why, sizeof why));
  ck_assert_msg(strstr(why, "'item4'") && strstr(why, "bounds"), "%s", why);
  /* The capacity row: add items 1, 6 (7 + 5): 28 > 25. */
  x[4] = 1;
  x[1] = x[6] = 1;
  ck_assert(!kr_milp_point_feasible(m, x, NULL, why, sizeof why));
  ck_assert_msg(strstr(why, "row 'capacity' = 28"), "%s", why);
  /* The cover row: nothing of items 0..2. */
  memset(x, 0, sizeof x);
  x[4] = 1;
  ck_assert(!kr_milp_point_feasible(m, x, NULL, why, sizeof why));
  ck_assert_msg(strstr(why, "row 'cover' = 0"), "%s", why);
  /* Not finite. */
  x[0] = NAN;
  ck_assert(!kr_milp_point_feasible(m, x, NULL, why, sizeof why));
  ck_assert_msg(strstr(why, "'item0' is nan"), "%s", why);
  ck_assert_uint_eq(num_errors, 0);
  /* And what CBC returns for this problem passes the check. */
  kr_milp_result r;
  ck_assert_int_eq(kr_milp_solve(m, NULL, &r), KR_SUCCESS);
  ck_assert_int_eq(r.status, KR_MILP_OPTIMAL);
  ck_assert(kr_milp_point_feasible(m, r.values, &obj, NULL, 0));
  ck_assert_double_eq(obj, r.objective);
  kr_milp_destroy(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("milp");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, knapsack_optimal);
  tcase_add_test(tc, infeasible);
  tcase_add_test(tc, mixed_integer_continuous);
  tcase_add_test(tc, pure_lp_and_unbounded);
  tcase_add_test(tc, repeated_columns_summed);
  tcase_add_test(tc, time_limit_keeps_start);
  tcase_add_test(tc, quiet_stdout);
  tcase_add_test(tc, lp_dump);
  tcase_add_test(tc, errors);
  tcase_add_test(tc, huge_values_rejected);
  tcase_add_test(tc, point_feasibility);
  suite_add_tcase(s, tc);
  return unit_run_suite(s);
}
