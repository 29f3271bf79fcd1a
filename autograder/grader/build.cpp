// The build stage: the graded tree in two parts. The trusted part is built
// from the committed course alone and kept between gradings; the learner's
// part is built afresh for every grading, in the sandbox, from the learner's
// files and the exercise objects the trusted part made.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include "launchlab/grader/heartbeat.h"
#include "launchlab/grader/stages.h"
#include "launchlab/grader/text.h"

namespace launchlab::grader {
namespace fs = std::filesystem;

namespace {

bool has_ninja() {
  RunLimits limits;
  limits.timeout = std::chrono::seconds(20);
  return run_limited({"ninja", "--version"}, {}, {}, limits).exited_cleanly();
}

RunLimits build_limits(const BuildSettings& settings) {
  RunLimits limits;
  limits.timeout = std::chrono::seconds(settings.timeout_seconds);
  limits.output_limit = 64u << 20;
  return limits;
}

/// How a build step is watched: a line when it starts, its output kept
/// back (the grading reports what matters of it), and a line whenever it
/// was silent for a while, so that steps one after another are never
/// silent together.
RunWatch watch_step(const BuildSettings& settings, const std::string& doing) {
  if (!settings.progress) return {};
  *settings.progress << "launchlab: " << doing << std::endl;
  return heartbeat_watch(*settings.progress, doing, false);
}

/// The build of some targets in one call, on every core, going on past a
/// failure (ninja's -k 0; make's -k), so that one call builds whatever can
/// be built.
std::vector<std::string> build_command(const fs::path& build_dir, const std::vector<std::string>& targets) {
  std::vector<std::string> command = {"cmake", "--build", build_dir.string(), "--parallel",
                                      std::to_string(std::max(1u, std::thread::hardware_concurrency())), "--target"};
  command.insert(command.end(), targets.begin(), targets.end());
  if (fs::exists(build_dir / "build.ninja")) {
    command.insert(command.end(), {"--", "-k", "0"});
  } else {
    command.insert(command.end(), {"--", "-k"});
  }
  return command;
}

/// Builds every lab's targets in one call; only when it fails is each lab
/// built alone, so that a failure is the lab's own, with its own messages
/// (what the one call built, each lab's call finds done). Returns, by lab,
/// why its build failed.
std::map<std::string, std::string> build_each_lab(const std::vector<Lab>& labs, const fs::path& build_dir,
                                                  const std::function<std::vector<std::string>(const Lab&)>& targets_of,
                                                  const RunLimits& limits, const Sandbox& sandbox,
                                                  const BuildSettings& settings, const std::string& doing,
                                                  const std::function<std::string(const RunOutcome&)>& why) {
  std::vector<std::string> every_target;
  for (const auto& lab : labs) {
    for (auto& target : targets_of(lab)) every_target.push_back(std::move(target));
  }
  std::map<std::string, std::string> failed;
  if (every_target.empty()) return failed;
  if (run_limited(build_command(build_dir, every_target), build_dir, {}, limits, sandbox, watch_step(settings, doing))
          .exited_cleanly()) {
    return failed;
  }
  for (const auto& lab : labs) {
    RunOutcome built = run_limited(build_command(build_dir, targets_of(lab)), build_dir, {}, limits, sandbox,
                                   watch_step(settings, doing + ": " + lab.slug + " alone"));
    if (!built.exited_cleanly()) failed[lab.slug] = why(built);
  }
  return failed;
}

/// Configures a build folder unless it was configured with the same command.
RunOutcome configure(const std::vector<std::string>& command, const fs::path& build_dir, const RunLimits& limits,
                     const Sandbox& sandbox, const BuildSettings& settings, const std::string& doing) {
  std::string stamp_text;
  for (const auto& arg : command) stamp_text += arg + "\n";
  const fs::path stamp = build_dir / "launchlab-configure-command";
  if (fs::exists(build_dir / "CMakeCache.txt") && fs::exists(stamp) && read_text(stamp) == stamp_text) {
    RunOutcome same;
    same.exit_code = 0;
    return same;
  }
  std::error_code ignored;
  fs::create_directories(build_dir, ignored);
  fs::remove(stamp, ignored);
  RunOutcome outcome = run_limited(command, build_dir, {}, limits, sandbox, watch_step(settings, doing));
  if (outcome.exited_cleanly()) std::ofstream(stamp) << stamp_text;
  return outcome;
}

/// cmake's configure of sources into build_dir: the options given, Ninja
/// where there is one, then the grading's own CMake options.
std::vector<std::string> cmake_configure(const fs::path& sources, const fs::path& build_dir,
                                         const std::vector<std::string>& options,
                                         const std::vector<std::string>& cmake_args) {
  std::vector<std::string> command = {"cmake", "-S", sources.string(), "-B", build_dir.string()};
  command.insert(command.end(), options.begin(), options.end());
  if (has_ninja()) command.insert(command.end(), {"-G", "Ninja"});
  command.insert(command.end(), cmake_args.begin(), cmake_args.end());
  return command;
}

std::vector<std::string> configure_command(const fs::path& sources, const fs::path& build_dir, const std::string& part,
                                           const std::vector<std::string>& extra, const std::vector<std::string>& cmake_args) {
  // Both parts optimized alike, as the grader's image and a learner's own
  // build are: the reference runs fast, and a lab that compares the
  // learner's timings with the reference's compares code built one way.
  std::vector<std::string> options = {"-DLAUNCHLAB_GRADED_TREE=ON", "-DLAUNCHLAB_GRADED_PART=" + part,
                                      "-DLAUNCHLAB_WITH_DOCS=OFF", "-DLAUNCHLAB_LABS=", "-DCMAKE_BUILD_TYPE=Release"};
  options.insert(options.end(), extra.begin(), extra.end());
  return cmake_configure(sources, build_dir, options, cmake_args);
}

/// Configures, once, a project that only enables the course's languages and
/// finds threads, with the grading's CMake options: its cache and
/// CMakeFiles/<version>/ hold the compilers' detection.
fs::path detect_compilers(const fs::path& folder, const BuildSettings& settings, const RunLimits& limits) {
  const fs::path source = folder / "source";
  const fs::path build = folder / "build";
  fs::create_directories(source);
  std::ofstream(source / "CMakeLists.txt") << "cmake_minimum_required(VERSION 3.25)\n"
                                              "project(launchlab_compilers LANGUAGES CXX CUDA)\n"
                                              "find_package(Threads REQUIRED)\n";
  RunOutcome configured = configure(cmake_configure(source, build, {"-Wno-dev"}, settings.cmake_args), build, limits,
                                    Sandbox{}, settings, "finding the compilers");
  return configured.exited_cleanly() ? build : fs::path{};
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
  return text;
}

/// Gives a fresh learner build folder the compilers' detection: the probe's
/// cache with its folders renamed, and its CMakeFiles/<version>/ without the
/// identification sources. CMake then takes the compilers as known.
void seed_compilers(const fs::path& compilers, const fs::path& sources, const fs::path& build_dir) {
  if (compilers.empty() || fs::exists(build_dir / "CMakeCache.txt")) return;
  fs::create_directories(build_dir / "CMakeFiles");
  for (const auto& entry : fs::directory_iterator(compilers / "CMakeFiles")) {
    if (!entry.is_directory() || !fs::exists(entry.path() / "CMakeSystem.cmake")) continue;
    const fs::path into = build_dir / "CMakeFiles" / entry.path().filename();
    fs::create_directories(into);
    for (const auto& file : fs::directory_iterator(entry.path())) {
      if (file.is_regular_file()) fs::copy_file(file.path(), into / file.path().filename());
    }
  }
  std::string cache = read_text(compilers / "CMakeCache.txt");
  cache = replaced(cache, compilers.string(), build_dir.string());
  cache = replaced(cache, (compilers.parent_path() / "source").string(), sources.string());
  std::ofstream(build_dir / "CMakeCache.txt") << cache;
}

}  // namespace

namespace {

/// The installation a program lives in (the folder above its bin/),
/// wherever its links lead; a program named without a slash is looked up
/// on PATH.
std::optional<fs::path> installation_of(const std::string& program) {
  std::error_code error;
  if (program.find('/') != std::string::npos) {
    fs::path found = fs::canonical(program, error);
    if (!error && fs::is_regular_file(found)) return found.parent_path().parent_path();
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    fs::path found = fs::canonical(fs::path(dir) / program, error);
    if (!error && fs::is_regular_file(found)) return found.parent_path().parent_path();
  }
  return std::nullopt;
}

/// The installations a sandboxed build needs to see beyond the system's
/// folders: cmake's and ninja's, and the compilers' (those CC, CXX and
/// CUDACXX name, and the ones CMake finds on PATH). A GPU host may keep
/// any of them elsewhere, as /opt/gcc for g++; a build that sees the
/// compiler's path in its cache but not the compiler cannot configure.
std::vector<fs::path> build_tool_installations() {
  std::vector<std::string> programs = {"cmake", "ninja", "c++", "g++", "cc", "gcc", "nvcc"};
  for (const char* variable : {"CXX", "CC", "CUDACXX"}) {
    if (const char* named = std::getenv(variable); named && *named) programs.push_back(named);
  }
  std::vector<fs::path> installations;
  for (const auto& program : programs) {
    auto prefix = installation_of(program);
    if (!prefix || std::find(installations.begin(), installations.end(), *prefix) != installations.end()) continue;
    // The system's own folders are in every sandbox already.
    auto part = prefix->begin();
    const std::string top = part != prefix->end() && ++part != prefix->end() ? part->string() : "";
    if (top.empty() || top == "usr" || top == "bin" || top == "lib" || top == "etc") continue;
    installations.push_back(*prefix);
  }
  return installations;
}

}  // namespace

Sandbox sandbox_for(const Sandbox& grading, const SandboxView& view) {
  Sandbox sandbox = grading;
  if (sandbox.uses_bubblewrap()) {
    static const std::vector<fs::path> installations = build_tool_installations();
    for (const auto& prefix : installations) sandbox.binds.push_back({prefix, {}, false});
  }
  for (const auto& path : view.read_only) sandbox.binds.push_back({path, {}, false});
  for (const auto& path : view.writable) sandbox.binds.push_back({path, {}, true});
  sandbox.gpu = view.gpu;
  return sandbox;
}

std::string build_errors(const std::string& log_text, const fs::path& root) {
  std::istringstream lines(log_text);
  std::string line;
  std::string errors;
  int kept = 0;
  std::string prefix = root.string() + "/";
  // CMake writes an error's reason on the indented lines below its
  // "CMake Error at ..." line: they are kept with it.
  bool in_cmake_error = false;
  while (std::getline(lines, line) && kept < 40) {
    const bool reason = in_cmake_error && (line.empty() || line.front() == ' ');
    in_cmake_error = line.starts_with("CMake Error") || reason;
    if (!reason && line.find("error") == std::string::npos && line.find("Error") == std::string::npos) continue;
    if (line.find_first_not_of(' ') == std::string::npos) continue;
    for (std::size_t at; (at = line.find(prefix)) != std::string::npos;) line.erase(at, prefix.size());
    errors += line + "\n";
    ++kept;
  }
  if (!errors.empty()) return learner_text(errors, 8192);
  std::string tail = log_text.size() > 3000 ? log_text.substr(log_text.size() - 3000) : log_text;
  for (std::size_t at; (at = tail.find(prefix)) != std::string::npos;) tail.erase(at, prefix.size());
  return learner_text(tail, 3000, KeepEnd::tail);
}

TrustedBuild build_trusted_part(const CommittedCourse& course, const std::vector<Lab>& labs, const fs::path& build_dir,
                                const BuildSettings& settings) {
  TrustedBuild trusted;
  trusted.build_dir = build_dir;
  const RunLimits limits = build_limits(settings);
  const std::string solutions = settings.without_reference ? "OFF" : "ON";
  RunOutcome configured = configure(configure_command(course.root, build_dir, "trusted",
                                                      {"-DLAUNCHLAB_WITH_SOLUTIONS=" + solutions}, settings.cmake_args),
                                    build_dir, limits, Sandbox{}, settings, "configuring the course");
  if (!configured.exited_cleanly()) {
    trusted.configure_problem = "the course could not be configured (" + configured.describe(limits) + "):\n" +
                                build_errors(configured.output, course.root);
    return trusted;
  }
  trusted.compilers = detect_compilers(build_dir.parent_path() / "compilers", settings, limits);
  RunOutcome support = run_limited({"cmake", "--build", build_dir.string(), "--target",
                                    "launchlab_test_support_exercise", "launchlab_records", "launchlab_symbol_guard"},
                                   build_dir, {}, limits, watch_step(settings, "building the tests' support"));
  if (!support.exited_cleanly()) {
    trusted.configure_problem = "the test support did not build (" + support.describe(limits) + "):\n" +
                                build_errors(support.output, course.root);
    return trusted;
  }
  trusted.failed = build_each_lab(
      labs, build_dir,
      [&](const Lab& lab) {
        std::vector<std::string> targets = {"lab_" + lab.slug + "_exercise_tests"};
        if (!settings.without_reference) targets.push_back(lab.reference_binary_name());
        return targets;
      },
      limits, Sandbox{}, settings, "building the course's tests",
      [&](const RunOutcome& built) {
        return "the lab's tests or reference did not build (" + built.describe(limits) + "):\n" +
               build_errors(built.output, course.root);
      });
  return trusted;
}

void export_exercise_objects(const TrustedBuild& trusted, const std::vector<Lab>& labs, const fs::path& into) {
  std::error_code ignored;
  fs::remove_all(into, ignored);
  fs::create_directories(into);
  // The support the learner's program links, and the program that checks
  // the learner's objects define none of its names before that link.
  for (const char* file : {"liblaunchlab_test_support_exercise.a", "liblaunchlab_records.a", "launchlab_symbol_guard"}) {
    fs::copy_file(trusted.build_dir / "autograder" / "support" / file, into / file);
  }
  // The course model's facts (cmake/LaunchlabLab.cmake), which the learner part reads instead of lab.toml.
  if (fs::exists(trusted.build_dir / "course" / "course.json")) {
    fs::copy_file(trusted.build_dir / "course" / "course.json", into / "course.json");
  }
  for (const auto& lab : labs) {
    if (trusted.failed.count(lab.slug)) continue;
    std::ifstream list(trusted.build_dir / "exercise" / (lab.slug + ".objects"));
    std::ofstream copied(into / (lab.slug + ".objects"));
    fs::create_directories(into / lab.slug);
    std::string object;
    int index = 0;
    while (std::getline(list, object)) {
      if (object.empty()) continue;
      fs::path from = fs::path(object).is_absolute() ? fs::path(object) : trusted.build_dir / object;
      fs::path to = into / lab.slug / (std::to_string(index++) + "_" + from.filename().string());
      fs::copy_file(from, to);
      copied << to.string() << "\n";
    }
  }
}

std::vector<std::string> labs_slowest_to_compile_first(const fs::path& learner_build_dir) {
  // A line of .ninja_log: start and end in milliseconds, mtime, output, hash.
  std::ifstream log(learner_build_dir / ".ninja_log");
  std::map<std::string, long> longest;  // by slug
  std::string line;
  while (std::getline(log, line)) {
    std::istringstream fields(line);
    long start = 0, end = 0;
    std::string mtime, output;
    if (!(fields >> start >> end >> mtime >> output)) continue;
    // An object of the lab's library: CMakeFiles/lab_<slug>.dir/<file>.o
    const std::string marker = "CMakeFiles/lab_";
    const auto at = output.find(marker);
    const auto dir = at == std::string::npos ? at : output.find(".dir/", at);
    if (dir == std::string::npos) continue;
    const std::string slug = output.substr(at + marker.size(), dir - at - marker.size());
    longest[slug] = std::max(longest[slug], end - start);
  }
  std::vector<std::pair<std::string, long>> by_time(longest.begin(), longest.end());
  std::ranges::stable_sort(by_time, std::ranges::greater{}, &std::pair<std::string, long>::second);
  std::vector<std::string> slugs;
  for (const auto& [slug, milliseconds] : by_time) slugs.push_back(slug);
  return slugs;
}

LearnerBuild build_learner_part(const fs::path& sources, const fs::path& exercise_dir, const std::vector<Lab>& labs,
                                const fs::path& build_dir, const BuildSettings& settings, const fs::path& compilers,
                                const std::vector<std::string>& compile_first) {
  LearnerBuild learner;
  learner.build_dir = build_dir;
  RunLimits limits = build_limits(settings);
  // The reference's half of each lab runs meanwhile, and its tests must
  // not starve for the compilers' sake (one that watches a flag from a
  // thread of its own fails when that thread does not run).
  limits.niceness = kYieldingNiceness;
  seed_compilers(compilers, sources, build_dir);
  SandboxView view;
  view.read_only = {sources, exercise_dir};
  view.writable = {build_dir};
  std::vector<std::string> options = {"-DLAUNCHLAB_WITH_SOLUTIONS=OFF", "-DLAUNCHLAB_EXERCISE_DIR=" + exercise_dir.string()};
  if (!compile_first.empty()) {
    std::string first;
    for (const auto& slug : compile_first) first += (first.empty() ? "" : ";") + slug;
    options.push_back("-DLAUNCHLAB_LABS_FIRST=" + first);
  }
  RunOutcome configured = configure(configure_command(sources, build_dir, "learner", options, settings.cmake_args),
                                    build_dir, limits, sandbox_for(settings.sandbox, view),
                                    settings, "configuring the submission's build");
  if (!configured.exited_cleanly()) {
    learner.configure_problem = "the graded tree could not be configured (" + configured.describe(limits) + "):\n" +
                                build_errors(configured.output, sources);
    return learner;
  }
  learner.failed = build_each_lab(
      labs, build_dir, [](const Lab& lab) { return std::vector<std::string>{lab.test_binary_name()}; }, limits,
      sandbox_for(settings.sandbox, view), settings, "building the submission's labs",
      [&](const RunOutcome& built) {
        return "the lab did not compile (the build " + built.describe(limits) + "):\n" + build_errors(built.output, sources);
      });
  return learner;
}

}  // namespace launchlab::grader
