// Part D: a context, a module, a function and a launch, with the driver API.
#include <array>
#include <string>
#include <vector>

#include "driver.h"

namespace launchlab::driver {

void check(CUresult status, std::string_view call) {
  if (status == CUDA_SUCCESS) return;
  std::string message(call);
  const char* name = nullptr;
  if (cuGetErrorName(status, &name) == CUDA_SUCCESS && name != nullptr) {
    message += ": ";
    message += name;
    const char* text = nullptr;
    if (cuGetErrorString(status, &text) == CUDA_SUCCESS && text != nullptr) message += std::string(" (") + text + ")";
  } else {
    message += ": CUresult " + std::to_string(static_cast<int>(status));
  }
  throw DriverError(status, message);
}

Context::Context(int ordinal) {
  check(cuInit(0), "cuInit");
  check(cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  check(cuCtxCreate(&context_, nullptr, 0, device_), "cuCtxCreate");
}

Context::~Context() {
  if (context_ != nullptr) cuCtxDestroy(context_);
}

Module::Module(std::span<const std::byte> image) {
  std::vector<char> info(16 * 1024), error(16 * 1024);
  JitOptions options = jit_options(info, error);
  const CUresult status = cuModuleLoadDataEx(&module_, image.data(), static_cast<unsigned int>(options.keys.size()),
                                             options.keys.data(), options.values.data());
  jit_ = read_jit_report(options);
  if (status != CUDA_SUCCESS) {
    module_ = nullptr;
    try {
      check(status, "cuModuleLoadDataEx");
    } catch (const DriverError& e) {
      std::string message = e.what();
      if (!jit_.error_log.empty()) message += "\nJIT error log:\n" + jit_.error_log;
      throw DriverError(status, message);
    }
  }
}

Module::~Module() {
  if (module_ != nullptr) cuModuleUnload(module_);
}

CUfunction get_function(const Module& module, const std::string& name) {
  CUfunction f = nullptr;
  check(cuModuleGetFunction(&f, module.get(), name.c_str()), "cuModuleGetFunction(" + name + ")");
  return f;
}

LoadState load_state(const Module& module) {
  LoadState state;
  check(cuModuleGetFunctionCount(&state.functions, module.get()), "cuModuleGetFunctionCount");
  std::vector<CUfunction> functions(state.functions);
  if (!functions.empty()) {
    check(cuModuleEnumerateFunctions(functions.data(), state.functions, module.get()), "cuModuleEnumerateFunctions");
  }
  for (CUfunction f : functions) {
    CUfunctionLoadingState loaded = CU_FUNCTION_LOADING_STATE_UNLOADED;
    check(cuFuncIsLoaded(&loaded, f), "cuFuncIsLoaded");
    if (loaded == CU_FUNCTION_LOADING_STATE_LOADED) ++state.loaded;
  }
  return state;
}

void launch_and_wait(CUfunction f, unsigned grid, unsigned block, std::span<void*> args) {
  check(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, nullptr, args.data(), nullptr), "cuLaunchKernel");
  check(cuCtxSynchronize(), "cuCtxSynchronize");
}

}  // namespace launchlab::driver
