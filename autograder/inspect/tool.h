#pragma once
// One inspect tool: `launchlab inspect NAME ARGS...`. A tool source registers
// itself with LAUNCHLAB_INSPECT_TOOL; main.cpp dispatches by name.

#include <functional>
#include <string>
#include <vector>

namespace launchlab::inspect {

/// A tool takes its arguments (after its name) and returns the exit status.
/// It throws std::exception for bad input; main prints the message.
using ToolMain = std::function<int(const std::vector<std::string>& args)>;

struct Tool {
  std::string name;   ///< "cubin"
  std::string usage;  ///< "cubin FILE [--json]"
  std::string lab;    ///< the lab whose code it runs, "03_binary_containers"
  ToolMain run;
};

std::vector<Tool>& registry();

struct Registrar {
  explicit Registrar(Tool tool) { registry().push_back(std::move(tool)); }
};

}  // namespace launchlab::inspect

#define LAUNCHLAB_INSPECT_CONCAT2(a, b) a##b
#define LAUNCHLAB_INSPECT_CONCAT(a, b) LAUNCHLAB_INSPECT_CONCAT2(a, b)
/// Registers a tool: LAUNCHLAB_INSPECT_TOOL({"cubin", "cubin FILE [--json]", "03_binary_containers", run_cubin});
#define LAUNCHLAB_INSPECT_TOOL(...)                                                            \
  static const ::launchlab::inspect::Registrar LAUNCHLAB_INSPECT_CONCAT(launchlab_tool_, __LINE__)( \
      ::launchlab::inspect::Tool __VA_ARGS__)
