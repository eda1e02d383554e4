/* runtime/internal.h - what the runtime's files share and korch-run does not see: the device
 * structure (the dlsym'ed driver table), error formatting, small file helpers and the PTX
 * `.entry` reader. */
#ifndef KORCH_RUNTIME_INTERNAL_H
#define KORCH_RUNTIME_INTERNAL_H

#include <stdarg.h>

#include "cuda_api.h"
#include "runtime.h"

struct kr_rt_device {
  void *lib; /* dlopen handle of libcuda.so.1 */
#define KR_CUDA_FIELD(field, symbol, params) kr_cu_##field##_fn field;
  KR_CUDA_ENTRY_POINTS(KR_CUDA_FIELD)
#undef KR_CUDA_FIELD
  kr_cu_device dev;
  kr_cu_context ctx; /* the primary context, retained, current on the opening thread */
  int ordinal, driver_version, cc_major, cc_minor, sms, smem_optin;
  char name[256], desc[320];
};

#if defined(__GNUC__)
#define KR_RT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KR_RT_PRINTF(f, a)
#endif

/* Formats err->msg (truncated to its size) and returns `status`. */
kr_rt_status kr_rt_fail(kr_rt_error *err, kr_rt_status status, const char *fmt, ...) KR_RT_PRINTF(3, 4);
/* Appends one line to err->msg (dry-run collects several); drops what does not fit. */
void kr_rt_append(kr_rt_error *err, const char *fmt, ...) KR_RT_PRINTF(2, 3);
/* "cuXxx(<what>): CUDA_ERROR_NAME (code): description" into err; returns KR_RT_ERROR. */
kr_rt_status kr_rt_cuda_fail(const kr_rt_device *d, kr_rt_error *err, const char *call, const char *what,
                             kr_cu_result r);

/* Reads a whole file into a malloc'd buffer with a terminating NUL (not counted in *size). */
kr_rt_status kr_rt_read_file(const char *path, char **data, size_t *size, kr_rt_error *err);

/* The `.entry` kernels of a PTX text (PTX ISA 8.x, "Kernel and Function Directives": `.entry
 * name ( .param .type name, ... )`, optionally `.visible`/`.extern`/`.weak` before it).  Each
 * entry's parameter count and whether every parameter is `.u64` (korch passes only device
 * pointers).  Comments (// and / * * /) are skipped. */
typedef struct kr_rt_ptx_entry {
  char name[256];
  unsigned params;
  bool all_u64;
  unsigned long long max_threads; /* from .maxntid/.reqntid (product of x,y,z); 0 when absent */
  int line;
} kr_rt_ptx_entry;
/* *entries is malloc'd (free it); returns KR_RT_ERROR with "path:LINE: ..." on a malformed
 * parameter list. */
kr_rt_status kr_rt_ptx_entries(const char *text, const char *path, kr_rt_ptx_entry **entries, unsigned *count,
                               kr_rt_error *err);

#endif
