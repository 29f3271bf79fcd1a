// What the tests of 05_driver_and_modules share: images nvcc makes at test
// time from kernels/*.cu, the device's architecture, and cold starts run in
// fresh processes of this same test program (see kColdStartVariable).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver.h"
#include "launchlab/testing.h"

namespace launchlab::driver {

/// An image kind as the tests record it: "Cubin", "Fatbin", "Ptx" or "Unknown".
inline nlohmann::json record_value(ImageKind kind) {
  switch (kind) {
    case ImageKind::Cubin: return "Cubin";
    case ImageKind::Fatbin: return "Fatbin";
    case ImageKind::Ptx: return "Ptx";
    case ImageKind::Unknown: return "Unknown";
  }
  return "ImageKind " + std::to_string(static_cast<int>(kind));
}

}  // namespace launchlab::driver

namespace launchlab::driver_tests {

/// An image nvcc wrote: `nvcc <kind> -arch=<arch> kernels/<source> -o <path>`.
struct Compiled {
  std::filesystem::path path;
  std::vector<std::byte> bytes;  ///< the file as nvcc wrote it (PTX without a trailing NUL)
};

/// Compiles once per test program and keeps the result; kind is "-cubin",
/// "-ptx" or "-fatbin", arch "sm_90" or "compute_90". Throws
/// std::runtime_error with nvcc's output when nvcc fails.
const Compiled& compile(const std::string& source, const std::string& kind, const std::string& arch);

/// The PTX nvcc writes for compute_75, the oldest architecture nvcc 13.0
/// compiles for, which ptxas can assemble for any later GPU.
const Compiled& ptx75(const std::string& source);
/// `ptxas -arch=sm_<sm>` of ptx75(source): the cubin nvcc would make, in a
/// fraction of nvcc's time.
const Compiled& assemble(const std::string& source, int sm);
/// `fatbinary --create` of assemble(source, sm) and ptx75(source).
const Compiled& fatbin(const std::string& source, int sm);

/// The bytes followed by one NUL: how the tests hand PTX to the driver.
std::vector<std::byte> nul_terminated(const std::vector<std::byte>& bytes);

/// The compute capability of device 0, as the driver reports it ("90");
/// needs the driver.
std::string device_arch();

/// The name of a CUresult ("CUDA_ERROR_NOT_FOUND"), or its number.
std::string error_name(CUresult status);

/// What a call of the lab's driver code did, as the tests record it:
/// "CUDA_SUCCESS" when it threw nothing, the name of a DriverError's code
/// (adding ", but its message does not name it: ..." when what() lacks the
/// name), or "another exception: ..." for anything else.
template <class Call>
std::string driver_outcome(Call&& call) {
  try {
    call();
  } catch (const launchlab::driver::DriverError& e) {
    const std::string name = error_name(e.code());
    if (std::string(e.what()).find(name) == std::string::npos) {
      return name + ", but its message does not name it: " + e.what();
    }
    return name;
  } catch (const std::exception& e) {
    return std::string("another exception: ") + e.what();
  }
  return "CUDA_SUCCESS";
}

/// The kernel of many.cu that the cold starts launch, and what it writes
/// for kValue (kN writes value + N).
inline constexpr const char* kKernel = "k1234";
inline constexpr int kValue = 1000;
inline constexpr int kExpected = kValue + 1234;
/// The number of kernels in many.cu.
inline constexpr unsigned kManyKernels = 256;

// ---- cold starts in fresh processes ----------------------------------------

/// How one fresh process is started.
struct TrialSetup {
  std::filesystem::path image;                ///< a .cubin, or a .ptx (NUL-terminated when read)
  std::optional<std::string> module_loading;  ///< CUDA_MODULE_LOADING, or unset
  bool cache_disabled = false;                ///< CUDA_CACHE_DISABLE=1
  std::optional<std::filesystem::path> cache_path;  ///< CUDA_CACHE_PATH
};

/// What one fresh process reported.
struct TrialOutcome {
  bool ok = false;
  std::string error;                     ///< when !ok: what went wrong, with the child's output
  std::map<std::string, double> values;  ///< init_ms, ..., loading_mode, functions, loaded_after_load, ...
  double process_ms = 0;                 ///< from starting the process to its exit, seen from here
  double value(const std::string& key) const;
};

/// Runs cold_start (kKernel, kValue) on the image in a fresh process of this
/// program, with the environment set as asked, and returns what it printed.
TrialOutcome run_trial(const TrialSetup& setup);

/// The environment variable that makes a process of this program run one
/// cold start of the image it names, print one line and exit, before main:
/// run_trial sets it for the fresh processes it starts.
inline constexpr const char* kColdStartVariable = "LAUNCHLAB_COLD_START_IMAGE";

}  // namespace launchlab::driver_tests

/// Skips the current test, saying why, when the driver cannot be used
/// (libcuda.so.1 missing, or cuInit failing).
#define LAUNCHLAB_REQUIRE_DRIVER() LAUNCHLAB_REQUIRE(::launchlab::driver::driver_unavailable_reason(), "the CUDA driver")
