/* test/lib/fake_cuda.c - libfake_cuda.so, a CUDA driver stand-in for korch-run's tests
 * (KORCH_CUDA_LIBRARY=%fake_cuda, docs/Runtime.md "Testing without a GPU").
 *
 * It exports the entry points runtime/cuda_api.h lists, with their versioned names, and behaves
 * like a tiny GPU whose kernels do nothing:
 *   - one device, "Fake GPU", compute capability 9.0, 132 SMs, 227 KiB opt-in shared memory;
 *   - device memory is host memory (malloc); copies are real; allocations are tracked, and every
 *     pointer a copy or a launch argument uses must lie inside a live allocation (else
 *     CUDA_ERROR_ILLEGAL_ADDRESS), so the runtime's address arithmetic is checked;
 *   - a module load records the PTX's `.entry` names and parameter counts (unknown names in
 *     cuModuleGetFunction give CUDA_ERROR_NOT_FOUND); text without any `.entry` is rejected with
 *     CUDA_ERROR_INVALID_PTX and a line in the JIT error log;
 *   - cuLaunchKernel checks the grid/block limits and the dynamic shared memory against the
 *     attribute set with cuFuncSetAttribute (48 KiB default), dereferences every parameter, and
 *     does nothing else;
 *   - cuEventElapsedTime returns 1, 2, 3, ... ms on successive calls (deterministic timing).
 * $FAKE_CUDA_FAIL=<function name> (cuInit, cuMemAlloc, cuLaunchKernel, ...; the unversioned
 * name) makes that function fail with CUDA_ERROR_LAUNCH_FAILED.  $FAKE_CUDA_LOG=1 prints every
 * launch to stderr ("fake_cuda: launch NAME grid x,y,z block x,y,z shared N args A");
 * $FAKE_CUDA_TRACE=1 prints every host-to-device copy ("fake_cuda: HtoD N bytes") and event
 * record ("fake_cuda: event record"), so a test can see where copies fall relative to the
 * timed interval. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_api.h"

#define EXPORT __attribute__((visibility("default")))

static bool should_fail(const char *fn) {
  const char *f = getenv("FAKE_CUDA_FAIL");
  return f && !strcmp(f, fn);
}
#define FAIL_IF_ASKED(fn)                                                                                       \
  do {                                                                                                          \
    if (should_fail(fn)) return KR_CUDA_ERROR_LAUNCH_FAILED;                                                    \
  } while (0)

static bool initialized;

/* ---- Allocations ---------------------------------------------------------------------------- */
typedef struct alloc {
  unsigned char *p;
  size_t bytes;
} alloc;
static alloc *allocs;
static size_t num_allocs, cap_allocs;

/* Whether [p, p + bytes) lies inside one live allocation. */
static bool inside(kr_cu_deviceptr p, size_t bytes) {
  for (size_t i = 0; i < num_allocs; i++) {
    uintptr_t b = (uintptr_t)allocs[i].p;
    if (p >= b && p - b <= allocs[i].bytes && bytes <= allocs[i].bytes - (p - b)) return true;
  }
  return false;
}

/* ---- Modules -------------------------------------------------------------------------------- */
typedef struct fake_func {
  char name[256];
  unsigned params;
  int max_dynamic_shared;
} fake_func;
struct CUmod_st {
  fake_func *funcs;
  unsigned num_funcs;
};

EXPORT kr_cu_result cuGetErrorName(kr_cu_result e, const char **s) {
  switch (e) {
  case KR_CUDA_SUCCESS: *s = "CUDA_SUCCESS"; return 0;
  case KR_CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; return 0;
  case KR_CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
  case KR_CUDA_ERROR_NOT_INITIALIZED: *s = "CUDA_ERROR_NOT_INITIALIZED"; return 0;
  case KR_CUDA_ERROR_INVALID_PTX: *s = "CUDA_ERROR_INVALID_PTX"; return 0;
  case KR_CUDA_ERROR_NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; return 0;
  case KR_CUDA_ERROR_ILLEGAL_ADDRESS: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; return 0;
  case KR_CUDA_ERROR_LAUNCH_FAILED: *s = "CUDA_ERROR_LAUNCH_FAILED"; return 0;
  default: *s = NULL; return KR_CUDA_ERROR_INVALID_VALUE;
  }
}

EXPORT kr_cu_result cuGetErrorString(kr_cu_result e, const char **s) {
  switch (e) {
  case KR_CUDA_ERROR_LAUNCH_FAILED: *s = "unspecified launch failure (fake driver)"; return 0;
  case KR_CUDA_ERROR_ILLEGAL_ADDRESS: *s = "an illegal memory access was encountered (fake driver)"; return 0;
  case KR_CUDA_ERROR_NOT_FOUND: *s = "named symbol not found (fake driver)"; return 0;
  case KR_CUDA_ERROR_INVALID_PTX: *s = "a PTX JIT compilation failed (fake driver)"; return 0;
  case KR_CUDA_ERROR_INVALID_VALUE: *s = "invalid argument (fake driver)"; return 0;
  default: return cuGetErrorName(e, s);
  }
}

EXPORT kr_cu_result cuInit(unsigned flags) {
  FAIL_IF_ASKED("cuInit");
  if (flags != 0) return KR_CUDA_ERROR_INVALID_VALUE;
  initialized = true;
  return 0;
}

EXPORT kr_cu_result cuDriverGetVersion(int *v) {
  *v = 13000;
  return 0;
}

EXPORT kr_cu_result cuDeviceGet(kr_cu_device *d, int ordinal) {
  FAIL_IF_ASKED("cuDeviceGet");
  if (!initialized) return KR_CUDA_ERROR_NOT_INITIALIZED;
  if (ordinal != 0) return KR_CUDA_ERROR_INVALID_VALUE; /* the real driver: CUDA_ERROR_INVALID_DEVICE */
  *d = 0;
  return 0;
}

EXPORT kr_cu_result cuDeviceGetName(char *name, int len, kr_cu_device d) {
  (void)d;
  snprintf(name, (size_t)len, "Fake GPU");
  return 0;
}

EXPORT kr_cu_result cuDeviceGetAttribute(int *v, unsigned attrib, kr_cu_device d) {
  (void)d;
  switch (attrib) {
  case KR_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; return 0;
  case KR_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; return 0;
  case KR_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; return 0;
  case KR_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 227 * 1024; return 0;
  default: return KR_CUDA_ERROR_INVALID_VALUE;
  }
}

static struct CUctx_st {
  int retained;
} the_context;

EXPORT kr_cu_result cuDevicePrimaryCtxRetain(kr_cu_context *ctx, kr_cu_device d) {
  (void)d;
  FAIL_IF_ASKED("cuDevicePrimaryCtxRetain");
  the_context.retained++;
  *ctx = &the_context;
  return 0;
}

EXPORT kr_cu_result cuDevicePrimaryCtxRelease_v2(kr_cu_device d) {
  (void)d;
  if (the_context.retained <= 0) return KR_CUDA_ERROR_INVALID_VALUE;
  the_context.retained--;
  return 0;
}

EXPORT kr_cu_result cuCtxSetCurrent(kr_cu_context ctx) { return ctx == &the_context ? 0 : KR_CUDA_ERROR_INVALID_VALUE; }

EXPORT kr_cu_result cuCtxSynchronize(void) {
  FAIL_IF_ASKED("cuCtxSynchronize");
  return 0;
}

EXPORT kr_cu_result cuMemAlloc_v2(kr_cu_deviceptr *p, size_t bytes) {
  FAIL_IF_ASKED("cuMemAlloc");
  if (bytes == 0) return KR_CUDA_ERROR_INVALID_VALUE;
  if (num_allocs == cap_allocs) {
    cap_allocs = cap_allocs ? cap_allocs * 2 : 8;
    alloc *grown = realloc(allocs, cap_allocs * sizeof *allocs);
    if (!grown) return KR_CUDA_ERROR_OUT_OF_MEMORY;
    allocs = grown;
  }
  /* Garbage, as on a GPU: the runtime must not assume zeroed memory. */
  unsigned char *m = malloc(bytes);
  if (!m) return KR_CUDA_ERROR_OUT_OF_MEMORY;
  memset(m, 0xa5, bytes);
  allocs[num_allocs++] = (alloc){m, bytes};
  *p = (uintptr_t)m;
  return 0;
}

EXPORT kr_cu_result cuMemFree_v2(kr_cu_deviceptr p) {
  for (size_t i = 0; i < num_allocs; i++)
    if ((uintptr_t)allocs[i].p == p) {
      free(allocs[i].p);
      allocs[i] = allocs[--num_allocs];
      if (num_allocs == 0) { /* no leak reports from the tests' sanitizer builds */
        free(allocs);
        allocs = NULL;
        cap_allocs = 0;
      }
      return 0;
    }
  return KR_CUDA_ERROR_INVALID_VALUE;
}

EXPORT kr_cu_result cuMemcpyHtoD_v2(kr_cu_deviceptr dst, const void *src, size_t bytes) {
  FAIL_IF_ASKED("cuMemcpyHtoD");
  if (!inside(dst, bytes)) return KR_CUDA_ERROR_ILLEGAL_ADDRESS;
  if (getenv("FAKE_CUDA_TRACE")) fprintf(stderr, "fake_cuda: HtoD %zu bytes\n", bytes);
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return 0;
}

EXPORT kr_cu_result cuMemcpyDtoH_v2(void *dst, kr_cu_deviceptr src, size_t bytes) {
  FAIL_IF_ASKED("cuMemcpyDtoH");
  if (!inside(src, bytes)) return KR_CUDA_ERROR_ILLEGAL_ADDRESS;
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return 0;
}

EXPORT kr_cu_result cuMemsetD8_v2(kr_cu_deviceptr dst, unsigned char value, size_t n) {
  FAIL_IF_ASKED("cuMemsetD8");
  if (!inside(dst, n)) return KR_CUDA_ERROR_ILLEGAL_ADDRESS;
  memset((void *)(uintptr_t)dst, value, n);
  return 0;
}

/* Records `.entry NAME(` and the number of `.param` up to the closing parenthesis.  Crude on
 * purpose (the runtime's own parser is runtime/ptx.c; this one is independent of it). */
EXPORT kr_cu_result cuModuleLoadDataEx(kr_cu_module *mod, const void *image, unsigned n, unsigned *options,
                                       void **values) {
  FAIL_IF_ASKED("cuModuleLoadDataEx");
  char *error_log = NULL;
  size_t error_log_size = 0;
  for (unsigned i = 0; i < n; i++) {
    if (options[i] == KR_CU_JIT_ERROR_LOG_BUFFER) error_log = values[i];
    if (options[i] == KR_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) error_log_size = (size_t)(uintptr_t)values[i];
  }
  struct CUmod_st *m = calloc(1, sizeof *m);
  if (!m) return KR_CUDA_ERROR_OUT_OF_MEMORY;
  const char *text = image;
  for (const char *p = text; (p = strstr(p, ".entry ")) != NULL;) {
    p += 7;
    fake_func f = {{0}, 0, 48 * 1024};
    size_t len = strcspn(p, "( \t\r\n{");
    if (len == 0 || len >= sizeof f.name) continue;
    memcpy(f.name, p, len);
    const char *open = p + len;
    while (*open == ' ' || *open == '\t' || *open == '\r' || *open == '\n') open++;
    if (*open == '(') {
      const char *close = strchr(open, ')');
      for (const char *q = open; close && (q = strstr(q, ".param")) != NULL && q < close; q += 6) f.params++;
    }
    fake_func *grown = realloc(m->funcs, (m->num_funcs + 1) * sizeof *grown);
    if (!grown) return KR_CUDA_ERROR_OUT_OF_MEMORY;
    m->funcs = grown;
    m->funcs[m->num_funcs++] = f;
  }
  if (m->num_funcs == 0) {
    if (error_log && error_log_size) snprintf(error_log, error_log_size, "fake ptxas: no .entry in the module");
    free(m);
    return KR_CUDA_ERROR_INVALID_PTX;
  }
  *mod = m;
  return 0;
}

EXPORT kr_cu_result cuModuleUnload(kr_cu_module mod) {
  free(mod->funcs);
  free(mod);
  return 0;
}

EXPORT kr_cu_result cuModuleGetFunction(kr_cu_function *f, kr_cu_module mod, const char *name) {
  FAIL_IF_ASKED("cuModuleGetFunction");
  for (unsigned i = 0; i < mod->num_funcs; i++)
    if (!strcmp(mod->funcs[i].name, name)) {
      *f = (kr_cu_function)(void *)&mod->funcs[i];
      return 0;
    }
  return KR_CUDA_ERROR_NOT_FOUND;
}

EXPORT kr_cu_result cuFuncSetAttribute(kr_cu_function f, unsigned attrib, int value) {
  FAIL_IF_ASKED("cuFuncSetAttribute");
  fake_func *ff = (fake_func *)(void *)f;
  if (attrib != KR_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 || value > 227 * 1024)
    return KR_CUDA_ERROR_INVALID_VALUE;
  ff->max_dynamic_shared = value;
  return 0;
}

EXPORT kr_cu_result cuLaunchKernel(kr_cu_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned shared, kr_cu_stream stream, void **params, void **extra) {
  FAIL_IF_ASKED("cuLaunchKernel");
  fake_func *ff = (fake_func *)(void *)f;
  (void)stream;
  if (extra || (ff->params && !params)) return KR_CUDA_ERROR_INVALID_VALUE;
  if (!gx || !gy || !gz || !bx || !by || !bz || gx > 0x7fffffffu || gy > 65535 || gz > 65535 || bx > 1024 ||
      by > 1024 || bz > 64 || (unsigned long long)bx * by * bz > 1024)
    return KR_CUDA_ERROR_INVALID_VALUE;
  if (shared > (unsigned)ff->max_dynamic_shared) return KR_CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < ff->params; i++) {
    kr_cu_deviceptr p;
    memcpy(&p, params[i], sizeof p);
    if (!inside(p, 0)) return KR_CUDA_ERROR_ILLEGAL_ADDRESS;
  }
  if (getenv("FAKE_CUDA_LOG"))
    fprintf(stderr, "fake_cuda: launch %s grid %u,%u,%u block %u,%u,%u shared %u args %u\n", ff->name, gx, gy, gz, bx,
            by, bz, shared, ff->params);
  return 0;
}

struct CUevent_st {
  int recorded;
};

EXPORT kr_cu_result cuEventCreate(kr_cu_event *e, unsigned flags) {
  FAIL_IF_ASKED("cuEventCreate");
  (void)flags;
  *e = calloc(1, sizeof **e);
  return *e ? 0 : KR_CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT kr_cu_result cuEventDestroy_v2(kr_cu_event e) {
  free(e);
  return 0;
}

EXPORT kr_cu_result cuEventRecord(kr_cu_event e, kr_cu_stream stream) {
  FAIL_IF_ASKED("cuEventRecord");
  (void)stream;
  if (getenv("FAKE_CUDA_TRACE")) fprintf(stderr, "fake_cuda: event record\n");
  e->recorded = 1;
  return 0;
}

EXPORT kr_cu_result cuEventSynchronize(kr_cu_event e) {
  FAIL_IF_ASKED("cuEventSynchronize");
  return e->recorded ? 0 : KR_CUDA_ERROR_INVALID_VALUE;
}

EXPORT kr_cu_result cuEventElapsedTime(float *ms, kr_cu_event start, kr_cu_event end) {
  static unsigned calls;
  FAIL_IF_ASKED("cuEventElapsedTime");
  if (!start->recorded || !end->recorded) return KR_CUDA_ERROR_INVALID_VALUE;
  *ms = (float)++calls;
  return 0;
}

EXPORT kr_cu_result cuStreamSynchronize(kr_cu_stream stream) {
  (void)stream;
  FAIL_IF_ASKED("cuStreamSynchronize");
  return 0;
}
