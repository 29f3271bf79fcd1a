// NVML through dlopen: the driver's library is there only where a driver is,
// and a grader without one must still start and grade what needs no GPU.
// The few types and values used are NVML's documented ABI (nvml.h).
#include "launchlab/grader/gpu_state.h"

#include <dlfcn.h>

#include <array>
#include <mutex>

namespace launchlab::grader {

namespace {

using NvmlReturn = int;  // nvmlReturn_t
using NvmlDevice = struct NvmlDeviceOpaque*;  // nvmlDevice_t
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr NvmlReturn kNvmlInsufficientSize = 7;
constexpr unsigned kNvmlClockSm = 1, kNvmlClockMemory = 2;  // nvmlClockType_t
constexpr unsigned kNvmlTemperatureGpu = 0;                // nvmlTemperatureSensors_t

/// The clock event reasons that make a time unfair, with their words:
/// those an idle GPU, application clocks or the display set are not.
constexpr std::array<std::pair<std::uint64_t, const char*>, 7> kUnfairReasons = {{
    {0x4, "power capped"},
    {0x8, "hardware slowdown"},
    {0x10, "sync boost"},
    {0x20, "software thermal slowdown"},
    {0x40, "hardware thermal slowdown"},
    {0x80, "hardware power brake"},
    {0x8000000000000000ull, "held down for an unknown reason"},
}};

/// NVML's functions, found once; every pointer is null without the library.
struct Nvml {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*handle_by_index)(unsigned, NvmlDevice*) = nullptr;
  NvmlReturn (*handle_by_uuid)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*name)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*driver)(char*, unsigned) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, unsigned, unsigned*) = nullptr;
  NvmlReturn (*throttle_reasons)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, unsigned, unsigned*) = nullptr;
  NvmlReturn (*processes)(NvmlDevice, unsigned*, void*) = nullptr;
  bool ready = false;
};

template <class Function>
void find_symbol(void* library, const char* symbol, Function& into) {
  into = reinterpret_cast<Function>(dlsym(library, symbol));
}

const Nvml& nvml() {
  static Nvml loaded;
  static std::once_flag once;
  std::call_once(once, [] {
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    find_symbol(library, "nvmlInit_v2", loaded.init);
    find_symbol(library, "nvmlDeviceGetHandleByIndex_v2", loaded.handle_by_index);
    find_symbol(library, "nvmlDeviceGetHandleByUUID", loaded.handle_by_uuid);
    find_symbol(library, "nvmlDeviceGetName", loaded.name);
    find_symbol(library, "nvmlDeviceGetUUID", loaded.uuid);
    find_symbol(library, "nvmlSystemGetDriverVersion", loaded.driver);
    find_symbol(library, "nvmlDeviceGetClockInfo", loaded.clock);
    find_symbol(library, "nvmlDeviceGetCurrentClocksThrottleReasons", loaded.throttle_reasons);
    find_symbol(library, "nvmlDeviceGetTemperature", loaded.temperature);
    find_symbol(library, "nvmlDeviceGetComputeRunningProcesses_v3", loaded.processes);
    if (!loaded.processes) find_symbol(library, "nvmlDeviceGetComputeRunningProcesses", loaded.processes);
    loaded.ready = loaded.init && loaded.handle_by_index && loaded.init() == kNvmlSuccess;
  });
  return loaded;
}

/// A string NVML writes into a buffer; empty when the call is missing or fails.
template <class Call>
std::string nvml_text(Call call) {
  std::array<char, 256> buffer{};
  return call(buffer.data(), static_cast<unsigned>(buffer.size())) == kNvmlSuccess ? std::string(buffer.data()) : std::string();
}

}  // namespace

std::string GpuState::unfairness() const {
  std::string why;
  for (const auto& [bit, words] : kUnfairReasons) {
    if (throttle_reasons & bit) why += (why.empty() ? "" : ", ") + std::string(words);
  }
  if (other_processes > 0) {
    why += (why.empty() ? "" : ", ") + std::string("shared with ") + std::to_string(other_processes) + " other process" +
           (other_processes == 1 ? "" : "es");
  }
  return why;
}

std::optional<GpuState> read_gpu_state(const std::string& uuid) {
  const Nvml& api = nvml();
  if (!api.ready) return std::nullopt;
  NvmlDevice device = nullptr;
  const NvmlReturn found = !uuid.empty() && api.handle_by_uuid ? api.handle_by_uuid(uuid.c_str(), &device)
                                                               : api.handle_by_index(0, &device);
  if (found != kNvmlSuccess) return std::nullopt;
  GpuState state;
  if (api.name) state.name = nvml_text([&](char* text, unsigned size) { return api.name(device, text, size); });
  if (api.uuid) state.uuid = nvml_text([&](char* text, unsigned size) { return api.uuid(device, text, size); });
  if (api.driver) state.driver = nvml_text(api.driver);
  if (api.clock) {
    api.clock(device, kNvmlClockSm, &state.sm_clock_mhz);
    api.clock(device, kNvmlClockMemory, &state.memory_clock_mhz);
  }
  if (api.throttle_reasons) {
    unsigned long long reasons = 0;
    if (api.throttle_reasons(device, &reasons) == kNvmlSuccess) state.throttle_reasons = reasons;
  }
  if (api.temperature) api.temperature(device, kNvmlTemperatureGpu, &state.temperature_c);
  if (api.processes) {
    // Asked with no room, NVML says how many there are.
    unsigned count = 0;
    const NvmlReturn listed = api.processes(device, &count, nullptr);
    if (listed == kNvmlSuccess || listed == kNvmlInsufficientSize) state.other_processes = count;
  }
  return state;
}

nlohmann::json to_json(const GpuState& state) {
  return {{"name", state.name},
          {"uuid", state.uuid},
          {"driver", state.driver},
          {"sm_clock_mhz", state.sm_clock_mhz},
          {"memory_clock_mhz", state.memory_clock_mhz},
          {"temperature_c", state.temperature_c},
          {"throttle_reasons", state.throttle_reasons},
          {"other_processes", state.other_processes}};
}

}  // namespace launchlab::grader
