// The sanitizer stage (sanitize.h): compute-sanitizer's command line, its
// report read into a verdict, and the checks that follow each test.
#include "launchlab/grader/sanitize.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <regex>

namespace launchlab::grader {
namespace fs = std::filesystem;

std::vector<std::string> sanitizer_command(const fs::path& compute_sanitizer, const std::string& tool,
                                           const fs::path& log_file, const std::vector<std::string>& argv) {
  std::vector<std::string> command = {compute_sanitizer.string(),
                                      "--tool",
                                      tool,
                                      "--error-exitcode",
                                      std::to_string(kSanitizerErrorExitCode),
                                      "--report-api-errors",
                                      "no",
                                      "--check-exit-code",
                                      "no",
                                      "--destroy-on-device-error",
                                      "kernel",
                                      "--print-limit",
                                      "20",
                                      "--log-file",
                                      log_file.string()};
  command.insert(command.end(), argv.begin(), argv.end());
  return command;
}

namespace {

constexpr std::string_view kSanitizerPrefix = "=========";
constexpr std::size_t kErrorLinesShown = 8;
constexpr std::size_t kErrorLineWidth = 200;

/// A report line without the prefix, and whether it was one of the tool's.
std::optional<std::string_view> sanitizer_line(std::string_view line) {
  if (!line.starts_with(kSanitizerPrefix)) return std::nullopt;
  line.remove_prefix(kSanitizerPrefix.size());
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

/// What a record's first line (the text after "========= ") opens.
enum class RecordKind { none, banner, summary, warning, tool_problem, error };

RecordKind kind_of(std::string_view headline) {
  if (headline == "COMPUTE-SANITIZER") return RecordKind::banner;
  if (headline.find("SUMMARY:") != std::string_view::npos) return RecordKind::summary;
  if (headline.starts_with("Warning")) return RecordKind::warning;
  // racecheck's findings open with "Error: Race reported between ..." (or a
  // hazard in its hazard mode); any other "Error:" or "Internal" line is the
  // tool saying it could not check (a device it does not support, a process
  // it could not attach to).
  if (headline.starts_with("Error:")) {
    const bool finding = headline.find("Race") != std::string_view::npos ||
                         headline.find("hazard") != std::string_view::npos;
    return finding ? RecordKind::error : RecordKind::tool_problem;
  }
  if (headline.starts_with("Internal")) return RecordKind::tool_problem;
  return RecordKind::error;
}

/// The count a summary line gives: "ERROR SUMMARY: 2 errors", or racecheck's
/// "RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)".
std::optional<int> summary_count(std::string_view headline) {
  static const std::regex racecheck(R"(\((\d+) errors?,)");
  static const std::regex errors(R"(SUMMARY: (\d+) errors?)");
  std::match_results<std::string_view::const_iterator> match;
  if (std::regex_search(headline.begin(), headline.end(), match, racecheck) ||
      std::regex_search(headline.begin(), headline.end(), match, errors)) {
    return std::stoi(match[1].str());
  }
  return std::nullopt;
}

std::string shortened(std::string_view text) {
  std::string line(text.substr(0, kErrorLineWidth));
  if (text.size() > kErrorLineWidth) line += " ...";
  return line;
}

}  // namespace

SanitizerReport parse_sanitizer_report(std::string_view text) {
  SanitizerReport report;
  RecordKind open = RecordKind::none;  // the record the following detail lines belong to
  bool in_backtrace = false;
  std::size_t first_error_lines = 0;
  std::optional<std::string_view> last_headline;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::optional<std::string_view> line = sanitizer_line(text.substr(start, end - start));
    start = end + 1;
    if (!line) continue;  // the program's own output, where it shares the stream
    const std::size_t indent = line->find_first_not_of(' ');
    if (indent == std::string_view::npos) {  // "=========" alone ends a record
      open = RecordKind::none;
      continue;
    }
    const std::string_view body = line->substr(indent);
    if (indent <= 1) {  // a record's first line
      last_headline = body;
      open = kind_of(body);
      in_backtrace = false;
      if (open == RecordKind::error) {
        if (++report.errors == 1) {
          report.first_error = shortened(body);
          first_error_lines = 1;
        }
      } else if (open == RecordKind::tool_problem && report.tool_problem.empty()) {
        report.tool_problem = shortened(body);
      }
      continue;
    }
    // A detail of the open record; the host backtrace says nothing the
    // learner can act on and is left out.
    if (body.starts_with("Saved host backtrace") || body.starts_with("Host Frame")) in_backtrace = true;
    if (open == RecordKind::error && report.errors == 1 && !in_backtrace && first_error_lines < kErrorLinesShown) {
      report.first_error += "\n" + shortened(body);
      ++first_error_lines;
    }
  }
  if (last_headline && kind_of(*last_headline) == RecordKind::summary) report.summary_errors = summary_count(*last_headline);
  return report;
}

std::optional<std::string> sanitizer_fault(const std::string& tool, const SanitizedRun& run,
                                           const std::vector<std::string>& tests, const std::string& whose) {
  const std::string who = "compute-sanitizer's " + tool;
  const SanitizerReport report = parse_sanitizer_report(run.report);
  const RunOutcome& outcome = run.outcome;
  const bool found_errors = (outcome.exit_code && *outcome.exit_code == kSanitizerErrorExitCode) || report.errors > 0 ||
                            (report.summary_errors && *report.summary_errors > 0);
  if (found_errors) {
    const int count = std::max({report.errors, report.summary_errors.value_or(0), 1});
    std::string message = who + " found " + std::to_string(count) + (count == 1 ? " error" : " errors") +
                          " while " + whose + " code ran this test, though its values were right";
    if (report.first_error.empty()) return message + " (its report could not be read)";
    std::string indented;
    for (std::size_t from = 0; from <= report.first_error.size();) {
      std::size_t to = report.first_error.find('\n', from);
      if (to == std::string::npos) to = report.first_error.size();
      indented += "\n  " + report.first_error.substr(from, to - from);
      from = to + 1;
    }
    return message + "; the first:" + indented;
  }
  if (outcome.timed_out || outcome.flooded || outcome.stopped_by_watch || outcome.signal || outcome.disk_exceeded) {
    return whose + " test program " + outcome.describe(run.limits) + " under " + who;
  }
  for (const auto& test : tests) {
    if (!run.ended.count(test)) {
      return whose + " test program did not finish " + test + " under " + who + " (it " + outcome.describe(run.limits) + ")";
    }
  }
  if (!report.tool_problem.empty()) return who + " could not check " + whose + " program: " + report.tool_problem;
  if (!report.summary_errors) {
    return who + "'s report does not end with its summary, so nothing says the run was clean (did the program end "
                 "the tool's work early?)";
  }
  return std::nullopt;
}

namespace {

TestResult sanitizer_result(const SanitizerCheck& check, TestStatus status, std::string message) {
  const int points = status == TestStatus::passed ? check.points : 0;
  return TestResult{check.name(), points, check.points, status, std::move(message)};
}

/// What a check lacks here: the tool, or what its test needs; a test that
/// passed here had the rest, so the tool is asked first.
std::optional<std::string> unmet_need_of(const Lab& lab, const SanitizerCheck& check, const Capabilities& capabilities) {
  LabTest under_the_tool = *std::find_if(lab.tests.begin(), lab.tests.end(),
                                         [&](const LabTest& t) { return t.name == check.test; });
  under_the_tool.needs.insert(under_the_tool.needs.begin(), "compute-sanitizer");
  return capabilities.unmet_need(under_the_tool);
}

}  // namespace

std::map<std::string, std::vector<std::string>> sanitizer_candidates(const Lab& lab,
                                                                     const std::vector<std::string>& tests,
                                                                     const Capabilities& capabilities) {
  std::map<std::string, std::vector<std::string>> candidates;
  for (const auto& check : lab.sanitizer_checks()) {
    if (std::find(tests.begin(), tests.end(), check.test) == tests.end()) continue;
    if (!unmet_need_of(lab, check, capabilities)) candidates[check.tool].push_back(check.test);
  }
  return candidates;
}

SanitizedRunner reusing_early_runs(SanitizedRunner run, std::map<std::string, EarlySanitizedRun> early) {
  auto kept = std::make_shared<const std::map<std::string, EarlySanitizedRun>>(std::move(early));
  return [run = std::move(run), kept](const std::string& tool, const std::vector<std::string>& tests, bool reference) {
    auto found = kept->find(tool);
    if (!reference && found != kept->end()) {
      const std::vector<std::string>& covered = found->second.tests;
      const bool covers = std::all_of(tests.begin(), tests.end(), [&](const std::string& test) {
        return std::find(covered.begin(), covered.end(), test) != covered.end();
      });
      if (covers && !sanitizer_fault(tool, found->second.run, tests)) return found->second.run;
    }
    return run(tool, tests, reference);
  };
}

std::vector<TestResult> with_sanitizer_checks(const Lab& lab, const std::vector<TestResult>& results,
                                              const Capabilities& capabilities, const SanitizedRunner& run) {
  std::map<std::string, const TestResult*> by_name;
  for (const auto& result : results) by_name[result.name] = &result;
  const std::vector<SanitizerCheck> checks = lab.sanitizer_checks();

  // What each check comes to before anything runs; the checks that can run
  // wait in `candidates`, by tool, in the tests' order.
  std::map<std::string, TestResult> decided;  // by check name
  std::map<std::string, std::vector<std::string>> candidates;
  for (const auto& check : checks) {
    auto found = by_name.find(check.test);
    const TestResult* test = found == by_name.end() ? nullptr : found->second;
    const std::optional<std::string> unmet = unmet_need_of(lab, check, capabilities);
    if (!test) {
      decided[check.name()] = sanitizer_result(check, TestStatus::not_graded, "not graded: its test did not run");
    } else if (test->status == TestStatus::failed) {
      decided[check.name()] = sanitizer_result(
          check, TestStatus::failed, check.test + " runs under compute-sanitizer's " + check.tool + " once it passes");
    } else if (test->status != TestStatus::passed) {
      decided[check.name()] =
          sanitizer_result(check, test->status, "runs once " + check.test + " passes, and that test was not graded here (" +
                                                    to_string(test->status) + ")");
    } else if (unmet == "compute-sanitizer") {
      decided[check.name()] = sanitizer_result(
          check, TestStatus::needs_tool,
          "needs compute-sanitizer (CUDA's memory and race checker), which is not installed here; not graded here");
    } else if (unmet) {
      const bool gpu = *unmet == "gpu";
      decided[check.name()] = sanitizer_result(check, gpu ? TestStatus::needs_gpu : TestStatus::needs_tool,
                                               "needs " + (gpu ? "a GPU" : *unmet) + ", like its test; not graded here");
    } else {
      candidates[check.tool].push_back(check.test);
    }
  }

  // Each tool's runs go beside the other tools': a run is mostly the tool's
  // own start and its instrumentation of the GPU's code, and four tools one
  // after another were lab 00's longest wait on the H200.
  auto judge_with = [&](const std::string& tool, const std::vector<std::string>& tests) {
    std::map<std::string, TestResult> judged;  // by check name
    auto check_of = [&](const std::string& test) {
      return *std::find_if(checks.begin(), checks.end(),
                           [&](const SanitizerCheck& c) { return c.test == test && c.tool == tool; });
    };
    // One run for all; one run a test only when that one is not clean.
    std::optional<std::string> together = sanitizer_fault(tool, run(tool, tests, false), tests);
    for (const auto& test : tests) {
      const SanitizerCheck check = check_of(test);
      std::optional<std::string> fault = together;
      if (fault && tests.size() > 1) fault = sanitizer_fault(tool, run(tool, {test}, false), {test});
      if (!fault) {
        judged[check.name()] = sanitizer_result(check, TestStatus::passed, {});
        continue;
      }
      // The reference decides whether the check can be judged here at all.
      if (auto reference = sanitizer_fault(tool, run(tool, {test}, true), {test}, "the reference's")) {
        const std::string& why = *reference;
        judged[check.name()] = sanitizer_result(
            check, TestStatus::not_graded,
            "not graded: the course's reference does not run this test cleanly under compute-sanitizer's " + tool +
                " here, so it cannot be judged; tell your instructor (" + why + ")");
      } else {
        judged[check.name()] = sanitizer_result(
            check, TestStatus::failed,
            *fault + "\n(compute-sanitizer --tool " + tool + " on your lab's test program with --gtest_filter=" + test +
                " shows the whole report)");
      }
    }
    return judged;
  };
  std::vector<std::future<std::map<std::string, TestResult>>> by_tool;
  for (const auto& [tool, tests] : candidates) {
    by_tool.push_back(std::async(std::launch::async, judge_with, std::cref(tool), std::cref(tests)));
  }
  // Every tool's thread ends before a failure of one leaves this function.
  for (auto& judged : by_tool) judged.wait();
  for (auto& judged : by_tool) decided.merge(judged.get());

  std::vector<TestResult> merged;
  for (const auto& result : results) {
    merged.push_back(result);
    for (const auto& check : checks) {
      if (check.test == result.name) merged.push_back(decided.at(check.name()));
    }
  }
  return merged;
}

std::string read_report_file(const fs::path& path) {
  constexpr std::size_t kLimit = 1u << 20;
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat status {};
  std::string text;
  if (fstat(fd, &status) == 0 && S_ISREG(status.st_mode) && status.st_nlink == 1) {
    char buffer[65536];
    ssize_t got;
    while (text.size() < kLimit && (got = read(fd, buffer, sizeof buffer)) > 0) {
      text.append(buffer, static_cast<std::size_t>(std::min<std::size_t>(got, kLimit - text.size())));
    }
  }
  close(fd);
  return text;
}

}  // namespace launchlab::grader
