#include "versions.h"

#include <regex>
#include <sstream>

#include "launchlab/grader/process.h"

namespace launchlab::cli {

std::string version_in(const std::string& text, const std::string& hint) {
  std::istringstream lines(text);
  std::string line;
  static const std::regex kVersion(R"([0-9]+(\.[0-9]+)+)");
  while (std::getline(lines, line)) {
    if (!hint.empty() && line.find(hint) == std::string::npos) continue;
    std::string last;
    for (std::sregex_iterator it(line.begin(), line.end(), kVersion), end; it != end; ++it) last = it->str();
    return last;
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

}  // namespace launchlab::cli
