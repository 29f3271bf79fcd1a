/// @file
/// A test program's transcript (launchlab/transcript.h in the test support),
/// as the judge reads it. Nothing in it is trusted: it is data the learner's
/// program wrote, and every line that does not fit is set aside.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "launchlab/record_check.h"

namespace launchlab::grader {

/// One RECORD_* of a test.
struct TranscriptRecord {
  std::string key;           ///< the expression's text, '#', its occurrence in the test
  nlohmann::json value;
  std::string context;
  /// The reference's half: the comparison and what it compares with.
  std::optional<testing::Check> check;
  nlohmann::json expected;
  nlohmann::json parameter;

  /// The key without its occurrence count: the expression as written.
  std::string expression() const;
};

/// What one test wrote, from its start to its end.
struct TestTranscript {
  bool ended = false;
  bool skipped = false;
  std::string skip_message;
  std::vector<std::string> failures;       ///< GoogleTest failures outside records
  std::vector<TranscriptRecord> records;   ///< in the order they were made
  std::vector<std::string> repeated_keys;  ///< keys written more than once
  bool started_twice = false;
};

/// The first record of a test whose expression is `expression` (as
/// written, without its occurrence count); nothing when the test has none.
const TranscriptRecord* first_record(const TestTranscript& test, std::string_view expression);

/// A whole transcript.
struct Transcript {
  std::string build;                     ///< "exercise" or "reference", as the program says
  bool done = false;                     ///< GoogleTest's run reached its end
  std::map<std::string, TestTranscript> tests;
  std::optional<std::string> in_progress;  ///< the test that started last and did not end
  std::vector<std::string> problems;       ///< lines that were refused, and why
};

/// What the parser takes from one line at most: a longer line, or one nested
/// deeper, is refused before it is parsed (it counts as a line no test wrote).
inline constexpr std::size_t kTranscriptLineLimit = 4u << 20;
inline constexpr std::size_t kTranscriptDepthLimit = 64;
/// A test's name and a record's key are the course's words, compared whole:
/// a longer one refuses its line.
inline constexpr std::size_t kTranscriptNameLimit = 4096;
/// What is kept of the texts a line carries (learner_text, text.h).
inline constexpr std::size_t kTranscriptContextLimit = 2048;
inline constexpr std::size_t kTranscriptMessageLimit = 4096;
inline constexpr std::size_t kTranscriptFailuresKept = 5;

/// Reads a transcript; an unfinished last line is left out. Every line is
/// untrusted: one that is too long, too deep, not JSON, or has a member of
/// the wrong type is refused (Transcript::problems) and the rest is read;
/// never throws for the text's sake.
Transcript parse_transcript(std::string_view text);

/// Merges a later run's transcript (a re-run of the tests left over) into this one.
void merge_transcript(Transcript& into, Transcript&& later);

}  // namespace launchlab::grader
