/* test/lib/test_dialect.h - the `test` dialect, for lit and unit tests only (test/lib/ops.def lists
 * its ops).  Besides ops it has a dialect type `!test.pair<T, U>` (two type parameters) and a
 * dialect attribute `#test.color<red|green|blue>`, to exercise the type/attribute hooks. */
#ifndef KORCH_TEST_LIB_TEST_DIALECT_H
#define KORCH_TEST_LIB_TEST_DIALECT_H

#include "korch/dialect.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the `test` dialect in `ctx` (idempotent).  Fails with a diagnostic only if another
 * dialect named "test" is registered. */
kr_status kr_register_test_dialect(kr_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
