/* korch/target.h - GPU target descriptions for the cost model (backend/target/), and the
 * measured profile database orchestration prefers over the model.
 *
 * A target is an XML file (backend/target/<name>.xml, compiled into the library; or any path)
 * with the figures of one GPU from its vendor datasheet; each file cites its sources.  Units are
 * the ones in the field names.  The module attribute `korch.target` (a string: a built-in name
 * or a path) records the target later passes read; absent, it is "h200". */
#ifndef KORCH_TARGET_H
#define KORCH_TARGET_H

#include <stdint.h>

#include "korch/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_target {
  char name[32];                 /* "h200" */
  char gpu[64];                  /* "NVIDIA H200 SXM 141GB" */
  char arch[16];                 /* PTX target, "sm_90" (V100: "sm_70", cost model only) */
  int sm_count;
  double sm_clock_mhz;           /* boost clock */
  double dram_bandwidth_gbs;     /* GB/s (1e9 bytes per second) */
  int64_t dram_bytes;
  int64_t l2_bytes;
  int64_t smem_per_block_bytes;  /* static limit, 48 KiB */
  int64_t smem_per_block_optin_bytes; /* with cuFuncSetAttribute (dynamic shared memory) */
  int64_t smem_per_sm_bytes;
  int regs_per_sm;               /* 32-bit registers */
  int regs_per_block;
  int max_regs_per_thread;
  int max_threads_per_block;
  int max_threads_per_sm;
  int warp_size;
  double peak_fp32_tflops;       /* dense, non-tensor-core */
  double peak_tf32_tflops;       /* tensor core, dense */
  double peak_fp16_tflops;       /* tensor core, dense */
  double launch_overhead_us;     /* per kernel launch, host + device, back to back */
} kr_target;

/* The built-in target names ("a100", "h100", "h200", "v100"), sorted; NULL-terminated. */
const char *const *kr_target_builtin_names(void);

/* Loads a target: a built-in name or a path to an XML file (contains '/' or ends in ".xml").
 * Reports unknown names (listing the built-in ones), unreadable files, malformed XML
 * ("file:line: ..." from libxml2) and missing fields or values outside each field's plausible
 * range (docs/Targets.md), as errors at `loc`. */
kr_status kr_target_load(kr_context *ctx, const char *name_or_path, kr_attr loc, kr_target *out);

/* The module's `korch.target` (default "h200") loaded; reports like kr_target_load. */
kr_status kr_target_of_module(kr_op *module, kr_target *out);
/* Sets `korch.target` on the module: a built-in name as given, a file path as its absolute path
 * (realpath), so later passes find it from any working directory. */
void kr_target_set_module(kr_op *module, const char *name_or_path);
#define KR_TARGET_ATTR "korch.target"
#define KR_TARGET_DEFAULT "h200"

/* ---------------------------------------------------------------------------------------------
 * Profile database: measured kernel times by (target name, candidate hash).  An XML file
 *   <korch-profile version="1">
 *     <kernel target="h200" hash="0123456789abcdef" time_us="12.5" runs="100" name="k3"/>
 *   </korch-profile>
 * hash: 16 lower-case hex digits (kr_candidate hash); time_us: median microseconds. */
typedef struct kr_profile_entry {
  char target[32];
  uint64_t hash;
  double time_us;
  int64_t runs;
  char name[64];                 /* informative (kernel name when measured) */
} kr_profile_entry;

typedef struct kr_profile_db {
  kr_profile_entry *entries;     /* malloc'd, sorted by (target, hash) */
  unsigned num_entries;
} kr_profile_db;

/* Reads `path` into db (a missing file is an empty database, not an error).  A corrupt file
 * (not XML, wrong root or version, an entry with a bad hash or a non-positive time) is an error
 * "path:line: ..." at `loc`. */
kr_status kr_profile_db_load(kr_context *ctx, const char *path, kr_attr loc, kr_profile_db *db);
void kr_profile_db_free(kr_profile_db *db);
/* The measured time of (target, hash), or a negative value when the database has none. */
double kr_profile_db_lookup(const kr_profile_db *db, const char *target, uint64_t hash);
/* Merges `n` entries into the file at `path` (replacing same (target, hash)), safely under
 * concurrent writers: an exclusive lock on "<path>.lock" (flock), read, merge, write a temporary
 * file, fsync, rename (korch/file.h; through a symlink, the lock and the temporary file sit next
 * to the file it points to, and the link stays).  Reports I/O and parse errors at `loc`. */
kr_status kr_profile_db_record(kr_context *ctx, const char *path, const kr_profile_entry *entries, unsigned n,
                               kr_attr loc);

#ifdef __cplusplus
}
#endif
#endif
