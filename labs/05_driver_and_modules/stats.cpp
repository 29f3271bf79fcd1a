// Part B: summarizing repeated trials.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver.h"

namespace launchlab::driver {

double quantile(std::span<const double> samples, double q) {
  // TODO(student): sort a copy and interpolate between the ranks around
  // h = (n - 1) q, as driver.h says; std::invalid_argument for no samples
  // or a q outside [0, 1] (NaN among them).
  (void)q;
  return samples.empty() ? 0.0 : samples.front();
}

Summary summarize(std::span<const double> samples) {
  // TODO(student): count, min, the quartiles, the median and max
  // (std::invalid_argument for no samples).
  Summary s;
  s.count = samples.size();
  return s;
}

}  // namespace launchlab::driver
