// Part E: what the first launch of a program costs, step by step.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "driver.h"

namespace launchlab::driver {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Device memory freed on every way out.
struct DeviceInts {
  CUdeviceptr address = 0;
  explicit DeviceInts(std::size_t count) { check(cuMemAlloc(&address, count * sizeof(int)), "cuMemAlloc"); }
  ~DeviceInts() { cuMemFree(address); }
  DeviceInts(const DeviceInts&) = delete;
  DeviceInts& operator=(const DeviceInts&) = delete;
};

}  // namespace

ColdStart cold_start(std::span<const std::byte> image, const std::string& kernel, int value) {
  ColdStart r;
  auto t = Clock::now();
  check(cuInit(0), "cuInit");
  r.init_ms = ms_since(t);

  t = Clock::now();
  Context context(0);
  r.context_ms = ms_since(t);

  CUmoduleLoadingMode mode = CU_MODULE_EAGER_LOADING;
  check(cuModuleGetLoadingMode(&mode), "cuModuleGetLoadingMode");
  r.loading_mode = mode;

  t = Clock::now();
  std::optional<Module> module;
  module.emplace(image);
  r.load_ms = ms_since(t);
  r.jit_wall_ms = module->jit().wall_ms;
  r.after_load = load_state(*module);

  t = Clock::now();
  CUfunction f = get_function(*module, kernel);
  r.get_function_ms = ms_since(t);
  r.after_get_function = load_state(*module);

  {
    DeviceInts out(1);
    check(cuMemsetD32(out.address, 0, 1), "cuMemsetD32");
    void* args[] = {&out.address, &value};
    t = Clock::now();
    launch_and_wait(f, 1, 1, args);
    r.first_launch_ms = ms_since(t);
    t = Clock::now();
    launch_and_wait(f, 1, 1, args);
    r.second_launch_ms = ms_since(t);
    check(cuMemcpyDtoH(&r.result, out.address, sizeof(int)), "cuMemcpyDtoH");
  }
  module.reset();
  return r;
}

std::vector<double> time_context_creation(int trials) {
  if (trials < 1) throw std::invalid_argument("time_context_creation: trials = " + std::to_string(trials));
  check(cuInit(0), "cuInit");
  CUdevice device = 0;
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  std::vector<double> times;
  for (int i = 0; i < trials; ++i) {
    CUcontext context = nullptr;
    const auto t = Clock::now();
    check(cuCtxCreate(&context, nullptr, 0, device), "cuCtxCreate");
    times.push_back(ms_since(t));
    check(cuCtxDestroy(context), "cuCtxDestroy");
  }
  return times;
}

}  // namespace launchlab::driver
