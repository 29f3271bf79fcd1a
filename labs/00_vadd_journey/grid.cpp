// Grid arithmetic: the numbers between the chevrons of vadd<<<blocks, threads>>>
// and the index each thread computes first. The contract, with examples, is in
// grid.h; `./launchlab test 00` runs the tests.

#include "grid.h"

#include <stdexcept>

namespace launchlab::journey {

std::uint64_t blocks_needed(std::uint64_t n, std::uint32_t block_size) {
  // TODO(student): return how many blocks of block_size threads cover n
  // elements, i.e. n / block_size rounded up (0 blocks for 0 elements).
  // A block size of 0 is a caller's mistake: throw std::invalid_argument.
  // n can be as large as UINT64_MAX, so the rounding must not overflow.
  (void)n;
  (void)block_size;
  return 0;
}

std::uint64_t thread_count(Dim3 grid_dim, Dim3 block_dim) {
  // TODO(student): return the number of threads the launch starts: every
  // extent of grid_dim times every extent of block_dim. Widen to
  // std::uint64_t before multiplying: 32 bits are not enough.
  (void)grid_dim;
  (void)block_dim;
  return 0;
}

std::uint64_t warps_per_block(Dim3 block_dim) {
  // TODO(student): return how many warps of kWarpSize threads one block
  // fills. A last, partly filled warp still counts as a whole warp.
  (void)block_dim;
  return 0;
}

std::uint64_t global_index(Dim3 grid_dim, Dim3 block_dim, Index3 block_idx, Index3 thread_idx) {
  // TODO(student): compute the thread's global coordinates
  //   gx = block_idx.x * block_dim.x + thread_idx.x   (and gy, gz alike),
  // the grid's width and height in threads
  //   W = grid_dim.x * block_dim.x,  H = grid_dim.y * block_dim.y,
  // and return gx + gy * W + gz * W * H. Do all of it in std::uint64_t.
  (void)grid_dim;
  (void)block_dim;
  (void)block_idx;
  (void)thread_idx;
  return 0;
}

}  // namespace launchlab::journey
