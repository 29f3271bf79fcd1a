#pragma once
// Given code for launches.cu: the kernels whose launches it measures. Not a
// student file. They are defined in a header because take_blob is a
// template: launches.cu instantiates it for each parameter size it launches.

#include <cuda_runtime.h>

#include <cstddef>

namespace launchlab::overhead {

// The kernels are not in an anonymous namespace: nvcc warns about a kernel
// of internal linkage that nothing launches.

// The kernel whose launch is measured: it does nothing, so whatever a trial
// costs is the launch and the wait.
__global__ void empty_kernel() {}

// A parameter of exactly N bytes: an array of unsigned char has alignment 1,
// so the struct has no padding and the parameter buffer is N bytes long.
template <std::size_t N>
struct Blob {
  unsigned char bytes[N];
};

template <std::size_t N>
__global__ void take_blob(Blob<N> blob) {
  (void)blob;
}

}  // namespace launchlab::overhead
