// `launchlab export-student DIR`, and the linter of the tree it writes.
#include "student_edition.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "launchlab/course/tables.h"
#include "launchlab/grader/expectations.h"
#include "launchlab/grader/stages.h"
#include "launchlab/grader/transcript.h"
#include "lint.h"
#include "launchlab/cli/versions.h"

namespace launchlab::cli {
namespace fs = std::filesystem;
using namespace launchlab::grader;

const std::vector<std::pair<std::string, std::string>>& instructor_only_paths() {
  static const std::vector<std::pair<std::string, std::string>> kPaths = {
      {"solutions", "the reference answers"},
      {"autograder/selftest", "the grader's own tests: a fixture course with its solutions, sample private tests and "
                              "misbehaving submissions"},
      {"autograder/exploits", "the catalogue of attacks on the grader, each with the submission that tries it"},
      {"autograder/class", "the scripts that grade a whole class (benchmarks, gradebook checks, Slurm)"},
      {"autograder/fuzz", "the course's own fuzzers of the solutions' readers, QMD and channel code"},
      {"docker", "the grader's container and the Gradescope bundle, which the instructor deploys"},
      {".ci", "the course's own CI, which proves the solutions"},
      {".dockerignore", "the grader container's build context"},
      {"Testing", "CTest's leftovers"},
      {"docs/instructors.md", "the instructor guide (private tests, secret seeds, the grader's defences)"},
      {"docs/authoring.md", "the course authors' guide (how solutions and tests are written)"},
  };
  return kPaths;
}

bool is_student_edition(const fs::path& root) { return fs::is_regular_file(root / kExpectationsFolder / "expectations.json"); }

fs::path edition_starters_folder(const fs::path& root) { return root / "starters"; }

CLI::App& define_export_student(CLI::App& app, ExportStudentArguments& args) {
  CLI::App& command = *app.add_subcommand(
      "export-student", "write the course as students get it (no solutions, no instructor material) into a new folder");
  command.group("Grading");
  command.add_option("DIR", args.into, "a new or empty folder")->required()->type_name("DIR");
  command.footer(
      "The course is taken as committed (git HEAD, or a release export), never the working tree. The solutions' test\n"
      "transcripts are recorded as the edition's expectations, so that its `test` and `grade` need no solutions;\n"
      "docs/instructors.md says what is left out and which tests only the course's grader can judge.");
  return command;
}

namespace {

/// One record's half that the reference decides: what is compared, and how.
std::vector<std::string> reference_half(const TestTranscript& test) {
  std::vector<std::string> half;
  for (const auto& record : test.records) {
    half.push_back(record.key + "\n" + std::string(record.check ? testing::check_name(*record.check) : "") + "\n" +
                   record.expected.dump() + "\n" + record.parameter.dump());
  }
  return half;
}

/// Why a test of the reference's two runs cannot be judged from a file, or
/// "" when it can.
std::string why_not_from_a_file(const LabTest& test, const Transcript& first, const Transcript& second,
                                const ReferenceRun& run, const Capabilities& here) {
  auto found = first.tests.find(test.name);
  if (found == first.tests.end() || !found->second.ended) {
    auto why = run.why_missing.find(test.name);
    return "the reference did not finish it when this edition was exported (" +
           (why == run.why_missing.end() ? std::string("no transcript") : why->second) + ")";
  }
  const TestTranscript& made = found->second;
  if (made.skipped) {
    if (auto need = here.unmet_need(test)) {
      return *need == "gpu" ? "it needs a GPU, and this edition was exported where there is none"
                            : "it needs " + *need + ", which was not installed where this edition was exported";
    }
    return "the reference skipped it when this edition was exported (" + made.skip_message + ")";
  }
  if (!made.failures.empty()) return "the reference failed it when this edition was exported";
  if (made.records.empty()) return "it records nothing to compare with";
  auto again = second.tests.find(test.name);
  if (again == second.tests.end() || reference_half(again->second) != reference_half(made)) {
    return "what it compares with is measured in the same run (the reference's own figures differed between two runs)";
  }
  return "";
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

bool left_out(const fs::path& relative) {
  const std::string name = relative.generic_string();
  if (name == ".launchlab-export") return true;  // the grader's own marker of its copy
  for (const auto& [path, why] : instructor_only_paths()) {
    if (name == path || name.starts_with(path + "/")) return true;
  }
  return false;
}

/// The site without the instructors' pages: their toctree goes too.
std::string without_instructor_pages(const std::string& index) {
  const std::size_t caption = index.find(":caption: For instructors");
  if (caption == std::string::npos) return index;
  const std::size_t open = index.rfind("```{toctree}", caption);
  const std::size_t close = index.find("```", caption);
  if (open == std::string::npos || close == std::string::npos) return index;
  std::size_t end = close + 3;
  while (end < index.size() && index[end] == '\n') ++end;
  return index.substr(0, open) + index.substr(end);
}

/// The presets without `reference`, which builds every lab from solutions/.
std::string without_reference_preset(const std::string& presets_text) {
  nlohmann::json presets = nlohmann::json::parse(presets_text, nullptr, false);
  if (presets.is_discarded()) return presets_text;
  for (const char* kind : {"configurePresets", "buildPresets", "testPresets"}) {
    if (!presets.contains(kind)) continue;
    auto& list = presets[kind];
    list.erase(std::remove_if(list.begin(), list.end(),
                              [](const nlohmann::json& preset) {
                                return preset.value("name", "") == "reference" ||
                                       preset.value("configurePreset", "") == "reference";
                              }),
               list.end());
  }
  return presets.dump(2) + "\n";
}

std::string student_readme(const std::vector<Lab>& labs, const nlohmann::json& manifest) {
  std::ostringstream out;
  const std::string gpu = manifest["made_on"].value("gpu", "");
  int by_grader = 0;
  for (const auto& lab : labs) by_grader += static_cast<int>(manifest["labs"][lab.slug]["judged_by_grader"].size());
  out << "# launchlab (student edition)\n\n"
         "A graded course, in C++ and CUDA, on what really happens when you run a GPU\n"
         "kernel. Each chapter (`chapters/NN_slug/index.md`) explains one step of a\n"
         "launch; its lab (`labs/NN_slug/`) is what you write. This edition was made for\n"
         "you by `launchlab export-student`: it holds no solutions.\n\n"
         "## What you run\n\n"
         "```sh\n"
         "./launchlab doctor        # what this machine can build, test and grade, and what to install\n"
         "./launchlab list          # the chapters and your progress\n"
         "./launchlab test 00       # build lab 00 and run its tests on your code\n"
         "./launchlab test 00 --only 'GridArithmetic.*'   # only some of them\n"
         "./launchlab hint 00       # the next hint for lab 00\n"
         "./launchlab reset 00      # put lab 00's starter files back (it asks first)\n"
         "./launchlab grade         # every lab: a score table and results.json\n"
         "./launchlab docs          # build the course site\n"
         "./launchlab inspect help  # the tools your finished labs become\n"
         "./launchlab check         # this tree's own check: the starters build, and the tree is whole\n"
         "```\n\n"
         "Edit the files marked `TODO(student)` in `labs/NN_slug/`; the headers there\n"
         "are the contract the tests hold you to. The tests are in\n"
         "`autograder/tests/NN_slug/`. `starters/` keeps the starters as exported:\n"
         "`reset` puts them back from there, even after you commit your work.\n\n"
         "## How your work is judged here\n\n"
         "Your code runs the tests and records what it returns; `expectations/` holds\n"
         "what the course's reference solutions recorded for the same tests when this\n"
         "edition was exported (on "
      << (gpu.empty() ? std::string("a machine without a GPU") : gpu) << ", nvcc "
      << manifest["made_on"].value("nvcc", "?")
      << "),\nand `test` and `grade` compare the two.\n";
  if (by_grader > 0) {
    out << "Of the tests, " << by_grader
        << " cannot be judged from a file (their figures are measured against a\n"
           "reference in the same run, or they need a GPU the export did not have): they\n"
           "say \"judged by the course's grader\" and count neither way here.\n";
  }
  out << "\n## The chapters\n\n" << course::chapter_table_markdown(labs, course::readme_table()) << "\n";
  out << "## What you need\n\n"
         "Linux, g++ 12 or later, CMake 3.25 or later, Ninja, GoogleTest, toml++, CLI11\n"
         "and the CUDA Toolkit 12.1 or later; an NVIDIA GPU is optional (the tests that\n"
         "need one say so). `./launchlab doctor` lists what is missing and the Debian\n"
         "packages that bring it.\n";
  return out.str();
}

void git_in(const fs::path& dir, std::vector<std::string> args) {
  args.insert(args.begin(), {"git", "-C", dir.string()});
  RunLimits limits;
  limits.timeout = std::chrono::minutes(2);
  RunOutcome outcome = run_limited(args, {}, {}, limits);
  if (!outcome.exited_cleanly()) throw std::runtime_error(args[3] + " failed: " + outcome.output);
}

void commit_edition(const fs::path& dir, const std::string& message) {
  std::vector<std::string> commit = {"-c", "commit.gpgsign=false", "commit", "-q", "-m", message};
  // Who exports commits, where git knows who that is.
  if (output_of({"git", "-C", dir.string(), "config", "user.email"}).empty()) {
    commit.insert(commit.begin(), {"-c", "user.name=launchlab export-student", "-c", "user.email=export-student@launchlab.invalid"});
  }
  git_in(dir, {"-c", "init.defaultBranch=main", "init", "-q"});
  git_in(dir, {"add", "-A"});
  git_in(dir, commit);
}

}  // namespace

int command_export_student(const fs::path& root, const fs::path& build, const std::string& cuda_architectures,
                           const ExportStudentArguments& args) {
  const auto start = std::chrono::steady_clock::now();
  const fs::path into = fs::absolute(args.into);
  std::error_code error;
  if (fs::exists(into) && (!fs::is_directory(into) || !fs::is_empty(into, error))) {
    std::cerr << "launchlab export-student: " << into.string()
              << " exists and is not an empty folder; give a new or empty one\n";
    return 2;
  }
  if (is_student_edition(root)) {
    std::cerr << "launchlab export-student: this course is a student edition already; export from the course itself\n";
    return 2;
  }
  const fs::path staging = build / "student-edition";
  std::cerr << "export-student: taking the committed course" << std::endl;
  CommittedCourse course = export_committed_course(root, staging / "course", {});
  const std::vector<Lab> labs = load_course(course.root);
  if (!fs::is_directory(course.root / "solutions")) {
    std::cerr << "launchlab export-student: the committed course has no solutions/ to make the expectations from\n";
    return 1;
  }

  std::cerr << "export-student: building the reference programs (the solutions' tests)" << std::endl;
  BuildSettings settings;
  std::string architectures = cuda_architectures;
  std::replace(architectures.begin(), architectures.end(), ',', ';');
  settings.cmake_args.push_back("-DLAUNCHLAB_CUDA_ARCHITECTURES=" + architectures);
  TrustedBuild trusted = build_trusted_part(course, labs, staging / "build", settings);
  if (!trusted.configure_problem.empty()) {
    std::cerr << "launchlab export-student: " << trusted.configure_problem << "\n";
    return 1;
  }
  for (const auto& [slug, why] : trusted.failed) std::cerr << "launchlab export-student: " << slug << ": " << why << "\n";
  if (!trusted.failed.empty()) return 1;
  const auto built = std::chrono::steady_clock::now();

  const Capabilities here = detect_capabilities(LAUNCHLAB_CUDA_BIN_DIR);
  nlohmann::json manifest = {{"revision", course.revision},
                             {"made_on", {{"gpu", here.gpu ? here.gpu_detail : ""}, {"nvcc", nvcc_version(LAUNCHLAB_CUDA_BIN_DIR)}}},
                             {"labs", nlohmann::json::object()}};
  std::map<std::string, std::string> transcripts;
  int judged_here = 0, by_grader = 0;
  for (const auto& lab : labs) {
    std::cerr << "export-student: recording the reference of " << lab.slug << " (twice)" << std::endl;
    const fs::path program = trusted.build_dir / "tests" / lab.reference_binary_name();
    const fs::path scratch = staging / "run" / lab.slug;
    ReferenceRun first = run_reference_program(lab, program, scratch / "first");
    ReferenceRun second = run_reference_program(lab, program, scratch / "second");
    const Transcript one = parse_transcript(first.text), two = parse_transcript(second.text);
    nlohmann::json elsewhere = nlohmann::json::object();
    for (const auto& test : lab.tests) {
      std::string why = why_not_from_a_file(test, one, two, first, here);
      if (why.empty()) {
        ++judged_here;
      } else {
        elsewhere[test.name] = why;
        ++by_grader;
      }
    }
    manifest["labs"][lab.slug] = {{"judged_by_grader", elsewhere}};
    transcripts[lab.slug] = first.text;
  }
  const auto recorded = std::chrono::steady_clock::now();

  // Every solution file's content, so that none leaves under another name.
  std::map<std::string, std::string> solution_files;
  for (const auto& entry : fs::recursive_directory_iterator(course.root / "solutions")) {
    if (entry.is_regular_file()) solution_files[read_text(entry.path())] = fs::relative(entry.path(), course.root).string();
  }
  const fs::path staged = staging / "tree";
  fs::remove_all(staged, error);
  fs::create_directories(staged);
  for (auto it = fs::recursive_directory_iterator(course.root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path relative = fs::relative(it->path(), course.root);
    if (left_out(relative)) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    const fs::path target = staged / relative;
    if (it->is_symlink()) {
      fs::copy_symlink(it->path(), target);
    } else if (it->is_directory()) {
      fs::create_directories(target);
    } else if (it->is_regular_file()) {
      if (auto same = solution_files.find(read_text(it->path())); same != solution_files.end()) {
        std::cerr << "launchlab export-student: " << relative.string() << " holds the same text as " << same->second
                  << ", so nothing was exported\n";
        return 1;
      }
      fs::copy_file(it->path(), target);
    }
  }
  for (const auto& [slug, text] : transcripts) write_text(staged / kExpectationsFolder / (slug + ".transcript"), text);
  for (const auto& lab : labs) {
    for (const auto& file : lab.student_files) {
      write_text(edition_starters_folder(staged) / lab.slug / file, read_text(course.root / "labs" / lab.slug / file));
    }
  }
  write_text(staged / kExpectationsFolder / "expectations.json", manifest.dump(2) + "\n");
  write_text(staged / "README.md", student_readme(labs, manifest));
  if (fs::exists(staged / "CMakePresets.json")) {
    write_text(staged / "CMakePresets.json", without_reference_preset(read_text(staged / "CMakePresets.json")));
  }
  if (fs::exists(staged / "docs" / "index.md")) {
    write_text(staged / "docs" / "index.md", without_instructor_pages(read_text(staged / "docs" / "index.md")));
  }
  fs::create_directories(into);
  fs::copy(staged, into, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::remove_all(staged, error);
  // A repository of its own, one commit: what the instructor pushes, and what
  // its grade and reset take as the committed course.
  try {
    commit_edition(into, "The student edition of launchlab " + course.revision.substr(0, 12));
  } catch (const std::exception& failure) {
    std::cerr << "launchlab export-student: " << failure.what() << "\n";
    return 1;
  }

  using seconds = std::chrono::duration<double>;
  const auto done = std::chrono::steady_clock::now();
  std::cout << "The student edition of revision " << course.revision.substr(0, 12) << " is in " << into.string() << ":\n"
            << "  " << labs.size() << " labs; " << judged_here << " tests judged from its expectations, " << by_grader
            << " judged by the course's grader only (expectations/expectations.json says why)\n"
            << "  left out: ";
  bool first = true;
  for (const auto& [path, why] : instructor_only_paths()) {
    if (!fs::exists(course.root / path)) continue;
    std::cout << (first ? "" : ", ") << path;
    first = false;
  }
  std::cout << "\n"
            << "  took " << static_cast<int>(seconds(done - start).count()) << " s (building "
            << static_cast<int>(seconds(built - start).count()) << " s, recording the reference "
            << static_cast<int>(seconds(recorded - built).count()) << " s)\n"
            << "It is a git repository of one commit: push it as a repository of its own (a template) to publish it.\n";
  return 0;
}

std::vector<std::string> lint_student_edition(const fs::path& root, const fs::path& build_dir,
                                              const Capabilities& capabilities) {
  course::Course course = course::read_course(root);
  std::vector<std::string> problems = course.problems;
  const std::vector<Lab>& labs = course.labs;
  for (auto& problem : course::check_chapter_table(read_text(root / "README.md"), "README.md", labs, course::readme_table())) {
    problems.push_back(std::move(problem));
  }
  for (const auto& [path, why] : instructor_only_paths()) {
    if (fs::exists(root / path)) problems.push_back(path + " is in a student edition: " + why + " stay with the instructor");
  }
  const std::optional<Expectations> expectations = find_expectations(root);
  if (!expectations) return problems;
  for (const auto& lab : labs) {
    auto problem = [&](const std::string& text) { problems.push_back(lab.slug + ": " + text); };
    const fs::path lab_dir = root / "labs" / lab.slug;
    if (!fs::exists(lab_dir / "CMakeLists.txt")) problem("no CMakeLists.txt");
    for (const auto& file : lab.student_files) {
      if (!fs::is_regular_file(edition_starters_folder(root) / lab.slug / file)) {
        problem("starters/" + lab.slug + " has no " + file + ": `launchlab reset` could not put it back");
      }
      if (!fs::is_regular_file(lab_dir / file)) problem("student file " + file + " is not in labs/" + lab.slug);
      else if (read_text(lab_dir / file).find("TODO(student)") == std::string::npos) {
        problem("the starter " + file + " has no TODO(student): a learner cannot see what to write");
      }
    }
    const Transcript expected = parse_transcript(read_text(expectations->transcript(lab)));
    const auto elsewhere = expectations->judged_by_grader(lab, capabilities);
    for (const auto& test : lab.tests) {
      if (!expected.tests.count(test.name) && !elsewhere.count(test.name)) {
        problem("expectations/" + lab.slug + ".transcript has nothing of " + test.name + ": export the edition again");
      }
    }
    const fs::path starter = build_dir / "tests" / lab.test_binary_name();
    if (!fs::exists(starter)) {
      problem("the starter's test program is not built");
      continue;
    }
    std::string list_problem;
    std::vector<std::string> listed = list_gtest_tests(starter, list_problem);
    if (!list_problem.empty()) problem(list_problem);
    for (const auto& test : lab.tests) {
      if (list_problem.empty() && std::find(listed.begin(), listed.end(), test.name) == listed.end()) {
        problem("lab.toml names " + test.name + ", which the tests do not define");
      }
    }
    RunSettings settings;
    use_expectations(*expectations, lab, capabilities, settings);
    int failed = 0, ran = 0;
    for (const auto& result : run_lab_tests(lab, {starter, {}}, capabilities, build_dir / "lint" / lab.slug, settings)) {
      if (result.status == TestStatus::failed) ++failed;
      if (result.status == TestStatus::failed || result.status == TestStatus::passed) ++ran;
    }
    if (ran > 0 && failed == 0) problem("the starter passes every graded test that runs here: it is already solved");
  }
  return problems;
}

}  // namespace launchlab::cli
