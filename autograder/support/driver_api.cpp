#include "launchlab/driver_api.h"

#include <cuda_runtime_api.h>

#include <stdexcept>

namespace launchlab::testing {
namespace {

// CUDA 12.8's API of the driver function `symbol`.
template <class F>
void fetch(const char* symbol, F& out) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t status = cudaGetDriverEntryPointByVersion(symbol, &function, 12080, cudaEnableDefault, &found);
  if (status != cudaSuccess || found != cudaDriverEntryPointSuccess || function == nullptr) {
    throw std::runtime_error(std::string("the CUDA runtime could not provide the driver's ") + symbol + ": " +
                             cudaGetErrorString(status));
  }
  out = reinterpret_cast<F>(function);
}

}  // namespace

const DriverApi& driver_api() {
  static const DriverApi api = [] {
    if (cudaFree(nullptr) != cudaSuccess) throw std::runtime_error("the CUDA runtime could not make its context");
    DriverApi d;
    fetch("cuModuleLoadData", d.module_load_data);
    fetch("cuModuleGetFunction", d.module_get_function);
    fetch("cuLaunchKernel", d.launch_kernel);
    fetch("cuLaunchKernelEx", d.launch_kernel_ex);
    fetch("cuFuncGetAttribute", d.func_get_attribute);
    fetch("cuFuncSetAttribute", d.func_set_attribute);
    fetch("cuFuncGetParamInfo", d.func_get_param_info);
    fetch("cuCtxSynchronize", d.ctx_synchronize);
    fetch("cuCtxGetDevice", d.ctx_get_device);
    fetch("cuDeviceGetAttribute", d.device_get_attribute);
    fetch("cuMemAlloc", d.mem_alloc);
    fetch("cuMemcpyDtoH", d.memcpy_dtoh);
    fetch("cuStreamCreate", d.stream_create);
    fetch("cuGetErrorName", d.get_error_name);
    return d;
  }();
  return api;
}

std::string driver_error_name(CUresult status) {
  const char* name = nullptr;
  if (driver_api().get_error_name(status, &name) == CUDA_SUCCESS && name != nullptr) return name;
  return "CUresult " + std::to_string(static_cast<int>(status));
}

void check_driver(CUresult status, const std::string& what) {
  if (status != CUDA_SUCCESS) throw std::runtime_error(what + " failed: " + driver_error_name(status));
}

CUfunction function_of(const void* host_function) {
  cudaFunction_t function = nullptr;
  const cudaError_t status = cudaGetFuncBySymbol(&function, host_function);
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("cudaGetFuncBySymbol: ") + cudaGetErrorString(status));
  }
  return function;  // cudaFunction_t and CUfunction are the same type, struct CUfunc_st*
}

}  // namespace launchlab::testing
