/// @file
/// The versions of the tools the course uses, as a person reads them
/// ("13.0.88", not nvcc's build string): doctor prints them, and a student
/// edition records which nvcc made its expectations.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "launchlab/grader/grading.h"

namespace launchlab::cli {

/// The last version number (1.2 or 1.2.3...) on the first line of text that
/// holds one (and holds `hint`, when hint is not empty); "" when there is
/// none. NVIDIA's tools print a banner first: "Cuda compilation tools,
/// release 13.0, V13.0.88" on their fourth line gives "13.0.88", "Version
/// 2025.3.1.0" on ncu's third "2025.3.1.0".
std::string version_in(const std::string& text, const std::string& hint = "");

/// What a command prints (stdout and stderr), "" when it cannot be run or fails.
std::string output_of(const std::vector<std::string>& argv);

/// The version a program prints for `program --version`, "" when it is not there.
std::string tool_version(const std::string& program, const std::string& hint = "");

/// nvcc's version, from the CUDA toolkit's bin folder.
std::string nvcc_version(const std::filesystem::path& cuda_bin);

/// What doctor says of a need that is a CUDA tool (cuobjdump, nvdisasm, ncu,
/// compute-sanitizer), found where the grader finds it (the capabilities'
/// tool_paths: beside nvcc, else on PATH) and run from there: "13.0.85
/// (/usr/local/cuda/bin/cuobjdump)"; a tool that names no version is still
/// found; "" when it is not installed.
std::string found_tool(const std::string& tool, const grader::Capabilities& capabilities);

/// What doctor says of LAUNCHLAB_OPEN_GPU_DOC: the checkout it names, a value
/// that names no checkout and why, or that it is not set and how to get one.
std::string open_gpu_doc_checkout();

}  // namespace launchlab::cli
