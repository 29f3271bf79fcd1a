/// @file
/// What grade-class makes of a class's results: each student's seed, one
/// gradebook row per student from their results.json, the gradebook as CSV
/// and the figures of its summary.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "launchlab/class/policies.h"
#include "launchlab/class/seeds.h"

namespace launchlab::classroom {

/// One figure of results.json's `leaderboard` (Gradescope's key): a
/// learner's measured figure, relative to the reference measured in the same
/// grading. It ranks; it never gives points.
struct LeaderboardFigure {
  std::string name;
  double value = 0;
  bool ascending = false;  ///< a smaller value ranks higher ("order": "asc")
};

/// One student's line of the gradebook.
struct GradebookRow {
  std::string student;
  std::string name;                          ///< the submitters' names, "; " between them
  std::string email;
  std::map<std::string, int> lab_points;     ///< slug -> points
  std::map<std::string, int> lab_max;        ///< slug -> the points its tests are worth, graded here or not
  int total = 0;                             ///< results.json's score
  int graded_max = 0;                        ///< the points that could be graded here
  int not_graded = 0;                        ///< the points that could not (no GPU, a missing tool)
  std::vector<std::string> flags;
  std::string seed;                          ///< the seed's derivation, or "none"
  std::optional<double> seconds;             ///< how long the grading took
  std::map<std::string, LateLab> late;       ///< slug -> what the late policy made of it
  std::vector<LeaderboardFigure> leaderboard;

  int late_days() const;                     ///< over every lab
  int grace_days_used() const;
  int penalty() const;
  int final_points() const { return total - penalty(); }
};

/// The row results.json gives (its `leaderboard` among it) (Gradescope's schema as `launchlab grade`
/// writes it: each test's extra_data names its lab and outcome). Flags:
/// "regrade" when a test's outcome (or the top-level extra_data) says a
/// timing test ran on a throttled or shared GPU, "grader-error" when the
/// grader could not grade the submission, "course-problem" when a test was
/// not graded because of the course.
GradebookRow row_from_results(const nlohmann::json& results);

/// A CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line
/// break, and when it starts with = + - @ (which spreadsheets would run as a
/// formula) also led by an apostrophe.
std::string csv_cell(std::string_view text);

/// One CSV line (RFC 4180, CRLF), its cells through csv_cell.
std::string csv_line(const std::vector<std::string>& cells);

/// The gradebook: a header (student, name, email, one column per lab, total,
/// late_days, grace_days_used, penalty, final, graded_max, not_graded, flags,
/// seed), then one line per row, labs in the order given. The labs' columns
/// and total are the raw points; final is total less the late penalty.
std::string gradebook_csv(const std::vector<std::string>& labs, const std::vector<GradebookRow>& rows);

/// The summary's figures as JSON: for each lab and the total, its maximum
/// and the points of every graded student; the flagged students; the
/// seconds a grading took. autograder/class/histograms.py draws it.
nlohmann::json summary_json(const std::vector<std::string>& labs, const std::vector<GradebookRow>& rows);

/// The summary a person reads (Markdown): per lab, how many were graded, the
/// mean, median, lowest and highest points; who is flagged and why.
std::string summary_markdown(const nlohmann::json& summary);

}  // namespace launchlab::classroom
