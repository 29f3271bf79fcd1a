// The launchlab command. ./launchlab at the course root builds this program
// on first use and runs it; everything a learner, an instructor or the
// course's own CI does goes through here.
#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "launchlab/grader/grading.h"
#include "launchlab/grader/process.h"
#include "lint.h"

namespace fs = std::filesystem;
using namespace launchlab::grader;

namespace {

struct Context {
  fs::path root;
  fs::path build;
};

Context context() {
  const char* root = std::getenv("LAUNCHLAB_ROOT");
  const char* build = std::getenv("LAUNCHLAB_BUILD_DIR");
  return {root && *root ? fs::path(root) : fs::path(LAUNCHLAB_SOURCE_DIR),
          build && *build ? fs::path(build) : fs::path(LAUNCHLAB_BINARY_DIR)};
}

void usage(std::ostream& out) {
  out << "usage: launchlab <command> [options]\n\n"
         "Learning:\n"
         "  list                         the chapters and your progress\n"
         "  test NN [--solution]         build and run lab NN's tests on your code\n"
         "  hint NN [--all]              the next hint for lab NN (or all of them)\n"
         "  docs                         build the course site (Sphinx)\n"
         "  inspect TOOL ARGS...         the tools your finished labs become (inspect help lists them)\n"
         "  trace [--json] -- PROGRAM    what libcuda wrote for each launch of PROGRAM (trace --help)\n\n"
         "Grading:\n"
         "  grade [--submission DIR] [--json PATH] [--labs NN,NN] [--work DIR]\n"
         "        [--test-timeout SECONDS] [--private-tests DIR] [--seed N] [--cmake-arg -DX=Y]...\n"
         "                               grade every lab over a pristine tree; exit 0 only on\n"
         "                               full marks of what could run here\n"
         "  doctor                       what this machine can build and grade\n\n"
         "The course itself:\n"
         "  check                        build everything and run the course's own tests\n"
         "  lint                         check labs, metadata, starters and solutions\n";
}

/// Runs a program with the terminal as its output, saying nothing itself.
int run_visible_quietly(const std::vector<std::string>& argv) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Streams a command's output to the terminal, for builds the learner waits on.
int run_visible(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) line += (line.empty() ? "" : " ") + arg;
  std::cerr << "+ " << line << std::endl;
  return run_visible_quietly(argv);
}

Lab require_lab(const Context& ctx, const std::string& which) {
  auto labs = load_course(ctx.root);
  if (auto lab = find_lab(labs, which)) return *lab;
  std::string known;
  for (const auto& lab : labs) known += " " + lab.number();
  throw std::runtime_error("no lab '" + which + "'; the labs are:" + known);
}

fs::path progress_dir(const Context& ctx) { return ctx.build / "progress"; }

int hints_seen(const Context& ctx, const Lab& lab) {
  std::ifstream in(progress_dir(ctx) / (lab.slug + ".hints"));
  int seen = 0;
  in >> seen;
  return std::clamp(seen, 0, static_cast<int>(lab.hints.size()));
}

void print_hint(const Lab& lab, int index) {
  std::cout << "Hint " << index + 1 << " of " << lab.hints.size() << " for " << lab.slug << ":\n  "
            << lab.hints[static_cast<std::size_t>(index)] << "\n";
}

/// Shows the next hint the learner has not seen and remembers it.
void reveal_next_hint(const Context& ctx, const Lab& lab) {
  int seen = hints_seen(ctx, lab);
  if (lab.hints.empty()) return;
  if (seen >= static_cast<int>(lab.hints.size())) {
    std::cout << "You have seen all " << lab.hints.size() << " hints; `launchlab hint " << lab.number()
              << " --all` shows them again.\n";
    return;
  }
  print_hint(lab, seen);
  fs::create_directories(progress_dir(ctx));
  std::ofstream(progress_dir(ctx) / (lab.slug + ".hints")) << seen + 1 << "\n";
}

/// Shows the latest hint the learner asked for (the first one if none yet):
/// a failing run reminds, `launchlab hint` goes further.
void show_current_hint(const Context& ctx, const Lab& lab) {
  if (lab.hints.empty()) return;
  int seen = hints_seen(ctx, lab);
  if (seen == 0) {
    reveal_next_hint(ctx, lab);
  } else {
    print_hint(lab, seen - 1);
  }
  if (hints_seen(ctx, lab) < static_cast<int>(lab.hints.size())) {
    std::cout << "(`launchlab hint " << lab.number() << "` shows the next one.)\n";
  }
}

int command_hint(const Context& ctx, const std::vector<std::string>& args) {
  if (args.empty()) throw std::runtime_error("usage: launchlab hint NN [--all]");
  Lab lab = require_lab(ctx, args[0]);
  if (std::find(args.begin(), args.end(), "--all") != args.end()) {
    for (int i = 0; i < static_cast<int>(lab.hints.size()); ++i) print_hint(lab, i);
    return 0;
  }
  reveal_next_hint(ctx, lab);
  return 0;
}

void indent(std::ostream& out, const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) out << prefix << line << "\n";
}

int command_test(const Context& ctx, const std::vector<std::string>& args) {
  if (args.empty()) throw std::runtime_error("usage: launchlab test NN [--solution]");
  Lab lab = require_lab(ctx, args[0]);
  bool solution = std::find(args.begin(), args.end(), "--solution") != args.end();
  std::string target = lab.test_binary_name() + (solution ? "_solution" : "");
  std::cerr << "Building " << target << " ..." << std::endl;
  if (run_visible({"cmake", "--build", ctx.build.string(), "--target", target, lab.reference_binary_name()}) != 0) {
    std::cout << "\n" << lab.slug << " did not compile: the compiler's messages are above.\n";
    return 1;
  }
  Capabilities capabilities = detect_capabilities(LAUNCHLAB_CUDA_BIN_DIR);
  std::cerr << "Running " << lab.tests.size() << " tests ..." << std::endl;
  auto results = run_lab_tests(lab, {ctx.build / "tests" / target, ctx.build / "tests" / lab.reference_binary_name()},
                               capabilities, ctx.build / "run" / target);

  int points = 0, gradable = 0, not_gradable = 0;
  bool any_failed = false;
  std::cout << "\n" << lab.slug << " — " << lab.title << (solution ? " (the solution)" : "") << "\n\n";
  for (const auto& result : results) {
    const char* mark = result.status == TestStatus::passed   ? "  PASS "
                       : result.status == TestStatus::failed ? "  FAIL "
                                                             : "  SKIP ";
    std::cout << mark << std::left << std::setw(60) << result.name << std::right << std::setw(3) << result.points
              << "/" << result.max_points << "\n";
    if (result.status != TestStatus::passed) indent(std::cout, result.message, "         ");
    points += result.points;
    if (result.status == TestStatus::passed || result.status == TestStatus::failed) gradable += result.max_points;
    else not_gradable += result.max_points;
    any_failed = any_failed || result.status == TestStatus::failed;
  }
  std::cout << "\nScore: " << points << "/" << gradable;
  if (not_gradable) std::cout << " (" << not_gradable << " more points need what this machine lacks: " << capabilities.gpu_detail << ")";
  std::cout << "\n\n";

  if (!solution) {
    fs::create_directories(progress_dir(ctx));
    Value progress = Value::Object{};
    progress["points"] = points;
    progress["gradable"] = gradable;
    progress["not_gradable"] = not_gradable;
    write_file_atomically(progress_dir(ctx) / (lab.slug + ".json"), progress.dump(2));
    if (any_failed) show_current_hint(ctx, lab);
  }
  return any_failed ? 1 : 0;
}

int command_list(const Context& ctx) {
  std::cout << std::left << std::setw(4) << "NN" << std::setw(24) << "lab" << std::setw(44) << "title"
            << "progress\n";
  for (const auto& lab : load_course(ctx.root)) {
    std::string progress = "not tried yet";
    fs::path saved = progress_dir(ctx) / (lab.slug + ".json");
    if (fs::exists(saved)) {
      try {
        std::ifstream in(saved);
        std::ostringstream text;
        text << in.rdbuf();
        Value value = parse_json(text.str());
        progress = std::to_string(value["points"].as_int()) + "/" + std::to_string(value["gradable"].as_int()) + " points";
        if (value["not_gradable"].as_int() > 0) progress += " (+" + std::to_string(value["not_gradable"].as_int()) + " need a GPU)";
      } catch (const std::exception&) {
        progress = "unknown (run `launchlab test " + lab.number() + "`)";
      }
    }
    std::cout << std::left << std::setw(4) << lab.number() << std::setw(24) << lab.slug << std::setw(44)
              << lab.title.substr(0, 42) << progress << "\n";
  }
  std::cout << "\n`launchlab test NN` runs a lab's tests; the chapter is chapters/<lab>/index.md "
               "(`launchlab docs` builds the site).\n";
  return 0;
}

std::string value_after(const std::vector<std::string>& args, const std::string& flag) {
  auto it = std::find(args.begin(), args.end(), flag);
  if (it == args.end()) return "";
  if (std::next(it) == args.end()) throw std::runtime_error(flag + " needs a value");
  return *std::next(it);
}

int command_grade(const Context& ctx, const std::vector<std::string>& args) {
  const auto start = std::chrono::steady_clock::now();
  GradeOptions options;
  options.course_root = ctx.root;
  std::string submission = value_after(args, "--submission");
  options.submission = submission.empty() ? ctx.root : fs::absolute(submission);
  std::string work = value_after(args, "--work");
  options.work_dir = work.empty() ? ctx.build / "grade" : fs::absolute(work);
  std::string json = value_after(args, "--json");
  fs::path json_path = json.empty() ? options.work_dir / "results.json" : fs::absolute(json);
  std::string architectures = LAUNCHLAB_CUDA_ARCHITECTURES;
  std::replace(architectures.begin(), architectures.end(), ',', ';');
  options.cmake_args.push_back("-DLAUNCHLAB_CUDA_ARCHITECTURES=" + architectures);
  if (std::string limit = value_after(args, "--test-timeout"); !limit.empty()) {
    options.test_timeout_seconds = std::stoi(limit);
    if (*options.test_timeout_seconds <= 0) throw std::runtime_error("--test-timeout must be positive");
  }
  if (std::string dir = value_after(args, "--private-tests"); !dir.empty()) {
    options.private_tests = fs::absolute(dir);
    if (!fs::is_directory(options.private_tests)) throw std::runtime_error("no folder " + dir);
  }
  options.seed = value_after(args, "--seed");
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (*it == "--cmake-arg" && std::next(it) != args.end()) options.cmake_args.push_back(*std::next(it));
  }
  if (std::string labs = value_after(args, "--labs"); !labs.empty()) {
    auto course = load_course(ctx.root);
    std::stringstream list(labs);
    std::string which;
    while (std::getline(list, which, ',')) {
      auto lab = find_lab(course, which);
      if (!lab) throw std::runtime_error("--labs: no lab '" + which + "'");
      options.only_labs.push_back(lab->slug);
    }
  }
  if (!fs::is_directory(options.submission)) throw std::runtime_error("no submission folder " + options.submission.string());

  Capabilities capabilities = detect_capabilities(LAUNCHLAB_CUDA_BIN_DIR);
  std::vector<LabResult> results;
  std::string failure;
  try {
    results = grade_submission(options, capabilities);
  } catch (const std::exception& error) {
    failure = error.what();
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Value report = results_json(results, capabilities, seconds);
  if (!failure.empty()) {
    report["output"] = "The grader could not grade this submission: " + failure;
    report["score"] = 0;
  }
  write_file_atomically(json_path, report.dump(2) + "\n");
  if (!failure.empty()) {
    std::cout << "launchlab grade: " << failure << "\n";
  } else {
    print_score_table(std::cout, results, capabilities);
  }
  std::cout << "results.json: " << json_path.string() << "\n";
  return failure.empty() && full_marks(results) ? 0 : 1;
}

std::string first_line_of(const std::vector<std::string>& argv) {
  RunLimits limits;
  limits.timeout = std::chrono::seconds(20);
  try {
    RunOutcome outcome = run_limited(argv, {}, {}, limits);
    if (!outcome.exited_cleanly()) return "";
    std::istringstream lines(outcome.output);
    std::string line, last;
    while (std::getline(lines, line)) {
      if (!line.empty()) last = line;
    }
    return last;
  } catch (const std::exception&) {
    return "";
  }
}

int command_doctor(const Context& ctx) {
  Capabilities capabilities = detect_capabilities(LAUNCHLAB_CUDA_BIN_DIR);
  fs::path cuda_bin = LAUNCHLAB_CUDA_BIN_DIR;
  auto show = [](const std::string& what, const std::string& value) {
    std::cout << "  " << std::left << std::setw(16) << what << (value.empty() ? "not found" : value) << "\n";
  };
  std::cout << "launchlab doctor\n\n";
  show("nvcc", first_line_of({(cuda_bin / "nvcc").string(), "--version"}));
  show("GPU", capabilities.gpu ? capabilities.gpu_detail : "none (" + capabilities.gpu_detail + ")");
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) {
    show("CUDA driver", "supports CUDA " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10));
  } else {
    show("CUDA driver", "");
  }
  for (const auto& [tool, found] : capabilities.tools) show(tool, found ? "installed" : "");
  show("cmake", first_line_of({"cmake", "--version"}).empty() ? "" : "installed");
  show("architectures", LAUNCHLAB_CUDA_ARCHITECTURES);
  show("build folder", ctx.build.string());

  std::cout << "\nWhat can be graded here:\n";
  for (const auto& lab : load_course(ctx.root)) {
    int here = 0, total = 0;
    for (const auto& test : lab.tests) {
      total += test.points;
      if (!capabilities.unmet_need(test)) here += test.points;
    }
    std::cout << "  " << std::left << std::setw(24) << lab.slug << here << " of " << total << " points"
              << (here < total ? " (the rest need a GPU or a CUDA tool)" : "") << "\n";
  }
  return 0;
}

int command_docs(const Context& ctx) {
  if (run_visible({"cmake", "--build", ctx.build.string(), "--target", "docs"}) != 0) {
    std::cout << "The docs did not build. `launchlab doctor` and the messages above say what is missing.\n";
    return 1;
  }
  std::cout << "The course site: " << (ctx.build / "docs" / "html" / "index.html").string() << "\n";
  return 0;
}

int command_check(const Context& ctx) {
  if (run_visible({"cmake", "--build", ctx.build.string()}) != 0) return 1;
  // The starters' tests fail by design; the linter checks that they do.
  return run_visible({"ctest", "--test-dir", ctx.build.string(), "--output-on-failure", "-LE", "starter",
                      "-j", std::to_string(std::max(2u, std::thread::hardware_concurrency()))});
}

/// Builds the inspect tools from the learner's labs (the solutions' in the
/// reference build) and hands over to them.
int command_inspect(const Context& ctx, const std::vector<std::string>& args) {
  RunLimits limits;
  limits.timeout = std::chrono::minutes(15);
  RunOutcome built = run_limited({"cmake", "--build", ctx.build.string(), "--target", "launchlab_inspect"}, {}, {}, limits);
  if (!built.exited_cleanly()) {
    std::cerr << built.output << "\nThe inspect tools are built from your labs, and one of them does not compile "
                 "(the messages above say where).\n";
    return 1;
  }
  std::vector<std::string> argv = {(ctx.build / "autograder" / "inspect" / "launchlab-inspect").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_visible_quietly(argv);
}

/// `launchlab trace`: built like the inspect tools, from lab 12 (autograder/trace/).
int command_trace(const Context& ctx, const std::vector<std::string>& args) {
  RunLimits limits;
  limits.timeout = std::chrono::minutes(15);
  RunOutcome built = run_limited({"cmake", "--build", ctx.build.string(), "--target", "launchlab_trace"}, {}, {}, limits);
  if (!built.exited_cleanly()) {
    std::cerr << built.output << "\nlaunchlab trace is built from your lab 12 (and labs 03, 04, 06, 07), and it does not "
                 "build (the messages above say why).\n";
    return 1;
  }
  std::vector<std::string> argv = {(ctx.build / "autograder" / "trace" / "launchlab-trace").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_visible_quietly(argv);
}

int command_lint(const Context& ctx) {
  Capabilities capabilities = detect_capabilities(LAUNCHLAB_CUDA_BIN_DIR);
  auto problems = launchlab::cli::lint_course(ctx.root, ctx.build, capabilities);
  for (const auto& problem : problems) std::cout << "lint: " << problem << "\n";
  std::cout << (problems.empty() ? "lint: the course is consistent\n"
                                 : "lint: " + std::to_string(problems.size()) + " problem(s)\n");
  return problems.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    usage(std::cout);
    return args.empty() ? 2 : 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  Context ctx = context();
  try {
    if (command == "list") return command_list(ctx);
    if (command == "test") return command_test(ctx, args);
    if (command == "hint") return command_hint(ctx, args);
    if (command == "grade") return command_grade(ctx, args);
    if (command == "doctor") return command_doctor(ctx);
    if (command == "docs") return command_docs(ctx);
    if (command == "check") return command_check(ctx);
    if (command == "lint") return command_lint(ctx);
    if (command == "inspect") return command_inspect(ctx, args);
    if (command == "trace") return command_trace(ctx, args);
    std::cerr << "launchlab: unknown command '" << command << "'\n\n";
    usage(std::cerr);
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "launchlab " << command << ": " << error.what() << "\n";
    return 2;
  }
}
