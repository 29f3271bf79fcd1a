// Which flags each way of waiting asks for, and the argument checks that
// come before any CUDA call, on the CPU. The flag values are the CUDA
// runtime's own (driver_types.h).

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>

#include "completion.h"
#include "launchlab/testing.h"

namespace launchlab::completion {
namespace {

std::string Flags(unsigned flags) {
  std::string out;
  auto add = [&](unsigned bit, const char* name) {
    if (flags & bit) out += std::string(out.empty() ? "" : " | ") + name;
  };
  add(cudaDeviceScheduleSpin, "cudaDeviceScheduleSpin");
  add(cudaDeviceScheduleYield, "cudaDeviceScheduleYield");
  add(cudaDeviceScheduleBlockingSync, "cudaDeviceScheduleBlockingSync");
  add(cudaDeviceMapHost, "cudaDeviceMapHost");
  const unsigned known = cudaDeviceScheduleSpin | cudaDeviceScheduleYield | cudaDeviceScheduleBlockingSync | cudaDeviceMapHost;
  if (flags & ~known) out += (out.empty() ? "" : " | ") + std::to_string(flags & ~known);
  return out.empty() ? "0 (cudaDeviceScheduleAuto)" : out;
}

TEST(WaitFlags, EachMethodRunsUnderItsSchedulingFlag) {
  const std::pair<WaitMethod, unsigned> expected[] = {
      {WaitMethod::StreamQuerySpin, cudaDeviceScheduleSpin},
      {WaitMethod::StreamSyncSpin, cudaDeviceScheduleSpin},
      {WaitMethod::StreamSyncYield, cudaDeviceScheduleYield},
      {WaitMethod::StreamSyncBlocking, cudaDeviceScheduleBlockingSync},
      {WaitMethod::EventSyncSpin, cudaDeviceScheduleSpin},
      {WaitMethod::EventSyncBlocking, cudaDeviceScheduleSpin},
  };
  for (const auto& [method, flags] : expected) {
    const unsigned got = schedule_flags(method);
    EXPECT_EQ(got, flags) << method_name(method) << ": expected " << Flags(flags) << ", got " << Flags(got);
  }
}

TEST(WaitFlags, OnlyTheBlockingEventIsCreatedWithBlockingSync) {
  for (WaitMethod method : kWaitMethods) {
    const unsigned expected =
        cudaEventDisableTiming | (method == WaitMethod::EventSyncBlocking ? cudaEventBlockingSync : 0u);
    const unsigned got = event_flags(method);
    EXPECT_EQ(got, expected) << method_name(method) << ": expected event flags 0x" << std::hex << expected
                             << " (cudaEventDisableTiming = 0x" << cudaEventDisableTiming
                             << ", cudaEventBlockingSync = 0x" << cudaEventBlockingSync << "), got 0x" << got;
  }
}

::testing::AssertionResult ThrowsInvalidArgument(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument&) {
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "expected std::invalid_argument, got another exception: " << e.what()
                                         << " (check the arguments before the first CUDA call)";
  }
  return ::testing::AssertionFailure() << "expected std::invalid_argument, got no exception";
}

TEST(Arguments, MeasureWaitsRejectsBadTrialsAndKernelTimes) {
  EXPECT_TRUE(ThrowsInvalidArgument([] { measure_waits(WaitMethod::StreamSyncSpin, 0, 50'000); })) << "0 trials";
  EXPECT_TRUE(ThrowsInvalidArgument([] { measure_waits(WaitMethod::StreamSyncSpin, -3, 50'000); })) << "-3 trials";
  EXPECT_TRUE(ThrowsInvalidArgument([] { measure_waits(WaitMethod::StreamSyncSpin, 10, 9'999); }))
      << "kernel_ns 9999, below 10000";
  EXPECT_TRUE(ThrowsInvalidArgument([] { measure_waits(WaitMethod::StreamSyncSpin, 10, 1'000'000'001); }))
      << "kernel_ns above one second";
}

TEST(Arguments, TimeCopiesRejectsAnEmptyCopyAndNoTrials) {
  EXPECT_TRUE(ThrowsInvalidArgument([] { time_copies(HostMemory::Pinned, Direction::HostToDevice, 0, 5); }))
      << "0 bytes";
  EXPECT_TRUE(ThrowsInvalidArgument([] { time_copies(HostMemory::Pageable, Direction::DeviceToHost, 4096, 0); }))
      << "0 trials";
}

}  // namespace
}  // namespace launchlab::completion
