/// @file
/// The grading pipeline, a stage a file: assemble.cpp (the committed course,
/// the learner's files, the tests' data), build.cpp (the trusted part and
/// the learner's part of the graded tree), run.cpp and judge.cpp (grading.h,
/// judge.h), report.cpp (the score table and results.json); grading.cpp
/// strings them together.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launchlab/grader/course.h"
#include "launchlab/grader/process.h"
#include "launchlab/grader/sandbox.h"

namespace launchlab::grader {

/// What a sandboxed command may see besides the system and the CUDA toolkit.
struct SandboxView {
  std::vector<std::filesystem::path> read_only;
  std::vector<std::filesystem::path> writable;
  bool gpu = false;
};

/// The grading's sandbox (chosen once, sandbox.h's choose_sandbox) with one
/// run's view added as its binds.
Sandbox sandbox_for(const Sandbox& grading, const SandboxView& view);

// ------------------------------------------------------------ assemble

/// A file's whole content ("" when it cannot be read).
std::string read_text(const std::filesystem::path& path);

/// The course as committed: `git archive HEAD` of a clone, or a release
/// export (a folder with a .launchlab-release file naming its revision).
/// Never a working tree: an uncommitted edit is not the course.
struct CommittedCourse {
  std::filesystem::path root;   ///< a read-only copy, or the release folder itself
  std::string revision;
};

/// Exports the course at `course_root` into `into`, with the private tests'
/// sources beside the public ones (autograder/tests/<slug>/private_*); reused
/// when it holds the same revision and private tests already. Throws
/// std::runtime_error saying why not.
CommittedCourse export_committed_course(const std::filesystem::path& course_root, const std::filesystem::path& into,
                                        const std::filesystem::path& private_tests);

/// Where each graded lab's student files come from in a submission, and the
/// notes the learner reads about what was not taken.
struct SubmissionFiles {
  std::map<std::string, std::map<std::string, std::filesystem::path>> files;  ///< slug -> file -> path
  std::map<std::string, std::string> notes;                                  ///< slug -> notes
};

/// The lab and every lab whose code it builds on: those its CMakeLists.txt
/// names in USES_LABS (06 decodes QMDs with 07's code; 12 uses 03, 04, 06
/// and 07), and theirs, each once, the lab first.
std::vector<std::string> labs_built_on(const std::filesystem::path& course_root, const std::string& slug);

/// Finds the student files of `labs` in `submission` (labs/<slug>/<file>,
/// <slug>/<file>, or <file> at the top where one lab alone has that name).
/// A file that is a link, not a plain file, unreadable or too large is left
/// out with a note on its own lab only.
SubmissionFiles find_submission_files(const std::filesystem::path& submission, const std::vector<Lab>& labs,
                                      const std::vector<Lab>& all_labs);

/// The learner part's sources: the build files, the labs (the student files
/// replaced by the submission's) and the test support's headers; no tests,
/// no solutions.
void assemble_learner_sources(const CommittedCourse& course, const SubmissionFiles& submission,
                              const std::filesystem::path& into);

/// The tests' data for a sandboxed run, without the test sources: every file
/// under autograder/tests/<slug> but its top-level sources, into <slug>/; and
/// every lab's material, the folders of labs/<slug>/ (fixtures/, kernels/,
/// ...), into labs/<slug>/ (what testing::lab_material reads). Both come from
/// the committed course: a submission's own labs/<slug>/fixtures/ is never read.
void assemble_test_data(const CommittedCourse& course, const std::vector<Lab>& labs, const std::filesystem::path& into);

/// The private tests' [[tests]] (private_tests/<slug>/tests.toml) joined to the labs'.
/// Throws std::runtime_error naming the file and what is wrong.
void add_private_tests(const std::filesystem::path& private_tests, std::vector<Lab>& labs);

// ------------------------------------------------------------ build

/// Options of both builds.
struct BuildSettings {
  std::vector<std::string> cmake_args;   ///< extra -D options
  int timeout_seconds = 900;
  Sandbox sandbox;                       ///< where the learner's part is built
  /// A student edition: no solutions, so the trusted part builds no
  /// reference programs (its expectations stand in for them).
  bool without_reference = false;
  /// Where a build step that stays silent for a while says that it still
  /// goes on (heartbeat.h); none: the steps stay silent.
  std::ostream* progress = nullptr;
};

/// The trusted part, built from the committed course alone: each lab's
/// reference program and the exercise build of its tests. A lab whose
/// trusted part does not build (a private test that does not compile) maps
/// to the build's messages, which are the instructor's to read.
struct TrustedBuild {
  std::filesystem::path build_dir;
  /// A tiny project configured with the same compilers: what the learner
  /// part's configure is given instead of detecting them again (seconds of
  /// test compiles at every grading). Empty when that configure failed.
  std::filesystem::path compilers;
  std::map<std::string, std::string> failed;   ///< slug -> the build's messages
  std::string configure_problem;               ///< set when nothing could be configured
};

TrustedBuild build_trusted_part(const CommittedCourse& course, const std::vector<Lab>& labs,
                                const std::filesystem::path& build_dir, const BuildSettings& settings);

/// Copies what the learner part links (the exercise objects, the test
/// support's libraries) out of the trusted build, into a folder the learner's
/// build may read.
void export_exercise_objects(const TrustedBuild& trusted, const std::vector<Lab>& labs, const std::filesystem::path& into);

/// The learner part: each lab's library from the submission's files linked
/// with the exercise objects into test_<slug>, built in the sandbox.
struct LearnerBuild {
  std::filesystem::path build_dir;
  std::map<std::string, std::string> failed;   ///< slug -> the compiler's messages, for the learner
  std::string configure_problem;
};

/// `compile_first`: labs whose files start compiling before the others' (in
/// that order), so that the longest compiles do not start last.
LearnerBuild build_learner_part(const std::filesystem::path& sources, const std::filesystem::path& exercise_dir,
                                const std::vector<Lab>& labs, const std::filesystem::path& build_dir,
                                const BuildSettings& settings, const std::filesystem::path& compilers = {},
                                const std::vector<std::string>& compile_first = {});

/// The labs of a learner part's build folder (build_learner_part) whose
/// files took longest to compile there, by its .ninja_log (the longest file
/// of each lab), longest first; none when the log is not there. Ninja
/// starts files in the order of its build file, so these go first in the
/// next learner build (compile_first). The starters' build, made when the
/// course is prepared, has a learner build's shape (the same targets and
/// flags, the files compiled alone, nothing else beside them); the trusted
/// build, which compiles the tests too, is no measure of it.
std::vector<std::string> labs_slowest_to_compile_first(const std::filesystem::path& learner_build_dir);

/// The lines of a build log that say what went wrong, paths below `root` made relative.
std::string build_errors(const std::string& log_text, const std::filesystem::path& root);

}  // namespace launchlab::grader
