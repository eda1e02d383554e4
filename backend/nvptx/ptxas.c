/* backend/nvptx/ptxas.c - running CUDA's ptxas on generated PTX and reading its resource report
 * (include/korch/nvptx.h: kr_nvptx_find_ptxas, kr_nvptx_ptxas; docs/Codegen.md "ptxas").
 *
 * ptxas is a separate program of the CUDA toolkit ("CUDA Compiler Driver NVCC", ptxas options:
 * -v / --verbose prints each function's resources, -arch=sm_XX, -o FILE).  It reads PTX from a
 * file only, so the text goes to a private temporary file (mkstemp, mode 0600), removed again
 * before returning.  The program runs through posix_spawnp (no shell: the path and the file name
 * are passed as arguments, never interpreted); its standard output and error both go into one
 * pipe that this process drains before waiting for it, so a long report cannot block it.
 *
 * The report format (ptxas of CUDA 11 .. 13, one "ptxas info    :" line per item):
 *     ptxas info    : Compiling entry function 'NAME' for 'sm_90'
 *     ptxas info    : Function properties for NAME
 *         N bytes stack frame, N bytes spill stores, N bytes spill loads
 *     ptxas info    : Used N registers, used N barriers, N bytes smem, N bytes cmem[0]
 * "Function properties" also appears for non-entry (.func) functions, without a "Used" line;
 * those are not kernels and are skipped.  Items of the "Used" line are matched one by one
 * (older ptxas omits "used N barriers"; "N bytes smem" is absent when a kernel has none).
 *
 * Speed: ptxas is single-threaded and assembles one .entry after the other; on a model's PTX it
 * was the largest stage of korch-compile after LLVM (0.7 s CPU of bert_encoder_2l's 28 kernels,
 * bench/compile.sh).  When the PTX is only the header and independent .entry definitions (what
 * the NVPTX backend emits for korch's kernels: no .func, .global or .shared at module scope), the
 * entries are split into up to min(online CPUs, 8) groups of about equal size ($KORCH_PTXAS_JOBS
 * overrides the count; 1 turns splitting off), each group assembled by its own ptxas with the same
 * header and options, all at once.  ptxas compiles each entry on its own, so the figures are the
 * ones of the whole file.  Any surprise (a run that fails, a report that does not name exactly
 * its group's entries) falls back to the single run on the whole file, whose result and errors
 * are the ones reported. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "korch/diag.h"
#include "korch/nvptx.h"

extern char **environ;

#define KR_PTXAS_DEFAULT "/usr/local/cuda/bin/ptxas"

static bool executable(const char *path) {
  struct stat st;
  return access(path, X_OK) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *kr_nvptx_find_ptxas(void) {
  static char found[4096];
  const char *env = getenv("KORCH_PTXAS");
  if (env && *env) {
    snprintf(found, sizeof found, "%s", env);
    return found;
  }
  if (executable(KR_PTXAS_DEFAULT)) {
    snprintf(found, sizeof found, "%s", KR_PTXAS_DEFAULT);
    return found;
  }
  /* The first PATH entry holding an executable `ptxas` (POSIX "Command Search and Execution";
   * an empty entry means the current directory). */
  const char *path = getenv("PATH");
  while (path && *path) {
    const char *end = strchr(path, ':');
    size_t n = end ? (size_t)(end - path) : strlen(path);
    if (n + sizeof "/ptxas" < sizeof found) {
      if (n == 0)
        snprintf(found, sizeof found, "./ptxas");
      else
        snprintf(found, sizeof found, "%.*s/ptxas", (int)n, path);
      if (executable(found)) return found;
    }
    path = end ? end + 1 : NULL;
  }
  return NULL;
}

/* A growable text buffer (the captured report). */
typedef struct text {
  char *data;
  size_t len, cap;
} text;

static bool text_append(text *t, const char *s, size_t n) {
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < t->len + n + 1) cap *= 2;
    char *d = realloc(t->data, cap);
    if (!d) return false;
    t->data = d;
    t->cap = cap;
  }
  memcpy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len] = 0;
  return true;
}

/* Writes all of `s` to `fd`. */
static bool write_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    s += w;
    n -= (size_t)w;
  }
  return true;
}

/* Runs `argv` with stdin from /dev/null and stdout+stderr into *out; *exit_status is the
 * wait status.  Returns an errno value (0 on success: the program ran, whatever its status). */
static int run_capture(char *const argv[], text *out, int *exit_status) {
  int fds[2];
  if (pipe(fds)) return errno;
  posix_spawn_file_actions_t fa;
  int err = posix_spawn_file_actions_init(&fa);
  if (err) {
    close(fds[0]);
    close(fds[1]);
    return err;
  }
  if (!err) err = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (!err) err = posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  if (!err) err = posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  if (!err) err = posix_spawn_file_actions_addclose(&fa, fds[0]);
  if (!err) err = posix_spawn_file_actions_addclose(&fa, fds[1]);
  pid_t pid = -1;
  if (!err) err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (err) {
    close(fds[0]);
    return err;
  }
  char buf[4096];
  bool oom = false;
  for (;;) {
    ssize_t r = read(fds[0], buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    if (!oom && !text_append(out, buf, (size_t)r)) oom = true;   /* keep draining */
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return errno;
  *exit_status = status;
  return oom ? ENOMEM : 0;
}

/* The next line of `s` (from *pos) into line[cap] without its newline; false at the end. */
static bool next_line(const char *s, size_t len, size_t *pos, char *line, size_t cap) {
  if (*pos >= len) return false;
  const char *start = s + *pos, *nl = memchr(start, '\n', len - *pos);
  size_t n = nl ? (size_t)(nl - start) : len - *pos;
  *pos += n + (nl ? 1 : 0);
  if (n >= cap) n = cap - 1;
  memcpy(line, start, n);
  line[n] = 0;
  if (n && line[n - 1] == '\r') line[n - 1] = 0;
  return true;
}

/* The text after "ptxas info    :" (any spacing), or NULL when `line` is not an info line. */
static const char *info_body(const char *line) {
  if (strncmp(line, "ptxas info", 10)) return NULL;
  const char *c = strchr(line + 10, ':');
  if (!c) return NULL;
  c++;
  while (*c == ' ') c++;
  return c;
}

/* Parses "N bytes stack frame, N bytes spill stores, N bytes spill loads" into `info`. */
static bool parse_frame(const char *line, kr_ptxas_info *info) {
  long long frame, stores, loads;
  if (sscanf(line, " %lld bytes stack frame, %lld bytes spill stores, %lld bytes spill loads", &frame, &stores,
             &loads) != 3)
    return false;
  info->local_bytes = frame;
  info->spill_bytes = stores;
  return true;
}

/* Parses "Used N registers, ..., N bytes smem, ..." into `info` (comma-separated items). */
static bool parse_used(const char *body, kr_ptxas_info *info) {
  long long n;
  if (sscanf(body, "Used %lld registers", &n) != 1) return false;
  info->registers = n;
  for (const char *item = strchr(body, ','); item; item = strchr(item + 1, ',')) {
    char unit[32];
    if (sscanf(item + 1, " %lld bytes %31[a-z]", &n, unit) == 2 && !strcmp(unit, "smem")) info->shared_bytes = n;
  }
  return true;
}

/* Parses the whole report into *infos / *num.  Returns NULL, or what could not be parsed. */
static const char *parse_report(const text *report, kr_ptxas_info **infos, unsigned *num) {
  *infos = NULL;
  *num = 0;
  unsigned cap = 0;
  int cur = -1;               /* the entry the following lines describe, or -1 (a .func) */
  bool want_frame = false;    /* the previous line was "Function properties for ..." */
  char line[1024];
  size_t pos = 0;
  while (next_line(report->data, report->len, &pos, line, sizeof line)) {
    const char *body = info_body(line);
    if (want_frame) {
      want_frame = false;
      if (!body) {
        if (cur >= 0 && !parse_frame(line, &(*infos)[cur])) return "a \"bytes stack frame\" line";
        continue;
      }
    }
    if (!body) continue;
    char name[512];
    if (sscanf(body, "Compiling entry function '%511[^']'", name) == 1) {
      if (*num == cap) {
        cap = cap ? 2 * cap : 8;
        kr_ptxas_info *g = realloc(*infos, cap * sizeof *g);
        if (!g) return "(out of memory)";
        *infos = g;
      }
      kr_ptxas_info *e = &(*infos)[*num];
      memset(e, 0, sizeof *e);
      size_t n = strlen(name);   /* a longer name is kept truncated (kr_ptxas_info.name[128]) */
      if (n >= sizeof e->name) n = sizeof e->name - 1;
      memcpy(e->name, name, n);
      e->name[n] = 0;
      e->registers = -1;
      cur = (int)(*num)++;
    } else if (!strncmp(body, "Function properties for ", 24)) {
      /* An entry's properties follow its "Compiling entry function"; any other name is a
       * device function's. */
      const char *fname = body + 24;
      cur = cur >= 0 && !strncmp((*infos)[cur].name, fname, sizeof (*infos)[cur].name - 1) ? cur : -1;
      want_frame = true;
    } else if (!strncmp(body, "Used ", 5)) {
      if (cur >= 0 && !parse_used(body, &(*infos)[cur])) return "a \"Used N registers\" line";
    }
  }
  for (unsigned i = 0; i < *num; i++)
    if ((*infos)[i].registers < 0) return "an entry function without a \"Used N registers\" line";
  return NULL;
}

/* The number of ".entry" directives in `ptx` (a kernel per directive; PTX ISA "Kernel and
 * Function Directives").  ptxas reports each of them. */
static unsigned count_entries(const char *ptx) {
  unsigned n = 0;
  for (const char *p = strstr(ptx, ".entry"); p; p = strstr(p + 6, ".entry"))
    if (p[6] == ' ' || p[6] == '\t') n++;
  return n;
}

/* The first few error lines of a failed run (lines naming "error" or "fatal", else the first
 * lines), with the temporary file's name replaced by "<ptx>", into msg[cap]. */
static void first_errors(const text *report, const char *tmpname, char *msg, size_t cap) {
  msg[0] = 0;
  size_t used = 0;
  int lines = 0;
  for (int pass = 0; pass < 2 && lines == 0; pass++) {
    char line[1024];
    size_t pos = 0;
    while (lines < 3 && report->data && next_line(report->data, report->len, &pos, line, sizeof line)) {
      if (!line[0] || (pass == 0 && !strstr(line, "error") && !strstr(line, "fatal"))) continue;
      char *t = strstr(line, tmpname);
      char shown[1100];
      if (t)
        snprintf(shown, sizeof shown, "%.*s<ptx>%s", (int)(t - line), line, t + strlen(tmpname));
      else
        snprintf(shown, sizeof shown, "%s", line);
      int w = snprintf(msg + used, cap - used, "%s%s", lines ? "; " : "", shown);
      if (w < 0 || (size_t)w >= cap - used) return;
      used += (size_t)w;
      lines++;
    }
  }
  if (!lines) snprintf(msg, cap, "(no output)");
}

/* ---------------------------------------------------------------------------------------------
 * Parallel runs on groups of entries (see the file comment). */

#define KR_PTXAS_MAX_JOBS 8

/* Whether `line` (n bytes, no newline) starts with `word` after leading blanks. */
static bool line_starts(const char *line, size_t n, const char *word) {
  while (n && (*line == ' ' || *line == '\t')) line++, n--;
  size_t w = strlen(word);
  return n >= w && !memcmp(line, word, w);
}

/* The start offsets of the .entry definitions of `ptx` into starts[cap] (*num of them), when the
 * module scope holds nothing else than the header (.version, .target, .address_size), comments
 * and the entries themselves (header lines up to their '{', the body up to the matching '}').
 * False for any other module-scope text (.func, .global, .shared, .extern, ...) or when there are
 * more than `cap` entries. */
static bool entry_starts(const char *ptx, size_t len, size_t *starts, unsigned cap, unsigned *num) {
  *num = 0;
  long depth = 0;
  bool prologue = false;   /* between an entry's first line and its body's '{' */
  for (size_t pos = 0; pos < len;) {
    const char *line = ptx + pos, *nl = memchr(line, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - line) : len - pos;
    const char *cmt = NULL;
    for (size_t i = 0; i + 1 < n && !cmt; i++)
      if (line[i] == '/' && (line[i + 1] == '/' || line[i + 1] == '*')) cmt = line + i;
    if (cmt && cmt[1] == '*') return false;   /* block comments: not from LLVM; not worth parsing */
    size_t code = cmt ? (size_t)(cmt - line) : n;   /* the line without its // comment */
    if (depth == 0) {
      size_t k = 0;
      while (k < code && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r')) k++;
      if (k == code) {
        /* blank or comment only */
      } else if (line_starts(line, code, ".visible .entry ") || line_starts(line, code, ".entry ")) {
        if (*num == cap) return false;
        starts[(*num)++] = pos;
        prologue = true;
      } else if (prologue) {
        /* parameters, ")", .maxntid / .reqntid / .minnctapersm / .maxnreg ... of this entry */
      } else if (*num == 0 && (line_starts(line, code, ".version") || line_starts(line, code, ".target") ||
                               line_starts(line, code, ".address_size"))) {
        /* the header */
      } else {
        return false;
      }
    }
    for (size_t i = 0; i < code; i++) {
      if (line[i] == '{') {
        depth++;
        prologue = false;
      } else if (line[i] == '}' && --depth < 0) {
        return false;
      }
    }
    pos += n + (nl ? 1 : 0);
  }
  return depth == 0 && !prologue;
}

/* Whether `ptx` [from, to) defines an entry named `name`. */
static bool group_defines(const char *ptx, size_t from, size_t to, const char *name) {
  size_t n = strlen(name);
  for (const char *p = ptx + from; (p = memchr(p, '.', (size_t)(ptx + to - p))) != NULL; p++) {
    const char *e = NULL;
    if (!strncmp(p, ".entry ", 7)) e = p + 7;
    if (e && (size_t)(ptx + to - e) > n && !strncmp(e, name, n) && (e[n] == '(' || e[n] == ' ' || e[n] == '\n'))
      return true;
  }
  return false;
}

/* The number of parallel ptxas runs: $KORCH_PTXAS_JOBS when a positive number, else the online
 * CPUs, at most KR_PTXAS_MAX_JOBS. */
static unsigned ptxas_jobs(void) {
  const char *env = getenv("KORCH_PTXAS_JOBS");
  long n = 0;
  if (env && *env) {
    char *end;
    n = strtol(env, &end, 10);
    if (*end || n < 1) n = 0;
  }
  if (!n) n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  return n > KR_PTXAS_MAX_JOBS ? KR_PTXAS_MAX_JOBS : (unsigned)n;
}

typedef struct ptxas_job {
  char ptx_path[4096], out_path[4096];
  int out_fd;
  pid_t pid;
  size_t from, to;   /* the group's entries: ptx [from, to) */
  unsigned entries;  /* how many */
} ptxas_job;

/* Writes the group's PTX file (header + its entries) and a file for its report, and starts ptxas
 * on it with stdout and stderr into that file.  False on any failure (nothing left running). */
static bool start_job(ptxas_job *j, const char *ptxas, const char *archopt, const char *ptx, size_t header,
                      const char *dir) {
  j->pid = -1;
  j->out_fd = -1;
  snprintf(j->ptx_path, sizeof j->ptx_path, "%s/korch-ptxas-XXXXXX", dir);
  snprintf(j->out_path, sizeof j->out_path, "%s/korch-ptxas-report-XXXXXX", dir);
  int fd = mkstemp(j->ptx_path);
  if (fd < 0) {
    j->ptx_path[0] = 0;
    j->out_path[0] = 0;
    return false;
  }
  bool ok = write_all(fd, ptx, header) && write_all(fd, ptx + j->from, j->to - j->from);
  if (close(fd)) ok = false;
  j->out_fd = ok ? mkstemp(j->out_path) : -1;
  if (j->out_fd < 0) {
    j->out_path[0] = 0;
    return false;
  }
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa)) return false;
  int err = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (!err) err = posix_spawn_file_actions_adddup2(&fa, j->out_fd, 1);
  if (!err) err = posix_spawn_file_actions_adddup2(&fa, j->out_fd, 2);
  if (!err) err = posix_spawn_file_actions_addclose(&fa, j->out_fd);
  char *argv[] = {(char *)ptxas, "-v", (char *)archopt, "-o", "/dev/null", j->ptx_path, NULL};
  if (!err) err = posix_spawnp(&j->pid, ptxas, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err) j->pid = -1;
  return !err;
}

/* Waits for the job (when started), reads its report into *report, removes its files.  True when
 * ptxas ran and exited 0. */
static bool finish_job(ptxas_job *j, text *report) {
  bool ok = false;
  if (j->pid > 0) {
    int status = 0;
    pid_t w;
    while ((w = waitpid(j->pid, &status, 0)) < 0 && errno == EINTR) {}
    ok = w == j->pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  if (ok && lseek(j->out_fd, 0, SEEK_SET) == 0) {
    char buf[4096];
    for (;;) {
      ssize_t r = read(j->out_fd, buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) ok = false;
      if (r <= 0) break;
      if (!text_append(report, buf, (size_t)r)) {
        ok = false;
        break;
      }
    }
  } else {
    ok = false;
  }
  if (j->out_fd >= 0) close(j->out_fd);
  if (j->out_path[0]) unlink(j->out_path);
  if (j->ptx_path[0]) unlink(j->ptx_path);
  return ok;
}

/* The parallel runs; true with *infos / *num_infos set (in PTX order) when every group's run
 * succeeded and reported exactly its entries, false (nothing set, nothing left behind) when the
 * caller should run ptxas once on the whole file. */
static bool ptxas_parallel(const char *ptxas, const char *archopt, const char *ptx, const char *dir,
                           kr_ptxas_info **infos, unsigned *num_infos) {
  unsigned jobs = ptxas_jobs();
  if (jobs < 2) return false;
  size_t len = strlen(ptx);
  enum { MAX_ENTRIES = 4096 };
  size_t *starts = malloc(MAX_ENTRIES * sizeof *starts);
  unsigned n = 0;
  if (!starts || !entry_starts(ptx, len, starts, MAX_ENTRIES, &n) || n < 2) {
    free(starts);
    return false;
  }
  if (jobs > n) jobs = n;
  /* Contiguous groups of about len / jobs bytes of entries each (kernels differ in size a lot;
   * assembling time follows the PTX size roughly). */
  ptxas_job job[KR_PTXAS_MAX_JOBS];
  size_t body = len - starts[0];
  unsigned g = 0, first = 0;
  for (unsigned i = 0; i < n && g < jobs; i++) {
    size_t end = i + 1 < n ? starts[i + 1] : len;
    bool last_group = g + 1 == jobs;
    bool full = end - starts[0] >= body / jobs * (g + 1);
    bool must_cut = n - (i + 1) == jobs - (g + 1);   /* one entry left per remaining group */
    if (i + 1 == n || (!last_group && (full || must_cut))) {
      job[g].from = starts[first];
      job[g].to = end;
      job[g].entries = i + 1 - first;
      g++;
      first = i + 1;
    }
  }
  jobs = g;
  unsigned started = 0;
  bool ok = true;
  for (; started < jobs && ok; started++) ok = start_job(&job[started], ptxas, archopt, ptx, starts[0], dir);
  free(starts);
  kr_ptxas_info *all = NULL;
  unsigned num = 0;
  for (unsigned i = 0; i < started; i++) {
    text report = {0};
    bool done = finish_job(&job[i], &report);
    kr_ptxas_info *part = NULL;
    unsigned k = 0;
    if (ok && done && report.data && !parse_report(&report, &part, &k) &&
        k == job[i].entries) {
      for (unsigned e = 0; e < k && ok; e++) ok = group_defines(ptx, job[i].from, job[i].to, part[e].name);
      kr_ptxas_info *grown = ok ? realloc(all, (num + k) * sizeof *all) : NULL;
      if (grown) {
        all = grown;
        memcpy(all + num, part, k * sizeof *part);
        num += k;
      } else {
        ok = false;
      }
    } else {
      ok = false;
    }
    free(part);
    free(report.data);
  }
  if (!ok) {
    free(all);
    return false;
  }
  *infos = all;
  *num_infos = num;
  return true;
}

kr_status kr_nvptx_ptxas(kr_context *ctx, kr_attr loc, const char *ptxas, const char *arch, const char *ptx,
                         kr_ptxas_info **infos, unsigned *num_infos) {
  *infos = NULL;
  *num_infos = 0;
  if (!ptxas || !*ptxas) return kr_emit_error(ctx, loc, "ptxas: no ptxas program given");
  if (!arch || strncmp(arch, "sm_", 3) || strlen(arch) > 15)
    return kr_emit_error(ctx, loc, "ptxas: bad architecture '%s'", arch ? arch : "(null)");
  /* A path is checked here: posix_spawnp may report a failed exec only as exit status 127. */
  if (strchr(ptxas, '/') && access(ptxas, X_OK))
    return kr_emit_error(ctx, loc, "ptxas: cannot run '%s': %s", ptxas, strerror(errno));
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  char archopt[32];
  snprintf(archopt, sizeof archopt, "-arch=%s", arch);
  if (ptxas_parallel(ptxas, archopt, ptx, dir, infos, num_infos)) return KR_SUCCESS;
  char tmpname[4096];
  snprintf(tmpname, sizeof tmpname, "%s/korch-ptxas-XXXXXX", dir);
  int fd = mkstemp(tmpname);
  if (fd < 0) return kr_emit_error(ctx, loc, "ptxas: cannot create a temporary file: %s", strerror(errno));
  bool ok = write_all(fd, ptx, strlen(ptx));
  int werr = errno;
  if (close(fd)) ok = false;
  if (!ok) {
    unlink(tmpname);
    return kr_emit_error(ctx, loc, "ptxas: cannot write the temporary file '%s': %s", tmpname, strerror(werr));
  }
  char *argv[] = {(char *)ptxas, "-v", archopt, "-o", "/dev/null", tmpname, NULL};
  text report = {0};
  int status = 0;
  int err = run_capture(argv, &report, &status);
  kr_status st = KR_SUCCESS;
  if (err) {
    st = kr_emit_error(ctx, loc, "ptxas: cannot run '%s': %s", ptxas, strerror(err));
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    char msg[2048];
    first_errors(&report, tmpname, msg, sizeof msg);
    if (WIFEXITED(status))
      st = kr_emit_error(ctx, loc, "ptxas -arch=%s failed (exit status %d): %s", arch, WEXITSTATUS(status), msg);
    else
      st = kr_emit_error(ctx, loc, "ptxas -arch=%s was killed by signal %d: %s", arch,
                         WIFSIGNALED(status) ? WTERMSIG(status) : -1, msg);
  } else {
    const char *bad = report.data ? parse_report(&report, infos, num_infos) : NULL;
    unsigned want = count_entries(ptx);
    if (bad)
      st = kr_emit_error(ctx, loc, "ptxas: cannot parse the report of '%s -v': %s", ptxas, bad);
    else if (*num_infos != want)
      st = kr_emit_error(ctx, loc, "ptxas: '%s -v' reported %u entry functions, the PTX has %u", ptxas, *num_infos,
                         want);
    if (KR_FAILED(st)) {
      free(*infos);
      *infos = NULL;
      *num_infos = 0;
    }
  }
  free(report.data);
  unlink(tmpname);
  return st;
}
