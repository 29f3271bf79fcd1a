#include "launchlab/grader/grading.h"

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "launchlab/grader/process.h"

namespace launchlab::grader {
namespace fs = std::filesystem;

// ------------------------------------------------------------ capabilities

std::optional<std::string> Capabilities::unmet_need(const LabTest& test) const {
  for (const auto& need : test.needs) {
    if (need == "gpu") {
      if (!gpu) return need;
    } else {
      auto found = tools.find(need);
      if (found == tools.end() || !found->second) return need;
    }
  }
  return std::nullopt;
}

namespace {

bool executable_on_path(const std::string& name, const fs::path& cuda_bin_dir) {
  if (!cuda_bin_dir.empty() && access((cuda_bin_dir / name).c_str(), X_OK) == 0) return true;
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && access((fs::path(dir) / name).c_str(), X_OK) == 0) return true;
  }
  return false;
}

}  // namespace

Capabilities detect_capabilities(const fs::path& cuda_bin_dir) {
  Capabilities capabilities;
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    capabilities.gpu_detail = std::string("no usable GPU: ") + cudaGetErrorString(status);
  } else if (count == 0) {
    capabilities.gpu_detail = "no usable GPU: the driver sees no device";
  } else {
    cudaDeviceProp properties{};
    cudaGetDeviceProperties(&properties, 0);
    capabilities.gpu = true;
    capabilities.gpu_detail = std::string(properties.name) + " (sm_" + std::to_string(properties.major) +
                              std::to_string(properties.minor) + ")";
  }
  for (const auto& need : known_needs()) {
    if (need != "gpu") capabilities.tools[need] = executable_on_path(need, cuda_bin_dir);
  }
  return capabilities;
}

std::string to_string(TestStatus status) {
  switch (status) {
    case TestStatus::passed: return "passed";
    case TestStatus::failed: return "failed";
    case TestStatus::needs_gpu: return "needs a GPU";
    case TestStatus::needs_tool: return "needs a tool";
  }
  return "unknown";
}

int LabResult::points() const {
  int total = 0;
  for (const auto& test : tests) total += test.points;
  return total;
}

int LabResult::gradable_max() const {
  int total = 0;
  for (const auto& test : tests) {
    if (test.status == TestStatus::passed || test.status == TestStatus::failed) total += test.max_points;
  }
  return total;
}

int LabResult::not_gradable_points() const {
  int total = 0;
  for (const auto& test : tests) {
    if (test.status == TestStatus::needs_gpu || test.status == TestStatus::needs_tool) total += test.max_points;
  }
  return total;
}

std::vector<TestResult> all_failed(const Lab& lab, const std::string& why) {
  std::vector<TestResult> results;
  for (const auto& test : lab.tests) {
    results.push_back({test.name, 0, test.points, TestStatus::failed, why});
  }
  return results;
}

// ------------------------------------------------------------ running tests

namespace {

constexpr std::size_t kMessageLimit = 6000;

std::string clip(std::string text, std::size_t limit = kMessageLimit) {
  if (text.size() > limit) {
    text.resize(limit);
    text += "\n[... cut ...]";
  }
  return text;
}

/// Follows GoogleTest's progress lines to know which test is running. The
/// program can print anything, so this only ever decides which test a crash
/// or hang is blamed on, never whether a test passed.
class GtestProgress {
 public:
  void feed(std::string_view chunk, double now) {
    partial_.append(chunk);
    std::size_t newline;
    while ((newline = partial_.find('\n')) != std::string::npos) {
      line(std::string_view(partial_).substr(0, newline), now);
      partial_.erase(0, newline + 1);
    }
    // A flood without newlines must not grow this without bound.
    if (partial_.size() > 4096) partial_.erase(0, partial_.size() - 4096);
  }

  const std::optional<std::string>& current() const { return current_; }
  double current_since() const { return since_; }

 private:
  void line(std::string_view text, double now) {
    static constexpr std::string_view kRun = "[ RUN      ] ";
    static constexpr std::string_view kEnds[] = {"[       OK ] ", "[  FAILED  ] ", "[  SKIPPED ] "};
    if (text.substr(0, kRun.size()) == kRun) {
      current_ = std::string(text.substr(kRun.size()));
      since_ = now;
      return;
    }
    for (auto end : kEnds) {
      if (current_ && text.substr(0, end.size()) == end && text.substr(end.size(), current_->size()) == *current_) {
        current_.reset();
      }
    }
  }

  std::string partial_;
  std::optional<std::string> current_;
  double since_ = 0;
};

struct RecordedTest {
  std::string result;                 // COMPLETED, SKIPPED, ...
  std::vector<std::string> failures;
  std::string skip_message;
};

/// A fresh secret for one run: 32 hex digits from the kernel's generator.
std::string fresh_secret() {
  std::ifstream random("/dev/urandom", std::ios::binary);
  unsigned char bytes[16] = {};
  random.read(reinterpret_cast<char*>(bytes), sizeof bytes);
  if (!random) throw std::runtime_error("cannot read /dev/urandom");
  static const char* digits = "0123456789abcdef";
  std::string secret;
  for (unsigned char byte : bytes) {
    secret += digits[byte >> 4];
    secret += digits[byte & 15];
  }
  return secret;
}

/// Reads the report test_main.cpp sends. Throws ParseError when it is not
/// one, and when its secret is not this run's.
std::map<std::string, RecordedTest> read_report(const std::string& text, const std::string& secret) {
  std::map<std::string, RecordedTest> recorded;
  Value report = parse_json(text);
  const Value* nonce = report.find("nonce");
  if (!nonce || !nonce->is_string() || nonce->as_string() != secret) {
    throw ParseError("it does not carry this run's secret, so it did not come from the test program's main()");
  }
  const Value* tests = report.find("tests");
  if (!tests || !tests->is_array()) throw ParseError("no tests array");
  for (const auto& test : tests->as_array()) {
    const Value* name = test.find("name");
    const Value* result = test.find("result");
    const Value* failures = test.find("failures");
    if (!name || !name->is_string() || !result || !result->is_string() || !failures || !failures->is_array()) {
      throw ParseError("a test entry lacks its name, result or failures");
    }
    RecordedTest entry;
    entry.result = result->as_string();
    for (const auto& failure : failures->as_array()) {
      entry.failures.push_back(failure.is_string() ? failure.as_string() : "(no message)");
    }
    if (const Value* skip = test.find("skip_message"); skip && skip->is_string()) entry.skip_message = skip->as_string();
    recorded[name->as_string()] = std::move(entry);
  }
  return recorded;
}

TestResult judge_recorded(const LabTest& test, const RecordedTest& recorded, const Capabilities& capabilities) {
  TestResult result{test.name, 0, test.points, TestStatus::failed, ""};
  if (recorded.result == "SKIPPED") {
    std::string said = clip(recorded.skip_message, 600);
    if (auto need = capabilities.unmet_need(test)) {
      result.status = *need == "gpu" ? TestStatus::needs_gpu : TestStatus::needs_tool;
      result.message = *need == "gpu" ? "needs a GPU; not graded here (" + capabilities.gpu_detail + ")"
                                       : "needs " + *need + ", which is not installed here; not graded here";
    } else {
      result.message = "the test was skipped although everything it needs is here, so it scores 0" +
                       (said.empty() ? std::string() : ": " + said);
    }
    return result;
  }
  if (recorded.result != "COMPLETED") {
    result.message = "the test did not run (GoogleTest says " + recorded.result + ")";
    return result;
  }
  if (!recorded.failures.empty()) {
    std::string message;
    for (const auto& failure : recorded.failures) {
      if (!message.empty()) message += "\n\n";
      message += failure;
    }
    result.message = clip(message);
    return result;
  }
  result.points = test.points;
  result.status = TestStatus::passed;
  return result;
}

std::string join_filter(const std::vector<std::string>& names) {
  std::string filter;
  for (const auto& name : names) {
    if (!filter.empty()) filter += ':';
    filter += name;
  }
  return filter;
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

std::vector<TestResult> run_lab_tests(const Lab& lab, const fs::path& test_binary, const Capabilities& capabilities,
                                      const fs::path& scratch, GuardedFiles* guard,
                                      const std::vector<std::string>& extra_env) {
  std::map<std::string, TestResult> decided;
  std::vector<std::string> remaining;
  for (const auto& test : lab.tests) remaining.push_back(test.name);
  auto lab_test = [&](const std::string& name) -> const LabTest& {
    return *std::find_if(lab.tests.begin(), lab.tests.end(), [&](const LabTest& t) { return t.name == name; });
  };
  auto decide_failed = [&](const std::string& name, const std::string& why) {
    decided[name] = TestResult{name, 0, lab_test(name).points, TestStatus::failed, why};
  };

  std::error_code ignored;
  fs::create_directories(scratch, ignored);
  if (!fs::exists(test_binary)) {
    return all_failed(lab, "the test program was not built");
  }

  RunLimits limits;
  limits.timeout = std::chrono::seconds(lab.timeout_seconds);
  // In the course's container (LAUNCHLAB_SANDBOX=1) a fork bomb meets a
  // process limit of its own, below the container's.
  if (const char* sandbox = std::getenv("LAUNCHLAB_SANDBOX"); sandbox && std::string(sandbox) == "1") {
    limits.max_processes = 256;
  }
  std::vector<std::string> tampering;
  std::vector<std::string> environment = {"GTEST_COLOR=no"};
  environment.insert(environment.end(), extra_env.begin(), extra_env.end());
  for (int round = 0; !remaining.empty() && round <= static_cast<int>(lab.tests.size()); ++round) {
    GtestProgress progress;
    const double test_limit = lab.test_timeout_seconds;
    RunWatch watch = [&](std::string_view fresh, double now) -> std::optional<std::string> {
      progress.feed(fresh, now);
      if (progress.current() && now - progress.current_since() > test_limit) {
        return "ran longer than the " + std::to_string(lab.test_timeout_seconds) + " s one test may take and was stopped";
      }
      return std::nullopt;
    };
    if (guard) {
      for (const auto& line : guard->restore_changed()) tampering.push_back(line);
    }
    ReportChannel channel;
    channel.secret = fresh_secret();
    RunOutcome outcome = run_limited(
        {fs::absolute(test_binary).string(), "--gtest_filter=" + join_filter(remaining), "--gtest_color=no"},
        scratch, environment, limits, watch, &channel);

    std::map<std::string, RecordedTest> recorded;
    std::string report_problem;
    bool report_whole = false;
    if (!channel.report.empty()) {
      try {
        if (channel.overflowed) throw ParseError("it is larger than the grader reads");
        recorded = read_report(channel.report, channel.secret);
        report_whole = true;
      } catch (const std::exception& error) {
        report_problem = std::string(" (its report was refused: ") + error.what() + ")";
      }
    }
    // A report only counts when the program finished on its own: one that was
    // stopped cannot have sent it whole.
    bool stopped = outcome.timed_out || outcome.flooded || outcome.stopped_by_watch;
    if (report_whole && !stopped) {
      for (const auto& name : remaining) {
        auto found = recorded.find(name);
        if (found == recorded.end()) {
          decide_failed(name, "the test program has no test named " + name);
        } else {
          decided[name] = judge_recorded(lab_test(name), found->second, capabilities);
        }
      }
      remaining.clear();
      break;
    }

    std::string how = outcome.describe(limits);
    auto culprit = progress.current();
    bool culprit_pending =
        culprit && std::find(remaining.begin(), remaining.end(), *culprit) != remaining.end();
    if (culprit_pending) {
      std::string tail = outcome.output.size() > 1500 ? outcome.output.substr(outcome.output.size() - 1500) : outcome.output;
      decide_failed(*culprit, "the test program " + how + " during this test" + report_problem +
                                  ".\nIts last output:\n" + tail);
      remaining.erase(std::find(remaining.begin(), remaining.end(), *culprit));
      continue;  // the others run again without it
    }
    std::string when = progress.current() ? "" : " before any test reported progress";
    for (const auto& name : remaining) {
      decide_failed(name, "the test program " + how + when + ", without a report from the test program" +
                              report_problem + ", so no result was recorded for this test." +
                              (outcome.exited_cleanly() ? " (Did something call exit() early?)" : ""));
    }
    remaining.clear();
  }
  for (const auto& name : remaining) decide_failed(name, "the test program could not be run to the end");

  if (guard) {
    for (const auto& line : guard->restore_changed()) tampering.push_back(line);
  }
  std::vector<TestResult> results;
  for (const auto& test : lab.tests) results.push_back(decided.at(test.name));
  // Code that changes the grader's files forfeits the lab, whatever its tests said.
  if (!tampering.empty()) {
    std::string why = "the code under test changed files the grader needs, so this lab scores 0:";
    for (const auto& line : tampering) why += "\n  " + line;
    for (auto& result : results) {
      if (result.status == TestStatus::passed) result.status = TestStatus::failed;
      result.points = 0;
      result.message = why + (result.message.empty() ? "" : "\n" + result.message);
    }
  }
  return results;
}

// ------------------------------------------------------------ grading a submission

namespace {

void log(const GradeOptions& options, const std::string& line) {
  if (options.verbose) std::cerr << "launchlab grade: " << line << std::endl;
}

std::string read_small_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Copies when the content differs, so that an unchanged file keeps its time
/// stamp and the build stays incremental between submissions.
void copy_if_different(const fs::path& from, const fs::path& to) {
  std::error_code error;
  if (fs::exists(to, error) && fs::file_size(from) == fs::file_size(to, error) &&
      read_small_file(from) == read_small_file(to)) {
    return;
  }
  fs::create_directories(to.parent_path());
  fs::remove(to, error);
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

constexpr std::uintmax_t kStudentFileLimit = 1u << 20;

/// Where the submission holds a student file: labs/<slug>/<file>, <slug>/<file>,
/// or <file> at its top when that name belongs to one lab only. Refuses what
/// is not a plain, small file: the grader never follows a link out of the
/// submission.
std::optional<fs::path> find_student_file(const fs::path& submission, const Lab& lab, const std::string& file,
                                          bool name_is_unique, std::string& note) {
  std::vector<fs::path> candidates = {submission / "labs" / lab.slug / file, submission / lab.slug / file};
  if (name_is_unique) candidates.push_back(submission / file);
  for (const auto& candidate : candidates) {
    struct stat info {};
    if (lstat(candidate.c_str(), &info) != 0) continue;
    if (S_ISLNK(info.st_mode)) {
      note += file + " is a symbolic link; links are refused, so the starter's " + file + " was used.\n";
      return std::nullopt;
    }
    if (!S_ISREG(info.st_mode)) {
      note += file + " is not a regular file; the starter's " + file + " was used.\n";
      return std::nullopt;
    }
    if (static_cast<std::uintmax_t>(info.st_size) > kStudentFileLimit) {
      note += file + " is larger than 1 MiB; the starter's " + file + " was used.\n";
      return std::nullopt;
    }
    return candidate;
  }
  note += file + " is not in the submission; the starter's " + file + " was used.\n";
  return std::nullopt;
}

/// The pristine files the graded tree needs: the build system, the test
/// support and tests, and the labs. The grader itself, the solutions and
/// the docs stay out.
bool belongs_to_graded_tree(const fs::path& relative) {
  std::string first = relative.begin()->string();
  if (relative == "CMakeLists.txt" || first == "cmake" || first == "labs") return true;
  if (first != "autograder") return false;
  auto it = std::next(relative.begin());
  if (it == relative.end()) return false;
  std::string second = it->string();
  return second == "CMakeLists.txt" || second == "support" || second == "tests";
}

std::string build_errors(const std::string& log_text, const fs::path& src) {
  std::istringstream lines(log_text);
  std::string line;
  std::string errors;
  int kept = 0;
  std::string prefix = src.string() + "/";
  while (std::getline(lines, line) && kept < 40) {
    if (line.find("error") == std::string::npos && line.find("Error") == std::string::npos) continue;
    for (std::size_t at; (at = line.find(prefix)) != std::string::npos;) line.erase(at, prefix.size());
    errors += line + "\n";
    ++kept;
  }
  return errors.empty() ? clip(log_text, 3000) : errors;
}

}  // namespace

std::vector<LabResult> grade_submission(const GradeOptions& options, const Capabilities& capabilities) {
  std::vector<Lab> labs = load_course(options.course_root);
  if (!options.only_labs.empty()) {
    std::erase_if(labs, [&](const Lab& lab) {
      return std::find(options.only_labs.begin(), options.only_labs.end(), lab.slug) == options.only_labs.end();
    });
  }
  if (labs.empty()) throw std::runtime_error("no lab to grade");

  const fs::path src = options.work_dir / "src";
  const fs::path build = options.work_dir / "build";
  fs::create_directories(src);

  // Which student file names appear in one lab only (a flat submission).
  std::map<std::string, int> name_count;
  for (const auto& lab : load_course(options.course_root)) {
    for (const auto& file : lab.student_files) ++name_count[file];
  }

  // The set of files the graded tree holds, with where each comes from.
  std::map<fs::path, fs::path> wanted;
  std::map<std::string, std::string> notes;
  for (auto it = fs::recursive_directory_iterator(options.course_root);
       it != fs::recursive_directory_iterator(); ++it) {
    fs::path relative = fs::relative(it->path(), options.course_root);
    if (it->is_directory() && !belongs_to_graded_tree(relative) && relative.begin()->string() != "autograder") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && !it->is_symlink() && belongs_to_graded_tree(relative)) {
      wanted[relative] = it->path();
    }
  }
  for (const auto& lab : labs) {
    for (const auto& file : lab.student_files) {
      std::string note;
      auto found = find_student_file(options.submission, lab, file, name_count[file] == 1, note);
      if (found) wanted[fs::path("labs") / lab.slug / file] = *found;
      notes[lab.slug] += note;
    }
  }
  // Private tests join the lab's own, under names a public test cannot have.
  if (!options.private_tests.empty()) {
    for (auto& lab : labs) {
      fs::path dir = options.private_tests / lab.slug;
      if (!fs::is_directory(dir)) continue;
      for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.is_regular_file() && entry.path().extension() == ".cpp") {
          wanted[fs::path("autograder") / "tests" / lab.slug / ("private_" + entry.path().filename().string())] = entry.path();
        }
      }
      if (fs::exists(dir / "tests.toml")) {
        try {
          Value doc = parse_toml(read_small_file(dir / "tests.toml"));
          const Value* tables = doc.find("tests");
          if (!tables) throw std::runtime_error("no [[tests]]");
          for (auto& test : read_tests(*tables, lab.tests)) lab.tests.push_back(std::move(test));
        } catch (const std::exception& error) {
          throw std::runtime_error((dir / "tests.toml").string() + ": " + error.what());
        }
      }
    }
  }
  for (const auto& [relative, from] : wanted) copy_if_different(from, src / relative);
  // Files left by an earlier grading that this one does not hold.
  std::vector<fs::path> stale;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    if (entry.is_regular_file() && !wanted.count(fs::relative(entry.path(), src))) stale.push_back(entry.path());
  }
  for (const auto& path : stale) fs::remove(path);

  // Every lab is configured (a lab may build on an earlier one); only the
  // graded labs' test programs are built.
  std::vector<std::string> configure = {"cmake", "-S", src.string(), "-B", build.string(),
                                        "-DLAUNCHLAB_GRADED_TREE=ON", "-DLAUNCHLAB_WITH_SOLUTIONS=OFF",
                                        "-DLAUNCHLAB_WITH_DOCS=OFF", "-DLAUNCHLAB_LABS="};
  if (!fs::exists(build / "CMakeCache.txt") && executable_on_path("ninja", {})) {
    configure.insert(configure.end(), {"-G", "Ninja"});
  }
  configure.insert(configure.end(), options.cmake_args.begin(), options.cmake_args.end());
  RunLimits build_limits;
  build_limits.timeout = std::chrono::seconds(options.build_timeout_seconds);
  build_limits.output_limit = 64u << 20;
  // A graded tree configured with the same command over the same files is
  // configured already: the build reruns CMake by itself when a
  // CMakeLists.txt changes. A file added or gone (a private test) reconfigures.
  std::string command_line;
  for (const auto& arg : configure) command_line += arg + "\n";
  for (const auto& [relative, from] : wanted) command_line += relative.string() + "\n";
  const fs::path stamp = build / "launchlab-configure-command";
  RunOutcome configured;
  if (fs::exists(build / "CMakeCache.txt") && fs::exists(stamp) && read_small_file(stamp) == command_line) {
    configured.exit_code = 0;
  } else {
    log(options, "configuring the graded tree");
    std::error_code ignored;
    fs::remove(stamp, ignored);
    configured = run_limited(configure, options.work_dir, {}, build_limits);
    if (configured.exited_cleanly()) write_file_atomically(stamp, command_line);
  }

  // Every lab is built before any submitted code runs, and what the runs
  // need is guarded from then on: code run for one lab cannot change what
  // another lab is graded with.
  std::vector<LabResult> results;
  std::vector<bool> runnable;
  for (const auto& lab : labs) {
    LabResult result{lab, std::nullopt, {}};
    std::string note = notes[lab.slug];
    if (!note.empty()) result.problem = note;
    if (!configured.exited_cleanly()) {
      result.problem = "the graded tree could not be configured (" + configured.describe(build_limits) + "):\n" +
                       build_errors(configured.output, src);
      result.tests = all_failed(lab, *result.problem);
      results.push_back(std::move(result));
      runnable.push_back(false);
      continue;
    }
    log(options, "building " + lab.slug);
    RunOutcome built = run_limited({"cmake", "--build", build.string(), "--target", lab.test_binary_name()},
                                   options.work_dir, {}, build_limits);
    if (!built.exited_cleanly()) {
      result.problem = note + "the lab did not compile (the build " + built.describe(build_limits) + "):\n" +
                       build_errors(built.output, src);
      result.tests = all_failed(lab, *result.problem);
      runnable.push_back(false);
    } else {
      runnable.push_back(true);
    }
    results.push_back(std::move(result));
  }
  GuardedFiles guard;
  guard.add(src / "autograder" / "tests");
  for (std::size_t i = 0; i < labs.size(); ++i) {
    if (runnable[i]) guard.add(build / "tests" / labs[i].test_binary_name());
  }
  for (std::size_t i = 0; i < labs.size(); ++i) {
    if (!runnable[i]) continue;
    Lab lab = labs[i];
    if (options.test_timeout_seconds) lab.test_timeout_seconds = *options.test_timeout_seconds;
    log(options, "running the tests of " + lab.slug);
    fs::path scratch = options.work_dir / "run" / lab.slug;
    std::error_code ignored;
    fs::remove_all(scratch, ignored);
    std::vector<std::string> environment;
    if (!options.seed.empty()) environment.push_back("LAUNCHLAB_SEED=" + options.seed);
    results[i].tests =
        run_lab_tests(lab, build / "tests" / lab.test_binary_name(), capabilities, scratch, &guard, environment);
  }
  return results;
}

// ------------------------------------------------------------ reporting

bool full_marks(const std::vector<LabResult>& labs) {
  for (const auto& lab : labs) {
    for (const auto& test : lab.tests) {
      if (test.status == TestStatus::failed) return false;
    }
  }
  return true;
}

void print_score_table(std::ostream& out, const std::vector<LabResult>& labs, const Capabilities& capabilities) {
  int points = 0, gradable = 0, not_gradable = 0;
  out << "\n" << std::left << std::setw(26) << "lab" << std::right << std::setw(10) << "points" << std::setw(9)
      << "passed" << std::setw(9) << "failed" << std::setw(22) << "not gradable here" << "\n";
  for (const auto& lab : labs) {
    int passed = 0, failed = 0, skipped = 0;
    for (const auto& test : lab.tests) {
      if (test.status == TestStatus::passed) ++passed;
      else if (test.status == TestStatus::failed) ++failed;
      else ++skipped;
    }
    std::string score = std::to_string(lab.points()) + "/" + std::to_string(lab.gradable_max());
    std::string aside = skipped ? std::to_string(skipped) + " tests, " + std::to_string(lab.not_gradable_points()) + " pts" : "-";
    out << std::left << std::setw(26) << lab.lab.slug << std::right << std::setw(10) << score << std::setw(9) << passed
        << std::setw(9) << failed << std::setw(22) << aside << "\n";
    if (lab.problem) {
      std::istringstream lines(*lab.problem);
      std::string line;
      for (int shown = 0; std::getline(lines, line) && shown < 8; ++shown) out << "    ! " << line << "\n";
    }
    points += lab.points();
    gradable += lab.gradable_max();
    not_gradable += lab.not_gradable_points();
  }
  out << "\nScore: " << points << "/" << gradable << " points graded here";
  if (not_gradable > 0) {
    out << "; " << not_gradable << " more points were NOT graded here (" << capabilities.gpu_detail
        << "): they need a GPU or a CUDA tool this machine lacks";
  }
  out << ".\n";
}

Value results_json(const std::vector<LabResult>& labs, const Capabilities& capabilities, double seconds) {
  Value root = Value::Object{};
  Value tests = Value::Array{};
  int points = 0, gradable = 0, not_gradable = 0;
  for (const auto& lab : labs) {
    int index = 0;
    for (const auto& test : lab.tests) {
      ++index;
      Value entry = Value::Object{};
      entry["name"] = lab.lab.slug + ": " + test.name;
      entry["number"] = lab.lab.number() + "." + std::to_string(index);
      entry["score"] = test.points;
      entry["max_score"] = test.max_points;
      // Gradescope knows only passed and failed; a test that could not run
      // here is neither, so it carries no status and says why in its output.
      if (test.status == TestStatus::passed || test.status == TestStatus::failed) {
        entry["status"] = to_string(test.status);
      }
      std::string output = test.message;
      if (test.status == TestStatus::needs_gpu || test.status == TestStatus::needs_tool) {
        output = "NOT GRADED HERE: " + output;
      }
      entry["output"] = output;
      entry["visibility"] = "visible";
      Value extra = Value::Object{};
      extra["lab"] = lab.lab.slug;
      extra["outcome"] = to_string(test.status);
      entry["extra_data"] = std::move(extra);
      tests.as_array().push_back(std::move(entry));
    }
    points += lab.points();
    gradable += lab.gradable_max();
    not_gradable += lab.not_gradable_points();
  }
  std::ostringstream summary;
  print_score_table(summary, labs, capabilities);
  root["score"] = points;
  root["execution_time"] = static_cast<std::int64_t>(seconds);
  root["output"] = summary.str();
  root["visibility"] = "visible";
  root["stdout_visibility"] = "hidden";
  root["tests"] = std::move(tests);
  Value extra = Value::Object{};
  extra["gradable_max_score"] = gradable;
  extra["not_gradable_points"] = not_gradable;
  extra["gpu"] = capabilities.gpu ? Value(capabilities.gpu_detail) : Value();
  root["extra_data"] = std::move(extra);
  return root;
}

void write_file_atomically(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  // Whatever stands at these names (a submission may have put a directory, a
  // link or a fake report there) is removed, and the new file is created
  // afresh, never through a link.
  fs::path temporary = path;
  temporary += ".launchlab-tmp";
  std::error_code ignored;
  fs::remove_all(temporary, ignored);
  int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + temporary.string() + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t wrote = write(fd, text.data() + done, text.size() - done);
    if (wrote <= 0) {
      close(fd);
      throw std::runtime_error("cannot write " + temporary.string() + ": " + std::strerror(errno));
    }
    done += static_cast<std::size_t>(wrote);
  }
  close(fd);
  if (fs::is_directory(fs::symlink_status(path, ignored))) fs::remove_all(path, ignored);
  fs::rename(temporary, path);
}

}  // namespace launchlab::grader
