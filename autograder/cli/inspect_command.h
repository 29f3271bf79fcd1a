#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace launchlab::cli {

/// What `launchlab inspect TOOL ARGS...` does before it runs the tool:
/// builds the inspect tools from the learner's labs, showing a line per
/// build step, and checks the labs the tool runs: one that is still its
/// starter stops it with the lab to solve first. Returns the exit status when
/// the tool must not run, nothing when it may.
std::optional<int> prepare_inspect(const std::filesystem::path& root, const std::filesystem::path& build,
                                   const std::vector<std::string>& args);

}  // namespace launchlab::cli
