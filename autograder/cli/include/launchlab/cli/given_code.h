#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::cli {

/// Lines first to last of a file, 1-based.
struct LineRange {
  std::size_t first = 0;
  std::size_t last = 0;
};

/// A run of code lines that a starter and its solution both hold, in the
/// same order: where it stands in each, and how many code lines it holds.
struct SharedRun {
  LineRange starter, solution;
  std::size_t code_lines = 0;
};

/// The rule that keeps given code out of student files: a student file holds
/// only what the learner writes, so a starter and its solution never share a
/// run of this many code lines. A code line is a line with white space
/// folded that is not blank, not a comment, not a preprocessor line and not
/// punctuation alone (a lone brace, `};`, `} // namespace`). What a starter
/// leaves to the learner (its TODO(student) comments, the placeholders that
/// keep it compiling) differs from the solution, so a run is code that both
/// hold whole: given code, which belongs in a file that is not a student
/// file.
inline constexpr std::size_t kMostSharedCodeLines = 5;

/// Every maximal run of more than kMostSharedCodeLines (or `most`) code
/// lines that `starter` and `solution` share, in the starter's order.
std::vector<SharedRun> shared_code_runs(std::string_view starter, std::string_view solution,
                                        std::size_t most = kMostSharedCodeLines);

/// The linter's sentence for a run, naming both files' lines.
std::string describe_shared_run(const std::string& file, const SharedRun& run);

}  // namespace launchlab::cli
