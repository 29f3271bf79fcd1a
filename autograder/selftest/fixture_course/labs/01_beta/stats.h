/// @file
/// Lab 01_beta of the grader's fixture course.
#pragma once

#include <vector>

namespace beta {

/// The largest of the values; throws std::invalid_argument when there are none.
long largest(const std::vector<long>& values);

}  // namespace beta
