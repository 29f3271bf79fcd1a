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

#include "launchlab/cli/progress.h"
#include "launchlab/grader/grading.h"
#include "course_context.h"

namespace launchlab::cli {

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

/// Builds targets for a step the learner waits on, on stderr: first what it
/// builds (`doing`, as "building lab 00's tests") and, when `first_time`
/// is not empty, what the first build costs ("about 2 minutes on 2 cores");
/// then the build tool's lines as they come, and whenever the build was
/// silent for a while (one compile can take minutes), that it still goes on
/// (launchlab/grader/heartbeat.h). Returns how the build ended; its output
/// is kept in it too.
grader::RunOutcome build_for_learner(const Context& ctx, const std::vector<std::string>& targets,
                                     const std::string& doing, const std::string& first_time = "");

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

/// A run's score: its points, those it could grade, and those it could not
/// with what they need (progress.h), from the lab's results on this machine.
LabScore score_of(const grader::Lab& lab, const std::vector<grader::TestResult>& results,
                  const grader::Capabilities& capabilities);

/// Keeps each graded lab's score as a run of it: `launchlab grade` of the
/// course's own labs is the learner's run too, and `list` shows it.
void record_grade(const Context& ctx, const std::vector<grader::LabResult>& graded,
                  const grader::Capabilities& capabilities);

/// The course as a bar, from the progress records: how many labs are at
/// full marks (of what could be graded where they ran), and the best runs'
/// points over the points this machine can grade (for a lab never run, its
/// tests whose needs are met here); the rest is said apart, never counted
/// as missing.
std::string course_progress_bar(const Context& ctx, const std::vector<grader::Lab>& labs,
                                const grader::Capabilities& capabilities);

/// `launchlab list`: each lab with its best and last run (of `test` or
/// `grade`), and the course's bar (course_progress_bar).
int command_list(const Context& ctx, const std::vector<grader::Lab>& labs);

/// Where lab's starters come from, and their texts by student file. In a
/// student edition: the copy its export kept (edition_starters_folder). In a
/// clone of the course: the branch it was cloned from (the current branch's
/// upstream, else origin's default branch), so that the learner's own
/// commits are never taken for the starter; in the course's own repository,
/// which has neither, its last commit. Throws std::runtime_error, naming the
/// file, when a starter cannot be found.
struct Starters {
  std::string source;  ///< said to the learner: "the student edition's starters/", "origin/main", ...
  std::vector<std::pair<std::filesystem::path, std::string>> files;  ///< the lab's student files, each with its starter
};
Starters find_starters(const Context& ctx, const grader::Lab& lab);

/// `launchlab reset NN`: the lab's student files put back from its starters
/// (find_starters), once the learner has said yes (or gave --yes). The lab's
/// runs are forgotten; the hints seen are kept.
int command_reset(const Context& ctx, const grader::Lab& lab, bool yes);

/// `launchlab hint NN`: the lowest-numbered hint not shown yet, whether by
/// `hint` or after a failing run (every hint with all).
int command_hint(const Context& ctx, const grader::Lab& lab, bool all);

/// `launchlab watch [NN]`: re-tests a lab each time one of its student
/// files is saved (every lab's files when labs holds more than one), until
/// Ctrl-C. Returns 0 when stopped that way.
int command_watch(const Context& ctx, const std::vector<grader::Lab>& labs, const std::vector<grader::Lab>& course,
                  const TestOptions& options);

}  // namespace launchlab::cli
