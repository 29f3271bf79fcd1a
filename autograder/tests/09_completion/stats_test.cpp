// The arithmetic of the lab, on the CPU: the median, bandwidth, and what a
// PCIe link can carry (the rates and line codes of the PCI Express Base
// Specifications 1.0 to 6.0).

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <vector>

#include "completion.h"
#include "launchlab/testing.h"

namespace launchlab::completion {
namespace {

::testing::AssertionResult ThrowsInvalidArgument(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument&) {
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "expected std::invalid_argument, got another exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "expected std::invalid_argument, got no exception";
}

TEST(Median, OfAnOddCountIsTheMiddleSample) {
  EXPECT_DOUBLE_EQ(median({7.0}), 7.0) << "median({7})";
  EXPECT_DOUBLE_EQ(median({3.0, 1.0, 2.0}), 2.0) << "median({3, 1, 2}): the samples come unsorted";
  EXPECT_DOUBLE_EQ(median({9.5, 100.0, -4.0, 9.0, 1e9}), 9.5) << "median({9.5, 100, -4, 9, 1e9})";
}

TEST(Median, OfAnEvenCountIsTheMeanOfTheMiddlePair) {
  EXPECT_DOUBLE_EQ(median({4.0, 1.0}), 2.5) << "median({4, 1})";
  EXPECT_DOUBLE_EQ(median({10.0, 2.0, 8.0, 4.0}), 6.0) << "median({10, 2, 8, 4}): (4 + 8) / 2";
  EXPECT_DOUBLE_EQ(median({5.0, 5.0, 1.0, 100.0, 5.0, 6.0}), 5.0) << "median({5, 5, 1, 100, 5, 6})";
}

TEST(Median, RejectsNoSamples) { EXPECT_TRUE(ThrowsInvalidArgument([] { median({}); })) << "median({})"; }

TEST(Bandwidth, IsBytesOverSecondsInGigabytes) {
  EXPECT_NEAR(gigabytes_per_second(1'000'000'000, 1.0), 1.0, 1e-12) << "10^9 bytes in 1 s";
  EXPECT_NEAR(gigabytes_per_second(1u << 30, 0.5), 2.147483648, 1e-12) << "2^30 bytes in 0.5 s: GB are 10^9 bytes";
  EXPECT_NEAR(gigabytes_per_second(4096, 8e-6), 0.512, 1e-12) << "4 KiB in 8 us";
  EXPECT_TRUE(ThrowsInvalidArgument([] { gigabytes_per_second(4096, 0.0); })) << "0 seconds";
  EXPECT_TRUE(ThrowsInvalidArgument([] { gigabytes_per_second(4096, -1.0); })) << "negative seconds";
}

// Relative comparison: the values are around 10^9 to 10^11.
::testing::AssertionResult Near(double expected, double got) {
  if (std::fabs(expected - got) <= 1e-9 * std::fabs(expected)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << expected << " bytes/s, got " << got;
}

TEST(LinkBandwidth, Pcie1And2Lose2BitsIn10ToEncoding) {
  // 8b/10b: 2.5 GT/s x 8/10 = 2 Gb/s = 250 MB/s per lane.
  EXPECT_TRUE(Near(250e6, pcie_bytes_per_second({2.5, 1}))) << "PCIe 1.0 x1";
  EXPECT_TRUE(Near(4e9, pcie_bytes_per_second({2.5, 16}))) << "PCIe 1.0 x16";
  EXPECT_TRUE(Near(8e9, pcie_bytes_per_second({5.0, 16}))) << "PCIe 2.0 x16";
}

TEST(LinkBandwidth, Pcie3To5Lose2BitsIn130ToEncoding) {
  // 128b/130b: 8 GT/s x 128/130 / 8 bits = 984.6 MB/s per lane.
  EXPECT_TRUE(Near(8e9 * 128 / 130 / 8, pcie_bytes_per_second({8.0, 1}))) << "PCIe 3.0 x1";
  EXPECT_TRUE(Near(16e9 * 16 * 128 / 130 / 8, pcie_bytes_per_second({16.0, 16}))) << "PCIe 4.0 x16";
  EXPECT_TRUE(Near(32e9 * 16 * 128 / 130 / 8, pcie_bytes_per_second({32.0, 16})))
      << "PCIe 5.0 x16, the H200's link: 63.0 GB/s each way";
  EXPECT_TRUE(Near(32e9 * 8 * 128 / 130 / 8, pcie_bytes_per_second({32.0, 8}))) << "PCIe 5.0 x8";
}

TEST(LinkBandwidth, Pcie6CountsEveryBit) {
  EXPECT_TRUE(Near(128e9, pcie_bytes_per_second({64.0, 16}))) << "PCIe 6.0 x16: 64 GT/s x 16 / 8, no line code";
  EXPECT_TRUE(Near(8e9, pcie_bytes_per_second({64.0, 1}))) << "PCIe 6.0 x1";
}

TEST(LinkBandwidth, RejectsARateThatIsNoPcieGeneration) {
  for (double gts : {0.0, 1.0, 10.0, 20.0, 128.0}) {
    EXPECT_TRUE(ThrowsInvalidArgument([gts] { pcie_bytes_per_second({gts, 16}); })) << gts << " GT/s";
  }
}

}  // namespace
}  // namespace launchlab::completion
