// The divergence experiment: which path each thread takes (on the CPU), and
// what each split costs on a GPU.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "divergence.h"
#include "launchlab/testing.h"

namespace launchlab::on_the_sm {
namespace {

constexpr unsigned kWarp = 32;  // warpSize on every NVIDIA GPU so far

// For each warp of a 1024-thread block, how many of its 32 lanes take the first path.
std::vector<unsigned> FirstPathLanesPerWarp(Split split) {
  std::vector<unsigned> counts(1024 / kWarp, 0);
  for (unsigned t = 0; t < 1024; ++t) counts[t / kWarp] += takes_first_path(split, t) ? 1 : 0;
  return counts;
}

TEST(Divergence, WithoutASplitEveryThreadTakesTheFirstPath) {
  for (unsigned t = 0; t < 1024; ++t) {
    ASSERT_TRUE(takes_first_path(Split::None, t)) << "Split::None, thread " << t << " took the second path";
  }
}

TEST(Divergence, BetweenWarpsEachWarpTakesOnePathAndWarpsAlternate) {
  const std::vector<unsigned> counts = FirstPathLanesPerWarp(Split::BetweenWarps);
  for (unsigned w = 0; w < counts.size(); ++w) {
    const unsigned expected = w % 2 == 0 ? kWarp : 0;
    ASSERT_EQ(counts[w], expected) << "Split::BetweenWarps: lanes of warp " << w << " (threads " << w * kWarp << "-"
                                   << w * kWarp + kWarp - 1 << ") on the first path; warp 0 takes the first "
                                   << "path, warp 1 the second, and so on, every lane of a warp alike";
  }
}

TEST(Divergence, InsideWarpsEveryWarpHoldsBothPathsHalfAndHalf) {
  for (unsigned t = 0; t < 1024; ++t) {
    ASSERT_EQ(takes_first_path(Split::InsideWarps, t), t % 2 == 0)
        << "Split::InsideWarps, thread " << t << ": even threads take the first path, odd threads the second";
  }
  const std::vector<unsigned> counts = FirstPathLanesPerWarp(Split::InsideWarps);
  for (unsigned w = 0; w < counts.size(); ++w) EXPECT_EQ(counts[w], kWarp / 2) << "warp " << w;
}

// ---- On a GPU ------------------------------------------------------------------

// The median milliseconds of branchy<<<...>>> under a split, measured once per
// test program: a full GPU twice over (two waves of the blocks the occupancy
// calculator lets onto each SM), long enough to be far above timer noise.
double MedianMilliseconds(Split split) {
  static std::map<Split, double> measured;
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
  std::vector<double> ms = time_branchy(split, blocks, 256, 16384, 7);
  if (ms.size() != 7) throw std::runtime_error("time_branchy returned " + std::to_string(ms.size()) + " times for 7 trials");
  std::sort(ms.begin(), ms.end());
  return measured[split] = ms[ms.size() / 2];
}

TEST(Divergence, SplitInsideWarpsTakesNearlyTwiceAsLong) {
  LAUNCHLAB_REQUIRE_GPU();
  double none = 0, inside = 0;
  ASSERT_NO_THROW(none = MedianMilliseconds(Split::None));
  ASSERT_NO_THROW(inside = MedianMilliseconds(Split::InsideWarps));
  const double ratio = inside / none;
  // Every warp runs both paths one after the other, half its lanes idle each
  // time: twice the instructions. The GPU is kept full, so the scheduler has
  // no idle slots to hide that in.
  EXPECT_TRUE(ratio >= 1.6 && ratio <= 2.5)
      << "Split::InsideWarps took " << inside << " ms, Split::None " << none << " ms: a ratio of " << ratio
      << ", expected between 1.6 and 2.5";
}

TEST(Divergence, SplitBetweenWarpsCostsAlmostNothing) {
  LAUNCHLAB_REQUIRE_GPU();
  double none = 0, between = 0;
  ASSERT_NO_THROW(none = MedianMilliseconds(Split::None));
  ASSERT_NO_THROW(between = MedianMilliseconds(Split::BetweenWarps));
  const double ratio = between / none;
  // Each warp runs one path with all its lanes: the same work as no split.
  EXPECT_LE(ratio, 1.2) << "Split::BetweenWarps took " << between << " ms, Split::None " << none
                        << " ms: a ratio of " << ratio << ", expected at most 1.2";
}

}  // namespace
}  // namespace launchlab::on_the_sm
