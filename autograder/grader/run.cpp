// The run stage: both test programs of a lab, under limits, each writing its
// transcript; then the judge, test by test.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <iomanip>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <type_traits>

#include <unistd.h>  // environ

#include "launchlab/grader/gpu_state.h"
#include "launchlab/grader/gpu_turns.h"
#include "launchlab/grader/grading.h"
#include "launchlab/grader/judge.h"
#include "launchlab/grader/process.h"
#include "launchlab/grader/sanitize.h"
#include "launchlab/grader/text.h"
#include "launchlab/grader/transcript.h"

namespace launchlab::grader {
namespace fs = std::filesystem;

namespace {

std::string join_filter(const std::vector<std::string>& names) {
  std::string filter;
  for (const auto& name : names) {
    if (!filter.empty()) filter += ':';
    filter += name;
  }
  return filter;
}

std::string output_tail(const std::string& output) {
  constexpr std::size_t kTail = 1500;
  return learner_text(output, kTail, KeepEnd::tail);
}

/// Which test is running, read from the transcript while it grows, for the
/// per-test time limit. A program can write anything there, so this only
/// ever decides which test a hang is blamed on, never whether one passed.
class TranscriptFollower {
 public:
  explicit TranscriptFollower(const ReportChannel& channel) : channel_(channel) {}

  void catch_up(double now) {
    const std::string& text = channel_.report;
    std::size_t newline;
    while ((newline = text.find('\n', read_)) != std::string::npos) {
      std::string_view line(text.data() + read_, newline - read_);
      read_ = newline + 1;
      if (line.find("\"event\":\"start\"") != std::string_view::npos) {
        running_ = true;
        since_ = now;
      } else if (line.find("\"event\":\"end\"") != std::string_view::npos) {
        running_ = false;
      }
    }
  }

  bool running_longer_than(double seconds, double now) const { return running_ && now - since_ > seconds; }

 private:
  const ReportChannel& channel_;
  std::size_t read_ = 0;
  bool running_ = false;
  double since_ = 0;
};

/// One program's transcripts over as many runs as it takes, and, for each
/// test without a whole transcript, why.
struct ProgramRuns {
  Transcript transcript;
  std::map<std::string, std::string> why_missing;
  std::string text;  ///< every run's transcript, one after the other
  std::map<std::string, double> test_seconds;  ///< by GoogleTest's clock, of the tests asked for (tests_seconds_in)
};

/// A line GoogleTest prints at a test's end, "[       OK ] Suite.Name (12
/// ms)" or "[  FAILED  ] ...": the program's word, never a verdict's.
struct PrintedEnd {
  std::string test;
  bool passed = false;
  std::optional<double> seconds;  ///< by GoogleTest's clock, where the line gives it
};

std::vector<PrintedEnd> printed_test_ends(const std::string& output) {
  constexpr std::string_view kPassed = "[       OK ] ", kFailed = "[  FAILED  ] ";
  std::vector<PrintedEnd> ends;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const bool passed = line.starts_with(kPassed);
    if (!passed && !line.starts_with(kFailed)) continue;
    const std::size_t name_at = kPassed.size(), open = line.find(" (", name_at), unit = line.rfind(" ms)");
    PrintedEnd end{line.substr(name_at, open == std::string::npos ? open : open - name_at), passed, std::nullopt};
    if (open != std::string::npos && unit != std::string::npos && unit > open) {
      try {
        end.seconds = std::stod(line.substr(open + 2, unit - open - 2)) / 1000.0;
      } catch (const std::exception&) {
      }
    }
    ends.push_back(std::move(end));
  }
  return ends;
}

/// How long each of these tests took by GoogleTest's own clock, for the
/// tests named alone: the program prints the lines, so a name it made up
/// never reaches results.json.
std::map<std::string, double> test_seconds_in(const std::string& output, const std::vector<std::string>& asked) {
  std::map<std::string, double> seconds;
  for (const auto& end : printed_test_ends(output)) {
    if (end.seconds && std::ranges::find(asked, end.test) != asked.end()) seconds[end.test] = *end.seconds;
  }
  return seconds;
}

std::vector<std::string> test_names(const Lab& lab) {
  std::vector<std::string> names;
  for (const auto& test : lab.tests) names.push_back(test.name);
  return names;
}

/// Runs the named tests of a lab's program (GoogleTest's filter), again
/// without a test that crashed, hung or flooded, until each has a whole
/// transcript or a reason why not.
ProgramRuns run_program(const Lab& lab, std::vector<std::string> remaining, const fs::path& binary,
                        const fs::path& scratch, const std::vector<std::string>& environment, const RunLimits& limits,
                        const Sandbox& sandbox,
                        GuardedFiles* guard, std::vector<std::string>& tampering, const std::string& whose) {
  ProgramRuns runs;
  if (remaining.empty()) return runs;
  if (!fs::exists(binary)) {
    for (const auto& name : remaining) runs.why_missing[name] = whose + " test program was not built";
    return runs;
  }
  const double test_limit = lab.test_timeout_seconds;
  for (int round = 0; !remaining.empty() && round <= static_cast<int>(lab.tests.size()); ++round) {
    if (guard) {
      for (auto& line : guard->restore_changed()) tampering.push_back(std::move(line));
    }
    ReportChannel channel;
    TranscriptFollower follower(channel);
    RunWatch watch = [&](std::string_view, double now) -> std::optional<std::string> {
      follower.catch_up(now);
      if (follower.running_longer_than(test_limit, now)) {
        return "ran longer than the " + std::to_string(lab.test_timeout_seconds) + " s one test may take and was stopped";
      }
      return std::nullopt;
    };
    std::vector<std::string> argv = {fs::absolute(binary).string(), "--gtest_filter=" + join_filter(remaining),
                                     "--gtest_color=no"};
    RunOutcome outcome = run_limited(argv, scratch, environment, limits, sandbox, watch, &channel);
    runs.text += channel.report;
    runs.test_seconds.merge(test_seconds_in(outcome.output, remaining));
    Transcript transcript = parse_transcript(channel.report);
    if (channel.overflowed) transcript.done = false;

    bool stopped = outcome.timed_out || outcome.flooded || outcome.stopped_by_watch;
    std::optional<std::string> culprit = transcript.in_progress;
    merge_transcript(runs.transcript, std::move(transcript));
    std::vector<std::string> still;
    for (const auto& name : remaining) {
      auto found = runs.transcript.tests.find(name);
      if (found == runs.transcript.tests.end() || !found->second.ended) still.push_back(name);
    }
    remaining = std::move(still);
    if (remaining.empty()) break;

    std::string how = outcome.describe(limits);
    if (runs.transcript.done && !stopped && !culprit) {
      for (const auto& name : remaining) runs.why_missing[name] = whose + " test program has no test named " + name;
      break;
    }
    if (culprit && std::find(remaining.begin(), remaining.end(), *culprit) != remaining.end()) {
      runs.why_missing[*culprit] = whose + " test program " + how + " during this test" +
                                   (channel.overflowed ? " (its transcript grew past what the grader reads)" : "") +
                                   ".\nIts last output:\n" + output_tail(outcome.output);
      runs.transcript.tests.erase(*culprit);
      remaining.erase(std::find(remaining.begin(), remaining.end(), *culprit));
      continue;  // the others run again without it
    }
    std::string when = runs.transcript.tests.empty() ? " before any test started" : " between two tests";
    for (const auto& name : remaining) {
      runs.why_missing[name] = whose + " test program " + how + when + ", so this test never ran" +
                               (outcome.exited_cleanly() ? " (did something call exit() early?)" : "") + "." +
                               (outcome.output.empty() ? std::string() : "\nIts last output:\n" + output_tail(outcome.output));
    }
    break;
  }
  return runs;
}

TestEvidence evidence_of(const ProgramRuns& runs, const std::string& name) {
  TestEvidence evidence;
  if (auto found = runs.transcript.tests.find(name); found != runs.transcript.tests.end()) {
    evidence.transcript = &found->second;
  }
  if (auto why = runs.why_missing.find(name); why != runs.why_missing.end()) evidence.why_missing = why->second;
  return evidence;
}

/// The first record of a test's transcript whose expression is `expression`, as a number.
std::optional<double> recorded_number(const TestEvidence& evidence, const std::string& expression) {
  const TranscriptRecord* record = evidence.transcript ? first_record(*evidence.transcript, expression) : nullptr;
  if (!record || !record->value.is_number()) return std::nullopt;
  const double value = record->value.get<double>();
  return std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
}

/// lab.toml's leaderboard figures of the tests that passed: the learner's
/// record over the reference's, both from this grading's runs (a test with
/// a figure measures, so its reference ran beside the learner's).
std::vector<LeaderboardEntry> leaderboard_of(const Lab& lab, const std::vector<TestResult>& results,
                                             const ProgramRuns& reference, const ProgramRuns& learner) {
  std::vector<LeaderboardEntry> figures;
  for (const auto& test : lab.tests) {
    if (!test.leaderboard) continue;
    const auto result = std::find_if(results.begin(), results.end(), [&](const TestResult& r) { return r.name == test.name; });
    if (result == results.end() || result->status != TestStatus::passed) continue;
    const auto yours = recorded_number(evidence_of(learner, test.name), test.leaderboard->record);
    const auto theirs = recorded_number(evidence_of(reference, test.name), test.leaderboard->record);
    if (!yours || !theirs || *theirs == 0) continue;
    figures.push_back({test.leaderboard->name, *yours / *theirs, test.leaderboard->ascending});
  }
  return figures;
}

}  // namespace

void GuardedFiles::add(const fs::path& path) {
  auto remember = [&](const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    content_[file] = text.str();
  };
  if (fs::is_directory(path)) {
    for (const auto& entry : fs::recursive_directory_iterator(path)) {
      if (entry.is_regular_file()) remember(entry.path());
    }
  } else if (fs::is_regular_file(path)) {
    remember(path);
  }
}

std::vector<std::string> GuardedFiles::restore_changed() {
  std::lock_guard hold(restoring_);
  std::vector<std::string> restored;
  for (const auto& [path, content] : content_) {
    std::error_code error;
    bool same = fs::is_regular_file(fs::symlink_status(path, error)) && fs::file_size(path, error) == content.size();
    if (same) {
      std::ifstream in(path, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      same = text.str() == content;
    }
    if (same) continue;
    auto permissions = fs::status(path, error).permissions();
    fs::remove_all(path, error);
    fs::create_directories(path.parent_path(), error);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
    // Test programs must stay executable.
    fs::permissions(path, permissions == fs::perms::unknown ? fs::perms::owner_all : permissions, error);
    restored.push_back(path.filename().string() + " was changed by the code under test and has been put back");
  }
  return restored;
}

namespace {

RunLimits lab_limits(const Lab& lab) {
  RunLimits limits;
  limits.timeout = std::chrono::seconds(lab.timeout_seconds);
  return limits;
}

/// Gradings side by side on one host (grade-class) take turns on the GPU:
/// LAUNCHLAB_GPU_LOCK names a lock file held around a GPU lab's programs
/// where the grading takes no turns run by run (gpu_turns.h: preparing, a
/// grading without a sandbox), so that no submission's code shares the GPU
/// with another grading's. Null when the lab needs no turn.
std::unique_ptr<FileLock> take_gpu_turn(const Lab& lab, const Capabilities& capabilities) {
  const char* gpu_lock = std::getenv("LAUNCHLAB_GPU_LOCK");
  if (!capabilities.gpu || !gpu_lock || !*gpu_lock || lab.gpu_need() == course::GpuNeed::none) return nullptr;
  return std::make_unique<FileLock>(grader_lock_path(gpu_lock));
}

std::vector<std::string> test_environment(const RunSettings& settings) {
  std::vector<std::string> environment = {"GTEST_COLOR=no"};
  environment.insert(environment.end(), settings.environment.begin(), settings.environment.end());
  return environment;
}

void make_reference_scratch(const fs::path& scratch) {
  std::error_code ignored;
  fs::create_directories(scratch, ignored);
  fs::permissions(scratch, fs::perms::owner_all, ignored);
}

/// The reference's half read from a student edition's expectations.
ProgramRuns read_expectations(const Lab& lab, const fs::path& file) {
  ProgramRuns runs;
  if (!fs::is_regular_file(file)) {
    for (const auto& test : lab.tests) runs.why_missing[test.name] = "this edition has no expectations for " + lab.slug;
    return runs;
  }
  std::ifstream in(file, std::ios::binary);
  runs.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  runs.transcript = parse_transcript(runs.text);
  for (const auto& test : lab.tests) {
    if (!runs.transcript.tests.count(test.name)) runs.why_missing[test.name] = "the expectations hold no transcript of it";
  }
  return runs;
}

/// Seconds between one lap() and the next.
class Stopwatch {
 public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return seconds;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

/// A file's content as 64-bit FNV-1a, in hex: the reference cache knows a
/// program by what it holds, so that a rebuild to the same bytes keeps the
/// cache and any change, whatever the file's time, drops it.
std::string content_digest(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::uint64_t hash = 0xcbf29ce484222325ull;
  std::array<char, 1 << 16> buffer;
  while (in.read(buffer.data(), buffer.size()), in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      hash = (hash ^ static_cast<unsigned char>(buffer[static_cast<std::size_t>(i)])) * 0x100000001b3ull;
    }
  }
  std::ostringstream hex;
  hex << std::hex << std::setw(16) << std::setfill('0') << hash;
  return hex.str();
}

/// The grader's own LAUNCHLAB_* settings (its sandbox, its locks, where the
/// course and build are), which no test reads: a class's gradings differ in
/// them and still share the reference's transcripts.
bool is_graders_own_setting(std::string_view entry) {
  for (std::string_view own : {"LAUNCHLAB_SANDBOX", "LAUNCHLAB_BWRAP=", "LAUNCHLAB_GPU_LOCK=", "LAUNCHLAB_ROOT=",
                               "LAUNCHLAB_BUILD_DIR="}) {
    if (entry.starts_with(own)) return true;
  }
  return false;
}

/// Everything a reference program's transcript depends on, as text. Not
/// the seed: each submission of a class draws its own, and a test that reads
/// it says so at its end ("seeded"), is never kept, and is run again at every
/// grading (finished_sections), so that the rest of the cache serves them all.
std::string reference_cache_key(const fs::path& program, const std::vector<std::string>& environment,
                                const std::string& identity) {
  std::string key = "program " + content_digest(program) + "\n" + identity + "\n";
  for (const auto& entry : environment) {
    if (!entry.starts_with("LAUNCHLAB_SEED=")) key += "given " + entry + "\n";
  }
  // The programs also inherit the grader's environment; what of it the
  // course's tests read (LAUNCHLAB_OPEN_GPU_DOC, say) changes what the
  // reference records.
  for (char** entry = environ; *entry; ++entry) {
    const std::string_view variable(*entry);
    if (variable.starts_with("LAUNCHLAB_") && !is_graders_own_setting(variable)) key += "inherited " + std::string(variable) + "\n";
  }
  return key;
}

/// Each test's lines of a transcript, from its start to its end, by name,
/// without the tests whose inputs came from the seed (their end says
/// "seeded"). Only the reference's transcripts are read so: they are the
/// course's own.
std::map<std::string, std::string> unseeded_test_sections(std::string_view text) {
  std::map<std::string, std::string> sections;
  std::string current, lines;
  for (std::size_t newline; (newline = text.find('\n')) != std::string_view::npos;) {
    const std::string_view line = text.substr(0, newline + 1);
    text.remove_prefix(newline + 1);
    const nlohmann::json parsed = nlohmann::json::parse(line, nullptr, false);
    if (!parsed.is_object() || !parsed.contains("event") || !parsed["event"].is_string()) continue;
    const std::string event = parsed["event"];
    if (event == "start" && parsed.contains("test") && parsed["test"].is_string()) {
      current = parsed["test"];
      lines.clear();
    }
    if (current.empty()) continue;
    lines += line;
    if (event == "end") {
      if (parsed.value("seeded", json()) != true) sections[current] = lines;
      current.clear();
    }
  }
  return sections;
}

/// A later run's tests added to a program's runs.
void merge_runs(ProgramRuns& into, ProgramRuns&& later) {
  merge_transcript(into.transcript, std::move(later.transcript));
  for (auto& [name, why] : later.why_missing) into.why_missing[name] = std::move(why);
  into.text += later.text;
  into.test_seconds.merge(later.test_seconds);
}

/// What the judge compares a learner's run of the test with, from a clean
/// transcript of the reference's: each record's key, comparison, expected
/// value and parameter, in order (judge.cpp). Figures the reference recorded
/// for itself and the context a record prints are not in it.
std::string judged_part(const std::string& text, const std::string& test) {
  const Transcript transcript = parse_transcript(text);
  auto found = transcript.tests.find(test);
  if (found == transcript.tests.end()) return {};
  nlohmann::json records = nlohmann::json::array();
  for (const auto& record : found->second.records) {
    records.push_back({record.key, record.check ? static_cast<int>(*record.check) : -1, record.expected, record.parameter});
  }
  return records.dump();
}

/// The keys of the records two judged parts (judged_part) compare
/// differently, or that only one of them holds.
std::set<std::string> keys_judged_otherwise(const std::string& before, const std::string& after) {
  auto by_key = [](const std::string& judged) {
    std::map<std::string, nlohmann::json> records;
    const nlohmann::json parsed = nlohmann::json::parse(judged, nullptr, false);
    if (!parsed.is_array()) return records;
    for (const auto& record : parsed) {
      if (record.is_array() && !record.empty() && record[0].is_string()) records[record[0].get<std::string>()] = record;
    }
    return records;
  };
  const auto earlier = by_key(before), later = by_key(after);
  std::set<std::string> keys;
  for (const auto& [key, record] : earlier) {
    if (auto found = later.find(key); found == later.end() || found->second != record) keys.insert(key);
  }
  for (const auto& [key, record] : later) {
    if (!earlier.count(key)) keys.insert(key);
  }
  return keys;
}

/// The reference's transcripts kept between gradings, test by test, in one
/// file per lab: {"key": ..., "tests": {name: {"transcript", "runs",
/// "varying"}}}, a test that measures {"transcript", "measures": true,
/// "judged", "judged_runs", "judged_varies"}.
/// Gradings side by side read it freely and take turns to change it (a lock
/// file beside it, the file replaced whole).
class ReferenceCache {
 public:
  ReferenceCache(fs::path file, std::string key, int runs_to_agree)
      : file_(std::move(file)), key_(std::move(key)), runs_to_agree_(runs_to_agree), tests_(load()) {}

  /// A test's transcript, once enough runs wrote it alike.
  std::optional<std::string> agreed(const std::string& test) const {
    auto found = tests_.find(test);
    if (found == tests_.end() || found->value("varying", false) || found->value("measures", false) ||
        found->value("runs", 0) < runs_to_agree_) {
      return std::nullopt;
    }
    return found->value("transcript", std::string());
  }

  /// Of these tests, those that one run wrote and no other confirmed yet.
  std::vector<std::string> unconfirmed(const std::vector<std::string>& tests) const {
    std::vector<std::string> waiting;
    for (const auto& test : tests) {
      auto found = tests_.find(test);
      if (found != tests_.end() && !found->value("varying", false) && !found->value("measures", false) &&
          found->value("runs", 0) < runs_to_agree_) {
        waiting.push_back(test);
      }
    }
    return waiting;
  }

  /// Of these tests that measure, those with fewer than two clean runs kept:
  /// which of their records hold figures is not known yet (figure_keys).
  std::vector<std::string> figures_unknown(const std::vector<std::string>& tests) const {
    std::vector<std::string> waiting;
    for (const auto& test : tests) {
      if (last_measured(test) && !figure_keys(test)) waiting.push_back(test);
    }
    return waiting;
  }

  /// Whether another run of the test would teach the cache nothing: one that
  /// measures once which of its records hold figures is known (two clean
  /// runs kept), another once runs agreed on it or found that it varies
  /// (then it runs at every grading, whatever is kept).
  bool settled(const std::string& test, bool measures) const {
    if (measures) return figure_keys(test).has_value();
    if (agreed(test)) return true;
    auto found = tests_.find(test);
    return found != tests_.end() && !found->value("measures", false) && found->value("varying", false);
  }

  /// The newest clean transcript of a test that measures (keep_measured is
  /// given clean runs alone): its figures are of one run, but what it
  /// records, and that the reference passes it, hold for every run under the
  /// same key.
  std::optional<std::string> last_measured(const std::string& test) const {
    auto found = tests_.find(test);
    if (found == tests_.end() || !found->value("measures", false)) return std::nullopt;
    return found->value("transcript", std::string());
  }

  /// The kept transcript of a test that measures whose judged part (what
  /// the judge compares the learner's records with: judged_part) enough
  /// clean runs wrote alike and none wrote otherwise: its figures vary, but
  /// nothing the learner's are compared with does, so measuring it again
  /// beside the learner's would change no verdict.
  std::optional<std::string> steady(const std::string& test) const {
    if (auto runs = judged_runs(test); !runs || *runs < runs_to_agree_) return std::nullopt;
    return tests_.at(test).value("transcript", std::string());
  }

  /// The records of a kept test that measures whose comparison changed
  /// from one clean run to the next (figures the reference measured); nothing
  /// before two clean runs were kept, when which records change is not known.
  std::optional<std::set<std::string>> figure_keys(const std::string& test) const {
    auto found = tests_.find(test);
    if (found == tests_.end() || !found->value("measures", false) || found->value("clean_runs", 0) < 2) {
      return std::nullopt;
    }
    return found->value("figure_keys", std::set<std::string>());
  }

  /// Keeps these transcripts of tests that measure as their newest, and
  /// counts the runs whose judged part agreed with the kept one's, and which
  /// records changed between them (figure_keys).
  void keep_measured(const std::map<std::string, std::string>& transcripts) {
    if (transcripts.empty()) return;
    std::error_code ignored;
    fs::create_directories(file_.parent_path(), ignored);
    FileLock turn(fs::path(file_.string() + ".lock"));
    tests_ = load();
    for (const auto& [test, transcript] : transcripts) {
      const std::string judged = judged_part(transcript, test);
      const nlohmann::json kept = tests_.value(test, nlohmann::json());
      const bool measured_before = kept.is_object() && kept.value("measures", false);
      const bool agrees = measured_before && kept.value("judged", std::string()) == judged;
      const bool varies = measured_before && (kept.value("judged_varies", false) || !agrees);
      std::set<std::string> figures;
      if (measured_before) {
        figures = kept.value("figure_keys", std::set<std::string>());
        figures.merge(keys_judged_otherwise(kept.value("judged", std::string()), judged));
      }
      tests_[test] = {{"transcript", transcript},
                      {"measures", true},
                      {"judged", judged},
                      {"judged_runs", agrees ? kept.value("judged_runs", 0) + 1 : 1},
                      {"judged_varies", varies},
                      {"clean_runs", measured_before ? kept.value("clean_runs", 0) + 1 : 1},
                      {"figure_keys", figures}};
      if (kept.is_object() && kept.contains("seconds")) tests_[test]["seconds"] = kept["seconds"];
    }
    write_file_atomically(file_, nlohmann::json{{"key", key_}, {"tests", tests_}}.dump() + "\n");
  }

  /// What one more run wrote for these tests: alike in what the judge
  /// compares (judged_part), it counts as one more agreeing run; different,
  /// the test is varying from then on. A run alike in that but not word for
  /// word (a time in a record's context) marks the text varying, which
  /// the linter reads (varying_reference_tests).
  void observe(const std::map<std::string, std::string>& transcripts) {
    if (transcripts.empty()) return;
    std::error_code ignored;
    fs::create_directories(file_.parent_path(), ignored);
    FileLock turn(fs::path(file_.string() + ".lock"));
    tests_ = load();  // what gradings beside this one wrote meanwhile
    for (const auto& [test, transcript] : transcripts) {
      nlohmann::json& entry = tests_[test];
      const std::string kept = entry.is_object() ? entry.value("transcript", std::string()) : std::string();
      if (entry.is_null()) {
        entry = {{"transcript", transcript}, {"runs", 1}, {"varying", false}};
      } else if (judged_part(kept, test) == judged_part(transcript, test)) {
        entry["runs"] = entry.value("runs", 0) + 1;
        if (kept != transcript) entry["text_varies"] = true;
      } else {
        entry["varying"] = true;
      }
    }
    write_file_atomically(file_, nlohmann::json{{"key", key_}, {"tests", tests_}}.dump() + "\n");
  }

  /// Keeps how long each of these tests of the reference took (GoogleTest's
  /// clock) beside its kept transcript: what a learner's run of the test
  /// may take, for dealing a lab's tests into runs side by side.
  void keep_seconds(const std::map<std::string, double>& seconds) {
    if (seconds.empty()) return;
    std::error_code ignored;
    fs::create_directories(file_.parent_path(), ignored);
    FileLock turn(fs::path(file_.string() + ".lock"));
    tests_ = load();
    bool changed = false;
    for (const auto& [test, took] : seconds) {
      auto found = tests_.find(test);
      if (found == tests_.end() || !found->is_object()) continue;
      (*found)["seconds"] = took;
      changed = true;
    }
    if (changed) write_file_atomically(file_, nlohmann::json{{"key", key_}, {"tests", tests_}}.dump() + "\n");
  }

  /// How long the reference took on each test it kept a time of.
  std::map<std::string, double> seconds() const {
    std::map<std::string, double> seconds;
    for (const auto& [test, entry] : tests_.items()) {
      if (entry.is_object() && entry.contains("seconds") && entry["seconds"].is_number()) {
        seconds[test] = entry["seconds"].get<double>();
      }
    }
    return seconds;
  }

  /// The tests a cache file keeps, {name: {"transcript", "runs",
  /// "varying"}}, and those that measure {name: {"transcript", "measures"}}:
  /// none when the file is missing or malformed, or when `key` is given and
  /// the file's is another.
  static nlohmann::json tests_in(const fs::path& file, const std::optional<std::string>& key) {
    const nlohmann::json whole = nlohmann::json::parse(read_text(file), nullptr, false);
    if (!whole.is_object() || (key && whole.value("key", std::string()) != *key) || !whole.contains("tests") ||
        !whole["tests"].is_object()) {
      return nlohmann::json::object();
    }
    return whole["tests"];
  }

 private:
  nlohmann::json load() const { return tests_in(file_, key_); }

  /// How many clean runs of a kept test that measures wrote its judged part
  /// alike; nothing when none is kept or a run wrote it otherwise.
  std::optional<int> judged_runs(const std::string& test) const {
    auto found = tests_.find(test);
    if (found == tests_.end() || !found->value("measures", false) || found->value("judged_varies", false)) {
      return std::nullopt;
    }
    return found->value("judged_runs", 0);
  }

  fs::path file_;
  std::string key_;
  int runs_to_agree_;
  nlohmann::json tests_;
};

/// The sections of the tests a run finished, for the cache: a test that
/// crashed, hung or was not there is not one to keep, nor one that read the seed.
std::map<std::string, std::string> finished_sections(const ProgramRuns& runs) {
  std::map<std::string, std::string> finished = unseeded_test_sections(runs.text);
  std::erase_if(finished, [&](const auto& section) {
    auto found = runs.transcript.tests.find(section.first);
    return runs.why_missing.count(section.first) || found == runs.transcript.tests.end() || !found->second.ended;
  });
  return finished;
}

/// The cache of a reference program's transcripts run with this environment.
ReferenceCache reference_cache_of(const fs::path& program, const std::vector<std::string>& environment,
                                  const RunSettings& settings) {
  return ReferenceCache(settings.reference_cache, reference_cache_key(program, environment, settings.reference_identity),
                        settings.reference_runs_to_agree);
}

/// Runs the named tests of a reference program.
using ReferenceRunner = std::function<ProgramRuns(const std::vector<std::string>&)>;

/// Whether a transcript of one test says the reference passed it and
/// recorded values: a run of it that a learner's can be judged against.
bool clean_run_of(const std::string& text, const std::string& test) {
  const Transcript transcript = parse_transcript(text);
  auto found = transcript.tests.find(test);
  if (found == transcript.tests.end()) return false;
  const TestTranscript& run = found->second;
  return run.ended && !run.skipped && run.failures.empty() && !run.records.empty();
}

/// The sections of a run's tests that measure that are clean runs.
std::map<std::string, std::string> clean_measured_sections(const Lab& lab, const ProgramRuns& runs) {
  std::map<std::string, std::string> sections = finished_sections(runs);
  std::erase_if(sections, [&](const auto& section) {
    const auto test = std::ranges::find_if(lab.tests, [&](const LabTest& t) { return t.name == section.first; });
    return test == lab.tests.end() || !test->measures || !clean_run_of(section.second, section.first);
  });
  return sections;
}

/// The kept transcript that may stand for a run of the reference's test:
/// one that runs agreed on, or for a test that measures, one steady in
/// what the judge compares. A leaderboard's figure is the reference's of
/// the same grading (leaderboard_of), so a test with one is measured always.
std::optional<std::string> kept_run_of(const LabTest& test, const ReferenceCache& cache) {
  if (!test.measures) return cache.agreed(test.name);
  if (test.leaderboard) return std::nullopt;
  return cache.steady(test.name);
}

/// The reference's half from the cache where runs agreed on it (on the
/// judged part, for a test that measures), the rest run now (a test seen
/// once is run a second time at once, so that the next grading reads it).
/// The tests that measure and have a clean run kept
/// are left out when `deferred` is given, and named there: whether they
/// need a run of their own depends on what the learner's run recorded.
ProgramRuns cached_reference_runs(const Lab& lab, ReferenceCache& cache, LabPhases& phases,
                                  const ReferenceRunner& run_reference, std::vector<std::string>* deferred = nullptr) {
  std::string cached_text;
  std::set<std::string> measuring;  // declared so in lab.toml: kept by keep_measured, never by observe
  for (const auto& test : lab.tests) {
    if (test.measures) measuring.insert(test.name);
    if (auto transcript = kept_run_of(test, cache)) {
      cached_text += *transcript;
      ++phases.cached_tests;
    } else if (test.measures && deferred && cache.last_measured(test.name)) {
      deferred->push_back(test.name);
    } else {
      phases.measured_tests.push_back(test.name);
    }
  }
  // A test the reference failed is never kept: a failure of the course's
  // own code says something went wrong on this host at that moment (a
  // thread starved under load), and kept it would stand for every later
  // grading; run again, it is judged by what that run gives.
  auto to_keep = [&](const ProgramRuns& runs) {
    std::map<std::string, std::string> sections = finished_sections(runs);
    std::erase_if(sections, [&](const auto& section) {
      auto found = runs.transcript.tests.find(section.first);
      return measuring.count(section.first) > 0 || found == runs.transcript.tests.end() ||
             !found->second.failures.empty();
    });
    return sections;
  };
  ProgramRuns runs = run_reference(phases.measured_tests);
  cache.observe(to_keep(runs));
  cache.keep_measured(clean_measured_sections(lab, runs));
  cache.keep_seconds(runs.test_seconds);
  // Once more at once: a test seen once, and where the course is being
  // prepared (nothing deferred), a test that measures with one clean run
  // kept: the second says whether what the judge compares is steady (for
  // kept_run_of) and which records hold figures, so that a grading's
  // learner who fails a record without one spares the reference's run
  // (finish_deferred_reference_runs), a test with a leaderboard too.
  std::vector<std::string> waiting = cache.unconfirmed(phases.measured_tests);
  if (!deferred) {
    for (auto& name : cache.figures_unknown(phases.measured_tests)) waiting.push_back(std::move(name));
  }
  if (!waiting.empty()) {
    const ProgramRuns again = run_reference(waiting);
    cache.observe(to_keep(again));
    cache.keep_measured(clean_measured_sections(lab, again));
  }
  for (auto& [test, transcript] : parse_transcript(cached_text).tests) runs.transcript.tests[test] = std::move(transcript);
  runs.text = cached_text + runs.text;
  return runs;
}

/// The reference's runs of these tests that measure, made now and kept as
/// the newest clean runs: what the learner's figures are compared with.
void measure_reference_now(const Lab& lab, const std::vector<std::string>& tests, ReferenceCache& cache,
                           LabPhases& phases, const ReferenceRunner& run_reference, ProgramRuns& reference) {
  if (tests.empty()) return;
  ProgramRuns measured = run_reference(tests);
  cache.keep_measured(clean_measured_sections(lab, measured));
  phases.measured_tests.insert(phases.measured_tests.end(), tests.begin(), tests.end());
  merge_runs(reference, std::move(measured));
}

/// Whether the learner's run of a deferred test (below) fails whatever
/// figures a fresh run of the reference measures: it recorded nothing, or,
/// once two clean runs of the reference showed which of its records hold
/// figures, it fails a record that holds none (fails_whatever_the_figures).
bool fails_whatever_the_reference_measures(const std::string& test, const ProgramRuns& learner,
                                           const ReferenceCache& cache) {
  auto ran = learner.transcript.tests.find(test);
  if (ran == learner.transcript.tests.end() || ran->second.records.empty()) return true;
  const auto figures = cache.figure_keys(test);
  const auto kept = cache.last_measured(test);
  if (!figures || !kept) return false;
  const Transcript transcript = parse_transcript(*kept);
  auto reference = transcript.tests.find(test);
  return reference != transcript.tests.end() && fails_whatever_the_figures(reference->second, ran->second, *figures);
}

/// The reference's runs of the deferred tests that measure (above): run
/// now where the learner's run of the test may pass, to be compared with
/// figures measured in the same grading; where it fails whatever the
/// figures (it recorded none, or failed a record that holds none), the kept
/// clean run stands in (phases.spared_tests): the verdict is the one a
/// fresh run gives, and a figure its message quotes is of an earlier grading.
void finish_deferred_reference_runs(const Lab& lab, const std::vector<std::string>& deferred, const ProgramRuns& learner,
                                    ReferenceCache& cache, LabPhases& phases, const ReferenceRunner& run_reference,
                                    ProgramRuns& reference) {
  std::vector<std::string> to_run;
  std::string kept_text;
  for (const auto& test : deferred) {
    if (!fails_whatever_the_reference_measures(test, learner, cache)) {
      to_run.push_back(test);
    } else {
      kept_text += cache.last_measured(test).value_or(std::string());
      phases.spared_tests.push_back(test);
    }
  }
  for (auto& [test, transcript] : parse_transcript(kept_text).tests) reference.transcript.tests[test] = std::move(transcript);
  reference.text += kept_text;
  measure_reference_now(lab, to_run, cache, phases, run_reference, reference);
}

}  // namespace

std::vector<std::string> prepare_reference_transcripts(const Lab& lab, const fs::path& program, const fs::path& scratch,
                                                       const Capabilities& capabilities, const RunSettings& settings) {
  const std::vector<std::string> environment = test_environment(settings);
  ReferenceCache cache = reference_cache_of(program, environment, settings);
  // A course prepared already (grade-class prepares before every class) runs
  // only what its cache has yet to learn: a warm preparation runs nothing.
  Lab unsettled = lab;
  std::erase_if(unsettled.tests, [&](const LabTest& test) { return cache.settled(test.name, test.measures); });
  if (!settings.reference_cache.empty() && !unsettled.tests.empty()) {
    const auto gpu_turn = take_gpu_turn(lab, capabilities);
    make_reference_scratch(scratch / "reference");
    LabPhases phases;
    std::vector<std::string> tampering;  // the reference runs unguarded
    cached_reference_runs(unsettled, cache, phases, [&](const std::vector<std::string>& tests) {
      return run_program(lab, tests, program, scratch / "reference", environment, lab_limits(lab), Sandbox{}, nullptr,
                         tampering, "the reference's");
    });
  }
  std::vector<std::string> run_every_time;
  for (const auto& test : lab.tests) {
    if (!kept_run_of(test, cache)) run_every_time.push_back(test.name);
  }
  return run_every_time;
}

namespace {

/// Why the GPU was unfair over a run, from its readings before and after.
std::string unfairness_over(const std::optional<GpuState>& before, const std::optional<GpuState>& after) {
  std::string why = before ? before->unfairness() : "";
  const std::string later = after ? after->unfairness() : "";
  if (!later.empty() && later != why) why += (why.empty() ? "" : "; then ") + later;
  return why;
}

nlohmann::json readings_json(bool is_reference, const std::optional<GpuState>& before,
                             const std::optional<GpuState>& after, const std::string& unfair) {
  return {{"program", is_reference ? "reference" : "learner"},
          {"before", before ? to_json(*before) : nlohmann::json()},
          {"after", after ? to_json(*after) : nlohmann::json()},
          {"unfair", unfair}};
}

}  // namespace

std::vector<std::string> varying_reference_tests(const fs::path& reference_cache) {
  std::vector<std::string> varying;
  const nlohmann::json tests = ReferenceCache::tests_in(reference_cache, std::nullopt);
  for (const auto& [test, entry] : tests.items()) {
    if (entry.is_object() && (entry.value("varying", false) || entry.value("text_varies", false))) varying.push_back(test);
  }
  return varying;
}

namespace {

/// The lane a run of these tests of the lab goes in (gpu_turns.h).
Lane lane_of(const Lab& lab, const std::vector<std::string>& tests, const Capabilities& capabilities) {
  bool alone = false, gpu = false;
  for (const auto& test : lab.tests) {
    if (std::find(tests.begin(), tests.end(), test.name) == tests.end()) continue;
    alone = alone || test.runs_alone();
    gpu = gpu || test.needs_gpu();
  }
  if (alone) return Lane::alone;
  if (!capabilities.gpu) return Lane::cpu;
  if (gpu) return Lane::shared;
  // Tests that need no GPU open it where there is one, in a lab whose code
  // uses it (lab 05's drawn valid calls create contexts): a run of theirs
  // beside a run alone on the GPU would be another process there.
  return lab.gpu_need() == course::GpuNeed::none ? Lane::cpu : Lane::beside;
}

/// At most this many GPU tests of a lab in one run beside the others: a
/// run that shares the GPU holds off every run that must be alone on it
/// until it ends, so a lab's long GPU tests are better spread over runs
/// side by side.
constexpr std::size_t kGpuTestsPerRun = 4;

/// At most this many runs of a lab's tests that need no GPU, side by side.
constexpr std::size_t kCpuRunsPerLab = 4;

/// The reference's kept time of a test (ReferenceCache::seconds), 0 where none is kept.
double kept_seconds_of(const std::map<std::string, double>& seconds, const std::string& test) {
  auto found = seconds.find(test);
  return found == seconds.end() ? 0.0 : found->second;
}

/// Tests dealt into `count` runs, each test going to the run with the least
/// time so far by the reference's kept times (`seconds`), longest first, and
/// each run keeping the tests' order; tests without a kept time go round.
std::vector<std::vector<std::string>> dealt_longest_first(const std::vector<std::string>& tests,
                                                          const std::map<std::string, double>& seconds,
                                                          std::size_t count) {
  auto took = [&](const std::string& test) { return kept_seconds_of(seconds, test); };
  std::vector<std::string> longest_first = tests;
  std::ranges::stable_sort(longest_first, std::ranges::greater{}, took);
  std::vector<double> load(count, 0.0);
  std::vector<std::size_t> tests_in(count, 0);
  std::map<std::string, std::size_t> run_of;
  for (const auto& test : longest_first) {
    // The least time so far, and of runs alike in it the one with the fewest tests.
    std::size_t least = 0;
    for (std::size_t run = 1; run < count; ++run) {
      if (std::tie(load[run], tests_in[run]) < std::tie(load[least], tests_in[least])) least = run;
    }
    run_of[test] = least;
    load[least] += took(test);
    ++tests_in[least];
  }
  std::vector<std::vector<std::string>> runs(count);
  for (const auto& test : tests) runs[run_of[test]].push_back(test);
  std::erase_if(runs, [](const auto& run) { return run.empty(); });
  return runs;
}

/// A lab's tests that need no GPU, in runs side by side that never wait for
/// a turn on it: one run, unless the reference's kept times (`seconds`) say
/// that the others together take long beside the longest (several compile
/// or disassemble); then as many runs as it takes for none to last more
/// than the longest test and the cost of a run (kCpuRunsPerLab at most),
/// dealt longest first. A run more than that would save less than it
/// costs, and tests that share what their program makes once (a lab's
/// fresh builds) would make it again in each run.
std::vector<std::vector<std::string>> cpu_runs(const std::vector<std::string>& tests,
                                               const std::map<std::string, double>& seconds) {
  double total = 0, longest = 0;
  for (const auto& test : tests) {
    const double took = kept_seconds_of(seconds, test);
    total += took;
    longest = std::max(longest, took);
  }
  // What a run costs: its program's start and its sandbox's, and the
  // test program's own set-up made again in it; a second at most.
  constexpr double kCostOfARun = 1.0;
  const auto count = static_cast<std::size_t>(std::ceil(total / (longest + kCostOfARun)));
  const std::size_t runs_wanted = std::clamp<std::size_t>(count, 1, std::min(kCpuRunsPerLab, tests.size()));
  if (runs_wanted == 1) return {tests};
  return dealt_longest_first(tests, seconds, runs_wanted);
}

/// The runs of a lab's tests that are not alone on the GPU, side by side:
/// those that need no GPU in cpu_runs, and the GPU's in runs of
/// kGpuTestsPerRun at most on average, dealt longest first, so that two
/// long ones share no run where another run can take one. A grading
/// without turns of its own runs them all in one.
std::vector<std::vector<std::string>> side_by_side_runs(const Lab& lab, const std::vector<std::string>& tests,
                                                        const Capabilities& capabilities, bool with_turns,
                                                        const std::map<std::string, double>& seconds) {
  if (!with_turns || tests.empty()) return {tests};
  std::vector<std::string> cpu, gpu;
  for (const auto& test : lab.tests) {
    if (std::ranges::find(tests, test.name) == tests.end()) continue;
    (test.needs_gpu() && capabilities.gpu ? gpu : cpu).push_back(test.name);
  }
  std::vector<std::vector<std::string>> runs;
  if (!cpu.empty()) runs = cpu_runs(cpu, seconds);
  if (!gpu.empty()) {
    for (auto& run : dealt_longest_first(gpu, seconds, (gpu.size() + kGpuTestsPerRun - 1) / kGpuTestsPerRun)) {
      runs.push_back(std::move(run));
    }
  }
  return runs;
}

/// Whether any of these tests measures with the GPU to itself (LabTest::measures_alone).
bool any_measures_alone(const Lab& lab, const std::vector<std::string>& tests) {
  return std::any_of(lab.tests.begin(), lab.tests.end(), [&](const LabTest& test) {
    return test.measures_alone() && std::find(tests.begin(), tests.end(), test.name) != tests.end();
  });
}

}  // namespace

ReferenceRun run_reference_program(const Lab& lab, const fs::path& program, const fs::path& scratch,
                                   const RunSettings& settings) {
  make_reference_scratch(scratch);
  std::vector<std::string> tampering;
  ProgramRuns runs = run_program(lab, test_names(lab), program, scratch, test_environment(settings), lab_limits(lab),
                                 Sandbox{}, nullptr, tampering, "the reference's");
  return {std::move(runs.text), std::move(runs.why_missing)};
}

std::vector<TestResult> run_lab_tests(const Lab& lab, const LabPrograms& programs, const Capabilities& capabilities,
                                      const fs::path& scratch, const RunSettings& settings) {
  std::error_code ignored;
  fs::create_directories(scratch / "learner", ignored);
  make_reference_scratch(scratch / "reference");

  const RunLimits limits = lab_limits(lab);
  std::vector<std::string> environment = test_environment(settings);

  // Held around both programs of the lab, where the grading takes no turns
  // of its own (gpu_turns.h) for each run.
  const auto gpu_turn = settings.gpu_turns ? nullptr : take_gpu_turn(lab, capabilities);
  std::vector<std::string> tampering;
  LabPhases phases;
  // Each run takes its turn in its lane, and is logged in the phases: whose,
  // which lane, how long it waited and how long it ran. The sanitizer's runs
  // come from several threads at once.
  std::mutex phases_mutex;
  auto in_turn = [&](const std::string& program, Lane lane, std::size_t tests, auto&& run) {
    double waited = 0;
    std::optional<GpuTurns::Turn> turn;
    if (settings.gpu_turns) turn.emplace(settings.gpu_turns->take(lane, &waited));
    const double started = settings.gpu_turns ? settings.gpu_turns->seconds_since_made() : 0.0;
    Stopwatch took;
    auto result = run();
    const double seconds = took.lap();
    std::vector<std::pair<std::string, double>> slowest;
    if constexpr (std::is_same_v<std::decay_t<decltype(result)>, ProgramRuns>) {
      slowest.assign(result.test_seconds.begin(), result.test_seconds.end());
      std::ranges::sort(slowest, std::ranges::greater{}, &std::pair<std::string, double>::second);
      if (slowest.size() > kSlowestTestsShown) slowest.resize(kSlowestTestsShown);
    }
    std::lock_guard hold(phases_mutex);
    phases.waited_seconds += waited;
    phases.runs.push_back(
        {program, std::string(to_string(lane)), static_cast<int>(tests), seconds, waited, started, std::move(slowest)});
    return result;
  };
  // A run of tests that measure is kept to the cores kept for measuring; a
  // run that needs no GPU (the cpu lane, or beside) and measures nothing
  // yields the cores to the runs on the GPU, which every run alone there
  // waits for.
  auto limits_of = [&](const std::vector<std::string>& tests) {
    RunLimits run_limits = limits;
    if (settings.gpu_turns && any_measures_alone(lab, tests)) {
      run_limits.cpus = settings.gpu_turns->measuring_cores();
    } else if (const Lane lane = lane_of(lab, tests, capabilities);
               settings.gpu_turns && (lane == Lane::cpu || lane == Lane::beside)) {
      run_limits.niceness = kYieldingNiceness;
    }
    return run_limits;
  };
  // With turns of its own, a grading runs the tests that must be alone on
  // the GPU apart from the rest; without, each program's in one run.
  auto alone_apart = [&](const std::vector<std::string>& tests) {
    std::pair<std::vector<std::string>, std::vector<std::string>> parts;  // the others, those alone
    for (const auto& test : lab.tests) {
      if (std::ranges::find(tests, test.name) == tests.end()) continue;
      (settings.gpu_turns && test.runs_alone() ? parts.second : parts.first).push_back(test.name);
    }
    return parts;
  };
  // Fair timing: while the GPU was throttled or shared around a run of
  // timing tests measured alone, they are run again, up to the lab's timing_attempts; the
  // newest attempt stands, and the lab asks for a regrade when none was
  // fair. The reference's figures are what the learner's are compared with,
  // so its timing tests are measured so too. Without a driver there is no
  // reading, and nothing of this happens.
  auto measure_fairly = [&](const std::vector<std::string>& tests, bool is_reference,
                            const std::function<ProgramRuns(const std::vector<std::string>&)>& run) {
    std::vector<std::string> timing_tests;
    for (const auto& test : lab.tests) {
      if (test.measures_alone() && test.needs_gpu() && std::ranges::find(tests, test.name) != tests.end()) {
        timing_tests.push_back(test.name);
      }
    }
    std::optional<GpuState> before;
    if (capabilities.gpu && !timing_tests.empty()) before = read_gpu_state(capabilities.gpu_uuid);
    ProgramRuns runs = run(tests);
    if (!before) return runs;
    std::optional<GpuState> after = read_gpu_state(capabilities.gpu_uuid);
    std::string unfair = unfairness_over(before, after);
    phases.gpu_readings.push_back(readings_json(is_reference, before, after, unfair));
    for (int attempt = 1; !unfair.empty() && attempt < lab.timing_attempts; ++attempt) {
      before = read_gpu_state(capabilities.gpu_uuid);
      ProgramRuns again = run(timing_tests);
      after = read_gpu_state(capabilities.gpu_uuid);
      unfair = unfairness_over(before, after);
      phases.gpu_readings.push_back(readings_json(is_reference, before, after, unfair));
      for (const auto& name : timing_tests) {
        runs.transcript.tests.erase(name);
        runs.why_missing.erase(name);
        if (auto why = again.why_missing.find(name); why != again.why_missing.end()) runs.why_missing[name] = why->second;
      }
      merge_transcript(runs.transcript, std::move(again.transcript));
    }
    if (!unfair.empty()) {
      phases.regrade = "the GPU was " + unfair + " in each of " + std::to_string(lab.timing_attempts) + " attempts at " +
                       (is_reference ? "the reference's" : "your") + " timing tests";
    }
    return runs;
  };
  // The reference's tests that share the GPU share it with the course's
  // other programs alone (gpu_turns.h).
  auto run_reference = [&](const std::vector<std::string>& tests) {
    const auto [others, alone] = alone_apart(tests);
    ProgramRuns runs;
    for (const auto* part : {&others, &alone}) {
      if (part->empty()) continue;
      const Lane lane = lane_of(lab, *part, capabilities);
      merge_runs(runs, in_turn("reference", lane == Lane::shared ? Lane::course : lane, part->size(), [&] {
                   return measure_fairly(*part, true, [&](const std::vector<std::string>& these) {
                     return run_program(lab, these, programs.reference, scratch / "reference", environment,
                                        limits_of(these), Sandbox{}, nullptr, tampering, "the reference's");
                   });
                 }));
    }
    return runs;
  };

  Stopwatch stopwatch;
  // The reference runs first: it is the course's own code, and what it
  // records is what the learner's program is compared with. Its tests that
  // measure wait for the learner's run where a clean run of theirs is kept
  // (finish_deferred_reference_runs).
  ProgramRuns reference;
  std::optional<ReferenceCache> cache;
  std::vector<std::string> deferred;
  if (!settings.expectations.empty()) {
    reference = read_expectations(lab, settings.expectations);
  } else if (settings.reference_cache.empty()) {
    reference = run_reference(test_names(lab));
    phases.measured_tests = test_names(lab);
  } else {
    cache.emplace(reference_cache_of(programs.reference, environment, settings));
    reference = cached_reference_runs(lab, *cache, phases, run_reference, &deferred);
  }
  // While the learner's program is still being built, nothing else of the
  // grading can use the GPU: the tests that measure are measured then, on
  // the cores kept for measuring, rather than waiting for the learner's run
  // (which might have spared them), where the grading has the GPU to itself.
  if (!deferred.empty() && settings.measure_while_building && settings.measure_while_building->load()) {
    measure_reference_now(lab, deferred, *cache, phases, run_reference, reference);
    deferred.clear();
  }
  phases.reference_seconds = stopwatch.lap();
  if (settings.learner_program_ready && !settings.learner_program_ready()) {
    if (settings.phases) *settings.phases = std::move(phases);
    return {};
  }
  stopwatch.lap();  // the wait for the learner's build, which is the build's phase
  SandboxView view;
  view.read_only = settings.learner_reads;
  view.read_only.push_back(programs.learner);
  if (!settings.test_data.empty()) {
    view.read_only.push_back(settings.test_data);
    environment.push_back("LAUNCHLAB_TEST_DATA=" + settings.test_data.string());
  }
  // Lab 07's tests read NVIDIA's headers from the checkout this names.
  if (const char* checkout = std::getenv("LAUNCHLAB_OPEN_GPU_DOC"); checkout && *checkout && fs::is_directory(checkout)) {
    view.read_only.push_back(fs::path(checkout));
  }
  view.writable.push_back(scratch / "learner");
  view.gpu = true;
  // Each run in a working folder of its own: runs side by side are handed
  // to sandbox users of their own, and one writable folder to one at a time.
  auto run_learner_fairly = [&](const std::vector<std::string>& tests, const fs::path& folder,
                                std::vector<std::string>& changed_files) {
    const RunLimits run_limits = limits_of(tests);
    SandboxView run_view = view;
    run_view.writable = {folder};
    const Sandbox sandbox = sandbox_for(settings.sandbox, run_view);
    return in_turn("learner", lane_of(lab, tests, capabilities), tests.size(), [&] {
      return measure_fairly(tests, false, [&](const std::vector<std::string>& these) {
        return run_program(lab, these, programs.learner, folder, environment, run_limits, sandbox, settings.guard,
                           changed_files, "your");
      });
    });
  };
  // The learner's program under compute-sanitizer (sanitize.h): under the
  // same sandbox, with the limits stretched; the reference's when it is
  // asked. The tools run side by side, so each has working folders of its
  // own: one writable folder is handed to one sandbox user at a time. A run
  // made before the judging (`early`) leaves the grader's files to be
  // checked after the judging, as the runs beside it do.
  std::mutex tampering_mutex;
  auto run_under_tool = [&](const std::string& tool, const std::vector<std::string>& tests, bool is_reference,
                            bool early) {
    RunLimits slow = limits;
    slow.timeout = limits.timeout * kSanitizerSlowdown;
    auto found = capabilities.tool_paths.find("compute-sanitizer");
    const fs::path compute_sanitizer = found == capabilities.tool_paths.end() ? fs::path() : found->second;
    const fs::path folder = scratch / ((is_reference ? "reference-" : "learner-") + tool);
    const fs::path log = fs::absolute(folder / ("compute-sanitizer-" + tool + ".log"));
    std::error_code ignored;
    if (is_reference) {
      make_reference_scratch(folder);
    } else {
      fs::create_directories(folder, ignored);
    }
    fs::remove_all(log, ignored);
    SandboxView tool_view = view;
    tool_view.writable = {folder};
    if (settings.guard && !early) {
      std::vector<std::string> changed = settings.guard->restore_changed();
      std::lock_guard hold(tampering_mutex);
      for (auto& line : changed) tampering.push_back(std::move(line));
    }
    const fs::path binary = is_reference ? programs.reference : programs.learner;
    ReportChannel channel;
    TranscriptFollower follower(channel);
    const double test_limit = static_cast<double>(lab.test_timeout_seconds) * kSanitizerSlowdown;
    RunWatch watch = [&](std::string_view, double now) -> std::optional<std::string> {
      follower.catch_up(now);
      if (follower.running_longer_than(test_limit, now)) {
        return "ran one test longer than the " + std::to_string(static_cast<int>(test_limit)) + " s it may take under the sanitizer and was stopped";
      }
      return std::nullopt;
    };
    SanitizedRun run;
    run.limits = slow;
    run.outcome = in_turn((is_reference ? "reference under " : "learner under ") + tool,
                          is_reference ? Lane::course : Lane::shared, tests.size(), [&] {
      return run_limited(
          sanitizer_command(compute_sanitizer, tool, log,
                            {fs::absolute(binary).string(), "--gtest_filter=" + join_filter(tests), "--gtest_color=no"}),
          folder, environment, slow, is_reference ? Sandbox{} : sandbox_for(settings.sandbox, tool_view), watch, &channel);
    });
    run.report = read_report_file(log);
    // A test skipped under the tool checked nothing. The transcript's
    // descriptor may not reach the program through the tool: GoogleTest's
    // own line for a test that ran to its end says as much (the program
    // writes both, so neither is more than its word).
    for (const auto& [name, transcript] : parse_transcript(channel.report).tests) {
      if (transcript.ended && !transcript.skipped) run.ended.insert(name);
    }
    for (const auto& end : printed_test_ends(run.outcome.output)) {
      if (end.passed) run.ended.insert(end.test);
    }
    return run;
  };
  const SanitizedRunner sanitized_runner = [&](const std::string& tool, const std::vector<std::string>& tests,
                                               bool is_reference) { return run_under_tool(tool, tests, is_reference, false); };
  const auto [other_tests, alone_tests] = alone_apart(test_names(lab));
  const std::vector<std::vector<std::string>> side_by_side =
      side_by_side_runs(lab, other_tests, capabilities, settings.gpu_turns != nullptr,
                        cache ? cache->seconds() : std::map<std::string, double>());
  std::vector<std::vector<std::string>> changed_in(side_by_side.size());
  std::vector<std::future<ProgramRuns>> running;
  for (std::size_t i = 0; i < side_by_side.size(); ++i) {
    const fs::path folder = scratch / (i == 0 ? std::string("learner") : "learner-" + std::to_string(i + 1));
    fs::create_directories(folder, ignored);
    running.push_back(std::async(std::launch::async, [&, i, folder] {
      return run_learner_fairly(side_by_side[i], folder, changed_in[i]);
    }));
  }
  // Each tool's first run, over the tests of these runs that it checks, goes
  // beside them rather than after every run of the grading alone on the GPU,
  // before anything is judged: for a submission whose tests pass it is the
  // run the checks would make (sanitize.h, reusing_early_runs).
  std::map<std::string, std::future<EarlySanitizedRun>> early_sanitizer_runs;
  if (settings.gpu_turns) {
    for (auto& [tool, tests] : sanitizer_candidates(lab, other_tests, capabilities)) {
      early_sanitizer_runs[tool] = std::async(std::launch::async, [&, tool, tests] {
        return EarlySanitizedRun{tests, run_under_tool(tool, tests, false, true)};
      });
    }
  }
  ProgramRuns learner;
  for (std::size_t i = 0; i < running.size(); ++i) {
    merge_runs(learner, running[i].get());
    for (auto& line : changed_in[i]) tampering.push_back(std::move(line));
  }
  if (!alone_tests.empty()) merge_runs(learner, run_learner_fairly(alone_tests, scratch / "learner", tampering));
  if (settings.guard) {
    for (auto& line : settings.guard->restore_changed()) tampering.push_back(std::move(line));
  }
  phases.learner_seconds = stopwatch.lap();
  if (!deferred.empty()) {
    finish_deferred_reference_runs(lab, deferred, learner, *cache, phases, run_reference, reference);
    phases.reference_seconds += stopwatch.lap();
  }

  // Expectations made elsewhere may hold a test this machine cannot run (a
  // GPU test made on a GPU): the judge hears of it as a reference that
  // skipped it here, and says what it needs.
  TestTranscript skipped_here;
  skipped_here.ended = skipped_here.skipped = true;
  std::vector<TestResult> results;
  for (const auto& test : lab.tests) {
    TestEvidence expected = evidence_of(reference, test.name);
    if (!settings.expectations.empty() && capabilities.unmet_need(test)) expected = {&skipped_here, {}};
    results.push_back(judge_test(test, expected, evidence_of(learner, test.name), capabilities));
    // What a file cannot judge is neither passed nor failed.
    auto elsewhere = settings.judged_by_grader.find(test.name);
    if (elsewhere != settings.judged_by_grader.end() && !capabilities.unmet_need(test)) {
      results.back() = {test.name, 0, test.points, TestStatus::not_graded,
                        "judged by the course's grader, not here: " + elsewhere->second};
    }
  }

  // The passed GPU tests once more under compute-sanitizer (sanitize.h),
  // the runs made before the judging reused where they were clean for them.
  if (!lab.sanitizer_checks().empty()) {
    std::map<std::string, EarlySanitizedRun> early;
    for (auto& [tool, run] : early_sanitizer_runs) early[tool] = run.get();
    results = with_sanitizer_checks(lab, results, capabilities, reusing_early_runs(sanitized_runner, std::move(early)));
    if (settings.guard) {
      for (auto& line : settings.guard->restore_changed()) tampering.push_back(std::move(line));
    }
  }
  // Code that changes the grader's files forfeits the lab, whatever its tests
  // said; so does a transcript with lines the test support never writes (a
  // record outside its test, an end without its start): something else wrote
  // to it, and nothing in it is evidence then.
  std::string why;
  if (!tampering.empty()) {
    why = "the code under test changed files the grader needs, so this lab scores 0:";
    for (const auto& line : tampering) why += "\n  " + line;
  }
  if (!learner.transcript.problems.empty()) {
    why += (why.empty() ? "" : "\n") + std::string("your program's transcript holds lines that no test wrote (") +
           learner.transcript.problems.front() + "): something other than the tests wrote to it, so this lab scores 0";
  }
  if (!why.empty()) {
    for (auto& result : results) {
      if (result.status == TestStatus::passed) result.status = TestStatus::failed;
      result.points = 0;
      result.message = why + (result.message.empty() ? "" : "\n" + result.message);
    }
  }
  phases.leaderboard = leaderboard_of(lab, results, reference, learner);
  phases.judge_seconds = stopwatch.lap();
  if (settings.phases) *settings.phases = std::move(phases);
  return results;
}

}  // namespace launchlab::grader
