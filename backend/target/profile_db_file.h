/* backend/target/profile_db_file.h - the profile database's file format and its safe writer,
 * with no korch context: compiled into libkorch (behind kr_profile_db_load/record, korch/target.h,
 * which turn the error strings into diagnostics) AND into the runtime (korch-run --profile,
 * runtime/profile.c), which links only libc, libdl and libxml2.  Besides libxml2 it needs only
 * backend/target/xml_core.c and ir/file_io.c (korch/file.h), both libc only, which the runtime
 * compiles too.
 *
 * The format (docs/Targets.md "Profile database"):
 *   <korch-profile version="1">
 *     <kernel target="h200" hash="0123456789abcdef" time_us="12.5" runs="100" name="k3"/>
 *   </korch-profile>
 * hash: 16 lower-case hex digits (the candidate's canonical hash, passes/orchestrate/orch.h);
 * time_us: the median time in microseconds, positive, finite, at most 1e9 (1000 s: more is
 * corrupt); runs: a positive integer (default 1); name: informative.  Unknown elements and
 * attributes, duplicate (target, hash) pairs and stray text are errors. */
#ifndef KORCH_BACKEND_TARGET_PROFILE_DB_FILE_H
#define KORCH_BACKEND_TARGET_PROFILE_DB_FILE_H

#include <stdbool.h>
#include <stdint.h>

/* One measurement.  Same fields and limits as korch/target.h's kr_profile_entry. */
typedef struct kr_pdb_entry {
  char target[32];   /* 1..31 printable ASCII characters */
  uint64_t hash;
  double time_us;
  int64_t runs;
  char name[64];     /* 0..63 printable ASCII characters */
} kr_pdb_entry;

typedef struct kr_pdb {
  kr_pdb_entry *entries;   /* malloc'd, sorted by (target, hash), distinct */
  unsigned num_entries;
} kr_pdb;

/* The error of a failed call: "path:line: message" (parse errors), "path: message" (I/O). */
typedef struct kr_pdb_error {
  char msg[1536];
} kr_pdb_error;

/* Reads `path` into db.  A missing file is an empty database (true).  On failure db is empty
 * and err says why. */
bool kr_pdb_load(const char *path, kr_pdb *db, kr_pdb_error *err);
void kr_pdb_free(kr_pdb *db);
/* The time of (target, hash), negative when absent (binary search). */
double kr_pdb_lookup(const kr_pdb *db, const char *target, uint64_t hash);
/* Merges n entries into the file at `path` (a later entry replaces an earlier one with the same
 * (target, hash), new ones replace old ones), safely under concurrent writers in any processes:
 * an exclusive flock on "<path>.lock" (next to the file a symlink resolves to; never removed,
 * so all writers lock one inode), re-read under the lock, merge, write a temporary file beside
 * it, fsync, rename over it (korch/file.h).  Readers see the old or the new file, never a torn
 * one.  Entries are validated first (same rules as reading).  A corrupt existing file is an
 * error and is left as it is.  "-" is a file named "-". */
bool kr_pdb_record(const char *path, const kr_pdb_entry *entries, unsigned n, kr_pdb_error *err);
/* A candidate hash as the database stores it: exactly 16 lower-case hex digits (NULL or anything
 * else: false).  Also used by korch-run --profile for the plan's profile_hash. */
bool kr_pdb_parse_hash(const char *s, uint64_t *out);

#endif
