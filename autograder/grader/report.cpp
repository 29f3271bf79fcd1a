// The report stage: the score table a person reads, and Gradescope's
// results.json.
#include <algorithm>
#include <iomanip>
#include <sstream>

#include "launchlab/grader/grading.h"
#include "launchlab/grader/text.h"

namespace launchlab::grader {


bool full_marks(const std::vector<LabResult>& labs) {
  for (const auto& lab : labs) {
    for (const auto& test : lab.tests) {
      if (test.status == TestStatus::failed) return false;
    }
  }
  return true;
}

void print_score_table(std::ostream& out, const std::vector<LabResult>& labs, const Capabilities& capabilities) {
  // Points not graded here either need what this machine lacks, or could
  // not be judged at all (the course's reference could not judge them).
  int points = 0, gradable = 0, needs_machine = 0, not_judged = 0;
  out << "\n" << std::left << std::setw(26) << "lab" << std::right << std::setw(10) << "points" << std::setw(9)
      << "passed" << std::setw(9) << "failed" << std::setw(22) << "not gradable here" << "\n";
  for (const auto& lab : labs) {
    int passed = 0, failed = 0, skipped = 0;
    for (const auto& test : lab.tests) {
      if (test.status == TestStatus::passed) ++passed;
      else if (test.status == TestStatus::failed) ++failed;
      else ++skipped;
      if (test.status == TestStatus::needs_gpu || test.status == TestStatus::needs_tool) needs_machine += test.max_points;
      if (test.status == TestStatus::not_graded) not_judged += test.max_points;
    }
    std::string score = std::to_string(lab.points()) + "/" + std::to_string(lab.gradable_max());
    std::string aside = skipped ? std::to_string(skipped) + " tests, " + std::to_string(lab.not_gradable_points()) + " pts" : "-";
    out << std::left << std::setw(26) << lab.lab.slug << std::right << std::setw(10) << score << std::setw(9) << passed
        << std::setw(9) << failed << std::setw(22) << aside << "\n";
    if (lab.problem) {
      std::istringstream lines(*lab.problem);
      std::string line;
      for (int shown = 0; std::getline(lines, line) && shown < 8; ++shown) out << "    ! " << learner_text(line, 300) << "\n";
    }
    points += lab.points();
    gradable += lab.gradable_max();
  }
  out << "\nScore: " << points << "/" << gradable << " points graded here";
  if (needs_machine > 0) {
    out << "; " << needs_machine << " more points were NOT graded here (" << capabilities.gpu_detail
        << "): they need a GPU or a CUDA tool this machine lacks";
  }
  if (not_judged > 0) {
    out << "; " << not_judged << " more points could not be judged here (each test says why) and count neither way";
  }
  out << ".\n";
}

nlohmann::json results_json(const std::vector<LabResult>& labs, const Capabilities& capabilities, double seconds,
                            const ReportSettings& settings) {
  using nlohmann::json;
  json tests = json::array();
  int points = 0, gradable = 0, not_gradable = 0;
  for (const auto& lab : labs) {
    int index = 0;
    for (const auto& test : lab.tests) {
      ++index;
      const bool graded_here = test.status == TestStatus::passed || test.status == TestStatus::failed;
      // A sanitizer check ("Suite.Name [memcheck]") is as private as its test.
      const std::string test_name = test.name.substr(0, test.name.find(" ["));
      const bool is_private = std::any_of(lab.lab.tests.begin(), lab.lab.tests.end(),
                                          [&](const LabTest& t) { return t.name == test_name && t.is_private; });
      json entry;
      entry["name"] = lab.lab.slug + ": " + test.name + (graded_here ? "" : " (not graded here)");
      entry["number"] = lab.lab.number() + "." + std::to_string(index);
      // A test that could not run here is neither passed nor failed: it
      // counts for nothing (0 of 0), says so in its name and its output, and
      // keeps its points in extra_data.
      entry["score"] = test.points;
      entry["max_score"] = graded_here ? test.max_points : 0;
      entry["status"] = test.status == TestStatus::failed ? "failed" : "passed";
      std::string output = learner_text(test.message, kTestOutputLimit);
      // The tool's report on a private test quotes what the learner's
      // program did while that test ran: none of it is shown (judge.cpp
      // says the same of the test itself).
      if (is_private && test.status == TestStatus::failed && test_name != test.name) {
        output = "this private test failed its check under " + test.name.substr(test_name.size() + 1) +
                 " (its report is not shown)";
      }
      if (!graded_here) output = "NOT GRADED HERE: " + output;
      // Learner text sits in a block it cannot close (text.h), so that it
      // never renders as the grader's words.
      entry["output"] = output.empty() ? std::string() : fenced_block(output);
      entry["output_format"] = "md";
      entry["tags"] = json::array({lab.lab.slug});
      entry["visibility"] = is_private ? settings.private_visibility : "visible";
      entry["extra_data"] = {{"lab", lab.lab.slug},
                             {"outcome", to_string(test.status)},
                             {"points_if_graded", test.max_points},
                             {"private", is_private}};
      tests.push_back(std::move(entry));
    }
    points += lab.points();
    gradable += lab.gradable_max();
    not_gradable += lab.not_gradable_points();
  }
  std::ostringstream summary;
  print_score_table(summary, labs, capabilities);
  json root;
  root["score"] = points;
  root["execution_time"] = static_cast<std::int64_t>(seconds);
  root["output"] = fenced_block(learner_text(summary.str(), kSummaryLimit));
  root["output_format"] = "md";
  root["visibility"] = "visible";
  root["stdout_visibility"] = "hidden";
  root["tests"] = std::move(tests);
  root["extra_data"] = {{"gradable_max_score", gradable},
                        {"not_gradable_points", not_gradable},
                        {"gpu", capabilities.gpu ? json(capabilities.gpu_detail) : json()}};
  return root;
}

std::string last_resort_results(const std::vector<LabResult>& results, const std::string& what) {
  using nlohmann::json;
  json tests = json::array();
  int score = 0;
  for (const auto& lab : results) {
    score += lab.points();
    tests.push_back({{"name", lab.lab.slug},
                     {"score", lab.points()},
                     {"max_score", lab.gradable_max()},
                     {"output", "This lab's details could not be written; its score stands."}});
  }
  json report = {
      {"score", score},
      {"output", "The grader could not grade this submission in full: its report could not be written (" +
                     learner_text(what, 500) + "); each lab's score below stands. Tell your instructor."},
      {"tests", std::move(tests)}};
  return report.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace launchlab::grader
