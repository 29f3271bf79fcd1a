#include "launchlab/grader/grading.h"

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>
#include <thread>

#include "launchlab/grader/expectations.h"
#include "launchlab/grader/gpu_turns.h"
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

std::string Capabilities::what_lacks(const std::string& need) const {
  if (need == "gpu") return gpu_detail;
  if (need == "open-gpu-doc") return "LAUNCHLAB_OPEN_GPU_DOC naming a checkout of NVIDIA's open-gpu-doc";
  return need + ", which is not installed here";
}

namespace {

/// Where a tool is: beside nvcc, else on PATH; empty when nowhere.
fs::path executable_on_path(const std::string& name, const fs::path& cuda_bin_dir) {
  if (!cuda_bin_dir.empty() && access((cuda_bin_dir / name).c_str(), X_OK) == 0) return cuda_bin_dir / name;
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && access((fs::path(dir) / name).c_str(), X_OK) == 0) return fs::path(dir) / name;
  }
  return {};
}

/// What `nvcc --version` says of the toolkit (its last line names the
/// build); "none" without nvcc.
std::string toolkit_version(const fs::path& cuda_bin_dir) {
  const fs::path nvcc = executable_on_path("nvcc", cuda_bin_dir);
  if (nvcc.empty()) return "none";
  RunLimits limits;
  limits.timeout = std::chrono::seconds(30);
  RunOutcome outcome = run_limited({nvcc.string(), "--version"}, {}, {}, limits);
  std::string text = outcome.output;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text.substr(text.rfind('\n') + 1);
}

}  // namespace

Capabilities detect_capabilities(const fs::path& cuda_bin_dir) {
  Capabilities capabilities;
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  // Without a driver the runtime's own words ("CUDA driver version is
  // insufficient") blame a version where there is nothing installed.
  int driver = 0;
  const bool no_driver = cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0;
  if (no_driver || status == cudaErrorNoDevice || (status == cudaSuccess && count == 0)) {
    capabilities.gpu_detail = kNoGpuHere;
  } else if (status != cudaSuccess) {
    capabilities.gpu_detail = std::string("no usable GPU: ") + cudaGetErrorString(status);
  } else {
    cudaDeviceProp properties{};
    cudaGetDeviceProperties(&properties, 0);
    capabilities.gpu = true;
    capabilities.gpu_detail = std::string(properties.name) + " (sm_" + std::to_string(properties.major) +
                              std::to_string(properties.minor) + ")";
    std::ostringstream uuid;
    for (const char byte : properties.uuid.bytes) {
      uuid << std::hex << std::setw(2) << std::setfill('0') << static_cast<int>(static_cast<unsigned char>(byte));
    }
    capabilities.machine += "gpu " + capabilities.gpu_detail + " " + uuid.str() + "\n";
    // NVML's spelling: GPU-8-4-4-4-12 hex digits.
    std::string dashed = uuid.str();
    for (std::size_t at : {20u, 16u, 12u, 8u}) dashed.insert(at, "-");
    capabilities.gpu_uuid = "GPU-" + dashed;
  }
  capabilities.machine += "driver " + std::to_string(driver) + "\n";
  capabilities.machine += "toolkit " + toolkit_version(cuda_bin_dir) + "\n";
  for (const auto& need : known_needs()) {
    if (need == "gpu") continue;
    if (need == "open-gpu-doc") {
      const char* checkout = std::getenv("LAUNCHLAB_OPEN_GPU_DOC");
      std::error_code error;
      capabilities.tools[need] = checkout && *checkout && fs::is_directory(checkout, error);
      continue;
    }
    fs::path found = executable_on_path(need, cuda_bin_dir);
    capabilities.tools[need] = !found.empty();
    if (!found.empty()) capabilities.tool_paths[need] = found;
  }
  for (const auto& [tool, found] : capabilities.tools) capabilities.machine += tool + (found ? " found\n" : " missing\n");
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
  const auto checks = lab.sanitizer_checks();
  for (const auto& test : lab.tests) {
    results.push_back({test.name, 0, test.points, TestStatus::failed, why});
    for (const auto& check : checks) {
      if (check.test == test.name) results.push_back({check.name(), 0, check.points, TestStatus::failed, why});
    }
  }
  return results;
}

// ------------------------------------------------------------ grading a submission

namespace {

void log(const GradeOptions& options, const std::string& line) {
  // Labs run side by side and each says when it starts: the line goes out
  // in one write, so that two never interleave.
  if (options.verbose) std::cerr << ("launchlab grade: " + line + "\n") << std::flush;
}

/// A work folder for one grading: emptied first, and only when it is empty
/// already or was made by an earlier grading, so that nothing an earlier
/// grading (or a submission) left there is used again.
void prepare_work_dir(const fs::path& work_dir) {
  const fs::path marker = work_dir / ".launchlab-work";
  std::error_code ignored;
  if (fs::exists(work_dir) && !fs::is_empty(work_dir, ignored) && !fs::exists(marker)) {
    throw std::runtime_error(work_dir.string() + " is not empty and was not made by the grader: give --work an empty or new folder");
  }
  if (fs::exists(work_dir)) {
    for (const auto& entry : fs::directory_iterator(work_dir)) fs::remove_all(entry.path(), ignored);
  }
  fs::create_directories(work_dir);
  std::ofstream(marker) << "a launchlab grading's work folder: emptied at the start of every grading\n";
  // A sandbox user may pass through it to what it is shown, but not list it.
  fs::permissions(work_dir, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
}

/// Whether the labs' programs may run side by side: the sandbox keeps each
/// run to itself, so that what one lab's code does (a file changed, a
/// process left behind) is never blamed on another's. Runs as dedicated
/// users take one each from the pool (waiting while none is free);
/// bubblewrap gives each run its own namespaces.
bool runs_side_by_side(const Sandbox& sandbox) { return sandbox.kind != SandboxKind::none; }

/// The order the labs start in: first those with tests that must be alone
/// on the GPU (the one lane that cannot be widened), then the other GPU
/// labs, then the rest.
int start_rank(const Lab& lab, const Capabilities& capabilities) {
  if (!capabilities.gpu || lab.gpu_need() == course::GpuNeed::none) return 2;
  const bool alone = std::any_of(lab.tests.begin(), lab.tests.end(), [](const LabTest& test) { return test.runs_alone(); });
  return alone ? 0 : 1;
}

/// Runs grade on every result, at_most at once; each writes only its own
/// result, so the results stay in the labs' order.
void run_side_by_side(const std::vector<LabResult*>& results, const std::function<void(LabResult&)>& grade,
                      std::size_t at_most) {
  std::atomic<std::size_t> next{0};
  std::mutex failing;
  std::exception_ptr failure;  // the first, thrown again once every lab has ended, as a lone lab's would be
  auto worker = [&] {
    for (std::size_t index; (index = next++) < results.size();) {
      try {
        grade(*results[index]);
      } catch (...) {
        std::lock_guard hold(failing);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  const std::size_t workers = std::min<std::size_t>(results.size(), std::max<std::size_t>(1, at_most));
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < workers; ++i) threads.emplace_back(worker);
  worker();
  for (auto& thread : threads) thread.join();
  if (failure) std::rethrow_exception(failure);
}

/// The committed course and its trusted part, built (or found built) in the
/// grader's own folder before any submitted code is looked at.
struct TrustedCourse {
  fs::path trusted_dir;
  CommittedCourse course;
  std::vector<Lab> all_labs;
  std::vector<Lab> labs;  ///< those graded, with the private tests merged in
  /// A student edition holds no solutions: the expectations exported with it
  /// stand in for the reference programs.
  std::optional<Expectations> expectations;
  BuildSettings build;
  TrustedBuild trusted;
  /// What the reference's transcripts depend on besides the program.
  std::string reference_identity;
};

TrustedCourse take_trusted_part(const GradeOptions& options, const Capabilities& capabilities) {
  TrustedCourse taken;
  taken.trusted_dir = options.trusted_dir.empty() ? options.work_dir / "trusted" : options.trusted_dir;
  // The committed course with its solutions and tests, and the reference
  // programs: the grader's alone.
  fs::create_directories(taken.trusted_dir);
  fs::permissions(taken.trusted_dir, fs::perms::owner_all);

  // Gradings side by side (grade-class) share the trusted part: one builds
  // it while the others wait for it, then they all use it as it is.
  FileLock building_trusted_part(taken.trusted_dir / ".launchlab-lock");
  log(options, "taking the committed course");
  taken.course = export_committed_course(options.course_root, taken.trusted_dir / "course", options.private_tests);
  taken.all_labs = load_course(taken.course.root);
  taken.labs = labs_to_grade(taken.all_labs, options.only_labs);
  if (taken.labs.empty()) throw std::runtime_error("no lab to grade");
  if (!options.private_tests.empty()) add_private_tests(options.private_tests, taken.labs);

  taken.expectations = find_expectations(taken.course.root);
  if (taken.expectations && (!options.seed.empty() || !options.private_tests.empty())) {
    throw std::runtime_error("this is a student edition: its expectations are the public tests' with their own inputs, "
                             "so it takes neither --seed nor --private-tests (the course's grader does)");
  }

  taken.build.without_reference = taken.expectations.has_value();
  taken.build.cmake_args = options.cmake_args;
  taken.build.timeout_seconds = options.build_timeout_seconds;
  taken.build.sandbox = options.sandbox;
  if (options.verbose) taken.build.progress = &std::cerr;

  log(options, "building the course's reference programs and tests");
  taken.trusted = build_trusted_part(taken.course, taken.labs, taken.trusted_dir / "build", taken.build);
  if (!taken.trusted.configure_problem.empty()) throw std::runtime_error(taken.trusted.configure_problem);
  for (const auto& [slug, why] : taken.trusted.failed) {
    // The instructor's to read (private tests that do not compile, say); the
    // learner is only told that the lab could not be graded.
    std::cerr << "launchlab grade: COURSE PROBLEM in " << slug << ": " << why << std::endl;
  }
  // The reference's transcripts are kept in the grader's own folder, keyed
  // by what they depend on, and reused once two runs agreed on them.
  taken.reference_identity =
      "course " + read_text(taken.course.root / ".launchlab-export") + "\n" + capabilities.machine;
  return taken;
}

/// How a lab's programs run in a grading of these options: the seed, and
/// the reference's transcripts kept in the grader's own folder.
RunSettings lab_run_settings(const GradeOptions& options, const TrustedCourse& taken, const Lab& lab) {
  RunSettings settings;
  settings.sandbox = options.sandbox;
  if (!options.seed.empty()) settings.environment.push_back("LAUNCHLAB_SEED=" + options.seed);
  settings.reference_cache = taken.trusted_dir / "reference-transcripts" / (lab.slug + ".json");
  settings.reference_identity = taken.reference_identity;
  settings.reference_runs_to_agree = 2;
  return settings;
}

/// The lab as these options run it (a test time limit of their own).
Lab with_options(Lab lab, const GradeOptions& options) {
  if (options.test_timeout_seconds) lab.test_timeout_seconds = *options.test_timeout_seconds;
  return lab;
}

/// The starters' own programs, built when the course is prepared: a lab
/// whose files a submission left as the starters, and those of the labs it
/// builds on, runs the program the starters make, and is not built again.
fs::path starter_programs_dir(const TrustedCourse& taken) { return taken.trusted_dir / "starters"; }

/// What the starters' programs were built from: the committed course with
/// its private tests (the export's key) and the grading's CMake options.
std::string starter_programs_key(const TrustedCourse& taken) {
  std::string key = read_text(taken.course.root / ".launchlab-export");
  for (const auto& argument : taken.build.cmake_args) key += "\n" + argument;
  return key;
}

/// Builds the starters' programs of the labs prepared, as the learner part
/// of a grading would build a submission that changed nothing, but from the
/// course's own files and out of the sandbox; a file names the labs that
/// built and what they were built from.
void build_starter_programs(const TrustedCourse& taken, const GradeOptions& options) {
  const fs::path dir = starter_programs_dir(taken);
  std::error_code ignored;
  fs::remove(dir / "programs.json", ignored);
  log(options, "building the starters' programs");
  assemble_learner_sources(taken.course, SubmissionFiles{}, dir / "sources");
  export_exercise_objects(taken.trusted, taken.labs, dir / "exercise");
  BuildSettings build = taken.build;
  build.sandbox = Sandbox{};
  const LearnerBuild built =
      build_learner_part(dir / "sources", dir / "exercise", taken.labs, dir / "build", build, taken.trusted.compilers,
                         labs_slowest_to_compile_first(dir / "build"));
  if (!built.configure_problem.empty()) return;
  std::vector<std::string> labs;
  for (const auto& lab : taken.labs) {
    if (!taken.trusted.failed.count(lab.slug) && !built.failed.count(lab.slug) &&
        fs::is_regular_file(dir / "build" / "tests" / lab.test_binary_name())) {
      labs.push_back(lab.slug);
    }
  }
  write_file_atomically(dir / "programs.json",
                        nlohmann::json{{"key", starter_programs_key(taken)}, {"labs", labs}}.dump() + "\n");
}

/// Of `labs`, those whose files the submission left as the starters, with
/// those of every lab each builds on, and whose starters' program was built
/// from this very course (build_starter_programs).
std::set<std::string> labs_left_as_starters(const TrustedCourse& taken, const SubmissionFiles& submission,
                                            const std::vector<Lab>& labs,
                                            const std::map<std::string, std::vector<std::string>>& built_on) {
  const nlohmann::json made =
      nlohmann::json::parse(read_text(starter_programs_dir(taken) / "programs.json"), nullptr, false);
  if (!made.is_object() || made.value("key", std::string()) != starter_programs_key(taken) ||
      !made.contains("labs") || !made["labs"].is_array()) {
    return {};
  }
  auto as_the_starters = [&](const std::string& slug) {
    auto files = submission.files.find(slug);
    if (files == submission.files.end()) return true;
    return std::ranges::all_of(files->second, [&](const auto& file) {
      const fs::path starter = taken.course.root / "labs" / slug / file.first;
      return fs::is_regular_file(starter) && read_text(file.second) == read_text(starter);
    });
  };
  std::set<std::string> left;
  for (const auto& lab : labs) {
    const bool built = std::ranges::find(made["labs"], nlohmann::json(lab.slug)) != made["labs"].end();
    if (built && std::ranges::all_of(built_on.at(lab.slug), as_the_starters)) left.insert(lab.slug);
  }
  return left;
}

}  // namespace

std::vector<PreparedLab> prepare_course(const GradeOptions& options, const Capabilities& capabilities) {
  prepare_work_dir(options.work_dir);
  const TrustedCourse taken = take_trusted_part(options, capabilities);
  if (!taken.expectations) build_starter_programs(taken, options);
  std::vector<PreparedLab> prepared;
  for (const auto& graded : taken.labs) {
    const Lab lab = with_options(graded, options);
    PreparedLab entry{lab.slug, "", 0, {}};
    if (auto failed = taken.trusted.failed.find(lab.slug); failed != taken.trusted.failed.end()) {
      entry.problem = failed->second;
    } else if (!taken.expectations) {
      log(options, "running the reference program of " + lab.slug);
      entry.run_every_time =
          prepare_reference_transcripts(lab, taken.trusted.build_dir / "tests" / lab.reference_binary_name(),
                                        options.work_dir / "run" / lab.slug, capabilities,
                                        lab_run_settings(options, taken, lab));
      entry.kept = static_cast<int>(lab.tests.size() - entry.run_every_time.size());
    }
    prepared.push_back(std::move(entry));
  }
  return prepared;
}

std::vector<LabResult> grade_submission(const GradeOptions& options, const Capabilities& capabilities) {
  GradingPhases phases;
  auto phase_started = std::chrono::steady_clock::now();
  auto phase_seconds = [&] {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - phase_started).count();
    phase_started = now;
    return seconds;
  };
  // The cores kept for the runs that measure are given to nothing else of
  // this grading, its builds included: the grading keeps to the others.
  // Without a sandbox the labs run one after another, and keep no cores.
  const std::vector<int> cores = usable_cores();
  const std::vector<int> measuring_cores = capabilities.gpu && runs_side_by_side(options.sandbox)
                                               ? cores_kept_for_measuring(cores)
                                               : std::vector<int>{};
  std::vector<int> other_cores;
  std::ranges::set_difference(cores, measuring_cores, std::back_inserter(other_cores));
  const CoresKept kept_off_measuring(measuring_cores.empty() ? std::vector<int>{} : other_cores);
  const char* gpu_lock = std::getenv("LAUNCHLAB_GPU_LOCK");
  GpuTurns gpu_turns(gpu_lock && *gpu_lock ? grader_lock_path(gpu_lock) : fs::path(), measuring_cores);

  prepare_work_dir(options.work_dir);
  const TrustedCourse taken = take_trusted_part(options, capabilities);
  const CommittedCourse& course = taken.course;
  const std::vector<Lab>& all_labs = taken.all_labs;
  const std::vector<Lab>& labs = taken.labs;
  const std::optional<Expectations>& expectations = taken.expectations;
  const BuildSettings& build = taken.build;
  const TrustedBuild& trusted = taken.trusted;
  phases.trusted_seconds = phase_seconds();

  log(options, "taking the submission's files");
  // A graded lab runs on the learner's own code of the labs it builds on, as
  // `launchlab test` runs it: those are taken too, and graded only if named.
  std::map<std::string, std::vector<std::string>> built_on;
  std::vector<Lab> taken_labs;
  for (const auto& lab : labs) {
    built_on[lab.slug] = labs_built_on(course.root, lab.slug);
    for (const auto& slug : built_on[lab.slug]) {
      const bool listed = std::any_of(taken_labs.begin(), taken_labs.end(), [&](const Lab& l) { return l.slug == slug; });
      if (auto found = find_lab(all_labs, slug); found && !listed) taken_labs.push_back(*found);
    }
  }
  SubmissionFiles submission = find_submission_files(options.submission, taken_labs, all_labs);
  for (const auto& [slug, used_labs] : built_on) {
    for (const auto& used : used_labs) {
      if (used == slug || submission.notes[used].empty()) continue;
      submission.notes[slug] += slug + " runs on your " + used + ", and of it: " + submission.notes[used];
    }
  }
  const fs::path exercise_dir = options.work_dir / "exercise";
  const fs::path learner_sources = options.work_dir / "learner-src";
  const fs::path data_dir = options.work_dir / "data";
  export_exercise_objects(trusted, labs, exercise_dir);
  assemble_learner_sources(course, submission, learner_sources);
  assemble_test_data(course, labs, data_dir);

  const std::set<std::string> as_starters = labs_left_as_starters(taken, submission, labs, built_on);
  std::vector<Lab> to_build;
  std::ranges::copy_if(labs, std::back_inserter(to_build), [&](const Lab& lab) { return !as_starters.count(lab.slug); });
  const fs::path learner_build_dir = options.work_dir / "learner-build";
  LearnerBuild learner{learner_build_dir, {}, {}};

  std::vector<LabResult> results;
  GuardedFiles guard;
  guard.add(data_dir);
  for (const auto& lab : labs) {
    LabResult result{lab, std::nullopt, {}};
    if (auto failed = trusted.failed.find(lab.slug); failed != trusted.failed.end()) {
      for (auto& row : all_failed(lab, "not graded: this lab could not be graded because of a problem in the course, "
                                       "which the instructor has been told of; it costs you nothing")) {
        row.status = TestStatus::not_graded;
        result.tests.push_back(std::move(row));
      }
    }
    results.push_back(std::move(result));
  }
  // What the submission's files said of a lab (read from the labs' threads: never a new entry).
  auto note_of = [&](const std::string& slug) {
    auto found = submission.notes.find(slug);
    return found == submission.notes.end() ? std::string() : found->second;
  };
  // Why a lab's own program is missing once the build is over (none: it is there).
  auto build_problem = [&](const Lab& lab) -> std::optional<std::string> {
    if (!learner.configure_problem.empty() && !as_starters.count(lab.slug)) return learner.configure_problem;
    if (auto failed = learner.failed.find(lab.slug); failed != learner.failed.end()) return failed->second;
    return std::nullopt;
  };

  // Where labs run side by side, each lab's reference half runs while the
  // submission builds (the course's programs need nothing of it), and its
  // learner half once the build is over; one after another, after the build.
  const bool side_by_side = runs_side_by_side(options.sandbox);
  std::promise<void> built_promise;
  const std::shared_future<void> built = built_promise.get_future().share();
  // The reference's tests that measure are measured while the lab builds
  // where nothing else could use the GPU meanwhile: not where gradings of a
  // class take turns on it (a lock across gradings), which would wait for
  // runs that the learner's failing ones might have spared.
  std::atomic<bool> building_alone{side_by_side && !measuring_cores.empty() && !to_build.empty() &&
                                   !(gpu_lock && *gpu_lock)};
  auto grade_lab = [&](LabResult& result) {
    const Lab lab = with_options(result.lab, options);
    RunSettings settings = lab_run_settings(options, taken, lab);
    if (side_by_side) settings.gpu_turns = &gpu_turns;
    settings.guard = &guard;
    settings.test_data = data_dir;
    settings.phases = &phases.labs.at(lab.slug);
    if (!as_starters.count(lab.slug)) settings.measure_while_building = &building_alone;
    std::optional<std::string> problem;
    settings.learner_program_ready = [&] {
      built.get();
      problem = build_problem(lab);
      if (!problem) log(options, "running the tests of " + lab.slug);
      return !problem;
    };
    // Lab by lab: whatever goes wrong while one lab is graded costs that
    // lab alone, and the labs graded before and after it keep their grades.
    try {
      if (expectations) use_expectations(*expectations, lab, capabilities, settings);
      result.tests = run_lab_tests(lab,
                                   {learner_build_dir / "tests" / lab.test_binary_name(),
                                    trusted.build_dir / "tests" / lab.reference_binary_name()},
                                   capabilities, options.work_dir / "run" / lab.slug, settings);
    } catch (const std::exception& error) {
      const std::string why = std::string("the grader could not grade this lab (") + error.what() +
                              "), so it scores 0; tell your instructor";
      result.problem = why;
      result.tests = all_failed(lab, why);
    }
    const std::string note = note_of(lab.slug);
    if (problem) {
      result.problem = note + *problem;
      result.tests = all_failed(lab, *problem);
    } else if (!note.empty() && !result.problem) {
      result.problem = note;
    }
  };
  // Every lab at once where the sandbox allows, each run taking its turn in
  // its lane (gpu_turns.h); one after another where it does not.
  std::vector<LabResult*> to_run;
  for (auto& result : results) {
    if (!result.tests.empty()) continue;
    phases.labs[result.lab.slug];  // made here, so that no lab's thread changes the map
    to_run.push_back(&result);
  }
  std::ranges::stable_sort(to_run, {}, [&](const LabResult* result) { return start_rank(result->lab, capabilities); });
  auto run_labs = [&] { run_side_by_side(to_run, grade_lab, side_by_side ? std::max<std::size_t>(2, other_cores.size()) : 1); };
  std::future<void> running;
  if (side_by_side) running = std::async(std::launch::async, run_labs);

  auto build_the_submission = [&] {
    if (!to_build.empty()) {
      log(options, "building the submission");
      learner = build_learner_part(learner_sources, exercise_dir, to_build, learner_build_dir, build, trusted.compilers,
                                   labs_slowest_to_compile_first(starter_programs_dir(taken) / "build"));
    }
    for (const auto& slug : as_starters) {
      const Lab& lab = *std::ranges::find(labs, slug, &Lab::slug);
      fs::create_directories(learner_build_dir / "tests");
      fs::copy_file(starter_programs_dir(taken) / "build" / "tests" / lab.test_binary_name(),
                    learner_build_dir / "tests" / lab.test_binary_name(), fs::copy_options::overwrite_existing);
      phases.starter_programs.push_back(slug);
    }
    for (const auto& lab : labs) {
      if (trusted.failed.count(lab.slug) || build_problem(lab)) continue;
      guard.add(learner_build_dir / "tests" / lab.test_binary_name());
      guard.add(trusted.build_dir / "tests" / lab.reference_binary_name());
    }
  };
  try {
    build_the_submission();
  } catch (...) {
    // The labs' threads wait for the build: they hear that it failed, and end.
    built_promise.set_exception(std::current_exception());
    building_alone = false;
    if (running.valid()) running.wait();
    throw;
  }
  building_alone = false;
  phases.learner_build_seconds = phase_seconds();
  built_promise.set_value();
  if (running.valid()) {
    running.get();
  } else {
    run_labs();
  }
  if (options.phases) *options.phases = std::move(phases);
  return results;
}

std::vector<Lab> labs_to_grade(std::vector<Lab> labs, const std::vector<std::string>& only_labs) {
  if (!only_labs.empty()) {
    std::erase_if(labs, [&](const Lab& lab) { return std::ranges::find(only_labs, lab.slug) == only_labs.end(); });
  }
  return labs;
}

void add_phases(nlohmann::json& results, const GradingPhases& phases) {
  nlohmann::json labs = nlohmann::json::object();
  nlohmann::json regrade = nlohmann::json::object();
  nlohmann::json leaderboard = nlohmann::json::array();
  double tests = 0;
  int cache_hits = 0;
  for (const auto& [slug, lab] : phases.labs) {
    for (const auto& figure : lab.leaderboard) {
      leaderboard.push_back({{"name", figure.name}, {"value", figure.value}, {"order", figure.ascending ? "asc" : "desc"}});
    }
    nlohmann::json entry = {{lab.measured_tests.empty() ? "reference_cached" : "reference", lab.reference_seconds},
                            {"learner", lab.learner_seconds},
                            {"judge", lab.judge_seconds},
                            {"waiting", lab.waited_seconds},
                            {"cache_hits", lab.cached_tests},
                            {"measured", lab.measured_tests},
                            {"spared", lab.spared_tests}};
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& run : lab.runs) {
      runs.push_back({{"program", run.program},
                      {"lane", run.lane},
                      {"tests", run.tests},
                      {"seconds", run.seconds},
                      {"waited", run.waited},
                      {"started", run.started}});
      if (!run.slowest.empty()) runs.back()["slowest"] = run.slowest;
    }
    entry["runs"] = std::move(runs);
    if (!lab.gpu_readings.empty()) entry["gpu"] = lab.gpu_readings;
    if (!lab.regrade.empty()) regrade[slug] = lab.regrade;
    labs[slug] = std::move(entry);
    tests += lab.reference_seconds + lab.learner_seconds + lab.judge_seconds;
    cache_hits += lab.cached_tests;
  }
  results["extra_data"]["phases"] = {{"trusted_part", phases.trusted_seconds},
                                     {"learner_build", phases.learner_build_seconds},
                                     {"starter_programs", phases.starter_programs},
                                     {"tests", tests},
                                     {"cache_hits", cache_hits},
                                     {"labs", std::move(labs)}};
  // The gradebook flags a results.json whose extra_data.regrade is not empty.
  if (!regrade.empty()) results["extra_data"]["regrade"] = std::move(regrade);
  if (!leaderboard.empty()) results["leaderboard"] = std::move(leaderboard);
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
