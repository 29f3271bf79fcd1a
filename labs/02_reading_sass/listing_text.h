#pragma once
// Given code for sass_listing.cpp: two helpers for reading a listing's text,
// which you may use (or not). Not a student file, and not part of the lab's
// contract (namespace detail).

#include <cctype>
#include <string_view>
#include <vector>

namespace launchlab::sass::detail {

// s without the white space at either end.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits text into lines, without their '\n' (and '\r').
inline std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

}  // namespace launchlab::sass::detail
