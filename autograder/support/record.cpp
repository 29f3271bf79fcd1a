#include "launchlab/record.h"
#include "launchlab/transcript.h"

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace launchlab::testing {
using nlohmann::json;

namespace {

struct TranscriptState {
  std::mutex mutex;
  int fd = -1;
  std::string test;                          // the test running now
  std::map<std::string, int> occurrences;    // per expression text, in this test
  std::vector<std::string> scopes;
  bool seeded = false;                       // the test running now read the seed
};

TranscriptState& state() {
  static TranscriptState* s = new TranscriptState;  // never destroyed: records may come late
  return *s;
}

void write_line(int fd, const json& line) {
  if (fd < 0) return;
  std::string text = line.dump(-1, ' ', false, json::error_handler_t::replace);
  text += '\n';
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
    if (wrote <= 0) return;
    done += static_cast<std::size_t>(wrote);
  }
}

std::string current_context(const std::string& own) {
  std::string context;
  for (const auto& scope : state().scopes) {
    if (!context.empty()) context += "; ";
    context += scope;
  }
  if (!own.empty()) {
    if (!context.empty()) context += "; ";
    context += own;
  }
  return context;
}

void write_record(const std::string& expression, Check check, const json& actual, const json* expected,
                  const json& parameter, const std::string& context) {
  TranscriptState& s = state();
  std::lock_guard lock(s.mutex);
  json line = {{"event", "record"},
               {"test", s.test},
               {"key", expression + "#" + std::to_string(++s.occurrences[expression])},
               {"value", actual}};
  std::string full_context = current_context(context);
  if (!full_context.empty()) line["context"] = full_context;
  if (expected) {
    line["check"] = check_name(check);
    line["expected"] = *expected;
    if (!parameter.is_null()) line["parameter"] = parameter;
  }
  write_line(s.fd, line);
}

}  // namespace

void open_transcript_from_environment() {
  TranscriptState& s = state();
  if (const char* fd = std::getenv("LAUNCHLAB_TRANSCRIPT_FD")) {
    char* end = nullptr;
    long value = std::strtol(fd, &end, 10);
    if (end && *end == '\0' && value > 2) s.fd = static_cast<int>(value);
    unsetenv("LAUNCHLAB_TRANSCRIPT_FD");
  }
  write_line(s.fd, {{"event", "program"}, {"build", kReferenceBuild ? "reference" : "exercise"}});
}

void transcript_test_started(const std::string& test) {
  TranscriptState& s = state();
  std::lock_guard lock(s.mutex);
  s.test = test;
  s.occurrences.clear();
  s.scopes.clear();
  s.seeded = false;
  write_line(s.fd, {{"event", "start"}, {"test", test}});
}

void transcript_test_ended(const std::string& test, bool skipped, const std::string& skip_message,
                           const std::vector<std::string>& failures) {
  TranscriptState& s = state();
  std::lock_guard lock(s.mutex);
  json line = {{"event", "end"}, {"test", test}, {"skipped", skipped}};
  if (skipped) line["skip_message"] = skip_message;
  if (!failures.empty()) line["failures"] = failures;
  if (s.seeded) line["seeded"] = true;
  write_line(s.fd, line);
  s.test.clear();
}

void transcript_test_read_the_seed() {
  TranscriptState& s = state();
  std::lock_guard lock(s.mutex);
  s.seeded = true;
}

void transcript_program_ended() {
  TranscriptState& s = state();
  std::lock_guard lock(s.mutex);
  write_line(s.fd, {{"event", "done"}});
}

RecordScope::RecordScope(std::string text) {
  std::lock_guard lock(state().mutex);
  state().scopes.push_back(std::move(text));
}

RecordScope::~RecordScope() {
  std::lock_guard lock(state().mutex);
  if (!state().scopes.empty()) state().scopes.pop_back();
}

Record::Record(const char* expression, Check check, json actual, const char* file, int line)
    : expression_(expression), check_(check), actual_(std::move(actual)), file_(file), line_(line) {}

Record& Record::expect(json expected, json parameter) {
  if constexpr (kReferenceBuild) {
    expected_ = std::move(expected);
    parameter_ = std::move(parameter);
    has_expected_ = true;
  }
  return *this;
}

Record& Record::expect_own_value() { return expect(actual_); }

Record::~Record() {
  if constexpr (kReferenceBuild) {
    // is_true, is_false and holds carry their expected value in their name.
    if (!has_expected_) {
      if (check_ == Check::is_true || check_ == Check::holds) expected_ = true;
      if (check_ == Check::is_false) expected_ = false;
      has_expected_ = true;
    }
    write_record(expression_, check_, actual_, &expected_, parameter_, context_);
    CheckResult result = check_value(check_, actual_, expected_, parameter_);
    agreed_ = result.agrees;
    if (!result.agrees) {
      std::string context = current_context(context_);
      GTEST_MESSAGE_AT_(file_, line_,
                        ((context.empty() ? std::string() : context + "\n") + expression_ + ": " + result.explanation).c_str(),
                        ::testing::TestPartResult::kNonFatalFailure);
    }
  } else {
    write_record(expression_, check_, actual_, nullptr, nullptr, context_);
  }
}

bool record_requirement(const char* expression, bool held, const char* file, int line) {
  Record(expression, Check::holds, held, file, line);
  return held;
}

}  // namespace launchlab::testing
