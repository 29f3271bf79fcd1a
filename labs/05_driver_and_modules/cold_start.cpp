// Part E: what the first launch of a program costs, step by step.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "driver.h"

namespace launchlab::driver {

ColdStart cold_start(std::span<const std::byte> image, const std::string& kernel, int value) {
  // TODO(student): time each step of ColdStart with std::chrono::steady_clock
  // (std::chrono::duration<double, std::milli> gives milliseconds), in the
  // order driver.h lists them: cuInit, a Context, cuModuleGetLoadingMode, a
  // Module (keep it in a std::optional so that you can unload it before the
  // context goes), load_state, get_function, load_state, then a zeroed
  // 4-byte cuMemAlloc, two launch_and_wait with {&out, &value}, and
  // cuMemcpyDtoH of out[0] into result. Free what you allocate on every way
  // out.
  (void)image;
  (void)kernel;
  (void)value;
  return {};
}

std::vector<double> time_context_creation(int trials) {
  // TODO(student): std::invalid_argument for trials < 1 before any driver
  // call; then cuInit, cuDeviceGet, and trials times: time cuCtxCreate, and
  // cuCtxDestroy after the clock stopped.
  (void)trials;
  return {};
}

}  // namespace launchlab::driver
