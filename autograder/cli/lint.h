#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "launchlab/grader/grading.h"

namespace launchlab::cli {

/// What a run of the linter checks: the course as a whole (every lab.toml
/// reads, the promised throws, the forgeable list names labs), and each lab
/// of `labs` (every lab when empty) on its own, its programs run. The
/// course's CTest runs the whole once and each lab in a test of its own, so
/// that a lab whose programs need the GPU holds the GPU alone.
struct LintScope {
  bool course_as_a_whole = true;
  bool labs_checked = true;
  std::vector<std::string> labs;  ///< slugs; empty: every lab
};

/// Checks the course itself: every lab has its chapter, overlay, tests and
/// metadata; lab.toml and the test programs name the same tests; no test
/// with points rests only on forgeable records (record_check.h), unless
/// autograder/tests/forgeable.txt lists it with a reason; starters fail and
/// solutions pass. Returns the problems found (empty: all good).
std::vector<std::string> lint_course(const std::filesystem::path& root, const std::filesystem::path& build_dir,
                                     const grader::Capabilities& capabilities, const LintScope& scope = {});

/// Stated rules tested (launchlab/cli/stated_rules.h): each exception a
/// header of labs/NN_slug/ promises is checked by a test of autograder/tests/NN_slug/
/// (labs/include/'s by any lab's). The ones the course still owes a test
/// are listed in autograder/cli/untested_throws.txt; a listed one that is
/// tested now, or that no header promises, is a problem too, so that the
/// list only shrinks. Returns the problems.
std::vector<std::string> untested_stated_throws(const std::filesystem::path& root, const std::vector<grader::Lab>& labs);

/// The tests a GoogleTest program lists (--gtest_list_tests), as Suite.Name.
std::vector<std::string> list_gtest_tests(const std::filesystem::path& binary, std::string& problem);

}  // namespace launchlab::cli
