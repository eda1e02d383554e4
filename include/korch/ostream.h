/* korch/ostream.h - a buffered output sink: a FILE* or a growable in-memory string.
 * The printer, the diagnostics formatter and the pass instrumentation write through it. */
#ifndef KORCH_OSTREAM_H
#define KORCH_OSTREAM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_ostream {
  FILE *file;        /* NULL: in-memory stream */
  char *buf;         /* buffered bytes (file) or the whole string (memory), malloc'd */
  size_t len, cap;
  bool error;        /* a write to `file` failed */
} kr_ostream;

/* A stream over `f` (not owned: kr_ostream_close flushes but does not fclose). */
void kr_ostream_init_file(kr_ostream *os, FILE *f);
/* An in-memory stream; read the result with kr_ostream_str. */
void kr_ostream_init_mem(kr_ostream *os);
void kr_ostream_write(kr_ostream *os, const char *s, size_t n);
void kr_ostream_puts(kr_ostream *os, const char *s);
void kr_ostream_putc(kr_ostream *os, char c);
void kr_ostream_printf(kr_ostream *os, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kr_ostream_vprintf(kr_ostream *os, const char *fmt, va_list ap);
void kr_ostream_print_i64(kr_ostream *os, long long v);
/* NUL-terminated contents of an in-memory stream (valid until the next write or close). */
const char *kr_ostream_str(kr_ostream *os);
/* Flushes a file stream; returns false if any write failed. */
bool kr_ostream_flush(kr_ostream *os);
/* Flushes (file) and frees the buffer. */
bool kr_ostream_close(kr_ostream *os);

#ifdef __cplusplus
}
#endif
#endif
