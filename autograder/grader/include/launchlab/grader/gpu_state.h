/// @file
/// The GPU as its driver sees it around a timing test: which GPU, its
/// clocks, why they are held down, how hot it is and who else uses it
/// (NVML, loaded at run time, so that a host without a driver still grades).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace launchlab::grader {

/// One reading of a GPU through NVML.
struct GpuState {
  std::string name;
  std::string uuid;                    ///< "GPU-xxxxxxxx-..."
  std::string driver;                  ///< the driver's version
  unsigned sm_clock_mhz = 0;
  unsigned memory_clock_mhz = 0;
  unsigned temperature_c = 0;
  std::uint64_t throttle_reasons = 0;  ///< NVML's clock event reasons, a bit mask
  unsigned other_processes = 0;        ///< compute processes on the GPU (none of the grader's runs at a reading)

  /// Why a time measured now would not be fair: the reasons that hold the
  /// clocks down (power, heat, a slowdown, a sync boost group), other
  /// processes on the GPU; empty when none.
  std::string unfairness() const;
};

/// The GPU of that UUID ("GPU-..."; empty: the first NVML lists) as NVML
/// reads it now; nothing without libnvidia-ml.so.1 or when NVML cannot read it.
std::optional<GpuState> read_gpu_state(const std::string& uuid = {});

/// {"name", "uuid", "driver", "sm_clock_mhz", "memory_clock_mhz",
/// "temperature_c", "throttle_reasons", "other_processes"}.
nlohmann::json to_json(const GpuState& state);

}  // namespace launchlab::grader
