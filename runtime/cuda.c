/* runtime/cuda.c - the CUDA driver, loaded at run time: dlopen("libcuda.so.1") (the soname
 * the driver package installs; $KORCH_CUDA_LIBRARY overrides it, for the fake driver of the
 * tests), dlsym of the versioned entry points of runtime/cuda_api.h, cuInit, the device and
 * its primary context (CUDA Driver API, "Primary Context Management": the context the CUDA
 * runtime would share, so korch-run and a CUDA runtime library in one process agree). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Names for the codes the runtime meets when the driver cannot name them itself (the stub
 * library answers CUDA_ERROR_STUB_LIBRARY to cuGetErrorName too). */
static const char *fallback_name(kr_cu_result r) {
  switch (r) {
  case KR_CUDA_SUCCESS: return "CUDA_SUCCESS";
  case KR_CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
  case KR_CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
  case KR_CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
  case KR_CUDA_ERROR_STUB_LIBRARY: return "CUDA_ERROR_STUB_LIBRARY";
  case KR_CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
  case KR_CUDA_ERROR_INVALID_PTX: return "CUDA_ERROR_INVALID_PTX";
  case KR_CUDA_ERROR_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
  case KR_CUDA_ERROR_ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
  case KR_CUDA_ERROR_LAUNCH_FAILED: return "CUDA_ERROR_LAUNCH_FAILED";
  default: return "CUDA_ERROR_UNKNOWN_CODE";
  }
}

static void describe(const kr_rt_device *d, kr_cu_result r, const char **name, const char **text) {
  *name = NULL;
  *text = NULL;
  if (d && d->GetErrorName && d->GetErrorName(r, name) != KR_CUDA_SUCCESS) *name = NULL;
  if (d && d->GetErrorString && d->GetErrorString(r, text) != KR_CUDA_SUCCESS) *text = NULL;
  if (!*name) *name = fallback_name(r);
  if (!*text)
    *text = r == KR_CUDA_ERROR_STUB_LIBRARY ? "this is CUDA's link-time stub library, not a driver"
            : r == KR_CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected"
                                           : "(no description from the driver)";
}

kr_rt_status kr_rt_cuda_fail(const kr_rt_device *d, kr_rt_error *err, const char *call, const char *what,
                             kr_cu_result r) {
  const char *name, *text;
  describe(d, r, &name, &text);
  return kr_rt_fail(err, KR_RT_ERROR, "%s(%s): %s (%u): %s", call, what, name, r, text);
}

void kr_rt_device_close(kr_rt_device *d) {
  if (!d) return;
  if (d->ctx && d->DevicePrimaryCtxRelease) d->DevicePrimaryCtxRelease(d->dev);
  if (d->lib) dlclose(d->lib);
  free(d);
}

const char *kr_rt_device_name(const kr_rt_device *d) { return d->desc; }

kr_rt_status kr_rt_device_open(int ordinal, kr_rt_device **out, kr_rt_error *err) {
  *out = NULL;
  const char *file = getenv("KORCH_CUDA_LIBRARY");
  if (!file || !*file) file = "libcuda.so.1";
  kr_rt_device *d = calloc(1, sizeof *d);
  if (!d) return kr_rt_fail(err, KR_RT_ERROR, "out of memory");
  d->ordinal = ordinal;
  d->lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!d->lib) {
    kr_rt_fail(err, KR_RT_NO_DRIVER, "no CUDA driver: %s", dlerror());
    kr_rt_device_close(d);
    return KR_RT_NO_DRIVER;
  }
  /* ISO C has no conversion from void * to a function pointer; POSIX guarantees the
   * representation (dlsym's rationale), and memcpy keeps -Wpedantic quiet. */
#define KR_CUDA_RESOLVE(field, symbol, params)                                                         \
  {                                                                                                    \
    void *sym = dlsym(d->lib, symbol);                                                                 \
    if (!sym) {                                                                                        \
      kr_rt_fail(err, KR_RT_NO_DRIVER, "no CUDA driver: %s has no %s (driver older than CUDA 11?)", file, \
                 symbol);                                                                              \
      kr_rt_device_close(d);                                                                           \
      return KR_RT_NO_DRIVER;                                                                          \
    }                                                                                                  \
    memcpy(&d->field, &sym, sizeof d->field);                                                          \
  }
  KR_CUDA_ENTRY_POINTS(KR_CUDA_RESOLVE)
#undef KR_CUDA_RESOLVE

  kr_cu_result r = d->Init(0);
  if (r != KR_CUDA_SUCCESS) {
    const char *name, *text;
    describe(d, r, &name, &text);
    kr_rt_fail(err, KR_RT_NO_DRIVER, "no CUDA driver: cuInit: %s (%u): %s", name, r, text);
    kr_rt_device_close(d);
    return KR_RT_NO_DRIVER;
  }
  kr_rt_status st = KR_RT_OK;
  char what[32];
  snprintf(what, sizeof what, "device %d", ordinal);
  if ((r = d->DriverGetVersion(&d->driver_version)) != KR_CUDA_SUCCESS)
    st = kr_rt_cuda_fail(d, err, "cuDriverGetVersion", what, r);
  else if ((r = d->DeviceGet(&d->dev, ordinal)) != KR_CUDA_SUCCESS)
    st = kr_rt_cuda_fail(d, err, "cuDeviceGet", what, r);
  else if ((r = d->DeviceGetName(d->name, (int)sizeof d->name, d->dev)) != KR_CUDA_SUCCESS)
    st = kr_rt_cuda_fail(d, err, "cuDeviceGetName", what, r);
  else if ((r = d->DeviceGetAttribute(&d->cc_major, KR_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev)) ||
           (r = d->DeviceGetAttribute(&d->cc_minor, KR_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev)) ||
           (r = d->DeviceGetAttribute(&d->sms, KR_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->dev)) ||
           (r = d->DeviceGetAttribute(&d->smem_optin, KR_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                      d->dev)))
    st = kr_rt_cuda_fail(d, err, "cuDeviceGetAttribute", what, r);
  else if ((r = d->DevicePrimaryCtxRetain(&d->ctx, d->dev)) != KR_CUDA_SUCCESS) {
    d->ctx = NULL;
    st = kr_rt_cuda_fail(d, err, "cuDevicePrimaryCtxRetain", what, r);
  } else if ((r = d->CtxSetCurrent(d->ctx)) != KR_CUDA_SUCCESS)
    st = kr_rt_cuda_fail(d, err, "cuCtxSetCurrent", what, r);
  if (st != KR_RT_OK) {
    kr_rt_device_close(d);
    return st;
  }
  d->name[sizeof d->name - 1] = '\0';
  snprintf(d->desc, sizeof d->desc, "%s (sm_%d%d, %d SMs, driver %d.%d)", d->name, d->cc_major, d->cc_minor,
           d->sms, d->driver_version / 1000, d->driver_version % 1000 / 10);
  *out = d;
  return KR_RT_OK;
}
