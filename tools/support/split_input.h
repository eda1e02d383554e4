/* tools/support/split_input.h - `--split-input-file`: cutting a test file into independent
 * chunks at `// -----` lines (MLIR's mlir/lib/Support/ToolUtilities.cpp behaviour). */
#ifndef KORCH_TOOLS_SUPPORT_SPLIT_INPUT_H
#define KORCH_TOOLS_SUPPORT_SPLIT_INPUT_H

#include <stddef.h>

#include "korch/adt.h"

/* One chunk of the input: the bytes [start, start+len) of the original buffer, the 1-based line
 * the chunk starts on in the original file. */
typedef struct kr_tool_chunk {
  size_t start, len;
  unsigned first_line;
} kr_tool_chunk;

/* The default separator: a line holding only `// -----` (leading and trailing blanks allowed). */
#define KR_TOOL_SPLIT_MARKER "// -----"

/* Splits `buf` at every line that consists of `marker` (after optional leading spaces/tabs, and
 * followed only by blanks up to the end of the line).  The separator lines themselves belong to no
 * chunk.  Appends kr_tool_chunk entries to `out` (at least one: the whole buffer when there is no
 * separator).  The caller frees `out` with kr_vec_free. */
void kr_tool_split_input(const char *buf, size_t len, const char *marker, kr_vec *out);

/* Makes a malloc'd, NUL-terminated copy of chunk `c` of `buf`, preceded by (c->first_line - 1)
 * newline characters so that lines and columns reported while parsing the chunk are those of the
 * original file (the chunk's bytes keep their columns).  *out_len receives the length without
 * the NUL.  Returns NULL if out of memory. */
char *kr_tool_chunk_text(const char *buf, const kr_tool_chunk *c, size_t *out_len);

#endif
