// The driver functions the GPU tests of 12_real_launch call, fetched from
// the CUDA runtime with cudaGetDriverEntryPointByVersion: the test program
// does not link libcuda, so it starts, and runs its CPU tests, on a machine
// without a driver.
#pragma once

#include <cuda.h>

#include <string>

namespace launchlab::real_launch_tests {

struct LiveDriver {
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
const LiveDriver& live_driver();

/// Throws std::runtime_error naming the call and the error unless it succeeded.
void check(CUresult status, const std::string& what);

}  // namespace launchlab::real_launch_tests
