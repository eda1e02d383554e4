/* runtime/cuda_api_check.c - compile-time check that runtime/cuda_api.h matches the real cuda.h.
 *
 * Built (compiled, never linked into anything) only where /usr/local/cuda/include/cuda.h exists:
 * each versioned entry point of cuda.h is assigned to the pointer type cuda_api.h declares for
 * it, so a wrong prototype is an incompatible-pointer error under -Werror; the constants are
 * compared with static assertions. */
#include <cuda.h>

#include "cuda_api.h"

#define KR_CHECK_FN(field, symbol, params) extern kr_cu_##field##_fn const kr_check_##field;
KR_CUDA_ENTRY_POINTS(KR_CHECK_FN)
#undef KR_CHECK_FN

/* The symbols the table names (cuEventElapsedTime: the unversioned one, present in every driver;
 * cuda.h's _v2 of CUDA 12.8 has the same prototype). */
kr_cu_GetErrorName_fn const kr_check_GetErrorName = cuGetErrorName;
kr_cu_GetErrorString_fn const kr_check_GetErrorString = cuGetErrorString;
kr_cu_Init_fn const kr_check_Init = cuInit;
kr_cu_DriverGetVersion_fn const kr_check_DriverGetVersion = cuDriverGetVersion;
kr_cu_DeviceGet_fn const kr_check_DeviceGet = cuDeviceGet;
kr_cu_DeviceGetName_fn const kr_check_DeviceGetName = cuDeviceGetName;
kr_cu_DeviceGetAttribute_fn const kr_check_DeviceGetAttribute = cuDeviceGetAttribute;
kr_cu_DevicePrimaryCtxRetain_fn const kr_check_DevicePrimaryCtxRetain = cuDevicePrimaryCtxRetain;
kr_cu_DevicePrimaryCtxRelease_fn const kr_check_DevicePrimaryCtxRelease = cuDevicePrimaryCtxRelease_v2;
kr_cu_CtxSetCurrent_fn const kr_check_CtxSetCurrent = cuCtxSetCurrent;
kr_cu_CtxSynchronize_fn const kr_check_CtxSynchronize = cuCtxSynchronize;
kr_cu_MemAlloc_fn const kr_check_MemAlloc = cuMemAlloc_v2;
kr_cu_MemFree_fn const kr_check_MemFree = cuMemFree_v2;
kr_cu_MemcpyHtoD_fn const kr_check_MemcpyHtoD = cuMemcpyHtoD_v2;
kr_cu_MemcpyDtoH_fn const kr_check_MemcpyDtoH = cuMemcpyDtoH_v2;
kr_cu_MemsetD8_fn const kr_check_MemsetD8 = cuMemsetD8_v2;
kr_cu_ModuleLoadDataEx_fn const kr_check_ModuleLoadDataEx = cuModuleLoadDataEx;
kr_cu_ModuleUnload_fn const kr_check_ModuleUnload = cuModuleUnload;
kr_cu_ModuleGetFunction_fn const kr_check_ModuleGetFunction = cuModuleGetFunction;
kr_cu_FuncSetAttribute_fn const kr_check_FuncSetAttribute = cuFuncSetAttribute;
kr_cu_LaunchKernel_fn const kr_check_LaunchKernel = cuLaunchKernel;
kr_cu_EventCreate_fn const kr_check_EventCreate = cuEventCreate;
kr_cu_EventDestroy_fn const kr_check_EventDestroy = cuEventDestroy_v2;
kr_cu_EventRecord_fn const kr_check_EventRecord = cuEventRecord;
kr_cu_EventSynchronize_fn const kr_check_EventSynchronize = cuEventSynchronize;
kr_cu_EventElapsedTime_fn const kr_check_EventElapsedTime = cuEventElapsedTime_v2;
kr_cu_StreamSynchronize_fn const kr_check_StreamSynchronize = cuStreamSynchronize;

_Static_assert(sizeof(CUdeviceptr) == sizeof(kr_cu_deviceptr), "CUdeviceptr");
_Static_assert((int)CUDA_ERROR_LAUNCH_FAILED == (int)KR_CUDA_ERROR_LAUNCH_FAILED, "CUresult");
_Static_assert((int)CUDA_ERROR_ILLEGAL_ADDRESS == (int)KR_CUDA_ERROR_ILLEGAL_ADDRESS, "CUresult");
_Static_assert((int)CUDA_ERROR_NOT_FOUND == (int)KR_CUDA_ERROR_NOT_FOUND, "CUresult");
_Static_assert((int)CUDA_ERROR_NO_DEVICE == (int)KR_CUDA_ERROR_NO_DEVICE, "CUresult");
_Static_assert((int)CUDA_ERROR_STUB_LIBRARY == (int)KR_CUDA_ERROR_STUB_LIBRARY, "CUresult");
_Static_assert((int)CUDA_ERROR_INVALID_PTX == (int)KR_CUDA_ERROR_INVALID_PTX, "CUresult");
_Static_assert((int)CU_JIT_ERROR_LOG_BUFFER == (int)KR_CU_JIT_ERROR_LOG_BUFFER, "CUjit_option");
_Static_assert((int)CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES == (int)KR_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, "CUjit_option");
_Static_assert((int)CU_JIT_INFO_LOG_BUFFER == (int)KR_CU_JIT_INFO_LOG_BUFFER, "CUjit_option");
_Static_assert((int)CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES == (int)KR_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, "CUjit_option");
_Static_assert((int)CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES == (int)KR_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
               "CUfunction_attribute");
_Static_assert((int)CU_FUNC_ATTRIBUTE_NUM_REGS == (int)KR_CU_FUNC_ATTRIBUTE_NUM_REGS, "CUfunction_attribute");
_Static_assert((int)CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES == (int)KR_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "CUfunction_attribute");
_Static_assert((int)CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT == (int)KR_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "CUdevice_attribute");
_Static_assert((int)CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR == (int)KR_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
               "CUdevice_attribute");
_Static_assert((int)CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR == (int)KR_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
               "CUdevice_attribute");
_Static_assert((int)CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN ==
                   (int)KR_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
               "CUdevice_attribute");
