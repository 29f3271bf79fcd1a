// The CUDA driver functions that the GPU tests call, fetched from the CUDA
// runtime with cudaGetDriverEntryPointByVersion: a test program does not
// link libcuda, so it starts, and runs its CPU tests, on a machine without
// a driver; the runtime loads libcuda when a GPU test first asks for it.
#pragma once

#include <cuda.h>

#include <string>

namespace launchlab::testing {

/// The driver functions the tests call, fetched together for the API of
/// CUDA 12.8 (cuLaunchKernelEx and cuFuncGetParamInfo are both there by then).
struct DriverApi {
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuLaunchKernelEx) launch_kernel_ex = nullptr;
  decltype(&::cuFuncGetAttribute) func_get_attribute = nullptr;
  decltype(&::cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&::cuFuncGetParamInfo) func_get_param_info = nullptr;
  decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;
  decltype(&::cuCtxGetDevice) ctx_get_device = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuMemAlloc) mem_alloc = nullptr;
  decltype(&::cuMemcpyDtoH) memcpy_dtoh = nullptr;
  decltype(&::cuStreamCreate) stream_create = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;
};

/// The functions, fetched on first use (the runtime's primary context made
/// current first); throws std::runtime_error when one cannot be had.
const DriverApi& driver_api();

/// "CUDA_ERROR_INVALID_VALUE", or "CUresult 700" when the driver has no name for it.
std::string driver_error_name(CUresult status);

/// Throws std::runtime_error naming the call and the error unless it succeeded.
void check_driver(CUresult status, const std::string& what);

/// The CUfunction of a kernel compiled into this program, named by its host
/// stub (throws std::runtime_error when the runtime cannot find it).
CUfunction function_of(const void* host_function);

}  // namespace launchlab::testing
