#pragma once
// A learner's progress: each lab's best and last `launchlab test` run and
// the hints seen, kept at the course's root (.launchlab-progress/, ignored by
// git) so that a clean build (rm -rf build) keeps them.
#include <filesystem>
#include <optional>
#include <string>

namespace launchlab::cli {

/// One run of a lab's tests, as `launchlab test` scored it.
struct LabScore {
  int points = 0;        ///< points won
  int gradable = 0;      ///< points that could be graded on that machine
  int not_gradable = 0;  ///< points that needed what that machine lacks (a GPU, a tool)
  std::string when;      ///< UTC, ISO 8601
};

/// A lab's record: the best run (most points; the earlier one on a tie) and the last.
struct LabProgress {
  std::optional<LabScore> best;
  std::optional<LabScore> last;
  int hints_seen = 0;
};

/// Where a course keeps its learner's progress.
std::filesystem::path progress_folder(const std::filesystem::path& course_root);

/// What is known of a lab; nothing when it was never tried. A damaged file
/// reads as never tried rather than failing the command.
LabProgress read_progress(const std::filesystem::path& folder, const std::string& slug);

/// Records a run as the last, and as the best when it beats the best so far.
void record_run(const std::filesystem::path& folder, const std::string& slug, LabScore run);

/// Remembers how many of a lab's hints the learner has seen.
void record_hints_seen(const std::filesystem::path& folder, const std::string& slug, int seen);

/// Forgets a lab's runs (reset), keeping the hints seen.
void forget_runs(const std::filesystem::path& folder, const std::string& slug);

/// "12/28 points (+15 need a GPU)".
std::string describe(const LabScore& score);

}  // namespace launchlab::cli
