// `launchlab inspect pushbuf FILE [--json]`: a pushbuffer segment (little-endian
// 32-bit words) split into method groups by lab 06's parse_pushbuffer.
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>

#include "channels.h"
#include "tool.h"

namespace {

int run_pushbuf(const std::vector<std::string>& args) {
  std::optional<std::string> file;
  bool json = false;
  for (const std::string& arg : args) {
    if (arg == "--json") {
      json = true;
    } else if (!arg.empty() && arg[0] != '-' && !file) {
      file = arg;
    } else {
      throw std::runtime_error("unexpected argument '" + arg + "'; usage: pushbuf FILE [--json]");
    }
  }
  if (!file) throw std::runtime_error("usage: pushbuf FILE [--json]");
  std::ifstream in(*file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + *file);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  using namespace launchlab::channels;
  const std::vector<MethodGroup> groups = parse_pushbuffer(launchlab::qmd::words_from_bytes(bytes));
  std::cout << (json ? to_json(groups) : to_text(groups));
  return 0;
}

}  // namespace

LAUNCHLAB_INSPECT_TOOL({"pushbuf", "pushbuf FILE [--json]", "06_channels", run_pushbuf});
