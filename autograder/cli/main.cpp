// The launchlab command. ./launchlab at the course root builds this program
// on first use and runs it; everything a learner, an instructor or the
// course's own CI does goes through here. The whole command line is read
// first (launchlab/cli/arguments.h): --help, and any mistake in it, answer
// before anything is built or graded.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <thread>

#include <algorithm>
#include <chrono>
#include <optional>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "launchlab/cli/arguments.h"
#include "launchlab/class/seeds.h"
#include "launchlab/cli/progress.h"
#include "launchlab/grader/grading.h"
#include "launchlab/grader/process.h"
#include "launchlab/grader/sandbox.h"
#include "launchlab/grader/stages.h"
#include "launchlab/grader/text.h"
#include "doctor.h"
#include "grade_class_command.h"
#include "learner.h"
#include "inspect_command.h"
#include "launchlab/grader/expectations.h"
#include "lint.h"
#include "student_edition.h"

namespace fs = std::filesystem;
using namespace launchlab::grader;

namespace {

using launchlab::cli::build_for_learner;
using launchlab::cli::Context;
using launchlab::cli::CourseLabs;
using launchlab::cli::keep_progress;
using launchlab::cli::progress_dir;
using launchlab::cli::run_visible;
using launchlab::cli::run_visible_quietly;

/// grade's arguments, as given (GradeOptions is what the grader takes).
struct GradeArguments {
  std::string submission;
  std::string work;
  std::string json;
  std::vector<std::string> labs;  ///< slugs, once parsed
  int test_timeout_seconds = 0;   ///< 0: each lab's own
  std::string private_tests;
  std::string private_visibility = "hidden";
  std::string seed;
  std::string seed_secret_file;   ///< empty: LAUNCHLAB_SEED_SECRET_FILE, else no seed of the submission's own
  std::string student;            ///< empty: the submission folder's name
  int time_limit_seconds = 0;     ///< 0: none
  std::vector<std::string> cmake_args;
  bool prepare = false;           ///< build the trusted part and keep the reference's transcripts; grade nothing
};

CLI::App& define_grade(CLI::App& app, GradeArguments& args, CourseLabs& course) {
  using launchlab::cli::unsigned_64;
  using launchlab::cli::whole_number;
  CLI::App& grade = *app.add_subcommand("grade", "grade every lab against the committed course: a score table and results.json");
  grade.group("Grading");
  // A missing folder is the instructor's mistake, which results.json reports
  // (command_grade), rather than an error before results.json is written.
  CLI::Option* submission = grade.add_option("--submission", args.submission,
                   "the student's files: DIR/labs/NN_slug/FILE, DIR/NN_slug/FILE or DIR/FILE (default: this course's labs/)")
      ->type_name("DIR");
  CLI::Option* json = grade.add_option("--json", args.json, "where Gradescope's results.json goes (default: WORK/results.json)")->type_name("PATH");
  grade.add_option("--labs", args.labs, "grade only these labs, by number or slug (default: every lab)")
      ->type_name("NN,NN")->delimiter(',')->transform(course.lab_number(true));
  grade.add_option("--work", args.work, "where the submission is built and run, emptied at every grading (default: BUILD/grade)")
      ->type_name("DIR");
  grade.add_option("--test-timeout", args.test_timeout_seconds,
                   "the time one test may take, for every lab (default: each lab.toml's test_timeout_seconds)")
      ->type_name("SECONDS")->check(whole_number(1, 24 * 3600));
  grade.add_option("--private-tests", args.private_tests,
                   "private tests merged in for this grading: DIR/NN_slug/*.cpp, and their points in DIR/NN_slug/tests.toml")
      ->type_name("DIR");
  grade.add_option("--private-visibility", args.private_visibility,
                   "how results.json shows the private tests to students (Gradescope's visibility)")
      ->type_name("WHEN")->check(CLI::IsMember({"hidden", "after_due_date", "after_published", "visible"}));
  grade.add_option("--seed", args.seed, "the secret seed of the tests' random inputs (LAUNCHLAB_SEED), so that they differ from what the learner saw")
      ->type_name("N")->check(unsigned_64());
  grade.add_option("--seed-secret", args.seed_secret_file,
                   "a file only the grader reads, holding the course secret: the seed (unless --seed gives it) is drawn "
                   "from it, the student and the submitted files, so that every submission gets inputs of its own "
                   "(default: LAUNCHLAB_SEED_SECRET_FILE)")
      ->type_name("FILE");
  grade.add_option("--student", args.student, "who handed the submission in, for its seed (default: the submission folder's name)")
      ->type_name("ID");
  grade.add_option("--time-limit", args.time_limit_seconds,
                   "a wall clock for the whole grading: past it, every run is ended and results.json says so (default: none)")
      ->type_name("SECONDS")->check(whole_number(1, 7 * 24 * 3600));
  grade.add_option("--cmake-arg", args.cmake_args, "one more option for configuring the graded tree; repeat it for more")
      ->type_name("-DX=Y")->allow_extra_args(false);
  grade.add_flag("--prepare", args.prepare,
                 "grade nothing: build the committed course's trusted part and keep its reference transcripts for "
                 "the gradings to come (once per revision: an image, Gradescope's setup, before a class)")
      ->excludes(submission)->excludes(json);
  grade.footer("Only the student files each lab.toml names are taken from the submission. The exit status is 0 only on\n"
               "full marks of what could run here.");
  return grade;
}

/// The options every grading of this course takes from the command line
/// alike, whether it grades a submission or prepares for those to come.
GradeOptions course_grading_options(const Context& ctx, const GradeArguments& args) {
  GradeOptions options;
  options.course_root = ctx.root;
  options.work_dir = args.work.empty() ? ctx.build / "grade" : fs::absolute(args.work);
  // The committed course's trusted part is kept beside the build, so that a
  // second grading of the same revision rebuilds only the learner's files.
  options.trusted_dir = ctx.build / "graded-course";
  // The course's list, not the one architecture a learner's re-tests build.
  std::string architectures = LAUNCHLAB_GRADE_CUDA_ARCHITECTURES;
  std::replace(architectures.begin(), architectures.end(), ',', ';');
  options.cmake_args.push_back("-DLAUNCHLAB_CUDA_ARCHITECTURES=" + architectures);
  options.cmake_args.insert(options.cmake_args.end(), args.cmake_args.begin(), args.cmake_args.end());
  if (args.test_timeout_seconds > 0) options.test_timeout_seconds = args.test_timeout_seconds;
  if (!args.private_tests.empty()) options.private_tests = fs::absolute(args.private_tests);
  options.seed = args.seed;
  options.only_labs = args.labs;
  return options;
}

/// Throws, before anything is built or written, when the private tests the
/// options name are no folder: the instructor's mistake.
void check_private_tests(const GradeOptions& options) {
  if (!options.private_tests.empty() && !fs::is_directory(options.private_tests)) {
    throw std::runtime_error("no private tests folder " + options.private_tests.string());
  }
}

/// `launchlab grade --prepare`: what was made ready, lab by lab; exits 1
/// when the course's own part of a lab did not build.
int command_prepare(const Context& ctx, const GradeArguments& args) {
  harden_grader_process();
  GradeOptions options = course_grading_options(ctx, args);
  const auto start = std::chrono::steady_clock::now();
  std::vector<PreparedLab> prepared;
  try {
    check_private_tests(options);
    options.sandbox = choose_sandbox();
    prepared = prepare_course(options, detect_capabilities(LAUNCHLAB_CUDA_BIN_DIR));
  } catch (const std::exception& error) {
    std::cout << "launchlab grade --prepare: " << error.what() << "\n";
    return 1;
  }
  bool ready = true;
  for (const auto& lab : prepared) {
    if (!lab.problem.empty()) {
      ready = false;
      std::cout << lab.slug << ": NOT READY: " << lab.problem << "\n";
      continue;
    }
    std::cout << lab.slug << ": ready: the reference's transcripts of " << lab.kept << " of "
              << lab.kept + lab.run_every_time.size() << " tests kept";
    if (!lab.run_every_time.empty()) std::cout << ", the others run at every grading (they measure or draw from the seed)";
    std::cout << "\n";
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << (ready ? "Prepared" : "Prepared with problems") << " in " << std::fixed << std::setprecision(0) << seconds
            << " s: every grading of this revision now builds and runs the submission's part only.\n";
  return ready ? 0 : 1;
}

int command_grade(const Context& ctx, const GradeArguments& args) {
  if (args.prepare) return command_prepare(ctx, args);
  // Before anything runs: the processes the grading starts cannot ptrace
  // the grader, read its memory or write its /proc files.
  harden_grader_process();
  const auto start = std::chrono::steady_clock::now();
  GradeOptions options = course_grading_options(ctx, args);
  options.submission = args.submission.empty() ? ctx.root : fs::absolute(args.submission);
  fs::path json_path = args.json.empty() ? options.work_dir / "results.json" : fs::absolute(args.json);
  std::optional<WallClockLimit> wall_clock;
  if (args.time_limit_seconds > 0) {
    wall_clock.emplace(std::chrono::seconds(args.time_limit_seconds), [json_path, limit = args.time_limit_seconds] {
      nlohmann::json stopped = {{"score", 0},
                                {"output", "The grading took longer than its wall clock of " + std::to_string(limit) +
                                               " s and was stopped; nothing was graded. The course staff can see the log."},
                                {"tests", nlohmann::json::array()}};
      write_file_atomically(json_path, stopped.dump(2) + "\n");
      std::cout << "launchlab grade: stopped by the wall clock after " << limit << " s\n" << std::flush;
    });
  }
  std::string seed_derivation = args.seed.empty() ? "none" : "given (--seed)";
  GradingPhases phases;
  options.phases = &phases;

  Capabilities capabilities = detect_capabilities(LAUNCHLAB_CUDA_BIN_DIR);
  std::vector<LabResult> results;
  std::string failure;
  try {
    // The instructor's mistakes too end in a results.json that says what is wrong.
    if (!fs::is_directory(options.submission)) throw std::runtime_error("no submission folder " + options.submission.string());
    check_private_tests(options);
    const char* secret_variable = std::getenv("LAUNCHLAB_SEED_SECRET_FILE");
    const std::string secret_file =
        !args.seed_secret_file.empty() ? args.seed_secret_file : (secret_variable ? secret_variable : "");
    if (options.seed.empty() && !secret_file.empty()) {
      const fs::path folder = options.submission.lexically_normal();
      const std::string student =
          !args.student.empty() ? args.student : (folder.has_filename() ? folder : folder.parent_path()).filename().string();
      const auto seed = launchlab::classroom::derive_submission_seed(launchlab::classroom::read_course_secret(secret_file),
                                                                     student, options.submission,
                                                                     labs_to_grade(load_course(ctx.root), args.labs));
      options.seed = std::to_string(seed.value);
      seed_derivation = seed.derivation;
    }
    std::cerr << "launchlab grade: the student files of " << options.submission.string()
              << (args.submission.empty() ? " (this checkout; --submission DIR grades another folder)" : "") << std::endl;
    options.sandbox = choose_sandbox();
    std::cerr << "launchlab grade: sandbox: " << options.sandbox.describe() << std::endl;
    results = grade_submission(options, capabilities);
    if (args.submission.empty()) launchlab::cli::record_grade(ctx, results, capabilities);
  } catch (const std::exception& error) {
    failure = error.what();
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ReportSettings report_settings;
  report_settings.private_visibility = args.private_visibility;
  std::string results_text;
  try {
    nlohmann::json report = results_json(results, capabilities, seconds, report_settings);
    report["extra_data"]["sandbox"] = options.sandbox.describe();
    add_phases(report, phases);
    // For staff, so that a regrade can give --seed: Gradescope stores
    // extra_data with the submission and shows students only the outputs. A
    // seed given with --seed may serve a whole class, so only one drawn for
    // this submission alone is kept.
    const bool drawn_here = args.seed.empty() && !options.seed.empty();
    report["extra_data"]["seed"] = drawn_here ? nlohmann::json(options.seed) : nlohmann::json();
    report["extra_data"]["seed_derivation"] = seed_derivation;
    if (!failure.empty()) {
      // Unfenced: a gradebook finds grader errors by these words (gradebook.h).
      report["output"] = "The grader could not grade this submission: " + learner_text(failure, kTestOutputLimit);
      report["score"] = 0;
    }
    // Every text in it is valid UTF-8 already (text.h); a byte that is not
    // would still become U+FFFD rather than lose the whole report.
    results_text = report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } catch (const std::exception& error) {
    results_text = last_resort_results(results, error.what());
    if (failure.empty()) failure = std::string("the grader could not write its report: ") + error.what();
  }
  write_file_atomically(json_path, results_text);
  if (!failure.empty()) {
    std::cout << "launchlab grade: " << failure << "\n";
  } else {
    print_score_table(std::cout, results, capabilities);
  }
  std::cout << "results.json: " << json_path.string() << "\n";
  return failure.empty() && full_marks(results) ? 0 : 1;
}

/// The site's editions: English, and one per language folder of docs/locale.
std::vector<std::string> docs_languages(const fs::path& root) {
  std::vector<std::string> languages = {"en"};
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(root / "docs" / "locale", error)) {
    if (entry.is_directory()) languages.push_back(entry.path().filename().string());
  }
  std::sort(languages.begin() + 1, languages.end());
  return languages;
}

int command_docs(const Context& ctx, const std::string& language) {
  const auto languages = docs_languages(ctx.root);
  if (std::find(languages.begin(), languages.end(), language) == languages.end()) {
    std::string known;
    for (const auto& name : languages) known += (known.empty() ? "" : ", ") + name;
    std::cout << "The site has no edition in '" << language << "'; it has: " << known << ".\n";
    return 2;
  }
  const bool built_before = fs::exists(ctx.build / "docs" / "html" / "index.html");
  if (!build_for_learner(ctx, {"docs"}, "building the course site",
                         built_before ? "" : "about 5 minutes on 2 cores").exited_cleanly()) {
    std::cout << "The docs did not build; the messages above say why (and what to install, when a tool is missing).\n";
    return 1;
  }
  // The English edition is the site's top; each translation a folder below it.
  const fs::path edition = language == "en" ? ctx.build / "docs" / "html" : ctx.build / "docs" / "html" / language;
  std::cout << "The course site: " << (edition / "index.html").string() << "\n";
  return 0;
}

int command_check(const Context& ctx) {
  if (run_visible({"cmake", "--build", ctx.build.string()}) != 0) return 1;
  // The starters' tests fail by design; the linter checks that they do.
  return run_visible({"ctest", "--test-dir", ctx.build.string(), "--output-on-failure", "-LE", "starter",
                      "-j", std::to_string(std::max(2u, std::thread::hardware_concurrency()))});
}

/// Builds the inspect tool asked for from the learner's labs (the solutions'
/// in the reference build) and hands over to it (inspect_command.h).
int command_inspect(const Context& ctx, const std::vector<std::string>& args) {
  const launchlab::cli::InspectStep step = launchlab::cli::prepare_inspect(ctx.root, ctx.build, args);
  if (step.status) return *step.status;
  std::vector<std::string> argv = {step.program.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_visible_quietly(argv);
}

/// `launchlab trace`: built like the inspect tools, from lab 12 (autograder/trace/).
int command_trace(const Context& ctx, const std::vector<std::string>& args) {
  const fs::path program = ctx.build / "autograder" / "trace" / "launchlab-trace";
  RunOutcome built = build_for_learner(ctx, {"launchlab_trace"}, "building launchlab trace from your labs",
                                       fs::exists(program) ? "" : "about 3 minutes on 2 cores");
  if (!built.exited_cleanly()) {
    std::cerr << "\nlaunchlab trace is built from your lab 12 (and labs 03, 04, 06, 07), and it does not "
                 "build (the messages above say why).\n";
    return 1;
  }
  std::vector<std::string> argv = {program.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_visible_quietly(argv);
}

/// grade-class is a program of its own, which only a course's staff needs:
/// the launchlab program reads its command line (its --help, and any mistake
/// in it, answer at once), builds it the first time (and after a change to
/// its sources), and hands the arguments over to it.
int command_grade_class(const Context& ctx, const std::vector<std::string>& args) {
  // Built beside this program, in its own build folder: LAUNCHLAB_BUILD_DIR
  // may name another, where gradings build (the benchmark's scratch folder).
  const Context own_build{ctx.root, LAUNCHLAB_BINARY_DIR};
  const fs::path program = own_build.build / "autograder" / "cli" / "launchlab-grade-class";
  if (!build_for_learner(own_build, {"launchlab_grade_class"}, "building the grade-class program",
                         fs::exists(program) ? "" : "about 30 s on 2 cores").exited_cleanly()) {
    std::cerr << "\nThe grade-class program did not build (the messages above say why).\n";
    return 1;
  }
  // It finds the course where this program found it.
  setenv("LAUNCHLAB_ROOT", ctx.root.c_str(), 1);
  setenv("LAUNCHLAB_BUILD_DIR", ctx.build.c_str(), 1);
  std::vector<char*> argv = {const_cast<char*>(program.c_str())};
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  execv(program.c_str(), argv.data());
  std::cerr << "launchlab grade-class: cannot run " << program.string() << ": " << std::strerror(errno) << "\n";
  return 1;
}

int command_lint(const Context& ctx, const launchlab::cli::LintScope& scope) {
  Capabilities capabilities = detect_capabilities(LAUNCHLAB_CUDA_BIN_DIR);
  auto problems = launchlab::cli::is_student_edition(ctx.root)
                      ? launchlab::cli::lint_student_edition(ctx.root, ctx.build, capabilities)
                      : launchlab::cli::lint_course(ctx.root, ctx.build, capabilities, scope);
  for (const auto& problem : problems) std::cout << "lint: " << problem << "\n";
  std::cout << (problems.empty() ? "lint: the course is consistent\n"
                                 : "lint: " + std::to_string(problems.size()) + " problem(s)\n");
  return problems.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Context ctx = launchlab::cli::course_context();
  CourseLabs course(ctx.root);

  CLI::App app("The launchlab course's one command (./launchlab at the course's root builds it and runs it).", "launchlab");
  app.require_subcommand(1);

  std::string lab;  // the slug of the lab that test or hint names
  const auto lab_argument = [&](CLI::App& command) {
    command.add_option("NN", lab, "the lab: its number (04, or 4) or its slug")->required()->transform(course.lab_number(false));
  };

  CLI::App& list = *app.add_subcommand("list", "the chapters and your progress")->group("Learning");
  CLI::App& test = *app.add_subcommand("test", "build and run lab NN's tests on your code")->group("Learning");
  lab_argument(test);
  launchlab::cli::TestOptions test_options;
  test.add_flag("--solution", test_options.solution, "run them on the reference solution instead");
  test.add_option("--only", test_options.only, "only these tests: Suite.Test, or Suite.* for a suite (repeat it for more)")
      ->type_name("NAME");
  const std::string verbose_help = "every failing test's message (by default only the first failure's is shown whole)";
  test.add_flag("--verbose,-v", test_options.verbose, verbose_help);
  CLI::App& watch = *app.add_subcommand("watch", "test lab NN again each time you save one of its files (every lab's without NN)")
                         ->group("Learning");
  watch.add_option("NN", lab, "the lab: its number (04, or 4) or its slug; without it, every lab")
      ->transform(course.lab_number(false));
  launchlab::cli::TestOptions watch_options;
  watch.add_flag("--verbose,-v", watch_options.verbose, verbose_help);
  CLI::App& hint = *app.add_subcommand("hint", "the next hint for lab NN")->group("Learning");
  lab_argument(hint);
  bool all_hints = false;
  hint.add_flag("--all", all_hints, "every hint of the lab, in order");
  CLI::App& reset = *app.add_subcommand("reset", "put lab NN's student files back as the starter has them")->group("Learning");
  lab_argument(reset);
  bool reset_yes = false;
  reset.add_flag("--yes", reset_yes, "without asking first");
  CLI::App& docs = *app.add_subcommand("docs", "build the course site (Sphinx)")->group("Learning");
  std::string docs_language = "en";
  docs.add_option("--language", docs_language,
                  "which edition's path to print: en (the default), or a language of docs/locale (pt_BR, zh_CN); every "
                  "edition is built")
      ->type_name("LANGUAGE");
  CLI::App& inspect = *app.add_subcommand("inspect", "the tools your finished labs become: `launchlab inspect help` lists them")
                           ->group("Learning")
                           ->prefix_command();
  inspect.footer("usage: launchlab inspect TOOL ARGS...\n"
                 "The tools are built from your own labs first; `launchlab inspect help` lists those they provide and\n"
                 "`launchlab inspect TOOL --help` gives a tool's arguments.");
  // Listed here; its arguments, --help included, are the tool's own (autograder/trace/main.cpp),
  // so main hands them over before parsing.
  app.add_subcommand("trace", "what libcuda wrote for each kernel launch of a program (trace --help)")->group("Learning");

  GradeArguments grade_arguments;
  CLI::App& grade = define_grade(app, grade_arguments, course);
  launchlab::classroom::GradeClassArguments grade_class_arguments;
  CLI::App& grade_class = launchlab::cli::define_grade_class(*app.add_subcommand("grade-class")->group("Grading"),
                                                             grade_class_arguments, course.lab_number(false));
  CLI::App& doctor = *app.add_subcommand("doctor", "what this machine can build and grade")->group("Grading");
  launchlab::cli::ExportStudentArguments export_student_arguments;
  CLI::App& export_student = launchlab::cli::define_export_student(app, export_student_arguments);

  CLI::App& check = *app.add_subcommand("check", "build everything and run the course's own tests")->group("The course itself");
  CLI::App& lint = *app.add_subcommand("lint", "check labs, metadata, chapter tables, starters and solutions")->group("The course itself");
  launchlab::cli::LintScope lint_scope;
  CLI::Option* lint_labs = lint.add_option("--labs", lint_scope.labs,
                                           "check only these labs, each on its own (their programs run), not the course "
                                           "as a whole")
                               ->type_name("NN,NN")->delimiter(',')->transform(course.lab_number(false));
  bool lint_course_only = false;
  lint.add_flag("--no-labs", lint_course_only, "check only the course as a whole: no lab's programs run")
      ->excludes(lint_labs);

  CLI::App& help = *app.add_subcommand("help", "this list, or a command's options (help grade)")->group("");
  std::string topic;
  std::vector<std::string> commands;
  for (const CLI::App* command : app.get_subcommands({})) commands.push_back(command->get_name());
  help.add_option("COMMAND", topic, "the command")->check(CLI::IsMember(commands));
  // Set last: a subcommand takes its parent's footer when it is added.
  app.footer("`launchlab COMMAND --help` (or `launchlab help COMMAND`) gives a command's options.");

  if (argc < 2) {
    std::cout << launchlab::cli::help_of(app);
    return 2;
  }
  if (std::string_view(argv[1]) == "trace") return command_trace(ctx, std::vector<std::string>(argv + 2, argv + argc));
  if (auto status = launchlab::cli::parse_arguments(app, argc, argv)) return *status;

  try {
    if (help.parsed()) {
      std::cout << launchlab::cli::help_of(topic.empty() ? app : *app.get_subcommand(topic));
      return 0;
    }
    if (list.parsed()) return launchlab::cli::command_list(ctx, course.labs());
    if (test.parsed()) return launchlab::cli::test_lab(ctx, course.lab(lab), test_options, std::cout);
    if (watch.parsed()) {
      return launchlab::cli::command_watch(ctx, lab.empty() ? course.labs() : std::vector<Lab>{course.lab(lab)},
                                           course.labs(), watch_options);
    }
    if (reset.parsed()) return launchlab::cli::command_reset(ctx, course.lab(lab), reset_yes);
    if (hint.parsed()) return launchlab::cli::command_hint(ctx, course.lab(lab), all_hints);
    if (grade.parsed()) return command_grade(ctx, grade_arguments);
    if (grade_class.parsed()) {
      const auto named = std::find(argv + 1, argv + argc, std::string_view("grade-class"));
      return command_grade_class(ctx, std::vector<std::string>(named + 1, argv + argc));
    }
    if (doctor.parsed()) {
      return launchlab::cli::command_doctor(ctx.root, ctx.build, LAUNCHLAB_CUDA_BIN_DIR,
                                            std::string(LAUNCHLAB_CUDA_ARCHITECTURES) + " (test, watch); " +
                                                LAUNCHLAB_GRADE_CUDA_ARCHITECTURES + " (grade)");
    }
    if (export_student.parsed()) {
      return launchlab::cli::command_export_student(ctx.root, ctx.build, LAUNCHLAB_CUDA_ARCHITECTURES, export_student_arguments);
    }
    if (docs.parsed()) return command_docs(ctx, docs_language);
    if (check.parsed()) return command_check(ctx);
    if (lint.parsed()) {
      lint_scope.labs_checked = !lint_course_only;
      if (!lint_scope.labs.empty()) lint_scope.course_as_a_whole = false;
      return command_lint(ctx, lint_scope);
    }
    if (inspect.parsed()) return command_inspect(ctx, inspect.remaining());
  } catch (const std::exception& error) {
    std::cerr << "launchlab " << app.get_subcommands().front()->get_name() << ": " << error.what() << "\n";
    return 2;
  }
  return 2;
}
