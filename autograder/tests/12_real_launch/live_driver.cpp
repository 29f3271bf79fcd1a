#include "live_driver.h"

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "launchlab/testing.h"

namespace launchlab::real_launch_tests {
namespace {

// 12080: cuLaunchKernelEx and cuFuncGetParamInfo are both there by CUDA 12.8.
template <class F>
void fetch(const char* symbol, F& out) {
  launchlab::testing::fetch_driver_function(symbol, out, 12080);
}

}  // namespace

const LiveDriver& live_driver() {
  static const LiveDriver driver = [] {
    if (cudaFree(nullptr) != cudaSuccess) throw std::runtime_error("the CUDA runtime could not make its context");
    LiveDriver d;
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
  return driver;
}

void check(CUresult status, const std::string& what) {
  if (status == CUDA_SUCCESS) return;
  const char* name = nullptr;
  live_driver().get_error_name(status, &name);
  throw std::runtime_error(what + " failed: " + (name ? name : std::to_string(static_cast<int>(status))));
}

}  // namespace launchlab::real_launch_tests
