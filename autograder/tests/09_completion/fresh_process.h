// Running measure_waits() in a fresh process: a CUDA context gets its
// scheduling flags when it is created (whether changing them later changes
// how it waits is not documented), so each wait method runs in a process
// whose first CUDA call is its own cudaSetDeviceFlags().
//
// The test program runs itself again (launchlab::testing::run_fresh_process)
// with LAUNCHLAB_09_CHILD_* variables saying what to measure. In that child,
// before any test runs (run_instead_of_tests), it calls measure_waits(), asks
// the runtime for the context's flags (cudaGetDeviceFlags), writes both to a
// file, and exits. The parent reads the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "completion.h"

namespace launchlab::completion_tests {

/// What a child process measured.
struct ChildResult {
  std::string error;                       ///< empty when the child measured; otherwise why not
  unsigned device_flags = 0;               ///< cudaGetDeviceFlags() after the measurement
  std::vector<completion::WaitSample> samples;
};

/// Measures in a fresh copy of this test program. Never throws: a failure is
/// described in ChildResult::error.
ChildResult measure_in_fresh_process(completion::WaitMethod method, int trials, std::uint64_t kernel_ns);

/// The tests' measurement of a method, made once per test program (200
/// trials of a 50 us kernel) and kept for the tests that follow.
const ChildResult& measured(completion::WaitMethod method);

/// The kernel time and trial count measured() uses.
inline constexpr std::uint64_t kKernelNs = 50'000;
inline constexpr int kTrials = 200;

}  // namespace launchlab::completion_tests
