// The divergence experiment: which path each thread takes (on the CPU), and
// what each split costs on a GPU.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "divergence.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"

namespace launchlab::on_the_sm {
namespace {

constexpr unsigned kWarp = 32;  // warpSize on every NVIDIA GPU so far
constexpr unsigned kBlock = 1024;

// The paths of a 1024-thread block, one line per warp: "warp 1 (threads
// 32-63): 1111...", with 1 for the first path and 2 for the second, lane by
// lane. `first_path(t)` says whether thread t takes the first path.
template <class FirstPath>
std::string PathMap(FirstPath first_path) {
  std::string map;
  for (unsigned w = 0; w < kBlock / kWarp; ++w) {
    map += "warp " + std::to_string(w) + " (threads " + std::to_string(w * kWarp) + "-" +
           std::to_string(w * kWarp + kWarp - 1) + "): ";
    for (unsigned lane = 0; lane < kWarp; ++lane) map += first_path(w * kWarp + lane) ? '1' : '2';
    map += '\n';
  }
  return map;
}

// What takes_first_path answers under a split, as a PathMap.
std::string LearnersPathMap(Split split) {
  return PathMap([split](unsigned t) { return takes_first_path(split, t); });
}

constexpr const char* kLegend =
    "; one line per warp of a 1024-thread block, one digit per lane: 1 for the first path, 2 for the second";

TEST(Divergence, WithoutASplitEveryThreadTakesTheFirstPath) {
  RECORD_EQ(LearnersPathMap(Split::None), PathMap([](unsigned) { return true; }))
      << "takes_first_path(Split::None, t) for every thread t" << kLegend;
}

TEST(Divergence, BetweenWarpsEachWarpTakesOnePathAndWarpsAlternate) {
  RECORD_EQ(LearnersPathMap(Split::BetweenWarps), PathMap([](unsigned t) { return (t / kWarp) % 2 == 0; }))
      << "takes_first_path(Split::BetweenWarps, t) for every thread t" << kLegend
      << "; warp 0 takes the first path, warp 1 the second, and so on, every lane of a warp alike";
}

TEST(Divergence, InsideWarpsEveryWarpHoldsBothPathsHalfAndHalf) {
  RECORD_EQ(LearnersPathMap(Split::InsideWarps), PathMap([](unsigned t) { return t % 2 == 0; }))
      << "takes_first_path(Split::InsideWarps, t) for every thread t" << kLegend
      << "; even threads take the first path, odd threads the second";
}

// ---- On a GPU ------------------------------------------------------------------

// What time_branchy returned for a split, or what it threw: measured once per
// test program (a full GPU twice over: two waves of the blocks the occupancy
// calculator lets onto each SM, long enough to be far above timer noise),
// and recorded by every test that uses it.
struct Timing {
  std::string error;
  std::vector<double> ms;
};

constexpr int kTrials = 7;

const Timing& Measured(Split split) {
  static std::map<Split, Timing> measured;
  if (auto found = measured.find(split); found != measured.end()) return found->second;
  int device = 0, sms = 0, per_sm = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reinterpret_cast<const void*>(&branchy), 256, 0) !=
          cudaSuccess ||
      per_sm < 1) {
    throw std::runtime_error("cannot ask the runtime about the device or branchy's occupancy");
  }
  const unsigned blocks = static_cast<unsigned>(sms * per_sm * 2);
  Timing timing;
  try {
    timing.ms = time_branchy(split, blocks, 256, 16384, kTrials);
  } catch (const std::exception& e) {
    timing.error = std::string("time_branchy threw: ") + e.what();
  }
  return measured[split] = timing;
}

const char* Name(Split split) {
  switch (split) {
    case Split::None: return "Split::None";
    case Split::BetweenWarps: return "Split::BetweenWarps";
    case Split::InsideWarps: return "Split::InsideWarps";
  }
  return "?";
}

// The median of a split's times, with what time_branchy returned recorded;
// nothing when it returned no time for every trial.
std::optional<double> MedianMilliseconds(Split split) {
  const Timing& timing = Measured(split);
  RECORD_SCOPE(std::string("time_branchy(") + Name(split) + ", two waves of 256-thread blocks, 16384 iterations, " +
               std::to_string(kTrials) + " trials)");
  RECORD_EQ(timing.error, "");
  RECORD_EQ(timing.ms.size(), static_cast<std::size_t>(kTrials)) << "the times returned, one per trial";
  if (timing.ms.size() != static_cast<std::size_t>(kTrials)) return std::nullopt;
  std::vector<double> sorted = timing.ms;
  std::sort(sorted.begin(), sorted.end());
  return sorted[sorted.size() / 2];
}

TEST(Divergence, SplitInsideWarpsTakesNearlyTwiceAsLong) {
  LAUNCHLAB_REQUIRE_GPU();
  const std::optional<double> none = MedianMilliseconds(Split::None);
  const std::optional<double> inside = MedianMilliseconds(Split::InsideWarps);
  if (!none || !inside) return;
  // Every warp runs both paths one after the other, half its lanes idle each
  // time: twice the instructions. The GPU is kept full, so the scheduler has
  // no idle slots to hide that in.
  const double inside_over_none = *inside / *none;
  RECORD_NEAR(inside_over_none, 2.05, 0.45)
      << "the median time of Split::InsideWarps over that of Split::None";
}

TEST(Divergence, SplitBetweenWarpsCostsAlmostNothing) {
  LAUNCHLAB_REQUIRE_GPU();
  const std::optional<double> none = MedianMilliseconds(Split::None);
  const std::optional<double> between = MedianMilliseconds(Split::BetweenWarps);
  if (!none || !between) return;
  // Each warp runs one path with all its lanes: the same work as no split.
  const double between_over_none = *between / *none;
  RECORD_LE(between_over_none, 1.2) << "the median time of Split::BetweenWarps over that of Split::None";
}

}  // namespace
}  // namespace launchlab::on_the_sm
