// The median of repeated measurements, and what a PCIe link can carry. The
// contract is in completion.h.

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "completion.h"

namespace launchlab::completion {

double median(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("median: no samples");
  const std::size_t middle = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(middle), samples.end());
  const double upper = samples[middle];
  if (samples.size() % 2 == 1) return upper;
  // The lower middle is the largest of the first half.
  const double lower = *std::max_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(middle));
  return (lower + upper) / 2.0;
}

double pcie_bytes_per_second(PcieLink link) {
  // The line encoding of each generation: how many of the bits on the wire
  // carry data.
  double efficiency = 0.0;
  const double gts = link.gigatransfers_per_second;
  if (gts == 2.5 || gts == 5.0) {
    efficiency = 8.0 / 10.0;  // PCIe 1.x and 2.x: 8b/10b
  } else if (gts == 8.0 || gts == 16.0 || gts == 32.0) {
    efficiency = 128.0 / 130.0;  // PCIe 3.0, 4.0, 5.0: 128b/130b
  } else if (gts == 64.0) {
    efficiency = 1.0;  // PCIe 6.0: PAM4 and FLITs, no line code
  } else {
    throw std::invalid_argument("pcie_bytes_per_second: " + std::to_string(gts) + " GT/s is no PCIe rate");
  }
  return gts * 1e9 * link.lanes * efficiency / 8.0;
}

}  // namespace launchlab::completion
