/* tools/support/file_io.h - whole-file input and atomic output for korch's command-line tools.
 *
 * Tools read their input fully into memory (the parser and the diagnostics engine keep pointers
 * into the buffer, so it must live as long as the context that parsed it) and write their output
 * atomically (DESIGN.md "Conventions": a failed run leaves the old file untouched). */
#ifndef KORCH_TOOLS_SUPPORT_FILE_IO_H
#define KORCH_TOOLS_SUPPORT_FILE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "korch/file.h"

/* Reads all of `path` ("-" reads standard input) into a malloc'd buffer with a terminating NUL
 * byte not counted in *len (the text may itself contain NULs).  On failure returns NULL and
 * writes "korch-opt: cannot read 'path': reason"-style text (prefixed with `tool`) to stderr. */
char *kr_tool_read_file(const char *tool, const char *path, size_t *len);

/* An output file being written, under the rules of korch/file.h (the library's one
 * implementation; these functions add the tools' messages): a temporary `<path>.tmpXXXXXX` in the
 * same directory, renamed over `path` by kr_tool_output_commit, deleted by kr_tool_output_abort.
 * Standard output ("-") and devices or FIFOs such as /dev/null are written directly.  A symlink
 * is followed: the file it points to is replaced.  Fields: `file` (write here), `path` (final
 * path, malloc'd, NULL for stdout), `tmp_path` (temporary path, malloc'd, NULL when written
 * directly). */
typedef kr_file_output kr_tool_output;

/* Opens `path` ("-" or NULL: stdout) for writing.  Returns false with a message on stderr if the
 * temporary file cannot be created (e.g. the directory does not exist or is not writable) or a
 * device/FIFO cannot be opened. */
bool kr_tool_output_open(kr_tool_output *out, const char *tool, const char *path);
/* Flushes, closes and renames the temporary file over the final path (stdout: flushes).  Returns
 * false with a message on stderr if any write, the close or the rename failed; the temporary file
 * is then removed and the old file (if any) is untouched. */
bool kr_tool_output_commit(kr_tool_output *out, const char *tool);
/* Discards the output: closes and deletes the temporary file (stdout: flushes what was written).
 * Safe to call after a failed open or a commit (does nothing then). */
void kr_tool_output_abort(kr_tool_output *out);

#endif
