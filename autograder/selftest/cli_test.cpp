// The launchlab program's command line: every command answers --help at
// once, and an unknown command or option, a missing or a bad value is an
// error that names it, said before anything is built, graded or written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "launchlab/cli/arguments.h"
#include "fixture_course.h"
#include "launchlab/cli/progress.h"
#include "launchlab/cli/stated_rules.h"
#include "launchlab/course/model.h"
#include "launchlab/grader/process.h"

namespace fs = std::filesystem;
using launchlab::cli::closest;
using namespace launchlab::grader;

namespace {

/// A build folder of its own for each test, in which nothing may appear, and
/// a folder beside it for what a test asks the command to write.
class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device entropy;
    const std::string name = "launchlab-cli-" + std::to_string(getpid()) + "-" + std::to_string(entropy());
    build_ = fs::temp_directory_path() / name;
    asked_ = fs::temp_directory_path() / (name + "-asked");
    fs::create_directories(build_);
    fs::create_directories(asked_);
  }
  void TearDown() override {
    EXPECT_TRUE(fs::is_empty(build_)) << "the command wrote into its build folder";
    fs::remove_all(build_);
    fs::remove_all(asked_);
  }

  /// Runs the launchlab program on the course, with an empty build folder
  /// and env's entries ("NAME=value") added to the environment.
  RunOutcome launchlab(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv = {LAUNCHLAB_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    RunLimits limits;
    limits.timeout = std::chrono::seconds(60);
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> environment = {"LAUNCHLAB_ROOT=" LAUNCHLAB_SOURCE_DIR, "LAUNCHLAB_BUILD_DIR=" + build_.string()};
    environment.insert(environment.end(), env.begin(), env.end());
    RunOutcome outcome = run_limited(argv, {}, environment, limits);
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return outcome;
  }

  /// Expects the command to be refused, at once, with a message that holds said.
  void expect_refused(const std::vector<std::string>& args, const std::string& said) {
    RunOutcome outcome = launchlab(args);
    std::string line = ::testing::PrintToString(args);
    EXPECT_EQ(outcome.exit_code, 2) << line << "\n" << outcome.output;
    EXPECT_NE(outcome.output.find(said), std::string::npos) << line << ": expected \"" << said << "\" in:\n" << outcome.output;
    EXPECT_LT(seconds_, 10) << line << " took " << seconds_ << " s";
  }

  fs::path build_;
  fs::path asked_;
  double seconds_ = 0;
};

}  // namespace

TEST_F(Cli, GradeHelpAnswersAtOnceAndBuildsNothing) {
  RunOutcome outcome = launchlab({"grade", "--help"});
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_LT(seconds_, 10);
  for (const char* option : {"Usage: launchlab grade", "--submission DIR", "--json PATH", "--labs NN,NN", "--work DIR",
                             "--test-timeout SECONDS", "--private-tests DIR", "--seed N", "--cmake-arg -DX=Y"}) {
    EXPECT_NE(outcome.output.find(option), std::string::npos) << option << " is not in:\n" << outcome.output;
  }
}

TEST_F(Cli, InspectHelpAnswersAtOnceAndBuildsNothing) {
  RunOutcome list = launchlab({"inspect", "help"});
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_LT(seconds_, 10);
  for (const char* tool : {"\n  cubin ", "\n  fatbin ", "\n  pushbuf ", "\n  qmd ", "\n  sass "}) {
    EXPECT_NE(list.output.find(tool), std::string::npos) << tool << " is not in:\n" << list.output;
  }
  EXPECT_EQ(list.output.find("building"), std::string::npos) << list.output;
  RunOutcome tool = launchlab({"inspect", "sass", "--help"});
  EXPECT_EQ(tool.exit_code, 0) << tool.output;
  EXPECT_NE(tool.output.find("Usage: launchlab inspect sass"), std::string::npos) << tool.output;
  EXPECT_EQ(launchlab({"inspect"}).exit_code, 2) << "no tool named: the list, as the tools give it, and status 2";
}

TEST_F(Cli, InspectBuildsOnlyTheLabOfTheToolAskedFor) {
  // The build folder is empty, so the build fails at once: what it was asked
  // to build is what it says.
  RunOutcome qmd = launchlab({"inspect", "qmd", "some.qmd", "--qmd-version", "4"});
  EXPECT_EQ(qmd.exit_code, 1) << qmd.output;
  EXPECT_NE(qmd.output.find("building inspect qmd from your lab 07_qmd"), std::string::npos) << qmd.output;
  EXPECT_NE(qmd.output.find("lab 07_qmd or a lab it builds on does not compile"), std::string::npos) << qmd.output;
  RunOutcome unknown = launchlab({"inspect", "nosuchtool"});
  EXPECT_NE(unknown.output.find("building the inspect tools from your labs"), std::string::npos) << unknown.output;
}

TEST_F(Cli, EveryCommandHasItsOwnHelp) {
  for (const char* command : {"list", "test", "watch", "hint", "reset", "docs", "inspect", "grade", "doctor", "check", "lint"}) {
    for (const std::vector<std::string>& args : {std::vector<std::string>{command, "--help"}, {"help", command}}) {
      RunOutcome outcome = launchlab(args);
      EXPECT_EQ(outcome.exit_code, 0) << command << ":\n" << outcome.output;
      EXPECT_NE(outcome.output.find(std::string("Usage: launchlab ") + command), std::string::npos) << outcome.output;
    }
  }
  RunOutcome all = launchlab({"--help"});
  EXPECT_EQ(all.exit_code, 0);
  EXPECT_NE(all.output.find("grade"), std::string::npos) << all.output;
}

TEST_F(Cli, AnUnknownOptionIsNamedWithWhatWasMeant) {
  expect_refused({"grade", "--sumbission", "x"}, "launchlab grade: unknown option '--sumbission' (did you mean '--submission'?)");
  expect_refused({"grade", "--lab", "00"}, "launchlab grade: unknown option '--lab' (did you mean '--labs'?)");
  expect_refused({"grade", "--labs", "00", "--frobnicate"}, "unknown option '--frobnicate'");
  expect_refused({"hint", "00", "--al"}, "launchlab hint: unknown option '--al' (did you mean '--all'?)");
  expect_refused({"test", "00", "--solutoin=yes"}, "unknown option '--solutoin' (did you mean '--solution'?)");
}

TEST_F(Cli, ABadOrMissingValueIsNamed) {
  expect_refused({"grade", "--test-timeout", "x"}, "launchlab grade: --test-timeout: 'x' is not a whole number");
  expect_refused({"grade", "--test-timeout", "0"}, "--test-timeout: '0' is out of range");
  expect_refused({"grade", "--test-timeout"}, "--test-timeout");
  expect_refused({"grade", "--seed", "abc"}, "--seed: 'abc' is not an unsigned 64-bit number");
  expect_refused({"grade", "--private-visibility", "sometimes"}, "--private-visibility");
}

// A folder that is not there is the instructor's mistake about this grading,
// not a malformed command: it ends in a results.json that says what is wrong,
// before anything is built.
TEST_F(Cli, AMissingFolderIsReportedInResultsJson) {
  for (const char* option : {"--submission", "--private-tests"}) {
    const fs::path json = asked_ / "results.json";
    fs::remove(json);
    RunOutcome outcome = launchlab({"grade", option, (build_ / "nowhere").string(), "--json", json.string()});
    EXPECT_EQ(outcome.exit_code, 1) << option << "\n" << outcome.output;
    EXPECT_LT(seconds_, 10) << option;
    std::ifstream in(json);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("nowhere"), std::string::npos) << option << ": results.json should name the folder:\n" << text;
    EXPECT_NE(text.find("\"score\": 0"), std::string::npos) << option << ":\n" << text;
  }
}

TEST_F(Cli, LabNumbersAreCheckedAgainstTheCourse) {
  expect_refused({"test", "99"}, "launchlab test: NN: no lab '99'; the labs are 00 01 02");
  expect_refused({"grade", "--labs", "00,99"}, "--labs: no lab '99'");
  expect_refused({"hint"}, "launchlab hint: NN is required");
  expect_refused({"test", "00", "01"}, "unexpected argument '01'");
  expect_refused({"watch", "99"}, "launchlab watch: NN: no lab '99'");
  // A good number reaches the command: --all prints every hint and remembers nothing.
  RunOutcome hints = launchlab({"hint", "0", "--all"});
  EXPECT_EQ(hints.exit_code, 0) << hints.output;
  EXPECT_NE(hints.output.find("Hint 1 of"), std::string::npos) << hints.output;
  EXPECT_NE(hints.output.find("for 00_vadd_journey"), std::string::npos) << hints.output;
}

TEST_F(Cli, AnUnknownCommandIsNamed) {
  expect_refused({"lst"}, "launchlab: unknown command 'lst' (did you mean 'list'?)");
  expect_refused({"frobnicate"}, "launchlab: unknown command 'frobnicate'");
  expect_refused({"list", "extra"}, "launchlab list: unexpected argument 'extra': launchlab list takes none");
  expect_refused({"help", "nope"}, "launchlab help: COMMAND: nope not in");
}

TEST(Closest, FindsTyposAndPrefixesButNotStrangers) {
  const std::vector<std::string> options = {"--submission", "--json", "--labs", "--work", "--test-timeout"};
  EXPECT_EQ(closest("--sumbission", options), "--submission");
  EXPECT_EQ(closest("--lab", options), "--labs");
  EXPECT_EQ(closest("--jsno", options), "--json");
  EXPECT_EQ(closest("--test-timout", options), "--test-timeout");
  EXPECT_EQ(closest("--verbose", options), std::nullopt);
  EXPECT_EQ(closest("--x", options), std::nullopt);
}

// ------------------------------------------------------------ the learner's progress

namespace {

/// A course of its own for a test: the fixture course, committed to a fresh
/// git repository (the course's own repository: reset takes the starters
/// from its last commit).
class LearnerCourse : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    root_ = asked_ / "course";
    fs::copy(fs::path(LAUNCHLAB_SOURCE_DIR) / "autograder" / "selftest" / "fixture_course", root_,
             fs::copy_options::recursive);
    RunLimits limits;
    limits.timeout = std::chrono::seconds(60);
    for (std::vector<std::string> git : {std::vector<std::string>{"init", "-q"}, {"add", "-A"},
                                         {"-c", "user.name=course", "-c", "user.email=course@example.org", "commit",
                                          "-q", "-m", "the course"}}) {
      git.insert(git.begin(), {"git", "-C", root_.string()});
      ASSERT_TRUE(run_limited(git, {}, {}, limits).exited_cleanly()) << git[3];
    }
  }

  RunOutcome launchlab_here(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv = {LAUNCHLAB_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    RunLimits limits;
    limits.timeout = std::chrono::seconds(60);
    std::vector<std::string> environment = {"LAUNCHLAB_ROOT=" + root_.string(), "LAUNCHLAB_BUILD_DIR=" + build_.string()};
    environment.insert(environment.end(), env.begin(), env.end());
    return run_limited(argv, {}, environment, limits);
  }

  static std::string text_of(const fs::path& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  fs::path root_;
};

}  // namespace

TEST(Progress, KeepsTheBestAndTheLastRunAndTheHintsSeen) {
  const fs::path folder = fs::temp_directory_path() / ("launchlab-progress-" + std::to_string(getpid()));
  fs::remove_all(folder);
  using launchlab::cli::LabScore;
  EXPECT_FALSE(launchlab::cli::read_progress(folder, "00_alpha").best);
  launchlab::cli::record_run(folder, "00_alpha", LabScore{5, 10, 4, "2026-01-01T00:00:00Z"});
  launchlab::cli::record_run(folder, "00_alpha", LabScore{9, 10, 4, "2026-01-02T00:00:00Z"});
  launchlab::cli::record_run(folder, "00_alpha", LabScore{2, 10, 4, "2026-01-03T00:00:00Z", {"cuobjdump", "nvdisasm"}});
  launchlab::cli::record_hint_shown(folder, "00_alpha", 2);
  auto progress = launchlab::cli::read_progress(folder, "00_alpha");
  ASSERT_TRUE(progress.best && progress.last);
  EXPECT_EQ(progress.best->points, 9);
  EXPECT_EQ(progress.best->when, "2026-01-02T00:00:00Z");
  EXPECT_EQ(progress.last->points, 2);
  EXPECT_EQ(progress.hints_shown, std::set<int>{2});
  EXPECT_EQ(launchlab::cli::describe(*progress.best), "9/10 points (+4 not gradable here)");
  // What a run's ungraded points need is kept with it, and a tool is never called a GPU.
  EXPECT_EQ(launchlab::cli::describe(*progress.last), "2/10 points (+4 need cuobjdump, nvdisasm)");
  EXPECT_EQ(launchlab::cli::describe(LabScore{1, 2, 3, "", {"a GPU"}}), "1/2 points (+3 need a GPU)");
  EXPECT_EQ(launchlab::cli::describe(LabScore{2, 2, 0, "", {}}), "2/2 points");

  // A tie keeps the earlier best; forgetting the runs keeps the hints.
  launchlab::cli::record_run(folder, "00_alpha", LabScore{9, 10, 4, "2026-01-04T00:00:00Z"});
  EXPECT_EQ(launchlab::cli::read_progress(folder, "00_alpha").best->when, "2026-01-02T00:00:00Z");
  launchlab::cli::forget_runs(folder, "00_alpha");
  progress = launchlab::cli::read_progress(folder, "00_alpha");
  EXPECT_FALSE(progress.best);
  EXPECT_FALSE(progress.last);
  EXPECT_EQ(progress.hints_shown, std::set<int>{2});

  // A damaged record reads as never tried, and the next run starts it again.
  std::ofstream(folder / "01_beta.json") << "{\"best\": {\"points\": \"many\"";
  EXPECT_FALSE(launchlab::cli::read_progress(folder, "01_beta").best);
  launchlab::cli::record_run(folder, "01_beta", LabScore{1, 3, 0, ""});
  progress = launchlab::cli::read_progress(folder, "01_beta");
  ASSERT_TRUE(progress.best);
  EXPECT_EQ(progress.best->points, 1);
  EXPECT_FALSE(progress.best->when.empty());
  fs::remove_all(folder);
}

TEST_F(LearnerCourse, ListShowsTheBestAndTheLastRunKeptOutsideTheBuild) {
  launchlab::cli::record_run(launchlab::cli::progress_folder(root_), "00_alpha", {12, 12, 4, "", {"a GPU"}});
  launchlab::cli::record_run(launchlab::cli::progress_folder(root_), "00_alpha", {7, 12, 4, "", {"a GPU"}});
  RunOutcome listed = launchlab_here({"list"});
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  std::istringstream lines(listed.output);
  std::string line, alpha, beta;
  while (std::getline(lines, line)) {
    if (line.find("00_alpha") != std::string::npos) alpha = line;
    if (line.find("01_beta") != std::string::npos) beta = line;
  }
  EXPECT_NE(alpha.find("12/12 points (+4 need a GPU)"), std::string::npos) << listed.output;
  EXPECT_NE(alpha.find("7/12 points"), std::string::npos) << listed.output;
  EXPECT_LT(alpha.find("12/12"), alpha.find("7/12")) << "best comes before last:\n" << listed.output;
  EXPECT_NE(beta.find("not tried yet"), std::string::npos) << listed.output;
  // The course's bar counts alpha's best over what was graded, never its 4
  // points that needed what the machine lacked.
  EXPECT_NE(listed.output.find("Course: ["), std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find("1/2 labs at full marks, 12/"), std::string::npos) << listed.output;
  if (!fs::exists("/proc/driver/nvidia/version")) {
    EXPECT_NE(listed.output.find("more need what this machine lacks"), std::string::npos) << listed.output;
  }
}

TEST_F(LearnerCourse, ResetPutsTheStarterBackOnlyWhenTheLearnerSaysYes) {
  const fs::path alpha = root_ / "labs" / "00_alpha" / "alpha.cpp";
  const fs::path stats = root_ / "labs" / "00_alpha" / "stats.cpp";
  const std::string starter_alpha = text_of(alpha);
  const std::string starter_stats = text_of(stats);
  std::ofstream(alpha) << "// the learner's work\n";
  std::ofstream(stats) << "// more of the learner's work\n";
  launchlab::cli::record_run(launchlab::cli::progress_folder(root_), "00_alpha", {12, 12, 4, ""});
  launchlab::cli::record_hint_shown(launchlab::cli::progress_folder(root_), "00_alpha", 1);

  // Not asked (no terminal) and no --yes: nothing changes.
  RunOutcome refused = launchlab_here({"reset", "00"});
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("--yes"), std::string::npos) << refused.output;
  EXPECT_EQ(text_of(alpha), "// the learner's work\n");

  RunOutcome reset = launchlab_here({"reset", "0", "--yes"});
  EXPECT_EQ(reset.exit_code, 0) << reset.output;
  EXPECT_EQ(text_of(alpha), starter_alpha);
  EXPECT_EQ(text_of(stats), starter_stats);
  auto progress = launchlab::cli::read_progress(launchlab::cli::progress_folder(root_), "00_alpha");
  EXPECT_FALSE(progress.best) << "a reset lab starts its runs again";
  EXPECT_EQ(progress.hints_shown, std::set<int>{1});
  // The other lab is left alone.
  EXPECT_EQ(launchlab_here({"reset", "07", "--yes"}).exit_code, 2);
}

// A learner who clones the course and commits their work still gets the
// course's starter back: it comes from the branch the clone came from.
TEST_F(LearnerCourse, ResetAfterTheLearnerCommitsPutsBackTheCoursesStarterNotTheirCommit) {
  const std::string starter = text_of(root_ / "labs" / "00_alpha" / "alpha.cpp");
  const fs::path clone = asked_ / "clone";
  RunLimits limits;
  limits.timeout = std::chrono::seconds(60);
  ASSERT_TRUE(run_limited({"git", "clone", "-q", root_.string(), clone.string()}, {}, {}, limits).exited_cleanly());
  launchlab::selftest::write_text(clone / "labs" / "00_alpha" / "alpha.cpp", "// the learner's committed work\n");
  launchlab::selftest::commit_all(clone, "my lab 00");

  const std::filesystem::path course = root_;
  root_ = clone;
  RunOutcome reset = launchlab_here({"reset", "00", "--yes"});
  root_ = course;
  EXPECT_EQ(reset.exit_code, 0) << reset.output;
  EXPECT_EQ(text_of(clone / "labs" / "00_alpha" / "alpha.cpp"), starter) << reset.output;
  EXPECT_NE(reset.output.find("from origin/"), std::string::npos) << "it says where the starter came from:\n"
                                                                  << reset.output;
}

// A failing run showed hint 2 only: `hint` shows hint 1, then says all were seen.
TEST_F(LearnerCourse, HintShowsTheHintsNotShownYetWhicheverWereShownFirst) {
  launchlab::cli::record_hint_shown(launchlab::cli::progress_folder(root_), "00_alpha", 2);
  RunOutcome first = launchlab_here({"hint", "00"});
  EXPECT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("Hint 1 of 2"), std::string::npos) << first.output;
  RunOutcome second = launchlab_here({"hint", "00"});
  EXPECT_NE(second.output.find("You have seen all 2 hints"), std::string::npos) << second.output;
  EXPECT_EQ(launchlab::cli::read_progress(launchlab::cli::progress_folder(root_), "00_alpha").hints_shown,
            (std::set<int>{1, 2}));
}

// ------------------------------------------------------------ the reader's language

namespace {

/// The environment of a learner whose only language setting is the one given.
std::vector<std::string> reading(const std::string& variable, const std::string& value) {
  std::vector<std::string> env = {"LAUNCHLAB_LANG=", "LC_ALL=", "LC_MESSAGES=", "LANG="};
  for (auto& entry : env) {
    if (entry == variable + "=") entry += value;
  }
  return env;
}

}  // namespace

TEST_F(Cli, HintSpeaksTheLanguageLaunchlabLangNames) {
  const launchlab::course::Lab lab = launchlab::course::load_lab(fs::path(LAUNCHLAB_SOURCE_DIR) / "labs" / "00_vadd_journey");
  const std::string chinese = lab.translations.at("zh_CN").hints.at(0);
  RunOutcome outcome = launchlab({"hint", "00", "--all"}, reading("LAUNCHLAB_LANG", "zh_CN"));
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_NE(outcome.output.find("Hint 1 of " + std::to_string(lab.hints.size()) + " for 00_vadd_journey:\n  " + chinese + "\n"),
            std::string::npos)
      << outcome.output;
  EXPECT_EQ(outcome.output.find(lab.hints.at(0)), std::string::npos) << "the English hint is shown too:\n" << outcome.output;
  // LAUNCHLAB_LANG comes before the locale.
  std::vector<std::string> both = reading("LAUNCHLAB_LANG", "zh_CN");
  both.back() = "LANG=pt_BR.UTF-8";
  EXPECT_NE(launchlab({"hint", "00", "--all"}, both).output.find(chinese), std::string::npos);
}

TEST_F(LearnerCourse, TheLocaleChoosesTheLanguageAndAnUnknownOneIsEnglish) {
  const launchlab::course::Lab alpha = launchlab::course::load_lab(root_ / "labs" / "00_alpha");
  RunOutcome portuguese = launchlab_here({"hint", "00"}, reading("LANG", "pt_BR.UTF-8"));
  EXPECT_EQ(portuguese.exit_code, 0) << portuguese.output;
  EXPECT_NE(portuguese.output.find(alpha.translations.at("pt_BR").hints.at(0)), std::string::npos) << portuguese.output;
  RunOutcome messages = launchlab_here({"hint", "00"}, reading("LC_MESSAGES", "zh_CN.UTF-8"));
  EXPECT_NE(messages.output.find(alpha.translations.at("zh_CN").hints.at(1)), std::string::npos) << messages.output;
  for (const auto& unknown : {reading("LAUNCHLAB_LANG", "fr_FR"), reading("LC_ALL", "C"), reading("LANG", "")}) {
    RunOutcome english = launchlab_here({"hint", "00", "--all"}, unknown);
    EXPECT_NE(english.output.find(alpha.hints.at(0)), std::string::npos) << english.output;
    EXPECT_NE(english.output.find(alpha.hints.at(1)), std::string::npos) << english.output;
  }
}

// list's title column keeps its width in columns, not bytes, whatever the
// language: the best column starts at the same place on every line.
TEST_F(LearnerCourse, ListShowsTheTitlesInTheReadersLanguageInOneColumn) {
  const auto alpha = launchlab::course::load_lab(root_ / "labs" / "00_alpha").translations.at("zh_CN").title;
  const auto beta = launchlab::course::load_lab(root_ / "labs" / "01_beta").translations.at("zh_CN").title;
  RunOutcome listed = launchlab_here({"list"}, reading("LAUNCHLAB_LANG", "zh_CN"));
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  std::istringstream lines(listed.output);
  std::string line, alpha_line, beta_line;
  while (std::getline(lines, line)) {
    if (line.starts_with("00 ")) alpha_line = line;
    if (line.starts_with("01 ")) beta_line = line;
  }
  ASSERT_NE(alpha_line.find(alpha), std::string::npos) << listed.output;
  ASSERT_NE(beta_line.find(beta), std::string::npos) << listed.output;
  // Each Chinese character is three bytes and two columns wide.
  const auto column_of_best = [](const std::string& row, const std::string& title) {
    return row.find("not tried yet") - title.size() / 3;
  };
  EXPECT_EQ(column_of_best(alpha_line, alpha), column_of_best(beta_line, beta)) << listed.output;
}

// Each language of docs/locale is asked of every lab: lint names the lab,
// the language and what its translation lacks.
TEST_F(LearnerCourse, LintNamesALabWhoseProseLacksALanguage) {
  fs::create_directories(root_ / "docs" / "locale" / "pt_BR");
  fs::create_directories(root_ / "docs" / "locale" / "zh_CN");
  RunOutcome whole = launchlab_here({"lint"});
  EXPECT_EQ(whole.output.find("[translations."), std::string::npos) << "the fixture speaks both:\n" << whole.output;
  const fs::path beta = root_ / "labs" / "01_beta" / "lab.toml";
  std::string text = text_of(beta);
  text.replace(text.find("hints = [\"记住目前见过的最大值。\"]"), std::string("hints = [\"记住目前见过的最大值。\"]").size(), "");
  std::ofstream(beta, std::ios::trunc) << text;
  fs::create_directories(root_ / "docs" / "locale" / "ja_JP");
  RunOutcome linted = launchlab_here({"lint"});
  EXPECT_EQ(linted.exit_code, 1) << linted.output;
  EXPECT_NE(linted.output.find("01_beta: [translations.zh_CN] has 0 hints, but the lab has 1"), std::string::npos)
      << linted.output;
  EXPECT_NE(linted.output.find("00_alpha: lab.toml has no [translations.ja_JP]"), std::string::npos) << linted.output;
}

TEST_F(Cli, TestOnlyRefusesATestTheLabDoesNotHave) {
  expect_refused({"test", "00", "--only"}, "--only");
  RunOutcome outcome = launchlab({"test", "00", "--only", "GridArithmetic.NoSuchTest"});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
  EXPECT_NE(outcome.output.find("has no test named GridArithmetic.NoSuchTest"), std::string::npos) << outcome.output;
}

// The hints are tied to tests by number: lint names a number that is no
// hint's (with its line, as the course model reads it) and a hint no test names.
TEST_F(LearnerCourse, LintRefusesAHintNumberThatIsNoHintAndAHintNoTestNames) {
  auto replace_once = [](const fs::path& file, const std::string& from, const std::string& to) {
    std::string text = text_of(file);
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << file << " has no " << from;
    text.replace(at, from.size(), to);
    std::ofstream(file, std::ios::trunc) << text;
  };
  replace_once(root_ / "labs" / "01_beta" / "lab.toml", "hint = 1", "hint = 3");
  replace_once(root_ / "labs" / "00_alpha" / "lab.toml", "points = 2\nhint = 2", "points = 2\nhint = 1");
  RunOutcome linted = launchlab_here({"lint"});
  EXPECT_EQ(linted.exit_code, 1) << linted.output;
  EXPECT_NE(linted.output.find("labs/01_beta/lab.toml:13: the hint of Beta.FindsTheLargest is 3, but the lab has hints 1 to 1"),
            std::string::npos)
      << linted.output;
  EXPECT_NE(linted.output.find("00_alpha: hint 2 is named by no test"), std::string::npos) << linted.output;
}

// ------------------------------------------------------------ stated rules tested

TEST(StatedRules, AHeaderPromisesWhatItsCommentsSayOfTheDeclarationThatFollows) {
  const std::string header =
      "/// Reads a listing.\n"
      "/// @throws std::invalid_argument when the text is empty\n"
      "/// @throws ParseError naming the line\n"
      "std::vector<Function> parse_listing(std::string_view text);\n"
      "\n"
      "/// Reads one line. Throws std::runtime_error(\"line N: ...\") when it\n"
      "/// does not parse; it never throws otherwise (this Throws nothing).\n"
      "template <class T>\n"
      "T read_line(std::string_view line);\n"
      "\n"
      "/// A ring.\n"
      "struct Ring {\n"
      "  /// @throws RingError when entries is 0\n"
      "  explicit Ring(std::size_t entries);\n"
      "};\n"
      "/// Not a promise: no type follows.\n"
      "int quiet();\n";
  const std::vector<launchlab::cli::StatedThrow> stated = launchlab::cli::stated_throws(header);
  std::vector<std::pair<std::string, std::string>> promises;
  for (const auto& promise : stated) promises.emplace_back(promise.function, promise.exception);
  EXPECT_EQ(promises, (std::vector<std::pair<std::string, std::string>>{{"parse_listing", "std::invalid_argument"},
                                                                        {"parse_listing", "ParseError"},
                                                                        {"read_line", "std::runtime_error"},
                                                                        {"Ring", "RingError"}}));
  ASSERT_FALSE(stated.empty());
  EXPECT_EQ(stated.front().line, 2u);
}

TEST(StatedRules, ATestChecksAPromiseWhenItsStatementCallsTheFunctionAndExpectsTheType) {
  const std::string source =
      "TEST(Listing, RejectsEmptyText) {\n"
      "  RECORD_THROWS(parse_listing(\"\"), std::invalid_argument) << \"empty\";\n"
      "}\n"
      "TEST_F(Rings, RejectsNoEntries) {\n"
      "  const std::string message = lt::message_thrown<RingError>([&] { Ring ring(0); });\n"
      "  RECORD_THROWS(make_pair(parse_listing_twice(text), 1), ParseError);\n"
      "}\n"
      "TEST(Launch, ReportsAFailedCudaCall) {\n"
      "  RECORD_THROWS_WITHOUT_A_GPU((void)measure(one_trial()), std::runtime_error);\n"
      "}\n"
      "TEST(Modules, ReportTheDriversRefusal) {\n"
      "  RECORD_THROWS_IN_A_FORKED_CHILD((void)load_state(*small), DriverError);\n"
      "}\n";
  const std::vector<launchlab::cli::TestedThrow> tested = launchlab::cli::tested_throws(source);
  std::vector<std::pair<std::string, std::string>> checks;
  for (const auto& check : tested) checks.emplace_back(check.test, check.exception);
  EXPECT_EQ(checks, (std::vector<std::pair<std::string, std::string>>{{"Listing.RejectsEmptyText", "std::invalid_argument"},
                                                                      {"Rings.RejectsNoEntries", "RingError"},
                                                                      {"Rings.RejectsNoEntries", "ParseError"},
                                                                      {"Launch.ReportsAFailedCudaCall", "std::runtime_error"},
                                                                      {"Modules.ReportTheDriversRefusal", "DriverError"}}));

  using launchlab::cli::StatedThrow;
  EXPECT_EQ(launchlab::cli::test_of(StatedThrow{2, "parse_listing", "std::invalid_argument"}, tested),
            std::optional<std::string>("Listing.RejectsEmptyText"));
  EXPECT_EQ(launchlab::cli::test_of(StatedThrow{3, "Ring", "RingError"}, tested),
            std::optional<std::string>("Rings.RejectsNoEntries"));
  EXPECT_EQ(launchlab::cli::test_of(StatedThrow{4, "measure", "std::runtime_error"}, tested),
            std::optional<std::string>("Launch.ReportsAFailedCudaCall"));
  EXPECT_EQ(launchlab::cli::test_of(StatedThrow{5, "load_state", "DriverError"}, tested),
            std::optional<std::string>("Modules.ReportTheDriversRefusal"));
  // Another type, or a name that is only the start of another function's, is no test of it.
  EXPECT_FALSE(launchlab::cli::test_of(StatedThrow{2, "parse_listing", "std::runtime_error"}, tested));
  EXPECT_FALSE(launchlab::cli::test_of(StatedThrow{3, "parse_listing", "ParseError"}, tested));

  // A test outside the header's namespace names the type with it, a header
  // may name another namespace's type: either checks the other's promise.
  const std::vector<launchlab::cli::TestedThrow> qualified =
      launchlab::cli::tested_throws("TEST(Listing, RejectsCutText) { RECORD_THROWS(parse_listing(\"x\"), listing::ParseError); }\n"
                                    "TEST(Listing, RejectsBadLines) { RECORD_THROWS(read_line(\"x\"), LineError); }\n");
  EXPECT_EQ(launchlab::cli::test_of(StatedThrow{2, "parse_listing", "ParseError"}, qualified),
            std::optional<std::string>("Listing.RejectsCutText"));
  EXPECT_EQ(launchlab::cli::test_of(StatedThrow{2, "read_line", "io::LineError"}, qualified),
            std::optional<std::string>("Listing.RejectsBadLines"));
  // Only whole namespaces may differ: another namespace's type, or a longer name, is not it.
  EXPECT_FALSE(launchlab::cli::test_of(StatedThrow{2, "parse_listing", "other::ParseError"}, qualified));
  EXPECT_FALSE(launchlab::cli::test_of(StatedThrow{2, "read_line", "BadLineError"}, qualified));
}

TEST_F(LearnerCourse, LintNamesAPromisedExceptionNoTestChecks) {
  launchlab::selftest::write_text(root_ / "labs" / "00_alpha" / "promises.h",
                                  "#pragma once\n"
                                  "/// @throws std::domain_error when n is negative\n"
                                  "int promised_but_untested(int n);\n");
  RunOutcome linted = launchlab_here({"lint"});
  EXPECT_EQ(linted.exit_code, 1) << linted.output;
  EXPECT_NE(linted.output.find("labs/00_alpha/promises.h:2: promised_but_untested promises std::domain_error, which no "
                               "test of 00_alpha checks"),
            std::string::npos)
      << linted.output;
}

TEST_F(Cli, DoctorPrintsVersionsAndBlamesNoDriverThatIsNotThere) {
  RunOutcome outcome = launchlab({"doctor"});
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_EQ(outcome.output.find("Cuda compilation tools"), std::string::npos) << "a build string, not a version:\n"
                                                                            << outcome.output;
  for (const char* tool : {"nvcc", "cmake", "g\\+\\+", "ninja"}) {
    const std::regex version(std::string("\n  ") + tool + R"( +[0-9]+\.[0-9]+(\.[0-9]+)*)");
    EXPECT_TRUE(std::regex_search(outcome.output, version)) << tool << " has no version in:\n" << outcome.output;
  }
  if (!fs::exists("/proc/driver/nvidia/version")) {
    EXPECT_NE(outcome.output.find("no NVIDIA driver here"), std::string::npos) << outcome.output;
  }
  for (const char* command : {"\n  test ", "\n  grade ", "\n  docs ", "\n  inspect ", "\n  trace "}) {
    EXPECT_NE(outcome.output.find(command), std::string::npos) << command << " is not said in:\n" << outcome.output;
  }
}

// ------------------------------------------------------------ the student edition

namespace {

RunOutcome launchlab_on(const fs::path& course, const fs::path& build, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {LAUNCHLAB_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  RunLimits limits;
  limits.timeout = std::chrono::minutes(10);
  return run_limited(argv, {}, {"LAUNCHLAB_ROOT=" + course.string(), "LAUNCHLAB_BUILD_DIR=" + build.string()}, limits);
}

}  // namespace

// The fixture course exported as students get it: not one solution file goes
// with it, and its own grade, from the expectations alone, judges the
// starters below full marks and the solutions (handed in as a submission)
// at full marks.
TEST(StudentEdition, HoldsNoSolutionAndItsGradeJudgesFromTheExpectations) {
  using namespace launchlab::selftest;
  const fs::path work = fresh_temp_dir("student-edition");
  const fs::path course = work / "course";
  compose_fixture_course(course);
  commit_all(course, "the fixture course");
  const fs::path build = work / "course-build";

  write_text(work / "taken" / "notes.txt", "an instructor's notes\n");
  RunOutcome refused = launchlab_on(course, build, {"export-student", (work / "taken").string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("not an empty folder"), std::string::npos) << refused.output;

  // An uncommitted edit is not the course.
  write_text(course / "labs" / "00_alpha" / "uncommitted.txt", "not committed\n");
  const fs::path edition = work / "edition";
  RunOutcome exported = launchlab_on(course, build, {"export-student", edition.string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  EXPECT_FALSE(fs::exists(edition / "labs" / "00_alpha" / "uncommitted.txt"));
  EXPECT_FALSE(fs::exists(edition / "solutions"));
  std::map<std::string, fs::path> solution_texts;
  for (const auto& entry : fs::recursive_directory_iterator(course / "solutions")) {
    if (entry.is_regular_file()) solution_texts[read_text(entry.path())] = entry.path();
  }
  ASSERT_FALSE(solution_texts.empty());
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(edition)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    auto same = solution_texts.find(read_text(entry.path()));
    EXPECT_EQ(same, solution_texts.end()) << entry.path() << " holds the text of " << same->second;
  }
  EXPECT_GT(files, 10);
  EXPECT_TRUE(fs::is_regular_file(edition / "expectations" / "00_alpha.transcript"));
  EXPECT_TRUE(fs::is_regular_file(edition / "labs" / "01_beta" / "fixtures" / "values.txt"))
      << "a lab's material goes with its lab";
  EXPECT_NE(read_text(edition / "README.md").find("./launchlab test 00"), std::string::npos);

  const fs::path edition_build = work / "edition-build";
  auto grade = [&](const std::vector<std::string>& extra, const fs::path& json_path) {
    std::vector<std::string> args = {"grade", "--json", json_path.string(), "--work", (work / "grading").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    RunOutcome run = launchlab_on(edition, edition_build, args);
    nlohmann::json results = nlohmann::json::parse(read_text(json_path), nullptr, false);
    return std::make_pair(run, results);
  };
  auto [starters, starter_results] = grade({}, work / "starters.json");
  EXPECT_EQ(starters.exit_code, 1) << starters.output;
  ASSERT_TRUE(starter_results.is_object()) << starters.output;
  int judged = 0, passed_points = 0, judged_points = 0;
  for (const auto& test : starter_results["tests"]) {
    const std::string status = test.value("status", "");
    const std::string outcome = test.contains("extra_data") ? test["extra_data"].value("outcome", "") : "";
    if (outcome == "passed" || outcome == "failed") {
      ++judged;
      judged_points += test.value("max_score", 0);
      passed_points += test.value("score", 0);
    }
  }
  EXPECT_GT(judged, 0) << "the edition graded nothing:\n" << starters.output;
  EXPECT_LT(passed_points, judged_points) << starters.output;
  // A grade of the course's own labs is the learner's run: list shows it.
  RunOutcome listed = launchlab_on(edition, edition_build, {"list"});
  EXPECT_EQ(listed.output.find("not tried yet"), std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find(" points"), std::string::npos) << listed.output;

  auto [solutions, solution_results] = grade({"--submission", (course / "solutions").string()}, work / "solutions.json");
  EXPECT_EQ(solutions.exit_code, 0) << "the solutions, graded from the expectations, lose points:\n" << solutions.output;

  // The edition is the learner's repository: after they commit their work,
  // reset still puts back the starter the edition was exported with.
  const fs::path alpha = edition / "labs" / "00_alpha" / "alpha.cpp";
  const std::string starter = read_text(alpha);
  write_text(alpha, "// the learner's committed work\n");
  commit_all(edition, "my lab 00");
  RunOutcome reset = launchlab_on(edition, edition_build, {"reset", "00", "--yes"});
  EXPECT_EQ(reset.exit_code, 0) << reset.output;
  EXPECT_EQ(read_text(alpha), starter) << reset.output;

  // The edition keeps the course's own commands honest: no solutions to run.
  RunOutcome solution = launchlab_on(edition, edition_build, {"test", "00", "--solution"});
  EXPECT_EQ(solution.exit_code, 2) << solution.output;
  fs::remove_all(work);
}

TEST_F(Cli, DocsRefusesALanguageTheSiteHasNotAndNamesTheEditions) {
  expect_refused({"docs", "--language", "fr"}, "The site has no edition in 'fr'; it has: en, pt_BR, zh_CN.");
}
