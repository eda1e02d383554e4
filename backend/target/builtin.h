/* backend/target/builtin.h - the built-in target descriptions compiled into the library.  The
 * table is generated at build time by backend/target/embed-xml.cmake from backend/target/<name>.xml
 * (see targets.cmake); target.c is its only reader. */
#ifndef KORCH_BACKEND_TARGET_BUILTIN_H
#define KORCH_BACKEND_TARGET_BUILTIN_H

#include <stddef.h>

typedef struct kr_target_builtin {
  const char *name; /* the file name without ".xml", e.g. "h200" */
  const char *xml;  /* the file's bytes, NUL-terminated */
  size_t len;       /* bytes, without the NUL */
} kr_target_builtin;

/* Sorted by name (strcmp). */
extern const kr_target_builtin kr_target_builtins[];
extern const unsigned kr_target_num_builtins;
/* The names of kr_target_builtins, NULL-terminated (kr_target_builtin_names). */
extern const char *const kr_target_builtin_name_list[];

#endif
