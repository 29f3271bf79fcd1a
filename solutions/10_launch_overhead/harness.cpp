// The harness: statistics, the stop rule and CSV. The contract is in
// harness.h; the tests (Statistics.*, Harness.*, Csv.*) drive it with fake
// clocks.

#include "harness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace launchlab::overhead {
namespace {

void require_samples(std::span<const double> samples, const char* who) {
  if (samples.empty()) {
    throw std::invalid_argument(std::string(who) + ": no samples");
  }
}

std::vector<double> sorted_copy(std::span<const double> samples) {
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

// Linear interpolation between closest ranks, on samples already sorted.
double percentile_of_sorted(const std::vector<double>& x, double p) {
  const double h = static_cast<double>(x.size() - 1) * p / 100.0;
  const auto low = static_cast<std::size_t>(std::floor(h));
  if (low + 1 >= x.size()) return x.back();
  return x[low] + (h - static_cast<double>(low)) * (x[low + 1] - x[low]);
}

}  // namespace

double percentile(std::span<const double> samples, double p) {
  require_samples(samples, "percentile");
  if (!(p >= 0.0 && p <= 100.0)) {
    throw std::invalid_argument("percentile: p must be in [0, 100], got " + std::to_string(p));
  }
  return percentile_of_sorted(sorted_copy(samples), p);
}

double median(std::span<const double> samples) {
  require_samples(samples, "median");
  return percentile_of_sorted(sorted_copy(samples), 50.0);
}

double median_absolute_deviation(std::span<const double> samples) {
  require_samples(samples, "median_absolute_deviation");
  const double m = median(samples);
  std::vector<double> deviations;
  deviations.reserve(samples.size());
  for (double x : samples) deviations.push_back(std::fabs(x - m));
  return median(deviations);
}

std::vector<std::size_t> find_outliers(std::span<const double> samples) {
  require_samples(samples, "find_outliers");
  const std::vector<double> sorted = sorted_copy(samples);
  const double q1 = percentile_of_sorted(sorted, 25.0);
  const double q3 = percentile_of_sorted(sorted, 75.0);
  const double fence = 1.5 * (q3 - q1);
  std::vector<std::size_t> outliers;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i] < q1 - fence || samples[i] > q3 + fence) outliers.push_back(i);
  }
  return outliers;
}

double relative_error(std::span<const double> samples) {
  require_samples(samples, "relative_error");
  const double m = median(samples);
  const double mad = median_absolute_deviation(samples);
  if (m == 0.0) return mad == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  const double n = static_cast<double>(samples.size());
  return kMedianStandardError * kMadToSigma * mad / (std::sqrt(n) * std::fabs(m));
}

Summary summarize(std::span<const double> samples) {
  require_samples(samples, "summarize");
  Summary s;
  s.samples.assign(samples.begin(), samples.end());
  const std::vector<double> sorted = sorted_copy(samples);
  s.median = percentile_of_sorted(sorted, 50.0);
  s.p10 = percentile_of_sorted(sorted, 10.0);
  s.p90 = percentile_of_sorted(sorted, 90.0);
  s.p99 = percentile_of_sorted(sorted, 99.0);
  s.min = sorted.front();
  s.max = sorted.back();
  double sum = 0;
  for (double x : samples) sum += x;
  const double n = static_cast<double>(samples.size());
  s.mean = sum / n;
  if (samples.size() > 1) {
    double squares = 0;
    for (double x : samples) squares += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(squares / (n - 1.0));
  }
  s.mad = median_absolute_deviation(samples);
  s.relative_error = relative_error(samples);
  s.outliers = find_outliers(samples);
  return s;
}

Summary run_benchmark(Timer& timer, const std::function<void()>& trial, const BenchConfig& config) {
  if (config.warmup_trials < 0 || config.min_trials < 1 || config.max_trials < config.min_trials ||
      config.items_per_trial < 1 || config.check_every < 1 || !(config.target_relative_error > 0.0)) {
    throw std::invalid_argument(
        "run_benchmark: need warmup_trials >= 0, 1 <= min_trials <= max_trials, items_per_trial >= 1, "
        "check_every >= 1 and target_relative_error > 0");
  }
  if (!trial) throw std::invalid_argument("run_benchmark: no trial to run");

  // Warm-up: the first calls pay for what later calls find ready (module
  // loading, caches, clocks ramping up); none of it is timed.
  for (int i = 0; i < config.warmup_trials; ++i) trial();

  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(config.max_trials));
  while (static_cast<int>(samples.size()) < config.max_trials) {
    timer.start();
    trial();
    samples.push_back(timer.stop_us() / config.items_per_trial);
    const int n = static_cast<int>(samples.size());
    if (n >= config.min_trials && (n - config.min_trials) % config.check_every == 0 &&
        relative_error(samples) <= config.target_relative_error) {
      break;
    }
  }
  Summary s = summarize(samples);
  s.warmup_trials = config.warmup_trials;
  s.converged = s.relative_error <= config.target_relative_error;
  return s;
}

std::string to_csv(std::span<const Measurement> rows) {
  auto check_field = [](const std::string& field, const char* what) {
    if (field.find_first_of(",\"\r\n") != std::string::npos) {
      throw std::invalid_argument(std::string("to_csv: the ") + what + " \"" + field +
                                  "\" holds a comma, a quote or a line break");
    }
  };
  std::string out = kCsvHeader;
  out += '\n';
  for (const Measurement& row : rows) {
    check_field(row.name, "name");
    check_field(row.clock, "clock");
    const Summary& s = row.summary;
    char numbers[512];
    std::snprintf(numbers, sizeof numbers,
                  "%zu,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.6f,%zu", s.samples.size(),
                  s.warmup_trials, s.converged ? 1 : 0, s.median, s.p10, s.p90, s.p99, s.mean,
                  s.stddev, s.min, s.max, s.relative_error, s.outliers.size());
    out += row.name + "," + row.clock + "," + std::to_string(row.param_bytes) + "," + numbers + "\n";
  }
  return out;
}

}  // namespace launchlab::overhead
