#include "learner.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "launchlab/cli/progress.h"
#include "launchlab/grader/expectations.h"
#include "launchlab/grader/heartbeat.h"
#include "launchlab/grader/process.h"
#include "launchlab/grader/stages.h"
#include "student_edition.h"

namespace launchlab::cli {
namespace fs = std::filesystem;
using namespace launchlab::grader;

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
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run_visible(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) line += (line.empty() ? "" : " ") + arg;
  std::cerr << "+ " << line << std::endl;
  return run_visible_quietly(argv);
}

namespace {

volatile std::sig_atomic_t build_interrupted = 0;

extern "C" void on_build_interrupted(int) { build_interrupted = 1; }

/// Hands Ctrl-C on to the process groups of this thread's children (the
/// build's, which run_limited made): ninja, interrupted, ends its own
/// compilers, each in a group of its own, which a kill of its group would
/// leave running.
void interrupt_children() {
  std::ifstream children("/proc/self/task/" + std::to_string(gettid()) + "/children");
  for (pid_t child; children >> child;) kill(-child, SIGINT);
}

}  // namespace

RunOutcome build_for_learner(const Context& ctx, const std::vector<std::string>& targets, const std::string& doing,
                             const std::string& first_time) {
  // A build that finds nothing to do says nothing; the first one says what it costs.
  if (!first_time.empty()) std::cerr << "launchlab: " << doing << " (the first time: " << first_time << ")" << std::endl;
  std::vector<std::string> command = {"cmake", "--build", ctx.build.string(), "--target"};
  command.insert(command.end(), targets.begin(), targets.end());
  RunLimits limits;
  limits.timeout = std::chrono::minutes(30);
  limits.output_limit = 64u << 20;
  // The build runs in a process group of its own, which Ctrl-C does not
  // reach: the interruption stops it here (compilers and all), and is then
  // handed on to whatever this process does on Ctrl-C.
  build_interrupted = 0;
  struct sigaction stop {}, previous_int {}, previous_term {};
  stop.sa_handler = on_build_interrupted;
  sigemptyset(&stop.sa_mask);
  sigaction(SIGINT, &stop, &previous_int);
  sigaction(SIGTERM, &stop, &previous_term);
  RunWatch heartbeat = first_time.empty() ? build_watch(std::cerr, doing) : heartbeat_watch(std::cerr, doing, true);
  std::optional<double> interrupted_at;
  RunOutcome built = run_limited(command, {}, {}, limits, [&](std::string_view output, double seconds) {
    heartbeat(output, seconds);
    if (build_interrupted && !interrupted_at) {
      interrupted_at = seconds;
      interrupt_children();
    }
    // A build that does not end soon after is ended.
    const bool overdue = interrupted_at && seconds - *interrupted_at > 10;
    return overdue ? std::optional<std::string>("interrupted") : std::nullopt;
  });
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
  if (build_interrupted) raise(SIGINT);
  return built;
}

fs::path progress_dir(const Context& ctx) { return progress_folder(ctx.root); }

void keep_progress(const Context& ctx, const std::function<void()>& write) {
  try {
    write();
  } catch (const std::exception& error) {
    std::cerr << "launchlab: your progress could not be kept in " << progress_dir(ctx).string() << ": " << error.what()
              << "\n";
  }
}

namespace {

/// The numbers of the lab's hints shown so far, those the lab still has.
std::set<int> hints_shown(const Context& ctx, const Lab& lab) {
  std::set<int> shown = read_progress(progress_dir(ctx), lab.slug).hints_shown;
  std::erase_if(shown, [&](int number) { return number > static_cast<int>(lab.hints.size()); });
  return shown;
}

/// The lowest-numbered hint not shown yet; nothing when all were.
std::optional<int> next_hint(const Context& ctx, const Lab& lab) {
  const std::set<int> shown = hints_shown(ctx, lab);
  for (int number = 1; number <= static_cast<int>(lab.hints.size()); ++number) {
    if (!shown.count(number)) return number;
  }
  return std::nullopt;
}

/// The language the learner reads the labs' prose in (course::course_language):
/// LAUNCHLAB_LANG, else the locale the way POSIX picks its messages' one
/// (LC_ALL, LC_MESSAGES, LANG: the first that is set and not empty).
std::string reader_language() {
  for (const char* variable : {"LAUNCHLAB_LANG", "LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* value = std::getenv(variable);
    if (value && *value) return course::course_language(value);
  }
  return "";
}

/// Shows hint `number` (from 1) of the lab in the reader's language, saying
/// which test it helps with when one is named.
void print_hint(std::ostream& out, const Lab& lab, int number, const std::string& for_test = {}) {
  out << "Hint " << number << " of " << lab.hints.size() << " for " << lab.slug
      << (for_test.empty() ? "" : " (it helps with " + for_test + ")") << ":\n  "
      << lab.text_in(reader_language()).hints[static_cast<std::size_t>(number - 1)] << "\n";
}

/// How many terminal columns a character takes: two for the wide ones of
/// East Asian scripts (Chinese titles among them), one for the rest.
int columns_of(char32_t character) {
  const bool wide = (character >= 0x1100 && character <= 0x115F) || (character >= 0x2E80 && character <= 0xA4CF) ||
                    (character >= 0xAC00 && character <= 0xD7A3) || (character >= 0xF900 && character <= 0xFAFF) ||
                    (character >= 0xFE30 && character <= 0xFE4F) || (character >= 0xFF00 && character <= 0xFF60) ||
                    (character >= 0xFFE0 && character <= 0xFFE6) || (character >= 0x20000 && character <= 0x3FFFD);
  return wide ? 2 : 1;
}

/// text cut to at most `columns` - 2 terminal columns, never inside a
/// character, and padded with spaces to `columns`: std::setw counts bytes,
/// which leaves a column of Portuguese or Chinese titles ragged.
std::string in_column(const std::string& text, int columns) {
  std::string kept;
  int used = 0;
  for (std::size_t at = 0; at < text.size();) {
    const auto lead = static_cast<unsigned char>(text[at]);
    const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    char32_t character = length == 1 ? lead : lead & (0x3F >> (length - 1));
    for (std::size_t i = 1; i < length && at + i < text.size(); ++i) {
      character = (character << 6) | (static_cast<unsigned char>(text[at + i]) & 0x3F);
    }
    const int width = columns_of(character);
    if (used + width > columns - 2) break;
    kept.append(text, at, length);
    used += width;
    at += length;
  }
  return kept + std::string(static_cast<std::size_t>(columns - used), ' ');
}

/// Remembers that hint `number` was shown: `launchlab hint` goes on with
/// the hints not shown yet.
void remember_hint(const Context& ctx, const Lab& lab, int number) {
  if (hints_shown(ctx, lab).count(number)) return;
  keep_progress(ctx, [&] { record_hint_shown(progress_dir(ctx), lab.slug, number); });
}

/// After a failing run: the hint the first failing test names (the latest
/// hint seen, or the first, when it names none), and where to find more.
void show_hint_after_failure(const Context& ctx, const Lab& lab, const std::string& failed_test, std::ostream& out) {
  if (lab.hints.empty()) return;
  auto test = std::find_if(lab.tests.begin(), lab.tests.end(), [&](const LabTest& t) { return t.name == failed_test; });
  if (test != lab.tests.end() && lab.hint_for(*test)) {
    print_hint(out, lab, test->hint, failed_test);
    remember_hint(ctx, lab, test->hint);
  } else {
    const std::set<int> shown = hints_shown(ctx, lab);
    const int number = shown.empty() ? 1 : *shown.rbegin();
    print_hint(out, lab, number);
    remember_hint(ctx, lab, number);
  }
  if (next_hint(ctx, lab)) {
    out << "(`launchlab hint " << lab.number() << "` shows the next one.)\n";
  }
}

/// Prints text indented, at most max_lines of it, saying how much was cut.
void print_message(std::ostream& out, const std::string& text, std::size_t max_lines, const std::string& more) {
  const std::string prefix = "         ";
  std::istringstream lines(text);
  std::string line;
  std::size_t shown = 0, cut = 0;
  while (std::getline(lines, line)) {
    if (shown < max_lines) {
      out << prefix << line << "\n";
      ++shown;
    } else {
      ++cut;
    }
  }
  if (cut > 0) out << prefix << "(" << cut << " more line" << (cut == 1 ? "" : "s") << " cut" << more << ")\n";
}

/// A crashed test's message with its program's last output starting where
/// the test's own output does (its `[ RUN ]` line), not with what the
/// program printed before it (GoogleTest's filter note, cut in the middle).
std::string from_the_tests_own_output(const std::string& message) {
  constexpr std::string_view kLastOutput = "Its last output:\n";
  const std::size_t output = message.find(kLastOutput);
  if (output == std::string::npos) return message;
  const std::size_t start = output + kLastOutput.size();
  const std::size_t run = message.rfind("[ RUN      ]");
  if (run != std::string::npos && run >= start) return message.substr(0, start) + message.substr(run);
  // No test started: drop only the filter note, the line every run begins with.
  std::istringstream lines(message.substr(start));
  std::string kept = message.substr(0, start);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("Google Test filter = ") == std::string::npos) kept += line + "\n";
  }
  return kept;
}

/// Whether a test's name is one that `--only` asked for: the whole name
/// (Suite.Test), or a suite and its tests (Suite.*).
bool asked_for(const std::string& name, const std::vector<std::string>& only) {
  if (only.empty()) return true;
  return std::any_of(only.begin(), only.end(), [&](const std::string& pattern) {
    if (pattern.size() > 2 && pattern.ends_with(".*")) return name.starts_with(pattern.substr(0, pattern.size() - 1));
    return name == pattern;
  });
}

}  // namespace

namespace {

/// The need of a test or sanitizer check (by its row's name) that this
/// machine does not meet; nothing when it can run here, or when the lab has
/// no such row.
std::optional<std::string> unmet_need_of(const Lab& lab, const std::string& name, const Capabilities& capabilities) {
  std::optional<LabTest> test;
  for (const auto& candidate : lab.tests) {
    if (candidate.name == name) test = candidate;
  }
  // A sanitizer check's row is its test's name and the tool.
  for (const auto& check : lab.sanitizer_checks()) {
    if (check.name() != name) continue;
    for (const auto& candidate : lab.tests) {
      if (candidate.name == check.test) test = candidate;
    }
    if (test) test->needs.push_back("compute-sanitizer");
  }
  return test ? capabilities.unmet_need(*test) : std::nullopt;
}

/// Each text once, in the order first met.
void add_once(std::vector<std::string>& texts, const std::string& text) {
  if (std::find(texts.begin(), texts.end(), text) == texts.end()) texts.push_back(text);
}

/// What the tests that could not run here lack, each said once: a machine
/// without a GPU and without an open-gpu-doc checkout is told both.
std::string lacking_here(const Lab& lab, const std::vector<TestResult>& results, const Capabilities& capabilities) {
  std::vector<std::string> lacks;
  for (const auto& result : results) {
    if (result.status == TestStatus::passed || result.status == TestStatus::failed) continue;
    const std::optional<std::string> need = unmet_need_of(lab, result.name, capabilities);
    add_once(lacks, need ? capabilities.what_lacks(*need) : "a reference run the course could judge here");
  }
  std::string text;
  for (const auto& what : lacks) text += (text.empty() ? "" : "; ") + what;
  return text;
}

/// A need as a score names it: a GPU is "a GPU", a tool its own name.
std::string need_in_a_word(const std::string& need) { return need == "gpu" ? "a GPU" : need; }

}  // namespace

LabScore score_of(const Lab& lab, const std::vector<TestResult>& results, const Capabilities& capabilities) {
  LabScore score;
  for (const auto& result : results) {
    score.points += result.points;
    if (result.status == TestStatus::passed || result.status == TestStatus::failed) {
      score.gradable += result.max_points;
      continue;
    }
    score.not_gradable += result.max_points;
    if (auto need = unmet_need_of(lab, result.name, capabilities)) add_once(score.needs, need_in_a_word(*need));
  }
  return score;
}

void record_grade(const Context& ctx, const std::vector<LabResult>& graded, const Capabilities& capabilities) {
  for (const auto& lab : graded) {
    keep_progress(ctx, [&] { record_run(progress_dir(ctx), lab.lab.slug, score_of(lab.lab, lab.tests, capabilities)); });
  }
}

int test_lab(const Context& ctx, Lab lab, const TestOptions& options, std::ostream& out) {
  std::erase_if(lab.tests, [&](const LabTest& test) { return !asked_for(test.name, options.only); });
  if (lab.tests.empty()) {
    out << lab.slug << " has no test named " << options.only.front() << "; `launchlab test " << lab.number()
        << "` lists them all.\n";
    return 2;
  }
  // A student edition has no solutions: its expectations stand in for the reference program.
  const std::optional<Expectations> edition = find_expectations(ctx.root);
  if (edition && options.solution) {
    out << "This is a student edition of the course: it has no solutions to run the tests on.\n";
    return 2;
  }
  std::string target = lab.test_binary_name() + (options.solution ? "_solution" : "");
  std::vector<std::string> targets = {target};
  if (!edition) targets.push_back(lab.reference_binary_name());
  const bool built_before = fs::exists(ctx.build / "tests" / target);
  if (!build_for_learner(ctx, targets, "building lab " + lab.number() + "'s tests",
                         built_before ? "" : "about 2 minutes on 2 cores").exited_cleanly()) {
    out << "\n" << lab.slug << " did not compile: the compiler's messages are above.\n";
    return 1;
  }
  Capabilities capabilities = detect_capabilities(LAUNCHLAB_CUDA_BIN_DIR);
  std::cerr << "Running " << lab.tests.size() << " tests ..." << std::endl;
  RunSettings settings;
  // The cached reference transcript is the whole lab's: a run of some tests only makes its own.
  if (options.only.empty()) settings.reference_cache = ctx.build / "run" / (lab.slug + ".reference-transcript");
  fs::create_directories(ctx.build / "run");
  if (edition) use_expectations(*edition, lab, capabilities, settings);
  auto results = run_lab_tests(lab, {ctx.build / "tests" / target, ctx.build / "tests" / lab.reference_binary_name()},
                               capabilities, ctx.build / "run" / target, settings);

  std::optional<std::string> first_failure;
  int failures = 0;
  out << "\n" << lab.slug << " — " << lab.text_in(reader_language()).title << (options.solution ? " (the solution)" : "") << "\n\n";
  const std::string verbose_command = "`launchlab test " + lab.number() + " --verbose`";
  for (const auto& result : results) {
    const bool failed = result.status == TestStatus::failed;
    const char* mark = result.status == TestStatus::passed ? "  PASS " : failed ? "  FAIL " : "  SKIP ";
    out << mark << std::left << std::setw(60) << result.name << std::right << std::setw(3) << result.points << "/"
        << result.max_points;
    // In a short report, a test that did not run says why in a word; only the
    // first failure speaks in full.
    const bool in_full = options.verbose || (failed && !first_failure);
    if (!in_full && !failed && result.status != TestStatus::passed) out << "  " << to_string(result.status);
    out << "\n";
    if (in_full && result.status != TestStatus::passed) {
      print_message(out, from_the_tests_own_output(result.message), options.verbose ? kVerboseMessageLines : kShortMessageLines,
                    options.verbose ? "" : "; " + verbose_command + " shows more");
    }
    if (failed) {
      ++failures;
      if (!first_failure) first_failure = result.name;
    }
  }
  const LabScore score = score_of(lab, results, capabilities);
  out << "\nScore: " << score.points << "/" << score.gradable;
  if (score.not_gradable) {
    out << " (" << score.not_gradable << " more points need what this machine lacks: "
        << lacking_here(lab, results, capabilities) << ")";
  }
  out << (options.only.empty() ? "" : " on the tests asked for") << "\n";
  if (!options.verbose && failures > 1) {
    out << failures - 1 << " more test" << (failures == 2 ? "" : "s") << " failed; " << verbose_command
        << " shows every message.\n";
  }
  out << "\n";

  if (!options.solution) {
    // Only a run of the whole lab is a score to keep.
    if (options.only.empty()) keep_progress(ctx, [&] { record_run(progress_dir(ctx), lab.slug, score); });
    if (first_failure) show_hint_after_failure(ctx, lab, *first_failure, out);
  }
  return first_failure ? 1 : 0;
}

std::string course_progress_bar(const Context& ctx, const std::vector<Lab>& labs, const Capabilities& capabilities) {
  int full = 0, best_points = 0, gradable_points = 0, total_points = 0;
  for (const auto& lab : labs) {
    total_points += lab.max_points();
    const LabProgress progress = read_progress(progress_dir(ctx), lab.slug);
    if (progress.best) {
      best_points += progress.best->points;
      gradable_points += progress.best->gradable;
      if (progress.best->gradable > 0 && progress.best->points == progress.best->gradable) ++full;
      continue;
    }
    // A lab never run: what of it this machine could grade.
    for (const auto& test : lab.tests) {
      if (!unmet_need_of(lab, test.name, capabilities)) gradable_points += test.points;
    }
    for (const auto& check : lab.sanitizer_checks()) {
      if (!unmet_need_of(lab, check.name(), capabilities)) gradable_points += check.points;
    }
  }
  constexpr int kWidth = 30;
  const int filled = gradable_points > 0 ? kWidth * best_points / gradable_points : 0;
  std::ostringstream bar;
  bar << "Course: [" << std::string(static_cast<std::size_t>(filled), '#')
      << std::string(static_cast<std::size_t>(kWidth - filled), '.') << "] " << full << "/" << labs.size()
      << " labs at full marks, " << best_points << "/" << gradable_points << " points graded here (each lab's best run)";
  if (total_points > gradable_points) {
    bar << "; " << total_points - gradable_points << " more need what this machine lacks";
  }
  return bar.str();
}

int command_list(const Context& ctx, const std::vector<Lab>& labs) {
  std::vector<std::pair<std::string, std::string>> runs;  // best and last, per lab
  std::size_t best_width = std::string("not tried yet").size();
  for (const auto& lab : labs) {
    const auto progress = read_progress(progress_dir(ctx), lab.slug);
    runs.emplace_back(progress.best ? describe(*progress.best) : "not tried yet",
                      progress.last ? describe(*progress.last) : "");
    best_width = std::max(best_width, runs.back().first.size());
  }
  // The best column as wide as its widest entry, so that last never runs into it.
  const int column = static_cast<int>(best_width) + 2;
  std::cout << std::left << std::setw(4) << "NN" << std::setw(24) << "lab" << std::setw(44) << "title" << std::setw(column)
            << "best" << "last\n";
  const std::string language = reader_language();
  for (std::size_t i = 0; i < labs.size(); ++i) {
    std::cout << std::left << std::setw(4) << labs[i].number() << std::setw(24) << labs[i].slug
              << in_column(labs[i].text_in(language).title, 44) << std::setw(column) << runs[i].first << runs[i].second
              << "\n";
  }
  std::cout << "\n" << course_progress_bar(ctx, labs, detect_capabilities(LAUNCHLAB_CUDA_BIN_DIR)) << "\n"
            << "\n`launchlab test NN` runs a lab's tests and `launchlab grade` every lab's (both are kept here); the "
               "chapter is chapters/<lab>/index.md (`launchlab docs` builds the site). Your progress is kept in "
            << progress_dir(ctx).string() << ".\n";
  return 0;
}

namespace {

/// The output of a git command in the course, or nothing when it fails.
std::optional<std::string> git_output(const Context& ctx, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git", "-C", ctx.root.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  RunLimits limits;
  limits.timeout = std::chrono::seconds(30);
  RunOutcome outcome = run_limited(argv, {}, {}, limits);
  if (!outcome.exited_cleanly()) return std::nullopt;
  return outcome.output;
}

/// The commit a clone of the course takes its starters from: the branch it
/// was cloned from, or its own last commit when it has none.
std::optional<std::string> course_starter_revision(const Context& ctx) {
  for (const char* upstream : {"@{upstream}", "refs/remotes/origin/HEAD"}) {
    if (auto name = git_output(ctx, {"rev-parse", "--verify", "--quiet", "--abbrev-ref", upstream})) {
      while (!name->empty() && std::isspace(static_cast<unsigned char>(name->back()))) name->pop_back();
      if (!name->empty()) return name;
    }
  }
  if (git_output(ctx, {"rev-parse", "--verify", "--quiet", "HEAD"})) return "HEAD";
  return std::nullopt;
}

}  // namespace

Starters find_starters(const Context& ctx, const Lab& lab) {
  Starters starters;
  if (is_student_edition(ctx.root)) {
    starters.source = "the student edition's starters/";
    for (const auto& file : lab.student_files) {
      const fs::path kept = edition_starters_folder(ctx.root) / lab.slug / file;
      if (!fs::is_regular_file(kept)) {
        throw std::runtime_error("the student edition keeps no starter " + fs::relative(kept, ctx.root).string() +
                                 " (export the edition again)");
      }
      starters.files.emplace_back(ctx.root / "labs" / lab.slug / file, read_text(kept));
    }
    return starters;
  }
  const std::optional<std::string> revision = course_starter_revision(ctx);
  if (!revision) throw std::runtime_error("the course is not a git clone, so it has no starters to take");
  starters.source = *revision == "HEAD" ? "the course's last commit" : *revision;
  for (const auto& file : lab.student_files) {
    const std::string path = "labs/" + lab.slug + "/" + file;
    std::optional<std::string> text = git_output(ctx, {"show", *revision + ":" + path});
    if (!text) throw std::runtime_error(starters.source + " has no " + path);
    starters.files.emplace_back(ctx.root / path, std::move(*text));
  }
  return starters;
}

int command_reset(const Context& ctx, const Lab& lab, bool yes) {
  std::string files;
  for (const auto& file : lab.student_files) files += " " + file;
  Starters starters;
  try {
    starters = find_starters(ctx, lab);
  } catch (const std::exception& error) {
    std::cout << "launchlab reset: " << error.what() << "; nothing was changed.\n";
    return 1;
  }
  if (!yes) {
    if (!isatty(STDIN_FILENO)) {
      std::cout << "launchlab reset would put back the starter's" << files << " of " << lab.slug << " (from "
                << starters.source << "), losing your changes and the lab's recorded runs (list's best and last); say --yes "
                   "to do it without being asked.\n";
      return 2;
    }
    std::cout << "Put back the starter's" << files << " of " << lab.slug << " from " << starters.source
              << "? Your changes to them are lost, and so are the lab's recorded runs (list's best and last). [y/N] "
              << std::flush;
    std::string answer;
    std::getline(std::cin, answer);
    if (answer != "y" && answer != "Y" && answer != "yes") {
      std::cout << "Nothing was changed.\n";
      return 1;
    }
  }
  for (const auto& [path, text] : starters.files) write_file_atomically(path, text);
  keep_progress(ctx, [&] { forget_runs(progress_dir(ctx), lab.slug); });
  std::cout << "Put back the starter's" << files << " of " << lab.slug << " from " << starters.source
            << " and forgot the lab's recorded runs (your commits, if any, still hold your work).\n";
  return 0;
}

int command_hint(const Context& ctx, const Lab& lab, bool all) {
  if (all) {
    for (int number = 1; number <= static_cast<int>(lab.hints.size()); ++number) print_hint(std::cout, lab, number);
    return 0;
  }
  if (lab.hints.empty()) return 0;
  const std::optional<int> next = next_hint(ctx, lab);
  if (!next) {
    std::cout << "You have seen all " << lab.hints.size() << " hints; `launchlab hint " << lab.number()
              << " --all` shows them again.\n";
    return 0;
  }
  print_hint(std::cout, lab, *next);
  remember_hint(ctx, lab, *next);
  return 0;
}

}  // namespace launchlab::cli
