// Host-device copies, measured on a GPU: relations that must hold on any
// machine, and bounds set by the link the GPU sits on.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "completion.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"

namespace launchlab::completion {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr int kTrials = 7;

const char* Name(HostMemory memory) { return memory == HostMemory::Pinned ? "pinned" : "pageable"; }
const char* Name(Direction direction) {
  return direction == Direction::HostToDevice ? "host to device" : "device to host";
}

// What time_copies returned for one kind of copy, or what it threw: measured
// once per test program, and recorded by every test that uses it.
struct Copies {
  std::string error;
  std::vector<double> seconds;
};

const Copies& Measured(HostMemory memory, Direction direction, std::size_t bytes) {
  static std::map<std::tuple<HostMemory, Direction, std::size_t>, Copies> cache;
  const auto key = std::make_tuple(memory, direction, bytes);
  if (auto found = cache.find(key); found != cache.end()) return found->second;
  Copies copies;
  try {
    copies.seconds = time_copies(memory, direction, bytes, kTrials);
  } catch (const std::exception& e) {
    copies.error = std::string("time_copies threw: ") + e.what();
  }
  return cache[key] = copies;
}

// The median bandwidth of kTrials copies in GB/s, computed here from the
// learner's times, with the times recorded; nothing when they are not one
// positive number per trial.
std::optional<double> MedianGBps(HostMemory memory, Direction direction, std::size_t bytes) {
  const Copies& copies = Measured(memory, direction, bytes);
  RECORD_SCOPE(std::string("time_copies(") + Name(memory) + ", " + Name(direction) + ", " +
               std::to_string(bytes / kMiB) + " MiB, " + std::to_string(kTrials) + " trials)");
  RECORD_EQ(copies.error, "") << "what went wrong";
  RECORD_EQ(copies.seconds.size(), static_cast<std::size_t>(kTrials)) << "the times returned, one per trial";
  const bool all_positive = std::all_of(copies.seconds.begin(), copies.seconds.end(), [](double s) { return s > 0; });
  RECORD_TRUE(all_positive) << "every time returned is above 0 seconds";
  if (copies.seconds.size() != static_cast<std::size_t>(kTrials) || !all_positive) return std::nullopt;
  std::vector<double> sorted = copies.seconds;
  std::sort(sorted.begin(), sorted.end());
  return static_cast<double>(bytes) / sorted[kTrials / 2] / 1e9;
}

TEST(CopyBandwidth, PinnedIsAtLeastAsFastAsPageableFrom8MiB) {
  LAUNCHLAB_REQUIRE_GPU();
  // A pageable copy goes through a pinned staging buffer: the same DMA plus
  // a CPU copy, pipelined at best. From 8 MiB up the fixed costs no longer
  // hide that; 5% is left for noise.
  for (Direction direction : {Direction::HostToDevice, Direction::DeviceToHost}) {
    for (std::size_t bytes : {8 * kMiB, 64 * kMiB}) {
      const std::optional<double> pinned = MedianGBps(HostMemory::Pinned, direction, bytes);
      const std::optional<double> pageable = MedianGBps(HostMemory::Pageable, direction, bytes);
      if (!pinned || !pageable) continue;
      const double pinned_over_pageable = *pinned / *pageable;
      RECORD_GE(pinned_over_pageable, 0.95)
          << Name(direction) << ", " << bytes / kMiB << " MiB: the median bandwidth of pinned copies over that of "
          << "pageable ones (medians of " << kTrials << " copies)";
    }
  }
}

// The most one direction of the GPU's link to the host can carry, in GB/s,
// worked out here from what the system reports (never from the learner's
// arithmetic).
[[maybe_unused]] double HostLinkGBps() {
  int device = 0, native_atomics = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&native_atomics, cudaDevAttrHostNativeAtomicSupported, device);
  if (native_atomics) {
    // Native atomics with the host mean a coherent CPU link such as
    // NVLink-C2C (Grace Hopper: 900 GB/s in total, 450 GB/s each way).
    return 450;
  }
  if (const auto link = read_pcie_link(device)) {
    const double gts = link->gigatransfers_per_second;
    const double code = gts <= 5.0 ? 8.0 / 10.0 : gts <= 32.0 ? 128.0 / 130.0 : 1.0;
    return gts * link->lanes * code / 8.0;
  }
  // The system does not say: no PCIe link carries more than PCIe 6.0 x16.
  return 128;
}

TEST(CopyBandwidth, PinnedCopiesStayBelowTheLinkLimit) {
  LAUNCHLAB_REQUIRE_GPU();
  for (Direction direction : {Direction::HostToDevice, Direction::DeviceToHost}) {
    const std::optional<double> pinned = MedianGBps(HostMemory::Pinned, direction, 64 * kMiB);
    if (!pinned) continue;
    RECORD_LE(*pinned, HostLinkGBps())
        << "pinned, " << Name(direction) << ", 64 MiB: the median bandwidth in GB/s, against what the GPU's link "
        << "to the host can carry (for PCIe, its max_link_speed and max_link_width in sysfs after line encoding; "
        << "450 GB/s for NVLink-C2C): is the copy really waited for, and are bytes divided by seconds?";
  }
}

TEST(CopyBandwidth, LargePinnedCopiesMoveAtLeastOneGigabytePerSecond) {
  LAUNCHLAB_REQUIRE_GPU();
  // A sanity floor, far below any PCIe link of the last decade (PCIe 2.0 x4
  // carries 2 GB/s): a number below it is a unit mistake, or timing that
  // includes the allocation.
  for (Direction direction : {Direction::HostToDevice, Direction::DeviceToHost}) {
    const std::optional<double> pinned = MedianGBps(HostMemory::Pinned, direction, 64 * kMiB);
    if (!pinned) continue;
    RECORD_GE(*pinned, 1.0) << "pinned, " << Name(direction) << ", 64 MiB: the median bandwidth in GB/s";
  }
  // A copy larger than any machine's memory: the pinned allocation fails, as a std::runtime_error.
  constexpr std::size_t kPebibyte = std::size_t{1} << 50;
  RECORD_THROWS(time_copies(HostMemory::Pinned, Direction::HostToDevice, kPebibyte, 1), std::runtime_error)
      << "time_copies(pinned, host to device, 1 PiB, 1 trial)";
  cudaGetLastError();  // the failed allocation's error, left for no later call to report
}

}  // namespace
}  // namespace launchlab::completion
