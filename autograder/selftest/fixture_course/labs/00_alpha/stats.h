/// @file
/// Lab 00_alpha's second student file.
#pragma once

#include <vector>

namespace alpha {

/// The sum of the values; 0 for none.
long total(const std::vector<long>& values);

}  // namespace alpha
