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
    case TestStatus::not_graded: return "not graded";
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
    if (test.status != TestStatus::passed && test.status != TestStatus::failed) total += test.max_points;
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

// ------------------------------------------------------------ grading a submission

namespace {

std::string clip(std::string text, std::size_t limit) {
  if (text.size() > limit) {
    text.resize(limit);
    text += "\n[... cut ...]";
  }
  return text;
}

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
  // The solutions build the reference program; only the grader reads them.
  if (relative == "CMakeLists.txt" || first == "cmake" || first == "labs" || first == "solutions") return true;
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
                                        "-DLAUNCHLAB_GRADED_TREE=ON", "-DLAUNCHLAB_WITH_SOLUTIONS=ON",
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
    RunOutcome built = run_limited({"cmake", "--build", build.string(), "--target", lab.test_binary_name(),
                                    lab.reference_binary_name()},
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
    if (runnable[i]) {
      guard.add(build / "tests" / labs[i].test_binary_name());
      guard.add(build / "tests" / labs[i].reference_binary_name());
    }
  }
  for (std::size_t i = 0; i < labs.size(); ++i) {
    if (!runnable[i]) continue;
    Lab lab = labs[i];
    if (options.test_timeout_seconds) lab.test_timeout_seconds = *options.test_timeout_seconds;
    log(options, "running the tests of " + lab.slug);
    fs::path scratch = options.work_dir / "run" / lab.slug;
    std::error_code ignored;
    fs::remove_all(scratch, ignored);
    RunSettings settings;
    settings.guard = &guard;
    if (!options.seed.empty()) settings.environment.push_back("LAUNCHLAB_SEED=" + options.seed);
    results[i].tests = run_lab_tests(
        lab, {build / "tests" / lab.test_binary_name(), build / "tests" / lab.reference_binary_name()}, capabilities,
        scratch, settings);
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
