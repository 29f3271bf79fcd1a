/// @file
/// The class file (TOML) a course's staff keeps beside a class: when each lab
/// is due, the late policy, and each student as the LMS knows them, with
/// their grace days and extensions. grade-class applies it to the raw
/// points; results.json stays the grader's raw verdict.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::classroom {

/// One student as the LMS knows them.
struct LmsIdentity {
  std::string name;
  std::string canvas_id;     ///< Canvas's user id (the ID column)
  std::string sis_user_id;
  std::string sis_login_id;
  std::string section;
  std::string sid;           ///< the student id Gradescope matches on
  std::string email;
};

/// What a late submission costs.
struct LatePolicy {
  int grace_days = 0;                     ///< each student's, unless their entry says otherwise
  double penalty_percent_per_day = 0;     ///< of a lab's points, per late day that no grace day covers
  std::optional<int> cutoff_days;         ///< later than this many days: none of the lab's points
};

/// One student's entry of the class file.
struct ClassStudent {
  LmsIdentity identity;
  std::optional<int> grace_days;                 ///< their own, instead of the policy's
  std::map<std::string, int> extension_days;     ///< slug -> days added to that lab's due date
};

/// The class file, as read.
struct ClassFile {
  std::string assignment_prefix = "launchlab";   ///< Canvas's column: "<prefix> <slug> (<assignment id>)"
  std::map<std::string, std::int64_t> due;        ///< slug -> due time, seconds since the epoch (UTC)
  std::map<std::string, std::string> canvas_assignment;  ///< slug -> Canvas's assignment id
  LatePolicy late;
  std::map<std::string, ClassStudent> students;  ///< by the student's key (their submission's folder)
};

/// Reads a class file:
///
///     prefix = "launchlab"
///     [late]
///     grace_days = 1
///     penalty_percent_per_day = 10
///     cutoff_days = 5
///     [labs.07_qmd]
///     due = 2026-03-01T23:59:00Z
///     canvas_assignment = "1234"
///     [students.alice]
///     name = "Alice Smith"
///     canvas_id = "101"
///     sis_user_id = "A001"
///     sis_login_id = "alice"
///     section = "Section 1"
///     sid = "A001"
///     email = "alice@example.edu"
///     grace_days = 2
///     extension_days = { "07_qmd" = 3 }
///
/// Throws std::runtime_error naming the file, the line where there is one,
/// and what is wrong (an unknown key among them: a misspelt one must not be
/// ignored).
ClassFile read_class_file(const std::filesystem::path& path);

/// Seconds since the epoch of a time as Gradescope's export writes it
/// ("2025-10-01 13:00:00.000000000 -07:00") or as ISO 8601 ("2025-10-01T20:00:00Z");
/// nothing when text is neither.
std::optional<std::int64_t> parse_submission_time(std::string_view text);

/// What the late policy made of one lab of one student.
struct LateLab {
  int late_days = 0;       ///< whole days after the due date (and extension), rounded up
  int grace_days_used = 0;
  int penalty = 0;         ///< points taken off
};

/// Applies the class file's policy to one student's submission, made at
/// submitted (seconds since the epoch), whose raw points per lab are
/// lab_points: grace days are spent lab by lab in the labs' order until they
/// run out; a lab without a due date is never late.
std::map<std::string, LateLab> apply_late_policy(const ClassFile& file, const std::string& student,
                                                 std::int64_t submitted, const std::map<std::string, int>& lab_points);

}  // namespace launchlab::classroom
