// The harness: statistics, the stop rule and CSV. The contract is in
// harness.h; the tests (Statistics.*, Harness.*, Csv.*) drive it with fake
// clocks, so all of this file can be finished and checked without a GPU.

#include "harness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace launchlab::overhead {

double percentile(std::span<const double> samples, double p) {
  // TODO(student): throw std::invalid_argument for no samples or a p outside
  // [0, 100]; sort a copy, then interpolate between the two closest ranks
  // around h = (n - 1) * p / 100, as harness.h describes.
  (void)samples;
  (void)p;
  return 0;
}

double median(std::span<const double> samples) {
  // TODO(student): the 50th percentile.
  (void)samples;
  return 0;
}

double median_absolute_deviation(std::span<const double> samples) {
  // TODO(student): the median of |x - median| over the samples.
  (void)samples;
  return 0;
}

std::vector<std::size_t> find_outliers(std::span<const double> samples) {
  // TODO(student): the indices of the samples outside Tukey's fences,
  // q1 - 1.5 * IQR and q3 + 1.5 * IQR, in ascending order.
  (void)samples;
  return {};
}

double relative_error(std::span<const double> samples) {
  // TODO(student): kMedianStandardError * kMadToSigma * MAD / (sqrt(n) * median),
  // with the special cases of a median of 0.
  (void)samples;
  return 0;
}

Summary summarize(std::span<const double> samples) {
  // TODO(student): fill every field of Summary from the samples (keep them,
  // in order); leave warmup_trials and converged for run_benchmark.
  (void)samples;
  return {};
}

Summary run_benchmark(Timer& timer, const std::function<void()>& trial, const BenchConfig& config) {
  // TODO(student): check config; run the warm-up trials without the timer;
  // then time trials one by one (start, trial, stop_us / items_per_trial)
  // until the stop rule says enough (checked at min_trials samples and every
  // check_every samples after), and summarize what you collected.
  (void)timer;
  (void)trial;
  (void)config;
  return {};
}

std::string to_csv(std::span<const Measurement> rows) {
  // TODO(student): kCsvHeader, then one line per row in the header's order;
  // refuse names and clocks that would break the format.
  (void)rows;
  return {};
}

}  // namespace launchlab::overhead
