#include "launchlab/cli/versions.h"

#include <cstdlib>
#include <regex>
#include <sstream>

#include "launchlab/grader/process.h"

namespace launchlab::cli {
namespace fs = std::filesystem;

std::string version_in(const std::string& text, const std::string& hint) {
  std::istringstream lines(text);
  std::string line;
  static const std::regex kVersion(R"([0-9]+(\.[0-9]+)+)");
  while (std::getline(lines, line)) {
    if (!hint.empty() && line.find(hint) == std::string::npos) continue;
    std::string last;
    for (std::sregex_iterator it(line.begin(), line.end(), kVersion), end; it != end; ++it) last = it->str();
    if (!last.empty()) return last;
  }
  return "";
}

std::string output_of(const std::vector<std::string>& argv) {
  grader::RunLimits limits;
  limits.timeout = std::chrono::seconds(20);
  try {
    grader::RunOutcome outcome = grader::run_limited(argv, {}, {}, limits);
    return outcome.exited_cleanly() ? outcome.output : "";
  } catch (const std::exception&) {
    return "";
  }
}

std::string tool_version(const std::string& program, const std::string& hint) {
  return version_in(output_of({program, "--version"}), hint);
}

std::string nvcc_version(const std::filesystem::path& cuda_bin) {
  return tool_version((cuda_bin / "nvcc").string(), "release");
}

std::string found_tool(const std::string& tool, const grader::Capabilities& capabilities) {
  const auto found = capabilities.tool_paths.find(tool);
  if (found == capabilities.tool_paths.end()) return "";
  const std::string version = tool_version(found->second.string());
  if (version.empty()) return "found at " + found->second.string() + ", but its --version names no version";
  return version + " (" + found->second.string() + ")";
}

std::string open_gpu_doc_checkout() {
  const char* checkout = std::getenv("LAUNCHLAB_OPEN_GPU_DOC");
  const std::string how = "git clone https://github.com/NVIDIA/open-gpu-doc and set LAUNCHLAB_OPEN_GPU_DOC to its folder";
  if (!checkout || !*checkout) return "LAUNCHLAB_OPEN_GPU_DOC is not set (" + how + ")";
  std::error_code error;
  if (!fs::is_directory(checkout, error)) {
    return "LAUNCHLAB_OPEN_GPU_DOC is " + std::string(checkout) + ", which is not a folder (" + how + ")";
  }
  // Lab 07 reads NVIDIA's QMD headers from there.
  const fs::path qmd_headers = fs::path(checkout) / "classes" / "compute";
  if (!fs::is_directory(qmd_headers, error)) {
    return "LAUNCHLAB_OPEN_GPU_DOC is " + std::string(checkout) + ", which has no classes/compute/: not a checkout of "
           "NVIDIA's open-gpu-doc (" + how + ")";
  }
  return std::string(checkout) + " (LAUNCHLAB_OPEN_GPU_DOC)";
}

}  // namespace launchlab::cli
