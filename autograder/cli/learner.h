#pragma once
// The learner's loop: build a lab, run its tests, say what failed and which
// hint helps, keep the score. `launchlab test` runs it once, `launchlab
// watch` on every save of a student file.
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "launchlab/grader/grading.h"

namespace launchlab::cli {

/// Where the course is and where it is built.
struct Context {
  std::filesystem::path root;
  std::filesystem::path build;
};

/// Where the learner's progress is kept (launchlab/cli/progress.h).
std::filesystem::path progress_dir(const Context& ctx);

/// Runs write, which keeps the learner's progress. Progress is the learner's
/// convenience: a course tree they cannot write (a read-only install) costs
/// them the record, said on stderr, never the command.
void keep_progress(const Context& ctx, const std::function<void()>& write);

/// Runs a program with the terminal as its output, saying nothing itself.
int run_visible_quietly(const std::vector<std::string>& argv);

/// The same, after showing the command line on stderr (for builds the learner waits on).
int run_visible(const std::vector<std::string>& argv);

/// How one run of a lab's tests is made and shown.
struct TestOptions {
  bool solution = false;           ///< the reference solution instead of the learner's files
  std::vector<std::string> only;   ///< Suite.Test or Suite.*: only these tests (empty: all)
  bool verbose = false;            ///< every failure's message, not only the first one's
};

/// The most lines of one test's message shown: the first failure's in a
/// short report, and any message in a verbose one.
constexpr std::size_t kShortMessageLines = 30;
constexpr std::size_t kVerboseMessageLines = 200;

/// Builds lab's programs, runs its tests and prints the report on out: the
/// first failing test with its message (cut at kShortMessageLines), every
/// other test on one line, the score and the hint tied to the first failing
/// test (remembered as seen). A run of the whole lab on the learner's files
/// is kept as progress. Returns the exit status: 0 when nothing failed, 1
/// when something did or the lab did not compile, 2 when --only named no test.
int test_lab(const Context& ctx, grader::Lab lab, const TestOptions& options, std::ostream& out);

/// The course as a bar, from the progress records: how many labs are at
/// full marks (of what could be graded where they ran), and the best runs'
/// points over every lab's points.
std::string course_progress_bar(const Context& ctx, const std::vector<grader::Lab>& labs);

/// `launchlab hint NN`: the next hint not yet seen (every hint with all).
int command_hint(const Context& ctx, const grader::Lab& lab, bool all);

/// `launchlab watch [NN]`: re-tests a lab each time one of its student
/// files is saved (every lab's files when labs holds more than one), until
/// Ctrl-C. Returns 0 when stopped that way.
int command_watch(const Context& ctx, const std::vector<grader::Lab>& labs, const std::vector<grader::Lab>& course,
                  const TestOptions& options);

}  // namespace launchlab::cli
