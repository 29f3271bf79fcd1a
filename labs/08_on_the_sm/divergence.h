/// @file
/// The cost of divergence: the same two paths of work, with the threads of a
/// block split between them in three ways.
#pragma once

#include <vector>

namespace launchlab::on_the_sm {

/// How the threads of a block are split between the kernel's two paths.
enum class Split {
  None,          ///< every thread takes the first path
  BetweenWarps,  ///< whole warps alternate: warps 0, 2, 4, ... take the first path, the others the second
  InsideWarps,   ///< lanes alternate inside every warp: even threads take the first path, odd threads the second
};

#if defined(__CUDACC__)
/// Whether thread `thread_in_block` (threadIdx.x; blocks are 1-D) takes the
/// first path under split. Runs on the host too, so it can be tested there.
__host__ __device__ bool takes_first_path(Split split, unsigned thread_in_block);

/// The divergence experiment's kernel. Thread t of the block computes
/// `iterations` dependent multiply-adds on the first path when
/// takes_first_path(split, t), on the second path otherwise (the same
/// amount of work with other constants), and writes its result to
/// out[blockIdx.x * blockDim.x + threadIdx.x].
__global__ void branchy(Split split, int iterations, float* out);
#else
/// Whether thread `thread_in_block` (threadIdx.x; blocks are 1-D) takes the
/// first path under split.
///
/// @param split           how the block is split between the two paths
/// @param thread_in_block the thread's index in its block
/// @return true for the first path, false for the second
bool takes_first_path(Split split, unsigned thread_in_block);

/// The divergence experiment's kernel, as a host compiler sees it (nvcc's
/// host stub; never call it directly). Thread t computes `iterations`
/// dependent multiply-adds on the first path when takes_first_path(split, t),
/// on the second path otherwise, and writes its result to
/// out[blockIdx.x * blockDim.x + threadIdx.x].
void branchy(Split split, int iterations, float* out);
#endif

/// Times branchy<<<blocks, threads_per_block>>>(split, iterations, out):
/// one launch to warm up, then `trials` launches, each timed alone with a
/// pair of CUDA events.
///
/// @return the milliseconds of each timed launch, in order
/// @throws std::invalid_argument when blocks, threads_per_block, iterations
///         or trials is 0 (or negative), or threads_per_block is above 1024
/// @throws std::runtime_error when a CUDA call fails
std::vector<double> time_branchy(Split split, unsigned blocks, unsigned threads_per_block,
                                 int iterations, int trials);

}  // namespace launchlab::on_the_sm
