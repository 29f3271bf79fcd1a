#include "launchlab/grader/text.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace launchlab::grader {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

/// The length of the well-formed UTF-8 sequence at the start of bytes (RFC
/// 3629's table: no overlong forms, no surrogates, nothing past U+10FFFF),
/// or 0 when there is none.
std::size_t sequence_length(std::string_view bytes) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(bytes[i]); };
  const auto continuation = [&](std::size_t i, std::uint8_t low = 0x80, std::uint8_t high = 0xBF) {
    return i < bytes.size() && byte(i) >= low && byte(i) <= high;
  };
  const std::uint8_t first = byte(0);
  if (first < 0x80) return 1;
  if (first >= 0xC2 && first <= 0xDF) return continuation(1) ? 2 : 0;
  if (first >= 0xE0 && first <= 0xEF) {
    const std::uint8_t low = first == 0xE0 ? 0xA0 : 0x80;
    const std::uint8_t high = first == 0xED ? 0x9F : 0xBF;
    return continuation(1, low, high) && continuation(2) ? 3 : 0;
  }
  if (first >= 0xF0 && first <= 0xF4) {
    const std::uint8_t low = first == 0xF0 ? 0x90 : 0x80;
    const std::uint8_t high = first == 0xF4 ? 0x8F : 0xBF;
    return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

bool shown_as_is(char c) { return c == '\n' || c == '\t' || static_cast<unsigned char>(c) >= 0x20; }

/// Every character of the text, each as valid UTF-8.
std::vector<std::string_view> characters(std::string_view bytes) {
  std::vector<std::string_view> pieces;
  while (!bytes.empty()) {
    std::size_t length = sequence_length(bytes);
    if (length == 0 || (length == 1 && !shown_as_is(bytes.front())) || bytes.substr(0, length) == "\x7F") {
      pieces.push_back(kReplacement);
      length = 1;
    } else {
      pieces.push_back(bytes.substr(0, length));
    }
    bytes.remove_prefix(length);
  }
  return pieces;
}

}  // namespace

std::string learner_text(std::string_view bytes, std::size_t max_bytes, KeepEnd keep) {
  const std::vector<std::string_view> pieces = characters(bytes);
  std::size_t total = 0;
  for (const auto piece : pieces) total += piece.size();
  std::string text;
  if (total <= max_bytes) {
    text.reserve(total);
    for (const auto piece : pieces) text += piece;
    return text;
  }
  // The note about the cut counts against the bound too, so that the bound
  // holds for the whole result.
  const std::string note_head = "[... ";
  const std::string note_tail = " bytes cut ...]";
  const std::size_t note_size = note_head.size() + std::to_string(total).size() + note_tail.size() + 1;
  const std::size_t room = max_bytes > note_size ? max_bytes - note_size : 0;
  std::size_t kept = 0, count = 0;
  if (keep == KeepEnd::head) {
    while (count < pieces.size() && kept + pieces[count].size() <= room) kept += pieces[count++].size();
    for (std::size_t i = 0; i < count; ++i) text += pieces[i];
    const std::string note = note_head + std::to_string(total - kept) + note_tail;
    if (text.size() + 1 + note.size() <= max_bytes) text += "\n" + note;
  } else {
    while (count < pieces.size() && kept + pieces[pieces.size() - 1 - count].size() <= room) {
      kept += pieces[pieces.size() - 1 - count++].size();
    }
    const std::string note = note_head + std::to_string(total - kept) + note_tail;
    if (kept + 1 + note.size() <= max_bytes) text = note + "\n";
    for (std::size_t i = pieces.size() - count; i < pieces.size(); ++i) text += pieces[i];
  }
  return text;
}

std::string fenced_block(std::string_view text) {
  std::size_t longest_run = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest_run = std::max(longest_run, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest_run + 1), '`');
  std::string block = fence + "\n";
  block += text;
  if (!text.empty() && text.back() != '\n') block += "\n";
  return block + fence;
}

}  // namespace launchlab::grader
