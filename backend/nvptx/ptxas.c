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
 * (older ptxas omits "used N barriers"; "N bytes smem" is absent when a kernel has none). */
#include <errno.h>
#include <fcntl.h>
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
  char tmpname[4096];
  snprintf(tmpname, sizeof tmpname, "%s/korch-ptxas-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(tmpname);
  if (fd < 0) return kr_emit_error(ctx, loc, "ptxas: cannot create a temporary file: %s", strerror(errno));
  bool ok = write_all(fd, ptx, strlen(ptx));
  int werr = errno;
  if (close(fd)) ok = false;
  if (!ok) {
    unlink(tmpname);
    return kr_emit_error(ctx, loc, "ptxas: cannot write the temporary file '%s': %s", tmpname, strerror(werr));
  }
  char archopt[32];
  snprintf(archopt, sizeof archopt, "-arch=%s", arch);
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
