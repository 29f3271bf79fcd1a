/// @file
/// The course as the grader sees it: the labs and what their lab.toml says.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace launchlab::grader {

/// One graded test of a lab, as lab.toml declares it.
struct LabTest {
  std::string name;                ///< GoogleTest's Suite.Name
  int points = 0;
  std::vector<std::string> needs;  ///< "gpu", "cuobjdump", "nvdisasm"
  bool is_private = false;         ///< from an instructor's private tests: hidden from students

  bool needs_gpu() const;
};

/// One lab: labs/<slug>/ and its lab.toml.
struct Lab {
  std::string slug;                         ///< "01_compile_pipeline"
  int chapter = -1;                         ///< 1
  std::string title;
  std::vector<std::string> student_files;   ///< relative to labs/<slug>/
  std::vector<std::string> hints;           ///< from a nudge to a near-answer
  std::vector<LabTest> tests;               ///< in lab.toml's order
  int timeout_seconds = 120;                ///< for one run of the test program
  int test_timeout_seconds = 60;            ///< for one test inside that run

  int max_points() const;
  std::string number() const { return slug.substr(0, 2); }
  std::string test_binary_name() const { return "test_" + slug; }           ///< the learner's program
  std::string reference_binary_name() const { return "reference_" + slug; } ///< the solutions' reference program
};

/// The requirement names a test may list in needs.
const std::vector<std::string>& known_needs();

class Value;

/// Reads [[tests]] tables (lab.toml's, or a private overlay's tests.toml);
/// names must be new to already. Throws std::runtime_error saying what is wrong.
std::vector<LabTest> read_tests(const Value& tables, const std::vector<LabTest>& already);

/// Reads a private overlay's tests.toml: its [[tests]], marked private, with
/// names new to already. Throws std::runtime_error naming the file.
std::vector<LabTest> read_private_tests(const std::filesystem::path& tests_toml, const std::vector<LabTest>& already);

/// Reads labs/<slug>/lab.toml. Throws std::runtime_error naming the file and
/// what is wrong (a missing key, a wrong type, a test listed twice, ...).
Lab load_lab(const std::filesystem::path& lab_dir);

/// Every lab under root/labs, in slug order.
std::vector<Lab> load_course(const std::filesystem::path& root);

/// The lab a learner means by "01", "1" or "01_compile_pipeline"; nothing
/// when no lab matches.
std::optional<Lab> find_lab(const std::vector<Lab>& labs, const std::string& which);

}  // namespace launchlab::grader
