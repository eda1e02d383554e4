/* runtime/cuda_api.h - the few CUDA Driver API types, constants and prototypes the runtime uses,
 * declared here so that nothing includes <cuda.h> (the runtime is built and tested where no CUDA
 * toolkit is installed, and must not gain a link-time dependency on libcuda).
 *
 * Source of every value: CUDA 13.0's cuda.h (/usr/local/cuda/include/cuda.h); the numbers are part
 * of the driver's stable ABI.  runtime/cuda_api_check.c, compiled only where cuda.h exists,
 * assigns each real entry point to the pointer type below so a mismatch fails the build.
 * Shared with the test driver test/lib/fake_cuda.c. */
#ifndef KORCH_RUNTIME_CUDA_API_H
#define KORCH_RUNTIME_CUDA_API_H

#include <stddef.h>

/* CUresult and the other enums are `unsigned`: GCC and Clang give an enum without negative
 * values the type unsigned int, so these declarations are compatible with cuda.h's. */
typedef unsigned kr_cu_result;               /* CUresult (enum cudaError_enum) */
typedef int kr_cu_device;                    /* CUdevice */
typedef unsigned long long kr_cu_deviceptr;  /* CUdeviceptr (_v2: 64 bits) */
typedef struct CUctx_st *kr_cu_context;      /* CUcontext */
typedef struct CUmod_st *kr_cu_module;       /* CUmodule */
typedef struct CUfunc_st *kr_cu_function;    /* CUfunction */
typedef struct CUevent_st *kr_cu_event;      /* CUevent */
typedef struct CUstream_st *kr_cu_stream;    /* CUstream (NULL: the legacy default stream) */

enum {
  KR_CUDA_SUCCESS = 0,
  KR_CUDA_ERROR_INVALID_VALUE = 1,
  KR_CUDA_ERROR_OUT_OF_MEMORY = 2,
  KR_CUDA_ERROR_NOT_INITIALIZED = 3,
  KR_CUDA_ERROR_STUB_LIBRARY = 34,
  KR_CUDA_ERROR_NO_DEVICE = 100,
  KR_CUDA_ERROR_INVALID_PTX = 218,
  KR_CUDA_ERROR_NOT_FOUND = 500,
  KR_CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  KR_CUDA_ERROR_LAUNCH_FAILED = 719,
};

/* CUjit_option */
enum {
  KR_CU_JIT_INFO_LOG_BUFFER = 3,
  KR_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  KR_CU_JIT_ERROR_LOG_BUFFER = 5,
  KR_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/* CUfunction_attribute */
enum {
  KR_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  KR_CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  KR_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

/* CUdevice_attribute */
enum {
  KR_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  KR_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  KR_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  KR_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

#define KR_CU_EVENT_DEFAULT 0u

/* One X-macro row per entry point: (field, exported symbol, return-less parameter list).
 * The symbol is the versioned one cuda.h's #defines select (cuMemAlloc -> cuMemAlloc_v2 ...);
 * every one of them exists in drivers since CUDA 11 (the stub library of CUDA 13 exports them). */
#define KR_CUDA_ENTRY_POINTS(X)                                                                    \
  X(GetErrorName, "cuGetErrorName", (kr_cu_result e, const char **s))                               \
  X(GetErrorString, "cuGetErrorString", (kr_cu_result e, const char **s))                           \
  X(Init, "cuInit", (unsigned flags))                                                               \
  X(DriverGetVersion, "cuDriverGetVersion", (int *version))                                         \
  X(DeviceGet, "cuDeviceGet", (kr_cu_device * dev, int ordinal))                                    \
  X(DeviceGetName, "cuDeviceGetName", (char *name, int len, kr_cu_device dev))                      \
  X(DeviceGetAttribute, "cuDeviceGetAttribute", (int *value, unsigned attrib, kr_cu_device dev))         \
  X(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (kr_cu_context * ctx, kr_cu_device dev))    \
  X(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (kr_cu_device dev))                    \
  X(CtxSetCurrent, "cuCtxSetCurrent", (kr_cu_context ctx))                                          \
  X(CtxSynchronize, "cuCtxSynchronize", (void))                                                     \
  X(MemAlloc, "cuMemAlloc_v2", (kr_cu_deviceptr * p, size_t bytes))                                 \
  X(MemFree, "cuMemFree_v2", (kr_cu_deviceptr p))                                                   \
  X(MemcpyHtoD, "cuMemcpyHtoD_v2", (kr_cu_deviceptr dst, const void *src, size_t bytes))            \
  X(MemcpyDtoH, "cuMemcpyDtoH_v2", (void *dst, kr_cu_deviceptr src, size_t bytes))                  \
  X(MemsetD8, "cuMemsetD8_v2", (kr_cu_deviceptr dst, unsigned char value, size_t n))                \
  X(ModuleLoadDataEx, "cuModuleLoadDataEx",                                                         \
    (kr_cu_module * mod, const void *image, unsigned n, unsigned *options, void **values))              \
  X(ModuleUnload, "cuModuleUnload", (kr_cu_module mod))                                             \
  X(ModuleGetFunction, "cuModuleGetFunction", (kr_cu_function * f, kr_cu_module mod, const char *name)) \
  X(FuncSetAttribute, "cuFuncSetAttribute", (kr_cu_function f, unsigned attrib, int value))              \
  X(LaunchKernel, "cuLaunchKernel",                                                                 \
    (kr_cu_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, \
     unsigned shared, kr_cu_stream stream, void **params, void **extra))                            \
  X(EventCreate, "cuEventCreate", (kr_cu_event * e, unsigned flags))                                \
  X(EventDestroy, "cuEventDestroy_v2", (kr_cu_event e))                                             \
  X(EventRecord, "cuEventRecord", (kr_cu_event e, kr_cu_stream stream))                             \
  X(EventSynchronize, "cuEventSynchronize", (kr_cu_event e))                                        \
  X(EventElapsedTime, "cuEventElapsedTime", (float *ms, kr_cu_event start, kr_cu_event end))        \
  X(StreamSynchronize, "cuStreamSynchronize", (kr_cu_stream stream))

/* kr_cu_<field>_fn: the pointer type of each entry point. */
#define KR_CUDA_DECLARE_FN(field, symbol, params) typedef kr_cu_result (*kr_cu_##field##_fn) params;
KR_CUDA_ENTRY_POINTS(KR_CUDA_DECLARE_FN)
#undef KR_CUDA_DECLARE_FN

#endif
