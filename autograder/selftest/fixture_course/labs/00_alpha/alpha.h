/// @file
/// Lab 00_alpha of the grader's fixture course.
#pragma once

namespace alpha {

/// Returns a + b.
long add(long a, long b);

}  // namespace alpha
