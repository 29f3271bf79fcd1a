// launchlab-inspect: dispatches to the tools the built labs provide.
#include <algorithm>
#include <exception>
#include <iostream>

#include "tool.h"

namespace launchlab::inspect {
std::vector<Tool>& registry() {
  static std::vector<Tool> tools;
  return tools;
}
}  // namespace launchlab::inspect

int main(int argc, char** argv) {
  using launchlab::inspect::registry;
  auto& tools = registry();
  std::sort(tools.begin(), tools.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "help") {
    std::cout << "usage: launchlab inspect TOOL ARGS...\n\nThe tools your labs have built:\n";
    for (const auto& tool : tools) std::cout << "  " << tool.usage << "    (lab " << tool.lab << ")\n";
    if (tools.empty()) std::cout << "  (none: the labs that provide tools are not built)\n";
    return args.empty() ? 2 : 0;
  }
  auto found = std::find_if(tools.begin(), tools.end(), [&](const auto& tool) { return tool.name == args[0]; });
  if (found == tools.end()) {
    std::cerr << "launchlab inspect: no tool '" << args[0] << "'; `launchlab inspect help` lists them\n";
    return 2;
  }
  try {
    return found->run(std::vector<std::string>(args.begin() + 1, args.end()));
  } catch (const std::exception& error) {
    std::cerr << "launchlab inspect " << found->name << ": " << error.what() << "\n";
    return 1;
  }
}
