/* tools/support/split_input.c - `--split-input-file` chunking.
 *
 * mlir-opt names each chunk's buffer "within split at FILE:LINE offset" and reports lines relative
 * to the chunk.  korch keeps the original file name and line numbers instead (the chunk is padded
 * with the newlines that precede it), so a reported `file:line:col` can be opened directly. */
#include "split_input.h"

#include <stdlib.h>
#include <string.h>

/* Whether the line [p, eol) is the marker, alone on its line except for blanks. */
static int is_marker_line(const char *p, const char *eol, const char *marker, size_t mlen) {
  while (p < eol && (*p == ' ' || *p == '\t')) p++;
  if ((size_t)(eol - p) < mlen || memcmp(p, marker, mlen) != 0) return 0;
  p += mlen;
  while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
  return p == eol;
}

void kr_tool_split_input(const char *buf, size_t len, const char *marker, kr_vec *out) {
  size_t mlen = strlen(marker);
  size_t chunk_start = 0;
  unsigned chunk_line = 1, line = 1;
  size_t pos = 0;
  while (pos < len) {
    const char *eol = memchr(buf + pos, '\n', len - pos);
    size_t line_end = eol ? (size_t)(eol - buf) : len;
    if (is_marker_line(buf + pos, buf + line_end, marker, mlen)) {
      kr_tool_chunk c = {chunk_start, pos - chunk_start, chunk_line};
      kr_vec_push(out, &c, sizeof c);
      chunk_start = eol ? line_end + 1 : len;
      chunk_line = line + 1;
    }
    pos = eol ? line_end + 1 : len;
    line++;
  }
  kr_tool_chunk c = {chunk_start, len - chunk_start, chunk_line};
  kr_vec_push(out, &c, sizeof c);
}

char *kr_tool_chunk_text(const char *buf, const kr_tool_chunk *c, size_t *out_len) {
  size_t pad = c->first_line - 1;
  char *text = malloc(pad + c->len + 1);
  if (!text) return NULL;
  memset(text, '\n', pad);
  memcpy(text + pad, buf + c->start, c->len);
  text[pad + c->len] = '\0';
  *out_len = pad + c->len;
  return text;
}
