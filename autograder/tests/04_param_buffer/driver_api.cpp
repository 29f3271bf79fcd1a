#include "driver_api.h"

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "launchlab/testing.h"

namespace launchlab::param_buffer_tests {

namespace {

// 12040: cuFuncGetParamInfo first came with CUDA 12.4.
template <class F>
void fetch(const char* symbol, F& out) {
  launchlab::testing::fetch_driver_function(symbol, out, 12040);
}

}  // namespace

const DriverApi& driver() {
  static const DriverApi api = [] {
    DriverApi a;
    fetch("cuFuncGetParamInfo", a.func_get_param_info);
    fetch("cuLaunchKernel", a.launch_kernel);
    fetch("cuGetErrorName", a.get_error_name);
    return a;
  }();
  return api;
}

std::string error_name(CUresult status) {
  const char* name = nullptr;
  if (driver().get_error_name(status, &name) == CUDA_SUCCESS && name != nullptr) return name;
  return "CUresult " + std::to_string(static_cast<int>(status));
}

CUfunction function_of(const void* host_function) {
  cudaFunction_t function = nullptr;
  const cudaError_t status = cudaGetFuncBySymbol(&function, host_function);
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("cudaGetFuncBySymbol: ") + cudaGetErrorString(status));
  }
  return function;  // cudaFunction_t and CUfunction are the same type, struct CUfunc_st*
}

}  // namespace launchlab::param_buffer_tests
