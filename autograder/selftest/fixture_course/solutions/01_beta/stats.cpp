#include "stats.h"

#include <algorithm>
#include <stdexcept>

long beta::largest(const std::vector<long>& values) {
  if (values.empty()) throw std::invalid_argument("largest: no values");
  return *std::max_element(values.begin(), values.end());
}
