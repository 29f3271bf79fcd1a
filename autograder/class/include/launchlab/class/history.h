/// @file
/// Regrade history: every earlier results.json of a student is kept, and the
/// summary says whose score a regrade changed, by how much, on which tests.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace launchlab::classroom {

/// Moves student_dir/results.json, where there is one, to
/// student_dir/history/<n>-results.json, n one more than the last kept.
void keep_earlier_results(const std::filesystem::path& student_dir);

/// A test whose points a regrade changed.
struct TestChange {
  std::string test;   ///< results.json's test name
  double before = 0;  ///< its points, 0 where the earlier grading had no such test
  double after = 0;
};

/// One student whose score a regrade changed.
struct ScoreChange {
  std::string student;
  double before = 0, after = 0;
  std::vector<TestChange> tests;
};

/// For each of students (folders of out) with an earlier results.json kept,
/// the change from the last earlier one to the current one; students whose
/// score and tests stayed the same are left out.
std::vector<ScoreChange> regrade_changes(const std::filesystem::path& out, const std::vector<std::string>& students);

}  // namespace launchlab::classroom
