#include "lint.h"

#include "launchlab/grader/stages.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "launchlab/cli/given_code.h"
#include "launchlab/cli/stated_rules.h"
#include "launchlab/grader/process.h"
#include "launchlab/grader/transcript.h"
#include "launchlab/record_check.h"

namespace launchlab::cli {
namespace fs = std::filesystem;
using namespace launchlab::grader;

namespace {

bool has_sources(const fs::path& dir) {
  if (!fs::is_directory(dir)) return false;
  for (const auto& entry : fs::directory_iterator(dir)) {
    auto ext = entry.path().extension();
    if (ext == ".cpp" || ext == ".cu") return true;
  }
  return false;
}

/// The files below dir (none when it is missing) whose extension is one of extensions.
std::vector<fs::path> files_below(const fs::path& dir, std::initializer_list<std::string_view> extensions) {
  std::vector<fs::path> found;
  if (!fs::is_directory(dir)) return found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string extension = entry.path().extension().string();
    if (entry.is_regular_file() && std::find(extensions.begin(), extensions.end(), extension) != extensions.end()) {
      found.push_back(entry.path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<TestedThrow> tested_throws_below(const fs::path& dir) {
  std::vector<TestedThrow> tested;
  for (const auto& source : files_below(dir, {".cpp", ".cu", ".h", ".cuh"})) {
    for (auto& check : tested_throws(read_text(source))) tested.push_back(std::move(check));
  }
  return tested;
}

/// Where the tests not yet made to rest on a value the learner cannot infer
/// are listed, each with why it stays for now.
constexpr std::string_view kForgeableAllowance = "autograder/tests/forgeable.txt";

/// Tests allowed to rest on forgeable records for now: lab slug -> test -> why.
using ForgeableAllowance = std::map<std::string, std::map<std::string, std::string>>;

/// Reads kForgeableAllowance: one "LAB SUITE.NAME: why" a line, '#' starts a
/// comment line. What does not read so is a problem, and is left out.
ForgeableAllowance read_forgeable_allowance(const fs::path& root, std::vector<std::string>& problems) {
  ForgeableAllowance allowed;
  std::istringstream lines(read_text(root / kForgeableAllowance));
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.empty() || line.starts_with('#')) continue;
    const std::string where = std::string(kForgeableAllowance) + ":" + std::to_string(number) + ": ";
    const std::size_t space = line.find(' ');
    const std::size_t colon = line.find(": ", space == std::string::npos ? 0 : space);
    if (space == std::string::npos || colon == std::string::npos || colon == space + 1 ||
        line.find_first_not_of(' ', colon + 2) == std::string::npos) {
      problems.push_back(where + "expected \"LAB SUITE.NAME: why it may rest on forgeable records for now\", got \"" +
                         line + "\"");
      continue;
    }
    std::string& why = allowed[line.substr(0, space)][line.substr(space + 1, colon - space - 1)];
    if (!why.empty()) problems.push_back(where + "names a test listed above already");
    why = line.substr(colon + 2);
  }
  return allowed;
}

/// Whether a test's points rest only on records whose passing value the
/// checks imply (testing::forgeable): a program writing its own transcript
/// passes it without computing anything.
bool rests_on_forgeable_records(const TestTranscript& test) {
  return std::ranges::all_of(test.records, [](const TranscriptRecord& record) {
    return !record.check || testing::forgeable(*record.check, record.expected);
  });
}

/// Every test with points whose reference records are all forgeable, unless
/// the allowance lists it; and each listed test that is no longer so. Tests
/// the reference did not run here (a GPU test on a machine without one)
/// cannot be told apart and pass unreported.
void check_forgeable_tests(const Lab& lab, const Transcript& reference, std::map<std::string, std::string> allowed,
                           const std::function<void(const std::string&)>& problem) {
  for (const auto& test : lab.tests) {
    const bool is_allowed = allowed.erase(test.name) > 0;
    auto found = reference.tests.find(test.name);
    if (test.points == 0 || found == reference.tests.end() || !found->second.ended || found->second.skipped) continue;
    const bool forgeable = rests_on_forgeable_records(found->second);
    if (forgeable && !is_allowed) {
      problem(test.name + " (" + std::to_string(test.points) +
              " points) rests only on records whose passing value its checks imply (TRUE, FALSE, THROWS, NO_THROW, "
              "REQUIRE, NE, one-sided bounds, EQ of a boolean): record a value the learner cannot infer "
              "(launchlab/record.h), or list it with a reason in " + std::string(kForgeableAllowance));
    } else if (!forgeable && is_allowed) {
      problem(std::string(kForgeableAllowance) + " lists " + test.name +
              ", which now rests on a value the learner cannot infer: take it off the list");
    }
  }
  for (const auto& [name, why] : allowed) {
    problem(std::string(kForgeableAllowance) + " lists " + name + ", which lab.toml does not name");
  }
}

/// Each leaderboard figure's record, where the reference ran its test: a
/// number its test records. Where the reference did not run it (a GPU test
/// on a machine without one), there is nothing to check against.
void check_leaderboard_records(const Lab& lab, const Transcript& reference,
                               const std::function<void(const std::string&)>& problem) {
  for (const auto& test : lab.tests) {
    if (!test.leaderboard) continue;
    auto found = reference.tests.find(test.name);
    if (found == reference.tests.end() || !found->second.ended || found->second.skipped) continue;
    const TranscriptRecord* record = first_record(found->second, test.leaderboard->record);
    if (!record || !record->value.is_number()) {
      problem(test.name + ": its leaderboard's record '" + test.leaderboard->record +
              "' is not a number the test records (the expression as written in RECORD_*)");
    }
  }
}

}  // namespace

std::vector<std::string> untested_stated_throws(const fs::path& root, const std::vector<Lab>& labs) {
  // The throws the course still owes a test: "HEADER FUNCTION EXCEPTION" lines.
  const fs::path owed_path = root / "autograder" / "cli" / "untested_throws.txt";
  std::set<std::string> owed;
  std::istringstream owed_lines(fs::exists(owed_path) ? read_text(owed_path) : "");
  for (std::string line; std::getline(owed_lines, line);) {
    if (!line.empty() && line.front() != '#') owed.insert(line);
  }
  std::set<std::string> promised;
  std::vector<std::string> problems;
  auto check_headers = [&](const fs::path& headers, const std::vector<TestedThrow>& tested, const std::string& whose) {
    for (const auto& header : files_below(headers, {".h", ".cuh"})) {
      const std::string name = fs::relative(header, root).generic_string();
      for (const auto& stated : stated_throws(read_text(header))) {
        const std::string key = name + " " + stated.function + " " + stated.exception;
        promised.insert(key);
        if (test_of(stated, tested)) {
          if (owed.count(key)) {
            problems.push_back(owed_path.filename().string() + " lists " + key + ", which " + whose +
                               " now test: take it off the list");
          }
        } else if (!owed.count(key)) {
          problems.push_back(name + ":" + std::to_string(stated.line) + ": " + stated.function + " promises " +
                             stated.exception + ", which no test of " + whose + " checks (RECORD_THROWS(" +
                             stated.function + "(...), " + stated.exception + "))");
        }
      }
    }
  };
  std::vector<TestedThrow> every_test;
  for (const auto& lab : labs) {
    const std::vector<TestedThrow> tested = tested_throws_below(root / "autograder" / "tests" / lab.slug);
    every_test.insert(every_test.end(), tested.begin(), tested.end());
    check_headers(root / "labs" / lab.slug, tested, lab.slug);
  }
  // The headers every lab shares are tested by any lab.
  check_headers(root / "labs" / "include", every_test, "any lab");
  for (const auto& key : owed) {
    if (!promised.count(key)) problems.push_back(owed_path.filename().string() + " lists " + key + ", which no header promises");
  }
  return problems;
}

std::vector<std::string> list_gtest_tests(const fs::path& binary, std::string& problem) {
  RunLimits limits;
  limits.timeout = std::chrono::seconds(60);
  RunOutcome outcome = run_limited({fs::absolute(binary).string(), "--gtest_list_tests"}, {}, {}, limits);
  std::vector<std::string> names;
  if (!outcome.exited_cleanly()) {
    problem = "listing the tests of " + binary.filename().string() + " failed: it " + outcome.describe(limits);
    return names;
  }
  // Suites start in column 0 and end with '.'; their tests are indented, and
  // a parameterised one carries a "# GetParam() = ..." comment.
  std::istringstream lines(outcome.output);
  std::string line, suite;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    if (line[0] != ' ') {
      suite = line.substr(0, line.find(' '));
      continue;
    }
    std::string test = line.substr(line.find_first_not_of(' '));
    test = test.substr(0, test.find(' '));
    // A disabled test runs only when a test asks for it by name (lab 11's
    // ncu test profiles one): never graded, so never in lab.toml.
    if (test.starts_with("DISABLED_") || suite.starts_with("DISABLED_")) continue;
    names.push_back(suite + test);
  }
  return names;
}

std::vector<std::string> lint_course(const fs::path& root, const fs::path& build_dir,
                                     const Capabilities& capabilities, const LintScope& scope) {
  // Every lab that reads cleanly is checked: one broken lab.toml does not hide the rest.
  course::Course course = course::read_course(root);
  const std::vector<Lab>& all_labs = course.labs;
  // Each lab's checks read the forgeable list; what is wrong with the list
  // itself is the course's, said where the course as a whole is checked.
  std::vector<std::string> whole_course_problems = course.problems;
  ForgeableAllowance forgeable_allowed = read_forgeable_allowance(root, whole_course_problems);
  std::vector<std::string> problems;
  if (scope.course_as_a_whole) {
    problems = std::move(whole_course_problems);
    for (auto& problem : untested_stated_throws(root, all_labs)) problems.push_back(std::move(problem));
    for (const auto& [slug, tests] : forgeable_allowed) {
      if (std::ranges::none_of(all_labs, [&](const Lab& lab) { return lab.slug == slug; })) {
        problems.push_back(std::string(kForgeableAllowance) + " names " + slug + ", which is no lab");
      }
    }
  }
  const std::vector<Lab> labs = scope.labs_checked ? labs_to_grade(all_labs, scope.labs) : std::vector<Lab>{};
  const std::vector<std::string> languages = course::course_languages(root);

  const bool reference_build = read_text(build_dir / "CMakeCache.txt").find("LAUNCHLAB_LEARNER_TREE:STRING=solutions") != std::string::npos;

  for (const auto& lab : labs) {
    const fs::path lab_dir = root / "labs" / lab.slug;
    const fs::path solution_dir = root / "solutions" / lab.slug;
    auto problem = [&](const std::string& text) { problems.push_back(lab.slug + ": " + text); };

    if (lab.summary.empty()) problem("lab.toml has no summary (what the learner builds, for the chapter tables)");
    if (!fs::exists(root / "chapters" / lab.slug / "index.md")) problem("no chapter page chapters/" + lab.slug + "/index.md");
    if (!has_sources(root / "autograder" / "tests" / lab.slug)) problem("no tests in autograder/tests/" + lab.slug);
    if (!fs::exists(lab_dir / "CMakeLists.txt")) problem("no CMakeLists.txt");
    if (lab.hints.empty()) problem("lab.toml has no hints");
    for (const auto& text : course::hint_problems(lab)) problem(text);
    for (const auto& text : course::translation_problems(lab, languages)) problem(text);
    if (!fs::is_directory(solution_dir)) problem("no solution overlay in solutions/" + lab.slug);

    for (const auto& file : lab.student_files) {
      if (!fs::is_regular_file(lab_dir / file)) {
        problem("student file " + file + " is not in labs/" + lab.slug);
      } else if (read_text(lab_dir / file).find("TODO(student)") == std::string::npos) {
        problem("the starter " + file + " has no TODO(student): a learner cannot see what to write");
      }
      if (!fs::is_regular_file(solution_dir / file)) {
        problem("student file " + file + " has no solution in solutions/" + lab.slug);
      } else if (read_text(solution_dir / file).find("TODO(student)") != std::string::npos) {
        problem("the solution " + file + " still holds TODO(student)");
      } else if (fs::is_regular_file(lab_dir / file)) {
        // Given code in a student file is written twice (starter and
        // solution), and a learner's edit can break it.
        for (const auto& run : shared_code_runs(read_text(lab_dir / file), read_text(solution_dir / file))) {
          problem(describe_shared_run(file, run));
        }
      }
    }
    if (fs::is_directory(solution_dir)) {
      for (const auto& entry : fs::recursive_directory_iterator(solution_dir)) {
        std::string name = fs::relative(entry.path(), solution_dir).string();
        if (entry.is_regular_file() &&
            std::find(lab.student_files.begin(), lab.student_files.end(), name) == lab.student_files.end()) {
          problem("solutions/" + lab.slug + "/" + name + " is not a student file: the overlay holds student files only");
        }
      }
    }

    // The built programs: the solution's when there is one, else the reference learner tree.
    // The learner's program built on the solutions (in the reference build,
    // the learner's tree is the solutions), the starters' one, and the
    // reference program both are judged against.
    fs::path solution_binary = build_dir / "tests" / (lab.test_binary_name() + "_solution");
    fs::path starter_binary = build_dir / "tests" / lab.test_binary_name();
    fs::path reference_binary = build_dir / "tests" / lab.reference_binary_name();
    if (reference_build) solution_binary = starter_binary;
    std::string list_problem;
    std::vector<std::string> listed = list_gtest_tests(reference_binary, list_problem);
    if (!list_problem.empty()) problem(list_problem);
    std::set<std::string> in_binary(listed.begin(), listed.end());
    std::set<std::string> in_toml;
    for (const auto& test : lab.tests) {
      in_toml.insert(test.name);
      if (!list_problem.empty()) continue;
      if (!in_binary.count(test.name)) problem("lab.toml names " + test.name + ", which the tests do not define");
    }
    for (const auto& name : in_binary) {
      if (!in_toml.count(name)) problem("the test " + name + " is not in lab.toml: it would be run but never graded");
    }
    if (list_problem.empty()) {
      ReferenceRun reference = run_reference_program(lab, reference_binary, build_dir / "lint" / lab.slug / "records");
      const Transcript reference_transcript = parse_transcript(reference.text);
      check_forgeable_tests(lab, reference_transcript, forgeable_allowed[lab.slug], problem);
      check_leaderboard_records(lab, reference_transcript, problem);
    }

    if (!fs::exists(solution_binary)) {
      problem("the solution's test program is not built (" + solution_binary.filename().string() + ")");
      continue;
    }
    fs::path scratch = build_dir / "lint" / lab.slug;
    // The starter's run compares with the reference's transcript of the
    // solution's run: made fresh here, read again there.
    RunSettings settings;
    settings.reference_cache = scratch / "reference-transcript";
    fs::create_directories(scratch);
    fs::remove(settings.reference_cache);
    for (const auto& result :
         run_lab_tests(lab, {solution_binary, reference_binary}, capabilities, scratch / "solution", settings)) {
      if (result.status == TestStatus::failed) {
        problem("the solution fails " + result.name + ":\n" + result.message);
      } else if (result.status == TestStatus::not_graded) {
        problem(result.name + " cannot be judged: " + result.message);
      }
    }
    // The grading ran the reference twice: a test whose two transcripts
    // differ records a figure that changes from run to run (a time), and
    // must say so, so that the grader runs it alone and measures the
    // reference beside the learner's at every grading.
    for (const auto& name : varying_reference_tests(settings.reference_cache)) {
      const auto test = std::ranges::find_if(lab.tests, [&](const LabTest& t) { return t.name == name; });
      if (test != lab.tests.end() && !test->measures) {
        problem(name + " records something that differs from run to run (two runs of the reference disagreed): "
                "add measures = true to its [[tests]] table in lab.toml");
      }
    }
    if (reference_build) continue;
    if (!fs::exists(starter_binary)) {
      problem("the starter's test program is not built");
      continue;
    }
    int failed = 0, ran = 0;
    for (const auto& result :
         run_lab_tests(lab, {starter_binary, reference_binary}, capabilities, scratch / "starter", settings)) {
      if (result.status == TestStatus::failed) ++failed;
      if (result.status == TestStatus::failed || result.status == TestStatus::passed) ++ran;
    }
    if (ran > 0 && failed == 0) problem("the starter passes every graded test that runs here: it is already solved");
  }
  return problems;
}

}  // namespace launchlab::cli
