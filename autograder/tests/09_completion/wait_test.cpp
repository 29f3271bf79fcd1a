// The ways to wait, measured on a GPU, each in a fresh process (see
// fresh_process.h). The tests check what must hold on any machine: a wait
// returns only after the kernel's work is done, a context runs under the
// flags it was created with, and a thread that blocks in the operating
// system wakes later than one that spins. Medians of 200 trials, so that a
// few slow wake-ups cannot decide.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "completion.h"
#include "flag_names.h"
#include "fresh_process.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"

namespace launchlab::completion {
namespace {

using completion_tests::ChildResult;
using completion_tests::kKernelNs;
using completion_tests::kTrials;
using completion_tests::measured;

using completion_tests::DeviceFlags;
using completion_tests::documented_schedule;

// The measurement, as a failure names it.
std::string Call(WaitMethod method) {
  return "measure_waits(" + std::string(method_name(method)) + ", trials = " + std::to_string(kTrials) +
         ", kernel_ns = " + std::to_string(kKernelNs) + ") in a fresh process";
}

// Records what the fresh process that measured a method returned: that it
// measured, and one sample per trial. Returns the samples when there are
// that many, nothing otherwise.
const std::vector<WaitSample>* RecordSamples(WaitMethod method) {
  const ChildResult& result = measured(method);
  RECORD_SCOPE(Call(method));
  RECORD_EQ(result.error, "") << "what went wrong";
  RECORD_EQ(result.samples.size(), static_cast<std::size_t>(kTrials)) << "the samples returned, one per trial";
  if (result.samples.size() != static_cast<std::size_t>(kTrials)) return nullptr;
  return &result.samples;
}

double MedianWakeNs(const std::vector<WaitSample>& samples) {
  std::vector<double> wake;
  for (const WaitSample& s : samples) wake.push_back(static_cast<double>(s.wake_ns));
  return launchlab::testing::median_of(std::move(wake));
}

TEST(WaitLatency, EachMethodRunsInAContextWithItsFlags) {
  LAUNCHLAB_REQUIRE_GPU();
  for (WaitMethod method : kWaitMethods) {
    const ChildResult& result = measured(method);
    RECORD_SCOPE(Call(method));
    RECORD_EQ(result.error, "") << "what went wrong";
    RECORD_EQ(DeviceFlags(result.device_flags & cudaDeviceScheduleMask), DeviceFlags(documented_schedule(method)))
        << "the context's scheduling, as cudaGetDeviceFlags() says after measure_waits (call cudaSetDeviceFlags "
           "before anything else that talks to the GPU)";
  }
}

TEST(WaitLatency, EveryWaitReturnsAfterTheKernelSignalled) {
  LAUNCHLAB_REQUIRE_GPU();
  for (WaitMethod method : kWaitMethods) {
    const std::vector<WaitSample>* samples = RecordSamples(method);
    if (!samples) continue;
    RECORD_SCOPE(Call(method));
    // The kernel spins kKernelNs after it starts, and it starts after the
    // launch call: no wait that waits can return sooner.
    std::int64_t shortest_round_trip_ns = samples->front().round_trip_ns;
    for (const WaitSample& s : *samples) shortest_round_trip_ns = std::min(shortest_round_trip_ns, s.round_trip_ns);
    RECORD_GE(shortest_round_trip_ns, static_cast<std::int64_t>(kKernelNs))
        << "the shortest round_trip_ns of any trial; the kernel alone spins kernel_ns";
    // The stream is complete only after the kernel's last write: in the
    // median, the waiting thread returns after the watching thread saw the flag.
    RECORD_GE(MedianWakeNs(*samples), 0.0) << "the median wake_ns";
  }
}

TEST(WaitLatency, BlockingSyncWakesLaterThanSpinning) {
  LAUNCHLAB_REQUIRE_GPU();
  const std::vector<WaitSample>* spin = RecordSamples(WaitMethod::StreamSyncSpin);
  const std::vector<WaitSample>* blocking = RecordSamples(WaitMethod::StreamSyncBlocking);
  if (!spin || !blocking) return;
  // A spinning thread sees the completion on its next poll; a blocked thread
  // needs an interrupt, the kernel driver, and the OS scheduler first.
  const double blocking_minus_spin_ns = MedianWakeNs(*blocking) - MedianWakeNs(*spin);
  RECORD_GT(blocking_minus_spin_ns, 0.0) << "the median wake_ns of stream-sync-blocking minus that of stream-sync-spin";
}

TEST(WaitLatency, ABlockingEventWakesLaterThanASpinningOne) {
  LAUNCHLAB_REQUIRE_GPU();
  const std::vector<WaitSample>* spin = RecordSamples(WaitMethod::EventSyncSpin);
  const std::vector<WaitSample>* blocking = RecordSamples(WaitMethod::EventSyncBlocking);
  if (!spin || !blocking) return;
  const double blocking_minus_spin_ns = MedianWakeNs(*blocking) - MedianWakeNs(*spin);
  RECORD_GT(blocking_minus_spin_ns, 0.0)
      << "the median wake_ns of event-sync-blocking minus that of event-sync-spin (cudaEventBlockingSync blocks "
         "even when the device spins)";
}

}  // namespace
}  // namespace launchlab::completion
