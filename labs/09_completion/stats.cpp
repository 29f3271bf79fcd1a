// The median of repeated measurements, and what a PCIe link can carry. The
// contract is in completion.h.

#include <stdexcept>
#include <vector>

#include "completion.h"

namespace launchlab::completion {

double median(std::vector<double> samples) {
  // TODO(student): the middle sample of an odd count, the mean of the two
  // middle ones of an even count; the samples come in any order. Throw
  // std::invalid_argument when there are none.
  (void)samples;
  return 0.0;
}

double pcie_bytes_per_second(PcieLink link) {
  // TODO(student): GT/s x 10^9 x lanes / 8 bits, times the line encoding's
  // share of data bits: 8/10 at 2.5 and 5 GT/s, 128/130 at 8, 16 and 32
  // GT/s, all of them at 64 GT/s. Any other rate: std::invalid_argument.
  (void)link;
  return 0.0;
}

}  // namespace launchlab::completion
