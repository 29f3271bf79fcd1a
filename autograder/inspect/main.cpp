// launchlab-inspect: dispatches to the tools the built labs provide.
#include <algorithm>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <stdexcept>

#include "launchlab/cli/arguments.h"
#include "tool.h"

namespace launchlab::inspect {
std::vector<Tool>& registry() {
  static std::vector<Tool> tools;
  return tools;
}

std::string file_bytes(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
}  // namespace launchlab::inspect

int main(int argc, char** argv) {
  using launchlab::inspect::registry;
  auto& tools = registry();
  std::sort(tools.begin(), tools.end(), [](const auto& a, const auto& b) { return a.name < b.name; });

  CLI::App app("The tools your labs have built, each running your own lab code.", "launchlab inspect");
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, launchlab::inspect::ToolRun>> commands;
  for (const auto& tool : tools) {
    CLI::App* command = app.add_subcommand(tool.name, tool.summary + " (lab " + tool.lab + ")")->group("Tools");
    commands.emplace_back(command, tool.setup(*command));
  }
  CLI::App* help = app.add_subcommand("help", "this list");
  // Set last: a subcommand takes its parent's footer when it is added.
  app.footer(tools.empty() ? "No tools yet: the labs that provide them are not built."
                           : "`launchlab inspect TOOL --help` gives a tool's arguments.");

  if (argc < 2) {
    std::cout << launchlab::cli::help_of(app);
    return 2;
  }
  if (auto status = launchlab::cli::parse_arguments(app, argc, argv)) return *status;
  if (help->parsed()) {
    std::cout << launchlab::cli::help_of(app);
    return 0;
  }
  for (const auto& [command, run] : commands) {
    if (!command->parsed()) continue;
    try {
      return run();
    } catch (const std::exception& error) {
      std::cerr << "launchlab inspect " << command->get_name() << ": " << error.what() << "\n";
      return 1;
    }
  }
  return 2;
}
