#include "launchlab/grader/transcript.h"

#include <algorithm>

#include "launchlab/grader/text.h"

namespace launchlab::grader {
using nlohmann::json;

std::string TranscriptRecord::expression() const {
  std::size_t hash = key.rfind('#');
  return hash == std::string::npos ? key : key.substr(0, hash);
}

const TranscriptRecord* first_record(const TestTranscript& test, std::string_view expression) {
  const auto found = std::ranges::find_if(test.records, [&](const TranscriptRecord& r) { return r.expression() == expression; });
  return found == test.records.end() ? nullptr : &*found;
}

namespace {

std::string string_member(const json& line, const char* name) {
  auto found = line.find(name);
  if (found == line.end() || !found->is_string()) return {};
  return found->get<std::string>();
}

/// A member that, when present, must be a boolean: a line that says
/// "skipped":"no" was not written by the test support.
std::optional<bool> bool_member(const json& line, const char* name, bool absent) {
  auto found = line.find(name);
  if (found == line.end()) return absent;
  if (!found->is_boolean()) return std::nullopt;
  return found->get<bool>();
}

json json_member(const json& line, const char* name) {
  auto found = line.find(name);
  return found == line.end() ? json() : *found;
}

/// How deeply the line's arrays and objects nest, counted on its bytes before
/// it is parsed (the parser recurses, and so do copies of what it returns),
/// stopping as soon as the limit is passed.
bool nests_deeper_than(std::string_view line, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (char c : line) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

}  // namespace

Transcript parse_transcript(std::string_view text) {
  Transcript transcript;
  std::size_t line_number = 0;
  std::optional<std::string> current;
  while (!text.empty()) {
    std::size_t newline = text.find('\n');
    if (newline == std::string_view::npos) break;  // cut off mid-line
    std::string_view raw = text.substr(0, newline);
    text.remove_prefix(newline + 1);
    ++line_number;
    auto refuse = [&](const std::string& why) {
      if (transcript.problems.size() < 20) {
        transcript.problems.push_back("line " + std::to_string(line_number) + ": " + why);
      }
    };
    if (raw.size() > kTranscriptLineLimit) {
      refuse("a line of " + std::to_string(raw.size()) + " bytes, longer than the test support writes");
      continue;
    }
    if (nests_deeper_than(raw, kTranscriptDepthLimit)) {
      refuse("a value nested deeper than " + std::to_string(kTranscriptDepthLimit) + " levels");
      continue;
    }
    json line = json::parse(raw, nullptr, false);
    if (line.is_discarded() || !line.is_object()) {
      refuse("not a JSON object");
      continue;
    }
    // Whatever else is wrong with a line (a member of an unexpected type)
    // refuses that line and nothing more.
    try {
      const std::string event = string_member(line, "event");
      const std::string test = string_member(line, "test");
      if (test.size() > kTranscriptNameLimit) {
        refuse("a test name longer than any test has");
        continue;
      }
      if (event == "program") {
        transcript.build = string_member(line, "build");
      } else if (event == "start") {
        if (test.empty()) {
          refuse("a start without a test");
          continue;
        }
        auto [it, fresh] = transcript.tests.try_emplace(test);
        if (!fresh) it->second.started_twice = true;
        current = test;
        transcript.in_progress = test;
      } else if (event == "record") {
        if (!current || test != *current) {
          refuse("a record outside its test's start and end");
          continue;
        }
        TestTranscript& owner = transcript.tests[test];
        TranscriptRecord record;
        record.key = string_member(line, "key");
        record.context = learner_text(string_member(line, "context"), kTranscriptContextLimit);
        if (record.key.empty() || !line.contains("value")) {
          refuse("a record without its key or value");
          continue;
        }
        if (record.key.size() > kTranscriptNameLimit) {
          refuse("a record key longer than any test's expression");
          continue;
        }
        record.value = json_member(line, "value");
        if (line.contains("check")) {
          record.check = testing::check_from_name(string_member(line, "check"));
          record.expected = json_member(line, "expected");
          record.parameter = json_member(line, "parameter");
          if (!record.check) {
            refuse("a record with an unknown check");
            continue;
          }
        }
        for (const auto& earlier : owner.records) {
          if (earlier.key == record.key) {
            owner.repeated_keys.push_back(record.key);
            break;
          }
        }
        owner.records.push_back(std::move(record));
      } else if (event == "end") {
        if (!current || test != *current) {
          refuse("an end without its start");
          continue;
        }
        const std::optional<bool> skipped = bool_member(line, "skipped", false);
        if (!skipped) {
          refuse("an end whose \"skipped\" is not true or false");
          continue;
        }
        TestTranscript& owner = transcript.tests[test];
        owner.ended = true;
        owner.skipped = *skipped;
        owner.skip_message = learner_text(string_member(line, "skip_message"), kTranscriptMessageLimit);
        if (auto failures = line.find("failures"); failures != line.end() && failures->is_array()) {
          for (const auto& failure : *failures) {
            if (owner.failures.size() == kTranscriptFailuresKept) break;
            owner.failures.push_back(learner_text(
                failure.is_string() ? failure.get<std::string>() : failure.dump(-1, ' ', false, json::error_handler_t::replace),
                kTranscriptMessageLimit));
          }
        }
        current.reset();
        transcript.in_progress.reset();
      } else if (event == "done") {
        transcript.done = true;
      } else {
        refuse("an unknown event");
      }
    } catch (const json::exception& error) {
      refuse(std::string("a line the grader cannot read (") + error.what() + ")");
    }
  }
  return transcript;
}

void merge_transcript(Transcript& into, Transcript&& later) {
  if (into.build.empty()) into.build = later.build;
  for (auto& [name, test] : later.tests) {
    auto found = into.tests.find(name);
    if (found == into.tests.end() || !found->second.ended) into.tests[name] = std::move(test);
  }
  into.done = later.done;
  into.in_progress = later.in_progress;
  for (auto& problem : later.problems) into.problems.push_back(std::move(problem));
}

}  // namespace launchlab::grader
