// NVIDIA's own calculator, cuda_occupancy.h, asked about one kernel and one
// launch the way the tests and tools/occupancy_table.cu ask it: a kernel
// without partitioned global caching, opted in to max_dynamic bytes of
// dynamic shared memory, with one block barrier.
#pragma once

#include <cuda_occupancy.h>

#include <cstddef>

namespace launchlab::occupancy::occupancy_h {

/// A kernel and its launch, as cuda_occupancy.h takes them.
struct Question {
  int max_threads = 1024;         ///< cudaFuncAttributes::maxThreadsPerBlock
  int registers = 0;              ///< per thread
  std::size_t static_shared = 0;  ///< bytes of __shared__ arrays
  std::size_t max_dynamic = 0;    ///< the kernel's maximum dynamic shared memory
  int carveout = -1;              ///< the preferred carveout, -1 for none
  int block_size = 0;
  std::size_t dynamic = 0;        ///< the launch's dynamic shared memory
};

/// cuda_occupancy.h's answer on a device; false when it refuses the question.
inline bool max_active_blocks(const cudaOccDeviceProp& device, const Question& q, cudaOccResult& result) {
  cudaOccFuncAttributes attributes;
  attributes.maxThreadsPerBlock = q.max_threads;
  attributes.numRegs = q.registers;
  attributes.sharedSizeBytes = q.static_shared;
  attributes.partitionedGCConfig = PARTITIONED_GC_OFF;
  attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attributes.maxDynamicSharedSizeBytes = q.max_dynamic;
  attributes.numBlockBarriers = 1;
  cudaOccDeviceState state;
  state.carveoutConfig = q.carveout;
  result = cudaOccResult{};
  return cudaOccMaxActiveBlocksPerMultiprocessor(&result, &device, &attributes, &state, q.block_size, q.dynamic) ==
         CUDA_OCC_SUCCESS;
}

}  // namespace launchlab::occupancy::occupancy_h
