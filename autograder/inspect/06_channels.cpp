// `launchlab inspect pushbuf FILE [--json]`: a pushbuffer segment (little-endian
// 32-bit words) split into method groups by lab 06's parse_pushbuffer.
#include <iostream>
#include <memory>
#include <string>

#include "channels.h"
#include "launchlab/cli/arguments.h"
#include "tool.h"

namespace {

struct Args {
  std::string file;
  bool json = false;
};

int run_pushbuf(const Args& args) {
  const std::string bytes = launchlab::inspect::file_bytes(args.file);
  using namespace launchlab::channels;
  const std::vector<MethodGroup> groups = parse_pushbuffer(launchlab::qmd::words_from_bytes(bytes));
  std::cout << (args.json ? to_json(groups) : to_text(groups));
  return 0;
}

launchlab::inspect::ToolRun pushbuf_tool(CLI::App& command) {
  auto args = std::make_shared<Args>();
  command.add_option("FILE", args->file, "a pushbuffer segment: little-endian 32-bit words")->required()->check(launchlab::cli::existing_file());
  command.add_flag("--json", args->json, "print JSON instead of text");
  return [args] { return run_pushbuf(*args); };
}

}  // namespace

LAUNCHLAB_INSPECT_TOOL({"pushbuf", "a pushbuffer segment split into method groups", "06_channels", pushbuf_tool});
