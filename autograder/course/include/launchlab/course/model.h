/// @file
/// The course model: what each lab.toml (and a private overlay's tests.toml)
/// says, read once, through toml++, and checked against the rules of
/// docs/authoring.md. The grader, the launchlab program, its linter and the
/// build (through the facts this model writes when the course is configured)
/// all learn about the labs here and nowhere else.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::course {

/// Whether name is a lab's slug: two digits, an underscore, and lowercase
/// words joined by single underscores ("04_param_buffer"). The chapter
/// number, the folder names, the targets and the CTest labels derive from it.
bool is_slug(std::string_view name);

/// One graded test of a lab, as lab.toml declares it.
/// A measured figure a test records, shown on Gradescope's leaderboard and
/// the class's: the learner's value over the reference's from the same
/// grading. It never counts for points: the learner's program wrote it.
struct LeaderboardFigure {
  std::string name;    ///< the column's title ("launch latency, yours / reference")
  std::string record;  ///< the expression of the test's record that holds it, as written (`pair.first`)
  bool ascending = true;  ///< lower is better (Gradescope's order "asc"), as for a time
};

struct LabTest {
  std::string name;                ///< GoogleTest's Suite.Name
  int points = 0;
  std::vector<std::string> needs;  ///< "gpu", "cuobjdump", "nvdisasm", "ncu", "compute-sanitizer", "open-gpu-doc"
  bool is_private = false;         ///< from an instructor's private tests: hidden from students
  /// The compute-sanitizer tools ("memcheck", "racecheck", ...) this test's
  /// program also runs under once it passes: the test's own `sanitize`, else
  /// the lab's for a test that needs a GPU. Each is a graded check of its own
  /// (SanitizerCheck).
  std::vector<std::string> sanitize;
  /// The hint that helps with this test: its number in the lab's hints,
  /// counted from 1 as `launchlab hint` shows them (lab.toml's `hint = N`);
  /// 0 when the test names none.
  int hint = 0;
  /// The test records a measurement (a time, a rate) that differs from run
  /// to run (lab.toml's `measures = true`): the grader runs the reference's
  /// half of it at every grading instead of keeping it, and runs it alone
  /// unless `alone` says otherwise.
  bool measures = false;
  /// Whether the grader runs it with nothing else of the grading beside it
  /// on the GPU (lab.toml's `alone`); unset, a test that measures does and
  /// any other does not. `alone = true` is for a test that takes what other
  /// runs need (all of the GPU's memory, say) without measuring anything; its
  /// reference's transcript is kept like any other's. `alone = false` is for
  /// a test that measures but whose checks hold whatever else runs on the
  /// GPU (one-sided bounds, figures of one process against each other, as in
  /// lab 05's cold starts): it shares the GPU and the cores like a test that
  /// measures nothing.
  std::optional<bool> alone;
  /// The figure this test puts on the leaderboard (lab.toml's `leaderboard`
  /// table); only a test that measures has one.
  std::optional<LeaderboardFigure> leaderboard;

  bool needs_gpu() const;
  /// Whether the grader runs it with nothing else of the grading beside it
  /// on the GPU: it says so, or it measures and does not say otherwise.
  bool runs_alone() const { return alone.value_or(measures); }
  /// Whether its figures are measured with the GPU to itself: the run gets
  /// the cores kept for measuring, and the GPU's state is read around it
  /// (fair timing).
  bool measures_alone() const { return measures && runs_alone(); }
};

/// One test run again under one compute-sanitizer tool: graded on its own,
/// after the test it checks, as "Suite.Name [tool]".
struct SanitizerCheck {
  std::string test;  ///< the test's Suite.Name
  std::string tool;  ///< "memcheck", "racecheck", "initcheck" or "synccheck"
  int points = 0;
  bool is_private = false;  ///< the test's

  std::string name() const { return test + " [" + tool + "]"; }
};

/// The tools a lab.toml may name in `sanitize`: compute-sanitizer's --tool values.
const std::vector<std::string>& known_sanitizer_tools();

/// What a lab says to the learner in prose, in one language: its title,
/// summary and hints. Code, names and numbers inside them stay as written.
struct LabText {
  std::string title;
  std::string summary;
  std::vector<std::string> hints;  ///< in the order of the lab's hints
};

/// The language a locale or LAUNCHLAB_LANG value names, as the course spells
/// it: "pt_BR.UTF-8", "pt_BR" or "pt" is "pt_BR", anything starting "zh" is
/// "zh_CN"; any other value, English included, is "" (English).
std::string course_language(std::string_view locale);

/// How much of a lab's tests need a GPU.
enum class GpuNeed { none, partly, all };

/// The word the chapter tables use: "no", "partly", "yes".
std::string_view to_string(GpuNeed need);

/// One lab: labs/<slug>/ and its lab.toml.
struct Lab {
  std::string slug;                         ///< "01_compile_pipeline"
  int chapter = -1;                         ///< 1, from the slug
  std::string title;
  std::string summary;                      ///< what the learner builds, one line (the chapter tables)
  std::vector<std::string> student_files;   ///< relative to labs/<slug>/
  std::vector<std::string> hints;           ///< from a nudge to a near-answer
  std::vector<LabTest> tests;               ///< in lab.toml's order
  int timeout_seconds = 120;                ///< for one run of the test program
  int test_timeout_seconds = 60;            ///< for one test inside that run
  /// How many times the tests that measure on the GPU are run while it is
  /// throttled or shared, before the lab is flagged for a regrade.
  int timing_attempts = 3;
  /// The lab's `sanitize`: the tools its GPU tests run under unless a test names its own.
  std::vector<std::string> sanitize;
  int sanitize_points = 1;                  ///< points of each SanitizerCheck
  /// lab.toml's [translations.LANGUAGE] tables by language ("pt_BR"): the
  /// prose in that language. A part a table leaves out is read as "" (or no
  /// hints); the linter names what a language of docs/locale lacks.
  std::map<std::string, LabText> translations;

  int max_points() const;                   ///< the tests' and the sanitizer checks' points
  /// Every test's checks under its sanitize tools, in the tests' order.
  std::vector<SanitizerCheck> sanitizer_checks() const;
  std::string number() const { return slug.substr(0, 2); }
  std::string test_binary_name() const { return "test_" + slug; }           ///< the learner's program
  std::string reference_binary_name() const { return "reference_" + slug; } ///< the solutions' reference program
  GpuNeed gpu_need() const;
  /// The prose in language (course_language's spelling; "" is English):
  /// each part its translation has, the English for the rest. Hints are
  /// taken from the translation only when it has one for each hint, so
  /// that hint N is always the English hint N.
  LabText text_in(const std::string& language) const;
  /// The text of the hint a test names; nothing when it names none.
  std::optional<std::string> hint_for(const LabTest& test) const;
};

/// What is wrong with how a lab's tests name its hints, which the linter
/// reports (the reader already refuses a number that is not a hint's): a
/// test that names none, and a hint that no test names. After a failure the
/// learner is shown the hint of the first failing test, so every test needs
/// one and every hint should be reachable that way.
std::vector<std::string> hint_problems(const Lab& lab);

/// The languages the course is translated into: the folders of
/// root/docs/locale ("pt_BR", "zh_CN"), sorted; none without that folder.
std::vector<std::string> course_languages(const std::filesystem::path& root);

/// What the lab lacks to speak each of languages, which the linter reports:
/// a [translations.LANGUAGE] table that is missing, that has no title, no
/// summary (when the lab has one), or not one translation for each hint.
std::vector<std::string> translation_problems(const Lab& lab, const std::vector<std::string>& languages);

/// The requirement names a test may list in needs.
const std::vector<std::string>& known_needs();

/// A lab.toml or tests.toml that breaks a rule. what() reads
/// "FILE:LINE: what is wrong", or "FILE: what is wrong" where no line applies
/// (a key that is missing from the top of the file, a folder's name).
class CourseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Reads labs/<slug>/lab.toml. Throws CourseError.
Lab load_lab(const std::filesystem::path& lab_dir);

/// Reads a private overlay's tests.toml (only [[tests]] tables), marked
/// private; their names must be new to already, the lab's own tests; a GPU
/// test without a sanitize of its own takes lab_sanitize (the lab's). Throws
/// CourseError.
std::vector<LabTest> read_private_tests(const std::filesystem::path& tests_toml, const std::vector<LabTest>& already,
                                        const std::vector<std::string>& lab_sanitize = {});

/// Every lab under root/labs that reads cleanly, in slug order, and one
/// message for each folder that does not.
struct Course {
  std::vector<Lab> labs;
  std::vector<std::string> problems;
};

/// The labs are the folders of root/labs that hold a lab.toml; a folder whose
/// name starts like a slug must be one.
Course read_course(const std::filesystem::path& root);

/// read_course(), for those who need every lab: throws CourseError with all
/// the problems when there is any.
std::vector<Lab> load_course(const std::filesystem::path& root);

/// The lab a learner means by "01", "1" or "01_compile_pipeline"; nothing
/// when no lab matches.
std::optional<Lab> find_lab(const std::vector<Lab>& labs, std::string_view which);

/// The facts the build needs, as JSON (what the course's CMake reads with
/// string(JSON)): {"slugs": [...], "labs": {slug: {"number", "title",
/// "summary", "gpu", "student_files", "tests": [{"name", "points", "needs"}],
/// "timeout_seconds", "test_timeout_seconds"}}}.
std::string facts_json(const std::vector<Lab>& labs);

}  // namespace launchlab::course
