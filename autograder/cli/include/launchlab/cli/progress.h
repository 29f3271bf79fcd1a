#pragma once
// A learner's progress: each lab's best and last run (`launchlab test`, or
// `launchlab grade` of the course's own labs) and the hints seen, kept at the course's root (.launchlab-progress/, ignored by
// git) so that a clean build (rm -rf build) keeps them.
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace launchlab::cli {

/// One run of a lab's tests, as `launchlab test` or `launchlab grade` scored it.
struct LabScore {
  int points = 0;        ///< points won
  int gradable = 0;      ///< points that could be graded on that machine
  int not_gradable = 0;  ///< points that needed what that machine lacks (a GPU, a tool)
  std::string when;      ///< UTC, ISO 8601
  /// What the not-gradable points needed, a word each ("a GPU", "nvdisasm",
  /// "open-gpu-doc"): a tool is never called a GPU. Empty when unknown.
  std::vector<std::string> needs;
};

/// A lab's record: the best run (most points; the earlier one on a tie) and the last.
struct LabProgress {
  std::optional<LabScore> best;
  std::optional<LabScore> last;
  std::set<int> hints_shown;  ///< the numbers (from 1) of the hints shown, by `hint` or after a failing run
};

/// Where a course keeps its learner's progress.
std::filesystem::path progress_folder(const std::filesystem::path& course_root);

/// What is known of a lab; nothing when it was never tried. A damaged file
/// reads as never tried rather than failing the command.
LabProgress read_progress(const std::filesystem::path& folder, const std::string& slug);

/// Records a run as the last, and as the best when it beats the best so far.
void record_run(const std::filesystem::path& folder, const std::string& slug, LabScore run);

/// Remembers that hint `number` (from 1) of a lab was shown.
void record_hint_shown(const std::filesystem::path& folder, const std::string& slug, int number);

/// Forgets a lab's runs (reset), keeping the hints seen.
void forget_runs(const std::filesystem::path& folder, const std::string& slug);

/// "12/28 points (+15 need a GPU)", "3/10 points (+4 need cuobjdump, nvdisasm)",
/// or "(+2 not gradable here)" when what they need is not known.
std::string describe(const LabScore& score);

}  // namespace launchlab::cli
