// Which flags each way of waiting asks for, and the argument checks that
// come before any CUDA call, on the CPU. The flag values are the CUDA
// runtime's own (driver_types.h).

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "completion.h"
#include "flag_names.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"

namespace launchlab::completion {
namespace {

using completion_tests::DeviceFlags;
using completion_tests::EventFlags;
using completion_tests::documented_event_flags;
using completion_tests::documented_schedule;

TEST(WaitFlags, EachMethodRunsUnderItsSchedulingFlag) {
  for (WaitMethod method : kWaitMethods) {
    RECORD_EQ(DeviceFlags(schedule_flags(method)), DeviceFlags(documented_schedule(method)))
        << "schedule_flags(WaitMethod for \"" << method_name(method) << "\")";
  }
}

TEST(WaitFlags, OnlyTheBlockingEventIsCreatedWithBlockingSync) {
  for (WaitMethod method : kWaitMethods) {
    RECORD_EQ(EventFlags(event_flags(method)), EventFlags(documented_event_flags(method)))
        << "event_flags(WaitMethod for \"" << method_name(method) << "\")";
  }
}

TEST(Arguments, MeasureWaitsRejectsBadTrialsAndKernelTimes) {
  // Checked before the first CUDA call: on a machine without a GPU too.
  RECORD_THROWS(measure_waits(WaitMethod::StreamSyncSpin, 0, 50'000), std::invalid_argument)
      << "measure_waits(stream-sync-spin, trials = 0, kernel_ns = 50000)";
  RECORD_THROWS(measure_waits(WaitMethod::StreamSyncSpin, -3, 50'000), std::invalid_argument)
      << "measure_waits(stream-sync-spin, trials = -3, kernel_ns = 50000)";
  RECORD_THROWS(measure_waits(WaitMethod::StreamSyncSpin, 10, 9'999), std::invalid_argument)
      << "measure_waits(stream-sync-spin, trials = 10, kernel_ns = 9999): below 10000";
  RECORD_THROWS(measure_waits(WaitMethod::StreamSyncSpin, 10, 1'000'000'001), std::invalid_argument)
      << "measure_waits(stream-sync-spin, trials = 10, kernel_ns = 1000000001): above one second";
}

TEST(Arguments, TimeCopiesRejectsAnEmptyCopyAndNoTrials) {
  RECORD_THROWS(time_copies(HostMemory::Pinned, Direction::HostToDevice, 0, 5), std::invalid_argument)
      << "time_copies(Pinned, HostToDevice, bytes = 0, trials = 5)";
  RECORD_THROWS(time_copies(HostMemory::Pageable, Direction::DeviceToHost, 4096, 0), std::invalid_argument)
      << "time_copies(Pageable, DeviceToHost, bytes = 4096, trials = 0)";
}

}  // namespace
}  // namespace launchlab::completion
