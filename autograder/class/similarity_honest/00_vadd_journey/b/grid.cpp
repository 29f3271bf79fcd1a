#include "grid.h"

#include <stdexcept>

namespace launchlab::journey {

std::uint64_t blocks_needed(std::uint64_t n, std::uint32_t block_size) {
  if (block_size < 1) {
    throw std::invalid_argument("need at least one thread per block");
  }
  std::uint64_t blocks = n / block_size;
  if (blocks * block_size < n) {
    blocks += 1;
  }
  return blocks;
}

std::uint64_t thread_count(Dim3 grid_dim, Dim3 block_dim) {
  std::uint64_t total = 1;
  for (std::uint32_t extent : {grid_dim.x, grid_dim.y, grid_dim.z, block_dim.x, block_dim.y, block_dim.z}) {
    total *= extent;
  }
  return total;
}

std::uint64_t warps_per_block(Dim3 block_dim) {
  std::uint64_t threads = thread_count(Dim3{1, 1, 1}, block_dim);
  return (threads + kWarpSize - 1) / kWarpSize;
}

std::uint64_t global_index(Dim3 grid_dim, Dim3 block_dim, Index3 block_idx, Index3 thread_idx) {
  std::uint64_t width = grid_dim.x;
  width *= block_dim.x;
  std::uint64_t height = grid_dim.y;
  height *= block_dim.y;
  std::uint64_t index = block_idx.z;
  index = index * block_dim.z + thread_idx.z;
  index = index * height + (std::uint64_t{block_idx.y} * block_dim.y + thread_idx.y);
  index = index * width + (std::uint64_t{block_idx.x} * block_dim.x + thread_idx.x);
  return index;
}

}  // namespace launchlab::journey
