#pragma once
// One inspect tool: `launchlab inspect NAME ARGS...`. A tool source registers
// itself with LAUNCHLAB_INSPECT_TOOL; main.cpp gives each tool a subcommand
// and parses every command line the same way (launchlab/cli/arguments.h).

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace launchlab::inspect {

/// What a tool runs once its arguments are parsed; it returns the exit
/// status, and throws std::exception for bad input (main prints the message).
using ToolRun = std::function<int()>;

/// Declares the tool's arguments on its subcommand and returns what runs
/// with them.
using ToolSetup = std::function<ToolRun(CLI::App& command)>;

struct Tool {
  std::string name;     ///< "cubin"
  std::string summary;  ///< one line for the list of tools
  std::string lab;      ///< the lab whose code it runs, "03_binary_containers"
  ToolSetup setup;
};

std::vector<Tool>& registry();

/// The whole of `file`, byte for byte.
/// @throws std::runtime_error when it cannot be read
std::string file_bytes(const std::string& file);

struct Registrar {
  explicit Registrar(Tool tool) { registry().push_back(std::move(tool)); }
};

}  // namespace launchlab::inspect

#define LAUNCHLAB_INSPECT_CONCAT2(a, b) a##b
#define LAUNCHLAB_INSPECT_CONCAT(a, b) LAUNCHLAB_INSPECT_CONCAT2(a, b)
/// Registers a tool: LAUNCHLAB_INSPECT_TOOL({"cubin", "a cubin's kernels ...", "03_binary_containers", cubin_tool});
#define LAUNCHLAB_INSPECT_TOOL(...)                                                            \
  static const ::launchlab::inspect::Registrar LAUNCHLAB_INSPECT_CONCAT(launchlab_tool_, __LINE__)( \
      ::launchlab::inspect::Tool __VA_ARGS__)
