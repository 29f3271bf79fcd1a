/// @file
/// What grade-class writes once the gradings have ended, whichever engine ran
/// them: the gradebook with its late columns, Canvas's and Gradescope's
/// import files, the similar pairs, the leaderboards and the regrades, in
/// the summary.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "launchlab/class/gradebook.h"
#include "launchlab/class/roster.h"

namespace launchlab::classroom {

/// What the reports are made from, besides the students' results.
struct ClassReportSettings {
  std::filesystem::path course_root;          ///< the course graded (its starters for --similarity)
  std::filesystem::path out;                  ///< OUT/<student>/results.json; the reports go here
  std::vector<std::string> labs;              ///< the gradebook's lab columns, in order
  std::optional<std::filesystem::path> class_file;  ///< due dates, late policy, LMS identities
  bool similarity = false;
  int similarity_threshold_percent = 50;
};

/// The JSON in the file at path; nothing when it is missing or not JSON.
std::optional<nlohmann::json> read_json(const std::filesystem::path& path);

/// One student's gradebook row: their results.json (flagged no-results
/// without one), their submitters, and the seed and time their grading.json
/// records.
GradebookRow gradebook_row(const std::filesystem::path& out, const ClassSubmission& submission);

/// Writes to settings.out: gradebook.csv, summary.json and summary.md, and
/// with a class file canvas.csv and gradescope_scores.csv; returns the rows.
/// The late policy is applied to each row, the submission's time being
/// Gradescope's created_at, else when its folder last changed. Throws
/// std::runtime_error for a class file that cannot be read.
std::vector<GradebookRow> write_class_reports(const ClassReportSettings& settings,
                                              const std::vector<ClassSubmission>& roster);

/// The summary's sections for the course's staff (Markdown): the late days,
/// the roster's mismatches, the similar pairs, the leaderboards and the
/// regrades, those of them that summary holds.
std::string staff_summary_markdown(const nlohmann::json& summary);

}  // namespace launchlab::classroom
