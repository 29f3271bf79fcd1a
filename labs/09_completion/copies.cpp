// Copies between host and device memory, timed. The contract is in
// completion.h.

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <launchlab/cuda.h>

#include "completion.h"

namespace launchlab::completion {

std::vector<double> time_copies(HostMemory memory, Direction direction, std::size_t bytes, int trials) {
  // TODO(student): time cudaMemcpy as completion.h describes.
  //  1. Before any CUDA call, throw std::invalid_argument when bytes is 0 or
  //     trials < 1.
  //  2. Host memory: cudaMallocHost for Pinned, plain new std::byte[bytes]
  //     for Pageable; device memory: cudaMalloc. Write every byte of both
  //     once (memset, cudaMemset), and free them on every way out
  //     (launchlab/cuda.h has cuda::PinnedBuffer, cuda::DeviceBuffer and
  //     cuda::check, which throws naming the call).
  //  3. One untimed copy, then `trials` timed ones: steady_clock before
  //     cudaMemcpy, and after the cudaDeviceSynchronize() that follows it.
  (void)memory;
  (void)direction;
  (void)bytes;
  (void)trials;
  return {};
}

double gigabytes_per_second(std::size_t bytes, double seconds) {
  // TODO(student): bytes / seconds / 10^9; reject seconds that are not
  // positive, NaN among them (std::invalid_argument).
  (void)bytes;
  (void)seconds;
  return 0.0;
}

}  // namespace launchlab::completion
