#include "learner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "launchlab/cli/progress.h"
#include "launchlab/grader/expectations.h"

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

int hints_seen(const Context& ctx, const Lab& lab) {
  return std::clamp(read_progress(progress_dir(ctx), lab.slug).hints_seen, 0, static_cast<int>(lab.hints.size()));
}

/// Shows hint `number` (from 1) of the lab, saying which test it helps with when one is named.
void print_hint(std::ostream& out, const Lab& lab, int number, const std::string& for_test = {}) {
  out << "Hint " << number << " of " << lab.hints.size() << " for " << lab.slug
      << (for_test.empty() ? "" : " (it helps with " + for_test + ")") << ":\n  "
      << lab.hints[static_cast<std::size_t>(number - 1)] << "\n";
}

/// Remembers that the learner has seen the hints up to `number`: `launchlab
/// hint` goes on from the furthest one seen.
void remember_hint(const Context& ctx, const Lab& lab, int number) {
  if (number <= hints_seen(ctx, lab)) return;
  keep_progress(ctx, [&] { record_hints_seen(progress_dir(ctx), lab.slug, number); });
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
    const int number = std::max(1, hints_seen(ctx, lab));
    print_hint(out, lab, number);
    remember_hint(ctx, lab, number);
  }
  if (hints_seen(ctx, lab) < static_cast<int>(lab.hints.size())) {
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

/// What the tests that could not run here lack, each said once: a machine
/// without a GPU and without an open-gpu-doc checkout is told both.
std::string lacking_here(const Lab& lab, const std::vector<TestResult>& results, const Capabilities& capabilities) {
  std::vector<std::string> lacks;
  auto add = [&](const std::string& what) {
    if (std::find(lacks.begin(), lacks.end(), what) == lacks.end()) lacks.push_back(what);
  };
  for (const auto& result : results) {
    if (result.status == TestStatus::passed || result.status == TestStatus::failed) continue;
    std::optional<LabTest> test;
    for (const auto& candidate : lab.tests) {
      if (candidate.name == result.name) test = candidate;
    }
    // A sanitizer check's row is its test's name and the tool.
    for (const auto& check : lab.sanitizer_checks()) {
      if (check.name() != result.name) continue;
      for (const auto& candidate : lab.tests) {
        if (candidate.name == check.test) test = candidate;
      }
      if (test) test->needs.push_back("compute-sanitizer");
    }
    const std::optional<std::string> need = test ? capabilities.unmet_need(*test) : std::nullopt;
    add(need ? capabilities.what_lacks(*need) : "a reference run the course could judge here");
  }
  std::string text;
  for (const auto& what : lacks) text += (text.empty() ? "" : "; ") + what;
  return text;
}

}  // namespace

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
  std::cerr << "Building " << target << " ..." << std::endl;
  std::vector<std::string> build_command = {"cmake", "--build", ctx.build.string(), "--target", target};
  if (!edition) build_command.push_back(lab.reference_binary_name());
  if (run_visible(build_command) != 0) {
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

  LabScore score;
  std::optional<std::string> first_failure;
  int failures = 0;
  out << "\n" << lab.slug << " — " << lab.title << (options.solution ? " (the solution)" : "") << "\n\n";
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
      print_message(out, result.message, options.verbose ? kVerboseMessageLines : kShortMessageLines,
                    options.verbose ? "" : "; " + verbose_command + " shows more");
    }
    if (failed) {
      ++failures;
      if (!first_failure) first_failure = result.name;
    }
    score.points += result.points;
    if (result.status == TestStatus::passed || failed) score.gradable += result.max_points;
    else score.not_gradable += result.max_points;
  }
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

std::string course_progress_bar(const Context& ctx, const std::vector<Lab>& labs) {
  int full = 0, best_points = 0, total_points = 0;
  for (const auto& lab : labs) {
    total_points += lab.max_points();
    const LabProgress progress = read_progress(progress_dir(ctx), lab.slug);
    if (!progress.best) continue;
    best_points += progress.best->points;
    if (progress.best->gradable > 0 && progress.best->points == progress.best->gradable) ++full;
  }
  constexpr int kWidth = 30;
  const int filled = total_points > 0 ? kWidth * best_points / total_points : 0;
  std::ostringstream bar;
  bar << "Course: [" << std::string(static_cast<std::size_t>(filled), '#')
      << std::string(static_cast<std::size_t>(kWidth - filled), '.') << "] " << full << "/" << labs.size()
      << " labs at full marks, " << best_points << "/" << total_points << " points (each lab's best run)";
  return bar.str();
}

int command_hint(const Context& ctx, const Lab& lab, bool all) {
  if (all) {
    for (int number = 1; number <= static_cast<int>(lab.hints.size()); ++number) print_hint(std::cout, lab, number);
    return 0;
  }
  if (lab.hints.empty()) return 0;
  const int seen = hints_seen(ctx, lab);
  if (seen >= static_cast<int>(lab.hints.size())) {
    std::cout << "You have seen all " << lab.hints.size() << " hints; `launchlab hint " << lab.number()
              << " --all` shows them again.\n";
    return 0;
  }
  print_hint(std::cout, lab, seen + 1);
  remember_hint(ctx, lab, seen + 1);
  return 0;
}

}  // namespace launchlab::cli
