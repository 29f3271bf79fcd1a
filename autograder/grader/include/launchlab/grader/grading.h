/// @file
/// The grader core: runs a lab's tests under limits and turns GoogleTest's
/// report into points; grades a whole submission against the committed course.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "launchlab/grader/course.h"
#include "launchlab/grader/stages.h"

#include <nlohmann/json.hpp>

namespace launchlab::grader {

/// What this machine can grade.
struct Capabilities {
  bool gpu = false;
  std::string gpu_detail;                ///< the device's name, or why there is none
  std::map<std::string, bool> tools;     ///< "cuobjdump" -> installed?
  std::map<std::string, std::filesystem::path> tool_paths;  ///< where each installed tool is
  /// What a reference program's transcript may depend on besides the course
  /// and its environment: the toolkit (nvcc --version), the driver's version,
  /// the GPU's name and UUID, the tools found. Part of the key of the
  /// reference transcripts kept between gradings.
  std::string machine;
  std::string gpu_uuid;  ///< "GPU-..." as NVML names it; empty without a GPU

  /// Whether a test with these needs can run here; the first unmet need otherwise.
  std::optional<std::string> unmet_need(const LabTest& test) const;
  /// What a learner is told is missing for a need unmet here: the GPU's
  /// gpu_detail, the variable open-gpu-doc wants, or the tool's name.
  std::string what_lacks(const std::string& need) const;
};

/// What a machine without a GPU is told (gpu_detail), whether the driver is
/// missing or sees no device.
inline constexpr const char* kNoGpuHere = "no NVIDIA driver or GPU found here";

/// Asks the CUDA runtime for a device and looks for the CUDA tools.
Capabilities detect_capabilities(const std::filesystem::path& cuda_bin_dir);

enum class TestStatus {
  passed,
  failed,
  needs_gpu,   ///< not gradable here: no GPU
  needs_tool,  ///< not gradable here: a CUDA tool is missing
  not_graded,  ///< not gradable here: the course's reference could not judge it
};

/// "passed", "failed", "needs a GPU", "needs a tool".
std::string to_string(TestStatus status);

/// The grade of one test.
struct TestResult {
  std::string name;
  int points = 0;
  int max_points = 0;
  TestStatus status = TestStatus::failed;
  std::string message;  ///< why it failed, what was expected and given, or what it needs
};

/// The grade of one lab.
struct LabResult {
  Lab lab;
  std::optional<std::string> problem;  ///< set when the lab did not build or could not run at all
  std::vector<TestResult> tests;

  int points() const;
  int gradable_max() const;       ///< points of the tests that could run here
  int not_gradable_points() const;
};

/// A lab's two test programs: the exercise build on the learner's files, and
/// the reference build on the solutions (launchlab/record.h).
struct LabPrograms {
  std::filesystem::path learner;
  std::filesystem::path reference;
};

/// One figure of results.json's `leaderboard` (Gradescope's key): a
/// passed test's measurement, the learner's over the reference's.
struct LeaderboardEntry {
  std::string name;
  double value = 0;
  bool ascending = true;  ///< lower is better
};

/// One run of a lab's test program in a grading.
struct ProgramRun {
  std::string program;  ///< "reference", "learner", "learner under memcheck", ...
  std::string lane;     ///< the lane it took its turn in (gpu_turns.h)
  int tests = 0;        ///< how many tests it was asked to run
  double seconds = 0;   ///< from its turn to its end, retries for fair timing included
  double waited = 0;    ///< the seconds it waited for its turn
  double started = 0;   ///< when its turn came, in seconds from the grading's start (0 without turns of its own)
  /// Its slowest tests, at most kSlowestTestsShown, by GoogleTest's own
  /// clock (its lines for a test's end): the program's word, for where the
  /// time went and never for a verdict; only the names it was asked to run.
  std::vector<std::pair<std::string, double>> slowest;
};

/// How many of a run's slowest tests the phases name.
inline constexpr std::size_t kSlowestTestsShown = 3;

/// Where one lab's grading time went (results.json's extra_data.phases).
struct LabPhases {
  double reference_seconds = 0;  ///< running the reference program (0 when the cache held every test)
  double learner_seconds = 0;    ///< running the learner's program
  double judge_seconds = 0;      ///< comparing the transcripts, sanitizer runs included
  /// Of those, the time spent waiting for turns on the GPU (gpu_turns.h).
  double waited_seconds = 0;
  /// Each run of the lab's programs, in the order they ended.
  std::vector<ProgramRun> runs;
  int cached_tests = 0;          ///< tests whose reference transcript came from the cache
  /// Tests the reference program ran for this grading: not cached yet, or
  /// varying between runs (timings), so measured beside the learner's.
  std::vector<std::string> measured_tests;
  /// Tests that measure whose reference run this grading spared: the
  /// learner's run recorded no value of them to compare with its figures,
  /// and the reference's newest clean run, kept, stood in.
  std::vector<std::string> spared_tests;
  /// NVML's readings of the GPU around the tests that measure, the
  /// learner's and the reference's (gpu_state.h), one per attempt; empty
  /// when none ran on a GPU.
  nlohmann::json gpu_readings = nlohmann::json::array();
  /// Set when every attempt at those tests found the GPU throttled or
  /// shared: why, for results.json's extra_data.regrade.
  std::string regrade;
  /// The lab's leaderboard figures, from the tests that passed (lab.toml's
  /// `leaderboard`): the learner's record over the reference's, both
  /// measured in this grading. They never count for points.
  std::vector<LeaderboardEntry> leaderboard;
};

/// Where a grading's time went, phase by phase.
struct GradingPhases {
  double trusted_seconds = 0;        ///< the committed course and its trusted part (a check when built)
  double learner_build_seconds = 0;  ///< the submission's files and the sandboxed build
  /// The labs whose files the submission left as the starters: they ran the
  /// starters' programs built when the course was prepared, and were not built.
  std::vector<std::string> starter_programs;
  std::map<std::string, LabPhases> labs;  ///< by slug, for the labs that ran
};

/// Writes the phases into results.json: extra_data.phases {"trusted_part",
/// "learner_build", "starter_programs", "tests", "cache_hits", "labs": {slug: {"reference" |
/// "reference_cached", "learner", "judge", "waiting", "cache_hits",
/// "measured", "spared", "runs": [{"program", "lane", "tests", "seconds",
/// "waited", "started", "slowest": [[test, seconds]]}], "gpu"}}} in seconds, and extra_data.regrade {slug: why} for the labs
/// whose timing tests never found the GPU fair; and the labs' leaderboard
/// figures as results.json's `leaderboard` [{"name", "value", "order"}].
void add_phases(nlohmann::json& results, const GradingPhases& phases);

/// How the learner's program is run.
struct RunSettings {
  class GuardedFiles* guard = nullptr;       ///< files put back before each run
  /// The grading's turns on the GPU and its cores (gpu_turns.h), taken run
  /// by run, the tests that must be alone run apart from the others; null:
  /// the lab's programs hold LAUNCHLAB_GPU_LOCK, where it is set, for the
  /// whole lab, and the learner's tests run together.
  class GpuTurns* gpu_turns = nullptr;
  std::vector<std::string> environment;      ///< extra NAME=value for both programs
  /// Where the learner's program runs, so that it cannot reach the grader
  /// (sandbox.h); kind none runs it as a plain child.
  Sandbox sandbox;
  /// What the learner's program may read there: itself, the tests' data.
  std::vector<std::filesystem::path> learner_reads;
  /// A file that keeps the reference's transcript, test by test, between
  /// runs of the same reference program (empty: the reference runs every
  /// time). Its key is the program's content, the environment both programs
  /// get, the grader's LAUNCHLAB_* variables the tests may read and
  /// reference_identity; a test's transcript is reused once
  /// reference_runs_to_agree runs wrote alike what the judge compares, and
  /// one that differed there between two runs (a timing) is marked varying
  /// and run every time.
  std::filesystem::path reference_cache;
  /// What else the reference's transcripts depend on (the committed course's
  /// revision and private tests, Capabilities::machine).
  std::string reference_identity;
  /// Runs that must agree on a test before its cached transcript is reused:
  /// 2 when grading (the first grading runs the reference twice), 1 for a
  /// learner's re-tests.
  int reference_runs_to_agree = 1;
  /// Where this lab's time went, filled in when set.
  LabPhases* phases = nullptr;
  /// The tests' data without their sources, handed to the learner's program
  /// as LAUNCHLAB_TEST_DATA (empty: the course's own folder).
  std::filesystem::path test_data;
  /// A student edition's expectations (expectations.h): the reference's
  /// transcript made when the course was exported, read instead of running
  /// a reference program (empty: the reference program runs).
  std::filesystem::path expectations;
  /// Tests that a file of expectations cannot judge (figures measured against
  /// a reference in the same run, GPU tests exported without a GPU), and why:
  /// reported as judged by the course's grader, neither passed nor failed.
  std::map<std::string, std::string> judged_by_grader;
  /// Set where the lab's reference half runs while the learner's program is
  /// still being built: called once that half is done, it waits for the
  /// build and says whether this lab's program was built; when it was not,
  /// run_lab_tests judges nothing and returns no results (the caller says
  /// why). Unset: the learner's program is there already.
  std::function<bool()> learner_program_ready;
  /// True while the learner's program of this lab is being built and the
  /// grading has the GPU to itself: the reference's tests that measure are
  /// measured then, instead of after the learner's run.
  const std::atomic<bool>* measure_while_building = nullptr;
};

/// What the reference program of a lab recorded, run as run_lab_tests runs
/// it: its transcript's text (every run's, one after the other) and, for each
/// test it did not finish, why.
struct ReferenceRun {
  std::string text;
  std::map<std::string, std::string> why_missing;
};

/// The labs a grading covers: those of `labs` that `only_labs` names (slugs),
/// every one when it names none.
std::vector<Lab> labs_to_grade(std::vector<Lab> labs, const std::vector<std::string>& only_labs);

/// The tests whose reference transcripts differed between two runs, as the
/// file RunSettings::reference_cache names keeps them: tests that measure
/// (or read anything else that changes from run to run). None when there
/// is no such file.
std::vector<std::string> varying_reference_tests(const std::filesystem::path& reference_cache);

/// Runs the reference program of a lab over all its tests, in scratch,
/// with the environment run_lab_tests gives it (settings.environment).
ReferenceRun run_reference_program(const Lab& lab, const std::filesystem::path& program,
                                   const std::filesystem::path& scratch, const RunSettings& settings = {});

/// Runs a lab's reference program as a first grading would (twice over the
/// tests whose transcripts are not kept yet, so that they may be), with no
/// learner's program: what `launchlab grade --prepare` does once per
/// revision, so that every grading after it finds them kept. A course
/// prepared already runs only the tests its cache has yet to learn about
/// (ReferenceCache's settled). Returns the
/// tests whose transcripts are not kept, which run at every grading (they
/// measure, draw from the seed, or did not finish).
std::vector<std::string> prepare_reference_transcripts(const Lab& lab, const std::filesystem::path& program,
                                                       const std::filesystem::path& scratch,
                                                       const Capabilities& capabilities, const RunSettings& settings);

/// Runs both programs of a lab under the lab's limits in scratch/ and judges
/// every test of lab.toml (judge.h), in its order. A crash, hang, flood or
/// early exit of the learner's program costs the tests it touched, found from
/// its transcript; the others are run again without it. Never throws for the
/// programs' sake.
std::vector<TestResult> run_lab_tests(const Lab& lab, const LabPrograms& programs, const Capabilities& capabilities,
                                      const std::filesystem::path& scratch, const RunSettings& settings = {});

/// Files the grader needs intact while submissions' code runs (the test
/// programs, the tests' data), kept in memory: before each run, any that was
/// changed is put back and the change is reported. The code under test runs
/// as the grader's user, so only a copy it cannot reach is one to trust.
class GuardedFiles {
 public:
  /// Remembers the content of path (a file, or every file under a folder).
  void add(const std::filesystem::path& path);
  /// Puts back what changed since add(); returns one line per file restored.
  /// Labs run side by side call it at once.
  std::vector<std::string> restore_changed();

 private:
  std::map<std::filesystem::path, std::string> content_;
  std::mutex restoring_;
};

/// Every test of the lab scored zero for one reason (a build failure, say).
std::vector<TestResult> all_failed(const Lab& lab, const std::string& why);

/// Options for grading a submission.
struct GradeOptions {
  std::filesystem::path course_root;     ///< the course, graded as committed
  std::filesystem::path submission;      ///< a folder with the student files
  std::filesystem::path work_dir;        ///< this grading's folder, emptied first (only a new, empty or grader-made one)
  /// Where the committed course is exported and its trusted part built, kept
  /// between gradings of the same revision (empty: inside work_dir).
  std::filesystem::path trusted_dir;
  Sandbox sandbox;                       ///< where submitted code is built and run (sandbox.h)
  std::vector<std::string> only_labs;    ///< slugs; empty grades every lab
  std::vector<std::string> cmake_args;   ///< extra -D options for the graded tree
  int build_timeout_seconds = 900;
  std::optional<int> test_timeout_seconds;  ///< overrides every lab's per-test limit
  /// Private tests merged in at grade time, never in the student's tree:
  /// <dir>/<slug>/*.cpp are added to the lab's tests, <dir>/<slug>/tests.toml
  /// gives their [[tests]] with points.
  std::filesystem::path private_tests;
  /// Handed to the test programs as LAUNCHLAB_SEED (testing.h's secret_seed()),
  /// so that randomized inputs differ from what the learner saw.
  std::string seed;
  bool verbose = true;                   ///< progress on stderr
  GradingPhases* phases = nullptr;       ///< where the time went, filled in when set
};

/// Builds the committed course's trusted part in trusted_dir, then the
/// submission's student files in work_dir (in the sandbox), and runs and
/// judges each lab's two programs.
/// Problems of the submission become results; it throws only when the
/// course itself is broken (no labs, an unreadable lab.toml).
std::vector<LabResult> grade_submission(const GradeOptions& options, const Capabilities& capabilities);

/// What `launchlab grade --prepare` made ready of one lab.
struct PreparedLab {
  std::string slug;
  std::string problem;  ///< the course's: its trusted part did not build (empty: ready)
  int kept = 0;         ///< tests whose reference transcripts are kept
  std::vector<std::string> run_every_time;  ///< tests that measure or draw from the seed
};

/// Builds the committed course's trusted part in trusted_dir and keeps each
/// graded lab's reference transcripts there, as grade_submission's first
/// grading of a revision would, without a submission: an image, Gradescope's
/// setup or grade-class prepares once, and every grading after it builds
/// and runs only the learner's part. Throws as grade_submission does.
std::vector<PreparedLab> prepare_course(const GradeOptions& options, const Capabilities& capabilities);

/// The score table a person reads.
void print_score_table(std::ostream& out, const std::vector<LabResult>& labs, const Capabilities& capabilities);

/// How results.json shows the tests.
struct ReportSettings {
  /// Gradescope's visibility for private tests: hidden, after_due_date,
  /// after_published or visible.
  std::string private_visibility = "hidden";
};

/// Bounds on what results.json says, so that its size has a bound: each
/// test's output, and the score table.
inline constexpr std::size_t kTestOutputLimit = 8u << 10;
inline constexpr std::size_t kSummaryLimit = 64u << 10;

/// Gradescope's results.json (output_format md, each test tagged with its
/// lab): every text in it valid UTF-8 and each learner text inside a fenced
/// block it cannot close.
nlohmann::json results_json(const std::vector<LabResult>& labs, const Capabilities& capabilities, double seconds,
                            const ReportSettings& settings = {});

/// results.json's text for when results_json() or its dump failed: each lab
/// graded so far with its score, none of the tests' messages (whatever made
/// the report fail may be in one), and what failed. Never throws but for
/// memory.
std::string last_resort_results(const std::vector<LabResult>& labs, const std::string& what);

/// Writes text to path atomically (a temporary file, then a rename).
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

/// True when every test that could run here passed and every lab built.
bool full_marks(const std::vector<LabResult>& labs);

}  // namespace launchlab::grader
