/* dialects/dialect_util.c - helpers shared by korch's dialects. */
#include "dialects/dialect_util.h"

#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/ostream.h"

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
