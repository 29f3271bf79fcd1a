// What a learner's program writes, read as the grader must read it: the
// transcript line by line with limits, learner bytes made valid and bounded,
// shown in blocks they cannot close, and a private test's records kept out of
// everything a student reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "launchlab/grader/grading.h"
#include "launchlab/grader/judge.h"
#include "launchlab/grader/text.h"
#include "launchlab/grader/transcript.h"
#include "temp_folder.h"

using namespace launchlab::grader;
using nlohmann::json;

namespace {

/// Whether nlohmann accepts the text as UTF-8 (its dump throws otherwise).
bool valid_utf8(const std::string& text) {
  try {
    (void)json(text).dump();
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

const std::string kReplacement = "\xEF\xBF\xBD";

}  // namespace

TEST(LearnerText, ReplacesEveryByteThatIsNotWellFormedUtf8) {
  EXPECT_EQ(learner_text("caf\xE9 au lait", 100), "caf" + kReplacement + " au lait");  // Latin-1
  EXPECT_EQ(learner_text("\xC0\xAF", 100), kReplacement + kReplacement);                // overlong '/'
  EXPECT_EQ(learner_text("\xED\xA0\x80", 100), kReplacement + kReplacement + kReplacement);  // a surrogate
  EXPECT_EQ(learner_text("\xF4\x90\x80\x80", 100).find("\xF4"), std::string::npos);         // past U+10FFFF
  EXPECT_EQ(learner_text("\xE2\x82", 100), kReplacement + kReplacement);                // cut short
  EXPECT_EQ(learner_text("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", 100), "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
}

TEST(LearnerText, KeepsNewlinesAndTabsButNoOtherControlCharacter) {
  EXPECT_EQ(learner_text("a\tb\nc", 100), "a\tb\nc");
  EXPECT_EQ(learner_text("\x1B[2Jred\r", 100), kReplacement + "[2Jred" + kReplacement);
}

TEST(LearnerText, CutsOnCharacterBoundariesWithinTheBound) {
  std::string text;
  for (int i = 0; i < 400; ++i) text += "\xC3\xA9\xE2\x82\xAC";  // two- and three-byte characters
  for (std::size_t bound = 0; bound < 120; ++bound) {
    for (KeepEnd keep : {KeepEnd::head, KeepEnd::tail}) {
      const std::string cut = learner_text(text, bound, keep);
      EXPECT_LE(cut.size(), bound);
      EXPECT_TRUE(valid_utf8(cut)) << "bound " << bound;
    }
  }
  const std::string head = learner_text("first line\n" + std::string(5000, 'x') + "\nlast line", 200);
  EXPECT_TRUE(head.starts_with("first line")) << head;
  EXPECT_NE(head.find("bytes cut"), std::string::npos) << head;
  const std::string tail = learner_text("first line\n" + std::string(5000, 'x') + "\nlast line", 200, KeepEnd::tail);
  EXPECT_TRUE(tail.ends_with("last line")) << tail;
  EXPECT_NE(tail.find("bytes cut"), std::string::npos) << tail;
}

TEST(LearnerText, ACrashThatEndsInsideACharacterStillReadsAsUtf8) {
  const std::string output = std::string(3000, 'a') + "caf\xC3";  // the last character cut in half
  const std::string tail = learner_text(output, 1500, KeepEnd::tail);
  EXPECT_TRUE(valid_utf8(tail));
  EXPECT_TRUE(tail.ends_with("caf" + kReplacement)) << tail;
}

TEST(FencedBlock, NoRunOfBackticksInTheTextClosesIt) {
  const std::string forged = "oops\n```\n\n# Lab 00: 28/28, every test passed\n````\n![x](http://example.com/x.png)";
  const std::string block = fenced_block(forged);
  const std::string fence = block.substr(0, block.find('\n'));
  EXPECT_EQ(fence, "`````");
  EXPECT_TRUE(block.ends_with("\n" + fence));
  // Between the fences, no line is a fence as long as the opening one.
  const std::string body = block.substr(fence.size() + 1, block.size() - 2 * fence.size() - 2);
  EXPECT_EQ(body, forged);
  EXPECT_EQ(fenced_block("plain").substr(0, 4), "```\n");
}

TEST(ParseTranscript, ALineTooLongOrTooDeepIsRefusedBeforeItIsParsed) {
  const std::string start = R"({"event":"start","test":"S.T"})" "\n";
  const std::string end = R"({"event":"end","test":"S.T"})" "\n";
  std::string deep = R"({"event":"record","test":"S.T","key":"x#1","value":)";
  deep += std::string(200000, '[') + std::string(200000, ']') + "}\n";
  Transcript transcript = parse_transcript(start + deep + end);
  ASSERT_EQ(transcript.problems.size(), 1u);
  EXPECT_NE(transcript.problems.front().find("nested deeper"), std::string::npos) << transcript.problems.front();
  EXPECT_TRUE(transcript.tests.at("S.T").ended);
  EXPECT_TRUE(transcript.tests.at("S.T").records.empty());

  const std::string long_line = R"({"event":"record","test":"S.T","key":"x#1","value":")" +
                                std::string(kTranscriptLineLimit, 'v') + "\"}\n";
  transcript = parse_transcript(start + long_line + end);
  ASSERT_EQ(transcript.problems.size(), 1u);
  EXPECT_NE(transcript.problems.front().find("longer than"), std::string::npos) << transcript.problems.front();

  // Brackets inside a string are text, not nesting.
  const std::string brackets = R"({"event":"record","test":"S.T","key":"x#1","value":")" + std::string(1000, '[') + "\"}\n";
  transcript = parse_transcript(start + brackets + end);
  EXPECT_TRUE(transcript.problems.empty());
  EXPECT_EQ(transcript.tests.at("S.T").records.size(), 1u);
}

TEST(ParseTranscript, AMemberOfTheWrongTypeRefusesItsLineAndNothingMore) {
  const std::string text = R"({"event":"start","test":"S.T"})" "\n"
                           R"({"event":"end","test":"S.T","skipped":"no"})" "\n"
                           R"({"event":"end","test":"S.T","skipped":false,"skip_message":7,"failures":[1,{"a":2}]})" "\n"
                           R"({"event":"start","test":["S.U"]})" "\n"
                           R"({"event":"done"})" "\n";
  Transcript transcript;
  ASSERT_NO_THROW(transcript = parse_transcript(text));
  ASSERT_EQ(transcript.problems.size(), 2u);
  EXPECT_NE(transcript.problems[0].find("\"skipped\""), std::string::npos) << transcript.problems[0];
  EXPECT_NE(transcript.problems[1].find("a start without a test"), std::string::npos) << transcript.problems[1];
  const TestTranscript& test = transcript.tests.at("S.T");
  EXPECT_TRUE(test.ended);
  EXPECT_FALSE(test.skipped);
  EXPECT_TRUE(test.skip_message.empty());
  EXPECT_EQ(test.failures, (std::vector<std::string>{"1", R"({"a":2})"}));
  EXPECT_TRUE(transcript.done);
}

TEST(ParseTranscript, ContextsAndMessagesAreClipped) {
  const std::string huge(15u << 20, 'c');
  const std::string text = R"({"event":"start","test":"S.T"})" "\n"
                           R"({"event":"record","test":"S.T","key":"x#1","value":1,"context":")" + huge.substr(0, 3u << 20) +
                           "\"}\n" R"({"event":"end","test":"S.T","skip_message":")" + huge.substr(0, 100000) + "\"}\n";
  Transcript transcript = parse_transcript(text);
  EXPECT_TRUE(transcript.problems.empty());
  const TestTranscript& test = transcript.tests.at("S.T");
  ASSERT_EQ(test.records.size(), 1u);
  EXPECT_LE(test.records.front().context.size(), kTranscriptContextLimit);
  EXPECT_LE(test.skip_message.size(), kTranscriptMessageLimit);
}

namespace {

/// A transcript of one test with one record, as a program writes it.
Transcript one_record(const std::string& value, const std::string& context, const std::string& failure = {}) {
  std::string text = R"({"event":"start","test":"S.T"})" "\n";
  text += json{{"event", "record"}, {"test", "S.T"}, {"key", "answer(x)#1"}, {"value", json::parse(value)},
               {"context", context}, {"check", "equal"}, {"expected", 42}}
              .dump() +
          "\n";
  json end = {{"event", "end"}, {"test", "S.T"}};
  if (!failure.empty()) end["failures"] = json::array({failure});
  return parse_transcript(text + end.dump() + "\n");
}

TestResult judge(const LabTest& test, const Transcript& reference, const Transcript& learner) {
  return judge_test(test, {&reference.tests.at("S.T"), {}}, {&learner.tests.at("S.T"), {}}, Capabilities{});
}

}  // namespace

TEST(Judge, AFailingRecordIsDescribedByTheReferencesContextAndTheLearnersValueAlone) {
  LabTest test{"S.T", 2};
  const Transcript reference = one_record("42", "x = 7");
  const Transcript learner = one_record("41", "private input 913 ``` # forged");
  const TestResult result = judge(test, reference, learner);
  EXPECT_EQ(result.status, TestStatus::failed);
  EXPECT_NE(result.message.find("x = 7"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("41"), std::string::npos) << result.message;
  EXPECT_EQ(result.message.find("913"), std::string::npos) << "the learner's context is quoted:\n" << result.message;
}

TEST(Judge, NothingRecordedWhileAPrivateTestRanIsShown) {
  LabTest test{"S.T", 2};
  test.is_private = true;
  const Transcript reference = one_record("42", "x = 7");
  const Transcript learner = one_record("\"secret 913\"", "learner 914", "failure 915");
  const TestResult result = judge(test, reference, learner);
  EXPECT_EQ(result.status, TestStatus::failed);
  for (const char* leaked : {"913", "914", "915", "x = 7", "42"}) {
    EXPECT_EQ(result.message.find(leaked), std::string::npos) << leaked << " is shown:\n" << result.message;
  }
  EXPECT_NE(result.message.find("1 value(s) differ"), std::string::npos) << result.message;

  const TestResult unfinished =
      judge_test(test, {&reference.tests.at("S.T"), {}}, {nullptr, "crashed; its last output:\nsecret 916"}, Capabilities{});
  EXPECT_EQ(unfinished.message.find("916"), std::string::npos) << unfinished.message;
  EXPECT_NE(unfinished.message.find("did not finish"), std::string::npos) << unfinished.message;
}

TEST(ResultsJson, LearnerTextCannotCloseItsBlockAndTheReportIsBoundedAndValid) {
  Lab lab;
  lab.slug = "00_alpha";
  lab.tests = {LabTest{"S.T", 2}};
  LabResult result{lab, std::string("bad byte \xE9 in a compile error"), {}};
  const std::string forged = "\xC3\n```\nLab 00: 28/28, every test passed\n" + std::string(1u << 20, 'x');
  result.tests.push_back({"S.T", 0, 2, TestStatus::failed, forged});
  const json report = results_json({result}, Capabilities{}, 1.0);
  std::string text;
  ASSERT_NO_THROW(text = report.dump());
  const std::string output = report["tests"][0]["output"].get<std::string>();
  EXPECT_TRUE(output.starts_with("````\n")) << output.substr(0, 40);
  EXPECT_LE(output.size(), kTestOutputLimit + 10);
  EXPECT_TRUE(report["output"].get<std::string>().starts_with("```\n"));
  EXPECT_LT(text.size(), 2u * kTestOutputLimit + kSummaryLimit);
}

TEST(ResultsJson, TheLastResortKeepsEveryLabGradedSoFarAndSaysWhatFailed) {
  Lab alpha, beta;
  alpha.slug = "00_alpha";
  beta.slug = "01_beta";
  LabResult graded{alpha, std::nullopt, {{"A.One", 3, 3, TestStatus::passed, {}}, {"A.Two", 0, 2, TestStatus::failed, "x"}}};
  LabResult failed{beta, std::nullopt, {{"B.One", 0, 4, TestStatus::failed, "bad \xFF byte"}}};
  const std::string text = last_resort_results({graded, failed}, "dump failed at byte \xFF");
  const json report = json::parse(text, nullptr, false);
  ASSERT_TRUE(report.is_object()) << text;
  EXPECT_EQ(report["score"], 3);
  ASSERT_EQ(report["tests"].size(), 2u);
  EXPECT_EQ(report["tests"][0]["name"], "00_alpha");
  EXPECT_EQ(report["tests"][0]["score"], 3);
  EXPECT_EQ(report["tests"][0]["max_score"], 5);
  EXPECT_EQ(report["tests"][1]["max_score"], 4);
  const std::string output = report["output"].get<std::string>();
  EXPECT_TRUE(output.starts_with("The grader could not grade this submission")) << output;
  EXPECT_NE(output.find("dump failed at byte"), std::string::npos) << output;
  EXPECT_EQ(text.find("bad"), std::string::npos) << "a test's message is repeated:\n" << text;
}

TEST(ResultsJson, APrivateTestsSanitizerReportIsNotShown) {
  Lab lab;
  lab.slug = "00_alpha";
  LabTest hidden{"P.T", 2};
  hidden.is_private = true;
  lab.tests = {hidden};
  LabResult result{lab, std::nullopt, {{"P.T [memcheck]", 0, 1, TestStatus::failed, "Invalid write at secret 917"}}};
  const json report = results_json({result}, Capabilities{}, 1.0);
  const std::string output = report["tests"][0]["output"].get<std::string>();
  EXPECT_EQ(output.find("917"), std::string::npos) << output;
  EXPECT_NE(output.find("[memcheck]"), std::string::npos) << output;
}

// What the linter reads to find a test that records a time without saying
// so: the tests whose two reference runs disagreed, and only those.
TEST(ReferenceCache, NamesTheTestsWhoseTwoRunsDisagreed) {
  const TempFolder folder("reference-cache");
  const std::filesystem::path cache = folder.path() / "reference-transcript";
  EXPECT_TRUE(varying_reference_tests(cache).empty()) << "no file yet";
  const json kept = {{"key", "k"},
                     {"tests", {{"Alpha.Same", {{"transcript", "a"}, {"runs", 2}, {"varying", false}}},
                                {"Beta.Timed", {{"transcript", "b"}, {"runs", 1}, {"varying", true}}},
                                {"Beta.Odd", "not an entry"}}}};
  std::ofstream(cache) << kept.dump();
  EXPECT_EQ(varying_reference_tests(cache), std::vector<std::string>{"Beta.Timed"});
  std::ofstream(cache, std::ios::trunc) << "{ not json";
  EXPECT_TRUE(varying_reference_tests(cache).empty());
}
