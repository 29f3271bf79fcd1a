#include "launchlab/grader/transcript.h"

namespace launchlab::grader {
using nlohmann::json;

std::string TranscriptRecord::expression() const {
  std::size_t hash = key.rfind('#');
  return hash == std::string::npos ? key : key.substr(0, hash);
}

namespace {

std::string string_member(const json& line, const char* name) {
  auto found = line.find(name);
  if (found == line.end() || !found->is_string()) return {};
  return found->get<std::string>();
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
    json line = json::parse(raw, nullptr, false);
    auto refuse = [&](const std::string& why) {
      if (transcript.problems.size() < 20) {
        transcript.problems.push_back("line " + std::to_string(line_number) + ": " + why);
      }
    };
    if (line.is_discarded() || !line.is_object()) {
      refuse("not a JSON object");
      continue;
    }
    const std::string event = string_member(line, "event");
    const std::string test = string_member(line, "test");
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
      record.context = string_member(line, "context");
      if (record.key.empty() || !line.contains("value")) {
        refuse("a record without its key or value");
        continue;
      }
      record.value = line["value"];
      if (line.contains("check")) {
        record.check = testing::check_from_name(string_member(line, "check"));
        record.expected = line.value("expected", json());
        record.parameter = line.value("parameter", json());
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
      TestTranscript& owner = transcript.tests[test];
      owner.ended = true;
      owner.skipped = line.value("skipped", false);
      owner.skip_message = string_member(line, "skip_message");
      if (auto failures = line.find("failures"); failures != line.end() && failures->is_array()) {
        for (const auto& failure : *failures) {
          owner.failures.push_back(failure.is_string() ? failure.get<std::string>() : failure.dump());
        }
      }
      current.reset();
      transcript.in_progress.reset();
    } else if (event == "done") {
      transcript.done = true;
    } else {
      refuse("an unknown event");
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
