/* dialects/dialect_util.c - helpers shared by korch's dialects. */
#include "dialects/dialect_util.h"

#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/ostream.h"

/* Moves the in-memory stream's buffer out to a plain malloc'd string. */
static char *take_string(kr_ostream *os) {
  const char *s = kr_ostream_str(os);
  size_t n = strlen(s);
  char *out = malloc(n + 1);
  if (out) memcpy(out, s, n + 1);
  kr_ostream_close(os);
  if (!out) abort(); /* same policy as the arena's out-of-memory hook */
  return out;
}

char *kr_type_to_cstr(kr_type t) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  if (t)
    kr_type_print(&os, t);
  else
    kr_ostream_puts(&os, "<<NULL TYPE>>");
  return take_string(&os);
}

char *kr_attr_to_cstr(kr_attr a) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  if (a)
    kr_attr_print(&os, a);
  else
    kr_ostream_puts(&os, "<<NULL ATTRIBUTE>>");
  return take_string(&os);
}

bool kr_attr_name_has_dialect_prefix(const char *name) {
  const char *dot = strchr(name, '.');
  return dot && dot != name;
}

int64_t kr_dims_product(const int64_t *d, int64_t n) {
  int64_t p = 1;
  bool overflow = false;
  for (int64_t i = 0; i < n; i++) {
    if (d[i] == 0) return 0;
    if (!overflow && __builtin_mul_overflow(p, d[i], &p)) overflow = true;
  }
  return overflow ? -1 : p;
}
