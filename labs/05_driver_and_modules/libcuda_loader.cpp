// The driver functions this lab calls, each opening libcuda.so.1 on first
// use and calling the real function there.
//
// A program linked with -lcuda (CMake's CUDA::cuda_driver) names
// libcuda.so.1 as a needed library and does not start at all where the
// NVIDIA driver is not installed: the dynamic loader stops it before main.
// The lab's test programs must start everywhere, to run their CPU tests, so
// they do what the CUDA runtime does: open the library at run time. The
// definitions below have exactly the signatures `<cuda.h>` declares (the
// compiler checks), so code written against `<cuda.h>` calls them unchanged.
#include <cuda.h>
#include <dlfcn.h>

#include <mutex>
#include <optional>
#include <string>

#include "driver.h"

namespace launchlab::driver {
namespace {

struct Library {
  void* handle = nullptr;
  std::string error;
};

const Library& library() {
  static const Library lib = [] {
    Library l;
    l.handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (l.handle == nullptr) {
      const char* why = dlerror();
      l.error = std::string("libcuda.so.1 could not be opened: ") + (why ? why : "unknown reason");
    }
    return l;
  }();
  return lib;
}

}  // namespace

namespace detail {

void* driver_symbol(const char* name) {
  const Library& lib = library();
  return lib.handle == nullptr ? nullptr : dlsym(lib.handle, name);
}

}  // namespace detail

std::optional<std::string> load_driver_library() {
  const Library& lib = library();
  if (lib.handle == nullptr) return lib.error;
  return std::nullopt;
}

std::optional<std::string> driver_unavailable_reason() {
  if (auto why = load_driver_library()) return why;
  const CUresult status = cuInit(0);
  if (status == CUDA_SUCCESS) return std::nullopt;
  const char* name = nullptr;
  const char* text = nullptr;
  std::string reason = "cuInit failed: ";
  if (cuGetErrorName(status, &name) == CUDA_SUCCESS && name != nullptr) {
    reason += name;
    if (cuGetErrorString(status, &text) == CUDA_SUCCESS && text != nullptr) reason += std::string(" (") + text + ")";
  } else {
    reason += "CUresult " + std::to_string(static_cast<int>(status));
  }
  return reason;
}

}  // namespace launchlab::driver

#define LAUNCHLAB_STRING2(x) #x
#define LAUNCHLAB_STRING(x) LAUNCHLAB_STRING2(x)

// Defines `name params`, calling the same function of libcuda.so.1 with
// args. `name` is expanded first, so cuCtxCreate becomes cuCtxCreate_v4 as
// <cuda.h> maps it, and that is the symbol looked up.
#define LAUNCHLAB_FORWARD(name, params, args)                                                     \
  CUresult CUDAAPI name params {                                                                  \
    using Function = CUresult(CUDAAPI*) params;                                                   \
    static const Function real =                                                                  \
        reinterpret_cast<Function>(launchlab::driver::detail::driver_symbol(LAUNCHLAB_STRING(name))); \
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;                                       \
    return real args;                                                                             \
  }

extern "C" {

// Initialization, version, devices
LAUNCHLAB_FORWARD(cuInit, (unsigned int flags), (flags))
LAUNCHLAB_FORWARD(cuDriverGetVersion, (int* version), (version))
LAUNCHLAB_FORWARD(cuDeviceGet, (CUdevice * device, int ordinal), (device, ordinal))
LAUNCHLAB_FORWARD(cuDeviceGetCount, (int* count), (count))
LAUNCHLAB_FORWARD(cuDeviceGetName, (char* name, int length, CUdevice device), (name, length, device))
LAUNCHLAB_FORWARD(cuDeviceGetAttribute, (int* value, CUdevice_attribute attribute, CUdevice device),
                  (value, attribute, device))
LAUNCHLAB_FORWARD(cuDeviceTotalMem, (size_t * bytes, CUdevice device), (bytes, device))

// Contexts
LAUNCHLAB_FORWARD(cuDevicePrimaryCtxRetain, (CUcontext * context, CUdevice device), (context, device))
LAUNCHLAB_FORWARD(cuDevicePrimaryCtxRelease, (CUdevice device), (device))
LAUNCHLAB_FORWARD(cuCtxCreate, (CUcontext * context, CUctxCreateParams* params, unsigned int flags, CUdevice device),
                  (context, params, flags, device))
LAUNCHLAB_FORWARD(cuCtxDestroy, (CUcontext context), (context))
LAUNCHLAB_FORWARD(cuCtxGetCurrent, (CUcontext * context), (context))
LAUNCHLAB_FORWARD(cuCtxSetCurrent, (CUcontext context), (context))
LAUNCHLAB_FORWARD(cuCtxPushCurrent, (CUcontext context), (context))
LAUNCHLAB_FORWARD(cuCtxPopCurrent, (CUcontext * context), (context))
LAUNCHLAB_FORWARD(cuCtxGetDevice, (CUdevice * device), (device))
LAUNCHLAB_FORWARD(cuCtxSynchronize, (void), ())

// Modules and functions
LAUNCHLAB_FORWARD(cuModuleLoadData, (CUmodule * module, const void* image), (module, image))
LAUNCHLAB_FORWARD(cuModuleLoadDataEx,
                  (CUmodule * module, const void* image, unsigned int count, CUjit_option* options, void** values),
                  (module, image, count, options, values))
LAUNCHLAB_FORWARD(cuModuleUnload, (CUmodule module), (module))
LAUNCHLAB_FORWARD(cuModuleGetFunction, (CUfunction * function, CUmodule module, const char* name),
                  (function, module, name))
LAUNCHLAB_FORWARD(cuModuleGetFunctionCount, (unsigned int* count, CUmodule module), (count, module))
LAUNCHLAB_FORWARD(cuModuleEnumerateFunctions, (CUfunction * functions, unsigned int count, CUmodule module),
                  (functions, count, module))
LAUNCHLAB_FORWARD(cuModuleGetLoadingMode, (CUmoduleLoadingMode * mode), (mode))
LAUNCHLAB_FORWARD(cuModuleGetGlobal, (CUdeviceptr * address, size_t* bytes, CUmodule module, const char* name),
                  (address, bytes, module, name))
LAUNCHLAB_FORWARD(cuFuncIsLoaded, (CUfunctionLoadingState * state, CUfunction function), (state, function))
LAUNCHLAB_FORWARD(cuFuncLoad, (CUfunction function), (function))
LAUNCHLAB_FORWARD(cuFuncGetAttribute, (int* value, CUfunction_attribute attribute, CUfunction function),
                  (value, attribute, function))
LAUNCHLAB_FORWARD(cuFuncGetName, (const char** name, CUfunction function), (name, function))
LAUNCHLAB_FORWARD(cuFuncGetParamInfo, (CUfunction function, size_t index, size_t* offset, size_t* size),
                  (function, index, offset, size))

// Launches
LAUNCHLAB_FORWARD(cuLaunchKernel,
                  (CUfunction f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z, unsigned int block_x,
                   unsigned int block_y, unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                   void** params, void** extra),
                  (f, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes, stream, params, extra))

// Memory
LAUNCHLAB_FORWARD(cuMemAlloc, (CUdeviceptr * address, size_t bytes), (address, bytes))
LAUNCHLAB_FORWARD(cuMemFree, (CUdeviceptr address), (address))
LAUNCHLAB_FORWARD(cuMemcpyHtoD, (CUdeviceptr to, const void* from, size_t bytes), (to, from, bytes))
LAUNCHLAB_FORWARD(cuMemcpyDtoH, (void* to, CUdeviceptr from, size_t bytes), (to, from, bytes))
LAUNCHLAB_FORWARD(cuMemsetD8, (CUdeviceptr to, unsigned char value, size_t count), (to, value, count))
LAUNCHLAB_FORWARD(cuMemsetD32, (CUdeviceptr to, unsigned int value, size_t count), (to, value, count))
LAUNCHLAB_FORWARD(cuMemGetInfo, (size_t * free_bytes, size_t* total_bytes), (free_bytes, total_bytes))
LAUNCHLAB_FORWARD(cuMemAllocHost, (void** address, size_t bytes), (address, bytes))
LAUNCHLAB_FORWARD(cuMemFreeHost, (void* address), (address))

// Streams and events
LAUNCHLAB_FORWARD(cuStreamCreate, (CUstream * stream, unsigned int flags), (stream, flags))
LAUNCHLAB_FORWARD(cuStreamDestroy, (CUstream stream), (stream))
LAUNCHLAB_FORWARD(cuStreamSynchronize, (CUstream stream), (stream))
LAUNCHLAB_FORWARD(cuStreamQuery, (CUstream stream), (stream))
LAUNCHLAB_FORWARD(cuEventCreate, (CUevent * event, unsigned int flags), (event, flags))
LAUNCHLAB_FORWARD(cuEventRecord, (CUevent event, CUstream stream), (event, stream))
LAUNCHLAB_FORWARD(cuEventSynchronize, (CUevent event), (event))
LAUNCHLAB_FORWARD(cuEventQuery, (CUevent event), (event))
LAUNCHLAB_FORWARD(cuEventElapsedTime, (float* ms, CUevent start, CUevent end), (ms, start, end))
LAUNCHLAB_FORWARD(cuEventDestroy, (CUevent event), (event))

// Errors
LAUNCHLAB_FORWARD(cuGetErrorName, (CUresult error, const char** name), (error, name))
LAUNCHLAB_FORWARD(cuGetErrorString, (CUresult error, const char** text), (error, text))

}  // extern "C"
