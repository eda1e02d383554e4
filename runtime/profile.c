/* runtime/profile.c - korch-run --profile (runtime.h kr_rt_profile): measures the candidate
 * kernels that korch-translate --emit-candidates (korch-compile --emit-candidates) wrote and
 * records their median times in the profile database that --orchestrate reads (Korch, ASPLOS'24,
 * section 5: candidates are profiled on the target GPU and the BLP uses the measured costs;
 * docs/Targets.md "Producing measurements").
 *
 * The database is written through the same format core as libkorch's kr_profile_db_record
 * (backend/target/profile_db_file.c, compiled into the runtime: libc + libxml2 only), with ONE
 * record call after all candidates were timed: the lock is held for a merge and a rename only,
 * never across GPU work, and profilers running at the same time (other processes, other GPUs)
 * each merge their entries into the file without losing the others'. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/target/profile_db_file.h"
#include "internal.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The sub-directories of `dir` holding a model.plan.xml, sorted by name (deterministic order;
 * the names are the candidates' hashes).  *paths: malloc'd array of malloc'd plan paths. */
static kr_rt_status list_plans(const char *dir, char ***paths, unsigned *count, kr_rt_error *err) {
  *paths = NULL;
  *count = 0;
  DIR *d = opendir(dir);
  if (!d) return kr_rt_fail(err, KR_RT_ERROR, "%s: cannot open the candidates directory: %s", dir, strerror(errno));
  char **v = NULL;
  unsigned n = 0, cap = 0;
  kr_rt_status st = KR_RT_OK;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    size_t len = strlen(dir) + strlen(e->d_name) + sizeof "/model.plan.xml" + 1;
    char *p = malloc(len);
    if (!p) {
      st = kr_rt_fail(err, KR_RT_ERROR, "%s: out of memory", dir);
      break;
    }
    snprintf(p, len, "%s/%s/model.plan.xml", dir, e->d_name);
    struct stat sb;
    if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode)) {
      free(p);
      continue;
    }
    if (n == cap) {
      unsigned nc = cap ? 2 * cap : 64;
      char **nv = realloc(v, nc * sizeof *nv);
      if (!nv) {
        free(p);
        st = kr_rt_fail(err, KR_RT_ERROR, "%s: out of memory", dir);
        break;
      }
      v = nv;
      cap = nc;
    }
    v[n++] = p;
  }
  closedir(d);
  if (st != KR_RT_OK) {
    for (unsigned i = 0; i < n; i++) free(v[i]);
    free(v);
    return st;
  }
  if (n) qsort(v, n, sizeof *v, cmp_str);
  *paths = v;
  *count = n;
  return KR_RT_OK;
}

/* Times one candidate plan: its median over `iters` timed runs, in microseconds. */
static kr_rt_status time_plan(kr_rt_device *dev, const kr_rt_plan *plan, unsigned warmup, unsigned iters,
                              double *median_us, double *min_us, double *max_us, kr_rt_error *err) {
  kr_rt_session *s = NULL;
  double *ms = malloc(iters * sizeof *ms);
  if (!ms) return kr_rt_fail(err, KR_RT_ERROR, "%s: out of memory", plan->path);
  kr_rt_status st = kr_rt_session_create(dev, plan, &s, err);
  if (st == KR_RT_OK) st = kr_rt_session_fill_inputs(s, err);
  if (st == KR_RT_OK) st = kr_rt_session_time(s, -1, warmup, iters, ms, err);
  if (st == KR_RT_OK) {
    qsort(ms, iters, sizeof *ms, cmp_double);
    double med = iters % 2 ? ms[iters / 2] : (ms[iters / 2 - 1] + ms[iters / 2]) / 2;
    *median_us = med * 1000.0;
    *min_us = ms[0] * 1000.0;
    *max_us = ms[iters - 1] * 1000.0;
  }
  if (s) kr_rt_session_destroy(s);
  free(ms);
  return st;
}

/* The database's directory exists and is writable: checked before any GPU time is spent, so an
 * unwritable path is not found only when the measurements are recorded. */
static kr_rt_status check_db_path(const char *db_path, kr_rt_error *err) {
  const char *slash = strrchr(db_path, '/');
  char *dir = slash ? strndup(db_path, slash == db_path ? 1 : (size_t)(slash - db_path)) : strdup(".");
  if (!dir) return kr_rt_fail(err, KR_RT_ERROR, "out of memory");
  struct stat sb;
  kr_rt_status st = KR_RT_OK;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
    st = kr_rt_fail(err, KR_RT_ERROR, "%s: the profile database's directory %s does not exist", db_path, dir);
  else if (access(dir, W_OK | X_OK) != 0)
    st = kr_rt_fail(err, KR_RT_ERROR, "%s: the profile database's directory %s is not writable: %s", db_path, dir,
                    strerror(errno));
  free(dir);
  return st;
}

/* The candidates of `dir`, loaded and checked before anything is timed: every plan reads, every
 * <profile hash> is 16 lower-case hex digits, equals its folder's name (the layout
 * --emit-candidates writes: DIR/<hash>/model.plan.xml) and is unique (two plans with one hash
 * would be merged into one database entry, one measurement lost).  Plans without <profile> are
 * noted on `log` and not returned.  *plans: malloc'd (kr_rt_plan_free each, then free). */
static kr_rt_status load_candidates(const char *dir, FILE *log, kr_rt_plan **plans, uint64_t **hashes,
                                    unsigned *count, unsigned *skipped, kr_rt_error *err) {
  char **paths;
  unsigned n;
  *plans = NULL;
  *hashes = NULL;
  *count = *skipped = 0;
  kr_rt_status st = list_plans(dir, &paths, &n, err);
  if (st != KR_RT_OK) return st;
  kr_rt_plan *v = calloc(n ? n : 1, sizeof *v);
  uint64_t *h = calloc(n ? n : 1, sizeof *h);
  unsigned m = 0;
  if (!v || !h) st = kr_rt_fail(err, KR_RT_ERROR, "%s: out of memory", dir);
  for (unsigned i = 0; st == KR_RT_OK && i < n; i++) {
    kr_rt_plan *plan = &v[m];
    if ((st = kr_rt_plan_load(paths[i], plan, err)) != KR_RT_OK) break;
    if (!plan->has_profile) {
      if (log) fprintf(log, "%s: no <profile> element: not a candidate artifact, skipped\n", paths[i]);
      (*skipped)++;
      kr_rt_plan_free(plan);
      continue;
    }
    m++;
    /* The folder: the last component of the plan's directory. */
    const char *folder = strrchr(plan->dir, '/');
    folder = folder ? folder + 1 : plan->dir;
    if (!kr_pdb_parse_hash(plan->profile_hash, &h[m - 1]))
      st = kr_rt_fail(err, KR_RT_ERROR, "%s: <profile hash=\"%s\">: expected 16 lower-case hex digits", paths[i],
                      plan->profile_hash);
    for (unsigned j = 0; st == KR_RT_OK && j + 1 < m; j++)
      if (!strcmp(v[j].profile_target, plan->profile_target) && h[j] == h[m - 1])
        st = kr_rt_fail(err, KR_RT_ERROR,
                        "%s and %s: the same <profile target=\"%s\" hash=\"%s\"> (one measurement would be lost)",
                        v[j].path, paths[i], plan->profile_target, plan->profile_hash);
    if (st == KR_RT_OK && strcmp(folder, plan->profile_hash) != 0)
      st = kr_rt_fail(err, KR_RT_ERROR, "%s: <profile hash=\"%s\"> is not its folder's name '%s' (DIR/<hash>/)",
                      paths[i], plan->profile_hash, folder);
  }
  for (unsigned i = 0; i < n; i++) free(paths[i]);
  free(paths);
  if (st != KR_RT_OK) {
    for (unsigned i = 0; v && i < m; i++) kr_rt_plan_free(&v[i]);
    free(v);
    free(h);
    return st;
  }
  *plans = v;
  *hashes = h;
  *count = m;
  return KR_RT_OK;
}

static void free_candidates(kr_rt_plan *plans, uint64_t *hashes, unsigned n) {
  for (unsigned i = 0; plans && i < n; i++) kr_rt_plan_free(&plans[i]);
  free(plans);
  free(hashes);
}

/* The database loads (a corrupt one is reported before any GPU time is spent; the final merge
 * would refuse to overwrite it anyway) and its directory is writable. */
static kr_rt_status check_db(const char *db_path, kr_rt_error *err) {
  kr_pdb db = {0};
  kr_pdb_error perr;
  if (!kr_pdb_load(db_path, &db, &perr)) return kr_rt_fail(err, KR_RT_ERROR, "%s", perr.msg);
  kr_pdb_free(&db);
  return check_db_path(db_path, err);
}

static kr_rt_status no_candidates(const char *dir, unsigned skipped, kr_rt_error *err) {
  return kr_rt_fail(err, KR_RT_ERROR, "%s: no candidate artifacts (<hash>/model.plan.xml with a <profile> element)%s",
                    dir, skipped ? "" : "; korch-translate --emit-candidates writes them");
}

kr_rt_status kr_rt_profile_dry_run(const char *dir, const char *db_path, FILE *log, kr_rt_error *err) {
  if (db_path && check_db(db_path, err) != KR_RT_OK) return KR_RT_ERROR;
  kr_rt_plan *plans;
  uint64_t *hashes;
  unsigned n, skipped;
  if (load_candidates(dir, log, &plans, &hashes, &n, &skipped, err) != KR_RT_OK) return KR_RT_ERROR;
  kr_rt_status st = n ? KR_RT_OK : no_candidates(dir, skipped, err);
  unsigned failed = 0, checks = 0;
  for (unsigned i = 0; i < n; i++) {
    kr_rt_error e = {{0}};
    unsigned k = 0;
    if (kr_rt_dry_run(&plans[i], &e, &k) != KR_RT_OK) {
      failed++;
      if (log) fprintf(log, "FAIL %s (candidate %s):\n%s\n", plans[i].path, plans[i].profile_name, e.msg);
    } else if (log)
      fprintf(log, "PASS %s (candidate %s, %u checks)\n", plans[i].path, plans[i].profile_name, k);
    checks += k;
  }
  if (st == KR_RT_OK && failed)
    st = kr_rt_fail(err, KR_RT_ERROR, "%s: %u of %u candidates failed the dry run", dir, failed, n);
  if (st == KR_RT_OK && log)
    fprintf(log, "dry run of %u candidate%s: %u checks passed; nothing timed, nothing recorded\n", n,
            n == 1 ? "" : "s", checks);
  free_candidates(plans, hashes, n);
  return st;
}

kr_rt_status kr_rt_profile(kr_rt_device *dev, const char *dir, const char *db_path, unsigned warmup, unsigned iters,
                           FILE *log, kr_rt_error *err) {
  if (iters == 0) return kr_rt_fail(err, KR_RT_ERROR, "--profile needs at least one timed run");
  if (check_db(db_path, err) != KR_RT_OK) return KR_RT_ERROR;
  kr_rt_plan *plans;
  uint64_t *hashes;
  unsigned n, skipped;
  if (load_candidates(dir, log, &plans, &hashes, &n, &skipped, err) != KR_RT_OK) return KR_RT_ERROR;
  kr_pdb_entry *entries = n ? calloc(n, sizeof *entries) : NULL;
  unsigned measured = 0;
  kr_rt_status st = KR_RT_OK;
  if (n && !entries) st = kr_rt_fail(err, KR_RT_ERROR, "%s: out of memory", dir);
  for (unsigned i = 0; st == KR_RT_OK && i < n; i++) {
    const kr_rt_plan *plan = &plans[i];
    double med = 0, lo = 0, hi = 0;
    st = time_plan(dev, plan, warmup, iters, &med, &lo, &hi, err);
    if (st == KR_RT_OK && !(med > 0)) med = 1e-3; /* below the events' resolution: 1 ns, still positive */
    if (st == KR_RT_OK) {
      kr_pdb_entry *e = &entries[measured++];
      snprintf(e->target, sizeof e->target, "%s", plan->profile_target);
      e->hash = hashes[i];
      e->time_us = med;
      e->runs = iters;
      snprintf(e->name, sizeof e->name, "%s", plan->profile_name);
      if (log)
        fprintf(log, "%s %-24s median %10.3f us  min %10.3f  max %10.3f  (%u runs, target %s)\n", plan->profile_hash,
                plan->profile_name, med, lo, hi, iters, plan->profile_target);
    } else {
      /* Name the candidate: the session's message names the call and the kernel. */
      char msg[sizeof err->msg];
      snprintf(msg, sizeof msg, "%s", err->msg);
      kr_rt_fail(err, st, "%s (candidate %s): %s", plan->path, plan->profile_name, msg);
    }
  }
  /* What was measured is recorded even when a later candidate failed: GPU time is not wasted.
   * The summary line is printed only once the database was written. */
  if (measured) {
    kr_pdb_error perr;
    if (!kr_pdb_record(db_path, entries, measured, &perr)) {
      if (st == KR_RT_OK)
        st = kr_rt_fail(err, KR_RT_ERROR, "%s", perr.msg);
      else
        kr_rt_append(err, "%s", perr.msg);
    } else if (log)
      fprintf(log, "recorded %u measurement%s in %s\n", measured, measured == 1 ? "" : "s", db_path);
  }
  if (st == KR_RT_OK && measured == 0) st = no_candidates(dir, skipped, err);
  free_candidates(plans, hashes, n);
  free(entries);
  return st;
}
