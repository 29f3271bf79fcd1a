// The launchlab program's command line: every command answers --help at
// once, and an unknown command or option, a missing or a bad value is an
// error that names it, said before anything is built, graded or written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "launchlab/cli/arguments.h"
#include "launchlab/grader/process.h"

namespace fs = std::filesystem;
using launchlab::cli::closest;
using namespace launchlab::grader;

namespace {

/// A build folder of its own for each test: nothing may appear in it.
class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device entropy;
    build_ = fs::temp_directory_path() / ("launchlab-cli-" + std::to_string(getpid()) + "-" + std::to_string(entropy()));
    fs::create_directories(build_);
  }
  void TearDown() override {
    EXPECT_TRUE(fs::is_empty(build_)) << "the command wrote into its build folder";
    fs::remove_all(build_);
  }

  /// Runs the launchlab program on the course, with an empty build folder.
  RunOutcome launchlab(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {LAUNCHLAB_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    RunLimits limits;
    limits.timeout = std::chrono::seconds(60);
    const auto start = std::chrono::steady_clock::now();
    RunOutcome outcome = run_limited(argv, {}, {"LAUNCHLAB_ROOT=" LAUNCHLAB_SOURCE_DIR, "LAUNCHLAB_BUILD_DIR=" + build_.string()}, limits);
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

TEST_F(Cli, EveryCommandHasItsOwnHelp) {
  for (const char* command : {"list", "test", "hint", "docs", "inspect", "grade", "doctor", "check", "lint"}) {
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
    const fs::path json = build_ / "results.json";
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
