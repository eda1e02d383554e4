/* runtime/runtime.h - the tiny CUDA runtime behind korch-run (issue 7, docs/Runtime.md).
 *
 * Depends on libc, libdl and libxml2 only: no libkorch, no LLVM, no CBC, and no link-time CUDA
 * dependency (the driver is dlopen'ed), so korch-run can be copied alone to a GPU machine.
 * Errors are returned as a status plus a message in a kr_rt_error (the runtime has no korch
 * diagnostics engine); the library never prints and never exits. */
#ifndef KORCH_RUNTIME_H
#define KORCH_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum kr_rt_status {
  KR_RT_OK = 0,
  KR_RT_ERROR = 1,      /* bad plan, bad input, CUDA call failed, numerics mismatch */
  KR_RT_NO_DRIVER = 77, /* libcuda.so.1 missing or cuInit failed: the caller may skip */
} kr_rt_status;

typedef struct kr_rt_error {
  char msg[2048];       /* "model.plan.xml:12: ...", "cuLaunchKernel(main_k3): CUDA_ERROR_... (700): ..." */
} kr_rt_error;

/* ---- The plan (runtime/plan.c; format in docs/PlanFormat.md) ------------------------------- */
typedef enum kr_rt_region { KR_RT_ARENA, KR_RT_WEIGHTS } kr_rt_region;
typedef struct kr_rt_ref { kr_rt_region region; uint64_t offset, bytes; } kr_rt_ref;

typedef struct kr_rt_tensor {
  char *name, *dtype;           /* dtype as in the plan: "f32", "i64", "i1", ... */
  unsigned rank;
  int64_t dims[8];
  kr_rt_ref ref;
} kr_rt_tensor;

typedef struct kr_rt_kernel {
  char *name, *template_name;
  unsigned params;
  int64_t registers, shared_bytes, local_bytes, spill_bytes; /* -1 when not recorded */
  int line;                     /* in the plan file, for messages */
} kr_rt_kernel;

typedef struct kr_rt_launch {
  unsigned kernel;              /* index into kernels */
  unsigned grid[3], block[3];
  uint64_t dynamic_shared_bytes;
  unsigned num_args;
  kr_rt_ref *args;
  int line;                     /* in the plan file, for messages */
} kr_rt_launch;

typedef struct kr_rt_plan {
  char *dir;                    /* the plan's directory */
  char *path, *function, *target, *gpu_arch, *ptx_file, *weights_file; /* files: full paths */
  uint64_t arena_bytes, no_reuse_bytes, alignment, weights_bytes;
  unsigned num_inputs, num_outputs, num_kernels, num_launches;
  kr_rt_tensor *inputs, *outputs;
  kr_rt_kernel *kernels;
  kr_rt_launch *launches;
  bool has_profile;             /* <profile> present */
  char profile_target[32], profile_hash[17], profile_name[64];
} kr_rt_plan;

/* Parses `path` (libxml2, no network, no entity expansion) and checks it (every rule of
 * docs/PlanFormat.md "Readers reject ...").  On error *plan is left empty. */
kr_rt_status kr_rt_plan_load(const char *path, kr_rt_plan *plan, kr_rt_error *err);
void kr_rt_plan_free(kr_rt_plan *plan);
/* Element size of a plan dtype in bytes, 0 when unknown. */
unsigned kr_rt_dtype_size(const char *dtype);

/* ---- Checks without a GPU (runtime/dry_run.c) --------------------------------------------- */
/* Reads the PTX and the weights file and checks: every kernel has a `.entry` with exactly
 * `params` parameters, all .u64, and every launch that many args; every range inside its region
 * and at a multiple of the plan's alignment; the weights file's size; block <= 1024 threads
 * (x,y <= 1024, z <= 64) and within the .entry's .maxntid/.reqntid, grid within 2^31-1 x 65535 x
 * 65535, no zero dimension; static + dynamic shared memory <= the architecture's per-block
 * opt-in limit (sm_80 163 KiB, sm_86/sm_89 99 KiB, sm_90 227 KiB...: CUDA C++ Programming Guide,
 * "Technical Specifications per Compute Capability"; an unknown gpu-arch fails); registers x
 * threads per block <= 65,536 and registers <= 255 per thread when the plan has the ptxas
 * figures (every product overflow-checked); the weights file a regular file; the PTX text with
 * .version/.target/.address_size (also without kernels); no two distinct overlapping arena ranges
 * live at once where the plan says so for certain (inputs at the upload, one launch's args,
 * outputs at the return; a launch's last arg, a result, on no other arg's range: docs/Runtime.md
 * "--dry-run").  Reports every failure (one
 * "PATH[:LINE]: message" per line in err->msg, up to its size) and returns KR_RT_ERROR if any;
 * *checks_run (may be NULL) gets how many checks ran.  Needs no driver. */
kr_rt_status kr_rt_dry_run(const kr_rt_plan *plan, kr_rt_error *err, unsigned *checks_run);

/* ---- The device (runtime/cuda.c, runtime/session.c) ---------------------------------------- */
typedef struct kr_rt_device kr_rt_device;
typedef struct kr_rt_session kr_rt_session;

/* dlopen("libcuda.so.1") ($KORCH_CUDA_LIBRARY overrides the file name, for tests), resolve the
 * _v2 entry points, cuInit, device `ordinal`, its primary context.  KR_RT_NO_DRIVER when the
 * library is missing or cuInit fails ("no CUDA driver: ..."). */
kr_rt_status kr_rt_device_open(int ordinal, kr_rt_device **dev, kr_rt_error *err);
void kr_rt_device_close(kr_rt_device *dev);
/* "NVIDIA H200 (sm_90, 132 SMs, driver 13.0)"; owned by dev. */
const char *kr_rt_device_name(const kr_rt_device *dev);

/* Loads the plan's PTX (cuModuleLoadDataEx, JIT log quoted on failure), resolves every kernel,
 * sets the dynamic-shared-memory attribute where a launch needs > 48 KiB, allocates the arena
 * and the weights region, uploads the weights.  A plan without kernels (an identity or
 * constant graph) loads no module at all (docs/Runtime.md "Plans without kernels"). */
kr_rt_status kr_rt_session_create(kr_rt_device *dev, const kr_rt_plan *plan, kr_rt_session **s, kr_rt_error *err);
void kr_rt_session_destroy(kr_rt_session *s);
/* Copies host data into input i's range (bytes must equal its size). */
kr_rt_status kr_rt_session_set_input(kr_rt_session *s, unsigned i, const void *data, size_t bytes, kr_rt_error *err);
/* Fills every input with deterministic values (floats uniform in [-1, 1), integers 0, bools
 * 0): for timing and profiling only. */
kr_rt_status kr_rt_session_fill_inputs(kr_rt_session *s, kr_rt_error *err);
/* Runs every launch in order on the session's stream and synchronises.  A failing launch is
 * reported as "cuLaunchKernel(<kernel>): <CUDA error name> (<code>): <string>". */
kr_rt_status kr_rt_session_run(kr_rt_session *s, kr_rt_error *err);
/* Copies output i's range to host memory (bytes must equal its size). */
kr_rt_status kr_rt_session_get_output(kr_rt_session *s, unsigned i, void *data, size_t bytes, kr_rt_error *err);
/* `warmup` untimed runs, then `iters` runs each timed with CUDA events (milliseconds in
 * ms[0..iters)).  When `launch` >= 0 only that launch is run and timed (profiling).  Before
 * every run (warm-up included) the inputs set with set_input/fill_inputs are copied in again
 * from the session's host copies, outside the timed interval: the memory plan may reuse an
 * input's range for a later intermediate, so a run leaves clobbered inputs behind. */
kr_rt_status kr_rt_session_time(kr_rt_session *s, int launch, unsigned warmup, unsigned iters, double *ms,
                                kr_rt_error *err);

/* ---- Profiling candidate kernels (runtime/profile.c; docs/Targets.md, docs/Runtime.md) ---- */
/* korch-run --profile DIR --db FILE: for every DIR/<name>/model.plan.xml (in name order) that has
 * a <profile target hash name> element (korch-translate --emit-candidates writes one artifact per
 * candidate kernel, Korch ASPLOS'24 section 5), creates a session, fills the inputs
 * (kr_rt_session_fill_inputs), runs `warmup` untimed and `iters` (>= 1) timed runs of its
 * launches (kr_rt_session_time, CUDA events) and takes the median in microseconds.  All the
 * measurements (target, hash, median us, runs = iters, name) are then merged into the profile
 * database `db_path` in ONE locked update (flock on "<db_path>.lock", re-read, merge, temporary
 * file, fsync, rename: backend/target/profile_db_file.c, the writer libkorch uses too), so
 * concurrent profilers are safe and the lock is never held across GPU work.  A corrupt database
 * is reported before anything is timed and left as it is.  The first failing candidate stops
 * the run (a CUDA error may leave the context unusable); what was measured before it is still
 * recorded.  Plans without <profile> are skipped (noted on `log`); none with one is an error.
 * `log` (may be NULL) gets one line per candidate ("<hash> <name> median .. us min .. max ..")
 * and a summary. */
kr_rt_status kr_rt_profile(kr_rt_device *dev, const char *dir, const char *db_path, unsigned warmup, unsigned iters,
                           FILE *log, kr_rt_error *err);
/* Before anything is timed, kr_rt_profile checks (and kr_rt_profile_dry_run checks alone, with
 * no device): the database `db_path` loads and its directory exists (db_path may be NULL in a
 * dry run: not checked); every candidate's <profile hash> is unique and equals its folder's
 * name.  The dry run then runs kr_rt_dry_run on every candidate (one "PASS/FAIL <plan>" line
 * each on `log`), writes nothing, and fails when any candidate fails. */
kr_rt_status kr_rt_profile_dry_run(const char *dir, const char *db_path, FILE *log, kr_rt_error *err);

/* ---- .npy files (runtime/npy.c; NumPy format 1.0-3.0, little-endian, C order) -------------- */
typedef struct kr_rt_array {
  char dtype[8];                /* plan dtype name */
  unsigned rank;
  int64_t dims[8];
  void *data;                   /* malloc'd */
  size_t bytes;
} kr_rt_array;
kr_rt_status kr_rt_npy_read(const char *path, kr_rt_array *a, kr_rt_error *err);
/* Atomic write (temporary + rename). */
kr_rt_status kr_rt_npy_write(const char *path, const char *dtype, unsigned rank, const int64_t *dims,
                             const void *data, size_t bytes, kr_rt_error *err);
void kr_rt_array_free(kr_rt_array *a);

#endif
