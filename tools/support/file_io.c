/* tools/support/file_io.c - whole-file input and atomic output (temporary file + rename). */
#include "file_io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *read_stream(FILE *f, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  if (!buf) return NULL;
  for (;;) {
    if (cap - n < 2) {
      size_t ncap = cap * 2;
      char *nbuf = realloc(buf, ncap);
      if (!nbuf) {
        free(buf);
        return NULL;
      }
      buf = nbuf;
      cap = ncap;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

char *kr_tool_read_file(const char *tool, const char *path, size_t *len) {
  *len = 0;
  if (!path || strcmp(path, "-") == 0) {
    char *buf = read_stream(stdin, len);
    if (!buf) fprintf(stderr, "%s: cannot read standard input: %s\n", tool, strerror(errno));
    return buf;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open '%s': %s\n", tool, path, strerror(errno));
    return NULL;
  }
  /* A directory opens fine on Linux but fails on read with EISDIR; say so clearly. */
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fprintf(stderr, "%s: cannot read '%s': %s\n", tool, path, strerror(EISDIR));
    fclose(f);
    return NULL;
  }
  errno = 0;
  char *buf = read_stream(f, len);
  if (!buf) fprintf(stderr, "%s: cannot read '%s': %s\n", tool, path, strerror(errno ? errno : EIO));
  fclose(f);
  return buf;
}

bool kr_tool_output_open(kr_tool_output *out, const char *tool, const char *path) {
  memset(out, 0, sizeof *out);
  if (!path || strcmp(path, "-") == 0) {
    out->file = stdout;
    return true;
  }
  /* Through a symlink, replace the file it points to, not the link. */
  char *resolved = NULL;
  struct stat st;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) resolved = realpath(path, NULL);
  const char *target = resolved ? resolved : path;
  /* Devices, FIFOs (/dev/null, /dev/stdout, a pipe) cannot be replaced by rename(), and must not
   * be: write to them directly. */
  if (stat(target, &st) == 0 && !S_ISREG(st.st_mode)) {
    out->file = fopen(target, "wb");
    if (!out->file) fprintf(stderr, "%s: cannot open '%s': %s\n", tool, path, strerror(errno));
    free(resolved);
    return out->file != NULL;
  }
  size_t n = strlen(target);
  out->path = malloc(n + 1);
  out->tmp_path = malloc(n + sizeof ".tmpXXXXXX");
  if (!out->path || !out->tmp_path) {
    fprintf(stderr, "%s: out of memory\n", tool);
    free(resolved);
    free(out->tmp_path);
    out->tmp_path = NULL;
    kr_tool_output_abort(out);
    return false;
  }
  memcpy(out->path, target, n + 1);
  memcpy(out->tmp_path, target, n);
  memcpy(out->tmp_path + n, ".tmpXXXXXX", sizeof ".tmpXXXXXX");
  free(resolved);
  /* Same directory as the target so that rename() is atomic (no cross-filesystem copy). */
  int fd = mkstemp(out->tmp_path);
  if (fd < 0) {
    fprintf(stderr, "%s: cannot create '%s': %s\n", tool, out->tmp_path, strerror(errno));
    free(out->tmp_path);
    out->tmp_path = NULL;
    kr_tool_output_abort(out);
    return false;
  }
  /* mkstemp creates 0600; give the result the permissions a plain fopen would (0666 & ~umask),
   * or those of the file it replaces. */
  mode_t mask = umask(0);
  umask(mask);
  mode_t mode = stat(out->path, &st) == 0 ? (st.st_mode & 07777) : (0666 & ~mask);
  (void)fchmod(fd, mode);
  out->file = fdopen(fd, "wb");
  if (!out->file) {
    fprintf(stderr, "%s: cannot open '%s': %s\n", tool, out->tmp_path, strerror(errno));
    close(fd);
    kr_tool_output_abort(out);
    return false;
  }
  return true;
}

static void output_release(kr_tool_output *out) {
  free(out->path);
  free(out->tmp_path);
  out->path = out->tmp_path = NULL;
  out->file = NULL;
}

bool kr_tool_output_commit(kr_tool_output *out, const char *tool) {
  if (!out->file) return false;
  if (!out->tmp_path) {   /* stdout or a device/FIFO written in place */
    bool ok = fflush(out->file) == 0 && !ferror(out->file);
    if (out->file != stdout && fclose(out->file) != 0) ok = false;
    if (!ok) fprintf(stderr, "%s: error writing the output\n", tool);
    output_release(out);
    return ok;
  }
  bool ok = fflush(out->file) == 0 && !ferror(out->file);
  int err = errno;
  if (fclose(out->file) != 0 && ok) {
    ok = false;
    err = errno;
  }
  out->file = NULL;
  if (ok && rename(out->tmp_path, out->path) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    fprintf(stderr, "%s: cannot write '%s': %s\n", tool, out->path, strerror(err));
    unlink(out->tmp_path);
  }
  output_release(out);
  return ok;
}

void kr_tool_output_abort(kr_tool_output *out) {
  if (out->file) {
    if (out->file != stdout) fclose(out->file);
    else fflush(out->file);
  }
  if (out->tmp_path) unlink(out->tmp_path);
  output_release(out);
}
