/* dialects/core_dialects.h - the dialect definitions korch ships (private; the public entry point
 * is kr_register_core_dialects in korch/dialect.h). */
#ifndef KORCH_DIALECTS_CORE_DIALECTS_H
#define KORCH_DIALECTS_CORE_DIALECTS_H

#include "korch/dialect.h"

extern const kr_dialect_def kr_builtin_dialect; /* dialects/builtin/builtin.c */
extern const kr_dialect_def kr_func_dialect;    /* dialects/func/func.c */
extern const kr_dialect_def kr_arith_dialect;   /* dialects/arith/arith.c */

#endif
