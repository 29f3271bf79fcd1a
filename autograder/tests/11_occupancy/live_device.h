// The GPU of the machine, for the tests that compare the calculator with
// what runs on it (live_test.cu, ncu_test.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace launchlab::occupancy::live {

/// The architecture of the current device (10 * major + minor), or a reason to skip.
inline bool current_sm(int& sm, std::string& why) {
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    why = "cannot ask the runtime for the device's compute capability";
    return false;
  }
  sm = major * 10 + minor;
  for (int known : {80, 86, 89, 90, 100, 120}) {
    if (sm == known) return true;
  }
  why = "this lab documents sm_80, 86, 89, 90, 100 and 120; this GPU is sm_" + std::to_string(sm);
  return false;
}

}  // namespace launchlab::occupancy::live
