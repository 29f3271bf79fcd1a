// Part B, on the CPU: quantiles and summaries, against values worked out by
// hand from the definition in driver.h (numpy.quantile's default, "linear",
// gives the same).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "driver.h"

namespace launchlab::driver_tests {
namespace {

using launchlab::driver::quantile;
using launchlab::driver::summarize;

TEST(Stats, QuantileInterpolatesBetweenRanks) {
  const std::vector<double> four = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(quantile(four, 0.5), 2.5) << "the median of 1, 2, 3, 4";
  EXPECT_DOUBLE_EQ(quantile(four, 0.25), 1.75) << "h = 3 * 0.25 = 0.75: 1 + 0.75 * (2 - 1)";
  EXPECT_DOUBLE_EQ(quantile(four, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(four, 1.0), 4.0);
  const std::vector<double> shuffled = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(quantile(shuffled, 0.25), 1.75) << "the samples need not be sorted";
  const std::vector<double> one = {7};
  EXPECT_DOUBLE_EQ(quantile(one, 0.3), 7.0) << "one sample is every quantile";
  const std::vector<double> two = {10, 20};
  EXPECT_DOUBLE_EQ(quantile(two, 0.1), 11.0) << "h = 0.1: 10 + 0.1 * 10";
  const std::vector<double> odd = {5, 3, 9, 1, 7};
  EXPECT_DOUBLE_EQ(quantile(odd, 0.5), 5.0) << "the median of five samples is the middle one";
}

TEST(Stats, SummaryOfTrials) {
  // Sorted: 1 2 3 4 5 100. h = 1.25, 2.5, 3.75 for the quartiles and median.
  const std::vector<double> samples = {5, 1, 4, 100, 2, 3};
  const auto s = summarize(samples);
  EXPECT_EQ(s.count, 6u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.p25, 2.25);
  EXPECT_DOUBLE_EQ(s.median, 3.5);
  EXPECT_DOUBLE_EQ(s.p75, 4.75);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.spread(), 2.5) << "one slow trial (100) moves neither the median nor the spread much";
}

TEST(Stats, RejectsEmptyAndInvalidInput) {
  const std::vector<double> none;
  const std::vector<double> some = {1, 2, 3};
  EXPECT_THROW(quantile(none, 0.5), std::invalid_argument) << "no samples";
  EXPECT_THROW(summarize(none), std::invalid_argument) << "no samples";
  EXPECT_THROW(quantile(some, -0.1), std::invalid_argument) << "q = -0.1";
  EXPECT_THROW(quantile(some, 1.5), std::invalid_argument) << "q = 1.5";
  EXPECT_THROW(quantile(some, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument) << "q = NaN";
}

}  // namespace
}  // namespace launchlab::driver_tests
