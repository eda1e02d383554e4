/* ir/ostream.c - buffered output to a FILE* or to memory (korch/ostream.h).
 *
 * File streams buffer 64 KiB and write through fwrite; memory streams keep one growing,
 * always NUL-terminated string.  kr_ostream_print_i64 avoids printf because the printer emits
 * millions of integers. */
#include "korch/ostream.h"

#include <stdlib.h>
#include <string.h>

enum { KR_OSTREAM_FILE_BUF = 64 * 1024 };

void kr_ostream_init_file(kr_ostream *os, FILE *f) {
  memset(os, 0, sizeof *os);
  os->file = f;
  os->buf = malloc(KR_OSTREAM_FILE_BUF);
  if (!os->buf) abort();
  os->cap = KR_OSTREAM_FILE_BUF;
}

void kr_ostream_init_mem(kr_ostream *os) {
  memset(os, 0, sizeof *os);
  os->cap = 256;
  os->buf = malloc(os->cap);
  if (!os->buf) abort();
  os->buf[0] = 0;
}

static void file_flush(kr_ostream *os) {
  if (os->len && os->file) {
    if (fwrite(os->buf, 1, os->len, os->file) != os->len) os->error = true;
  }
  os->len = 0;
}

/* Memory streams: room for `n` more bytes plus the NUL. */
static void mem_reserve(kr_ostream *os, size_t n) {
  if (os->len + n + 1 <= os->cap) return;
  size_t cap = os->cap ? os->cap : 256;
  while (cap < os->len + n + 1) cap *= 2;
  char *b = realloc(os->buf, cap);
  if (!b) abort();
  os->buf = b;
  os->cap = cap;
}

void kr_ostream_write(kr_ostream *os, const char *s, size_t n) {
  if (!n) return;
  if (os->file) {
    if (os->len + n > os->cap) {
      file_flush(os);
      if (n >= os->cap) {
        if (fwrite(s, 1, n, os->file) != n) os->error = true;
        return;
      }
    }
    memcpy(os->buf + os->len, s, n);
    os->len += n;
    return;
  }
  mem_reserve(os, n);
  memcpy(os->buf + os->len, s, n);
  os->len += n;
  os->buf[os->len] = 0;
}

void kr_ostream_puts(kr_ostream *os, const char *s) { kr_ostream_write(os, s, strlen(s)); }

void kr_ostream_putc(kr_ostream *os, char c) {
  if (os->file) {
    if (os->len == os->cap) file_flush(os);
    os->buf[os->len++] = c;
    return;
  }
  mem_reserve(os, 1);
  os->buf[os->len++] = c;
  os->buf[os->len] = 0;
}

void kr_ostream_vprintf(kr_ostream *os, const char *fmt, va_list ap) {
  char small[256];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  if (n < 0) {
    va_end(ap2);
    return;
  }
  if ((size_t)n < sizeof small) {
    kr_ostream_write(os, small, (size_t)n);
  } else {
    char *big = malloc((size_t)n + 1);
    if (!big) abort();
    vsnprintf(big, (size_t)n + 1, fmt, ap2);
    kr_ostream_write(os, big, (size_t)n);
    free(big);
  }
  va_end(ap2);
}

void kr_ostream_printf(kr_ostream *os, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_ostream_vprintf(os, fmt, ap);
  va_end(ap);
}

void kr_ostream_print_i64(kr_ostream *os, long long v) {
  char tmp[24];
  char *p = tmp + sizeof tmp;
  /* Negate in unsigned arithmetic so LLONG_MIN works. */
  unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  do {
    *--p = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) *--p = '-';
  kr_ostream_write(os, p, (size_t)(tmp + sizeof tmp - p));
}

const char *kr_ostream_str(kr_ostream *os) {
  if (os->file) return "";
  if (!os->buf) kr_ostream_init_mem(os);
  return os->buf;
}

bool kr_ostream_flush(kr_ostream *os) {
  if (os->file) {
    file_flush(os);
    if (fflush(os->file) != 0) os->error = true;
  }
  return !os->error;
}

bool kr_ostream_close(kr_ostream *os) {
  bool ok = kr_ostream_flush(os);
  free(os->buf);
  os->buf = NULL;
  os->len = os->cap = 0;
  return ok;
}
