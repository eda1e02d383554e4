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
