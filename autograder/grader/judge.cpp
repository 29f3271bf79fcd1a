#include "launchlab/grader/judge.h"

#include <map>

#include "launchlab/grader/text.h"

namespace launchlab::grader {
namespace {

constexpr std::size_t kMismatchesShown = 5;
/// What one mismatch may show of the learner's value.
constexpr std::size_t kExplanationLimit = 600;

/// A record as the course names it: the reference's context (the input) or
/// the expression. The learner's own context is never quoted: a program can
/// write anything there, the inputs of a private test among it.
std::string describe_record(const TranscriptRecord& reference_record) {
  return reference_record.context.empty() ? reference_record.expression() : reference_record.context;
}

/// A failed test: its message, or for a private test only the course's own
/// words (what kind of failure), since nothing recorded while a private test
/// ran may reach a student.
TestResult failed(const LabTest& test, std::string why, const std::string& private_summary) {
  if (test.is_private) {
    why = "this private test failed: " + private_summary + " (its inputs, values and output are not shown)";
  }
  return TestResult{test.name, 0, test.points, TestStatus::failed, std::move(why)};
}

TestResult not_gradable(const LabTest& test, TestStatus status, std::string why) {
  return TestResult{test.name, 0, test.points, status, std::move(why)};
}

}  // namespace

TestResult judge_test(const LabTest& test, const TestEvidence& reference, const TestEvidence& learner,
                      const Capabilities& capabilities) {
  // The reference decides whether the test can be judged here at all.
  if (!reference.transcript || !reference.transcript->ended) {
    return not_gradable(test, TestStatus::not_graded,
                        "the course's reference did not finish this test here (" +
                            (reference.why_missing.empty() ? std::string("no transcript") : reference.why_missing) +
                            "), so it cannot be judged; tell your instructor");
  }
  const TestTranscript& expected = *reference.transcript;
  if (expected.skipped) {
    if (auto need = capabilities.unmet_need(test)) {
      if (*need == "gpu") {
        return not_gradable(test, TestStatus::needs_gpu, "needs a GPU; not graded here (" + capabilities.gpu_detail + ")");
      }
      return not_gradable(test, TestStatus::needs_tool, "needs " + capabilities.what_lacks(*need) + "; not graded here");
    }
    return not_gradable(test, TestStatus::not_graded,
                        "not graded here: the reference skipped it (" + expected.skip_message + ")");
  }
  if (!expected.failures.empty()) {
    return not_gradable(test, TestStatus::not_graded,
                        "the course's reference fails this test here, so it cannot be judged; tell your instructor:\n" +
                            expected.failures.front());
  }
  if (expected.records.empty()) {
    return not_gradable(test, TestStatus::not_graded,
                        "this test records nothing, so it cannot be judged outside your program; tell your instructor");
  }

  if (!learner.transcript || !learner.transcript->ended) {
    return failed(test, learner.why_missing.empty() ? "your program did not finish this test" : learner.why_missing,
                  "your program did not finish it");
  }
  const TestTranscript& got = *learner.transcript;
  if (got.started_twice || !got.repeated_keys.empty()) {
    const std::string why = "transcript holds the same test or record twice: something other than the test wrote to it, "
                            "so it scores 0";
    return failed(test, "this test's " + why, "its " + why);
  }
  if (got.skipped) {
    return failed(test, "the test was skipped in your program although the reference ran it here" +
                            (got.skip_message.empty() ? std::string() : ": " + got.skip_message),
                  "your program skipped it although the reference ran it here");
  }

  std::map<std::string, const TranscriptRecord*> values;
  for (const auto& record : got.records) values[record.key] = &record;

  std::vector<std::string> mismatches;
  // Once a test stops, every check after it goes unrecorded: the first one
  // says so, the rest are counted.
  std::size_t unreached = 0;
  for (const auto& want : expected.records) {
    auto found = values.find(want.key);
    if (found == values.end()) {
      if (unreached++ == 0) {
        mismatches.push_back(describe_record(want) + "\n  nothing was recorded: the test stopped before it" +
                             (got.failures.empty() ? std::string() : " (" + got.failures.front() + ")"));
      }
      continue;
    }
    const TranscriptRecord& have = *found->second;
    values.erase(found);
    auto result = testing::check_value(*want.check, have.value, want.expected, want.parameter);
    if (result.agrees) continue;
    if (mismatches.size() < kMismatchesShown) {
      mismatches.push_back(describe_record(want) + "\n  " + learner_text(result.explanation, kExplanationLimit));
    } else {
      mismatches.emplace_back();
    }
  }
  std::string message;
  std::size_t shown = 0;
  for (const auto& mismatch : mismatches) {
    if (mismatch.empty()) continue;
    if (!message.empty()) message += "\n";
    message += mismatch;
    ++shown;
  }
  if (mismatches.size() > shown) {
    message += "\n(and " + std::to_string(mismatches.size() - shown) + " more values that differ)";
  }
  if (unreached > 1) {
    message += "\n(and " + std::to_string(unreached - 1) + " more checks after it, which the test did not reach)";
  }
  if (!values.empty()) {
    if (!message.empty()) message += "\n";
    message += "the test recorded " + std::to_string(values.size()) +
               " value(s) that a correct answer does not give (checks the reference's run does not reach)";
  }
  if (message.empty() && !got.failures.empty()) {
    message = got.failures.front();
  }
  if (!message.empty()) {
    // The one entry that stands for every unreached check is not a value that differs.
    const std::size_t differing = mismatches.size() - (unreached > 0 ? 1 : 0);
    std::string summary;
    if (differing > 0) summary = std::to_string(differing) + " value(s) differ from the reference's";
    if (unreached > 0) summary += (summary.empty() ? "" : "; ") + std::string("it stopped before a check the reference reached");
    if (!values.empty()) summary += (summary.empty() ? "" : "; ") + std::string("it recorded values a correct answer does not give");
    if (summary.empty()) summary = "a check outside its records failed";
    return failed(test, message, summary);
  }
  return TestResult{test.name, test.points, test.points, TestStatus::passed, {}};
}

bool fails_whatever_the_figures(const TestTranscript& reference, const TestTranscript& learner,
                                const std::set<std::string>& figure_keys) {
  if (!learner.ended || learner.skipped || learner.started_twice || !learner.repeated_keys.empty()) return true;
  std::map<std::string, const TranscriptRecord*> values;
  for (const auto& record : learner.records) values[record.key] = &record;
  for (const auto& want : reference.records) {
    if (figure_keys.count(want.key) || !want.check) continue;
    auto found = values.find(want.key);
    if (found == values.end()) return true;
    if (!testing::check_value(*want.check, found->second->value, want.expected, want.parameter).agrees) return true;
  }
  return false;
}

}  // namespace launchlab::grader
