// The ways to wait, measured on a GPU, each in a fresh process (see
// fresh_process.h). The tests check what must hold on any machine: a wait
// returns only after the kernel's work is done, a context runs under the
// flags it was created with, and a thread that blocks in the operating
// system wakes later than one that spins. Medians of 200 trials, so that a
// few slow wake-ups cannot decide.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "completion.h"
#include "fresh_process.h"
#include "launchlab/testing.h"

namespace launchlab::completion {
namespace {

using completion_tests::ChildResult;
using completion_tests::kKernelNs;
using completion_tests::kTrials;
using completion_tests::measured;

// The method's samples, or a fatal failure saying what went wrong.
#define SAMPLES_OR_FAIL(result, method)                                                           \
  const ChildResult& result = measured(method);                                                   \
  ASSERT_TRUE(result.error.empty()) << method_name(method) << ": " << result.error;               \
  ASSERT_EQ(result.samples.size(), static_cast<std::size_t>(kTrials))                             \
      << method_name(method) << ": measure_waits(" << kTrials << " trials) returned this many samples"

double MedianWakeNs(const ChildResult& result) {
  std::vector<double> wake;
  for (const WaitSample& s : result.samples) wake.push_back(static_cast<double>(s.wake_ns));
  return launchlab::testing::median_of(std::move(wake));
}

TEST(WaitLatency, EachMethodRunsInAContextWithItsFlags) {
  LAUNCHLAB_REQUIRE_GPU();
  const std::pair<WaitMethod, unsigned> expected[] = {
      {WaitMethod::StreamQuerySpin, cudaDeviceScheduleSpin},
      {WaitMethod::StreamSyncSpin, cudaDeviceScheduleSpin},
      {WaitMethod::StreamSyncYield, cudaDeviceScheduleYield},
      {WaitMethod::StreamSyncBlocking, cudaDeviceScheduleBlockingSync},
      {WaitMethod::EventSyncSpin, cudaDeviceScheduleSpin},
      {WaitMethod::EventSyncBlocking, cudaDeviceScheduleSpin},
  };
  for (const auto& [method, schedule] : expected) {
    const ChildResult& result = measured(method);
    ASSERT_TRUE(result.error.empty()) << method_name(method) << ": " << result.error;
    EXPECT_EQ(result.device_flags & cudaDeviceScheduleMask, schedule)
        << method_name(method) << ": cudaGetDeviceFlags() after measure_waits says the context's scheduling is 0x"
        << std::hex << (result.device_flags & cudaDeviceScheduleMask) << ", expected 0x" << schedule
        << " (call cudaSetDeviceFlags before anything else that talks to the GPU)";
  }
}

TEST(WaitLatency, EveryWaitReturnsAfterTheKernelSignalled) {
  LAUNCHLAB_REQUIRE_GPU();
  for (WaitMethod method : kWaitMethods) {
    SAMPLES_OR_FAIL(result, method);
    for (std::size_t k = 0; k < result.samples.size(); ++k) {
      // The kernel spins kKernelNs after it starts, and it starts after the
      // launch call: no wait that waits can return sooner.
      ASSERT_GE(result.samples[k].round_trip_ns, static_cast<std::int64_t>(kKernelNs))
          << method_name(method) << ", trial " << k << ": the wait returned " << result.samples[k].round_trip_ns
          << " ns after the launch, but the kernel spins " << kKernelNs << " ns";
    }
    // The stream is complete only after the kernel's last write: in the
    // median, the waiting thread returns after the watching thread saw the flag.
    EXPECT_GE(MedianWakeNs(result), 0.0) << method_name(method) << ": median wake_ns";
  }
}

TEST(WaitLatency, BlockingSyncWakesLaterThanSpinning) {
  LAUNCHLAB_REQUIRE_GPU();
  SAMPLES_OR_FAIL(spin, WaitMethod::StreamSyncSpin);
  SAMPLES_OR_FAIL(blocking, WaitMethod::StreamSyncBlocking);
  const double spin_ns = MedianWakeNs(spin);
  const double blocking_ns = MedianWakeNs(blocking);
  // A spinning thread sees the completion on its next poll; a blocked thread
  // needs an interrupt, the kernel driver, and the OS scheduler first.
  EXPECT_GT(blocking_ns, spin_ns) << "median wake: stream-sync-blocking " << blocking_ns << " ns, stream-sync-spin "
                                  << spin_ns << " ns";
}

TEST(WaitLatency, ABlockingEventWakesLaterThanASpinningOne) {
  LAUNCHLAB_REQUIRE_GPU();
  SAMPLES_OR_FAIL(spin, WaitMethod::EventSyncSpin);
  SAMPLES_OR_FAIL(blocking, WaitMethod::EventSyncBlocking);
  const double spin_ns = MedianWakeNs(spin);
  const double blocking_ns = MedianWakeNs(blocking);
  EXPECT_GT(blocking_ns, spin_ns) << "median wake: event-sync-blocking " << blocking_ns << " ns, event-sync-spin "
                                  << spin_ns << " ns (cudaEventBlockingSync blocks even when the device spins)";
}

}  // namespace
}  // namespace launchlab::completion
