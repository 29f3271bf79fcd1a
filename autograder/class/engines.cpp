// grade-class: a class's submissions, each graded by `launchlab grade` in a
// process of its own, N at a time on this host (--engine local) or as a Slurm
// job array (--engine slurm); then the gradebook and its summary.
//
// OUT/.launchlab/plan.json holds what a run decided (who is graded, with
// which seed and options); the Slurm jobs read it back (--task, --collect),
// so both engines grade a student and write the gradebook with the same code.
// OUT/<student>/ holds results.json, grading.json (how and when it was
// graded) and grade.log (the grader's progress, timed).
#include "launchlab/class/grade_class.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "launchlab/class/gradebook.h"
#include "launchlab/class/history.h"
#include "launchlab/class/reports.h"
#include "launchlab/class/roster.h"
#include "launchlab/grader/course.h"
#include "launchlab/grader/gpu_turns.h"
#include "launchlab/grader/grading.h"
#include "launchlab/grader/process.h"
#include "launchlab/grader/sandbox.h"
#include "launchlab/grader/stages.h"

namespace launchlab::classroom {
namespace fs = std::filesystem;
using nlohmann::json;
using grader::RunLimits;
using grader::RunOutcome;
using grader::run_limited;
using grader::write_file_atomically;

namespace {

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  std::ostringstream text;
  text << std::put_time(&parts, "%Y-%m-%dT%H:%M:%SZ");
  return text.str();
}

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

fs::path this_program() {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot find the grade-class program itself (/proc/self/exe)");
  return self;
}

/// The launchlab program as it was when this run began, for the gradings on
/// this host: a descriptor kept open on it (close-on-exec, so no grading
/// inherits it) still names the same file after a rebuild has put a new one
/// in its place, and /proc/self/fd gives it a path each grading can run.
fs::path launchlab_program_of_this_run(const fs::path& program) {
  static const int held = open(program.c_str(), O_RDONLY | O_CLOEXEC);
  if (held < 0) throw std::runtime_error("cannot open the launchlab program " + program.string());
  return fs::path("/proc/self/fd") / std::to_string(held);
}

/// Set by SIGINT or SIGTERM (Ctrl-C, scancel, Slurm's time limit): the
/// gradings under way are stopped and no other starts.
std::atomic<bool> stopping{false};

void stop_on_signal(int) { stopping = true; }

void stop_on_interrupt() {
  struct sigaction action {};
  action.sa_handler = stop_on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // Progress piped into `head` must not end the gradings behind it.
  signal(SIGPIPE, SIG_IGN);
}

// ------------------------------------------------------------ the plan

/// What one run decided; written to OUT/.launchlab/plan.json.
struct Plan {
  std::string run;                     ///< this run's name, in each grading.json it makes
  fs::path root, build, submissions, out;
  fs::path cli;                        ///< the launchlab program, whose `grade` grades each student
  fs::path grade_class_program;        ///< what the Slurm jobs run
  std::string engine;
  std::vector<std::string> labs;       ///< empty: every lab
  std::vector<std::string> grade_args; ///< passed to every grading
  std::string settings;                ///< what a grading's result depends on besides the files
  int timeout_seconds = 3600;
  bool keep_work = false;
  fs::path class_file;                 ///< empty: none
  bool similarity = false;
  int similarity_threshold_percent = 50;
  struct Task {
    std::string student;
    fs::path folder;
    std::optional<std::uint64_t> seed;
    std::string seed_derivation = "none";
  };
  std::vector<Task> tasks;
};

fs::path state_dir(const fs::path& out) { return out / ".launchlab"; }

json to_json(const Plan& plan) {
  json tasks = json::array();
  for (const auto& task : plan.tasks) {
    tasks.push_back({{"student", task.student},
                     {"folder", task.folder.string()},
                     {"seed", task.seed ? json(std::to_string(*task.seed)) : json()},
                     {"seed_derivation", task.seed_derivation}});
  }
  return {{"run", plan.run},         {"root", plan.root.string()},
          {"build", plan.build.string()}, {"cli", plan.cli.string()},
          {"grade_class_program", plan.grade_class_program.string()},
          {"submissions", plan.submissions.string()}, {"out", plan.out.string()},
          {"engine", plan.engine},   {"labs", plan.labs},
          {"grade_args", plan.grade_args}, {"settings", plan.settings},
          {"timeout_seconds", plan.timeout_seconds}, {"keep_work", plan.keep_work},
          {"class_file", plan.class_file.string()}, {"similarity", plan.similarity},
          {"similarity_threshold_percent", plan.similarity_threshold_percent},
          {"tasks", tasks}};
}

Plan plan_from_json(const json& saved) {
  Plan plan;
  plan.run = saved.at("run").get<std::string>();
  plan.root = saved.at("root").get<std::string>();
  plan.build = saved.at("build").get<std::string>();
  plan.cli = saved.at("cli").get<std::string>();
  plan.grade_class_program = saved.at("grade_class_program").get<std::string>();
  plan.submissions = saved.at("submissions").get<std::string>();
  plan.out = saved.at("out").get<std::string>();
  plan.engine = saved.at("engine").get<std::string>();
  plan.labs = saved.at("labs").get<std::vector<std::string>>();
  plan.grade_args = saved.at("grade_args").get<std::vector<std::string>>();
  plan.settings = saved.at("settings").get<std::string>();
  plan.timeout_seconds = saved.at("timeout_seconds").get<int>();
  plan.keep_work = saved.at("keep_work").get<bool>();
  plan.class_file = saved.value("class_file", "");
  plan.similarity = saved.value("similarity", false);
  plan.similarity_threshold_percent = saved.value("similarity_threshold_percent", 50);
  for (const auto& task : saved.at("tasks")) {
    Plan::Task entry{task.at("student").get<std::string>(), task.at("folder").get<std::string>(), std::nullopt,
                     task.at("seed_derivation").get<std::string>()};
    if (task.at("seed").is_string()) entry.seed = std::stoull(task.at("seed").get<std::string>());
    plan.tasks.push_back(std::move(entry));
  }
  return plan;
}

void save_plan(const Plan& plan) {
  fs::create_directories(state_dir(plan.out));
  fs::permissions(state_dir(plan.out), fs::perms::owner_all);
  // It holds every student's seed: the instructor's alone.
  write_file_atomically(state_dir(plan.out) / "plan.json", to_json(plan).dump(2) + "\n");
  fs::permissions(state_dir(plan.out) / "plan.json", fs::perms::owner_read | fs::perms::owner_write);
}

Plan load_plan(const fs::path& out) {
  auto saved = read_json(state_dir(out) / "plan.json");
  if (!saved) throw std::runtime_error("no readable " + (state_dir(out) / "plan.json").string());
  return plan_from_json(*saved);
}

// ------------------------------------------------------------ one grading

struct GradingOutcome {
  bool graded = false;   ///< a results.json was written
  std::string line;      ///< what the progress line says
  double seconds = 0;
};

/// The grader's output as it comes, each line led by the seconds since the
/// grading began, written to a file that can be followed while it grows.
class TimedLog {
 public:
  explicit TimedLog(const fs::path& path) : out_(path, std::ios::trunc) {}

  void add(std::string_view text, double seconds) {
    if (text.empty()) return;
    for (char c : text) {
      if (at_line_start_) {
        out_ << std::fixed << std::setprecision(2) << std::setw(8) << seconds << "  ";
        at_line_start_ = false;
      }
      out_ << c;
      if (c == '\n') at_line_start_ = true;
    }
    out_.flush();
  }

 private:
  std::ofstream out_;
  bool at_line_start_ = true;
};

/// The dedicated sandbox users a grading has to itself, while it holds this.
struct SandboxUserTurn {
  std::string users;  ///< comma-separated, as LAUNCHLAB_SANDBOX_USER takes them
  std::vector<std::unique_ptr<grader::FileLock>> locks;
};

/// The dedicated users the grader would run submissions as here (sandbox.h):
/// none where it uses none (the grading itself says why in its results.json).
std::vector<grader::SandboxUser> sandbox_pool() {
  try {
    const grader::Sandbox sandbox = grader::choose_sandbox();
    if (sandbox.uses_user()) return sandbox.users;
  } catch (const std::exception&) {
  }
  return {};
}

/// Up to `share` users of the pool for this grading alone (at least one):
/// the sweep that ends a run's processes ends everything its user runs, so
/// two gradings on one host (or one node) must not share one, and a grading
/// runs as many programs at once as it has users. A lock file per user in
/// the grader's lock folder says which are taken; with all of them taken,
/// this waits. Nothing without a pool.
std::optional<SandboxUserTurn> take_sandbox_users(const std::vector<grader::SandboxUser>& pool, std::size_t share) {
  if (pool.empty()) return std::nullopt;
  while (!stopping) {
    SandboxUserTurn turn;
    for (const auto& user : pool) {
      if (turn.locks.size() >= std::max<std::size_t>(1, share)) break;
      auto lock = std::make_unique<grader::FileLock>(
          grader::grader_lock_folder() / ("grading-sandbox-user-" + user.name + ".lock"), false);
      if (!lock->held()) continue;
      turn.users += (turn.users.empty() ? "" : ",") + user.name;
      turn.locks.push_back(std::move(lock));
    }
    if (!turn.locks.empty()) return turn;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return std::nullopt;
}

/// The limits of one `launchlab grade` of the plan.
RunLimits grade_limits(const Plan& plan) {
  RunLimits limits;
  limits.timeout = std::chrono::seconds(plan.timeout_seconds);
  limits.output_limit = 256u << 20;
  limits.output_kept = 1u << 20;
  return limits;
}

/// Runs `launchlab grade ARGUMENTS` with the plan's labs, options and
/// environment (and `environment` besides), under grade_limits(), its output
/// kept in log_file with the time of each line.
RunOutcome run_launchlab_grade(const Plan& plan, const std::vector<std::string>& arguments,
                               const std::vector<std::string>& environment, const fs::path& log_file) {
  // Here the gradings run the launchlab program of the run's start, even if
  // it is rebuilt meanwhile; a Slurm job names it by its path.
  const bool on_slurm = plan.engine == "slurm";
  std::vector<std::string> argv = {(on_slurm ? plan.cli : launchlab_program_of_this_run(plan.cli)).string(), "grade"};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  if (!plan.labs.empty()) {
    std::string labs;
    for (const auto& slug : plan.labs) labs += (labs.empty() ? "" : ",") + slug;
    argv.insert(argv.end(), {"--labs", labs});
  }
  argv.insert(argv.end(), plan.grade_args.begin(), plan.grade_args.end());

  std::vector<std::string> variables = {"LAUNCHLAB_ROOT=" + plan.root.string(),
                                        "LAUNCHLAB_BUILD_DIR=" + plan.build.string()};
  if (!on_slurm) {
    // Gradings side by side on this host take turns on the GPU (a grading
    // holds this lock while any of its runs is there, gpu_turns.h); Slurm's
    // --gres gives each task a GPU of its own instead.
    const char* lock = std::getenv("LAUNCHLAB_GPU_LOCK");
    variables.push_back("LAUNCHLAB_GPU_LOCK=" +
                        (lock && *lock ? std::string(lock) : (grader::grader_lock_folder() / "gpu.lock").string()));
  }
  variables.insert(variables.end(), environment.begin(), environment.end());

  TimedLog log(log_file);
  grader::RunWatch watch = [&](std::string_view fresh, double seconds) -> std::optional<std::string> {
    log.add(fresh, seconds);
    if (stopping) return std::string("was stopped (grade-class was interrupted)");
    return std::nullopt;
  };
  return run_limited(argv, plan.out, variables, grade_limits(plan), watch);
}

/// `launchlab grade --prepare` for the plan's labs and options, before its
/// gradings: the trusted part built and the reference's transcripts kept, so
/// that the gradings side by side after it build and run the submissions'
/// parts only. Its output goes to OUT/.launchlab/prepare.log; a failure is
/// said and the gradings go on (each says what of the course it could not
/// grade). Returns whether it prepared.
bool prepare_for_plan(const Plan& plan) {
  const fs::path work = fs::temp_directory_path() / ("launchlab-prepare-" + std::to_string(getpid()));
  const fs::path log_file = state_dir(plan.out) / "prepare.log";
  std::cout << "preparing the course: its trusted part and the reference's transcripts, once for every grading"
            << std::endl;
  const RunOutcome outcome = run_launchlab_grade(plan, {"--prepare", "--work", work.string()}, {}, log_file);
  std::error_code ignored;
  fs::remove_all(work, ignored);
  if (outcome.exited_cleanly()) {
    std::cout << "prepared in " << std::fixed << std::setprecision(1) << outcome.seconds << " s" << std::endl;
  } else {
    std::cout << "preparing the course " << outcome.describe(grade_limits(plan)) << " (" << log_file.string()
              << " says why); the gradings go on and say what they could not grade" << std::endl;
  }
  return outcome.exited_cleanly();
}

/// Grades one task of the plan, with up to `users_share` users of the
/// sandbox pool.
GradingOutcome grade_one(const Plan& plan, const Plan::Task& task, const std::vector<grader::SandboxUser>& pool,
                         std::size_t users_share) {
  const fs::path dir = plan.out / task.student;
  fs::create_directories(dir);
  const fs::path results = dir / "results.json";
  std::error_code ignored;
  keep_earlier_results(dir);  // what is there after this grading is this grading's; a regrade keeps the earlier
  // The work folder is the host's (the node's) own, in its temporary folder,
  // which a dedicated sandbox user can reach (OUT may lie below folders it
  // cannot pass through).
  const fs::path work = fs::temp_directory_path() / ("launchlab-grade-" + task.student + "-" + std::to_string(getpid()));
  std::vector<std::string> arguments = {"--submission", task.folder.string(), "--work", work.string(),
                                        "--json", results.string()};
  if (task.seed) arguments.insert(arguments.end(), {"--seed", std::to_string(*task.seed)});

  std::vector<std::string> environment;
  std::optional<SandboxUserTurn> user_turn = take_sandbox_users(pool, users_share);
  if (user_turn) environment.push_back("LAUNCHLAB_SANDBOX_USER=" + user_turn->users);

  const std::string started = utc_now();
  RunOutcome outcome = run_launchlab_grade(plan, arguments, environment, dir / "grade.log");
  if (!plan.keep_work) fs::remove_all(work, ignored);

  GradingOutcome graded;
  graded.seconds = outcome.seconds;
  auto written = read_json(results);
  graded.graded = written.has_value();
  std::string why;
  if (graded.graded) {
    GradebookRow row = row_from_results(*written);
    std::ostringstream line;
    line << row.total << "/" << row.graded_max << " points";
    if (row.not_graded) line << " (" << row.not_graded << " not graded here)";
    for (const auto& flag : row.flags) line << " [" << flag << "]";
    graded.line = line.str();
  } else {
    why = "the grading " + outcome.describe(grade_limits(plan)) + " and left no results.json (" + (dir / "grade.log").string() + ")";
    graded.line = "FAILED: " + why;
  }
  json record = {{"run", plan.run},
                 {"student", task.student},
                 {"submission", task.folder.string()},
                 {"settings", plan.settings},
                 {"seed", task.seed_derivation},
                 {"engine", plan.engine},
                 {"host", host_name()},
                 {"started", started},
                 {"seconds", outcome.seconds},
                 {"status", graded.graded ? "graded" : "failed"},
                 {"work", plan.keep_work ? json(work.string()) : json()},
                 {"why", why}};
  if (outcome.exit_code) record["exit_status"] = *outcome.exit_code;
  write_file_atomically(dir / "grading.json", record.dump(2) + "\n");
  return graded;
}

// ------------------------------------------------------------ the gradebook

std::vector<ClassSubmission> roster_of(const fs::path& submissions, const fs::path& out) {
  std::vector<ClassSubmission> roster = find_class_submissions(submissions);
  std::error_code error;
  std::erase_if(roster, [&](const ClassSubmission& submission) { return fs::equivalent(submission.folder, out, error); });
  return roster;
}

std::vector<std::string> gradebook_labs(const Plan& plan) {
  if (!plan.labs.empty()) return plan.labs;
  std::vector<std::string> slugs;
  for (const auto& lab : grader::load_course(plan.root)) slugs.push_back(lab.slug);
  return slugs;
}

/// Writes the gradebook, the summary and the histograms; returns the rows.
std::vector<GradebookRow> collect(const Plan& plan) {
  ClassReportSettings settings{plan.root, plan.out, gradebook_labs(plan), std::nullopt, plan.similarity,
                               plan.similarity_threshold_percent};
  if (!plan.class_file.empty()) settings.class_file = plan.class_file;
  std::vector<GradebookRow> rows = write_class_reports(settings, roster_of(plan.submissions, plan.out));

  // Debian's python3 with its matplotlib; without them the rest stands.
  RunLimits limits;
  limits.timeout = std::chrono::minutes(5);
  RunOutcome drawn = run_limited({"/usr/bin/python3", (plan.root / "autograder" / "class" / "histograms.py").string(),
                                  (plan.out / "summary.json").string(), (plan.out / "histograms.png").string()},
                                 plan.out, {"MPLBACKEND=Agg"}, limits);
  if (!drawn.exited_cleanly()) {
    std::cerr << "launchlab grade-class: no histograms (" << drawn.describe(limits) << "):\n" << drawn.output;
  }
  return rows;
}

void print_collected(const Plan& plan, const std::vector<GradebookRow>& rows) {
  int flagged = 0;
  for (const auto& row : rows) flagged += row.flags.empty() ? 0 : 1;
  std::cout << "gradebook: " << (plan.out / "gradebook.csv").string() << " (" << rows.size() << " students, " << flagged
            << " flagged)\nsummary:   " << (plan.out / "summary.md").string() << "\n";
  for (const char* report : {"histograms.png", "leaderboard.png", "canvas.csv", "gradescope_scores.csv"}) {
    if (fs::exists(plan.out / report)) std::cout << "           " << (plan.out / report).string() << "\n";
  }
}

// ------------------------------------------------------------ choosing whom to grade

std::string secret_of(const GradeClassArguments& args) {
  return args.seed_secret_file.empty() ? args.course_secret : read_course_secret(args.seed_secret_file);
}

/// Why a student is graded this run, or nothing when their results stand.
std::optional<std::string> reason_to_grade(const Plan& plan, const ClassSubmission& submission, const std::string& seed,
                                           const GradeClassArguments& args) {
  const fs::path dir = plan.out / submission.student;
  if (std::find(args.regrade.begin(), args.regrade.end(), submission.student) != args.regrade.end()) return "asked";
  if (!fs::exists(dir / "results.json")) return "not graded yet";
  auto record = read_json(dir / "grading.json");
  if (!record || record->value("settings", "") != plan.settings || record->value("seed", "") != seed) {
    return "graded from another course commit, or with other labs, options or seed";
  }
  if (newest_change(submission.folder) >= modified_at(dir / "results.json")) return "files changed";
  if (args.regrade_failed && !gradebook_row(plan.out, submission).flags.empty()) return "flagged";
  return std::nullopt;
}

/// The revision of the committed course that `launchlab grade` grades
/// against: a result of another revision is not up to date.
std::string course_revision(const fs::path& root) {
  if (fs::exists(root / ".git")) {
    RunLimits limits;
    limits.timeout = std::chrono::minutes(1);
    RunOutcome outcome = run_limited({"git", "-C", root.string(), "rev-parse", "HEAD"}, {}, {}, limits);
    std::string revision = outcome.exited_cleanly() ? outcome.output : "";
    revision.erase(std::remove_if(revision.begin(), revision.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
                   revision.end());
    return revision.empty() ? "unknown" : revision;
  }
  std::ifstream release(root / ".launchlab-release");
  std::string revision;
  std::getline(release, revision);
  return revision.empty() ? "unknown" : revision;
}

Plan make_plan(const fs::path& root, const fs::path& build, const fs::path& launchlab_program, const GradeClassArguments& args,
               const std::vector<ClassSubmission>& roster, std::size_t& up_to_date) {
  Plan plan;
  plan.run = utc_now() + "-" + std::to_string(getpid());
  plan.root = root;
  plan.build = build;
  plan.cli = launchlab_program;
  plan.grade_class_program = this_program();
  plan.submissions = fs::absolute(args.submissions);
  plan.out = fs::absolute(args.out);
  plan.engine = args.engine;
  plan.labs = args.labs;
  if (!args.private_tests.empty()) plan.grade_args.insert(plan.grade_args.end(), {"--private-tests", fs::absolute(args.private_tests).string()});
  plan.grade_args.insert(plan.grade_args.end(), {"--private-visibility", args.private_visibility});
  if (args.test_timeout_seconds > 0) plan.grade_args.insert(plan.grade_args.end(), {"--test-timeout", std::to_string(args.test_timeout_seconds)});
  plan.settings = "course " + course_revision(root) + " labs";
  for (const auto& slug : plan.labs) plan.settings += " " + slug;
  for (const auto& arg : plan.grade_args) plan.settings += " " + arg;
  plan.timeout_seconds = args.grading_timeout_seconds;
  plan.keep_work = args.keep_work;
  if (!args.class_file.empty()) plan.class_file = fs::absolute(args.class_file);
  plan.similarity = args.similarity;
  plan.similarity_threshold_percent = args.similarity_threshold_percent;

  for (const auto& student : args.regrade) {
    if (std::none_of(roster.begin(), roster.end(), [&](const ClassSubmission& s) { return s.student == student; })) {
      throw std::runtime_error("--regrade names '" + student + "', who has no submission in " + args.submissions);
    }
  }
  const std::string secret = secret_of(args);
  const std::vector<grader::Lab> graded_labs =
      secret.empty() ? std::vector<grader::Lab>{} : grader::labs_to_grade(grader::load_course(root), plan.labs);
  up_to_date = 0;
  for (const auto& submission : roster) {
    Plan::Task task{submission.student, submission.folder, std::nullopt, "none"};
    if (!secret.empty()) {
      StudentSeed seed = derive_submission_seed(secret, submission.student, submission.folder, graded_labs);
      task.seed = seed.value;
      task.seed_derivation = seed.derivation;
    }
    if (reason_to_grade(plan, submission, task.seed_derivation, args)) {
      plan.tasks.push_back(std::move(task));
    } else {
      ++up_to_date;
    }
  }
  return plan;
}

// ------------------------------------------------------------ engines

int run_local(const Plan& plan, int jobs) {
  // The pool of sandbox users shared out among the gradings side by side.
  const std::vector<grader::SandboxUser> pool = sandbox_pool();
  const std::size_t users_share = std::max<std::size_t>(1, pool.size() / static_cast<std::size_t>(std::max(1, jobs)));
  std::atomic<std::size_t> next{0};
  std::mutex printing;
  std::vector<std::string> failed;
  std::size_t done = 0;
  auto grade_next = [&] {
    std::size_t index;
    if (stopping || (index = next++) >= plan.tasks.size()) return false;
    const auto& task = plan.tasks[index];
    GradingOutcome outcome;
    try {
      outcome = grade_one(plan, task, pool, users_share);
    } catch (const std::exception& error) {
      outcome.line = std::string("FAILED: ") + error.what();
    }
    std::lock_guard<std::mutex> hold(printing);
    ++done;
    std::cout << "[" << std::setw(4) << done << "/" << plan.tasks.size() << "] " << std::left << std::setw(24)
              << task.student << std::right << " " << outcome.line << "  (" << std::fixed << std::setprecision(1)
              << outcome.seconds << " s)" << std::endl;
    if (!outcome.graded) failed.push_back(task.student);
    return true;
  };
  // Prepared first, alone: the gradings side by side read the trusted part
  // and the reference's transcripts instead of each making them at once.
  if (!plan.tasks.empty()) prepare_for_plan(plan);
  auto worker = [&] {
    while (grade_next()) {
    }
  };
  std::vector<std::thread> workers;
  for (int i = 0; i < jobs; ++i) workers.emplace_back(worker);
  for (auto& thread : workers) thread.join();
  print_collected(plan, collect(plan));
  if (stopping) {
    std::cout << "Interrupted after " << done << " of " << plan.tasks.size()
              << " gradings; the same command goes on from there.\n";
    return 130;
  }
  if (!failed.empty()) {
    std::cout << failed.size() << " grading(s) failed:";
    for (const auto& student : failed) std::cout << " " << student;
    std::cout << "\nRun the same command again to grade them again (OUT/<student>/grade.log says what happened).\n";
  }
  return failed.empty() ? 0 : 1;
}

/// Runs a Slurm command and returns its output; throws with what it said.
std::string slurm(const std::vector<std::string>& argv) {
  RunLimits limits;
  limits.timeout = std::chrono::minutes(2);
  RunOutcome outcome = run_limited(argv, {}, {}, limits);
  if (!outcome.exited_cleanly()) {
    throw std::runtime_error(argv.front() + " " + outcome.describe(limits) + ": " + outcome.output);
  }
  return outcome.output;
}

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void write_job_script(const fs::path& path, const std::string& what, const Plan& plan, const std::string& mode) {
  std::ostringstream script;
  script << "#!/bin/bash\n# " << what << "; written by launchlab grade-class.\n"
         << "exec env LAUNCHLAB_ROOT=" << quoted(plan.root.string()) << " LAUNCHLAB_BUILD_DIR=" << quoted(plan.build.string())
         << " " << quoted(plan.grade_class_program.string()) << " --out " << quoted(plan.out.string()) << " " << mode << "\n";
  write_file_atomically(path, script.str());
  fs::permissions(path, fs::perms::owner_all);
}

std::string job_id(const std::string& parsable) {
  std::string id = parsable.substr(0, parsable.find_first_of(";\n"));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    throw std::runtime_error("sbatch answered '" + parsable + "', not a job id");
  }
  return id;
}

bool plan_needs_gpu(const Plan& plan) {
  for (const auto& lab : grader::load_course(plan.root)) {
    const bool graded = plan.labs.empty() || std::find(plan.labs.begin(), plan.labs.end(), lab.slug) != plan.labs.end();
    if (graded && lab.gpu_need() != course::GpuNeed::none) return true;
  }
  return false;
}

int run_slurm(const Plan& plan, const GradeClassArguments& args) {
  const fs::path state = state_dir(plan.out);
  const fs::path logs = state / "logs";
  fs::create_directories(logs);
  try {
    slurm({"sbatch", "--version"});
  } catch (const std::exception&) {
    throw std::runtime_error("sbatch cannot be run here: --engine slurm needs Slurm's commands on PATH");
  }
  write_job_script(state / "prepare.sh", "The course made ready for the array: its trusted part and the reference's transcripts",
                   plan, "--prepare");
  write_job_script(state / "grade-task.sh", "One student's grading, a task of the array", plan, "--task \"$SLURM_ARRAY_TASK_ID\"");
  write_job_script(state / "collect.sh", "The gradebook, once every task has ended", plan, "--collect");
  const auto submitted = fs::file_time_type::clock::now();

  std::vector<std::string> waited_for;
  std::string array;
  if (!plan.tasks.empty()) {
    // A job of a grading's size: its cores, its time, a GPU where a lab needs one.
    auto grading_job = [&](const std::string& name, const std::vector<std::string>& options, const fs::path& script) {
      std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=" + name,
                                       "--cpus-per-task=" + std::to_string(args.cpus_per_task),
                                       "--time=" + std::to_string(plan.timeout_seconds / 60 + 10)};
      argv.insert(argv.end(), options.begin(), options.end());
      if (plan_needs_gpu(plan)) argv.push_back("--gres=gpu:1");
      argv.insert(argv.end(), args.sbatch_args.begin(), args.sbatch_args.end());
      argv.push_back(script.string());
      return job_id(slurm(argv));
    };
    // One job makes the course ready; the array starts once it has ended,
    // whatever its end (afterany): were it to fail, each grading says what
    // of the course it could not grade, rather than an array that never runs.
    const std::string prepared =
        grading_job("launchlab-prepare", {"--output=" + (logs / "prepare-%j.out").string()}, state / "prepare.sh");
    waited_for.push_back(prepared);
    std::cout << "submitted job " << prepared << " to prepare the course\n";
    array = grading_job("launchlab-grade",
                        {"--dependency=afterany:" + prepared,
                         "--array=0-" + std::to_string(plan.tasks.size() - 1) +
                             (args.jobs > 0 ? "%" + std::to_string(args.jobs) : ""),
                         "--output=" + (logs / "grade-%A_%a.out").string()},
                        state / "grade-task.sh");
    waited_for.push_back(array);
    std::cout << "submitted job array " << array << ": " << plan.tasks.size() << " gradings"
              << (plan_needs_gpu(plan) ? ", each with a GPU (--gres=gpu:1)" : "") << "\n";
  }
  std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=launchlab-collect",
                                   "--output=" + (logs / "collect-%j.out").string(), "--cpus-per-task=1", "--time=30"};
  if (!array.empty()) argv.push_back("--dependency=afterany:" + array);
  argv.insert(argv.end(), args.sbatch_args.begin(), args.sbatch_args.end());
  argv.push_back((state / "collect.sh").string());
  const std::string collector = job_id(slurm(argv));
  waited_for.push_back(collector);
  std::cout << "submitted collector " << collector << (array.empty() ? "" : " (after the array ends)") << "\n";
  std::string jobs;
  for (const auto& id : waited_for) jobs += (jobs.empty() ? "" : ",") + id;
  if (args.wait_seconds == 0) {
    std::cout << "Not waiting: `squeue -j " << jobs << "` follows them; the gradebook lands in "
              << (plan.out / "gradebook.csv").string() << ".\n";
    return 0;
  }

  // Wait, bounded: squeue lists the jobs until they have all ended.
  const auto start = std::chrono::steady_clock::now();
  auto waited = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  int pause_ms = 500;
  int squeue_failures = 0;
  double reported = 0;
  while (true) {
    RunLimits limits;
    limits.timeout = std::chrono::minutes(1);
    RunOutcome listed = run_limited({"squeue", "--noheader", "--jobs=" + jobs, "--format=%i %T"}, {}, {}, limits);
    bool running;
    if (listed.exited_cleanly()) {
      squeue_failures = 0;
      running = listed.output.find_first_not_of(" \n") != std::string::npos;
    } else if (listed.output.find("Invalid job id") != std::string::npos) {
      running = false;  // every job has ended and left the controller's memory
    } else if (++squeue_failures > 10) {
      throw std::runtime_error("squeue keeps failing: " + listed.output);
    } else {
      running = true;
    }
    if (!running) break;
    if (stopping) {
      std::cout << "Stopped waiting; the jobs go on (`squeue -j " << jobs << "` follows them, `scancel " << jobs
                << "` ends them).\n";
      return 130;
    }
    if (waited() > args.wait_seconds) {
      std::cout << "Stopped waiting after " << args.wait_seconds << " s; the jobs go on (`squeue -j " << jobs
                << "`). Running the same command again later writes the gradebook and grades what is left.\n";
      return 1;
    }
    if (waited() - reported > 60) {
      reported = waited();
      std::cout << "waiting for the jobs (" << static_cast<int>(reported) << " s)" << std::endl;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    // One squeue every 5 s at most: light on a scheduler, and a job's end is seen soon.
    pause_ms = std::min(pause_ms * 2, 5000);
  }

  std::vector<std::string> failed;
  for (std::size_t index = 0; index < plan.tasks.size(); ++index) {
    const auto& task = plan.tasks[index];
    auto record = read_json(plan.out / task.student / "grading.json");
    if (record && record->value("run", "") == plan.run && record->value("status", "") == "graded") continue;
    std::string why = record && record->value("run", "") == plan.run ? record->value("why", "")
                                                                      : "the task ended before its grading did";
    failed.push_back(task.student + ": " + why + " (log: " +
                     (logs / ("grade-" + array + "_" + std::to_string(index) + ".out")).string() + ")");
  }
  const bool collected = fs::exists(plan.out / "gradebook.csv") && fs::last_write_time(plan.out / "gradebook.csv") >= submitted;
  std::vector<GradebookRow> rows;
  if (collected) {
    for (const auto& submission : roster_of(plan.submissions, plan.out)) rows.push_back(gradebook_row(plan.out, submission));
  } else {
    std::cout << "The collector job left no gradebook (" << (logs / ("collect-" + collector + ".out")).string()
              << "); writing it here.\n";
    rows = collect(plan);
  }
  std::cout << plan.tasks.size() - failed.size() << " of " << plan.tasks.size() << " gradings done through Slurm\n";
  print_collected(plan, rows);
  if (!failed.empty()) {
    std::cout << failed.size() << " task(s) failed:\n";
    for (const auto& line : failed) std::cout << "  " << line << "\n";
    std::cout << "Run the same command again (or with --regrade-failed) to grade them again.\n";
  }
  return failed.empty() ? 0 : 1;
}

}  // namespace

int grade_class(const fs::path& root, const fs::path& build, const fs::path& launchlab_program, const GradeClassArguments& args) {
  stop_on_interrupt();
  if (args.task >= 0 || args.collect || args.prepare) {
    // A job of a submitted run: what to do is in the plan.
    const Plan plan = load_plan(fs::absolute(args.out));
    if (args.prepare) return prepare_for_plan(plan) ? 0 : 1;
    if (args.collect) {
      print_collected(plan, collect(plan));
      return 0;
    }
    if (static_cast<std::size_t>(args.task) >= plan.tasks.size()) throw std::runtime_error("no task " + std::to_string(args.task));
    // A Slurm task has its node's cores that the job was given: one sandbox
    // user each, as far as the node's pool goes.
    GradingOutcome outcome =
        grade_one(plan, plan.tasks[static_cast<std::size_t>(args.task)], sandbox_pool(), grader::usable_cores().size());
    std::cout << plan.tasks[static_cast<std::size_t>(args.task)].student << ": " << outcome.line << "\n";
    return outcome.graded ? 0 : 1;
  }
  if (args.submissions.empty()) throw std::runtime_error("--submissions DIR is required");
  const fs::path out = fs::absolute(args.out);
  std::error_code error;
  if (fs::exists(out) && fs::equivalent(out, args.submissions, error)) {
    throw std::runtime_error("--out must not be the submissions folder itself");
  }
  fs::create_directories(out);
  const std::vector<ClassSubmission> roster = roster_of(fs::absolute(args.submissions), out);
  if (roster.empty()) throw std::runtime_error("no submission in " + args.submissions);

  std::size_t up_to_date = 0;
  const Plan plan = make_plan(root, build, launchlab_program, args, roster, up_to_date);
  save_plan(plan);
  const int jobs = args.jobs > 0 ? args.jobs : std::max(1u, std::thread::hardware_concurrency() / 4);
  std::cout << "grade-class: " << roster.size() << " submissions, " << plan.tasks.size() << " to grade"
            << (up_to_date ? ", " + std::to_string(up_to_date) + " up to date" : std::string());
  if (plan.engine == "local") std::cout << ", " << std::min<std::size_t>(jobs, std::max<std::size_t>(1, plan.tasks.size())) << " at a time";
  std::cout << std::endl;
  if (plan.engine == "slurm") return run_slurm(plan, args);
  return run_local(plan, jobs);
}

}  // namespace launchlab::classroom
