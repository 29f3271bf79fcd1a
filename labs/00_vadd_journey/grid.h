/// @file
/// Grid arithmetic on the host: how many blocks a launch needs, and which
/// element each thread of a grid owns. These are the numbers between the
/// chevrons of `vadd<<<4096, 256>>>(da, db, dc, n)` and the expression every
/// thread evaluates first.
#pragma once

#include <cstdint>

namespace launchlab::journey {

/// The threads a warp holds on every NVIDIA GPU so far (`warpSize` in device
/// code, `cudaDeviceProp::warpSize` on the host).
inline constexpr std::uint32_t kWarpSize = 32;

/// A host-side copy of CUDA's `dim3`, the type of gridDim and blockDim: an
/// extent in up to three dimensions. Unused dimensions are 1, so the grid of
/// `vadd<<<4096, 256>>>` is `Dim3{4096}` blocks of `Dim3{256}` threads.
struct Dim3 {
  std::uint32_t x = 1;  ///< extent along x, the fastest-varying dimension
  std::uint32_t y = 1;  ///< extent along y
  std::uint32_t z = 1;  ///< extent along z, the slowest-varying dimension
};

/// A host-side copy of CUDA's `uint3`, the type of blockIdx and threadIdx: a
/// position in up to three dimensions. Unused dimensions are 0, so thread 5
/// of a 1-D block is `Index3{5}`.
struct Index3 {
  std::uint32_t x = 0;  ///< position along x
  std::uint32_t y = 0;  ///< position along y
  std::uint32_t z = 0;  ///< position along z
};

/// The number of blocks of @p block_size threads needed so that every one of
/// @p n elements gets a thread: n / block_size rounded up.
///
/// Exact for every @p n, up to and including UINT64_MAX: the rounding must not
/// overflow.
///
/// @param n          the number of elements, one per thread
/// @param block_size the threads in one block
/// @return the smallest number of blocks whose threads cover n elements; 0 when n is 0
/// @throws std::invalid_argument when block_size is 0
std::uint64_t blocks_needed(std::uint64_t n, std::uint32_t block_size);

/// The number of threads a launch of @p grid_dim blocks of @p block_dim
/// threads starts: the product of all six extents.
///
/// @param grid_dim  blocks along x, y and z (gridDim)
/// @param block_dim threads per block along x, y and z (blockDim)
/// @return the total number of threads, computed without 32-bit overflow
std::uint64_t thread_count(Dim3 grid_dim, Dim3 block_dim);

/// The number of warps one block of @p block_dim threads occupies. The
/// hardware cuts a block into warps of kWarpSize consecutive threads (in the
/// order x, then y, then z); a last partial warp still takes a whole warp.
///
/// @param block_dim threads per block along x, y and z (blockDim)
/// @return the threads of one block divided by kWarpSize, rounded up
std::uint64_t warps_per_block(Dim3 block_dim);

/// The global linear index of one thread: the position of the element it
/// owns when the whole grid is laid out row by row.
///
/// With the thread's global coordinates
/// gx = block_idx.x * block_dim.x + thread_idx.x (and likewise gy, gz),
/// and the grid's width W = grid_dim.x * block_dim.x and height
/// H = grid_dim.y * block_dim.y in threads, the index is gx + gy * W + gz * W * H.
/// In a 1-D launch this is the familiar blockIdx.x * blockDim.x + threadIdx.x.
///
/// @param grid_dim   blocks along x, y and z (gridDim)
/// @param block_dim  threads per block along x, y and z (blockDim)
/// @param block_idx  the thread's block (blockIdx), each coordinate below grid_dim's
/// @param thread_idx the thread within its block (threadIdx), each coordinate below block_dim's
/// @return an index in [0, thread_count(grid_dim, block_dim)), computed in 64 bits
std::uint64_t global_index(Dim3 grid_dim, Dim3 block_dim, Index3 block_idx, Index3 thread_idx);

}  // namespace launchlab::journey
