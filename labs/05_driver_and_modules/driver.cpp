// Part D: a context, a module, a function and a launch, with the driver API.
// The calls, in cuda.h: cuInit, cuDeviceGet, cuCtxCreate (CUDA 13 takes a
// CUctxCreateParams*, which may be null), cuModuleLoadDataEx,
// cuModuleGetFunction, cuModuleGetFunctionCount, cuModuleEnumerateFunctions,
// cuFuncIsLoaded, cuLaunchKernel, cuCtxSynchronize.
#include <array>
#include <string>
#include <vector>

#include "driver.h"

namespace launchlab::driver {

void check(CUresult status, std::string_view call) {
  // TODO(student): throw DriverError(status, "<call>: <name> (<description>)")
  // for any status but CUDA_SUCCESS, with cuGetErrorName and
  // cuGetErrorString; "<call>: CUresult <number>" when cuGetErrorName fails.
  (void)status;
  (void)call;
}

Context::Context(int ordinal) {
  // TODO(student): cuInit(0), cuDeviceGet into device_, cuCtxCreate into
  // context_, each through check().
  (void)ordinal;
  throw DriverError(CUDA_ERROR_NOT_SUPPORTED, "Context: not written yet");
}

Context::~Context() {
  // TODO(student): destroy the context when there is one.
}

Module::Module(std::span<const std::byte> image) {
  // TODO(student): two 16 KiB logs, jit_options, cuModuleLoadDataEx, then
  // read_jit_report into jit_ whether the load worked or not. On failure,
  // throw check()'s DriverError with "\nJIT error log:\n" and the error log
  // appended when there is one.
  (void)image;
  throw DriverError(CUDA_ERROR_NOT_SUPPORTED, "Module: not written yet");
}

Module::~Module() {
  // TODO(student): unload the module when there is one.
}

CUfunction get_function(const Module& module, const std::string& name) {
  // TODO(student): cuModuleGetFunction, through check().
  (void)module;
  (void)name;
  return nullptr;
}

LoadState load_state(const Module& module) {
  // TODO(student): count the module's functions, enumerate them, and count
  // those cuFuncIsLoaded says are CU_FUNCTION_LOADING_STATE_LOADED.
  (void)module;
  return {};
}

void launch_and_wait(CUfunction f, unsigned grid, unsigned block, std::span<void*> args) {
  // TODO(student): cuLaunchKernel with kernelParams, then cuCtxSynchronize.
  (void)f;
  (void)grid;
  (void)block;
  (void)args;
}

}  // namespace launchlab::driver
