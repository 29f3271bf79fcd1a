#pragma once
// What every launchlab program starts from: where the course is and where it
// is built, and its labs as a command line names them. The launchlab program
// and the grade-class program it builds on demand read them alike.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "launchlab/grader/course.h"

namespace launchlab::cli {

/// Where the course is and where it is built.
struct Context {
  std::filesystem::path root;
  std::filesystem::path build;
};

/// $LAUNCHLAB_ROOT and $LAUNCHLAB_BUILD_DIR, as ./launchlab sets them; else
/// the course and the build this program was built from.
Context course_context();

/// The course's labs, read when an argument first names one: `--help` and
/// the commands that name no lab never read lab.toml.
class CourseLabs {
 public:
  explicit CourseLabs(std::filesystem::path root) : root_(std::move(root)) {}

  const std::vector<grader::Lab>& labs();

  /// The lab of a slug that lab_number() let through.
  grader::Lab lab(const std::string& slug);

  /// Turns "4", "04" or "04_param_buffer" into the lab's slug, and refuses
  /// anything else. When the course cannot be read, with defer_broken_course
  /// the value is kept as it is, so that the grader can say what is wrong in
  /// its results.json.
  CLI::Validator lab_number(bool defer_broken_course);

 private:
  std::filesystem::path root_;
  std::optional<std::vector<grader::Lab>> labs_;
};

}  // namespace launchlab::cli
