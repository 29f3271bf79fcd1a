// The divergence experiment: one kernel, two paths, three ways to split the
// threads of a block between them. The contract is in divergence.h.

#include "divergence.h"

namespace launchlab::on_the_sm {

namespace {

// The two paths do the same work: `iterations` dependent multiply-adds, with
// different constants. __noinline__ keeps each a call of its own, so the
// compiler cannot fold the branch into one path with selects.
__device__ __noinline__ float first_path(float x, int iterations) {
  for (int k = 0; k < iterations; ++k) x = fmaf(x, 0.999f, 0.001f);
  return x;
}

__device__ __noinline__ float second_path(float x, int iterations) {
  for (int k = 0; k < iterations; ++k) x = fmaf(x, 1.001f, -0.001f);
  return x;
}

}  // namespace

__host__ __device__ bool takes_first_path(Split split, unsigned thread_in_block) {
  switch (split) {
    case Split::None:
      return true;
    case Split::BetweenWarps:
      // Threads 0-31 are warp 0, 32-63 warp 1, ...: all lanes of a warp agree.
      return (thread_in_block / 32u) % 2u == 0u;
    case Split::InsideWarps:
      // Neighbouring lanes disagree: every warp holds both paths.
      return thread_in_block % 2u == 0u;
  }
  return true;
}

__global__ void branchy(Split split, int iterations, float* out) {
  const float x = static_cast<float>(threadIdx.x) * 0.001f;
  const float y = takes_first_path(split, threadIdx.x) ? first_path(x, iterations)
                                                       : second_path(x, iterations);
  out[blockIdx.x * blockDim.x + threadIdx.x] = y;
}

}  // namespace launchlab::on_the_sm
