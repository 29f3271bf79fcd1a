#include "grid.h"

#include <stdexcept>

namespace launchlab::journey {

std::uint64_t blocks_needed(std::uint64_t n, std::uint32_t block_size) {
  if (block_size == 0) {
    throw std::invalid_argument("blocks_needed: a block of 0 threads covers nothing");
  }
  // Rounding up as (n + block_size - 1) / block_size wraps around when n is
  // within block_size of 2^64; the quotient plus one for a remainder cannot.
  return n / block_size + (n % block_size != 0 ? 1 : 0);
}

std::uint64_t thread_count(Dim3 grid_dim, Dim3 block_dim) {
  // Widen before multiplying: a grid can hold far more than 2^32 threads.
  const std::uint64_t blocks = std::uint64_t{grid_dim.x} * grid_dim.y * grid_dim.z;
  const std::uint64_t per_block = std::uint64_t{block_dim.x} * block_dim.y * block_dim.z;
  return blocks * per_block;
}

std::uint64_t warps_per_block(Dim3 block_dim) {
  const std::uint64_t threads = std::uint64_t{block_dim.x} * block_dim.y * block_dim.z;
  // A partial last warp still occupies a whole warp's slot on the SM.
  return threads / kWarpSize + (threads % kWarpSize != 0 ? 1 : 0);
}

std::uint64_t global_index(Dim3 grid_dim, Dim3 block_dim, Index3 block_idx, Index3 thread_idx) {
  // Global coordinates first: each is at most (2^31 - 1) * 1024 + 1023 on a
  // real GPU, which already needs more than 32 bits.
  const std::uint64_t gx = std::uint64_t{block_idx.x} * block_dim.x + thread_idx.x;
  const std::uint64_t gy = std::uint64_t{block_idx.y} * block_dim.y + thread_idx.y;
  const std::uint64_t gz = std::uint64_t{block_idx.z} * block_dim.z + thread_idx.z;
  // The grid's extent in threads: a row is W threads, a plane W * H.
  const std::uint64_t width = std::uint64_t{grid_dim.x} * block_dim.x;
  const std::uint64_t height = std::uint64_t{grid_dim.y} * block_dim.y;
  return gx + gy * width + gz * width * height;
}

}  // namespace launchlab::journey
