/// @file
/// The versions of the tools the course uses, as a person reads them
/// ("13.0.88", not nvcc's build string): doctor prints them, and a student
/// edition records which nvcc made its expectations.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace launchlab::cli {

/// The last version number (1.2 or 1.2.3...) on the first line of text that
/// holds `hint` (the first line when hint is empty); "" when there is none.
/// "Cuda compilation tools, release 13.0, V13.0.88" gives "13.0.88".
std::string version_in(const std::string& text, const std::string& hint = "");

/// What a command prints (stdout and stderr), "" when it cannot be run or fails.
std::string output_of(const std::vector<std::string>& argv);

/// The version a program prints for `program --version`, "" when it is not there.
std::string tool_version(const std::string& program, const std::string& hint = "");

/// nvcc's version, from the CUDA toolkit's bin folder.
std::string nvcc_version(const std::filesystem::path& cuda_bin);

}  // namespace launchlab::cli
