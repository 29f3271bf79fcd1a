// Which flags each way of waiting asks for, and the argument checks that
// come before any CUDA call, on the CPU. The flag values are the CUDA
// runtime's own (driver_types.h).

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>

#include "completion.h"
#include "flag_names.h"
#include "launchlab/drawn.h"
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
  // Drawn calls, valid or not by the draw. A valid one measures on a GPU
  // (one trial of a kernel of at most 20 us) and fails in CUDA without one:
  // only whether each call was rejected is the same on every machine.
  std::mt19937_64 random = testing::seeded_random(20260903);
  testing::RejectionTable table;
  for (const bool valid : testing::draw_validity(random, 8)) {
    const WaitMethod method = kWaitMethods[random() % kWaitMethods.size()];
    int trials = 1;
    std::uint64_t kernel_ns = 10'000 + random() % 10'001;
    if (!valid) {
      switch (random() % 3) {
        case 0: trials = -static_cast<int>(random() % 4); break;
        case 1: kernel_ns = random() % 10'000; break;
        default: kernel_ns = 1'000'000'001 + random() % 1'000'000'000;
      }
    }
    table.add(valid,
              "measure_waits(" + std::string(method_name(method)) + ", trials = " + std::to_string(trials) +
                  ", kernel_ns = " + std::to_string(kernel_ns) + ")",
              [&] { measure_waits(method, trials, kernel_ns); });
  }
  RECORD_EQ(table.rejected, table.invalid)
      << "[i]: whether call i threw std::invalid_argument; the calls: " << table.calls;
  // A valid call where CUDA sees no device fails in its first CUDA call.
  RECORD_THROWS_WITHOUT_A_GPU(measure_waits(WaitMethod::StreamSyncSpin, 1, 10'000), std::runtime_error)
      << "measure_waits(stream-sync-spin, trials = 1, kernel_ns = 10000) where CUDA sees no device";
}

TEST(Arguments, TimeCopiesRejectsAnEmptyCopyAndNoTrials) {
  RECORD_THROWS(time_copies(HostMemory::Pinned, Direction::HostToDevice, 0, 5), std::invalid_argument)
      << "time_copies(Pinned, HostToDevice, bytes = 0, trials = 5)";
  RECORD_THROWS(time_copies(HostMemory::Pageable, Direction::DeviceToHost, 4096, 0), std::invalid_argument)
      << "time_copies(Pageable, DeviceToHost, bytes = 4096, trials = 0)";
  // Drawn calls, valid or not by the draw. A valid one copies on a GPU (one
  // or two copies of at most 4 KiB) and fails in CUDA without one: only
  // whether each call was rejected is the same on every machine.
  std::mt19937_64 random = testing::seeded_random(20260904);
  testing::RejectionTable table;
  for (const bool valid : testing::draw_validity(random, 8)) {
    const HostMemory memory = random() % 2 == 0 ? HostMemory::Pageable : HostMemory::Pinned;
    const Direction direction = random() % 2 == 0 ? Direction::HostToDevice : Direction::DeviceToHost;
    std::size_t bytes = 1 + random() % 4096;
    int trials = 1 + static_cast<int>(random() % 2);
    if (!valid) {
      if (random() % 2 == 0) {
        bytes = 0;
      } else {
        trials = -static_cast<int>(random() % 4);
      }
    }
    table.add(valid,
              std::string("time_copies(") + (memory == HostMemory::Pinned ? "Pinned" : "Pageable") + ", " +
                  (direction == Direction::HostToDevice ? "HostToDevice" : "DeviceToHost") +
                  ", bytes = " + std::to_string(bytes) + ", trials = " + std::to_string(trials) + ")",
              [&] { time_copies(memory, direction, bytes, trials); });
  }
  RECORD_EQ(table.rejected, table.invalid)
      << "[i]: whether call i threw std::invalid_argument; the calls: " << table.calls;
}

}  // namespace
}  // namespace launchlab::completion
