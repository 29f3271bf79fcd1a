// The limits that keep a misbehaving test program from taking the grader
// down with it, in every sandbox kind this machine can run.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "launchlab/grader/gpu_turns.h"
#include "launchlab/grader/process.h"
#include "sandbox_kinds.h"

using namespace launchlab::grader;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

class RunLimited : public testing::TestWithParam<SandboxKind> {
 protected:
  void SetUp() override { LAUNCHLAB_SKIP_UNLESS_AVAILABLE(GetParam()); }

  const Sandbox& sandbox() const { return *launchlab::selftest::available_sandbox(GetParam()).sandbox; }

  RunOutcome sh(const std::string& script, RunLimits limits = {}, const RunWatch& watch = {}) const {
    return run_limited({"/bin/sh", "-c", script}, {}, {}, limits, sandbox(), watch);
  }
};

INSTANTIATE_TEST_SUITE_P(Sandbox, RunLimited, testing::ValuesIn(launchlab::selftest::every_sandbox_kind),
                         launchlab::selftest::kind_name);

}  // namespace

TEST_P(RunLimited, CollectsOutputAndExitStatus) {
  RunOutcome outcome = sh("echo out; echo err >&2; exit 3");
  EXPECT_EQ(outcome.exit_code, 3);
  EXPECT_EQ(outcome.output, "out\nerr\n");
  EXPECT_FALSE(outcome.timed_out);
}

TEST_P(RunLimited, StopsAProgramThatHangs) {
  RunLimits limits;
  limits.timeout = 500ms;
  RunOutcome outcome = sh("sleep 30", limits);
  EXPECT_TRUE(outcome.timed_out);
  EXPECT_LT(outcome.seconds, 5.0);
  EXPECT_NE(outcome.describe(limits).find("timed out"), std::string::npos);
}

TEST_P(RunLimited, StopsAFloodAndKeepsOnlyItsEnds) {
  RunLimits limits;
  limits.output_limit = 1u << 20;
  limits.output_kept = 4096;
  RunOutcome outcome = sh("yes flood", limits);
  EXPECT_TRUE(outcome.flooded);
  EXPECT_LE(outcome.output.size(), 4096u + 100u);
  EXPECT_GT(outcome.output_bytes, 1u << 20);
  EXPECT_NE(outcome.describe(limits).find("MiB of output"), std::string::npos);
}

TEST_P(RunLimited, DoesNotWaitForAProcessLeftBehind) {
  // The child exits at once but leaves a grandchild holding the output pipe.
  RunLimits limits;
  limits.timeout = 20s;
  RunOutcome outcome = sh("sleep 30 & echo left", limits);
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_LT(outcome.seconds, 5.0);
  EXPECT_NE(outcome.output.find("left"), std::string::npos);
}

TEST_P(RunLimited, ReportsTheSignalThatEndedTheProgram) {
  RunOutcome outcome = sh("kill -SEGV $$");
  ASSERT_TRUE(outcome.signal.has_value()) << outcome.describe({});
  EXPECT_EQ(*outcome.signal, 11);
  EXPECT_FALSE(outcome.exit_code.has_value());
  EXPECT_NE(outcome.describe({}).find("signal 11"), std::string::npos);
}

TEST_P(RunLimited, LetsAWatchStopTheRun) {
  RunOutcome outcome = sh("echo start; sleep 30", {}, [](std::string_view fresh, double) -> std::optional<std::string> {
    if (fresh.find("start") != std::string_view::npos) return std::string("saw start");
    return std::nullopt;
  });
  EXPECT_EQ(outcome.stopped_by_watch, "saw start");
  EXPECT_LT(outcome.seconds, 5.0);
}

TEST_P(RunLimited, SaysSoWhenTheProgramCannotStart) {
  RunOutcome outcome = run_limited({"/nonexistent/program"}, {}, {}, {}, sandbox());
  EXPECT_FALSE(outcome.exited_cleanly());
  if (sandbox().uses_bubblewrap()) {
    // bwrap says so itself.
    EXPECT_NE(outcome.output.find("/nonexistent/program"), std::string::npos) << outcome.output;
  } else {
    EXPECT_EQ(outcome.exit_code, 127);
    EXPECT_NE(outcome.output.find("could not start"), std::string::npos);
  }
}

TEST_P(RunLimited, TheWatchSeesOutputReadAfterTheProgramEnded) {
  // The last words of a program that dies at once are read after it is
  // reaped; the watch must still see them (they name the test that crashed).
  std::string seen;
  RunOutcome outcome = sh("echo last words; kill -SEGV $$", {}, [&](std::string_view fresh, double) -> std::optional<std::string> {
    seen.append(fresh);
    return std::nullopt;
  });
  ASSERT_TRUE(outcome.signal.has_value());
  EXPECT_NE(seen.find("last words"), std::string::npos) << "the watch saw: " << seen;
}

TEST_P(RunLimited, PassesTheEnvironmentItIsGiven) {
  RunOutcome outcome = sh("echo \"$LAUNCHLAB_PROBE\"", {}, {});
  EXPECT_EQ(outcome.output, "\n");
  outcome = run_limited({"/bin/sh", "-c", "echo \"$LAUNCHLAB_PROBE\""}, {}, {"LAUNCHLAB_PROBE=given"}, {}, sandbox());
  EXPECT_EQ(outcome.output, "given\n");
}

TEST_P(RunLimited, ASandboxedProgramSeesOnlyTheAllowListOfTheGradersEnvironment) {
  // Set in this process for the test's length: what the grader's own
  // environment holds (an instructor's token, say).
  ASSERT_EQ(setenv("LAUNCHLAB_CANARY_TOKEN", "canary-5f1e", 1), 0);
  ASSERT_EQ(setenv("LC_MESSAGES", "C", 1), 0);
  RunOutcome outcome = sh("env");
  unsetenv("LAUNCHLAB_CANARY_TOKEN");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
  const bool sandboxed = GetParam() != SandboxKind::none;
  EXPECT_EQ(outcome.output.find("canary-5f1e") == std::string::npos, sandboxed) << outcome.output;
  EXPECT_NE(outcome.output.find("LC_MESSAGES=C"), std::string::npos) << outcome.output;
  EXPECT_NE(outcome.output.find("PATH="), std::string::npos) << outcome.output;
}

TEST(EnvironmentAllowList, NamesWhatTheTestsNeedAndNothingElse) {
  for (const char* entry : {"PATH=/usr/bin", "HOME=/home/a", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm",
                            "CUDA_VISIBLE_DEVICES=0", "LD_LIBRARY_PATH=/usr/local/nvidia/lib64",
                            "LAUNCHLAB_OPEN_GPU_DOC=/opt/open-gpu-doc"}) {
    EXPECT_TRUE(passes_to_sandbox(entry)) << entry;
  }
  for (const char* entry : {"LAUNCHLAB_CANARY_TOKEN=x", "AWS_SECRET_ACCESS_KEY=x", "LAUNCHLAB_GPU_LOCK=/tmp/x",
                            "PATHEXT=x", "SSH_AUTH_SOCK=/run/a", "LD_PRELOAD=/tmp/x.so", "GITHUB_TOKEN=x"}) {
    EXPECT_FALSE(passes_to_sandbox(entry)) << entry;
  }
}

TEST(GraderLocks, ALockPathOtherUsersCanReachMovesToTheGradersOwnFolder) {
  const fs::path folder = grader_lock_folder();
  struct stat info {};
  ASSERT_EQ(lstat(folder.c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, geteuid());
  EXPECT_EQ(info.st_mode & 077, 0u) << folder;
  // The temporary folder is everyone's: a lock there is taken in the grader's own folder.
  EXPECT_EQ(grader_lock_path(fs::temp_directory_path() / "launchlab-gpu.lock"), folder / "launchlab-gpu.lock");
  EXPECT_EQ(grader_lock_path(folder / "gpu.lock"), folder / "gpu.lock");
  FileLock lock(grader_lock_path(fs::temp_directory_path() / "launchlab-selftest.lock"));
  EXPECT_TRUE(lock.held());
  ASSERT_EQ(lstat((folder / "launchlab-selftest.lock").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 077, 0u);
}

TEST_P(RunLimited, KeepsTheRunToTheCoresItIsGiven) {
  const std::vector<int> cores = usable_cores();
  ASSERT_FALSE(cores.empty());
  RunLimits limits;
  limits.cpus = {cores.back()};
  RunOutcome outcome = sh("grep Cpus_allowed_list /proc/self/status", limits);
  EXPECT_EQ(outcome.output, "Cpus_allowed_list:\t" + std::to_string(cores.back()) + "\n");
  outcome = sh("nproc");
  EXPECT_EQ(outcome.output, std::to_string(cores.size()) + "\n") << "without cpus the run has the grader's cores";
}

TEST_P(RunLimited, RunsAtTheNicenessItIsGiven) {
  errno = 0;
  const int own = getpriority(PRIO_PROCESS, 0);
  ASSERT_EQ(errno, 0);
  RunLimits limits;
  limits.niceness = 7;
  EXPECT_EQ(sh("nice", limits).output, std::to_string(std::min(19, own + 7)) + "\n");
  EXPECT_EQ(sh("nice").output, std::to_string(own) + "\n") << "without a niceness the run has the grader's";
}

namespace {

/// The lanes in the order their turns were given, as the threads saw them.
class TurnLog {
 public:
  void add(const std::string& entry) {
    std::lock_guard hold(mutex_);
    entries_.push_back(entry);
  }
  std::vector<std::string> entries() {
    std::lock_guard hold(mutex_);
    return entries_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> entries_;
};

/// That a run asking `turns` for `lane` waits while `held` is held, and
/// starts once it is given back.
void expect_waits_for(std::optional<GpuTurns::Turn>& held, GpuTurns& turns, Lane lane, const std::string& why) {
  std::atomic<bool> started{false};
  std::thread asking([&] {
    const auto turn = turns.take(lane);
    started = true;
  });
  std::this_thread::sleep_for(150ms);
  EXPECT_FALSE(started) << why;
  held.reset();
  asking.join();
  EXPECT_TRUE(started);
}

}  // namespace

TEST(GpuTurns, AnAloneRunWaitsForTheSharedRunsAndGoesBeforeThoseAskingAfterIt) {
  GpuTurns turns({}, {});
  TurnLog log;
  std::optional<GpuTurns::Turn> first_shared = turns.take(Lane::shared);
  std::thread alone([&] {
    const auto turn = turns.take(Lane::alone);
    log.add("alone");
    std::this_thread::sleep_for(100ms);
    log.add("alone ends");
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(log.entries().empty()) << "an alone run began beside a shared one";
  std::thread later_shared([&] {
    const auto turn = turns.take(Lane::shared);
    log.add("later shared");
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(log.entries().empty()) << "a shared run asked for after the alone one went before it";
  first_shared.reset();
  alone.join();
  later_shared.join();
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"alone", "alone ends", "later shared"}));
}

TEST(GpuTurns, SharedRunsGoTogether) {
  GpuTurns turns({}, {});
  std::optional<GpuTurns::Turn> one = turns.take(Lane::shared);
  auto beside = std::async(std::launch::async, [&] {
    const auto two = turns.take(Lane::shared);
    const auto cpu = turns.take(Lane::cpu);
  });
  EXPECT_EQ(beside.wait_for(2s), std::future_status::ready) << "a shared run waited for another";
  one.reset();  // so that the run waits no longer, if it did
}

TEST(GpuTurns, TheCoursesProgramsShareTheGpuWithEachOtherButNeverWithTheLearners) {
  GpuTurns turns({}, {});
  TurnLog log;
  std::optional<GpuTurns::Turn> learner = turns.take(Lane::shared);
  std::thread reference([&] {
    const auto first = turns.take(Lane::course);
    log.add("course");
    const auto second = turns.take(Lane::course);  // beside the first
    log.add("course beside it");
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(log.entries().empty()) << "a reference run shared the GPU with the learner's";
  double waited = 0;
  const auto cpu = turns.take(Lane::cpu, &waited);  // the CPU is for all
  learner.reset();
  reference.join();
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"course", "course beside it"}));
  EXPECT_LT(waited, 0.05);
  std::thread later([&] {
    double learner_waited = 0;
    std::optional<GpuTurns::Turn> held = turns.take(Lane::course);
    std::thread learners([&] {
      const auto turn = turns.take(Lane::shared, &learner_waited);
      log.add("learner after the course");
    });
    std::this_thread::sleep_for(100ms);
    held.reset();
    learners.join();
    EXPECT_GE(learner_waited, 0.09) << "the time a run waited for its turn is counted";
  });
  later.join();
  EXPECT_EQ(log.entries().back(), "learner after the course");
}

TEST(GpuTurns, CpuRunsGoBesideAnAloneRunOnlyWhereCoresAreKeptForMeasuring) {
  {
    GpuTurns turns({}, {usable_cores().back()});
    const auto alone = turns.take(Lane::alone);
    const auto cpu = turns.take(Lane::cpu);  // at once: the alone run has cores of its own
    EXPECT_EQ(turns.measuring_cores(), std::vector<int>{usable_cores().back()});
  }
  GpuTurns turns({}, {});
  std::optional<GpuTurns::Turn> alone = turns.take(Lane::alone);
  expect_waits_for(alone, turns, Lane::cpu, "with no cores kept, a cpu run went beside a run that measures");
}

// A run that needs no GPU but may open it (lab 05's drawn valid calls create
// contexts where there is a GPU) goes beside the shared and the course runs,
// never beside an alone run, even where cores are kept for measuring.
TEST(GpuTurns, ARunThatMayOpenTheGpuGoesBesideAnyRunButAnAloneOne) {
  GpuTurns turns({}, {usable_cores().back()});
  {
    const auto shared = turns.take(Lane::shared);
    const auto beside = turns.take(Lane::beside);  // at once
  }
  {
    const auto course = turns.take(Lane::course);
    const auto beside = turns.take(Lane::beside);  // at once
  }
  std::optional<GpuTurns::Turn> alone = turns.take(Lane::alone);
  expect_waits_for(alone, turns, Lane::beside, "a run that may open the GPU went beside a run that measures");
  std::optional<GpuTurns::Turn> beside = turns.take(Lane::beside);
  expect_waits_for(beside, turns, Lane::alone, "a run that measures went beside one that may open the GPU");
  EXPECT_EQ(to_string(Lane::beside), "beside");
}

TEST(GpuTurns, GradingsSideBySideTakeTurnsOnTheGpuAndNotOnTheCpu) {
  const fs::path lock = grader_lock_path(fs::temp_directory_path() / ("launchlab-selftest-gpu-" + std::to_string(getpid()) + ".lock"));
  GpuTurns first(lock, {}), second(lock, {});
  std::optional<GpuTurns::Turn> on_gpu = first.take(Lane::shared);
  const auto cpu = second.take(Lane::cpu);  // no GPU, no turn across gradings
  expect_waits_for(on_gpu, second, Lane::shared, "two gradings' runs shared the GPU");
  on_gpu.emplace(first.take(Lane::shared));
  expect_waits_for(on_gpu, second, Lane::beside, "a grading's run that may open the GPU went beside another's");
  std::error_code ignored;
  fs::remove(lock, ignored);
}

TEST(GpuTurns, KeepsTheLastEighthOfTheCoresForMeasuringOnFourOrMore) {
  auto numbered = [](int count) {
    std::vector<int> cores(static_cast<std::size_t>(count));
    std::iota(cores.begin(), cores.end(), 0);
    return cores;
  };
  EXPECT_TRUE(cores_kept_for_measuring(numbered(2)).empty());
  EXPECT_TRUE(cores_kept_for_measuring(numbered(3)).empty());
  EXPECT_EQ(cores_kept_for_measuring(numbered(4)), std::vector<int>{3});
  EXPECT_EQ(cores_kept_for_measuring(numbered(16)), (std::vector<int>{14, 15}));
  EXPECT_EQ(cores_kept_for_measuring({0, 2, 5, 7}), std::vector<int>{7});
}

TEST(GpuTurns, KeepsTheCallingThreadToItsCoresAndPutsThemBack) {
  const std::vector<int> before = usable_cores();
  {
    const CoresKept kept({before.front()});
    EXPECT_EQ(usable_cores(), std::vector<int>{before.front()});
  }
  EXPECT_EQ(usable_cores(), before);
}
