#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "launchlab/grader/grading.h"

namespace launchlab::cli {

/// Checks the course itself: every lab has its chapter, overlay, tests and
/// metadata; lab.toml and the test programs name the same tests; no test
/// with points rests only on forgeable records (record_check.h), unless
/// autograder/tests/forgeable.txt lists it with a reason; starters fail and
/// solutions pass. Returns the problems found (empty: all good).
std::vector<std::string> lint_course(const std::filesystem::path& root, const std::filesystem::path& build_dir,
                                     const grader::Capabilities& capabilities);

/// The tests a GoogleTest program lists (--gtest_list_tests), as Suite.Name.
std::vector<std::string> list_gtest_tests(const std::filesystem::path& binary, std::string& problem);

}  // namespace launchlab::cli
