/// @file
/// Two kernels to tune: vadd, which moves 12 bytes per element and does one
/// addition, so memory bandwidth bounds it; and a register-heavy kernel that
/// keeps 96 running values per thread. Each comes as a family of compiled
/// variants the lab provides; the learner chooses the launch configuration.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>

namespace launchlab::occupancy {

/// One launch of the vadd family, c[i] = a[i] + b[i].
///
/// Thread t of the grid (T threads in all) handles the vectors of
/// vector_width floats numbered t, t + T, t + 2T, ... below n / vector_width;
/// it loads `unroll` of them (from a and from b) before it stores any. The
/// last n % vector_width floats are added one by one by the first threads.
struct VaddConfig {
  int vector_width = 1;  ///< floats per load and store: 1 (float), 2 (float2) or 4 (float4)
  int unroll = 1;        ///< vectors a thread loads before storing: 1, 2, 4 or 8
  int block_size = 256;  ///< threads per block: a multiple of 32 from 32 to 1024, and at most the variant's maxThreadsPerBlock (see vadd_kernel())
  int grid_size = 0;     ///< blocks; 0 for just enough that every thread handles at most `unroll` vectors
};

/// The compiled kernel of the vadd variant (vector_width, unroll), for
/// cudaFuncGetAttributes and the occupancy API. Its
/// cudaFuncAttributes::maxThreadsPerBlock is the largest block it can be
/// launched with: below 1024 when the variant needs more registers per
/// thread than a block of 1024 threads can have (on sm_90 the float4
/// variant with an unroll of 8 is one of them). A configuration with a
/// larger block cannot run; launch_vadd() reports it as a failed launch.
/// @throws std::invalid_argument when vector_width is not 1, 2 or 4 or unroll not 1, 2, 4 or 8
const void* vadd_kernel(int vector_width, int unroll);

/// The blocks a launch of @p config on @p n floats uses: config.grid_size,
/// or when that is 0, ceil(ceil(n / vector_width) / (block_size * unroll)), at least 1.
/// @throws std::invalid_argument when the configuration is not valid
int vadd_grid_size(const VaddConfig& config, std::size_t n);

/// Launches the vadd variant of @p config on @p stream (it does not wait).
/// @param config the variant and its launch configuration
/// @param a      device array of n floats, aligned to vector_width * 4 bytes (cudaMalloc's are)
/// @param b      device array of n floats, aligned the same way
/// @param c      device array of n floats for the sums, aligned the same way
/// @param n      the number of floats
/// @param stream the stream to launch on
/// @throws std::invalid_argument when the configuration is not valid or a pointer is misaligned
/// @throws std::runtime_error when the launch fails, among others with
///         cudaErrorLaunchOutOfResources when block_size is above the
///         variant's maxThreadsPerBlock (see vadd_kernel()); nothing runs then,
///         and the error is not sticky: later launches are unaffected
void launch_vadd(const VaddConfig& config, const float* a, const float* b, float* c, std::size_t n,
                 cudaStream_t stream = nullptr);

/// A compiled variant of the heavy kernel: `__launch_bounds__(block_size, min_blocks_per_sm)`.
/// The second number asks the compiler to fit that many blocks on one SM,
/// which caps the registers per thread; a kernel that needs more spills to
/// local memory.
struct HeavyVariant {
  int block_size = 0;         ///< the block size the variant is compiled for
  int min_blocks_per_sm = 0;  ///< the minimum resident blocks it is compiled for
};

/// Every variant of the heavy kernel the lab compiles.
inline constexpr std::array<HeavyVariant, 13> kHeavyVariants = {{
    {128, 1}, {128, 2}, {128, 4}, {128, 8},
    {256, 1}, {256, 2}, {256, 4}, {256, 8},
    {512, 1}, {512, 2}, {512, 4},
    {1024, 1}, {1024, 2},
}};

/// One launch of the heavy kernel: out[i] = f(in[i]) for every i < n, where f
/// runs 96 independent multiply-add chains for 64 steps and sums them. The
/// kernel loops over the grid (grid-stride), so any grid size is correct.
struct HeavyConfig {
  int block_size = 256;         ///< with min_blocks_per_sm, one of kHeavyVariants
  int min_blocks_per_sm = 1;    ///< with block_size, one of kHeavyVariants
  int grid_size = 0;            ///< blocks; 0 for one thread per element
};

/// The compiled kernel of a variant, for cudaFuncGetAttributes and the occupancy API.
/// @throws std::invalid_argument when (block_size, min_blocks_per_sm) is not in kHeavyVariants
const void* heavy_kernel(int block_size, int min_blocks_per_sm);

/// The blocks a launch of @p config on @p n elements uses: config.grid_size,
/// or ceil(n / block_size) when that is 0 (at least 1).
/// @throws std::invalid_argument when the configuration is not valid
int heavy_grid_size(const HeavyConfig& config, std::size_t n);

/// Launches the heavy variant of @p config on @p stream (it does not wait).
/// @throws std::invalid_argument when the configuration is not valid
/// @throws std::runtime_error when the launch fails
void launch_heavy(const HeavyConfig& config, const float* in, float* out, std::size_t n,
                  cudaStream_t stream = nullptr);

/// f of the heavy kernel, computed on the host in the same order.
float heavy_function(float x);

/// The vadd configuration to use for @p n floats on the current device.
/// Graded against the fastest configuration a search finds in the same run:
/// it must take at most 5% longer; and its variant (vector_width, unroll)
/// must be one whose best configuration came within 10% of the fastest in
/// the same search run by the course's reference. The search leaves out the configurations
/// the device cannot launch (block_size above the variant's
/// maxThreadsPerBlock); a chosen configuration that cannot launch fails.
/// And it must move its 12 bytes per element (4 read from a, 4 from b, 4
/// written to c) at 90% or more of the rate of a device-to-device
/// cudaMemcpy of the same arrays (8 bytes per element), medians of
/// interleaved runs; its variant must be one whose best configuration of the
/// search reaches 85% of that rate in the reference's run. The configuration chosen must also be correct for any
/// other n: it is run on a smaller array too.
/// @throws std::runtime_error when a CUDA call fails
VaddConfig choose_vadd_config(std::size_t n);

/// The heavy kernel's configuration to use for @p n elements on the current
/// device. Graded like choose_vadd_config(), the variant being
/// (block_size, min_blocks_per_sm).
/// @throws std::runtime_error when a CUDA call fails
HeavyConfig choose_heavy_config(std::size_t n);

}  // namespace launchlab::occupancy
