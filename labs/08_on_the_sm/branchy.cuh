#pragma once
// Given code for divergence.cu, which includes it once: the experiment's two
// paths of work and its kernel, branchy (declared in divergence.h). Not a
// student file: which thread takes which path is takes_first_path's
// decision, in divergence.cu, and the kernel calls it in the same
// translation unit (the lab is built without relocatable device code).

#include "divergence.h"

namespace launchlab::on_the_sm {

namespace detail {

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

}  // namespace detail

__global__ void branchy(Split split, int iterations, float* out) {
  const float x = static_cast<float>(threadIdx.x) * 0.001f;
  const float y = takes_first_path(split, threadIdx.x) ? detail::first_path(x, iterations)
                                                       : detail::second_path(x, iterations);
  out[blockIdx.x * blockDim.x + threadIdx.x] = y;
}

}  // namespace launchlab::on_the_sm
