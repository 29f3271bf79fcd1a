// compute_occupancy() and arch_limits() against the CUDA runtime of the GPU
// in this machine: the device's own properties, and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor on random configurations of
// kernels whose registers and shared memory the test controls.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>

#include "launchlab/testing.h"
#include "occupancy.h"
#include "probe_kernels.cuh"

namespace launchlab::occupancy {
namespace {

// The architecture of the current device, or a reason to skip.
bool current_sm(int& sm, cudaDeviceProp& prop, std::string& why) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    why = "cudaGetDeviceProperties failed";
    return false;
  }
  sm = prop.major * 10 + prop.minor;
  for (int known : {80, 86, 89, 90, 100, 120}) {
    if (sm == known) return true;
  }
  why = "this lab documents sm_80, 86, 89, 90, 100 and 120; this GPU is sm_" + std::to_string(sm);
  return false;
}

TEST(OccupancyLive, ArchLimitsMatchTheDevicesProperties) {
  LAUNCHLAB_REQUIRE_GPU();
  int sm = 0;
  cudaDeviceProp prop{};
  std::string why;
  if (!current_sm(sm, prop, why)) GTEST_SKIP() << why;
  ArchLimits a;
  try {
    a = arch_limits(sm);
  } catch (const std::exception& e) {
    FAIL() << "arch_limits(" << sm << ") threw: " << e.what();
  }
  SCOPED_TRACE(std::string(prop.name) + ", sm_" + std::to_string(sm) + ": cudaDeviceProp against arch_limits");
  EXPECT_EQ(a.warp_size, prop.warpSize) << "warpSize";
  EXPECT_EQ(a.max_threads_per_block, prop.maxThreadsPerBlock) << "maxThreadsPerBlock";
  EXPECT_EQ(a.max_threads_per_sm, prop.maxThreadsPerMultiProcessor) << "maxThreadsPerMultiProcessor";
  EXPECT_EQ(a.max_blocks_per_sm, prop.maxBlocksPerMultiProcessor) << "maxBlocksPerMultiProcessor";
  EXPECT_EQ(a.registers_per_sm, prop.regsPerMultiprocessor) << "regsPerMultiprocessor";
  EXPECT_EQ(a.max_registers_per_block, prop.regsPerBlock) << "regsPerBlock";
  EXPECT_EQ(static_cast<std::size_t>(a.max_shared_per_sm), prop.sharedMemPerMultiprocessor)
      << "sharedMemPerMultiprocessor";
  EXPECT_EQ(static_cast<std::size_t>(a.max_shared_per_block), prop.sharedMemPerBlock) << "sharedMemPerBlock";
  EXPECT_EQ(static_cast<std::size_t>(a.max_shared_per_block_optin), prop.sharedMemPerBlockOptin)
      << "sharedMemPerBlockOptin";
  EXPECT_EQ(static_cast<std::size_t>(a.reserved_shared_per_block), prop.reservedSharedMemPerBlock)
      << "reservedSharedMemPerBlock";
}

// Compares the calculator with the runtime on the configurations with (or
// without) a carveout preference among 400 random ones.
void ExpectLiveRows(bool with_carveout) {
  int sm = 0;
  cudaDeviceProp prop{};
  std::string why;
  if (!current_sm(sm, prop, why)) GTEST_SKIP() << why;
  ArchLimits arch;
  try {
    arch = arch_limits(sm);
  } catch (const std::exception& e) {
    FAIL() << "arch_limits(" << sm << ") threw: " << e.what();
  }
  const auto samples = probes::sample_runtime(20261130u, 400);
  int compared = 0, refused = 0, unlaunchable = 0, mismatches = 0;
  std::ostringstream first;
  for (const probes::Sample& s : samples) {
    if ((s.carveout >= 0) != with_carveout) continue;
    if (s.api_blocks < 0) {
      ++refused;
      continue;
    }
    // Dynamic shared memory above the kernel's maxDynamicSharedSizeBytes (as
    // the sample set it) is a launch the kernel has not opted into. NVIDIA's
    // calculator, cuda_occupancy.h, counts 0 blocks for it
    // (dynamicSmemSizeExceeded), and so does the lab's contract (occupancy.h);
    // the runtime's answer for it is not documented, and on an H200 (driver
    // 580.159.04) it said 1 for probe<40> with 37,078 B against a maximum of
    // 1,672 B while saying 0 where the total was above 48 KiB. With two
    // NVIDIA sources apart and no documented rule, such samples are no truth
    // to grade by: they are left out (the CPU tests check the contract's 0).
    if (s.dynamic_shared > s.max_dynamic_shared) {
      ++unlaunchable;
      continue;
    }
    KernelResources k;
    k.registers_per_thread = s.registers;
    k.static_shared_bytes = s.static_shared;
    k.max_dynamic_shared_bytes = s.max_dynamic_shared;
    LaunchShape l;
    l.block_size = s.block_size;
    l.dynamic_shared_bytes = s.dynamic_shared;
    l.carveout_percent = s.carveout;
    int yours = -1;
    try {
      yours = compute_occupancy(arch, k, l).active_blocks;
    } catch (const std::exception& e) {
      FAIL() << s.kernel << ": compute_occupancy threw: " << e.what();
    }
    ++compared;
    if (yours != s.api_blocks && mismatches++ < 8) {
      first << "\n  " << s.kernel << " (" << s.registers << " registers, " << s.static_shared
            << " B static, max dynamic " << s.max_dynamic_shared << " B) <<<block " << s.block_size << ", "
            << s.dynamic_shared << " B>>>, carveout " << s.carveout << ": the runtime says " << s.api_blocks
            << ", you " << yours;
    }
  }
  std::printf("  %d configurations compared, %d refused by the runtime, %d left out (dynamic shared memory above "
              "the kernel's maximum)\n",
              compared, refused, unlaunchable);
  ASSERT_GT(compared, 100) << "the runtime refused " << refused << " configurations";
  EXPECT_EQ(mismatches, 0) << mismatches << " of " << compared
                           << " configurations differ from cudaOccupancyMaxActiveBlocksPerMultiprocessor; the first:"
                           << first.str();
}

TEST(OccupancyLive, MatchesTheRuntimeWithoutACarveoutPreference) {
  LAUNCHLAB_REQUIRE_GPU();
  ExpectLiveRows(false);
}

TEST(OccupancyLive, MatchesTheRuntimeWithACarveoutPreference) {
  LAUNCHLAB_REQUIRE_GPU();
  ExpectLiveRows(true);
}

}  // namespace
}  // namespace launchlab::occupancy
