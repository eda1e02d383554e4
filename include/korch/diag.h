/* korch/diag.h - diagnostics: the library's one error path (after MLIR's Diagnostics.md).
 *
 * The library never prints and never exits: it reports a kr_diagnostic to the handler installed
 * on the context and returns KR_FAILURE.  Tools install kr_diag_print_handler (stderr, with the
 * source line and a caret) or their own (korch-opt --verify-diagnostics collects them). */
#ifndef KORCH_DIAG_H
#define KORCH_DIAG_H

#include <stdarg.h>
#include "korch/ir.h"
#include "korch/ostream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kr_severity { KR_SEV_ERROR, KR_SEV_WARNING, KR_SEV_REMARK, KR_SEV_NOTE } kr_severity;

typedef struct kr_diagnostic kr_diagnostic;
struct kr_diagnostic {
  kr_context *ctx;
  kr_severity severity;
  kr_attr loc;                 /* a location attribute, never NULL */
  char *message;               /* malloc'd, owned by the diagnostic */
  kr_diagnostic *notes;        /* attached notes, in order */
  kr_diagnostic *next;         /* next note in the parent's list */
};

/* Called once per reported diagnostic (notes are delivered attached, not on their own). */
typedef void (*kr_diag_handler)(const kr_diagnostic *d, void *user);
/* Installs `h` (NULL: drop diagnostics); returns the previous one through *old_* if non-NULL. */
void kr_context_set_diag_handler(kr_context *ctx, kr_diag_handler h, void *user);
void kr_context_get_diag_handler(kr_context *ctx, kr_diag_handler *h, void **user);
/* Number of errors reported since the context was created. */
unsigned kr_context_num_errors(const kr_context *ctx);

/* In-flight diagnostics: begin, attach notes, then report (which frees it). */
kr_diagnostic *kr_diag_begin(kr_context *ctx, kr_severity sev, kr_attr loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
kr_diagnostic *kr_diag_vbegin(kr_context *ctx, kr_severity sev, kr_attr loc, const char *fmt, va_list ap);
void kr_diag_note(kr_diagnostic *d, kr_attr loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void kr_diag_report(kr_diagnostic *d);

/* Report-at-once shorthands.  All return KR_FAILURE (warnings/remarks: KR_SUCCESS) so that
 * `return kr_emit_error(...)` reads naturally. */
kr_status kr_emit_error(kr_context *ctx, kr_attr loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
kr_status kr_emit_warning(kr_context *ctx, kr_attr loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
kr_status kr_emit_remark(kr_context *ctx, kr_attr loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* At op->loc, prefixed "'op.name' op " as in MLIR. */
kr_status kr_op_emit_error(kr_op *op, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
kr_status kr_op_emit_warning(kr_op *op, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
kr_status kr_op_emit_remark(kr_op *op, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* As kr_op_emit_error but returns the in-flight diagnostic so notes can be attached. */
kr_diagnostic *kr_op_diag_begin(kr_op *op, kr_severity sev, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Source buffers: register the text of a file so diagnostics can show the offending line.
 * The context copies nothing: `buf` must outlive the context (or until removed). */
void kr_context_add_source(kr_context *ctx, const char *filename, const char *buf, size_t len);
void kr_context_remove_source(kr_context *ctx, const char *filename);

/* Formats `d` and its notes as mlir-opt does (llvm::SourceMgr format):
 *   file:line:col: error: message
 *   <source line>            (tabs expanded to 8-column stops)
 *       ^                    (under column `col`, 1-based)
 * using the first file location inside d->loc (line 0 means the whole file, e.g. a binary
 * .onnx model: `file: error: message`); the source line and caret only when the file
 * is registered.  Without a file location: `<unknown>:0: error: message`, with
 * `loc(...): ` before the message unless the location is loc(unknown). */
void kr_diag_print(kr_ostream *os, const kr_diagnostic *d);
/* A ready handler writing kr_diag_print output to the FILE* in `user` (stderr if NULL). */
void kr_diag_print_handler(const kr_diagnostic *d, void *user);
/* Prints a location attribute as in `loc(...)`, without the `loc` keyword (e.g. "f.kir":3:4). */
void kr_loc_print(kr_ostream *os, kr_attr loc);

#ifdef __cplusplus
}
#endif
#endif
