/* ir/diagnostics.c - the diagnostic engine (korch/diag.h), after MLIR's Diagnostics.md.
 *
 * kr_diag_print follows what mlir-opt 19 (llvm::SourceMgr) prints, so that tools and tests can
 * compare the two:
 *   f.kir:3:5: error: message            (first file location found inside the location)
 *     <source line, tabs expanded to 8-column stops>
 *       ^                                (caret under column `col`, 1-based, counted in bytes)
 *   <unknown>:0: error: message          (loc(unknown))
 *   <unknown>:0: error: loc("n"): message (a location without any file location inside)
 * Notes follow their diagnostic, formatted the same way with the word `note`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"

void kr_context_set_diag_handler(kr_context *ctx, kr_diag_handler h, void *user) {
  ctx->diag_handler = h;
  ctx->diag_user = user;
}

void kr_context_get_diag_handler(kr_context *ctx, kr_diag_handler *h, void **user) {
  if (h) *h = ctx->diag_handler;
  if (user) *user = ctx->diag_user;
}

unsigned kr_context_num_errors(const kr_context *ctx) { return ctx->num_errors; }

static char *vformat(const char *prefix, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  size_t plen = prefix ? strlen(prefix) : 0;
  int n = vsnprintf(NULL, 0, fmt, ap);
  if (n < 0) n = 0;
  char *s = malloc(plen + (size_t)n + 1);
  if (!s) abort();
  if (plen) memcpy(s, prefix, plen);
  vsnprintf(s + plen, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return s;
}

static kr_diagnostic *diag_new(kr_context *ctx, kr_severity sev, kr_attr loc, char *msg) {
  kr_diagnostic *d = calloc(1, sizeof *d);
  if (!d) abort();
  d->ctx = ctx;
  d->severity = sev;
  d->loc = loc ? loc : ctx->unknown_loc;
  d->message = msg;
  return d;
}

kr_diagnostic *kr_diag_vbegin(kr_context *ctx, kr_severity sev, kr_attr loc, const char *fmt, va_list ap) {
  return diag_new(ctx, sev, loc, vformat(NULL, fmt, ap));
}

kr_diagnostic *kr_diag_begin(kr_context *ctx, kr_severity sev, kr_attr loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_diagnostic *d = kr_diag_vbegin(ctx, sev, loc, fmt, ap);
  va_end(ap);
  return d;
}

/* A note without a location of its own points where its diagnostic does (MLIR's attachNote). */
void kr_diag_note(kr_diagnostic *d, kr_attr loc, const char *fmt, ...) {
  if (!d) return;
  va_list ap;
  va_start(ap, fmt);
  kr_diagnostic *n = diag_new(d->ctx, KR_SEV_NOTE, loc ? loc : d->loc, vformat(NULL, fmt, ap));
  va_end(ap);
  kr_diagnostic **tail = &d->notes;
  while (*tail) tail = &(*tail)->next;
  *tail = n;
}

static void diag_free(kr_diagnostic *d) {
  while (d) {
    kr_diagnostic *next = d->next;
    diag_free(d->notes);
    free(d->message);
    free(d);
    d = next;
  }
}

void kr_diag_report(kr_diagnostic *d) {
  if (!d) return;
  kr_context *ctx = d->ctx;
  if (d->severity == KR_SEV_ERROR) ctx->num_errors++;
  if (ctx->diag_handler) ctx->diag_handler(d, ctx->diag_user);
  diag_free(d);
}

static kr_status emit(kr_context *ctx, kr_severity sev, kr_attr loc, const char *prefix, const char *fmt, va_list ap) {
  kr_diag_report(diag_new(ctx, sev, loc, vformat(prefix, fmt, ap)));
  return sev == KR_SEV_ERROR ? KR_FAILURE : KR_SUCCESS;
}

kr_status kr_emit_error(kr_context *ctx, kr_attr loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_status s = emit(ctx, KR_SEV_ERROR, loc, NULL, fmt, ap);
  va_end(ap);
  return s;
}

kr_status kr_emit_warning(kr_context *ctx, kr_attr loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_status s = emit(ctx, KR_SEV_WARNING, loc, NULL, fmt, ap);
  va_end(ap);
  return s;
}

kr_status kr_emit_remark(kr_context *ctx, kr_attr loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_status s = emit(ctx, KR_SEV_REMARK, loc, NULL, fmt, ap);
  va_end(ap);
  return s;
}

/* "'op.name' op " (MLIR's Operation::emitOpError prefix). */
static char *op_prefix(kr_op *op) {
  size_t n = kr_ident_len(op->name);
  char *p = malloc(n + 8);
  if (!p) abort();
  p[0] = '\'';
  memcpy(p + 1, op->name, n);
  memcpy(p + 1 + n, "' op ", 6);
  return p;
}

static kr_status op_emit(kr_op *op, kr_severity sev, const char *fmt, va_list ap) {
  char *prefix = op_prefix(op);
  kr_status s = emit(kr_op_context(op), sev, op->loc, prefix, fmt, ap);
  free(prefix);
  return s;
}

kr_status kr_op_emit_error(kr_op *op, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_status s = op_emit(op, KR_SEV_ERROR, fmt, ap);
  va_end(ap);
  return s;
}

kr_status kr_op_emit_warning(kr_op *op, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_status s = op_emit(op, KR_SEV_WARNING, fmt, ap);
  va_end(ap);
  return s;
}

kr_status kr_op_emit_remark(kr_op *op, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_status s = op_emit(op, KR_SEV_REMARK, fmt, ap);
  va_end(ap);
  return s;
}

kr_diagnostic *kr_op_diag_begin(kr_op *op, kr_severity sev, const char *fmt, ...) {
  char *prefix = op_prefix(op);
  va_list ap;
  va_start(ap, fmt);
  kr_diagnostic *d = diag_new(kr_op_context(op), sev, op->loc, vformat(prefix, fmt, ap));
  va_end(ap);
  free(prefix);
  return d;
}

/* ------------------------------------------------------------------------------------------- */

void kr_context_add_source(kr_context *ctx, const char *filename, const char *buf, size_t len) {
  kr_ident name = kr_ident_cstr(ctx, filename);
  for (size_t i = 0; i < ctx->sources.len; i++) {
    kr_source *s = &KR_VEC_AT(&ctx->sources, kr_source, i);
    if (s->filename == name) {
      s->buf = buf;
      s->len = len;
      return;
    }
  }
  kr_source s = {name, buf, len};
  KR_VEC_PUSH(&ctx->sources, kr_source, s);
}

void kr_context_remove_source(kr_context *ctx, const char *filename) {
  kr_ident name = kr_ident_cstr(ctx, filename);
  kr_source *v = KR_VEC_DATA(&ctx->sources, kr_source);
  for (size_t i = 0; i < ctx->sources.len; i++) {
    if (v[i].filename == name) {
      memmove(&v[i], &v[i + 1], (ctx->sources.len - i - 1) * sizeof *v);
      ctx->sources.len--;
      return;
    }
  }
}

/* llvm::printEscapedString: printable ASCII except '"' and '\' as is, '\' doubled, the rest as
 * \XX with uppercase hex digits. */
static void print_escaped(kr_ostream *os, const char *s, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  kr_ostream_putc(os, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\\') {
      kr_ostream_write(os, "\\\\", 2);
    } else if (c >= 0x20 && c < 0x7f && c != '"') {
      kr_ostream_putc(os, (char)c);
    } else {
      char b[3] = {'\\', hex[c >> 4], hex[c & 15]};
      kr_ostream_write(os, b, 3);
    }
  }
  kr_ostream_putc(os, '"');
}

void kr_loc_print(kr_ostream *os, kr_attr loc) {
  if (!loc || loc->kind != KR_ATTR_LOCATION) {
    kr_ostream_puts(os, "unknown");
    return;
  }
  switch (loc->u.loc.kind) {
  case KR_LOC_UNKNOWN: kr_ostream_puts(os, "unknown"); break;
  case KR_LOC_FILE:
    print_escaped(os, loc->u.loc.name, kr_ident_len(loc->u.loc.name));
    kr_ostream_putc(os, ':');
    kr_ostream_print_i64(os, loc->u.loc.line);
    kr_ostream_putc(os, ':');
    kr_ostream_print_i64(os, loc->u.loc.col);
    break;
  case KR_LOC_NAME:
    print_escaped(os, loc->u.loc.name, kr_ident_len(loc->u.loc.name));
    if (loc->u.loc.child) {
      kr_ostream_putc(os, '(');
      kr_loc_print(os, loc->u.loc.child);
      kr_ostream_putc(os, ')');
    }
    break;
  case KR_LOC_CALLSITE:
    kr_ostream_puts(os, "callsite(");
    kr_loc_print(os, loc->u.loc.child);
    kr_ostream_puts(os, " at ");
    kr_loc_print(os, loc->u.loc.caller);
    kr_ostream_putc(os, ')');
    break;
  case KR_LOC_FUSED:
    kr_ostream_puts(os, "fused");
    if (loc->u.loc.metadata) {
      kr_ostream_putc(os, '<');
      kr_attr_print(os, loc->u.loc.metadata);
      kr_ostream_putc(os, '>');
    }
    kr_ostream_putc(os, '[');
    for (unsigned i = 0; i < loc->u.loc.num; i++) {
      if (i) kr_ostream_puts(os, ", ");
      kr_loc_print(os, loc->u.loc.locs[i]);
    }
    kr_ostream_putc(os, ']');
    break;
  }
}

static const char *severity_word(kr_severity s) {
  switch (s) {
  case KR_SEV_ERROR: return "error";
  case KR_SEV_WARNING: return "warning";
  case KR_SEV_REMARK: return "remark";
  case KR_SEV_NOTE: return "note";
  }
  return "error";
}

static const kr_source *find_source(kr_context *ctx, kr_ident name) {
  for (size_t i = 0; i < ctx->sources.len; i++) {
    const kr_source *s = &KR_VEC_AT(&ctx->sources, kr_source, i);
    if (s->filename == name) return s;
  }
  return NULL;
}

/* Prints line `line` (1-based) of `src` and a caret under byte column `col` (1-based), tabs
 * expanded to 8-column stops in both lines as llvm::SMDiagnostic does. */
static void print_source_line(kr_ostream *os, const kr_source *src, unsigned line, unsigned col) {
  if (line == 0) return;
  const char *p = src->buf, *end = src->buf + src->len;
  for (unsigned l = 1; l < line; l++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return;
    p = nl + 1;
  }
  const char *eol = memchr(p, '\n', (size_t)(end - p));
  if (!eol) eol = end;
  if (eol > p && eol[-1] == '\r') eol--;
  size_t width = 0, caret = 0;
  size_t cbyte = col ? col - 1 : 0;
  for (const char *q = p; q < eol; q++) {
    if ((size_t)(q - p) == cbyte) caret = width;
    if (*q == '\t') {
      size_t next = (width / 8 + 1) * 8;
      for (; width < next; width++) kr_ostream_putc(os, ' ');
    } else {
      kr_ostream_putc(os, *q);
      width++;
    }
  }
  if (cbyte >= (size_t)(eol - p)) caret = width + (cbyte - (size_t)(eol - p));
  kr_ostream_putc(os, '\n');
  for (size_t i = 0; i < caret; i++) kr_ostream_putc(os, ' ');
  kr_ostream_puts(os, "^\n");
}

static void print_one(kr_ostream *os, const kr_diagnostic *d) {
  kr_attr file = kr_loc_find_file(d->loc);
  if (file) {
    kr_ident fn = file->u.loc.name;
    kr_ostream_write(os, fn, kr_ident_len(fn));
    /* Line 0 means "the file as a whole" (a binary input such as an .onnx model): no position. */
    if (file->u.loc.line) {
      kr_ostream_putc(os, ':');
      kr_ostream_print_i64(os, file->u.loc.line);
      kr_ostream_putc(os, ':');
      kr_ostream_print_i64(os, file->u.loc.col);
    }
    kr_ostream_printf(os, ": %s: %s\n", severity_word(d->severity), d->message);
    const kr_source *src = find_source(d->ctx, fn);
    if (src) print_source_line(os, src, file->u.loc.line, file->u.loc.col);
    return;
  }
  kr_ostream_printf(os, "<unknown>:0: %s: ", severity_word(d->severity));
  if (d->loc && !(d->loc->kind == KR_ATTR_LOCATION && d->loc->u.loc.kind == KR_LOC_UNKNOWN)) {
    kr_ostream_puts(os, "loc(");
    kr_loc_print(os, d->loc);
    kr_ostream_puts(os, "): ");
  }
  kr_ostream_puts(os, d->message);
  kr_ostream_putc(os, '\n');
}

void kr_diag_print(kr_ostream *os, const kr_diagnostic *d) {
  print_one(os, d);
  for (const kr_diagnostic *n = d->notes; n; n = n->next) print_one(os, n);
}

void kr_diag_print_handler(const kr_diagnostic *d, void *user) {
  FILE *f = user ? (FILE *)user : stderr;
  kr_ostream os;
  kr_ostream_init_file(&os, f);
  kr_diag_print(&os, d);
  kr_ostream_close(&os);
}
