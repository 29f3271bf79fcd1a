// The tests' own table of documented limits, written out from NVIDIA's
// documents independently of the learner's arch_limits():
//  - threads, warps and blocks per SM, the register file, shared memory per SM
//    and per block: the CUDA C++ Programming Guide, "Technical Specifications
//    per Compute Capability";
//  - the capacities shared memory can be set to: the Programming Guide's
//    sections on compute capabilities 8.x, 9.0, 10.0 and 12.0, and
//    cudaOccAlignUpShmemSizeVoltaPlus in cuda_occupancy.h (CUDA 13.0);
//  - blocks per SM, allocation units, the 4 register-file partitions and the
//    1 KiB reserved per block: cuda_occupancy.h (CUDA 13.0).
#pragma once

#include <cuda_occupancy.h>

#include <vector>

#include "occupancy.h"

namespace launchlab::occupancy::documented {

struct Row {
  int sm;
  int threads_per_sm;
  int blocks_per_sm;
  int shared_kib_per_sm;
  std::vector<int> capacities_kib;
};

inline const std::vector<Row>& rows() {
  static const std::vector<Row> table = {
      {80, 2048, 32, 164, {0, 8, 16, 32, 64, 100, 132, 164}},
      {86, 1536, 16, 100, {0, 8, 16, 32, 64, 100}},
      {89, 1536, 24, 100, {0, 8, 16, 32, 64, 100}},
      {90, 2048, 32, 228, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}},
      {100, 2048, 32, 228, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}},
      {120, 1536, 24, 100, {0, 8, 16, 32, 64, 100}},
  };
  return table;
}

inline ArchLimits limits(int sm) {
  for (const Row& r : rows()) {
    if (r.sm != sm) continue;
    ArchLimits a;
    a.sm = sm;
    a.warp_size = 32;
    a.max_threads_per_block = 1024;
    a.max_threads_per_sm = r.threads_per_sm;
    a.max_warps_per_sm = r.threads_per_sm / 32;
    a.max_blocks_per_sm = r.blocks_per_sm;
    a.registers_per_sm = 65536;
    a.max_registers_per_block = 65536;
    a.max_registers_per_thread = 255;
    a.register_allocation_unit = 256;
    a.register_file_partitions = 4;
    a.max_shared_per_sm = r.shared_kib_per_sm * 1024;
    a.max_shared_per_block = 48 * 1024;
    a.max_shared_per_block_optin = r.shared_kib_per_sm * 1024 - 1024;
    a.reserved_shared_per_block = 1024;
    a.shared_allocation_unit = 128;
    a.shared_capacities_kib = r.capacities_kib;
    return a;
  }
  return ArchLimits{};
}

// The same architecture described to cuda_occupancy.h, as cudaGetDeviceProperties would.
inline cudaOccDeviceProp occ_properties(int sm) {
  const ArchLimits a = limits(sm);
  cudaOccDeviceProp p;
  p.computeMajor = sm / 10;
  p.computeMinor = sm % 10;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsPerMultiprocessor = a.max_threads_per_sm;
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = 65536;
  p.warpSize = 32;
  p.sharedMemPerBlock = 48 * 1024;
  p.sharedMemPerMultiprocessor = static_cast<size_t>(a.max_shared_per_sm);
  p.numSms = 1;
  p.sharedMemPerBlockOptin = static_cast<size_t>(a.max_shared_per_block_optin);
  p.reservedSharedMemPerBlock = 1024;
  return p;
}

}  // namespace launchlab::occupancy::documented
