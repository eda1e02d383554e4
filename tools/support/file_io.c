/* tools/support/file_io.c - whole-file input, and the tools' messages around the library's atomic
 * output files (korch/file.h). */
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
  int err = kr_file_output_open(out, path);
  if (err == 0) return true;
  const char *failed = kr_file_output_failed_path(out);
  if (err == ENOMEM && !failed)
    fprintf(stderr, "%s: out of memory\n", tool);
  else /* the temporary file could not be created, or the file itself not opened */
    fprintf(stderr, "%s: cannot %s '%s': %s\n", tool, out->tmp_path ? "create" : "open", failed ? failed : path,
            strerror(err));
  kr_file_output_abort(out);
  return false;
}

bool kr_tool_output_commit(kr_tool_output *out, const char *tool) {
  if (!out->file) return false;
  bool in_place = out->tmp_path == NULL;
  int err = kr_file_output_commit(out, false);
  if (err == 0) return true;
  const char *failed = kr_file_output_failed_path(out);
  if (in_place || !failed)
    fprintf(stderr, "%s: error writing the output\n", tool);
  else
    fprintf(stderr, "%s: cannot write '%s': %s\n", tool, failed, strerror(err));
  kr_file_output_abort(out);
  return false;
}

void kr_tool_output_abort(kr_tool_output *out) { kr_file_output_abort(out); }
