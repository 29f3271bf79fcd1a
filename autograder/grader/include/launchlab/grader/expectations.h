/// @file
/// A student edition's expectations (`launchlab export-student`): the tree
/// an instructor publishes has no solutions, so no reference program can run
/// in it. What the reference recorded for the public tests, made from the
/// solutions when the course was exported, stands in for it: grader v2's
/// exercise side holds no expected values, and the reference's transcript is
/// the expectation.
///
///     expectations/expectations.json    what the export was made from and on, and
///                                       per lab the tests a file cannot judge
///     expectations/<slug>.transcript    the reference program's transcript
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "launchlab/grader/grading.h"

namespace launchlab::grader {

/// The expectations of a student edition.
struct Expectations {
  std::filesystem::path folder;  ///< <course>/expectations
  /// {"revision", "made_on": {"gpu", "nvcc"}, "labs": {slug: {"judged_by_grader": {test: why}}}}
  nlohmann::json manifest;

  /// The GPU the expectations were made on ("" when none was there).
  std::string made_on_gpu() const;
  /// The tests of a lab that a file cannot judge, and why (judged_by_grader).
  std::map<std::string, std::string> judged_by_grader(const Lab& lab, const Capabilities& here) const;
  std::filesystem::path transcript(const Lab& lab) const { return folder / (lab.slug + ".transcript"); }
};

/// The folder name inside a course tree.
inline constexpr const char* kExpectationsFolder = "expectations";

/// The expectations of the course at root when it is a student edition
/// (root/expectations/expectations.json exists); nothing otherwise. Throws
/// std::runtime_error when the manifest is there but unreadable.
std::optional<Expectations> find_expectations(const std::filesystem::path& course_root);

/// Points one lab's run at the expectations: the reference's transcript
/// from the file, and the tests judged by the course's grader.
void use_expectations(const Expectations& expectations, const Lab& lab, const Capabilities& here, RunSettings& settings);

}  // namespace launchlab::grader
