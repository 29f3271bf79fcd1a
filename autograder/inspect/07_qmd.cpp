// `launchlab inspect qmd FILE --qmd-version 3|4|5 [--json]`: a QMD file
// (little-endian 32-bit words) decoded by lab 07's decode().
#include <iostream>
#include <memory>
#include <string>

#include "launchlab/cli/arguments.h"
#include "qmd.h"
#include "tool.h"

namespace {

struct Args {
  std::string file;
  std::string version;
  bool json = false;
};

int run_qmd(const Args& args) {
  const std::string bytes = launchlab::inspect::file_bytes(args.file);
  using namespace launchlab::qmd;
  const Qmd q = decode(words_from_bytes(bytes), version_from_number(args.version));
  std::cout << (args.json ? to_json(q) : to_text(q));
  return 0;
}

launchlab::inspect::ToolRun qmd_tool(CLI::App& command) {
  auto args = std::make_shared<Args>();
  command.add_option("FILE", args->file, "a QMD: little-endian 32-bit words")->required()->check(launchlab::cli::existing_file());
  command.add_option("--qmd-version", args->version, "the QMD's layout: 3 (Ampere, Ada), 4 (Hopper) or 5 (Blackwell)")
      ->required()->check(CLI::IsMember({"3", "4", "5"}));
  command.add_flag("--json", args->json, "print JSON instead of text");
  return [args] { return run_qmd(*args); };
}

}  // namespace

LAUNCHLAB_INSPECT_TOOL({"qmd", "a QMD decoded field by field", "07_qmd", qmd_tool});
