/* test/lib/test_passes.h - passes for testing the pass manager itself (after MLIR's test passes in
 * mlir/test/lib/Pass): a pass that fails, one that breaks the IR, one with options of every kind,
 * one anchored on func.func.  Registered by korch-opt next to the test dialect; never part of
 * libkorch. */
#ifndef KORCH_TEST_LIB_TEST_PASSES_H
#define KORCH_TEST_LIB_TEST_PASSES_H

#include "korch/pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers test-fail, test-break-ir, test-options, test-func-pass and test-perturb-constants in
 * `ctx` (idempotent).
 *   test-fail        reports "'<op>' op test-fail: failing as asked" and fails
 *   test-break-ir    appends a `test.verify_positive {value = 0 : i64}` to the first block of the
 *                    op's first region (invalid: the verifier rejects it) and succeeds
 *   test-options     options flag (bool), number (int, default -1), size (uint), ratio (double,
 *                    0.5), label (string, "none"); emits a remark listing their values
 *   test-func-pass   anchored on func.func; emits a remark "test-func-pass on @name"
 *   test-perturb-constants
 *                    multiplies the `value` of every constant-like op holding floats (a float
 *                    attribute or a dense float tensor) by `factor` (default 1.01): a planted
 *                    numerics bug that --verify-numerics must catch */
kr_status kr_register_test_passes(kr_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
