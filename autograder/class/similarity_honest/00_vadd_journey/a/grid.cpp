#include "grid.h"

#include <stdexcept>

namespace launchlab::journey {

namespace {
std::uint64_t volume(Dim3 d) { return static_cast<std::uint64_t>(d.x) * d.y * d.z; }
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b ? 1 : 0); }
}  // namespace

std::uint64_t blocks_needed(std::uint64_t n, std::uint32_t block_size) {
  if (!block_size) throw std::invalid_argument("block size is zero");
  return ceil_div(n, block_size);
}

std::uint64_t thread_count(Dim3 grid_dim, Dim3 block_dim) { return volume(grid_dim) * volume(block_dim); }

std::uint64_t warps_per_block(Dim3 block_dim) { return ceil_div(volume(block_dim), kWarpSize); }

std::uint64_t global_index(Dim3 grid_dim, Dim3 block_dim, Index3 block_idx, Index3 thread_idx) {
  std::uint64_t row = static_cast<std::uint64_t>(grid_dim.x) * block_dim.x;
  std::uint64_t plane = row * grid_dim.y * block_dim.y;
  std::uint64_t x = static_cast<std::uint64_t>(block_idx.x) * block_dim.x + thread_idx.x;
  std::uint64_t y = static_cast<std::uint64_t>(block_idx.y) * block_dim.y + thread_idx.y;
  std::uint64_t z = static_cast<std::uint64_t>(block_idx.z) * block_dim.z + thread_idx.z;
  return z * plane + y * row + x;
}

}  // namespace launchlab::journey
