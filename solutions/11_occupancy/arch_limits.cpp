// The documented limits of each architecture. Sources: the CUDA C++
// Programming Guide's table "Technical Specifications per Compute
// Capability" and its sections on shared memory per compute capability, and
// cuda_occupancy.h of the CUDA 13.0 toolkit (NVIDIA's own calculator: the
// blocks per SM, the allocation granularities, the capacities of the carveout).

#include <stdexcept>
#include <string>

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

  int shared_kib = 0;
  switch (sm) {
    case 80:  // A100
      a.max_threads_per_sm = 2048;
      a.max_blocks_per_sm = 32;
      shared_kib = 164;
      a.shared_capacities_kib = {0, 8, 16, 32, 64, 100, 132, 164};
      break;
    case 86:  // GA10x
      a.max_threads_per_sm = 1536;
      a.max_blocks_per_sm = 16;
      shared_kib = 100;
      a.shared_capacities_kib = {0, 8, 16, 32, 64, 100};
      break;
    case 89:  // Ada
      a.max_threads_per_sm = 1536;
      a.max_blocks_per_sm = 24;
      shared_kib = 100;
      a.shared_capacities_kib = {0, 8, 16, 32, 64, 100};
      break;
    case 90:   // Hopper
    case 100:  // Blackwell (B200)
      a.max_threads_per_sm = 2048;
      a.max_blocks_per_sm = 32;
      shared_kib = 228;
      a.shared_capacities_kib = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
      break;
    case 120:  // Blackwell (GeForce RTX 50)
      a.max_threads_per_sm = 1536;
      a.max_blocks_per_sm = 24;
      shared_kib = 100;
      a.shared_capacities_kib = {0, 8, 16, 32, 64, 100};
      break;
    default:
      throw std::invalid_argument("arch_limits: no documented limits for sm_" + std::to_string(sm) +
                                  " in this lab (known: 80, 86, 89, 90, 100, 120)");
  }
  a.max_warps_per_sm = a.max_threads_per_sm / a.warp_size;
  a.max_shared_per_sm = shared_kib * 1024;
  a.max_shared_per_block_optin = a.max_shared_per_sm - a.reserved_shared_per_block;
  return a;
}

}  // namespace launchlab::occupancy
