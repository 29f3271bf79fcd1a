// `launchlab inspect qmd FILE --qmd-version 3|4|5 [--json]`: a QMD file
// (little-endian 32-bit words) decoded by lab 07's decode().
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>

#include "qmd.h"
#include "tool.h"

namespace {

int run_qmd(const std::vector<std::string>& args) {
  std::optional<std::string> file;
  std::optional<std::string> version;
  bool json = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--qmd-version" && i + 1 < args.size()) {
      version = args[++i];
    } else if (args[i].rfind("--qmd-version=", 0) == 0) {
      version = args[i].substr(14);
    } else if (!args[i].empty() && args[i][0] != '-' && !file) {
      file = args[i];
    } else {
      throw std::runtime_error("unexpected argument '" + args[i] + "'; usage: qmd FILE --qmd-version 3|4|5 [--json]");
    }
  }
  if (!file || !version) throw std::runtime_error("usage: qmd FILE --qmd-version 3|4|5 [--json]");
  std::ifstream in(*file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + *file);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  using namespace launchlab::qmd;
  const Qmd q = decode(words_from_bytes(bytes), version_from_number(*version));
  std::cout << (json ? to_json(q) : to_text(q));
  return 0;
}

}  // namespace

LAUNCHLAB_INSPECT_TOOL({"qmd", "qmd FILE --qmd-version 3|4|5 [--json]", "07_qmd", run_qmd});
