// The documented limits of each architecture. Sources: the CUDA C++
// Programming Guide's table "Technical Specifications per Compute
// Capability" and its sections on shared memory per compute capability, and
// cuda_occupancy.h of the CUDA 13.0 toolkit (NVIDIA's own calculator: the
// blocks per SM, the allocation granularities, the capacities of the carveout).

#include <stdexcept>
#include <string>
#include <vector>

#include "occupancy.h"

namespace launchlab::occupancy {

ArchLimits arch_limits(int sm) {
  ArchLimits a;
  a.sm = sm;
  // The same on every architecture since compute capability 7.0.
  a.warp_size = 32;
  a.max_threads_per_block = 1024;
  a.registers_per_sm = 64 * 1024;
  a.max_registers_per_block = 64 * 1024;
  a.max_registers_per_thread = 255;
  a.register_allocation_unit = 256;
  a.register_file_partitions = 4;
  a.max_shared_per_block = 48 * 1024;
  // Since 8.0, 1 KiB of every block's shared memory is the driver's.
  a.reserved_shared_per_block = 1024;
  a.shared_allocation_unit = 128;

  // What differs between architectures. The largest carveout capacity is
  // the SM's whole shared memory.
  struct PerArch {
    int sm;
    int max_threads_per_sm;
    int max_blocks_per_sm;
    std::vector<int> shared_capacities_kib;
  };
  static const PerArch kArchs[] = {
      {80, 2048, 32, {0, 8, 16, 32, 64, 100, 132, 164}},             // A100
      {86, 1536, 16, {0, 8, 16, 32, 64, 100}},                       // GA10x
      {89, 1536, 24, {0, 8, 16, 32, 64, 100}},                       // Ada
      {90, 2048, 32, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}},   // Hopper
      {100, 2048, 32, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}},  // Blackwell (B200)
      {120, 1536, 24, {0, 8, 16, 32, 64, 100}},                      // Blackwell (GeForce RTX 50)
  };
  const PerArch* arch = nullptr;
  for (const PerArch& candidate : kArchs) {
    if (candidate.sm == sm) arch = &candidate;
  }
  if (!arch) {
    throw std::invalid_argument("arch_limits: no documented limits for sm_" + std::to_string(sm) +
                                " in this lab (known: 80, 86, 89, 90, 100, 120)");
  }
  a.max_threads_per_sm = arch->max_threads_per_sm;
  a.max_blocks_per_sm = arch->max_blocks_per_sm;
  a.shared_capacities_kib = arch->shared_capacities_kib;
  a.max_warps_per_sm = a.max_threads_per_sm / a.warp_size;
  a.max_shared_per_sm = a.shared_capacities_kib.back() * 1024;
  a.max_shared_per_block_optin = a.max_shared_per_sm - a.reserved_shared_per_block;
  return a;
}

}  // namespace launchlab::occupancy
