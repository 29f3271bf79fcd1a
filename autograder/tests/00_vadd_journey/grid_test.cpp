// Grid arithmetic, on the CPU: blocks_needed, thread_count, warps_per_block
// and global_index from labs/00_vadd_journey/grid.h.

#include "grid.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "launchlab/testing.h"

namespace launchlab::journey {
namespace {

constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint32_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();

std::string show(Dim3 d) {
  std::ostringstream out;
  out << "{" << d.x << ", " << d.y << ", " << d.z << "}";
  return out.str();
}

std::string show(Index3 i) {
  std::ostringstream out;
  out << "{" << i.x << ", " << i.y << ", " << i.z << "}";
  return out.str();
}

struct BlocksCase {
  std::uint64_t n;
  std::uint32_t block_size;
  std::uint64_t expected;
};

// Runs blocks_needed on every case and reports each wrong answer with its input.
void ExpectBlocksNeeded(const std::vector<BlocksCase>& cases) {
  for (const BlocksCase& c : cases) {
    std::uint64_t got = 0;
    try {
      got = blocks_needed(c.n, c.block_size);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "blocks_needed(n = " << c.n << ", block_size = " << c.block_size
                    << "): expected " << c.expected << ", got an exception: " << e.what();
      continue;
    }
    if (got != c.expected)
      ADD_FAILURE() << "blocks_needed(n = " << c.n << ", block_size = " << c.block_size
                    << "): expected " << c.expected << ", got " << got;
  }
}

struct IndexCase {
  Dim3 grid_dim;
  Dim3 block_dim;
  Index3 block_idx;
  Index3 thread_idx;
  std::uint64_t expected;
};

void ExpectGlobalIndex(const std::vector<IndexCase>& cases) {
  for (const IndexCase& c : cases) {
    const std::uint64_t got = global_index(c.grid_dim, c.block_dim, c.block_idx, c.thread_idx);
    if (got != c.expected)
      ADD_FAILURE() << "global_index(grid_dim = " << show(c.grid_dim)
                    << ", block_dim = " << show(c.block_dim)
                    << ", block_idx = " << show(c.block_idx)
                    << ", thread_idx = " << show(c.thread_idx) << "): expected " << c.expected
                    << ", got " << got;
  }
}

TEST(GridArithmetic, BlocksNeededIsExactForWholeBlocks) {
  ExpectBlocksNeeded({
      {0, 256, 0},
      {256, 256, 1},
      {512, 256, 2},
      {1024, 32, 32},
      {std::uint64_t{1} << 20, 256, 4096},  // the course's launch: vadd<<<4096, 256>>>
      {7, 1, 7},
  });
}

TEST(GridArithmetic, BlocksNeededRoundsUpAPartialBlock) {
  ExpectBlocksNeeded({
      {1, 256, 1},
      {255, 256, 1},
      {257, 256, 2},
      {1'000'003, 256, 3907},
      {1'000'003, 1024, 977},
      {33, 32, 2},
      {5, 3, 2},
  });
}

TEST(GridArithmetic, BlocksNeededDoesNotOverflowNearTheTopOf64Bits) {
  ExpectBlocksNeeded({
      // More than 32 bits of elements: a 32-bit n or result loses them.
      {std::uint64_t{1} << 32, 1, std::uint64_t{1} << 32},
      {(std::uint64_t{1} << 32) + 1, 256, (std::uint64_t{1} << 24) + 1},
      // (n + block_size - 1) / block_size wraps around to a tiny number here.
      {kMaxU64, 256, std::uint64_t{1} << 56},
      {kMaxU64, 1024, std::uint64_t{1} << 54},
      {kMaxU64, kMaxU32, 4'294'967'297},  // (2^32 - 1) * (2^32 + 1) = 2^64 - 1 exactly
      {kMaxU64, 2, std::uint64_t{1} << 63},
  });
}

TEST(GridArithmetic, BlocksNeededRejectsABlockSizeOfZero) {
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1'000'000}}) {
    try {
      const std::uint64_t got = blocks_needed(n, 0);
      ADD_FAILURE() << "blocks_needed(n = " << n
                    << ", block_size = 0): expected std::invalid_argument, got a return value of "
                    << got;
    } catch (const std::invalid_argument&) {
      // expected
    } catch (const std::exception& e) {
      ADD_FAILURE() << "blocks_needed(n = " << n
                    << ", block_size = 0): expected std::invalid_argument, got another exception: "
                    << e.what();
    }
  }
}

TEST(GridArithmetic, ThreadCountMultipliesAllSixExtents) {
  struct Case {
    Dim3 grid_dim;
    Dim3 block_dim;
    std::uint64_t expected;
  };
  const std::vector<Case> cases = {
      {Dim3{4096}, Dim3{256}, 1'048'576},
      {Dim3{1}, Dim3{1}, 1},
      {Dim3{2, 3, 4}, Dim3{5, 2, 3}, 720},
      {Dim3{3, 1, 1}, Dim3{1, 1, 7}, 21},
      // Past 2^32 threads: the largest 1-D grid of 1024-thread blocks.
      {Dim3{2'147'483'647}, Dim3{1024}, 2'199'023'254'528},
      {Dim3{65'535, 65'535, 1}, Dim3{32, 32, 1}, 4'397'912'294'400},
  };
  for (const Case& c : cases) {
    const std::uint64_t got = thread_count(c.grid_dim, c.block_dim);
    if (got != c.expected)
      ADD_FAILURE() << "thread_count(grid_dim = " << show(c.grid_dim)
                    << ", block_dim = " << show(c.block_dim) << "): expected " << c.expected
                    << ", got " << got;
  }
}

TEST(GridArithmetic, WarpsPerBlockRoundsUpToWholeWarps) {
  struct Case {
    Dim3 block_dim;
    std::uint64_t expected;
  };
  const std::vector<Case> cases = {
      {Dim3{256}, 8},  // the course's blocks
      {Dim3{32}, 1},
      {Dim3{1024}, 32},
      {Dim3{1}, 1},
      {Dim3{33}, 2},
      {Dim3{48}, 2},
      {Dim3{16, 16}, 8},
      {Dim3{10, 10, 10}, 32},  // 1000 threads: 31 full warps and a partial one
      {Dim3{7, 3, 1}, 1},
  };
  for (const Case& c : cases) {
    const std::uint64_t got = warps_per_block(c.block_dim);
    if (got != c.expected)
      ADD_FAILURE() << "warps_per_block(block_dim = " << show(c.block_dim) << "): expected "
                    << c.expected << ", got " << got;
  }
}

TEST(GridArithmetic, GlobalIndexIn1DIsBlockTimesWidthPlusThread) {
  ExpectGlobalIndex({
      {Dim3{4096}, Dim3{256}, Index3{0}, Index3{0}, 0},
      {Dim3{4096}, Dim3{256}, Index3{0}, Index3{255}, 255},
      {Dim3{4096}, Dim3{256}, Index3{1}, Index3{0}, 256},
      {Dim3{4096}, Dim3{256}, Index3{2}, Index3{5}, 517},
      {Dim3{4096}, Dim3{256}, Index3{4095}, Index3{255}, 1'048'575},
      // The last thread of the largest 1-D grid: more than 32 bits.
      {Dim3{2'147'483'647}, Dim3{1024}, Index3{2'147'483'646}, Index3{1023}, 2'199'023'254'527},
  });
}

TEST(GridArithmetic, GlobalIndexIn2DRunsRowByRow) {
  // A grid of 3 x 2 blocks of 4 x 5 threads: 12 threads to a row, 10 rows.
  const Dim3 grid{3, 2};
  const Dim3 block{4, 5};
  ExpectGlobalIndex({
      {grid, block, Index3{0, 0}, Index3{0, 0}, 0},
      {grid, block, Index3{0, 0}, Index3{3, 0}, 3},
      {grid, block, Index3{1, 0}, Index3{0, 0}, 4},   // the next block along x continues the row
      {grid, block, Index3{0, 0}, Index3{0, 1}, 12},  // one row down is one grid width on
      {grid, block, Index3{2, 0}, Index3{3, 4}, 59},
      {grid, block, Index3{0, 1}, Index3{0, 0}, 60},
      {grid, block, Index3{1, 1}, Index3{2, 3}, 102},
      {grid, block, Index3{2, 1}, Index3{3, 4}, 119},  // the last of 120 threads
  });
}

TEST(GridArithmetic, GlobalIndexIn3DRunsPlaneByPlane) {
  // 2 x 3 x 4 blocks of 5 x 2 x 3 threads: rows of 10, planes of 10 x 6 = 60, 12 planes.
  const Dim3 grid{2, 3, 4};
  const Dim3 block{5, 2, 3};
  ExpectGlobalIndex({
      {grid, block, Index3{0, 0, 0}, Index3{0, 0, 0}, 0},
      {grid, block, Index3{0, 0, 0}, Index3{0, 1, 0}, 10},
      {grid, block, Index3{0, 0, 0}, Index3{0, 0, 1}, 60},
      {grid, block, Index3{0, 1, 0}, Index3{0, 0, 0}, 20},
      {grid, block, Index3{0, 0, 1}, Index3{0, 0, 0}, 180},
      {grid, block, Index3{1, 0, 2}, Index3{0, 1, 0}, 375},
      {grid, block, Index3{1, 2, 3}, Index3{4, 1, 2}, 719},  // the last of 720 threads
      // 2^35 threads: the plane offset alone needs more than 32 bits.
      {Dim3{1u << 20, 8, 4}, Dim3{1024}, Index3{(1u << 20) - 1, 7, 3}, Index3{1023},
       (std::uint64_t{1} << 35) - 1},
  });
}

TEST(GridArithmetic, EveryThreadOfA3DGridGetsADistinctIndex) {
  // 3 x 2 x 2 blocks of 4 x 3 x 2 threads: 12 x 6 x 4 = 288 threads, and every
  // extent differs, so swapping any two of them shows.
  const Dim3 grid{3, 2, 2};
  const Dim3 block{4, 3, 2};
  const std::uint64_t total = 288;

  struct Owner {
    Index3 block_idx;
    Index3 thread_idx;
  };
  std::vector<std::optional<Owner>> owner(total);
  int failures = 0;
  for (std::uint32_t bz = 0; bz < grid.z; ++bz)
    for (std::uint32_t by = 0; by < grid.y; ++by)
      for (std::uint32_t bx = 0; bx < grid.x; ++bx)
        for (std::uint32_t tz = 0; tz < block.z; ++tz)
          for (std::uint32_t ty = 0; ty < block.y; ++ty)
            for (std::uint32_t tx = 0; tx < block.x; ++tx) {
              const Index3 b{bx, by, bz};
              const Index3 t{tx, ty, tz};
              const std::uint64_t i = global_index(grid, block, b, t);
              if (i >= total) {
                ADD_FAILURE() << "block " << show(b) << ", thread " << show(t) << ": index " << i
                              << " is outside [0, " << total << ")";
              } else if (owner[i]) {
                ADD_FAILURE() << "index " << i << " given twice: to block "
                              << show(owner[i]->block_idx) << ", thread "
                              << show(owner[i]->thread_idx) << " and to block " << show(b)
                              << ", thread " << show(t);
              } else {
                owner[i] = Owner{b, t};
                continue;
              }
              if (++failures == 5) {
                FAIL() << "stopping after 5 wrong indices";
              }
            }
  for (std::uint64_t i = 0; i < total; ++i) {
    if (!owner[i]) {
      FAIL() << "no thread got index " << i << " (expected every index in [0, " << total
             << ") exactly once)";
    }
  }
}

TEST(GridArithmetic, TheCourseLaunchHas1048576ThreadsIn32768Warps) {
  // vadd<<<4096, 256>>> on 2^20 floats, as every chapter has it.
  const std::uint64_t n = std::uint64_t{1} << 20;
  const std::uint64_t blocks = blocks_needed(n, 256);
  EXPECT_EQ(blocks, 4096u) << "blocks_needed(2^20, 256)";
  EXPECT_EQ(thread_count(Dim3{4096}, Dim3{256}), 1'048'576u) << "thread_count({4096}, {256})";
  EXPECT_EQ(warps_per_block(Dim3{256}), 8u) << "warps_per_block({256})";
  EXPECT_EQ(4096u * warps_per_block(Dim3{256}), 32'768u) << "4096 blocks x warps_per_block({256})";
}

}  // namespace
}  // namespace launchlab::journey
