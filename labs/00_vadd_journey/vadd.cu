// The course's program: the vadd kernel and the host code around its launch.
// The contract is in vadd.h; `./launchlab test 00` runs the tests.

#include "vadd.h"

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "grid.h"

namespace launchlab::journey {

__host__ __device__ void vadd_thread(unsigned block, unsigned block_size, unsigned thread, const float* a,
                                     const float* b, float* c, int n) {
  // TODO(student): one thread, one element. Compute this thread's index from
  // block, block_size and thread, and write c[i] = a[i] + b[i] only when
  // i < n: the grid is rounded up to whole blocks, so the last block can hold
  // threads that have no element. (Think about what happens to an index
  // above INT_MAX if you store it in an int.)
  (void)block;
  (void)block_size;
  (void)thread;
  (void)a;
  (void)b;
  (void)c;
  (void)n;
}

__global__ void vadd(const float* a, const float* b, float* c, int n) {
  // TODO(student): do vadd_thread's work for this thread: its block is
  // blockIdx.x, the block's size blockDim.x and its place in the block threadIdx.x.
}

void add_vectors_on_gpu(std::span<const float> a, std::span<const float> b, std::span<float> c,
                        unsigned block_size) {
  // TODO(student): run vadd on the GPU, in this order.
  //  1. Check the arguments before any CUDA call, and throw
  //     std::invalid_argument when a, b and c differ in length, when
  //     block_size is 0, or when a.size() does not fit vadd's int n.
  //  2. With no elements, return: a launch of 0 blocks is an error.
  //  3. cudaMalloc three device arrays of a.size() floats, and make sure they
  //     are cudaFree'd on every path out, exceptions included (a small class
  //     whose destructor frees is the simplest way).
  //  4. cudaMemcpy a and b to the device.
  //  5. Launch vadd<<<blocks, block_size>>> with blocks from blocks_needed().
  //  6. A launch returns nothing: ask cudaGetLastError() whether it started.
  //  7. cudaMemcpy c back to the host.
  // Check every CUDA call's cudaError_t; on failure throw std::runtime_error
  // with the name of the call and cudaGetErrorString(status).
  (void)a;
  (void)b;
  (void)c;
  (void)block_size;
}

}  // namespace launchlab::journey
