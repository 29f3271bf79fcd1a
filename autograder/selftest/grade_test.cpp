// Whole gradings through the launchlab program, as an instructor runs them.
//
// The fixture course (fixture_course/: two tiny labs) is made whole at test
// time with the course's own build files and test support, and committed, so
// that the grader takes it, builds it and judges it exactly as it does the
// real course: the trusted part from the committed solutions and tests, the
// learner's part from a submission. Every fixture grading shares one
// LAUNCHLAB_BUILD_DIR, so the trusted part (<build>/graded-course) is built
// once and reused, as between the gradings of a class. Then the real
// course's lab 00: its solutions and its starters.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "launchlab/cli/progress.h"
#include "fixture_course.h"
#include "launchlab/grader/process.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace launchlab::grader;
using namespace launchlab::selftest;

namespace {

/// Kept between runs, like an instructor's build folder: the trusted parts
/// built there are rebuilt only where the committed course changed.
const fs::path kFixtureBuild = fs::path(LAUNCHLAB_SELFTEST_BUILD_DIR) / "fixture-grading";
const fs::path kCourseBuild = fs::path(LAUNCHLAB_SELFTEST_BUILD_DIR) / "course-grading";

/// A member of a JSON object, or the fallback when there is no such member.
template <class T>
T member(const json& object, const char* key, T fallback) {
  if (!object.is_object() || !object.contains(key)) return fallback;
  return object.at(key).get<T>();
}

/// One grading's results.json and what the launchlab program said.
struct Graded {
  RunOutcome run;
  json results;

  /// The test named Suite.Name (whatever its lab and its "not graded here").
  const json& test(const std::string& name) const {
    static const json missing;
    if (auto tests = results.find("tests"); tests != results.end() && tests->is_array()) {
      for (const auto& test : *tests) {
        std::string bare = test.value("name", "");
        if (auto colon = bare.find(": "); colon != std::string::npos) bare.erase(0, colon + 2);
        if (const std::string aside = " (not graded here)"; bare.ends_with(aside)) bare.resize(bare.size() - aside.size());
        if (bare == name) return test;
      }
    }
    ADD_FAILURE() << "results.json has no test " << name;
    return missing;
  }
  int score(const std::string& name) const { return member(test(name), "score", -1); }
  int max_score(const std::string& name) const { return member(test(name), "max_score", -1); }
  std::string output(const std::string& name) const { return member(test(name), "output", std::string()); }
  std::string outcome(const std::string& name) const {
    const json& found = test(name);
    return found.contains("extra_data") ? found.at("extra_data").value("outcome", "") : "";
  }
  int total() const { return results.is_object() ? results.value("score", -1) : -1; }
  std::string summary() const { return results.is_object() ? results.value("output", "") : ""; }
  bool gpu_here() const {
    return results.contains("extra_data") && !results.at("extra_data").value("gpu", json()).is_null();
  }
};

/// Grades a submission of a course with the launchlab program, as
/// `LAUNCHLAB_ROOT=course LAUNCHLAB_BUILD_DIR=build launchlab grade ...`.
Graded grade(const fs::path& course, const fs::path& build, const fs::path& submission, const fs::path& work,
             const fs::path& json_path, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {LAUNCHLAB_CLI, "grade", "--submission", submission.string(),
                                   "--work", work.string(), "--json", json_path.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  RunLimits limits;
  limits.timeout = std::chrono::minutes(14);
  limits.output_limit = 64u << 20;
  Graded graded{run_limited(argv, {}, {"LAUNCHLAB_ROOT=" + course.string(), "LAUNCHLAB_BUILD_DIR=" + build.string()},
                            limits),
                json()};
  if (!fs::exists(json_path)) {
    ADD_FAILURE() << "no results.json was written; the grader said:\n" << graded.run.output;
    return graded;
  }
  graded.results = json::parse(read_text(json_path), nullptr, false);
  if (!graded.results.is_object()) ADD_FAILURE() << "results.json is not a JSON object:\n" << read_text(json_path);
  return graded;
}

/// Every file below dir whose text holds `needle`.
std::vector<std::string> files_holding(const fs::path& dir, const std::string& needle) {
  std::vector<std::string> found;
  if (!fs::is_directory(dir)) return found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && read_text(entry.path()).find(needle) != std::string::npos) found.push_back(entry.path().string());
  }
  return found;
}

class FixtureGrading : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    course_ = new fs::path(fresh_temp_dir("fixture-course"));
    compose_fixture_course(*course_);
    commit_all(*course_, "the fixture course");
  }
  static void TearDownTestSuite() {
    fs::remove_all(*course_);
    delete course_;
  }
  void TearDown() override {
    for (const auto& dir : scratch_) {
      // A test may have left an unreadable file behind.
      std::error_code ignored;
      for (const auto& entry : fs::recursive_directory_iterator(dir, ignored)) {
        if (!entry.is_symlink()) fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add, ignored);
      }
      fs::remove_all(dir, ignored);
    }
  }

  /// A folder of this test's own, removed when it ends.
  fs::path scratch(const std::string& tag) {
    scratch_.push_back(fresh_temp_dir(tag));
    return scratch_.back();
  }

  /// Private tests of 01_beta in a new scratch folder: `toml` as its
  /// tests.toml, and one test file of `includes` (#include lines) and
  /// `tests` (in beta's namespace, with launchlab/record.h and stats.h).
  fs::path beta_private_tests(const std::string& tag, const std::string& toml, const std::string& includes,
                              const std::string& tests) {
    const fs::path folder = scratch(tag);
    write_text(folder / "01_beta" / "tests.toml", toml);
    write_text(folder / "01_beta" / (tag + "_test.cpp"), includes + "\n#include \"launchlab/record.h\"\n#include \"stats.h\"\n\n"
                                                       "namespace beta {\nnamespace {\n\n" + tests +
                                                       "\n}  // namespace\n}  // namespace beta\n");
    return folder;
  }

  /// Grades a submission of the fixture course (or of another course sharing
  /// its build folder) in a new --work folder, results.json beside it.
  Graded grade_fixture(const fs::path& submission, const std::vector<std::string>& extra = {},
                       const fs::path& course = {}) {
    const fs::path dir = scratch("grading");
    last_work_ = dir / "work";
    return grade(course.empty() ? *course_ : course, kFixtureBuild, submission, last_work_, dir / "results.json", extra);
  }
  Graded grade_named(const std::string& name, const std::vector<std::string>& extra = {}) {
    return grade_fixture(kSelftest / "submissions" / name, extra);
  }

  /// The fixture's solutions, laid out as a submission (<slug>/<file>).
  static fs::path solutions() { return kFixture / "solutions"; }

  static fs::path* course_;
  std::vector<fs::path> scratch_;
  fs::path last_work_;
};
fs::path* FixtureGrading::course_ = nullptr;

constexpr int kFixtureCpuPoints = 17;  // 00_alpha's 12 and 01_beta's 5; Alpha.RunsOnTheGpu adds 4 on a GPU

}  // namespace

TEST_F(FixtureGrading, FullMarksFollowGradescopesSchema) {
  Graded graded = grade_fixture(solutions());
  ASSERT_TRUE(graded.results.is_object()) << graded.run.output;
  EXPECT_EQ(graded.run.exit_code, 0) << graded.run.output;
  EXPECT_EQ(graded.total(), graded.gpu_here() ? kFixtureCpuPoints + 4 : kFixtureCpuPoints) << graded.run.output;
  EXPECT_EQ(graded.results.value("output_format", ""), "md");
  ASSERT_EQ(graded.results["tests"].size(), 8u);
  for (const auto& test : graded.results["tests"]) {
    const std::string name = test.value("name", "");
    for (const char* key : {"name", "score", "max_score", "output", "visibility", "status", "tags", "output_format"}) {
      EXPECT_TRUE(test.contains(key)) << name << " lacks " << key;
    }
    EXPECT_EQ(test.value("status", ""), "passed") << name << ": " << test.value("output", "");
    EXPECT_EQ(test.value("visibility", ""), "visible") << name;
    EXPECT_EQ(test.value("output_format", ""), "md") << name;
    const std::string lab = name.substr(0, name.find(':'));
    EXPECT_EQ(test.value("tags", json()), json::array({lab})) << name << ": each test is tagged with its lab";
  }
  EXPECT_EQ(graded.score("Alpha.AddsLargeNumbers"), 5);
  EXPECT_EQ(graded.score("Beta.RefusesAnEmptyList"), 1);
  EXPECT_NE(graded.run.output.find("Score: "), std::string::npos) << graded.run.output;
  EXPECT_NE(graded.run.output.find("launchlab grade: the student files of " + solutions().string() + "\n"), std::string::npos)
      << "grade names where it took the files from:\n" << graded.run.output;
}

TEST_F(FixtureGrading, GpuTestsWithoutAGpuAreNotGradedRatherThanFailed) {
  Graded graded = grade_fixture(solutions(), {"--labs", "00"});
  if (graded.gpu_here()) GTEST_SKIP() << "a GPU is here, so the GPU test was graded";
  const json& gpu_test = graded.test("Alpha.RunsOnTheGpu");
  EXPECT_NE(gpu_test.value("name", "").find("(not graded here)"), std::string::npos) << gpu_test.dump(2);
  EXPECT_EQ(gpu_test.value("score", -1), 0);
  EXPECT_EQ(gpu_test.value("max_score", -1), 0) << "a test not graded here must not count against the learner";
  EXPECT_NE(gpu_test.value("status", ""), "failed");
  EXPECT_EQ(gpu_test.at("extra_data").value("points_if_graded", -1), 4);
  EXPECT_EQ(gpu_test.at("extra_data").value("outcome", ""), "needs a GPU");
  EXPECT_NE(gpu_test.value("output", "").find("needs a GPU"), std::string::npos);
  EXPECT_EQ(graded.results.at("extra_data").value("not_gradable_points", -1), 4);
  EXPECT_EQ(graded.run.exit_code, 0) << "what could run here had full marks:\n" << graded.run.output;
  EXPECT_NE(graded.run.output.find("NOT graded here"), std::string::npos) << graded.run.output;
}

TEST_F(FixtureGrading, ThePristineStarterScoresLessAndExitsNonZero) {
  Graded graded = grade_named("missing_file");
  EXPECT_EQ(graded.run.exit_code, 1);
  EXPECT_EQ(graded.total(), 0) << graded.run.output;
  EXPECT_EQ(graded.test("Alpha.AddsSmallNumbers").value("status", ""), "failed");
  EXPECT_NE(graded.output("Alpha.AddsSmallNumbers").find("expected 5, got 0"), std::string::npos)
      << graded.output("Alpha.AddsSmallNumbers");
  EXPECT_NE(graded.summary().find("alpha.cpp is not in the submission"), std::string::npos) << graded.summary();
  // Only a passed test's figure goes on the leaderboard.
  EXPECT_FALSE(graded.results.contains("leaderboard")) << graded.results.dump(2);
}

TEST_F(FixtureGrading, AnUncommittedEditOfTheCourseIsNotUsed) {
  // A revision of its own, so that the grader exports it afresh rather than
  // reusing what another test exported.
  const fs::path course = scratch("edited-course");
  compose_fixture_course(course);
  write_text(course / "NOTES.md", "An instructor's notes, committed with the course.\n");
  commit_all(course, "the fixture course, with notes");
  // Then edits that would each change the grade if the working tree were used.
  fs::copy_file(kFixture / "solutions" / "00_alpha" / "alpha.cpp", course / "labs" / "00_alpha" / "alpha.cpp",
                fs::copy_options::overwrite_existing);
  const fs::path tests = course / "autograder" / "tests" / "00_alpha";
  write_text(tests / "alpha_test.cpp", read_text(tests / "alpha_test.cpp") + "\n#error an uncommitted edit\n");
  write_text(tests / "untracked_test.cpp", "#error an untracked test\n");
  std::string toml = read_text(course / "labs" / "00_alpha" / "lab.toml");
  toml.replace(toml.find("points = 2"), 10, "points = 200");
  write_text(course / "labs" / "00_alpha" / "lab.toml", toml);

  Graded graded = grade_fixture(kSelftest / "submissions" / "missing_file", {"--labs", "00"}, course);
  EXPECT_EQ(graded.outcome("Alpha.AddsSmallNumbers"), "failed") << graded.output("Alpha.AddsSmallNumbers");
  EXPECT_EQ(graded.max_score("Alpha.AddsSmallNumbers"), 2) << "lab.toml came from the working tree";
  EXPECT_NE(graded.output("Alpha.AddsSmallNumbers").find("expected 5, got 0"), std::string::npos)
      << "the starter came from the working tree:\n" << graded.output("Alpha.AddsSmallNumbers");
  EXPECT_EQ(graded.outcome("Alpha.AddsNegativeNumbers"), "failed") << "the tests came from the working tree";
  EXPECT_EQ(graded.run.output.find("uncommitted edit"), std::string::npos) << graded.run.output;
  EXPECT_EQ(graded.run.output.find("untracked test"), std::string::npos) << graded.run.output;
  EXPECT_EQ(graded.run.exit_code, 1);
}

TEST_F(FixtureGrading, EachNewCommitOfTheCourseIsBuiltWhateverItsDate) {
  // git archive dates every file by its commit. An instructor commits a
  // mistake in a solution, grades, then goes back to an older commit (a tag,
  // a revert dated before it): the trusted part must follow both times,
  // though the files the second time are older than what was built.
  const fs::path course = scratch("course-history");
  compose_fixture_course(course);
  const fs::path solution = course / "solutions" / "00_alpha" / "alpha.cpp";
  const std::string right = read_text(solution);
  std::string wrong = right;
  wrong.replace(wrong.find("a + b"), 5, "a + b + 1");
  write_text(solution, wrong);
  commit_all(course, "a mistake in a solution", "2025-01-03T00:00:00Z");
  Graded mistaken = grade_fixture(kSelftest / "submissions" / "missing_file", {"--labs", "00"}, course);
  EXPECT_EQ(mistaken.outcome("Alpha.AddsSmallNumbers"), "not graded") << "the mistaken solution was not built";
  EXPECT_NE(mistaken.output("Alpha.AddsSmallNumbers").find("reference fails this test"), std::string::npos)
      << mistaken.output("Alpha.AddsSmallNumbers");

  write_text(solution, right);
  commit_all(course, "the solution as it was", "2025-01-02T00:00:00Z");
  Graded mended = grade_fixture(solutions(), {"--labs", "00"}, course);
  EXPECT_EQ(mended.outcome("Alpha.AddsSmallNumbers"), "passed") << "the mended solution was not built:\n"
                                                                 << mended.output("Alpha.AddsSmallNumbers");
}

TEST_F(FixtureGrading, ACompileErrorScoresZeroAndSaysWhy) {
  Graded graded = grade_named("compile_error", {"--labs", "00"});
  EXPECT_EQ(graded.run.exit_code, 1);
  EXPECT_EQ(graded.total(), 0);
  std::string output = graded.output("Alpha.AddsSmallNumbers");
  EXPECT_NE(output.find("did not compile"), std::string::npos) << output;
  EXPECT_NE(output.find("undeclared_name"), std::string::npos) << output;
  EXPECT_NE(output.find("labs/00_alpha/alpha.cpp"), std::string::npos) << output;
  EXPECT_EQ(output.find(last_work_.string()), std::string::npos) << "the grader's own paths are shown:\n" << output;

  // Every lab is built in one call that goes on past a failure: the lab that
  // compiles is run and judged, and only the other's messages are its own.
  Graded both = grade_named("compile_error");
  EXPECT_NE(both.output("Alpha.AddsSmallNumbers").find("undeclared_name"), std::string::npos)
      << both.output("Alpha.AddsSmallNumbers");
  for (const char* name : {"Beta.FindsTheLargest", "Beta.RefusesAnEmptyList"}) {
    EXPECT_EQ(both.outcome(name), "failed") << name << ": " << both.output(name);
    EXPECT_EQ(both.output(name).find("did not compile"), std::string::npos) << name << ": " << both.output(name);
  }
}

TEST_F(FixtureGrading, ACrashAHangAndAFloodCostOnlyTheirOwnTests) {
  // The submission misbehaves in add() alone; its total() is the solution's.
  const fs::path submission = scratch("misbehaving");
  fs::copy(kSelftest / "submissions" / "misbehaving", submission, fs::copy_options::recursive);
  fs::copy_file(kFixture / "solutions" / "00_alpha" / "stats.cpp", submission / "labs" / "00_alpha" / "stats.cpp");
  Graded graded = grade_fixture(submission, {"--labs", "00"});

  EXPECT_EQ(graded.score("Alpha.AddsSmallNumbers"), 0);
  EXPECT_NE(graded.output("Alpha.AddsSmallNumbers").find("signal 11"), std::string::npos)
      << graded.output("Alpha.AddsSmallNumbers");
  EXPECT_EQ(graded.score("Alpha.AddsNegativeNumbers"), 0);
  EXPECT_NE(graded.output("Alpha.AddsNegativeNumbers").find("longer than the 5 s"), std::string::npos)
      << graded.output("Alpha.AddsNegativeNumbers");
  EXPECT_EQ(graded.score("Alpha.AddsLargeNumbers"), 0);
  EXPECT_NE(graded.output("Alpha.AddsLargeNumbers").find("MiB of output"), std::string::npos)
      << graded.output("Alpha.AddsLargeNumbers");
  EXPECT_LT(graded.output("Alpha.AddsLargeNumbers").size(), 20000u);
  EXPECT_EQ(graded.score("AlphaStats.TotalsAList"), 2) << graded.output("AlphaStats.TotalsAList");
  if (graded.gpu_here()) EXPECT_EQ(graded.score("Alpha.RunsOnTheGpu"), 4) << graded.output("Alpha.RunsOnTheGpu");
  EXPECT_EQ(graded.run.exit_code, 1);
}

TEST_F(FixtureGrading, ExitBeforeMainScoresZero) {
  Graded graded = grade_named("exit_before_main", {"--labs", "00"});
  EXPECT_EQ(graded.total(), 0);
  std::string output = graded.output("Alpha.AddsSmallNumbers");
  EXPECT_NE(output.find("exited with status 0 before any test started"), std::string::npos) << output;
  EXPECT_EQ(graded.run.exit_code, 1);
}

TEST_F(FixtureGrading, AStudentFileThatIsALinkIsRefused) {
  // A link to the right answer, and a lab folder that links to one.
  const fs::path submission = scratch("links");
  fs::create_directories(submission / "labs" / "00_alpha");
  fs::create_symlink(kFixture / "solutions" / "00_alpha" / "alpha.cpp", submission / "labs" / "00_alpha" / "alpha.cpp");
  fs::create_directory_symlink(kFixture / "solutions" / "01_beta", submission / "labs" / "01_beta");
  Graded graded = grade_fixture(submission);
  EXPECT_NE(graded.summary().find("alpha.cpp is a symbolic link"), std::string::npos) << graded.summary();
  EXPECT_NE(graded.summary().find("stats.cpp is a symbolic link"), std::string::npos) << graded.summary();
  EXPECT_EQ(graded.score("Alpha.AddsSmallNumbers"), 0) << "a linked file was followed";
  EXPECT_EQ(graded.score("Beta.FindsTheLargest"), 0) << "a linked folder was followed";
}

TEST_F(FixtureGrading, ALoneUploadedFileIsFoundByItsNameUnlessTwoLabsShareIt) {
  // Gradescope's layout: the files alone. alpha.cpp belongs to 00_alpha
  // only; both labs have a stats.cpp.
  const fs::path submission = scratch("flat");
  fs::copy_file(kFixture / "solutions" / "00_alpha" / "alpha.cpp", submission / "alpha.cpp");
  fs::copy_file(kFixture / "solutions" / "01_beta" / "stats.cpp", submission / "stats.cpp");
  Graded graded = grade_fixture(submission);
  EXPECT_EQ(graded.score("Alpha.AddsLargeNumbers"), 5) << graded.output("Alpha.AddsLargeNumbers");
  EXPECT_EQ(graded.score("AlphaStats.TotalsAList"), 0) << "the shared name was given to 00_alpha";
  EXPECT_EQ(graded.score("Beta.FindsTheLargest"), 0) << "the shared name was given to 01_beta";
  EXPECT_NE(graded.summary().find("stats.cpp is at the top of the submission, but labs 00_alpha, 01_beta all have a "
                                  "file of that name: put it in 01_beta/stats.cpp"),
            std::string::npos)
      << graded.summary();
}

TEST_F(FixtureGrading, AnOddOrUnreadableStudentFileAffectsOnlyItsOwnLab) {
  const fs::path submission = scratch("odd");
  fs::create_directories(submission / "labs" / "00_alpha");
  // A named pipe: opening it would wait for a writer forever.
  ASSERT_EQ(mkfifo((submission / "labs" / "00_alpha" / "alpha.cpp").c_str(), 0644), 0);
  const fs::path unreadable = submission / "labs" / "00_alpha" / "stats.cpp";
  fs::copy_file(kFixture / "solutions" / "00_alpha" / "stats.cpp", unreadable);
  fs::permissions(unreadable, fs::perms::none);
  // Permissions do not stop root, the grader's user in some containers.
  const bool unreadable_here = access(unreadable.c_str(), R_OK) != 0;
  fs::create_directories(submission / "labs" / "01_beta");
  fs::copy_file(kFixture / "solutions" / "01_beta" / "stats.cpp", submission / "labs" / "01_beta" / "stats.cpp");

  Graded graded = grade_fixture(submission);
  EXPECT_NE(graded.summary().find("alpha.cpp is not a regular file"), std::string::npos) << graded.summary();
  EXPECT_EQ(graded.score("Alpha.AddsSmallNumbers"), 0);
  if (unreadable_here) {
    EXPECT_NE(graded.summary().find("stats.cpp cannot be read"), std::string::npos) << graded.summary();
    EXPECT_EQ(graded.score("AlphaStats.TotalsAList"), 0);
  } else {
    std::cout << "[ NOTE ] running as root: the unreadable file could be read, so only the odd one was tried\n";
  }
  EXPECT_EQ(graded.score("Beta.FindsTheLargest"), 3) << graded.output("Beta.FindsTheLargest");
  EXPECT_EQ(graded.score("Beta.RefusesAnEmptyList"), 1) << graded.output("Beta.RefusesAnEmptyList");
}

TEST_F(FixtureGrading, PrivateTestsJoinHiddenAndTheirMistakesCostTheLearnerNothing) {
  // private_tests/00_alpha: a test on the secret seed, and one that records
  // nothing; private_tests/01_beta: a test that does not compile.
  Graded graded = grade_fixture(solutions(), {"--private-tests", (kSelftest / "private_tests").string(), "--seed", "12345"});

  const json& seeded = graded.test("AlphaPrivate.AddsNumbersFromTheSecretSeed");
  EXPECT_EQ(seeded.value("score", -1), 6) << seeded.value("output", "");
  EXPECT_EQ(seeded.value("visibility", ""), "hidden");
  EXPECT_EQ(graded.test("Alpha.AddsSmallNumbers").value("visibility", ""), "visible");

  // A test that records nothing decides inside the learner's program: the
  // judge cannot use it.
  EXPECT_EQ(graded.outcome("AlphaPrivate.DecidesInsideTheProgram"), "not graded");
  EXPECT_EQ(graded.max_score("AlphaPrivate.DecidesInsideTheProgram"), 0);
  EXPECT_NE(graded.output("AlphaPrivate.DecidesInsideTheProgram").find("records nothing"), std::string::npos)
      << graded.output("AlphaPrivate.DecidesInsideTheProgram");

  // 01_beta's trusted part did not build: none of its tests is graded, and
  // the learner reads nothing of the instructor's mistake.
  for (const char* name : {"Beta.FindsTheLargest", "Beta.RefusesAnEmptyList", "Beta.TimesTheLargest",
                           "BetaPrivate.FindsTheLargestOfMany"}) {
    EXPECT_EQ(graded.outcome(name), "not graded") << name;
    EXPECT_EQ(graded.max_score(name), 0) << name;
    EXPECT_NE(graded.output(name).find("costs you nothing"), std::string::npos) << name << ": " << graded.output(name);
  }
  const std::string shown = graded.results.dump();
  for (const char* secret : {"beta_private_test", "instructors_undeclared_name", "private_tests"}) {
    EXPECT_EQ(shown.find(secret), std::string::npos) << "results.json shows " << secret << ":\n" << shown;
  }
  EXPECT_NE(graded.run.output.find("instructors_undeclared_name"), std::string::npos)
      << "the instructor is not told what is wrong:\n" << graded.run.output;
  EXPECT_EQ(graded.run.exit_code, 0) << "the learner lost points to the instructor's mistake:\n" << graded.run.output;
  EXPECT_EQ(graded.total(), (graded.gpu_here() ? 16 : 12) + 6);
  // The score table keeps the two kinds of points it could not grade apart.
  EXPECT_NE(graded.summary().find("8 more points could not be judged here"), std::string::npos) << graded.summary();
  if (!graded.gpu_here()) {
    EXPECT_NE(graded.summary().find("4 more points were NOT graded here"), std::string::npos) << graded.summary();
  }

  // The private tests' sources never reach the learner's side, nor the course's tree.
  EXPECT_EQ(files_holding(last_work_, "AddsNumbersFromTheSecretSeed) {"), std::vector<std::string>{});
  EXPECT_EQ(files_holding(*course_, "AddsNumbersFromTheSecretSeed) {"), std::vector<std::string>{});

  // And they leave with their grading.
  Graded without = grade_fixture(solutions());
  EXPECT_EQ(without.results["tests"].size(), 8u) << "a private test stayed after its grading";
  EXPECT_EQ(without.total(), graded.gpu_here() ? kFixtureCpuPoints + 4 : kFixtureCpuPoints);
}

TEST_F(FixtureGrading, AForgedTranscriptPassesNoTestItDidNotSolve) {
  // The submission writes right values to the transcript and returns wrong
  // ones: a whole test before main, a record outside any test, a record
  // ahead of the real one, and an early end with the right records.
  Graded graded = grade_named("forged_transcript", {"--labs", "00"});
  for (const char* name : {"Alpha.AddsSmallNumbers", "Alpha.AddsNegativeNumbers", "Alpha.AddsLargeNumbers",
                           "AlphaStats.TotalsAList"}) {
    EXPECT_EQ(graded.score(name), 0) << name << ": " << graded.output(name);
    EXPECT_EQ(graded.outcome(name), "failed") << name;
  }
  // Each forgery is caught on its own, besides the lab being forfeited.
  EXPECT_NE(graded.output("Alpha.AddsNegativeNumbers").find("the same test or record twice"), std::string::npos)
      << graded.output("Alpha.AddsNegativeNumbers");
  EXPECT_NE(graded.output("Alpha.AddsLargeNumbers").find("the same test or record twice"), std::string::npos)
      << graded.output("Alpha.AddsLargeNumbers");
  EXPECT_NE(graded.output("AlphaStats.TotalsAList").find("lines that no test wrote"), std::string::npos)
      << graded.output("AlphaStats.TotalsAList");
  EXPECT_EQ(graded.run.exit_code, 1);
}

TEST_F(FixtureGrading, ASubmissionDefiningTheSupportsNamesDoesNotBuild) {
  // Its alpha.cpp defines launchlab::testing::Record::~Record(): linked, the
  // tests' records would be written by the submission's destructor.
  Graded graded = grade_named("replaced_recorder", {"--labs", "00"});
  EXPECT_EQ(graded.total(), 0) << graded.run.output;
  const std::string output = graded.output("Alpha.AddsSmallNumbers");
  EXPECT_NE(output.find("alpha.cpp defines launchlab::testing::Record::~Record(), which belongs to the course's test "
                        "support: rename it"),
            std::string::npos)
      << output;
  EXPECT_EQ(graded.run.exit_code, 1);
}

TEST_F(FixtureGrading, AStandardTemplateInstantiatedByTheSubmissionBuilds) {
  // The solution's add(), in a file that instantiates std::vector<int> and
  // std::vector<std::string>, which the course's code instantiates too.
  Graded graded = grade_named("own_vector_instantiation", {"--labs", "00"});
  for (const char* name : {"Alpha.AddsSmallNumbers", "Alpha.AddsNegativeNumbers", "Alpha.AddsLargeNumbers"}) {
    EXPECT_EQ(graded.outcome(name), "passed") << name << ": " << graded.output(name);
  }
}

TEST_F(FixtureGrading, ASubmissionsOwnMaterialIsNotRead) {
  // The solution, with a labs/01_beta/fixtures/values.txt of the
  // submission's own whose largest value is not the committed one's. Were
  // it read, or the committed one not found in the sandbox, the solution
  // would fail Beta.FindsTheLargest.
  const fs::path submission = scratch("own-material");
  fs::create_directories(submission / "labs" / "01_beta" / "fixtures");
  fs::copy_file(solutions() / "01_beta" / "stats.cpp", submission / "labs" / "01_beta" / "stats.cpp");
  write_text(submission / "labs" / "01_beta" / "fixtures" / "values.txt", "1000 1 2 3\n");
  Graded graded = grade_fixture(submission, {"--labs", "01"});
  EXPECT_EQ(graded.outcome("Beta.FindsTheLargest"), "passed") << graded.output("Beta.FindsTheLargest");
  EXPECT_EQ(graded.total(), 5) << graded.run.output;
}

TEST_F(FixtureGrading, ACourseSecretDrawsASeedOfEachSubmissionsOwnAndKeepsItForARegrade) {
  const fs::path secret = scratch("secret") / "course.secret";
  write_text(secret, "the course's secret\n");
  fs::permissions(secret, fs::perms::owner_read | fs::perms::owner_write);
  const fs::path first = scratch("first-submission");
  fs::create_directories(first / "01_beta");
  fs::copy_file(solutions() / "01_beta" / "stats.cpp", first / "01_beta" / "stats.cpp");
  const fs::path changed = scratch("changed-submission");
  fs::create_directories(changed / "01_beta");
  write_text(changed / "01_beta" / "stats.cpp", read_text(first / "01_beta" / "stats.cpp") + "\n// handed in again\n");

  auto seed_of = [&](const fs::path& submission, const std::string& student, std::vector<std::string> extra = {}) {
    extra.insert(extra.end(), {"--labs", "01", "--seed-secret", secret.string(), "--student", student});
    Graded graded = grade_fixture(submission, extra);
    EXPECT_EQ(graded.total(), 5) << graded.run.output;
    const json& kept = graded.results["extra_data"];
    if (!kept.value("seed", json()).is_null()) {
      EXPECT_NE(kept.value("seed_derivation", "").find("hmac-sha256"), std::string::npos) << kept.dump();
      EXPECT_EQ(kept.dump().find("the course's secret"), std::string::npos) << "the secret is written out";
    }
    return kept.value("seed", json());
  };
  const json alice = seed_of(first, "alice");
  ASSERT_TRUE(alice.is_string());
  EXPECT_EQ(seed_of(first, "alice"), alice) << "a regrade of the same files draws another seed";
  EXPECT_NE(seed_of(first, "bob"), alice) << "two students share a seed";
  EXPECT_NE(seed_of(changed, "alice"), alice) << "a resubmission with other files keeps its seed";
  EXPECT_TRUE(seed_of(first, "alice", {"--seed", "12345"}).is_null()) << "a seed given for the class is written out";
}

TEST_F(FixtureGrading, AWorkFolderTheGraderDidNotMakeIsRefused) {
  const fs::path dir = scratch("foreign-work");
  write_text(dir / "work" / "thesis.tex", "someone's work\n");
  Graded graded = grade(*course_, kFixtureBuild, solutions(), dir / "work", dir / "results.json");
  EXPECT_EQ(graded.run.exit_code, 1);
  EXPECT_EQ(graded.total(), 0);
  EXPECT_NE(graded.summary().find("is not empty and was not made by the grader"), std::string::npos) << graded.summary();
  EXPECT_EQ(read_text(dir / "work" / "thesis.tex"), "someone's work\n") << "the grader emptied a folder it did not make";
}

TEST_F(FixtureGrading, AWorkFolderReusedFromAnEarlierGradingIsEmptiedFirst) {
  // What an earlier grading, or the submission graded in it, could leave: a
  // file in the test program's folder, and a build folder of its own.
  const fs::path dir = scratch("reused-work");
  const fs::path work = dir / "work";
  write_text(work / ".launchlab-work", "a launchlab grading's work folder\n");
  write_text(work / "run" / "00_alpha" / "learner" / "answers.txt", "left by the last submission\n");
  write_text(work / "learner-build" / "CMakeCache.txt", "CMAKE_HOME_DIRECTORY:INTERNAL=/nowhere\n");
  Graded graded = grade(*course_, kFixtureBuild, kSelftest / "submissions" / "missing_file", work, dir / "results.json",
                        {"--labs", "00"});
  EXPECT_FALSE(fs::exists(work / "run" / "00_alpha" / "learner" / "answers.txt"));
  EXPECT_EQ(graded.outcome("Alpha.AddsSmallNumbers"), "failed") << graded.output("Alpha.AddsSmallNumbers");
  EXPECT_NE(graded.output("Alpha.AddsSmallNumbers").find("expected 5, got 0"), std::string::npos)
      << "the planted build folder was used:\n" << graded.output("Alpha.AddsSmallNumbers");
}

namespace {

/// results.json's extra_data.phases.labs.<slug>.
json lab_phases(const Graded& graded, const std::string& slug) {
  return graded.results.value("/extra_data/phases/labs"_json_pointer, json::object()).value(slug, json::object());
}

/// The reference transcripts the fixture's gradings keep, dropped, so that a
/// test starts from a grading with none.
void forget_reference_transcripts() {
  std::error_code ignored;
  fs::remove_all(kFixtureBuild / "graded-course" / "reference-transcripts", ignored);
}

}  // namespace

TEST_F(FixtureGrading, ASecondGradingReadsTheReferenceFromTheCacheAndMeasuresOnlyWhatVaries) {
  forget_reference_transcripts();
  Graded first = grade_fixture(solutions());
  Graded second = grade_fixture(solutions());
  ASSERT_TRUE(second.results.is_object());
  EXPECT_EQ(second.total(), first.total()) << second.run.output;
  EXPECT_EQ(second.run.exit_code, 0) << second.run.output;

  // The first grading ran the reference over every test (twice, so that
  // the second may trust what it wrote); the second reads it back, but for
  // the test whose transcript holds a time and the one whose inputs come
  // from the seed.
  EXPECT_EQ(lab_phases(first, "00_alpha").value("cache_hits", -1), 0) << first.results["extra_data"].dump(2);
  EXPECT_EQ(lab_phases(second, "00_alpha").value("cache_hits", -1), 5) << second.results["extra_data"].dump(2);
  EXPECT_EQ(lab_phases(second, "00_alpha").value("measured", json()), json::array());
  EXPECT_TRUE(lab_phases(second, "00_alpha").contains("reference_cached")) << second.results["extra_data"].dump(2);
  EXPECT_EQ(lab_phases(second, "01_beta").value("cache_hits", -1), 1) << second.results["extra_data"].dump(2);
  EXPECT_EQ(lab_phases(second, "01_beta").value("measured", json()),
            json::array({"Beta.RefusesAnEmptyList", "Beta.TimesTheLargest"}));
  EXPECT_EQ(second.outcome("Beta.TimesTheLargest"), "passed") << second.output("Beta.TimesTheLargest");
  EXPECT_EQ(second.results.value("/extra_data/phases/cache_hits"_json_pointer, -1), 6);
  // The measured test passed: its time over the reference's, on Gradescope's leaderboard.
  const json leaderboard = second.results.value("leaderboard", json());
  ASSERT_TRUE(leaderboard.is_array() && leaderboard.size() == 1) << leaderboard.dump();
  EXPECT_EQ(leaderboard[0].value("name", ""), "01: largest, yours / reference");
  EXPECT_EQ(leaderboard[0].value("order", ""), "asc");
  EXPECT_TRUE(leaderboard[0]["value"].is_number() && leaderboard[0]["value"].get<double>() >= 0) << leaderboard.dump();
  for (const char* phase : {"trusted_part", "learner_build", "tests"}) {
    EXPECT_GE(second.results.value("/extra_data/phases"_json_pointer, json::object()).value(phase, -1.0), 0.0) << phase;
  }
  // Figures for the instructor guide, not a pass mark: this host's load decides them.
  std::cout << "first grading " << first.results.value("execution_time", -1) << " s, second "
            << second.results.value("execution_time", -1) << " s\n"
            << "first phases " << first.results["extra_data"]["phases"].dump() << "\nsecond phases "
            << second.results["extra_data"]["phases"].dump() << std::endl;
}

// A test that measures is measured again for the learner's figures. Where
// the learner's run recorded none of them, nothing is compared with the
// reference's figures: its newest clean run, kept, stands in, and the
// verdict is the one a fresh run gives.
TEST_F(FixtureGrading, TheReferenceMeasuresAgainOnlyWhereTheLearnersRunRecordedAFigure) {
  forget_reference_transcripts();
  const fs::path throwing = scratch("throwing-submission");
  write_text(throwing / "01_beta" / "stats.cpp",
             "#include <stdexcept>\n\n#include \"stats.h\"\n\n"
             "long beta::largest(const std::vector<long>&) { throw std::logic_error(\"not written yet\"); }\n");
  auto phase = [](const Graded& graded, const char* name) { return lab_phases(graded, "01_beta").value(name, json()); };

  Graded nothing_kept = grade_fixture(throwing, {"--labs", "01"});
  EXPECT_NE(phase(nothing_kept, "measured").dump().find("Beta.TimesTheLargest"), std::string::npos)
      << nothing_kept.results["extra_data"].dump(2);
  EXPECT_EQ(phase(nothing_kept, "spared"), json::array());

  Graded kept = grade_fixture(throwing, {"--labs", "01"});
  EXPECT_EQ(phase(kept, "measured"), json::array({"Beta.RefusesAnEmptyList"})) << kept.results["extra_data"].dump(2);
  EXPECT_EQ(phase(kept, "spared"), json::array({"Beta.TimesTheLargest"}));
  EXPECT_EQ(kept.outcome("Beta.TimesTheLargest"), "failed");
  EXPECT_NE(kept.output("Beta.TimesTheLargest").find("not written yet"), std::string::npos)
      << kept.output("Beta.TimesTheLargest");
  EXPECT_EQ(kept.output("Beta.TimesTheLargest"), nothing_kept.output("Beta.TimesTheLargest"));
  EXPECT_EQ(kept.total(), nothing_kept.total());
  // Every run of the lab's programs is in the phases: the learner's over
  // all three tests, the reference's over the one it measured.
  auto tests_run_by = [&](const Graded& graded, const std::string& program) {
    int tests = 0;
    for (const json& run : phase(graded, "runs")) {
      EXPECT_GE(run.value("seconds", -1.0), 0.0) << run.dump();
      EXPECT_GE(run.value("waited", -1.0), 0.0) << run.dump();
      EXPECT_GE(run.value("started", -1.0), 0.0) << run.dump();
      EXPECT_TRUE(json::array({"cpu", "beside", "shared", "course", "alone"}).dump().find(run.value("lane", "?")) != std::string::npos)
          << run.dump();
      if (run.value("program", "") == program) tests += run.value("tests", 0);
      // Its slowest tests, by GoogleTest's clock: the lab's own names only.
      for (const json& slow : run.value("slowest", json::array())) {
        EXPECT_TRUE(slow[0] == "Beta.FindsTheLargest" || slow[0] == "Beta.RefusesAnEmptyList" ||
                    slow[0] == "Beta.TimesTheLargest")
            << run.dump();
        EXPECT_GE(slow[1].get<double>(), 0.0) << run.dump();
      }
    }
    return tests;
  };
  for (const json& run : phase(kept, "runs")) {
    if (run.value("program", "") != "learner") continue;
    EXPECT_EQ(run.value("slowest", json::array()).size(), run.value("tests", 0)) << run.dump();
  }
  EXPECT_EQ(tests_run_by(kept, "learner"), 3) << phase(kept, "runs").dump();
  EXPECT_EQ(tests_run_by(kept, "reference"), 1) << phase(kept, "runs").dump();

  Graded solved = grade_fixture(solutions(), {"--labs", "01"});
  EXPECT_EQ(phase(solved, "measured"), json::array({"Beta.RefusesAnEmptyList", "Beta.TimesTheLargest"}))
      << solved.results["extra_data"].dump(2);
  EXPECT_EQ(phase(solved, "spared"), json::array());
  EXPECT_EQ(solved.outcome("Beta.TimesTheLargest"), "passed") << solved.output("Beta.TimesTheLargest");
  EXPECT_EQ(tests_run_by(solved, "reference"), 2) << phase(solved, "runs").dump();
  // The reference's first run (the tests it does not defer) went while the
  // submission was built, and the learner's runs once the build was over:
  // seconds from the grading's start, on clocks started a moment apart.
  const json& phases = solved.results["extra_data"]["phases"];
  const double built_at = phases.value("trusted_part", 0.0) + phases.value("learner_build", 0.0);
  double first_reference = 1e9, first_learner = 1e9;
  for (const json& run : phase(solved, "runs")) {
    double& first = run.value("program", "") == "reference" ? first_reference : first_learner;
    first = std::min(first, run.value("started", 1e9));
  }
  EXPECT_LT(first_reference, built_at) << phases.dump(2);
  EXPECT_GE(first_learner, built_at - 0.05) << phases.dump(2);
}

// A test that measures whose reference's run records the same comparisons
// run after run (figures only in its context) is read from the cache once
// two clean runs agreed on them; one whose comparisons hold a figure the
// reference measured is measured again beside the learner's at every grading.
TEST_F(FixtureGrading, ATestThatMeasuresIsKeptOnceTwoRunsAgreedOnWhatTheJudgeCompares) {
  forget_reference_transcripts();
  const fs::path private_tests = beta_private_tests(
      "measuring", "[[tests]]\nname = \"BetaTimed.SteadyComparisons\"\npoints = 1\nmeasures = true\n\n"
                   "[[tests]]\nname = \"BetaTimed.ComparedWithAFigure\"\npoints = 1\nmeasures = true\n",
      "#include <chrono>\n", R"cpp(long nanoseconds_of_largest() {
  const auto started = std::chrono::steady_clock::now();
  volatile long found = largest({3, 9, -4});
  (void)found;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count() + 1;
}

TEST(BetaTimed, SteadyComparisons) {
  const long took = nanoseconds_of_largest();
  RECORD_EQ(largest({3, 9, -4}), 9L) << "largest({3, 9, -4}), timed at " << took << " ns";
  RECORD_GE(took, 1L) << "how long it took, in ns";
}

TEST(BetaTimed, ComparedWithAFigure) {
  const long took = nanoseconds_of_largest();
  RECORD_NEAR(took, took, 1000000000L) << "how long largest({3, 9, -4}) took, against the reference's";
}
)cpp");
  const std::vector<std::string> arguments = {"--labs", "01", "--private-tests", private_tests.string()};
  auto measured = [](const Graded& graded) { return lab_phases(graded, "01_beta").value("measured", json()).dump(); };
  Graded first = grade_fixture(solutions(), arguments);
  Graded second = grade_fixture(solutions(), arguments);
  Graded third = grade_fixture(solutions(), arguments);
  for (const Graded* graded : {&first, &second, &third}) {
    for (const char* test : {"BetaTimed.SteadyComparisons", "BetaTimed.ComparedWithAFigure"}) {
      EXPECT_EQ(graded->outcome(test), "passed") << test << ": " << graded->output(test);
    }
  }
  // Measured in the first two gradings (the second beside the learner's
  // figures, which the kept run could not stand in for), kept in the third.
  for (const Graded* graded : {&first, &second}) {
    EXPECT_NE(measured(*graded).find("BetaTimed.SteadyComparisons"), std::string::npos) << measured(*graded);
  }
  EXPECT_EQ(measured(third).find("BetaTimed.SteadyComparisons"), std::string::npos) << measured(third);
  EXPECT_EQ(lab_phases(third, "01_beta").value("cache_hits", -1), lab_phases(second, "01_beta").value("cache_hits", -1) + 1)
      << third.results["extra_data"].dump(2);
  // The figure compared with is the reference's own, different each run.
  EXPECT_NE(measured(third).find("BetaTimed.ComparedWithAFigure"), std::string::npos) << measured(third);
  // The one with a leaderboard figure is never kept: the figure is the reference's of this grading.
  EXPECT_NE(measured(third).find("Beta.TimesTheLargest"), std::string::npos) << measured(third);
}

// A test that measures, whose learner's run failed a record that holds no
// figure, fails whatever the reference measures: once two clean runs of the
// reference showed which of its records hold figures, such a run spares the
// reference's; a run that passes every other record is judged against
// figures measured in the same grading.
TEST_F(FixtureGrading, ALearnersRunThatFailsARecordWithoutAFigureSparesTheReferencesRun) {
  forget_reference_transcripts();
  const fs::path private_tests = beta_private_tests(
      "figure", "[[tests]]\nname = \"BetaFigure.LargestThenAFigure\"\npoints = 1\nmeasures = true\n",
      "#include <chrono>\n", R"cpp(TEST(BetaFigure, LargestThenAFigure) {
  RECORD_EQ(largest({3, 9, -4}), 9L) << "largest({3, 9, -4})";
  // A figure no two runs share: the steady clock's reading, compared with the reference's within any distance.
  const long now = static_cast<long>(std::chrono::steady_clock::now().time_since_epoch().count());
  RECORD_NEAR(now, now, 4000000000000000000L) << "the steady clock, against the reference's";
}
)cpp");
  const fs::path wrong = scratch("wrong-largest-submission");
  write_text(wrong / "01_beta" / "stats.cpp",
             "#include \"stats.h\"\n\nlong beta::largest(const std::vector<long>&) { return 0; }\n");
  const std::vector<std::string> arguments = {"--labs", "01", "--private-tests", private_tests.string()};
  constexpr const char* kTest = "BetaFigure.LargestThenAFigure";
  auto phase = [](const Graded& graded, const char* name) { return lab_phases(graded, "01_beta").value(name, json()).dump(); };
  auto spared = [&](const Graded& graded) { return phase(graded, "spared").find(kTest) != std::string::npos; };

  // The first two gradings keep two clean runs of the reference: until then
  // which of its records hold figures is not known, and it runs each time.
  Graded first = grade_fixture(wrong, arguments);
  Graded second = grade_fixture(wrong, arguments);
  for (const Graded* graded : {&first, &second}) {
    EXPECT_FALSE(spared(*graded)) << graded->results["extra_data"].dump(2);
    EXPECT_NE(phase(*graded, "measured").find(kTest), std::string::npos) << graded->results["extra_data"].dump(2);
    EXPECT_EQ(graded->outcome(kTest), "failed") << graded->output(kTest);
  }
  Graded third = grade_fixture(wrong, arguments);
  EXPECT_TRUE(spared(third)) << third.results["extra_data"].dump(2);
  EXPECT_EQ(phase(third, "measured").find(kTest), std::string::npos) << third.results["extra_data"].dump(2);
  EXPECT_EQ(third.outcome(kTest), "failed") << third.output(kTest);
  EXPECT_EQ(third.total(), second.total());
  // A run that passes the record without a figure is judged against a fresh one.
  Graded solved = grade_fixture(solutions(), arguments);
  EXPECT_FALSE(spared(solved)) << solved.results["extra_data"].dump(2);
  EXPECT_NE(phase(solved, "measured").find(kTest), std::string::npos) << solved.results["extra_data"].dump(2);
  EXPECT_EQ(solved.outcome(kTest), "passed") << solved.output(kTest);
}

// A test the course's reference fails is never kept: a failure of the
// course's own code is something that went wrong on the host at that moment
// (a thread starved under load), and kept it would leave the test ungraded
// for every later grading. Here the reference fails its first two runs of
// a test, which a first grading would have kept as agreed; the third grading
// runs it again and judges it.
TEST_F(FixtureGrading, ATestTheReferenceFailedIsRunAgainRatherThanKept) {
  forget_reference_transcripts();
  const fs::path counter = scratch("flaky-counter") / "reference-runs";
  const fs::path private_tests = beta_private_tests(
      "flaky", "[[tests]]\nname = \"BetaFlaky.FailsInTheReferencesFirstTwoRuns\"\npoints = 1\n",
      "#include <fstream>\n", R"cpp(TEST(BetaFlaky, FailsInTheReferencesFirstTwoRuns) {
  long expected = 2;
  if constexpr (launchlab::testing::kReferenceBuild) {
    long runs = 0;
    std::ifstream("COUNTER") >> runs;
    std::ofstream("COUNTER") << ++runs;
    if (runs <= 2) expected = 3;
  }
  RECORD_EQ(largest({1, 2}), expected) << "largest({1, 2})";
}
)cpp");
  {
    const fs::path code = private_tests / "01_beta" / "flaky_test.cpp";
    std::string text = read_text(code);
    for (auto at = text.find("COUNTER"); at != std::string::npos; at = text.find("COUNTER")) {
      text.replace(at, 7, counter.string());
    }
    write_text(code, text);
  }
  const std::vector<std::string> arguments = {"--labs", "01", "--private-tests", private_tests.string()};
  constexpr const char* kTest = "BetaFlaky.FailsInTheReferencesFirstTwoRuns";
  for (int grading = 1; grading <= 2; ++grading) {
    Graded failing = grade_fixture(solutions(), arguments);
    EXPECT_EQ(failing.outcome(kTest), "not graded") << grading << ": " << failing.output(kTest);
  }
  Graded third = grade_fixture(solutions(), arguments);
  EXPECT_EQ(third.outcome(kTest), "passed") << third.output(kTest);
  EXPECT_EQ(read_text(counter), "4") << "the third grading ran the test twice: the second confirms the first";
}

// A lab's tests that need no GPU go in one run, unless the reference's kept
// times say that the others together take long beside the longest: then
// they are dealt into runs side by side, so that the longest sets the lab's
// pace rather than their sum. Those runs yield the cores: each test here
// records its run's nice value, and passes only where the reference's run
// and the learner's both ran at 10 or more.
// A test that measures but says alone = false (its checks hold whatever
// runs beside it) goes where a test that measures nothing goes: here,
// without a GPU, in a cpu lane run that yields the cores, while the lab's
// test that measures alone runs apart from the others.
TEST_F(FixtureGrading, ATestThatMeasuresButNeedsNothingToItselfRunsBesideTheOthers) {
  forget_reference_transcripts();
  const fs::path private_tests = beta_private_tests(
      "sharing", "[[tests]]\nname = \"BetaShared.TimesItsOwnCall\"\npoints = 1\nmeasures = true\nalone = false\n",
      "#include <sys/resource.h>\n\n#include <chrono>\n", R"cpp(TEST(BetaShared, TimesItsOwnCall) {
  const auto started = std::chrono::steady_clock::now();
  RECORD_EQ(largest({4, 8}), 8L) << "largest({4, 8})";
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  RECORD_GE(took, 0.0) << "the call's time, " << took << " s";
  RECORD_GE(getpriority(PRIO_PROCESS, 0), 10) << "the run's nice value: it shares the cores";
}
)cpp");
  Graded graded = grade_fixture(solutions(), {"--labs", "01", "--private-tests", private_tests.string()});
  ASSERT_TRUE(graded.results.is_object()) << graded.run.output;
  EXPECT_EQ(graded.outcome("BetaShared.TimesItsOwnCall"), "passed") << graded.output("BetaShared.TimesItsOwnCall");
  EXPECT_EQ(graded.outcome("Beta.TimesTheLargest"), "passed") << graded.output("Beta.TimesTheLargest");
  std::map<std::string, std::string> lane_of;  // the learner's runs' lanes, by the tests they ran
  for (const json& run : lab_phases(graded, "01_beta").value("runs", json::array())) {
    if (run.value("program", "") != "learner") continue;
    for (const json& slow : run.value("slowest", json::array())) lane_of[slow[0].get<std::string>()] = run.value("lane", "");
  }
  EXPECT_EQ(lane_of["BetaShared.TimesItsOwnCall"], "cpu") << lab_phases(graded, "01_beta").dump(2);
  EXPECT_EQ(lane_of["Beta.TimesTheLargest"], "alone") << lab_phases(graded, "01_beta").dump(2);
}

TEST_F(FixtureGrading, SlowTestsThatNeedNoGpuAreDealtIntoRunsSideBySide) {
  // Private tests of 01_beta that each sleep so many milliseconds, then pass.
  auto sleeping_tests = [&](const std::string& tag, const std::vector<std::pair<std::string, int>>& tests) {
    std::string toml, code;
    for (const auto& [name, milliseconds] : tests) {
      toml += "[[tests]]\nname = \"BetaSlow." + name + "\"\npoints = 1\n\n";
      code += "TEST(BetaSlow, " + name + ") {\n  std::this_thread::sleep_for(std::chrono::milliseconds(" +
              std::to_string(milliseconds) + "));\n  RECORD_EQ(largest({1, 2}), 2L) << \"largest({1, 2})\";\n" +
              "  RECORD_GE(getpriority(PRIO_PROCESS, 0), 10) << \"the run's nice value: the cpu lane yields\";\n}\n\n";
    }
    return beta_private_tests(tag, toml, "#include <sys/resource.h>\n\n#include <chrono>\n#include <thread>\n", code);
  };
  forget_reference_transcripts();
  const fs::path private_tests = sleeping_tests("slow", {{"First", 1500}, {"Second", 1500}});
  Graded graded = grade_fixture(solutions(), {"--labs", "01", "--private-tests", private_tests.string()});
  ASSERT_TRUE(graded.results.is_object()) << graded.run.output;
  EXPECT_EQ(graded.outcome("BetaSlow.First"), "passed") << graded.output("BetaSlow.First");
  EXPECT_EQ(graded.outcome("BetaSlow.Second"), "passed") << graded.output("BetaSlow.Second");
  // The learner's runs in the cpu lane (Beta.TimesTheLargest measures, and
  // runs alone): how many, how many tests in all, and which run held each
  // test, by its slowest tests.
  struct LearnerRuns {
    int runs = 0, tests = 0;
    std::map<std::string, int> run_of;
  };
  auto learner_runs_of = [](const Graded& graded) {
    LearnerRuns learner;
    for (const json& run : lab_phases(graded, "01_beta").value("runs", json::array())) {
      if (run.value("program", "") != "learner" || run.value("lane", "") != "cpu") continue;
      ++learner.runs;
      learner.tests += run.value("tests", 0);
      for (const json& slow : run.value("slowest", json::array())) learner.run_of[slow[0].get<std::string>()] = learner.runs;
    }
    return learner;
  };
  LearnerRuns learner = learner_runs_of(graded);
  EXPECT_GE(learner.runs, 2) << lab_phases(graded, "01_beta").dump(2);
  EXPECT_EQ(learner.tests, 4) << lab_phases(graded, "01_beta").dump(2);
  ASSERT_TRUE(learner.run_of.count("BetaSlow.First") && learner.run_of.count("BetaSlow.Second"))
      << lab_phases(graded, "01_beta").dump(2);
  EXPECT_NE(learner.run_of["BetaSlow.First"], learner.run_of["BetaSlow.Second"]) << lab_phases(graded, "01_beta").dump(2);

  // One slow test beside one that takes a little: a run more would save
  // less than it costs, and they stay in one.
  forget_reference_transcripts();
  const fs::path one_slow = sleeping_tests("one-slow", {{"Alone", 1500}, {"Brief", 600}});
  Graded together = grade_fixture(solutions(), {"--labs", "01", "--private-tests", one_slow.string()});
  EXPECT_EQ(together.outcome("BetaSlow.Alone"), "passed") << together.output("BetaSlow.Alone");
  learner = learner_runs_of(together);
  EXPECT_EQ(learner.runs, 1) << lab_phases(together, "01_beta").dump(2);
  EXPECT_EQ(learner.tests, 4) << lab_phases(together, "01_beta").dump(2);
}

// The labs whose files took longest to compile in the starters' build (made
// when the course is prepared, its .ninja_log) come first in the
// submission's build file, which ninja starts in its order: the longest
// compiles do not start last.
TEST_F(FixtureGrading, TheLabsSlowestToCompileStartFirst) {
  const fs::path starters_build = kFixtureBuild / "graded-course" / "starters" / "build";
  auto first_lab_built = [&] {
    Graded graded = grade_fixture(solutions());
    EXPECT_EQ(graded.run.exit_code, 0) << graded.run.output;
    const std::string build_file = read_text(last_work_ / "learner-build" / "build.ninja");
    const auto alpha = build_file.find("lab_00_alpha"), beta = build_file.find("lab_01_beta");
    EXPECT_NE(alpha, std::string::npos);
    EXPECT_NE(beta, std::string::npos);
    return alpha < beta ? "00_alpha" : "01_beta";
  };
  // That build's log, as if each lab's file had taken so many milliseconds;
  // the log it had comes back at the end.
  const fs::path log = starters_build / ".ninja_log";
  const std::optional<std::string> kept = fs::exists(log) ? std::optional(read_text(log)) : std::nullopt;
  auto log_compiles = [&](long alpha, long beta) {
    fs::create_directories(starters_build);
    write_text(log, "# ninja log v5\n0\t" + std::to_string(alpha) +
                        "\t0\tlabs/00_alpha/CMakeFiles/lab_00_alpha.dir/alpha.cpp.o\t0123456789abcdef\n0\t" +
                        std::to_string(beta) + "\t0\tlabs/01_beta/CMakeFiles/lab_01_beta.dir/stats.cpp.o\tfedcba9876543210\n");
  };
  log_compiles(100, 90000);
  EXPECT_STREQ(first_lab_built(), "01_beta");
  log_compiles(120000, 90000);
  EXPECT_STREQ(first_lab_built(), "00_alpha");
  if (kept) {
    write_text(log, *kept);
  } else {
    fs::remove(log);
  }
}

// Each submission of a class has a seed of its own: a new seed runs again
// only the tests that drew from it, and the rest of the cache serves every
// submission; a changed reference program runs again whole.
TEST_F(FixtureGrading, ANewSeedRunsOnlyWhatDrawsFromItAndAChangedReferenceProgramRunsWhole) {
  Graded cached = grade_fixture(solutions(), {"--labs", "01"});
  Graded again = grade_fixture(solutions(), {"--labs", "01"});
  EXPECT_EQ(lab_phases(again, "01_beta").value("cache_hits", -1), 1) << again.results["extra_data"].dump(2);

  Graded seeded = grade_fixture(solutions(), {"--labs", "01", "--seed", "4242"});
  EXPECT_EQ(lab_phases(seeded, "01_beta").value("cache_hits", -1), 1) << seeded.results["extra_data"].dump(2);
  EXPECT_EQ(lab_phases(seeded, "01_beta").value("measured", json()),
            json::array({"Beta.RefusesAnEmptyList", "Beta.TimesTheLargest"}));
  EXPECT_EQ(seeded.total(), again.total()) << seeded.run.output;
  // The drawn test's transcript is this seed's: a grading with another seed
  // judges the same solution on other inputs, and it passes those too.
  Graded reseeded = grade_fixture(solutions(), {"--labs", "01", "--seed", "77"});
  EXPECT_EQ(reseeded.outcome("Beta.RefusesAnEmptyList"), "passed") << reseeded.output("Beta.RefusesAnEmptyList");

  // The same bytes and one more: a program the cache has not seen, whatever its time.
  const fs::path reference = kFixtureBuild / "graded-course" / "build" / "tests" / "reference_01_beta";
  ASSERT_TRUE(fs::exists(reference));
  const auto size = fs::file_size(reference);
  const auto written = fs::last_write_time(reference);
  std::ofstream(reference, std::ios::binary | std::ios::app) << '\0';
  fs::last_write_time(reference, written);
  Graded changed = grade_fixture(solutions(), {"--labs", "01"});
  fs::resize_file(reference, size);
  fs::last_write_time(reference, written);
  EXPECT_EQ(lab_phases(changed, "01_beta").value("cache_hits", -1), 0) << changed.results["extra_data"].dump(2);
  EXPECT_EQ(changed.total(), again.total()) << changed.run.output;
}

// Prepared once per revision, the course's first grading builds and runs
// only the submission's part: the trusted part is built and the reference's
// transcripts are kept, all but those of the tests that measure or draw from
// the seed.
TEST_F(FixtureGrading, APreparedCourseGradesItsFirstSubmissionFromTheKeptTranscripts) {
  fs::remove_all(kFixtureBuild / "graded-course" / "reference-transcripts");
  RunLimits limits;
  limits.timeout = std::chrono::minutes(14);
  auto prepare = [&](const std::string& work) {
    return run_limited({LAUNCHLAB_CLI, "grade", "--prepare", "--work", scratch(work).string()}, {},
                       {"LAUNCHLAB_ROOT=" + course_->string(), "LAUNCHLAB_BUILD_DIR=" + kFixtureBuild.string()}, limits);
  };
  RunOutcome prepared = prepare("prepare");
  EXPECT_EQ(prepared.exit_code, 0) << prepared.output;
  EXPECT_NE(prepared.output.find("00_alpha: ready: the reference's transcripts of 5 of 5 tests kept\n"), std::string::npos)
      << prepared.output;
  EXPECT_NE(prepared.output.find("01_beta: ready: the reference's transcripts of 1 of 3 tests kept, the others run at "
                                 "every grading"),
            std::string::npos)
      << prepared.output;
  EXPECT_EQ(prepared.output.find("results.json"), std::string::npos) << "nothing was graded:\n" << prepared.output;

  // Prepared again (grade-class prepares before every class), the course
  // runs no reference program: its cache has nothing left to learn, and its
  // files stay as they were.
  auto kept_files = [] {
    std::map<std::string, fs::file_time_type> written;
    for (const auto& entry : fs::directory_iterator(kFixtureBuild / "graded-course" / "reference-transcripts")) {
      if (entry.path().extension() == ".json") written[entry.path().filename().string()] = entry.last_write_time();
    }
    return written;
  };
  const auto first_prepared = kept_files();
  EXPECT_EQ(first_prepared.size(), 2u);
  RunOutcome again = prepare("prepare-again");
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("01_beta: ready: the reference's transcripts of 1 of 3 tests kept"), std::string::npos)
      << again.output;
  EXPECT_EQ(kept_files(), first_prepared) << again.output;

  // The starters left as they are run the starters' programs made when the
  // course was prepared: nothing of the submission is built.
  auto starter_programs = [](const Graded& graded) {
    return graded.results.value("/extra_data/phases/starter_programs"_json_pointer, json());
  };
  Graded untouched = grade_fixture(*course_);
  EXPECT_EQ(starter_programs(untouched), json::array({"00_alpha", "01_beta"})) << untouched.results["extra_data"].dump(2);
  EXPECT_FALSE(fs::exists(last_work_ / "learner-build" / "CMakeCache.txt"));
  // Preparing kept two clean runs of Beta.TimesTheLargest, whose leaderboard
  // has it measured at every grading: which of its records hold figures is
  // known, and the starter, failing one that holds none, spares the
  // reference's run from the first grading on.
  EXPECT_EQ(lab_phases(untouched, "01_beta").value("spared", json()), json::array({"Beta.TimesTheLargest"}))
      << untouched.results["extra_data"].dump(2);
  EXPECT_EQ(untouched.outcome("Beta.TimesTheLargest"), "failed") << untouched.output("Beta.TimesTheLargest");

  // The solutions, built, read the same kept transcripts.
  Graded first = grade_fixture(solutions());
  EXPECT_EQ(lab_phases(first, "00_alpha").value("cache_hits", -1), 5) << first.results["extra_data"].dump(2);
  EXPECT_EQ(lab_phases(first, "01_beta").value("cache_hits", -1), 1) << first.results["extra_data"].dump(2);
  EXPECT_EQ(first.run.exit_code, 0) << first.run.output;
  EXPECT_EQ(first.results.value("/extra_data/phases/starter_programs"_json_pointer, json()), json::array());

  // One byte more in one of 00_alpha's files: that lab is built, and its
  // verdicts are the ones its starters' program gave.
  const fs::path touched_submission = scratch("touched-starters");
  write_text(touched_submission / "labs" / "00_alpha" / "alpha.cpp",
             read_text(*course_ / "labs" / "00_alpha" / "alpha.cpp") + "\n");
  Graded touched = grade_fixture(touched_submission);
  EXPECT_EQ(starter_programs(touched), json::array({"01_beta"})) << touched.results["extra_data"].dump(2);
  EXPECT_TRUE(fs::exists(last_work_ / "learner-build" / "CMakeCache.txt"));
  auto outcomes = [](const Graded& graded) {
    std::map<std::string, std::string> by_name;
    for (const auto& test : member(graded.results, "tests", json::array())) {
      by_name[test.value("name", "")] = test.value("extra_data", json::object()).value("outcome", "");
    }
    return by_name;
  };
  EXPECT_GT(outcomes(untouched).size(), 5u) << untouched.results.dump(2);
  EXPECT_EQ(outcomes(touched), outcomes(untouched));
  EXPECT_EQ(touched.total(), untouched.total());
}

TEST_F(FixtureGrading, TheLinterReportsWhatALabLacks) {
  // The fixture has no chapter pages; this copy also loses 01_beta's
  // solutions and the TODO of its starter, and nothing is built.
  const fs::path course = scratch("lint-course");
  compose_fixture_course(course);
  fs::remove_all(course / "solutions" / "01_beta");
  std::string starter = read_text(course / "labs" / "01_beta" / "stats.cpp");
  starter.erase(starter.find("// TODO(student)"), std::string("// TODO(student)").size());
  write_text(course / "labs" / "01_beta" / "stats.cpp", starter);
  RunLimits limits;
  limits.timeout = std::chrono::minutes(5);
  RunOutcome lint = run_limited({LAUNCHLAB_CLI, "lint"}, {},
                                {"LAUNCHLAB_ROOT=" + course.string(), "LAUNCHLAB_BUILD_DIR=" + scratch("lint-build").string()},
                                limits);
  EXPECT_EQ(lint.exit_code, 1) << lint.output;
  for (const char* problem : {"00_alpha: no chapter page chapters/00_alpha/index.md",
                              "01_beta: no solution overlay in solutions/01_beta",
                              "01_beta: student file stats.cpp has no solution in solutions/01_beta",
                              "01_beta: the starter stats.cpp has no TODO(student)",
                              "00_alpha: the solution's test program is not built"}) {
    EXPECT_NE(lint.output.find(problem), std::string::npos) << "expected \"" << problem << "\" in:\n" << lint.output;
  }
  EXPECT_EQ(lint.output.find("00_alpha: no solution overlay"), std::string::npos) << lint.output;
}

namespace {

// A grading that exited 0, failed no test and passed some.
void ExpectFullMarksWhereGradable(const Graded& graded) {
  EXPECT_EQ(graded.run.exit_code, 0) << graded.run.output;
  int passed = 0;
  for (const auto& test : member(graded.results, "tests", json::array())) {
    const std::string outcome = test.at("extra_data").value("outcome", "");
    EXPECT_NE(outcome, "failed") << test.value("name", "") << ": " << test.value("output", "");
    passed += outcome == "passed";
  }
  EXPECT_GT(passed, 0) << graded.run.output;
}

}  // namespace

TEST(CourseGrading, SolutionsGetFullMarksAndStartersDoNot) {
  // The course as committed (HEAD); lab 00 keeps this quick. Every lab's
  // solutions and starters are judged by the course's linter, and graded
  // whole on a GPU host (docs/instructors.md, "What CI proves").
  const fs::path scratch = fresh_temp_dir("course-grade");
  const std::vector<std::string> lab_00 = {"--labs", "00"};
  Graded solutions = grade(kSource, kCourseBuild, kSource / "solutions", scratch / "work", scratch / "solutions.json", lab_00);
  ExpectFullMarksWhereGradable(solutions);

  fs::create_directories(scratch / "empty-submission");
  Graded starters = grade(kSource, kCourseBuild, scratch / "empty-submission", scratch / "work", scratch / "starters.json",
                          lab_00);
  EXPECT_EQ(starters.run.exit_code, 1) << starters.run.output;
  EXPECT_LT(starters.total(), solutions.total());
  fs::remove_all(scratch);
}

TEST(CourseGrading, ALabGradedAloneRunsOnTheLearnersOwnCodeOfTheLabsItBuildsOn) {
  // Lab 06 decodes QMDs with lab 07's code (USES_LABS). Graded alone, as a
  // course that gives one lab per assignment grades it, the solutions' 06
  // runs on the submission's own 07, as `launchlab test 06` does, and fails
  // nothing; a submission of 06's files alone is told that 07's starters
  // stood in for its 07.
  const fs::path scratch = fresh_temp_dir("course-grade-alone");
  const std::vector<std::string> lab_06 = {"--labs", "06"};
  Graded solutions = grade(kSource, kCourseBuild, kSource / "solutions", scratch / "work", scratch / "solutions.json", lab_06);
  ExpectFullMarksWhereGradable(solutions);

  fs::create_directories(scratch / "only-06" / "labs");
  fs::copy(kSource / "solutions" / "06_channels", scratch / "only-06" / "labs" / "06_channels", fs::copy_options::recursive);
  Graded only_06 = grade(kSource, kCourseBuild, scratch / "only-06", scratch / "work", scratch / "only-06.json", lab_06);
  EXPECT_NE(only_06.results.dump().find("06_channels runs on your 07_qmd"), std::string::npos) << only_06.run.output;
  EXPECT_LT(only_06.total(), solutions.total()) << "07's starters decode no QMD";
  fs::remove_all(scratch);
}

// ------------------------------------------------------------ the learner's loop

namespace {

/// The fixture course as a learner has it, configured for one architecture;
/// `launchlab test` builds the lab's programs. Course and build are kept
/// between runs, like a learner's: each test process brings the course up to
/// date (copying only what changed) and reuses the build.
class LearnerLoop : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const fs::path kept = fs::path(LAUNCHLAB_SELFTEST_BUILD_DIR) / "learner-loop";
    course_ = new fs::path(kept / "course");
    compose_fixture_course(*course_, fs::copy_options::recursive | fs::copy_options::update_existing);
    configured_ = new RunOutcome;
    configured_->exit_code = 0;
    // A configure that failed once (its CMakeCache.txt written, its
    // build.ninja not) is run again.
    if (!fs::exists(*course_ / "build" / "build.ninja")) {
      RunLimits limits;
      limits.timeout = std::chrono::minutes(5);
      *configured_ = run_limited({"cmake", "-S", course_->string(), "-B", (*course_ / "build").string(), "-G", "Ninja",
                                  "-DLAUNCHLAB_GRADED_TREE=ON", "-DLAUNCHLAB_WITH_DOCS=OFF",
                                  "-DLAUNCHLAB_CUDA_ARCHITECTURES=90"},
                                 {}, {}, limits);
    }
  }
  static void TearDownTestSuite() {
    delete course_;
    delete configured_;
  }
  void SetUp() override {
    ASSERT_TRUE(configured_->exited_cleanly()) << configured_->output;
    fs::remove_all(progress());
    // The starters, whatever an earlier run left.
    for (const char* file : {"alpha.cpp", "stats.cpp"}) {
      const std::string starter = read_text(kFixture / "labs" / "00_alpha" / file);
      if (read_text(student_file(file)) != starter) write_text(student_file(file), starter);
    }
  }

  // The learner's loop speaks the reader's language (LAUNCHLAB_LANG, else
  // the locale): these tests read its English, whatever the caller's locale.
  static std::vector<std::string> environment() {
    return {"LAUNCHLAB_ROOT=" + course_->string(), "LAUNCHLAB_BUILD_DIR=" + (*course_ / "build").string(),
            "LAUNCHLAB_LANG=en"};
  }
  static fs::path progress() { return launchlab::cli::progress_folder(*course_); }
  static fs::path student_file(const std::string& name) { return *course_ / "labs" / "00_alpha" / name; }

  RunOutcome launchlab(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {LAUNCHLAB_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    RunLimits limits;
    limits.timeout = std::chrono::minutes(8);
    return run_limited(argv, {}, environment(), limits);
  }

  static fs::path* course_;
  static RunOutcome* configured_;
};
fs::path* LearnerLoop::course_ = nullptr;
RunOutcome* LearnerLoop::configured_ = nullptr;

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

/// A program left running while the test acts on it: its output read as it
/// comes, until a text appears or a deadline passes.
class Running {
 public:
  Running(const std::vector<std::string>& argv, const std::vector<std::string>& environment) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    std::vector<std::string> env = environment;
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
    std::vector<char*> args, envp;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    for (const auto& entry : env) envp.push_back(const_cast<char*>(entry.c_str()));
    args.push_back(nullptr);
    envp.push_back(nullptr);
    if (posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), envp.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    out_ = fds[0];
  }
  ~Running() {
    if (pid_ > 0 && !status_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) close(out_);
  }

  /// Reads until the output holds `count` times needle; false at the deadline.
  bool wait_for(const std::string& needle, std::size_t count, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (count_of(output_, needle) < count) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd fd = {out_, POLLIN, 0};
      if (poll(&fd, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[4096];
      const ssize_t n = read(out_, buffer, sizeof buffer);
      if (n <= 0) return false;  // it ended
      output_.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
  }

  /// Sends the signal and waits for the end; the exit status, or -1.
  int stop(int signal) {
    if (pid_ <= 0) return -1;
    kill(pid_, signal);
    wait_for("\x01never", 1, std::chrono::seconds(30));  // the rest of its output, to the end
    int status = 0;
    waitpid(pid_, &status, 0);
    status_ = status;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  bool started() const { return pid_ > 0; }
  const std::string& output() const { return output_; }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::optional<int> status_;
  std::string output_;
};

}  // namespace

// The starter fails four tests (five with a GPU): the first is shown whole
// with its hint, the others on one line each; --verbose shows every message.
TEST_F(LearnerLoop, TestShowsTheFirstFailureWholeAndTheRestOnOneLine) {
  RunOutcome short_run = launchlab({"test", "00"});
  EXPECT_EQ(short_run.exit_code, 1) << short_run.output;
  const std::string& out = short_run.output;
  EXPECT_NE(out.find("FAIL Alpha.AddsSmallNumbers"), std::string::npos) << out;
  EXPECT_NE(out.find("add(2, 3)"), std::string::npos) << "the first failure's message:\n" << out;
  EXPECT_EQ(out.find("add(-2, -3)"), std::string::npos) << "a later failure's message:\n" << out;
  EXPECT_NE(out.find("FAIL Alpha.AddsNegativeNumbers"), std::string::npos) << out;
  // Alpha.RunsOnTheGpu fails too where there is a GPU, and is skipped where there is none.
  const auto failed = static_cast<int>(count_of(out, "  FAIL "));
  EXPECT_GE(failed, 4) << out;
  if (failed == 4) {
    EXPECT_NE(out.find("more points need what this machine lacks: no NVIDIA driver or GPU found here)"), std::string::npos)
        << "the score line names what the skipped GPU test lacks, and only that:\n" << out;
  }
  EXPECT_NE(out.find(std::to_string(failed - 1) + " more tests failed; `launchlab test 00 --verbose` shows every message."),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Hint 1 of 2 for 00_alpha (it helps with Alpha.AddsSmallNumbers):\n  Add the two numbers."),
            std::string::npos)
      << out;
  EXPECT_EQ(launchlab::cli::read_progress(progress(), "00_alpha").hints_shown, std::set<int>{1}) << "the hint shown is remembered";

  RunOutcome verbose = launchlab({"test", "00", "--verbose"});
  EXPECT_EQ(verbose.exit_code, 1) << verbose.output;
  EXPECT_NE(verbose.output.find("add(2, 3)"), std::string::npos) << verbose.output;
  EXPECT_NE(verbose.output.find("add(-2, -3)"), std::string::npos) << verbose.output;
  EXPECT_EQ(verbose.output.find("more tests failed"), std::string::npos) << verbose.output;
  // The reports themselves, without what the build said before them.
  auto report = [](const std::string& output) { return output.substr(std::min(output.size(), output.find("00_alpha — Alpha"))); };
  EXPECT_GT(count_of(report(verbose.output), "\n"), count_of(report(out), "\n")) << "short:\n" << out << "\nverbose:\n"
                                                                                 << verbose.output;
}

TEST_F(LearnerLoop, TestRefusesAFileDefiningTheSupportsNamesAsTheGraderDoes) {
  write_text(student_file("alpha.cpp"),
             read_text(kSelftest / "submissions" / "replaced_recorder" / "labs" / "00_alpha" / "alpha.cpp"));
  RunOutcome run = launchlab({"test", "00"});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("alpha.cpp defines launchlab::testing::Record::~Record(), which belongs to the course's "
                            "test support: rename it"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("did not compile"), std::string::npos) << run.output;
}

TEST_F(LearnerLoop, TheHintShownIsTheFirstFailingTests) {
  RunOutcome run = launchlab({"test", "00", "--only", "AlphaStats.TotalsAList"});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("Hint 2 of 2 for 00_alpha (it helps with AlphaStats.TotalsAList):\n  Total the list"),
            std::string::npos)
      << run.output;
  EXPECT_EQ(launchlab::cli::read_progress(progress(), "00_alpha").hints_shown, std::set<int>{2});
}

// watch tests the lab once, then again when a student file is saved the way
// editors save (a new file renamed over the old one), not when another file
// of the folder changes; Ctrl-C ends it cleanly.
TEST_F(LearnerLoop, WatchTestsAgainWhenAStudentFileIsSaved) {
  const std::string starter = read_text(student_file("stats.cpp"));
  Running watch({LAUNCHLAB_CLI, "watch", "00"}, environment());
  ASSERT_TRUE(watch.started());
  ASSERT_TRUE(watch.wait_for("Watching 00_alpha", 1, std::chrono::minutes(8))) << watch.output();
  EXPECT_NE(watch.output().find("FAIL AlphaStats.TotalsAList"), std::string::npos) << watch.output();
  EXPECT_NE(watch.output().find("Course: ["), std::string::npos) << watch.output();
  EXPECT_EQ(watch.output().find("\033["), std::string::npos) << "the screen is cleared only on a terminal";

  write_text(student_file("notes.txt"), "not a student file\n");
  write_text(student_file("stats.cpp.new"), read_text(kFixture / "solutions" / "00_alpha" / "stats.cpp"));
  fs::rename(student_file("stats.cpp.new"), student_file("stats.cpp"));
  const bool again = watch.wait_for("Watching 00_alpha", 2, std::chrono::minutes(8));
  const int stopped = watch.stop(SIGINT);
  write_text(student_file("stats.cpp"), starter);
  fs::remove(student_file("notes.txt"));
  ASSERT_TRUE(again) << watch.output();
  const std::string second = watch.output().substr(watch.output().rfind("00_alpha — Alpha"));
  EXPECT_NE(second.find("PASS AlphaStats.TotalsAList"), std::string::npos) << second;
  EXPECT_NE(second.find("FAIL Alpha.AddsSmallNumbers"), std::string::npos) << second;

  EXPECT_EQ(stopped, 0) << watch.output();
  EXPECT_NE(watch.output().find("launchlab watch: stopped."), std::string::npos) << watch.output();
  EXPECT_EQ(count_of(watch.output(), "Score: "), 2u) << "one run at the start, one for the save:\n" << watch.output();
}
