#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace launchlab::cli {

/// What `launchlab inspect` does once prepared: exit with `status`, or run
/// `program` with its arguments.
struct InspectStep {
  std::optional<int> status;
  std::filesystem::path program;
};

/// What `launchlab inspect TOOL ARGS...` does before it runs the tool.
/// Help (the tools' list, a tool's --help) is answered at once from
/// autograder/inspect/help.json. Otherwise it builds the tool's own program
/// from the learner's lab (every tool's, for a tool it does not know),
/// showing a line per build step, and checks the labs the tool runs: one
/// that is still its starter stops it with the lab to solve first.
InspectStep prepare_inspect(const std::filesystem::path& root, const std::filesystem::path& build,
                            const std::vector<std::string>& args);

}  // namespace launchlab::cli
