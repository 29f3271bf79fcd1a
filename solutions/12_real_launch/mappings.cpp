// Part A: the process's mappings.
#include <charconv>
#include <string>

#include "real_launch.h"

namespace launchlab::real_launch {
namespace {

// Reads one field up to the next space (or the end), moving `rest` past it
// and the spaces after it.
std::string_view next_field(std::string_view& rest) {
  const auto space = rest.find(' ');
  std::string_view field = rest.substr(0, space);
  rest = space == std::string_view::npos ? std::string_view() : rest.substr(space);
  const auto more = rest.find_first_not_of(' ');
  rest = more == std::string_view::npos ? std::string_view() : rest.substr(more);
  return field;
}

bool read_number(std::string_view text, int base, std::uint64_t& value) {
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  return error == std::errc() && end == text.data() + text.size();
}

Mapping parse_line(std::string_view line, std::size_t number) {
  auto bad = [&](const std::string& what) {
    return LaunchError("line " + std::to_string(number) + " of the maps: " + what + ": '" + std::string(line) + "'");
  };
  std::string_view rest = line;
  Mapping m;
  const std::string_view range = next_field(rest);
  const auto dash = range.find('-');
  if (dash == std::string_view::npos || !read_number(range.substr(0, dash), 16, m.start) ||
      !read_number(range.substr(dash + 1), 16, m.end)) {
    throw bad("the address range is not START-END in hexadecimal");
  }
  if (m.end < m.start) throw bad("the range ends before it starts");
  m.perms = std::string(next_field(rest));
  if (m.perms.size() != 4 || (m.perms[0] != 'r' && m.perms[0] != '-') || (m.perms[1] != 'w' && m.perms[1] != '-') ||
      (m.perms[2] != 'x' && m.perms[2] != '-') || (m.perms[3] != 's' && m.perms[3] != 'p')) {
    throw bad("the permissions are not four letters like rw-s");
  }
  if (!read_number(next_field(rest), 16, m.offset)) throw bad("the offset is not hexadecimal");
  m.device = std::string(next_field(rest));
  if (m.device.find(':') == std::string::npos) throw bad("the device is not MAJOR:MINOR");
  if (!read_number(next_field(rest), 10, m.inode)) throw bad("the inode is not a decimal number");
  m.path = std::string(rest);
  return m;
}

}  // namespace

std::vector<Mapping> parse_maps(std::string_view text) {
  std::vector<Mapping> maps;
  std::size_t number = 0;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    maps.push_back(parse_line(line, number));
  }
  return maps;
}

std::vector<Mapping> driver_memory(std::span<const Mapping> maps) {
  std::vector<Mapping> kept;
  for (const Mapping& m : maps) {
    if (m.path == kControlDevice && m.perms.size() == 4 && m.perms[0] == 'r' && m.perms[3] == 's') kept.push_back(m);
  }
  return kept;
}

}  // namespace launchlab::real_launch
