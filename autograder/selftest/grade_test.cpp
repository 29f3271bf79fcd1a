// Whole gradings through the launchlab program, as an instructor runs them:
// a small fixture course graded against submissions that misbehave in every
// way the grader promises to survive, then the real course's solutions and
// starters.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "launchlab/grader/process.h"
#include "launchlab/grader/value.h"

namespace fs = std::filesystem;
using namespace launchlab::grader;

namespace {

const fs::path kSelftest = LAUNCHLAB_SELFTEST_DIR;

fs::path fresh_temp_dir(const std::string& tag) {
  std::random_device entropy;
  fs::path dir = fs::temp_directory_path() / ("launchlab-" + tag + "-" + std::to_string(getpid()) + "-" +
                                              std::to_string(entropy()));
  fs::create_directories(dir);
  return dir;
}

struct Graded {
  RunOutcome run;
  Value results;
};

/// Grades a submission of a course with the launchlab program.
Graded grade(const fs::path& course, const fs::path& submission, const fs::path& work,
             const std::vector<std::string>& extra = {}) {
  fs::path json = work / "results.json";
  fs::remove(json);
  std::vector<std::string> argv = {LAUNCHLAB_CLI, "grade", "--submission", submission.string(),
                                   "--work", work.string(), "--json", json.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  RunLimits limits;
  limits.timeout = std::chrono::minutes(14);
  limits.output_limit = 64u << 20;
  Graded graded{run_limited(argv, {}, {"LAUNCHLAB_ROOT=" + course.string(), "LAUNCHLAB_BUILD_DIR=" + work.string()}, limits),
                Value()};
  std::ifstream in(json);
  if (!in) {
    ADD_FAILURE() << "no results.json was written; the grader said:\n" << graded.run.output;
    return graded;
  }
  std::ostringstream text;
  text << in.rdbuf();
  graded.results = parse_json(text.str());
  return graded;
}

const Value& test_named(const Value& results, const std::string& name) {
  static const Value missing;
  const Value* tests = results.find("tests");
  if (!tests) return missing;
  for (const auto& test : tests->as_array()) {
    if (test.find("name")->as_string().ends_with(name)) return test;
  }
  ADD_FAILURE() << "results.json has no test " << name;
  return missing;
}

int score_of(const Value& results, const std::string& name) {
  const Value& test = test_named(results, name);
  return test.is_null() ? -1 : static_cast<int>(test.find("score")->as_int());
}

std::string output_of(const Value& results, const std::string& name) {
  const Value& test = test_named(results, name);
  return test.is_null() ? "" : test.find("output")->as_string();
}

bool gpu_here(const Value& results) { return !results.find("extra_data")->find("gpu")->is_null(); }

class FixtureGrading : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { work_ = new fs::path(fresh_temp_dir("fixture-grade")); }
  static void TearDownTestSuite() {
    fs::remove_all(*work_);
    delete work_;
  }
  Graded grade_submission(const std::string& name) {
    return grade(kSelftest / "fixture_course", kSelftest / "submissions" / name, *work_,
                 {"--cmake-arg", "-DFIXTURE_SUPPORT_DIR=" + (kSelftest.parent_path() / "support").string()});
  }
  static fs::path* work_;
};
fs::path* FixtureGrading::work_ = nullptr;

}  // namespace

TEST_F(FixtureGrading, FullMarksFollowGradescopesSchema) {
  Graded graded = grade_submission("good");
  const Value& results = graded.results;
  ASSERT_TRUE(results.is_object()) << graded.run.output;
  EXPECT_EQ(graded.run.exit_code, 0) << graded.run.output;
  EXPECT_EQ(results.find("score")->as_int(), gpu_here(results) ? 14 : 10);
  ASSERT_EQ(results.find("tests")->as_array().size(), 4u);
  for (const auto& test : results.find("tests")->as_array()) {
    for (const char* key : {"name", "score", "max_score", "output", "visibility"}) {
      EXPECT_NE(test.find(key), nullptr) << "a test lacks " << key;
    }
    if (const Value* status = test.find("status")) {
      EXPECT_TRUE(status->as_string() == "passed" || status->as_string() == "failed");
    }
  }
  EXPECT_EQ(test_named(results, "Alpha.AddsLargeNumbers").find("status")->as_string(), "passed");
  EXPECT_NE(graded.run.output.find("Score: "), std::string::npos);
}

TEST_F(FixtureGrading, GpuTestsWithoutAGpuAreNotGradedRatherThanFailed) {
  Graded graded = grade_submission("good");
  if (gpu_here(graded.results)) GTEST_SKIP() << "a GPU is here, so the GPU test was graded";
  const Value& gpu_test = test_named(graded.results, "Alpha.RunsOnTheGpu");
  EXPECT_EQ(gpu_test.find("status"), nullptr);
  EXPECT_EQ(gpu_test.find("max_score")->as_int(), 4);
  EXPECT_EQ(gpu_test.find("extra_data")->find("outcome")->as_string(), "needs a GPU");
  EXPECT_NE(gpu_test.find("output")->as_string().find("needs a GPU"), std::string::npos);
  EXPECT_EQ(graded.results.find("extra_data")->find("not_gradable_points")->as_int(), 4);
  EXPECT_NE(graded.run.output.find("NOT graded here"), std::string::npos) << graded.run.output;
}

TEST_F(FixtureGrading, ThePristineStarterScoresLessAndExitsNonZero) {
  Graded graded = grade_submission("missing_file");
  EXPECT_EQ(graded.run.exit_code, 1);
  EXPECT_LT(graded.results.find("score")->as_int(), 10);
  EXPECT_NE(graded.run.output.find("not in the submission"), std::string::npos) << graded.run.output;
}

TEST_F(FixtureGrading, ACompileErrorScoresZeroAndSaysWhy) {
  Graded graded = grade_submission("compile_error");
  EXPECT_EQ(graded.run.exit_code, 1);
  EXPECT_EQ(graded.results.find("score")->as_int(), 0);
  std::string output = output_of(graded.results, "Alpha.AddsSmallNumbers");
  EXPECT_NE(output.find("did not compile"), std::string::npos) << output;
  EXPECT_NE(output.find("undeclared_name"), std::string::npos) << output;
}

TEST_F(FixtureGrading, AHangCostsOnlyTheTestThatHangs) {
  Graded graded = grade_submission("hang");
  EXPECT_EQ(score_of(graded.results, "Alpha.AddsNegativeNumbers"), 0);
  EXPECT_NE(output_of(graded.results, "Alpha.AddsNegativeNumbers").find("longer than the 5 s"), std::string::npos)
      << output_of(graded.results, "Alpha.AddsNegativeNumbers");
  EXPECT_EQ(score_of(graded.results, "Alpha.AddsSmallNumbers"), 2);
  EXPECT_EQ(score_of(graded.results, "Alpha.AddsLargeNumbers"), 5);
  EXPECT_EQ(graded.run.exit_code, 1);
}

TEST_F(FixtureGrading, ExitBeforeMainScoresZero) {
  Graded graded = grade_submission("exit_before_main");
  EXPECT_EQ(graded.results.find("score")->as_int(), 0);
  std::string output = output_of(graded.results, "Alpha.AddsSmallNumbers");
  EXPECT_NE(output.find("exited with status 0 before any test reported progress"), std::string::npos) << output;
  EXPECT_EQ(graded.run.exit_code, 1);
}

TEST_F(FixtureGrading, AnOutputFloodCostsOnlyTheTestThatFloods) {
  Graded graded = grade_submission("flood");
  EXPECT_EQ(score_of(graded.results, "Alpha.AddsLargeNumbers"), 0);
  EXPECT_NE(output_of(graded.results, "Alpha.AddsLargeNumbers").find("MiB of output"), std::string::npos);
  EXPECT_LT(output_of(graded.results, "Alpha.AddsLargeNumbers").size(), 20000u);
  EXPECT_EQ(score_of(graded.results, "Alpha.AddsSmallNumbers"), 2);
  EXPECT_EQ(score_of(graded.results, "Alpha.AddsNegativeNumbers"), 3);
}

TEST_F(FixtureGrading, ACrashCostsOnlyTheTestThatCrashes) {
  Graded graded = grade_submission("crash");
  EXPECT_EQ(score_of(graded.results, "Alpha.AddsSmallNumbers"), 0);
  EXPECT_NE(output_of(graded.results, "Alpha.AddsSmallNumbers").find("signal 11"), std::string::npos)
      << output_of(graded.results, "Alpha.AddsSmallNumbers");
  EXPECT_EQ(score_of(graded.results, "Alpha.AddsNegativeNumbers"), 3);
  EXPECT_EQ(score_of(graded.results, "Alpha.AddsLargeNumbers"), 5);
}

TEST_F(FixtureGrading, AStudentFileThatIsALinkIsRefused) {
  Graded graded = grade_submission("symlink");
  EXPECT_NE(graded.run.output.find("symbolic link"), std::string::npos) << graded.run.output;
  EXPECT_LT(graded.results.find("score")->as_int(), 10);
}

TEST_F(FixtureGrading, ALoneUploadedFileIsFoundByItsName) {
  Graded graded = grade_submission("flat");
  EXPECT_EQ(score_of(graded.results, "Alpha.AddsLargeNumbers"), 5) << graded.run.output;
}

TEST(CourseGrading, SolutionsGetFullMarksAndStartersDoNot) {
  fs::path work = fresh_temp_dir("course-grade");
  fs::path course = LAUNCHLAB_SOURCE_DIR;

  // Two labs keep this quick; docker/ci.sh grades every lab in the grader's container.
  const std::vector<std::string> two_labs = {"--labs", "00,01"};
  Graded solutions = grade(course, course / "solutions", work, two_labs);
  EXPECT_EQ(solutions.run.exit_code, 0) << solutions.run.output;
  for (const auto& test : solutions.results.find("tests")->as_array()) {
    EXPECT_NE(test.find("extra_data")->find("outcome")->as_string(), "failed")
        << test.find("name")->as_string() << ": " << test.find("output")->as_string();
  }

  fs::path empty = work / "empty-submission";
  fs::create_directories(empty);
  Graded starters = grade(course, empty, work, two_labs);
  EXPECT_EQ(starters.run.exit_code, 1) << starters.run.output;
  EXPECT_LT(starters.results.find("score")->as_int(), solutions.results.find("score")->as_int());
  fs::remove_all(work);
}

TEST_F(FixtureGrading, TheLinterReportsWhatALabLacks) {
  // The fixture course is built by a grading, and on purpose has no chapter
  // pages and no solutions: the linter must say so rather than pass.
  grade_submission("good");
  RunLimits limits;
  limits.timeout = std::chrono::minutes(5);
  RunOutcome lint = run_limited({LAUNCHLAB_CLI, "lint"}, {},
                                {"LAUNCHLAB_ROOT=" + (kSelftest / "fixture_course").string(),
                                 "LAUNCHLAB_BUILD_DIR=" + (*work_ / "build").string()},
                                limits);
  EXPECT_EQ(lint.exit_code, 1) << lint.output;
  for (const char* problem : {"00_alpha: no chapter page chapters/00_alpha/index.md",
                              "00_alpha: no solution overlay in solutions/00_alpha",
                              "student file alpha.cpp has no solution",
                              "the solution's test program is not built"}) {
    EXPECT_NE(lint.output.find(problem), std::string::npos) << "expected \"" << problem << "\" in:\n" << lint.output;
  }
}

TEST_F(FixtureGrading, PrivateTestsAndTheSecretSeedJoinAtGradeTime) {
  Graded graded = grade(kSelftest / "fixture_course", kSelftest / "submissions" / "good", *work_,
                        {"--cmake-arg", "-DFIXTURE_SUPPORT_DIR=" + (kSelftest.parent_path() / "support").string(),
                         "--private-tests", (kSelftest / "private_tests").string(), "--seed", "12345"});
  EXPECT_EQ(score_of(graded.results, "AlphaPrivate.AddsNumbersFromTheSecretSeed"), 6)
      << output_of(graded.results, "AlphaPrivate.AddsNumbersFromTheSecretSeed");
  // The private test is graded, but it is never part of the course's tree.
  EXPECT_FALSE(fs::exists(kSelftest / "fixture_course" / "autograder" / "tests" / "00_alpha" /
                          "private_alpha_private_test.cpp"));
  Graded without = grade_submission("good");
  EXPECT_EQ(without.results.find("tests")->as_array().size(), 4u) << "a private test stayed after its grading";
}
