#pragma once

#include <filesystem>
#include <string>

namespace launchlab::cli {

/// `launchlab doctor`: versions (nvcc's "13.0.88", not its build string), the
/// driver (or that there is none), what test, grade, docs, inspect and trace
/// can do here, and the Debian packages (packages.txt) for the rest.
int command_doctor(const std::filesystem::path& root, const std::filesystem::path& build,
                   const std::filesystem::path& cuda_bin, const std::string& architectures);

}  // namespace launchlab::cli
