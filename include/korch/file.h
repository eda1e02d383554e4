/* korch/file.h - safe, atomic output files: the one implementation behind every file korch writes
 * (korch-opt/korch-translate/korch-interp -o, the orchestration report and DOT picture, the
 * MILP LP dumps, the profile database).
 *
 * The rules (DESIGN.md "Conventions": a failed run leaves the old file untouched):
 *   - A regular file (or a path that does not exist yet) is written to a new temporary file
 *     `<final>.tmpXXXXXX` in the same directory (so that rename() is atomic: no cross-filesystem
 *     copy), which kr_file_output_commit renames over the final path.  Until then, and forever
 *     when the output is aborted or fails, readers see the old content.  The new file gets the
 *     permissions (and, where the process may set them, the owner and group) of the file it
 *     replaces, or, for a new file, those a plain fopen() would give (0666 & ~umask, directory
 *     default ACLs apply).  A file with several hard links is replaced under this one name only.
 *   - A symlink is followed, through any chain of links, and the file it points to is replaced
 *     (or created, for a dangling link): the link itself stays.  The temporary file sits next to
 *     the resolved file.  More than 40 links in a chain fail with ELOOP.
 *   - Anything that is neither a regular file nor a directory (a character or block device such
 *     as /dev/null or /dev/stderr, a FIFO) is opened and written in place, never replaced: rename()
 *     would turn /dev/null into a regular file.  Opening a FIFO blocks until it has a reader.
 *     There is no atomicity (and no temporary file) then.
 *   - "-" (or NULL) is standard output, written in place and never closed.
 *   - A directory fails with EISDIR; a missing parent directory with ENOENT (no directory is
 *     created); an unwritable one with EACCES.  The temporary file is never left behind: a failed
 *     commit and an abort remove it.
 *
 * This layer reports errors as errno values and prints nothing: callers report them (the library
 * as a diagnostic naming the path and strerror(), the tools as "tool: cannot write 'x': ...").
 * Thread safety: independent outputs may be used from different threads (no global state is
 * changed; in particular the umask is not touched). */
#ifndef KORCH_FILE_H
#define KORCH_FILE_H

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An output file being written.  Zero-initialise or let kr_file_output_open fill it. */
typedef struct kr_file_output {
  FILE *file;       /* write here; NULL before a successful open and after commit/abort */
  char *path;       /* final path, symlinks resolved (malloc'd); NULL for standard output */
  char *tmp_path;   /* the temporary file (malloc'd); NULL when written in place */
} kr_file_output;

/* Opens `path` for writing under the rules above.  Returns 0, or an errno value (ENOENT, EACCES,
 * EISDIR, ELOOP, ENOMEM, ...) with out->file NULL; kr_file_output_failed_path then names the
 * path the error is about (the temporary file when creating it failed, else the final path),
 * and kr_file_output_abort must be called to free that name. */
int kr_file_output_open(kr_file_output *out, const char *path);

/* Finishes the output: flushes and, with `sync`, fsyncs the temporary file (and its directory
 * after the rename), closes it and renames it over the final path.  In place: flushes and closes
 * (standard output: flushes only); `sync` is ignored.  Returns 0, or an errno value (EIO when a
 * buffered write failed without one; EINVAL when out was not open): the temporary file is then
 * removed, the old file is untouched, kr_file_output_failed_path names the final path and
 * kr_file_output_abort must be called to free it.  On success everything is released. */
int kr_file_output_commit(kr_file_output *out, bool sync);

/* Discards the output: closes the file and deletes the temporary file (in place: flushes and
 * closes what was written; standard output: flushes).  Releases everything.  Safe on a zeroed
 * struct, after a failed open or commit (deletes nothing then) and after a successful commit
 * (does nothing), and safe to call twice. */
void kr_file_output_abort(kr_file_output *out);

/* After a failed kr_file_output_open or kr_file_output_commit: the path the error concerns (the
 * temporary file's name when it could not be created, otherwise the final path with symlinks
 * resolved), valid until kr_file_output_abort.  NULL when unknown (out of memory, standard
 * output): callers then name the path they passed. */
const char *kr_file_output_failed_path(const kr_file_output *out);

#ifdef __cplusplus
}
#endif

#endif
