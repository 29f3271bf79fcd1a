// The few driver functions the GPU tests of 04_param_buffer call, fetched
// from the CUDA runtime with cudaGetDriverEntryPointByVersion. The test
// program does not link libcuda itself, so it starts (and runs its CPU tests)
// on a machine without a driver; the runtime loads libcuda when a GPU test
// first asks for it.
#pragma once

#include <cuda.h>

#include <string>

namespace launchlab::param_buffer_tests {

struct DriverApi {
  decltype(&::cuFuncGetParamInfo) func_get_param_info = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;
};

/// The driver functions, fetched on first use; throws std::runtime_error
/// when the runtime cannot provide one.
const DriverApi& driver();

/// "CUDA_ERROR_INVALID_VALUE", or the number when the driver has no name for it.
std::string error_name(CUresult status);

/// The CUfunction of a kernel compiled into this program, named by its host
/// stub (throws std::runtime_error when the runtime cannot find it).
CUfunction function_of(const void* host_function);

}  // namespace launchlab::param_buffer_tests
