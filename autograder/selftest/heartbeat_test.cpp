// A long step the learner waits on never stays silent for ten seconds: the
// heartbeat's decisions on made-up times, the watch that writes its lines,
// and the front script's step (autograder/cli/step.bash), which keeps the
// same pace while the launchlab program itself is being built.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "launchlab/grader/heartbeat.h"
#include "launchlab/grader/process.h"

using namespace launchlab::grader;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// A watch called as run_limited calls it (every 100 ms here) through a
/// step that prints `output` at the times given and nothing else, until
/// `end`; returns when each line was written.
std::vector<double> line_times(const std::vector<std::pair<double, std::string>>& output, double end) {
  std::ostringstream out;
  RunWatch watch = heartbeat_watch(out, "building lab 00's tests", true);
  std::vector<double> times;
  std::size_t next = 0;
  std::size_t lines_seen = 0;
  for (int tick = 0; tick <= static_cast<int>(end * 10); ++tick) {
    const double now = tick / 10.0;
    std::string fresh;
    if (next < output.size() && output[next].first <= now) fresh = output[next++].second;
    EXPECT_FALSE(watch(fresh, now)) << "a heartbeat never stops the step";
    for (std::size_t lines = lines_of(out.str()).size(); lines_seen < lines; ++lines_seen) times.push_back(now);
  }
  return times;
}

/// Runs bash with the front script's step loaded (and its pace set to
/// `pace` seconds when given), then `script`.
RunOutcome bash_with_step(const std::string& script, const std::string& pace = "") {
  const std::string root = LAUNCHLAB_SOURCE_DIR;
  std::string program = "set -euo pipefail; root='" + root + "'; say() { printf 'launchlab: %s\\n' \"$*\" >&2; }; "
                        "source \"$root/autograder/cli/step.bash\"; ";
  if (!pace.empty()) program += "heartbeat=" + pace + "; ";
  RunLimits limits;
  limits.timeout = std::chrono::seconds(60);
  return run_limited({"bash", "-c", program + script}, {}, {}, limits);
}

}  // namespace

TEST(Heartbeat, SaysNothingWhileTheStepWasHeardFromLately) {
  Heartbeat heartbeat("building lab 00's tests", 8);
  EXPECT_FALSE(heartbeat.due(0));
  EXPECT_FALSE(heartbeat.due(7.9));
  heartbeat.shown(7.9);
  EXPECT_FALSE(heartbeat.due(15.8)) << "the silence started again at 7.9 s";
}

TEST(Heartbeat, SaysWhatGoesOnAndForHowLongOncePerSilence) {
  Heartbeat heartbeat("building lab 00's tests", 8);
  EXPECT_EQ(heartbeat.due(8.2), "still building lab 00's tests (8 s so far)");
  EXPECT_FALSE(heartbeat.due(9)) << "a line a silence, not a line a call";
  EXPECT_EQ(heartbeat.due(16.2), "still building lab 00's tests (16 s so far)");
  heartbeat.shown(20);
  EXPECT_FALSE(heartbeat.due(27));
  EXPECT_EQ(heartbeat.due(28), "still building lab 00's tests (28 s so far)");
}

TEST(HeartbeatWatch, NoSilenceOfTenSecondsAndNoMoreThanALineInFiveSeconds) {
  // One compile that takes five minutes after two quick ones: the longest
  // step a learner's first build has on 2 cores.
  const std::vector<double> times =
      line_times({{0.5, "[1/3] Building CXX object a.o\n"}, {1.0, "[2/3] Building CXX object b.o\n"},
                  {301.0, "[3/3] Linking CXX executable lab_00_tests\n"}},
                 302);
  ASSERT_FALSE(times.empty());
  EXPECT_LT(times.front(), 10);
  double longest = 0;
  for (std::size_t i = 1; i < times.size(); ++i) longest = std::max(longest, times[i] - times[i - 1]);
  EXPECT_LT(longest, 10) << "the longest silence";
  EXPECT_LE(times.size(), 3 + 300 / 5u) << "calm: a line in five seconds at most";
}

TEST(HeartbeatWatch, PassesTheOutputOnAndEndsAnUnfinishedLineBeforeItsOwn) {
  std::ostringstream out;
  RunWatch watch = heartbeat_watch(out, "building the course site", true, 8);
  watch("reading sources... [ 50%] index", 1);
  watch("", 5);
  watch("", 9.5);
  watch("\n", 10);
  EXPECT_EQ(out.str(),
            "reading sources... [ 50%] index\n"
            "launchlab: still building the course site (9 s so far)\n"
            "\n");
}

TEST(HeartbeatWatch, KeepsTheOutputBackWhenAskedAndStillSaysThatTheStepGoesOn) {
  std::ostringstream out;
  RunWatch watch = heartbeat_watch(out, "configuring the course", false, 8);
  watch("-- Configuring done\n", 1);
  watch("", 8.5);
  EXPECT_EQ(out.str(), "launchlab: still configuring the course (8 s so far)\n")
      << "kept-back output does not count as heard from";
}

TEST(HeartbeatWatch, SpeaksDuringARealSilentProgram) {
  std::ostringstream out;
  RunLimits limits;
  limits.timeout = std::chrono::seconds(60);
  RunOutcome outcome = run_limited({"/bin/sh", "-c", "echo start; sleep 1.5; echo end"}, {}, {}, limits,
                                   heartbeat_watch(out, "waiting for sleep", true, 0.5));
  ASSERT_TRUE(outcome.exited_cleanly()) << outcome.output;
  // In order, whatever the machine's load: the silence of 1.5 s is said.
  const std::string shown = out.str();
  const auto start = shown.find("start\n");
  const auto still = shown.find("launchlab: still waiting for sleep (", start);
  ASSERT_NE(start, std::string::npos) << shown;
  ASSERT_NE(still, std::string::npos) << shown;
  EXPECT_NE(shown.find("end\n", still), std::string::npos) << shown;
}

TEST(FrontScriptStep, KeepsThePaceOfTheLaunchlabProgram) {
  RunOutcome outcome = bash_with_step("echo \"$heartbeat\"");
  ASSERT_TRUE(outcome.exited_cleanly()) << outcome.output;
  EXPECT_EQ(outcome.output, std::to_string(static_cast<int>(kHeartbeatSeconds)) + "\n");
}

TEST(FrontScriptStep, SaysThatASilentStepGoesOnAndKeepsItsOutputAndStatus) {
  RunOutcome outcome = bash_with_step("step show 'configuring the course' sh -c 'echo first; sleep 2.5; echo last; exit 3'", "1");
  EXPECT_EQ(outcome.exit_code, 3) << outcome.output;
  const std::string& shown = outcome.output;
  const auto first = shown.find("first\n");
  const auto still = shown.find("launchlab: still configuring the course (", first);
  ASSERT_NE(first, std::string::npos) << shown;
  ASSERT_NE(still, std::string::npos) << shown;
  EXPECT_NE(shown.find(" s so far)\n", still), std::string::npos) << shown;
  EXPECT_NE(shown.find("last\n", still), std::string::npos) << shown;
}

TEST(FrontScriptStep, OutputKeptBackDoesNotCountAsSaid) {
  RunOutcome outcome = bash_with_step("step quiet 'rebuilding' sh -c 'for i in 1 2 3 4 5 6; do echo tick; sleep 0.5; done'", "1");
  EXPECT_TRUE(outcome.exited_cleanly()) << outcome.output;
  EXPECT_EQ(outcome.output.find("tick"), std::string::npos) << outcome.output;
  EXPECT_NE(outcome.output.find("launchlab: still rebuilding ("), std::string::npos)
      << "3 s of output kept back is 3 s of silence:\n" << outcome.output;
}

TEST(FrontScriptStep, QuietShowsTheOutputOnlyWhenTheStepFails) {
  RunOutcome quiet = bash_with_step("step quiet 'rebuilding' sh -c 'echo no work to do'");
  EXPECT_TRUE(quiet.exited_cleanly()) << quiet.output;
  EXPECT_EQ(quiet.output, "");
  RunOutcome failed = bash_with_step("step quiet 'rebuilding' sh -c 'echo error: x.cpp:1; exit 1'");
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_EQ(failed.output, "error: x.cpp:1\n");
}

TEST(Heartbeat, ABuildWithNothingToDoSaysNothingAndOneThatBuildsSaysWhatItDoes) {
  std::ostringstream quiet;
  RunWatch nothing = build_watch(quiet, "building the inspect tools from your labs", 8);
  nothing("[0/2] Re-checking globbed directories...\nninja: no", 0.3);
  nothing(" work to do.\n", 0.4);
  nothing("", 0.5);
  EXPECT_EQ(quiet.str(), "");

  std::ostringstream busy;
  RunWatch building = build_watch(busy, "building the inspect tools from your labs", 8);
  building("[0/2] Re-checking globbed directories...\n[1/3] Building CXX obj", 0.2);
  EXPECT_EQ(busy.str(), "") << "a line is shown once it ends";
  building("ect main.cpp.o\n", 0.3);
  building("", 9.0);
  EXPECT_EQ(busy.str(),
            "launchlab: building the inspect tools from your labs\n[1/3] Building CXX object main.cpp.o\n"
            "launchlab: still building the inspect tools from your labs (9 s so far)\n");

  std::ostringstream slow;
  RunWatch silent = build_watch(slow, "building the course site", 8);
  silent("", 8.1);
  EXPECT_EQ(slow.str(), "launchlab: building the course site\nlaunchlab: still building the course site (8 s so far)\n")
      << "a build silent for long says what it is before how long it has taken";
}
