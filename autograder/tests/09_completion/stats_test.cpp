// The arithmetic of the lab, on the CPU: the median, bandwidth, and what a
// PCIe link can carry (the rates and line codes of the PCI Express Base
// Specifications 1.0 to 6.0).

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "completion.h"
#include "launchlab/drawn.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"

namespace launchlab::completion {
namespace {

TEST(Median, OfAnOddCountIsTheMiddleSample) {
  RECORD_NEAR(median({7.0}), 7.0, 1e-12) << "median({7})";
  RECORD_NEAR(median({3.0, 1.0, 2.0}), 2.0, 1e-12) << "median({3, 1, 2}): the samples come unsorted";
  RECORD_NEAR(median({9.5, 100.0, -4.0, 9.0, 1e9}), 9.5, 1e-12) << "median({9.5, 100, -4, 9, 1e9})";
}

TEST(Median, OfAnEvenCountIsTheMeanOfTheMiddlePair) {
  RECORD_NEAR(median({4.0, 1.0}), 2.5, 1e-12) << "median({4, 1})";
  RECORD_NEAR(median({10.0, 2.0, 8.0, 4.0}), 6.0, 1e-12) << "median({10, 2, 8, 4})";
  RECORD_NEAR(median({5.0, 5.0, 1.0, 100.0, 5.0, 6.0}), 5.0, 1e-12) << "median({5, 5, 1, 100, 5, 6})";
}

TEST(Median, RejectsNoSamples) {
  RECORD_THROWS(median({}), std::invalid_argument) << "median({})";
  // Drawn whole-number samples (a median of them is exact however it is
  // computed), every other set empty: only code that rejects exactly those
  // and finds the median of the rest matches the solution.
  std::mt19937_64 random = testing::seeded_random(20260901);
  for (int row = 0; row < 8; ++row) {
    std::vector<double> samples(row % 2 == 0 ? 0 : 1 + random() % 9);
    for (double& sample : samples) sample = static_cast<double>(random() % 2001) - 1000;
    RECORD_OUTCOME(median(samples), std::invalid_argument) << "median(" << ::testing::PrintToString(samples) << ")";
  }
}

TEST(Bandwidth, IsBytesOverSecondsInGigabytes) {
  RECORD_NEAR(gigabytes_per_second(1'000'000'000, 1.0), 1.0, 1e-12)
      << "gigabytes_per_second(bytes = 1000000000, seconds = 1)";
  RECORD_NEAR(gigabytes_per_second(1u << 30, 0.5), 2.147483648, 1e-12)
      << "gigabytes_per_second(bytes = 2^30, seconds = 0.5): GB are 10^9 bytes";
  RECORD_NEAR(gigabytes_per_second(4096, 8e-6), 0.512, 1e-12) << "gigabytes_per_second(bytes = 4096, seconds = 8e-6)";
  RECORD_THROWS(gigabytes_per_second(4096, 0.0), std::invalid_argument)
      << "gigabytes_per_second(bytes = 4096, seconds = 0)";
  RECORD_THROWS(gigabytes_per_second(4096, -1.0), std::invalid_argument)
      << "gigabytes_per_second(bytes = 4096, seconds = -1)";
  RECORD_THROWS(gigabytes_per_second(4096, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument)
      << "gigabytes_per_second(bytes = 4096, seconds = NaN): NaN is not positive";
}

using launchlab::testing::Expected;

// Records pcie_bytes_per_second(link), with a tolerance relative to the
// expected value (the values are around 10^9 to 10^11 bytes per second).
void RecordLink(PcieLink link, Expected<double> bytes_per_second) {
  std::ostringstream call;
  call << "pcie_bytes_per_second({gigatransfers_per_second = " << link.gigatransfers_per_second
       << ", lanes = " << link.lanes << "})";
  RECORD_SCOPE(call.str());
  std::optional<double> returned;
  RECORD_NO_THROW(returned = pcie_bytes_per_second(link));
  RECORD_NEAR(returned, bytes_per_second, 1e-9 * bytes_per_second.value);
}

TEST(LinkBandwidth, Pcie1And2Lose2BitsIn10ToEncoding) {
  // 8b/10b: 2.5 GT/s x 8/10 = 2 Gb/s = 250 MB/s per lane.
  RecordLink({2.5, 1}, LAUNCHLAB_EXPECTED(250e6));
  RecordLink({2.5, 16}, LAUNCHLAB_EXPECTED(4e9));
  RecordLink({5.0, 16}, LAUNCHLAB_EXPECTED(8e9));
}

TEST(LinkBandwidth, Pcie3To5Lose2BitsIn130ToEncoding) {
  // 128b/130b: 8 GT/s x 128/130 / 8 bits = 984.6 MB/s per lane.
  RecordLink({8.0, 1}, LAUNCHLAB_EXPECTED(8e9 * 128 / 130 / 8));
  RecordLink({16.0, 16}, LAUNCHLAB_EXPECTED(16e9 * 16 * 128 / 130 / 8));
  RecordLink({32.0, 16}, LAUNCHLAB_EXPECTED(32e9 * 16 * 128 / 130 / 8));  // the H200's link: 63.0 GB/s each way
  RecordLink({32.0, 8}, LAUNCHLAB_EXPECTED(32e9 * 8 * 128 / 130 / 8));
}

TEST(LinkBandwidth, Pcie6CountsEveryBit) {
  RecordLink({64.0, 16}, LAUNCHLAB_EXPECTED(128e9));  // 64 GT/s x 16 / 8, no line code
  RecordLink({64.0, 1}, LAUNCHLAB_EXPECTED(8e9));
}

TEST(LinkBandwidth, RejectsARateThatIsNoPcieGeneration) {
  for (double gts : {0.0, 1.0, 10.0, 20.0, 128.0}) {
    RECORD_THROWS(pcie_bytes_per_second({gts, 16}), std::invalid_argument)
        << "pcie_bytes_per_second({gigatransfers_per_second = " << gts << ", lanes = 16})";
  }
  // Drawn links, some at a rate that is no PCIe generation's: only code that
  // rejects exactly those and knows each generation's line code matches the
  // solution. Rounded to whole bytes, every link's figure is exact however
  // it is computed: its fraction is a multiple of 1/65, never near one half.
  constexpr std::array<double, 6> kRates = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  constexpr std::array<double, 8> kNoRates = {0.0, 1.0, 2.0, 4.0, 10.0, 24.0, 100.0, 128.0};
  constexpr std::array<unsigned, 6> kLanes = {1, 2, 4, 8, 16, 32};
  std::mt19937_64 random = testing::seeded_random(20260902);
  for (const bool valid : testing::draw_validity(random, 8)) {
    const PcieLink link{valid ? kRates[random() % kRates.size()] : kNoRates[random() % kNoRates.size()],
                        kLanes[random() % kLanes.size()]};
    RECORD_OUTCOME(std::llround(pcie_bytes_per_second(link)), std::invalid_argument)
        << "pcie_bytes_per_second({gigatransfers_per_second = " << link.gigatransfers_per_second
        << ", lanes = " << link.lanes << "}), rounded to whole bytes per second";
  }
}

}  // namespace
}  // namespace launchlab::completion
