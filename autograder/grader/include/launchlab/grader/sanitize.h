/// @file
/// The sanitizer stage: a lab's GPU tests that passed run once more under
/// compute-sanitizer (memcheck, racecheck, ...), and each test's run under
/// each tool of its lab.toml `sanitize` is a graded check of its own
/// ("Suite.Name [memcheck]"), so that a kernel that writes out of bounds but
/// leaves the right values behind loses those points.
///
/// The learner's program runs under the tool in the same sandbox as for its
/// tests, with the lab's limits times kSanitizerSlowdown. First every
/// candidate test of a tool in one run; only when that run is not clean,
/// each test alone, so that a finding is blamed on the test that made it.
/// A test the learner's run finds fault with is run alone under the tool
/// with the course's reference as well: when that is not clean either, the
/// check cannot be judged here (not graded), as when the reference cannot
/// judge a test (judge.h).
///
/// What the tool reports only ever takes points away: the learner's program
/// can write to the report, but a clean verdict needs compute-sanitizer's
/// own exit status (not kSanitizerErrorExitCode) and its summary as the
/// report's last line, and every test run to its end. A program that
/// notices the tool and behaves otherwise under it (or disables the tool's
/// instrumentation inside its own process) is not caught here: the checks
/// catch mistakes, not a submission that hides them on purpose.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "launchlab/grader/course.h"
#include "launchlab/grader/grading.h"
#include "launchlab/grader/process.h"

namespace launchlab::grader {

/// compute-sanitizer's exit status when it found an error (--error-exitcode):
/// one a GoogleTest program never returns by itself.
inline constexpr int kSanitizerErrorExitCode = 86;

/// How many times the lab's time limits a run under compute-sanitizer gets:
/// instrumented kernels run several times slower, and the tool adds seconds
/// of start-up to every run.
inline constexpr int kSanitizerSlowdown = 4;

/// The command that runs argv under compute-sanitizer's `tool`, writing its
/// report to log_file: errors set the exit status to kSanitizerErrorExitCode;
/// failed CUDA API calls and the program's own exit status are left to the
/// tests (several tests provoke errors on purpose); a device error ends the
/// kernel, not the context, so that the test goes on and reports.
std::vector<std::string> sanitizer_command(const std::filesystem::path& compute_sanitizer, const std::string& tool,
                                           const std::filesystem::path& log_file, const std::vector<std::string>& argv);

/// What a compute-sanitizer report says.
struct SanitizerReport {
  int errors = 0;                 ///< error records: memcheck's "Invalid ...", racecheck's "Error: Race ...", ...
  std::string first_error;        ///< the first error record without its host backtrace, trimmed, unprefixed
  /// The summary's error count ("ERROR SUMMARY: 2 errors", racecheck's
  /// "(1 error, 0 warnings)"), when the report's last line is a summary.
  std::optional<int> summary_errors;
  std::string tool_problem;       ///< a line where the tool itself says it could not do its work
};

/// Reads a report in compute-sanitizer's text format (every line starts with
/// "========="; a record's first line is not indented, its details are).
SanitizerReport parse_sanitizer_report(std::string_view text);

/// One run of a program under a tool: how it ended, the tool's report, and
/// which of the tests asked for ran to their end (not skipped).
struct SanitizedRun {
  RunOutcome outcome;
  RunLimits limits;                 ///< what it ran under, to describe the outcome
  std::string report;               ///< the log file's text ("" when there was none)
  std::set<std::string> ended;
};

/// Whether a run under a tool is clean for these tests; nothing when it is,
/// else why not, in the learner's terms (the tool's first error, trimmed),
/// of `whose` program ("your", "the reference's").
std::optional<std::string> sanitizer_fault(const std::string& tool, const SanitizedRun& run,
                                           const std::vector<std::string>& tests, const std::string& whose = "your");

/// Runs the learner's program (reference false) or the reference's under a
/// tool, with only these tests. It is called from several threads at once,
/// one per tool: each tool's runs need a working folder of their own.
using SanitizedRunner =
    std::function<SanitizedRun(const std::string& tool, const std::vector<std::string>& tests, bool reference)>;

/// The sanitizer checks of a lab (Lab::sanitizer_checks()), from the tests'
/// own results: a check is run only when its test passed here and the tool
/// is installed; a test that failed fails its checks (a starter earns
/// nothing from them); a test not graded here leaves them not graded.
/// Each check's result comes right after its test's. The tools run side by
/// side, each tool's runs one after another.
std::vector<TestResult> with_sanitizer_checks(const Lab& lab, const std::vector<TestResult>& results,
                                              const Capabilities& capabilities, const SanitizedRunner& run);

/// Of these tests of a lab, those each tool would check were they to pass
/// here, by tool, in the lab's order: the learner's run with_sanitizer_checks
/// makes first for a tool where every one of them passes.
std::map<std::string, std::vector<std::string>> sanitizer_candidates(const Lab& lab,
                                                                     const std::vector<std::string>& tests,
                                                                     const Capabilities& capabilities);

/// A learner's run under a tool made before the tests were judged, and the
/// tests it was asked to run.
struct EarlySanitizedRun {
  std::vector<std::string> tests;
  SanitizedRun run;
};

/// `run`, except that a learner's run of a tool whose early run (by tool)
/// covered the tests asked for, and was clean for them, is answered with
/// that run. An early run that found anything is never reused for fewer
/// tests: its finding may belong to a test that failed, which the checks
/// leave out, and a fresh run of the tests asked for says whose it is.
SanitizedRunner reusing_early_runs(SanitizedRunner run, std::map<std::string, EarlySanitizedRun> early);

/// Reads a report that a sandboxed program could have replaced: a plain file
/// only (never through a link, nor one with other names), at most 1 MiB.
std::string read_report_file(const std::filesystem::path& path);

}  // namespace launchlab::grader
