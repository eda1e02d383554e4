/* tools/support/verify_diagnostics.h - `--verify-diagnostics`: checks the diagnostics a run
 * produces against `expected-*` comments in the input (MLIR's SourceMgrDiagnosticVerifierHandler,
 * mlir/docs/Diagnostics.md "Diagnostic verifier").
 *
 * Syntax, one expectation per line, anywhere on the line (normally in a `//` comment):
 *   expected-error {{message}}            a diagnostic on this line
 *   expected-warning @+2 {{message}}      two lines below (`@-N`: N lines above)
 *   expected-remark @above {{message}}    the line above (`@below`: the line below)
 *   expected-note @unknown {{message}}    a diagnostic without a file location
 *   expected-error-re {{literal {{regex}} literal}}   POSIX extended regex parts inside {{...}}
 * A diagnostic matches an expectation of the same severity on the same line of the same file
 * whose message is a substring of the diagnostic's message (or whose regex matches it).  Notes
 * attached to a diagnostic are checked like diagnostics of their own.  Each expectation matches
 * one diagnostic. */
#ifndef KORCH_TOOLS_SUPPORT_VERIFY_DIAGNOSTICS_H
#define KORCH_TOOLS_SUPPORT_VERIFY_DIAGNOSTICS_H

#include <stdio.h>

#include "korch/diag.h"

typedef struct kr_diag_verifier kr_diag_verifier;

/* Scans `buf` (the text registered for `filename` in `ctx`, which must outlive the verifier) for
 * expectations and installs the verifier as ctx's diagnostic handler.  Mismatches are written to
 * `err` (stderr if NULL) as diagnostics with the source line and caret: malformed expectations
 * now, unexpected diagnostics as they arrive, missing ones in kr_diag_verifier_finish.  Returns
 * NULL only when out of memory. */
kr_diag_verifier *kr_diag_verifier_create(kr_context *ctx, const char *filename, const char *buf, size_t len,
                                          FILE *err);
/* Reports every expectation no diagnostic matched ("expected error "msg" was not produced", at
 * the expectation's position).  Returns KR_SUCCESS iff the expectations were well formed, every
 * expectation was matched and no unexpected diagnostic arrived. */
kr_status kr_diag_verifier_finish(kr_diag_verifier *v);
/* Frees the verifier and restores the handler that was installed before it. */
void kr_diag_verifier_destroy(kr_diag_verifier *v);

#endif
