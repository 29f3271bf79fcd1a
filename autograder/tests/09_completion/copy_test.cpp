// Host-device copies, measured on a GPU: relations that must hold on any
// machine, and bounds set by the link the GPU sits on.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "completion.h"
#include "launchlab/testing.h"

namespace launchlab::completion {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr int kTrials = 7;

const char* Name(HostMemory memory) { return memory == HostMemory::Pinned ? "pinned" : "pageable"; }
const char* Name(Direction direction) {
  return direction == Direction::HostToDevice ? "host to device" : "device to host";
}

// The median bandwidth of kTrials copies in GB/s, computed here from the
// learner's times; measured once per test program. Throws with a message
// when the times are not one positive number per trial.
double MedianGBps(HostMemory memory, Direction direction, std::size_t bytes) {
  static std::map<std::tuple<HostMemory, Direction, std::size_t>, double> cache;
  const auto key = std::make_tuple(memory, direction, bytes);
  if (auto found = cache.find(key); found != cache.end()) return found->second;
  std::vector<double> seconds = time_copies(memory, direction, bytes, kTrials);
  const std::string what = std::string(Name(memory)) + ", " + Name(direction) + ", " +
                           std::to_string(bytes / kMiB) + " MiB: ";
  if (seconds.size() != kTrials) {
    throw std::runtime_error(what + "time_copies returned " + std::to_string(seconds.size()) + " times for " +
                             std::to_string(kTrials) + " trials");
  }
  for (double s : seconds) {
    if (!(s > 0)) throw std::runtime_error(what + "time_copies returned a time of " + std::to_string(s) + " s");
  }
  std::sort(seconds.begin(), seconds.end());
  const double gbps = static_cast<double>(bytes) / seconds[kTrials / 2] / 1e9;
  return cache[key] = gbps;
}

#define GBPS_OR_FAIL(var, memory, direction, bytes)           \
  double var = 0;                                             \
  try {                                                       \
    var = MedianGBps(memory, direction, bytes);               \
  } catch (const std::exception& e) {                         \
    FAIL() << e.what();                                       \
  }

TEST(CopyBandwidth, PinnedIsAtLeastAsFastAsPageableFrom8MiB) {
  LAUNCHLAB_REQUIRE_GPU();
  // A pageable copy goes through a pinned staging buffer: the same DMA plus
  // a CPU copy, pipelined at best. From 8 MiB up the fixed costs no longer
  // hide that; 5% is left for noise.
  for (Direction direction : {Direction::HostToDevice, Direction::DeviceToHost}) {
    for (std::size_t bytes : {8 * kMiB, 64 * kMiB}) {
      GBPS_OR_FAIL(pinned, HostMemory::Pinned, direction, bytes);
      GBPS_OR_FAIL(pageable, HostMemory::Pageable, direction, bytes);
      EXPECT_GE(pinned, 0.95 * pageable) << Name(direction) << ", " << bytes / kMiB << " MiB: pinned " << pinned
                                         << " GB/s, pageable " << pageable << " GB/s (medians of " << kTrials
                                         << " copies)";
    }
  }
}

// The most one direction of the GPU's link to the host can carry, worked out
// here from what the system reports (never from the learner's arithmetic).
struct LinkBound {
  double bytes_per_second = 0;
  std::string source;
};

LinkBound HostLinkBound() {
  int device = 0, native_atomics = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&native_atomics, cudaDevAttrHostNativeAtomicSupported, device);
  if (native_atomics) {
    // Native atomics with the host mean a coherent CPU link such as
    // NVLink-C2C (Grace Hopper: 900 GB/s in total, 450 GB/s each way).
    return {450e9, "a coherent NVLink connection to the CPU (NVLink-C2C: 450 GB/s each way)"};
  }
  if (const auto link = read_pcie_link(device)) {
    const double gts = link->gigatransfers_per_second;
    const double code = gts <= 5.0 ? 8.0 / 10.0 : gts <= 32.0 ? 128.0 / 130.0 : 1.0;
    return {gts * 1e9 * link->lanes * code / 8.0,
            "PCIe at " + std::to_string(gts) + " GT/s x" + std::to_string(link->lanes) +
                " (the GPU's max_link_speed and max_link_width in sysfs)"};
  }
  // The system does not say: no PCIe link carries more than PCIe 6.0 x16.
  return {128e9, "no link reported by the system; PCIe 6.0 x16, the fastest PCIe link there is"};
}

TEST(CopyBandwidth, PinnedCopiesStayBelowTheLinkLimit) {
  LAUNCHLAB_REQUIRE_GPU();
  const LinkBound bound = HostLinkBound();
  for (Direction direction : {Direction::HostToDevice, Direction::DeviceToHost}) {
    GBPS_OR_FAIL(pinned, HostMemory::Pinned, direction, 64 * kMiB);
    EXPECT_LE(pinned * 1e9, bound.bytes_per_second)
        << "pinned, " << Name(direction) << ", 64 MiB: " << pinned << " GB/s, more than the "
        << bound.bytes_per_second / 1e9 << " GB/s the link can carry (" << bound.source
        << "): is the copy really waited for, and are bytes divided by seconds?";
  }
}

TEST(CopyBandwidth, LargePinnedCopiesMoveAtLeastOneGigabytePerSecond) {
  LAUNCHLAB_REQUIRE_GPU();
  // A sanity floor, far below any PCIe link of the last decade (PCIe 2.0 x4
  // carries 2 GB/s): a number below it is a unit mistake, or timing that
  // includes the allocation.
  for (Direction direction : {Direction::HostToDevice, Direction::DeviceToHost}) {
    GBPS_OR_FAIL(pinned, HostMemory::Pinned, direction, 64 * kMiB);
    EXPECT_GE(pinned, 1.0) << "pinned, " << Name(direction) << ", 64 MiB: " << pinned << " GB/s";
  }
}

}  // namespace
}  // namespace launchlab::completion
