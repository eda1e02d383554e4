/* runtime/util.c - error messages and whole-file reading for the runtime (it cannot use
 * libkorch's diagnostics or korch/file.h: korch-run links libc, libdl and libxml2 only). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

kr_rt_status kr_rt_fail(kr_rt_error *err, kr_rt_status status, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return status;
}

void kr_rt_append(kr_rt_error *err, const char *fmt, ...) {
  if (!err) return;
  size_t used = strnlen(err->msg, sizeof err->msg);
  if (used + 2 >= sizeof err->msg) return;
  if (used) err->msg[used++] = '\n';
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg + used, sizeof err->msg - used, fmt, ap);
  va_end(ap);
}

kr_rt_status kr_rt_read_file(const char *path, char **data, size_t *size, kr_rt_error *err) {
  *data = NULL;
  *size = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return kr_rt_fail(err, KR_RT_ERROR, "%s: cannot open: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (n + 1 < cap) {
      if (ferror(f)) break;
      if (feof(f) || got == 0) {
        buf[n] = '\0';
        fclose(f);
        *data = buf;
        *size = n;
        return KR_RT_OK;
      }
      continue;
    }
    char *grown = realloc(buf, cap * 2);
    if (!grown) break;
    buf = grown;
    cap *= 2;
  }
  const char *why = buf ? strerror(errno) : "out of memory";
  kr_rt_fail(err, KR_RT_ERROR, "%s: cannot read: %s", path, why);
  free(buf);
  fclose(f);
  return KR_RT_ERROR;
}
