// compute_occupancy() and arch_limits() against the CUDA runtime of the GPU
// in this machine: the device's own properties, and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor on random configurations of
// kernels whose registers and shared memory the test controls.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "live_device.h"
#include "occupancy_records.h"
#include "occupancy.h"
#include "probe_kernels.cuh"

namespace launchlab::occupancy {
namespace {

using live::current_sm;

// The current device's properties: the truth arch_limits() is compared with.
[[maybe_unused]] cudaDeviceProp device_properties() {
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    throw std::runtime_error("cudaGetDeviceProperties failed");
  }
  return prop;
}

// arch_limits(sm), with whether it threw recorded.
std::optional<ArchLimits> Limits(int sm) {
  std::optional<ArchLimits> limits;
  RECORD_NO_THROW(limits = arch_limits(sm)) << "arch_limits(" << sm << ")";
  return limits;
}

TEST(OccupancyLive, ArchLimitsMatchTheDevicesProperties) {
  LAUNCHLAB_REQUIRE_GPU();
  int sm = 0;
  std::string why;
  if (!current_sm(sm, why)) GTEST_SKIP() << why;
  const std::optional<ArchLimits> a = Limits(sm);
  RECORD_REQUIRE(a.has_value());
  RECORD_SCOPE("arch_limits(" + std::to_string(sm) + ") against cudaGetDeviceProperties of this GPU");
  RECORD_EQ(a->warp_size, device_properties().warpSize) << "warp_size: warpSize";
  RECORD_EQ(a->max_threads_per_block, device_properties().maxThreadsPerBlock)
      << "max_threads_per_block: maxThreadsPerBlock";
  RECORD_EQ(a->max_threads_per_sm, device_properties().maxThreadsPerMultiProcessor)
      << "max_threads_per_sm: maxThreadsPerMultiProcessor";
  RECORD_EQ(a->max_blocks_per_sm, device_properties().maxBlocksPerMultiProcessor)
      << "max_blocks_per_sm: maxBlocksPerMultiProcessor";
  RECORD_EQ(a->registers_per_sm, device_properties().regsPerMultiprocessor)
      << "registers_per_sm: regsPerMultiprocessor";
  RECORD_EQ(a->max_registers_per_block, device_properties().regsPerBlock) << "max_registers_per_block: regsPerBlock";
  RECORD_EQ(a->max_shared_per_sm, device_properties().sharedMemPerMultiprocessor)
      << "max_shared_per_sm: sharedMemPerMultiprocessor";
  RECORD_EQ(a->max_shared_per_block, device_properties().sharedMemPerBlock)
      << "max_shared_per_block: sharedMemPerBlock";
  RECORD_EQ(a->max_shared_per_block_optin, device_properties().sharedMemPerBlockOptin)
      << "max_shared_per_block_optin: sharedMemPerBlockOptin";
  RECORD_EQ(a->reserved_shared_per_block, device_properties().reservedSharedMemPerBlock)
      << "reserved_shared_per_block: reservedSharedMemPerBlock";
}

// A sample as a failure names it: the probe, its resources and launch.
std::string Described(const probes::Sample& s) {
  return s.kernel + " (" + std::to_string(s.registers) + " registers, " + std::to_string(s.static_shared) +
         " B static, max dynamic " + std::to_string(s.max_dynamic_shared) + " B) <<<block " +
         std::to_string(s.block_size) + ", " + std::to_string(s.dynamic_shared) + " B>>>, carveout " +
         std::to_string(s.carveout);
}

// The runtime's answer for a sample, as records::active_blocks() writes it.
[[maybe_unused]] std::string RuntimeAnswer(probes::Sample s) {
  probes::ask_runtime(s);
  if (s.status != cudaSuccess) return std::string("the runtime refused: ") + cudaGetErrorName(s.status);
  return records::active_blocks(s.api_blocks);
}

// Records the calculator's answers against the runtime's on the
// configurations with (or without) a carveout preference among 400 random ones.
void RecordLiveRows(bool with_carveout) {
  int sm = 0;
  std::string why;
  if (!current_sm(sm, why)) GTEST_SKIP() << why;
  const std::optional<ArchLimits> arch = Limits(sm);
  RECORD_REQUIRE(arch.has_value());
  const std::vector<probes::Sample> samples = probes::sample_configurations(20261130u, 400);
  int set_up_failed = 0, unlaunchable = 0;
  std::vector<const probes::Sample*> compared;
  for (const probes::Sample& s : samples) {
    if ((s.carveout >= 0) != with_carveout) continue;
    if (s.status != cudaSuccess) {
      ++set_up_failed;
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
    compared.push_back(&s);
  }
  std::printf("  %zu configurations compared, %d whose set-up the runtime refused, %d left out (dynamic shared memory "
              "above the kernel's maximum)\n",
              compared.size(), set_up_failed, unlaunchable);
  RECORD_GT(compared.size(), 100u) << "the random configurations compared";
  auto lines = [&](const auto& answer) {
    std::string text;
    for (const probes::Sample* s : compared) text += Described(*s) + ": " + answer(*s) + "\n";
    return text;
  };
  KernelResources k;
  LaunchShape l;
  RECORD_EQ(lines([&](const probes::Sample& s) {
              k.registers_per_thread = s.registers;
              k.static_shared_bytes = s.static_shared;
              k.max_dynamic_shared_bytes = s.max_dynamic_shared;
              l.block_size = s.block_size;
              l.dynamic_shared_bytes = s.dynamic_shared;
              l.carveout_percent = s.carveout;
              return records::learners_active_blocks(*arch, k, l);
            }),
            lines([](const probes::Sample& s) { return RuntimeAnswer(s); }))
      << "compute_occupancy(arch_limits(" << sm << "), ...).active_blocks against "
      << "cudaOccupancyMaxActiveBlocksPerMultiprocessor on this GPU: one line per configuration of a probe kernel "
         "whose registers and shared memory the test controls";
}

TEST(OccupancyLive, MatchesTheRuntimeWithoutACarveoutPreference) {
  LAUNCHLAB_REQUIRE_GPU();
  RecordLiveRows(false);
}

TEST(OccupancyLive, MatchesTheRuntimeWithACarveoutPreference) {
  LAUNCHLAB_REQUIRE_GPU();
  RecordLiveRows(true);
}

}  // namespace
}  // namespace launchlab::occupancy
