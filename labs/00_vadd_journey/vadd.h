/// @file
/// The course's program: the vadd kernel and the host function that runs it,
/// from cudaMalloc to the copy back.
#pragma once

#include <span>

namespace launchlab::journey {

/// The work of one thread of vadd: thread `thread` of block `block`, in
/// blocks of `block_size` threads, has the global index
/// i = block × block_size + thread, and writes c[i] = a[i] + b[i] when
/// i < n; otherwise it reads and writes nothing. The index is computed
/// without overflow: for an n near INT_MAX the last block's indices pass
/// INT_MAX and must still count as past the end.
///
/// The vadd kernel calls it with blockIdx.x, blockDim.x and threadIdx.x.
/// Being a host function too, it is what the tests run on a machine without
/// a GPU, once for every (block, thread) of small grids.
///
/// @param block      the block's index in the grid (blockIdx.x)
/// @param block_size threads per block (blockDim.x)
/// @param thread     the thread's index in its block (threadIdx.x), below block_size
/// @param a          first input, n floats
/// @param b          second input, n floats
/// @param c          output, n floats; nothing past c[n - 1] is written
/// @param n          the number of elements (at least 0)
#ifdef __CUDACC__
__host__ __device__  // compiled for both; to a host compiler, an ordinary function
#endif
void vadd_thread(unsigned block, unsigned block_size, unsigned thread, const float* a, const float* b, float* c,
                 int n);

#if defined(__CUDACC__)
/// The kernel every chapter follows: each thread does vadd_thread's work
/// for its own block and thread, so thread i of the grid writes
/// c[i] = a[i] + b[i] when i < n, and does nothing otherwise.
///
/// @param a first input, n floats in device memory
/// @param b second input, n floats in device memory
/// @param c output, n floats in device memory; nothing past c[n - 1] is written
/// @param n the number of elements (at least 0)
__global__ void vadd(const float* a, const float* b, float* c, int n);
#else
/// The vadd kernel as a host compiler sees it. For each `__global__`
/// function nvcc writes a host function of the same name and parameters,
/// the host stub; its address is what names the kernel to
/// cudaLaunchKernel(), so code built without nvcc can launch vadd too.
/// Never call it directly: launch it with cudaLaunchKernel().
///
/// @param a first input, n floats in device memory
/// @param b second input, n floats in device memory
/// @param c output, n floats in device memory; nothing past c[n - 1] is written
/// @param n the number of elements (at least 0)
void vadd(const float* a, const float* b, float* c, int n);
#endif

/// Computes c[i] = a[i] + b[i] on the GPU: allocates device memory for the
/// three vectors, copies a and b in, launches vadd with
/// blocks_needed(a.size(), block_size) blocks of block_size threads, copies c
/// back and frees the device memory, also when something fails on the way.
///
/// The arguments are checked before any CUDA call, so a wrong call fails the
/// same way on a machine without a GPU. Empty vectors need no GPU at all:
/// nothing is allocated or launched (a launch of 0 blocks is an error).
///
/// @param a          first input
/// @param b          second input, as long as a
/// @param c          output, as long as a; overwritten
/// @param block_size threads per block, from 1 to the device's limit (1024 on
///                   current GPUs)
/// @throws std::invalid_argument when the sizes differ, when block_size is 0,
///         or when there are more elements than vadd's `int n` can count
/// @throws std::runtime_error when a CUDA call or the launch fails; the
///         message names the call and gives cudaGetErrorString()'s text.
///         A block_size above the device's limit is not checked beforehand:
///         the launch refuses it, and that is this error. Every error is
///         taken (cudaGetLastError() after the launch), so none is left
///         pending for the program's next CUDA call.
void add_vectors_on_gpu(std::span<const float> a, std::span<const float> b, std::span<float> c,
                        unsigned block_size = 256);

}  // namespace launchlab::journey
