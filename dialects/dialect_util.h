/* dialects/dialect_util.h - small helpers shared by korch's dialects (private). */
#ifndef KORCH_DIALECTS_DIALECT_UTIL_H
#define KORCH_DIALECTS_DIALECT_UTIL_H

#include "korch/asm.h" /* kr_type_to_cstr, kr_attr_to_cstr */
#include "korch/ir.h"

/* Whether `name` (an attribute name) has a dialect prefix: a '.' after a non-empty first part,
 * as MLIR requires for discardable attributes on builtin.module. */
bool kr_attr_name_has_dialect_prefix(const char *name);

/* The product of n static dims (a shape's element count), or -1 when it does not fit in int64
 * (0 when any dim is 0, even if the others overflow).  Used by the op and prim shape rules. */
int64_t kr_dims_product(const int64_t *d, int64_t n);

#endif
