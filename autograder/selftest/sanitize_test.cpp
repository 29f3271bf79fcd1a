// The sanitizer stage without a GPU: compute-sanitizer's command line, its
// reports read into verdicts (reports in its format, sanitizer/), and which
// checks run, pass, fail or are not graded, with a runner that stands in for
// the tool.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "launchlab/grader/sanitize.h"

namespace fs = std::filesystem;
using namespace launchlab::grader;

namespace {

std::string sample(const std::string& name) {
  std::ifstream in(fs::path(LAUNCHLAB_SELFTEST_DIR) / "sanitizer" / name);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << "no sample " << name;
  return text.str();
}

SanitizedRun finished_run(const std::string& report, std::vector<std::string> ended, int exit_code = 0) {
  SanitizedRun run;
  run.outcome.exit_code = exit_code;
  run.report = report;
  run.ended = {ended.begin(), ended.end()};
  return run;
}

TEST(SanitizerCommand, NamesTheToolItsExitStatusAndItsLogBeforeTheProgram) {
  const auto command = sanitizer_command("/usr/local/cuda/bin/compute-sanitizer", "memcheck", "/scratch/memcheck.log",
                                         {"/build/tests/test_00", "--gtest_filter=A.B"});
  const std::vector<std::string> expected = {
      "/usr/local/cuda/bin/compute-sanitizer", "--tool", "memcheck", "--error-exitcode", "86", "--report-api-errors",
      "no", "--check-exit-code", "no", "--destroy-on-device-error", "kernel", "--print-limit", "20", "--log-file",
      "/scratch/memcheck.log", "/build/tests/test_00", "--gtest_filter=A.B"};
  EXPECT_EQ(command, expected);
  EXPECT_EQ(kSanitizerErrorExitCode, 86);
}

TEST(SanitizerReport, MemcheckErrorsAreCountedAndTheFirstIsKeptWithoutItsBacktrace) {
  const SanitizerReport report = parse_sanitizer_report(sample("memcheck_out_of_bounds.txt"));
  EXPECT_EQ(std::make_pair(report.errors, report.summary_errors), std::make_pair(2, std::optional<int>(2)));
  EXPECT_EQ(report.first_error,
            "Invalid __global__ write of size 4 bytes\n"
            "at launchlab::journey::vadd_and_mark_the_end(const float *, const float *, float *, int)+0xd0\n"
            "by thread (7,0,0) in block (3,0,0)\n"
            "Address 0x7f3a5e000fa0 is out of bounds\n"
            "and is 1 bytes after the nearest allocation at 0x7f3a5e000000 of size 4000 bytes");
  EXPECT_TRUE(report.tool_problem.empty());
}

TEST(SanitizerReport, RacecheckCountsItsErrorsAndNotItsWarnings) {
  const SanitizerReport report = parse_sanitizer_report(sample("racecheck_race.txt"));
  EXPECT_EQ(std::make_pair(report.errors, report.summary_errors), std::make_pair(1, std::optional<int>(1)));
  EXPECT_EQ(report.first_error,
            "Error: Race reported between Write access at reverse_in_shared(float *, int)+0x90\n"
            "and Read access at reverse_in_shared(float *, int)+0xb0 [248 hazards]");
}

TEST(SanitizerReport, TheProgramsOwnLinesAndALongLineAreLeftOutOrCut) {
  const std::string report_text = "[ RUN      ] A.B\n========= Invalid __shared__ read of size 16 bytes\n=========     at k()+0x" +
                                  std::string(300, '0') + "\nsome output\n=========\n========= ERROR SUMMARY: 1 error\n";
  const SanitizerReport report = parse_sanitizer_report(report_text);
  EXPECT_EQ(report.errors, 1);
  EXPECT_EQ(*report.summary_errors, 1);
  EXPECT_EQ(report.first_error, "Invalid __shared__ read of size 16 bytes\nat k()+0x" + std::string(191, '0') + " ...");
}

TEST(SanitizerVerdict, ACleanRunEndsWithASummaryOfNoErrors) {
  EXPECT_EQ(sanitizer_fault("memcheck", finished_run(sample("memcheck_clean.txt"), {"A.B", "A.C"}), {"A.B", "A.C"}),
            std::nullopt);
}

TEST(SanitizerVerdict, ErrorsFailWithTheToolsFirstError) {
  auto fault = sanitizer_fault("memcheck", finished_run(sample("memcheck_out_of_bounds.txt"), {"A.B"}, 86), {"A.B"});
  ASSERT_TRUE(fault.has_value());
  EXPECT_EQ(*fault,
            "compute-sanitizer's memcheck found 2 errors while your code ran this test, though its values were right; "
            "the first:\n"
            "  Invalid __global__ write of size 4 bytes\n"
            "  at launchlab::journey::vadd_and_mark_the_end(const float *, const float *, float *, int)+0xd0\n"
            "  by thread (7,0,0) in block (3,0,0)\n"
            "  Address 0x7f3a5e000fa0 is out of bounds\n"
            "  and is 1 bytes after the nearest allocation at 0x7f3a5e000000 of size 4000 bytes");
}

TEST(SanitizerVerdict, TheToolsExitStatusAloneIsAFinding) {
  // A program that emptied the report still has the tool's exit status against it.
  auto fault = sanitizer_fault("racecheck", finished_run("", {"A.B"}, kSanitizerErrorExitCode), {"A.B"});
  ASSERT_TRUE(fault.has_value());
  EXPECT_EQ(*fault, "compute-sanitizer's racecheck found 1 error while your code ran this test, though its values were "
                    "right (its report could not be read)");
}

TEST(SanitizerVerdict, ASummaryTheProgramWroteItselfIsNotTheLastWord) {
  auto fault = sanitizer_fault("memcheck", finished_run(sample("memcheck_forged_then_unattached.txt"), {"A.B"}), {"A.B"});
  ASSERT_TRUE(fault.has_value());
  EXPECT_EQ(*fault, "compute-sanitizer's memcheck could not check your program: Error: Target application terminated "
                    "before first instrumented API call");
  fault = sanitizer_fault("memcheck", finished_run("========= ERROR SUMMARY: 0 errors\nsome output\n========= COMPUTE-SANITIZER\n", {"A.B"}), {"A.B"});
  ASSERT_TRUE(fault.has_value());
  EXPECT_NE(fault->find("does not end with its summary"), std::string::npos) << *fault;
}

TEST(SanitizerVerdict, ATestThatDidNotFinishOrARunThatWasStoppedIsNoCleanRun) {
  auto fault = sanitizer_fault("memcheck", finished_run(sample("memcheck_clean.txt"), {"A.B"}), {"A.B", "A.C"});
  ASSERT_TRUE(fault.has_value());
  EXPECT_EQ(fault->rfind("your test program did not finish A.C under compute-sanitizer's memcheck", 0), 0u) << *fault;
  SanitizedRun stopped = finished_run(sample("memcheck_clean.txt"), {"A.B"});
  stopped.outcome.exit_code.reset();
  stopped.outcome.timed_out = true;
  fault = sanitizer_fault("memcheck", stopped, {"A.B"});
  ASSERT_TRUE(fault.has_value());
  EXPECT_EQ(fault->rfind("your test program timed out", 0), 0u) << *fault;
}

// ---- which checks run, and what they come to ------------------------------------

Lab lab_with_checks() {
  Lab lab;
  lab.slug = "00_vadd_journey";
  lab.sanitize_points = 2;
  lab.tests = {{"Cpu.Test", 1, {}, false, {}},
               {"Gpu.First", 3, {"gpu"}, false, {"memcheck", "racecheck"}},
               {"Gpu.Second", 3, {"gpu"}, false, {"memcheck"}},
               {"Gpu.Third", 3, {"gpu"}, false, {"memcheck"}}};
  return lab;
}

std::vector<TestResult> all_passed(const Lab& lab) {
  std::vector<TestResult> results;
  for (const auto& test : lab.tests) results.push_back({test.name, test.points, test.points, TestStatus::passed, {}});
  return results;
}

Capabilities with_sanitizer(bool installed) {
  Capabilities capabilities;
  capabilities.gpu = true;
  capabilities.tools["compute-sanitizer"] = installed;
  return capabilities;
}

/// A runner that stands in for compute-sanitizer: a test named in `dirty`
/// has an error in the learner's program (and in the reference's when
/// named in `reference_dirty`); every call is logged. The tools' runs come
/// from threads of their own.
struct FakeTool {
  std::set<std::string> dirty, reference_dirty;
  /// How long a run lasts, and how many tools were running at once at most.
  std::chrono::milliseconds run_time{0};
  int most_at_once = 0;

  SanitizedRunner runner() {
    return [this](const std::string& tool, const std::vector<std::string>& tests, bool reference) {
      std::string call = (reference ? "reference " : "learner ") + tool + ":";
      bool errors = false;
      for (const auto& test : tests) {
        call += " " + test;
        errors = errors || (reference ? reference_dirty : dirty).count(test) > 0;
      }
      {
        std::lock_guard hold(mutex_);
        calls_.push_back(call);
        most_at_once = std::max(most_at_once, ++running_);
      }
      std::this_thread::sleep_for(run_time);
      {
        std::lock_guard hold(mutex_);
        --running_;
      }
      const std::string report = errors ? sample("memcheck_out_of_bounds.txt") : sample("memcheck_clean.txt");
      return finished_run(report, tests, errors ? kSanitizerErrorExitCode : 0);
    };
  }
  /// The calls of one tool, in order; all of them without a tool named.
  std::vector<std::string> calls(const std::string& tool = {}) {
    std::lock_guard hold(mutex_);
    std::vector<std::string> of_tool;
    for (const auto& call : calls_) {
      if (tool.empty() || call.find(" " + tool + ":") != std::string::npos) of_tool.push_back(call);
    }
    return of_tool;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> calls_;
  int running_ = 0;
};

std::vector<std::string> rows(const std::vector<TestResult>& results) {
  std::vector<std::string> out;
  for (const auto& r : results) {
    out.push_back(r.name + " " + to_string(r.status) + " " + std::to_string(r.points) + "/" + std::to_string(r.max_points));
  }
  return out;
}

TEST(SanitizerChecks, EachFollowsItsTestAndOneRunATestIsEnoughWhenAllIsClean) {
  const Lab lab = lab_with_checks();
  FakeTool tool;
  const auto results = with_sanitizer_checks(lab, all_passed(lab), with_sanitizer(true), tool.runner());
  const std::vector<std::string> expected = {
      "Cpu.Test passed 1/1",          "Gpu.First passed 3/3",          "Gpu.First [memcheck] passed 2/2",
      "Gpu.First [racecheck] passed 2/2", "Gpu.Second passed 3/3",     "Gpu.Second [memcheck] passed 2/2",
      "Gpu.Third passed 3/3",         "Gpu.Third [memcheck] passed 2/2"};
  EXPECT_EQ(rows(results), expected);
  EXPECT_EQ(tool.calls("memcheck"), std::vector<std::string>{"learner memcheck: Gpu.First Gpu.Second Gpu.Third"});
  EXPECT_EQ(tool.calls("racecheck"), std::vector<std::string>{"learner racecheck: Gpu.First"});
  EXPECT_EQ(tool.calls().size(), 2u);
  EXPECT_EQ(lab.max_points(), 10 + 4 * 2);
}

// The tools run side by side: racecheck's one run starts while memcheck's
// are under way, and each tool's runs still go one after another.
TEST(SanitizerChecks, TheToolsRunSideBySide) {
  Lab lab = lab_with_checks();
  lab.tests[2].sanitize = {"memcheck", "synccheck"};
  FakeTool tool;
  tool.dirty = {"Gpu.Second"};
  tool.run_time = std::chrono::milliseconds(300);
  const auto started = std::chrono::steady_clock::now();
  const auto results = with_sanitizer_checks(lab, all_passed(lab), with_sanitizer(true), tool.runner());
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(tool.most_at_once, 3);
  EXPECT_EQ(tool.calls().size(), 5u + 1 + 2);  // memcheck's five, racecheck's one, synccheck's two
  // memcheck's five runs one after another are the longest tool's time.
  EXPECT_LT(took, std::chrono::milliseconds(300 * 7)) << "the tools ran one after another";
  EXPECT_EQ(rows(results)[5], "Gpu.Second [memcheck] failed 0/2");
  EXPECT_EQ(rows(results)[6], "Gpu.Second [synccheck] failed 0/2");
}

TEST(SanitizerChecks, AFindingIsBlamedOnItsTestAloneOnceTheReferenceRunsItCleanly) {
  const Lab lab = lab_with_checks();
  FakeTool tool;
  tool.dirty = {"Gpu.Second"};
  const auto results = with_sanitizer_checks(lab, all_passed(lab), with_sanitizer(true), tool.runner());
  EXPECT_EQ(rows(results)[5], "Gpu.Second [memcheck] failed 0/2");
  EXPECT_EQ(rows(results)[2], "Gpu.First [memcheck] passed 2/2");
  EXPECT_EQ(rows(results)[7], "Gpu.Third [memcheck] passed 2/2");
  EXPECT_NE(results[5].message.find("found 2 errors while your code ran this test"), std::string::npos);
  EXPECT_NE(results[5].message.find("--gtest_filter=Gpu.Second shows the whole report"), std::string::npos);
  const std::vector<std::string> memcheck = {"learner memcheck: Gpu.First Gpu.Second Gpu.Third", "learner memcheck: Gpu.First",
                                             "learner memcheck: Gpu.Second", "reference memcheck: Gpu.Second",
                                             "learner memcheck: Gpu.Third"};
  EXPECT_EQ(tool.calls("memcheck"), memcheck);
  EXPECT_EQ(tool.calls("racecheck"), std::vector<std::string>{"learner racecheck: Gpu.First"});
}

TEST(SanitizerChecks, WhatTheReferenceCannotRunCleanlyIsNotGraded) {
  const Lab lab = lab_with_checks();
  FakeTool tool;
  tool.dirty = tool.reference_dirty = {"Gpu.First"};
  const auto results = with_sanitizer_checks(lab, all_passed(lab), with_sanitizer(true), tool.runner());
  EXPECT_EQ(rows(results)[2], "Gpu.First [memcheck] not graded 0/2");
  EXPECT_EQ(rows(results)[3], "Gpu.First [racecheck] not graded 0/2");
  EXPECT_NE(results[2].message.find("the course's reference does not run this test cleanly"), std::string::npos)
      << results[2].message;
  EXPECT_NE(results[2].message.find("the reference's code ran this test"), std::string::npos) << results[2].message;
}

TEST(SanitizerChecks, WithoutTheToolTheyAreNotGradedAndNothingRuns) {
  const Lab lab = lab_with_checks();
  FakeTool tool;
  const auto results = with_sanitizer_checks(lab, all_passed(lab), with_sanitizer(false), tool.runner());
  EXPECT_EQ(rows(results)[2], "Gpu.First [memcheck] needs a tool 0/2");
  EXPECT_EQ(results[2].message,
            "needs compute-sanitizer (CUDA's memory and race checker), which is not installed here; not graded here");
  EXPECT_TRUE(tool.calls().empty());
  // The same without a capabilities entry at all.
  const auto unknown = with_sanitizer_checks(lab, all_passed(lab), Capabilities{}, tool.runner());
  EXPECT_EQ(unknown[2].status, TestStatus::needs_tool);
}

TEST(SanitizerChecks, ACheckNeedsWhatItsTestNeedsBesidesTheTool) {
  // Results that say a GPU test passed where the tool is but no GPU is: the
  // check is asked for its test's needs too, and nothing runs.
  const Lab lab = lab_with_checks();
  Capabilities no_gpu = with_sanitizer(true);
  no_gpu.gpu = false;
  FakeTool tool;
  const auto results = with_sanitizer_checks(lab, all_passed(lab), no_gpu, tool.runner());
  EXPECT_EQ(rows(results)[2], "Gpu.First [memcheck] needs a GPU 0/2");
  EXPECT_EQ(results[2].message, "needs a GPU, like its test; not graded here");
  EXPECT_TRUE(tool.calls().empty());
}

TEST(SanitizerChecks, AFailedTestFailsItsChecksAndOneNotGradedLeavesThemNotGraded) {
  const Lab lab = lab_with_checks();
  auto results = all_passed(lab);
  results[1] = {"Gpu.First", 0, 3, TestStatus::failed, "wrong values"};
  results[2] = {"Gpu.Second", 0, 3, TestStatus::needs_gpu, "needs a GPU; not graded here (no usable GPU)"};
  FakeTool tool;
  const auto merged = with_sanitizer_checks(lab, results, with_sanitizer(true), tool.runner());
  EXPECT_EQ(rows(merged)[2], "Gpu.First [memcheck] failed 0/2");
  EXPECT_EQ(merged[2].message, "Gpu.First runs under compute-sanitizer's memcheck once it passes");
  EXPECT_EQ(rows(merged)[5], "Gpu.Second [memcheck] needs a GPU 0/2");
  EXPECT_EQ(merged[5].message, "runs once Gpu.Second passes, and that test was not graded here (needs a GPU)");
  EXPECT_EQ(tool.calls(), std::vector<std::string>{"learner memcheck: Gpu.Third"});
}

// The grader makes each tool's first run beside the lab's other runs,
// before anything is judged, over the tests it would check were they to
// pass. Where that run was clean it stands for the checks' first run, also
// when a test of it failed; where it found something, the tests that passed
// run anew, so that a finding of a failed test is never blamed on them.
TEST(SanitizerChecks, AnEarlyRunStandsForTheFirstRunOnlyWhereItWasClean) {
  const Lab lab = lab_with_checks();
  using ByTool = std::map<std::string, std::vector<std::string>>;
  EXPECT_EQ(sanitizer_candidates(lab, {"Cpu.Test", "Gpu.First", "Gpu.Third"}, with_sanitizer(true)),
            (ByTool{{"memcheck", {"Gpu.First", "Gpu.Third"}}, {"racecheck", {"Gpu.First"}}}));
  EXPECT_EQ(sanitizer_candidates(lab, {"Gpu.First"}, with_sanitizer(false)), ByTool{});

  auto results = all_passed(lab);
  results[2] = {"Gpu.Second", 0, 3, TestStatus::failed, "wrong values"};
  const std::vector<std::string> all_three = {"Gpu.First", "Gpu.Second", "Gpu.Third"};
  auto early_memcheck = [&](const std::string& report, int exit_code) {
    return std::map<std::string, EarlySanitizedRun>{{"memcheck", {all_three, finished_run(report, all_three, exit_code)}}};
  };

  FakeTool clean;
  auto merged = with_sanitizer_checks(lab, results, with_sanitizer(true),
                                      reusing_early_runs(clean.runner(), early_memcheck(sample("memcheck_clean.txt"), 0)));
  EXPECT_EQ(rows(merged)[2], "Gpu.First [memcheck] passed 2/2");
  EXPECT_EQ(rows(merged)[7], "Gpu.Third [memcheck] passed 2/2");
  EXPECT_EQ(clean.calls("memcheck"), std::vector<std::string>{});
  EXPECT_EQ(clean.calls("racecheck"), std::vector<std::string>{"learner racecheck: Gpu.First"});

  FakeTool found;
  merged = with_sanitizer_checks(
      lab, results, with_sanitizer(true),
      reusing_early_runs(found.runner(), early_memcheck(sample("memcheck_out_of_bounds.txt"), kSanitizerErrorExitCode)));
  EXPECT_EQ(rows(merged)[2], "Gpu.First [memcheck] passed 2/2");
  EXPECT_EQ(rows(merged)[7], "Gpu.Third [memcheck] passed 2/2");
  EXPECT_EQ(found.calls("memcheck"), std::vector<std::string>{"learner memcheck: Gpu.First Gpu.Third"});

  // It stands for no run of tests it did not run, nor for the reference's;
  // it does for a run of fewer tests that it ran cleanly.
  FakeTool uncovered;
  uncovered.dirty = {"Gpu.Third"};
  const std::map<std::string, EarlySanitizedRun> first_only = {
      {"memcheck", {{"Gpu.First"}, finished_run(sample("memcheck_clean.txt"), {"Gpu.First"})}}};
  merged = with_sanitizer_checks(lab, results, with_sanitizer(true), reusing_early_runs(uncovered.runner(), first_only));
  EXPECT_EQ(rows(merged)[7], "Gpu.Third [memcheck] failed 0/2");
  EXPECT_EQ(uncovered.calls("memcheck"),
            (std::vector<std::string>{"learner memcheck: Gpu.First Gpu.Third", "learner memcheck: Gpu.Third",
                                      "reference memcheck: Gpu.Third"}));
  EXPECT_EQ(rows(merged)[2], "Gpu.First [memcheck] passed 2/2");
}

TEST(SanitizerChecks, ABuildFailureCostsTheChecksToo) {
  const auto results = all_failed(lab_with_checks(), "did not compile");
  ASSERT_EQ(results.size(), 8u);
  EXPECT_EQ(rows(results)[3], "Gpu.First [racecheck] failed 0/2");
}

TEST(SanitizerReportFile, OnlyAPlainFileIsRead) {
  const fs::path dir = fs::temp_directory_path() / ("launchlab-sanitize-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "secret") << "not for the learner\n";
  std::ofstream(dir / "report.log") << "========= ERROR SUMMARY: 0 errors\n";
  fs::create_symlink(dir / "secret", dir / "linked.log");
  fs::create_hard_link(dir / "secret", dir / "hard.log");
  EXPECT_EQ(read_report_file(dir / "report.log"), "========= ERROR SUMMARY: 0 errors\n");
  EXPECT_EQ(read_report_file(dir / "linked.log"), "");
  EXPECT_EQ(read_report_file(dir / "hard.log"), "");
  EXPECT_EQ(read_report_file(dir / "missing.log"), "");
  fs::remove_all(dir);
}

}  // namespace
