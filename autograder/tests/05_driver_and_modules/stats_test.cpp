// Part B, on the CPU: quantiles and summaries, against values worked out by
// hand from the definition in driver.h (numpy.quantile's default, "linear",
// gives the same).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"

namespace launchlab::driver_tests {
namespace {

using launchlab::driver::quantile;
using launchlab::driver::summarize;
using launchlab::testing::Expected;

// As close as the arithmetic allows: these values are exact in binary.
constexpr double kTolerance = 1e-12;

std::string show(const std::vector<double>& samples) {
  std::string out;
  for (double s : samples) {
    std::string number = std::to_string(s);
    number.erase(number.find_last_not_of('0') + 1);
    if (number.back() == '.') number.pop_back();
    out += (out.empty() ? "" : ", ") + number;
  }
  return "{" + out + "}";
}

TEST(Stats, QuantileInterpolatesBetweenRanks) {
  struct Case {
    std::vector<double> samples;
    double q;
    Expected<double> quantile;
    const char* why;
  };
  const std::vector<Case> cases = {
      {{1, 2, 3, 4}, 0.5, LAUNCHLAB_EXPECTED(2.5), "the median of 1, 2, 3, 4"},
      {{1, 2, 3, 4}, 0.25, LAUNCHLAB_EXPECTED(1.75), "h = 3 * 0.25 = 0.75: 1 + 0.75 * (2 - 1)"},
      {{1, 2, 3, 4}, 0.0, LAUNCHLAB_EXPECTED(1.0), "q = 0 is the smallest sample"},
      {{1, 2, 3, 4}, 1.0, LAUNCHLAB_EXPECTED(4.0), "q = 1 is the largest sample"},
      {{4, 1, 3, 2}, 0.25, LAUNCHLAB_EXPECTED(1.75), "the samples need not be sorted"},
      {{7}, 0.3, LAUNCHLAB_EXPECTED(7.0), "one sample is every quantile"},
      {{10, 20}, 0.1, LAUNCHLAB_EXPECTED(11.0), "h = 0.1: 10 + 0.1 * 10"},
      {{5, 3, 9, 1, 7}, 0.5, LAUNCHLAB_EXPECTED(5.0), "the median of five samples is the middle one"},
  };
  for (const Case& c : cases) {
    RECORD_NEAR(quantile(c.samples, c.q), c.quantile, kTolerance)
        << "quantile(" << show(c.samples) << ", " << c.q << "): " << c.why;
  }
}

TEST(Stats, SummaryOfTrials) {
  // Sorted: 1 2 3 4 5 100. h = 1.25, 2.5, 3.75 for the quartiles and median.
  const std::vector<double> samples = {5, 1, 4, 100, 2, 3};
  RECORD_SCOPE("summarize(" + show(samples) + ")");
  const auto s = summarize(samples);
  RECORD_EQ(s.count, 6u) << "count";
  RECORD_NEAR(s.min, 1.0, kTolerance) << "min";
  RECORD_NEAR(s.p25, 2.25, kTolerance) << "p25";
  RECORD_NEAR(s.median, 3.5, kTolerance) << "median";
  RECORD_NEAR(s.p75, 4.75, kTolerance) << "p75";
  RECORD_NEAR(s.max, 100.0, kTolerance) << "max";
  RECORD_NEAR(s.spread(), 2.5, kTolerance) << "spread(): one slow trial (100) moves neither the median nor the spread much";
}

TEST(Stats, RejectsEmptyAndInvalidInput) {
  const std::vector<double> none;
  const std::vector<double> some = {1, 2, 3};
  RECORD_THROWS(quantile(none, 0.5), std::invalid_argument) << "quantile({}, 0.5): no samples";
  RECORD_THROWS(summarize(none), std::invalid_argument) << "summarize({}): no samples";
  RECORD_THROWS(quantile(some, -0.1), std::invalid_argument) << "quantile({1, 2, 3}, -0.1)";
  RECORD_THROWS(quantile(some, 1.5), std::invalid_argument) << "quantile({1, 2, 3}, 1.5)";
  RECORD_THROWS(quantile(some, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument)
      << "quantile({1, 2, 3}, NaN)";
  // Drawn whole-number samples, an odd count of them, and q of 0, 0.5 or 1
  // (each quantile is then one sample, exact however it is computed); every
  // other row has no samples or a q outside [0, 1]: only code that rejects
  // exactly those and finds the quantile of the rest matches the solution.
  std::mt19937_64 random = launchlab::testing::seeded_random(20260501);
  for (int row = 0; row < 8; ++row) {
    const bool invalid = row % 2 == 0;
    std::vector<double> samples(invalid && random() % 2 == 0 ? 0 : 1 + 2 * (random() % 5));
    for (double& sample : samples) sample = static_cast<double>(random() % 2001) - 1000;
    const double q = !invalid || samples.empty() ? static_cast<double>(random() % 3) / 2
                                                 : (random() % 2 == 0 ? -1.0 : 1.0) * (1.25 + static_cast<double>(random() % 4));
    RECORD_OUTCOME(quantile(samples, q), std::invalid_argument)
        << "quantile(" << ::testing::PrintToString(samples) << ", " << q << ")";
  }
}

}  // namespace
}  // namespace launchlab::driver_tests
