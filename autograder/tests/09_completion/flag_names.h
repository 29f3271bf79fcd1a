// The CUDA runtime's flags by name, as the tests of 09_completion record
// them: "cudaDeviceScheduleSpin", "cudaEventDisableTiming | cudaEventBlockingSync".
// The values are the runtime's own (driver_types.h).
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

#include "completion.h"

namespace launchlab::completion_tests {

namespace flag_names_detail {

// The names of the known bits set in flags, then any other bits as a number.
template <std::size_t N>
std::string Named(unsigned flags, const std::pair<unsigned, const char*> (&known)[N], const char* none) {
  std::string out;
  unsigned named = 0;
  for (const auto& [bit, name] : known) {
    named |= bit;
    if (flags & bit) out += std::string(out.empty() ? "" : " | ") + name;
  }
  if (flags & ~named) out += (out.empty() ? "" : " | ") + std::to_string(flags & ~named);
  return out.empty() ? none : out;
}

}  // namespace flag_names_detail

/// The flags of cudaSetDeviceFlags and cudaGetDeviceFlags, by name.
inline std::string DeviceFlags(unsigned flags) {
  static const std::pair<unsigned, const char*> known[] = {
      {cudaDeviceScheduleSpin, "cudaDeviceScheduleSpin"},
      {cudaDeviceScheduleYield, "cudaDeviceScheduleYield"},
      {cudaDeviceScheduleBlockingSync, "cudaDeviceScheduleBlockingSync"},
      {cudaDeviceMapHost, "cudaDeviceMapHost"},
      {cudaDeviceLmemResizeToMax, "cudaDeviceLmemResizeToMax"},
  };
  return flag_names_detail::Named(flags, known, "0 (cudaDeviceScheduleAuto)");
}

/// The flags of cudaEventCreateWithFlags, by name.
inline std::string EventFlags(unsigned flags) {
  static const std::pair<unsigned, const char*> known[] = {
      {cudaEventBlockingSync, "cudaEventBlockingSync"},
      {cudaEventDisableTiming, "cudaEventDisableTiming"},
      {cudaEventInterprocess, "cudaEventInterprocess"},
  };
  return flag_names_detail::Named(flags, known, "0 (cudaEventDefault)");
}

/// The scheduling flag a method runs under, as completion.h describes each
/// WaitMethod: what schedule_flags() must return, and what the context a
/// method created must report. For the expected half of a record only.
[[maybe_unused]] inline unsigned documented_schedule(completion::WaitMethod method) {
  using completion::WaitMethod;
  switch (method) {
    case WaitMethod::StreamQuerySpin:
    case WaitMethod::StreamSyncSpin:
    case WaitMethod::EventSyncSpin:
    case WaitMethod::EventSyncBlocking:
      return cudaDeviceScheduleSpin;
    case WaitMethod::StreamSyncYield:
      return cudaDeviceScheduleYield;
    case WaitMethod::StreamSyncBlocking:
      return cudaDeviceScheduleBlockingSync;
  }
  return 0;
}

/// The flags a method's event is created with, as completion.h describes
/// event_flags(). For the expected half of a record only.
[[maybe_unused]] inline unsigned documented_event_flags(completion::WaitMethod method) {
  return cudaEventDisableTiming | (method == completion::WaitMethod::EventSyncBlocking ? cudaEventBlockingSync : 0u);
}

}  // namespace launchlab::completion_tests
