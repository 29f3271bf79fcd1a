// Part B: summarizing repeated trials.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver.h"

namespace launchlab::driver {

namespace {

double quantile_of_sorted(const std::vector<double>& x, double q) {
  const double h = static_cast<double>(x.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= x.size()) return x.back();
  return x[lo] + (h - static_cast<double>(lo)) * (x[lo + 1] - x[lo]);
}

std::vector<double> sorted_copy(std::span<const double> samples) {
  if (samples.empty()) throw std::invalid_argument("no samples");
  std::vector<double> x(samples.begin(), samples.end());
  std::sort(x.begin(), x.end());
  return x;
}

}  // namespace

double quantile(std::span<const double> samples, double q) {
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("quantile: q = " + std::to_string(q) + " is not in [0, 1]");
  return quantile_of_sorted(sorted_copy(samples), q);
}

Summary summarize(std::span<const double> samples) {
  const std::vector<double> x = sorted_copy(samples);
  Summary s;
  s.count = x.size();
  s.min = x.front();
  s.p25 = quantile_of_sorted(x, 0.25);
  s.median = quantile_of_sorted(x, 0.5);
  s.p75 = quantile_of_sorted(x, 0.75);
  s.max = x.back();
  return s;
}

}  // namespace launchlab::driver
