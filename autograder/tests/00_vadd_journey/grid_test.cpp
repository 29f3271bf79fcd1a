// Grid arithmetic, on the CPU: blocks_needed, thread_count, warps_per_block
// and global_index from labs/00_vadd_journey/grid.h.

#include "grid.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "launchlab/record.h"
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

using launchlab::testing::Expected;

struct BlocksCase {
  std::uint64_t n;
  std::uint32_t block_size;
  Expected<std::uint64_t> blocks;
};

// Records blocks_needed for every case, with its input.
void RecordBlocksNeeded(const std::vector<BlocksCase>& cases) {
  for (const BlocksCase& c : cases) {
    RECORD_NO_THROW(blocks_needed(c.n, c.block_size)) << "blocks_needed(n = " << c.n << ", block_size = " << c.block_size << ")";
    std::optional<std::uint64_t> got;
    try {
      got = blocks_needed(c.n, c.block_size);
    } catch (const std::exception&) {
    }
    RECORD_EQ(got, c.blocks) << "blocks_needed(n = " << c.n << ", block_size = " << c.block_size << ")";
  }
}

struct IndexCase {
  Dim3 grid_dim;
  Dim3 block_dim;
  Index3 block_idx;
  Index3 thread_idx;
  Expected<std::uint64_t> index;
};

void RecordGlobalIndex(const std::vector<IndexCase>& cases) {
  for (const IndexCase& c : cases) {
    RECORD_EQ(global_index(c.grid_dim, c.block_dim, c.block_idx, c.thread_idx), c.index)
        << "global_index(grid_dim = " << show(c.grid_dim) << ", block_dim = " << show(c.block_dim)
        << ", block_idx = " << show(c.block_idx) << ", thread_idx = " << show(c.thread_idx) << ")";
  }
}

TEST(GridArithmetic, BlocksNeededIsExactForWholeBlocks) {
  RecordBlocksNeeded({
      {0, 256, LAUNCHLAB_EXPECTED(0)},
      {256, 256, LAUNCHLAB_EXPECTED(1)},
      {512, 256, LAUNCHLAB_EXPECTED(2)},
      {1024, 32, LAUNCHLAB_EXPECTED(32)},
      {std::uint64_t{1} << 20, 256, LAUNCHLAB_EXPECTED(4096)},  // the course's launch: vadd<<<4096, 256>>>
      {7, 1, LAUNCHLAB_EXPECTED(7)},
  });
}

TEST(GridArithmetic, BlocksNeededRoundsUpAPartialBlock) {
  RecordBlocksNeeded({
      {1, 256, LAUNCHLAB_EXPECTED(1)},
      {255, 256, LAUNCHLAB_EXPECTED(1)},
      {257, 256, LAUNCHLAB_EXPECTED(2)},
      {1'000'003, 256, LAUNCHLAB_EXPECTED(3907)},
      {1'000'003, 1024, LAUNCHLAB_EXPECTED(977)},
      {33, 32, LAUNCHLAB_EXPECTED(2)},
      {5, 3, LAUNCHLAB_EXPECTED(2)},
  });
}

TEST(GridArithmetic, BlocksNeededDoesNotOverflowNearTheTopOf64Bits) {
  RecordBlocksNeeded({
      // More than 32 bits of elements: a 32-bit n or result loses them.
      {std::uint64_t{1} << 32, 1, LAUNCHLAB_EXPECTED(std::uint64_t{1} << 32)},
      {(std::uint64_t{1} << 32) + 1, 256, LAUNCHLAB_EXPECTED((std::uint64_t{1} << 24) + 1)},
      // (n + block_size - 1) / block_size wraps around to a tiny number here.
      {kMaxU64, 256, LAUNCHLAB_EXPECTED(std::uint64_t{1} << 56)},
      {kMaxU64, 1024, LAUNCHLAB_EXPECTED(std::uint64_t{1} << 54)},
      {kMaxU64, kMaxU32, LAUNCHLAB_EXPECTED(4'294'967'297)},  // (2^32 - 1) * (2^32 + 1) = 2^64 - 1 exactly
      {kMaxU64, 2, LAUNCHLAB_EXPECTED(std::uint64_t{1} << 63)},
  });
}

TEST(GridArithmetic, BlocksNeededRejectsABlockSizeOfZero) {
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1'000'000}}) {
    RECORD_THROWS(blocks_needed(n, 0), std::invalid_argument) << "blocks_needed(n = " << n << ", block_size = 0)";
  }
  // Drawn inputs, every other one with a block size of 0: only code that
  // rejects exactly those and counts the blocks of the rest matches the solution.
  std::mt19937_64 random = launchlab::testing::seeded_random(20260001);
  for (int row = 0; row < 8; ++row) {
    const std::uint64_t n = random() >> (random() % 64);
    const auto block_size = row % 2 == 0 ? 0u : static_cast<std::uint32_t>(1 + random() % 1024);
    RECORD_OUTCOME(blocks_needed(n, block_size), std::invalid_argument)
        << "blocks_needed(n = " << n << ", block_size = " << block_size << ")";
  }
}

TEST(GridArithmetic, ThreadCountMultipliesAllSixExtents) {
  struct Case {
    Dim3 grid_dim;
    Dim3 block_dim;
    Expected<std::uint64_t> threads;
  };
  const std::vector<Case> cases = {
      {Dim3{4096}, Dim3{256}, LAUNCHLAB_EXPECTED(1'048'576)},
      {Dim3{1}, Dim3{1}, LAUNCHLAB_EXPECTED(1)},
      {Dim3{2, 3, 4}, Dim3{5, 2, 3}, LAUNCHLAB_EXPECTED(720)},
      {Dim3{3, 1, 1}, Dim3{1, 1, 7}, LAUNCHLAB_EXPECTED(21)},
      // Past 2^32 threads: the largest 1-D grid of 1024-thread blocks.
      {Dim3{2'147'483'647}, Dim3{1024}, LAUNCHLAB_EXPECTED(2'199'023'254'528)},
      {Dim3{65'535, 65'535, 1}, Dim3{32, 32, 1}, LAUNCHLAB_EXPECTED(4'397'912'294'400)},
  };
  for (const Case& c : cases) {
    RECORD_EQ(thread_count(c.grid_dim, c.block_dim), c.threads)
        << "thread_count(grid_dim = " << show(c.grid_dim) << ", block_dim = " << show(c.block_dim) << ")";
  }
}

TEST(GridArithmetic, WarpsPerBlockRoundsUpToWholeWarps) {
  struct Case {
    Dim3 block_dim;
    Expected<std::uint64_t> warps;
  };
  const std::vector<Case> cases = {
      {Dim3{256}, LAUNCHLAB_EXPECTED(8)},  // the course's blocks
      {Dim3{32}, LAUNCHLAB_EXPECTED(1)},
      {Dim3{1024}, LAUNCHLAB_EXPECTED(32)},
      {Dim3{1}, LAUNCHLAB_EXPECTED(1)},
      {Dim3{33}, LAUNCHLAB_EXPECTED(2)},
      {Dim3{48}, LAUNCHLAB_EXPECTED(2)},
      {Dim3{16, 16}, LAUNCHLAB_EXPECTED(8)},
      {Dim3{10, 10, 10}, LAUNCHLAB_EXPECTED(32)},  // 1000 threads: 31 full warps and a partial one
      {Dim3{7, 3, 1}, LAUNCHLAB_EXPECTED(1)},
  };
  for (const Case& c : cases) {
    RECORD_EQ(warps_per_block(c.block_dim), c.warps) << "warps_per_block(block_dim = " << show(c.block_dim) << ")";
  }
}

TEST(GridArithmetic, GlobalIndexIn1DIsBlockTimesWidthPlusThread) {
  RecordGlobalIndex({
      {Dim3{4096}, Dim3{256}, Index3{0}, Index3{0}, LAUNCHLAB_EXPECTED(0)},
      {Dim3{4096}, Dim3{256}, Index3{0}, Index3{255}, LAUNCHLAB_EXPECTED(255)},
      {Dim3{4096}, Dim3{256}, Index3{1}, Index3{0}, LAUNCHLAB_EXPECTED(256)},
      {Dim3{4096}, Dim3{256}, Index3{2}, Index3{5}, LAUNCHLAB_EXPECTED(517)},
      {Dim3{4096}, Dim3{256}, Index3{4095}, Index3{255}, LAUNCHLAB_EXPECTED(1'048'575)},
      // The last thread of the largest 1-D grid: more than 32 bits.
      {Dim3{2'147'483'647}, Dim3{1024}, Index3{2'147'483'646}, Index3{1023}, LAUNCHLAB_EXPECTED(2'199'023'254'527)},
  });
}

TEST(GridArithmetic, GlobalIndexIn2DRunsRowByRow) {
  // A grid of 3 x 2 blocks of 4 x 5 threads: 12 threads to a row, 10 rows.
  const Dim3 grid{3, 2};
  const Dim3 block{4, 5};
  RecordGlobalIndex({
      {grid, block, Index3{0, 0}, Index3{0, 0}, LAUNCHLAB_EXPECTED(0)},
      {grid, block, Index3{0, 0}, Index3{3, 0}, LAUNCHLAB_EXPECTED(3)},
      {grid, block, Index3{1, 0}, Index3{0, 0}, LAUNCHLAB_EXPECTED(4)},   // the next block along x continues the row
      {grid, block, Index3{0, 0}, Index3{0, 1}, LAUNCHLAB_EXPECTED(12)},  // one row down is one grid width on
      {grid, block, Index3{2, 0}, Index3{3, 4}, LAUNCHLAB_EXPECTED(59)},
      {grid, block, Index3{0, 1}, Index3{0, 0}, LAUNCHLAB_EXPECTED(60)},
      {grid, block, Index3{1, 1}, Index3{2, 3}, LAUNCHLAB_EXPECTED(102)},
      {grid, block, Index3{2, 1}, Index3{3, 4}, LAUNCHLAB_EXPECTED(119)},  // the last of 120 threads
  });
}

TEST(GridArithmetic, GlobalIndexIn3DRunsPlaneByPlane) {
  // 2 x 3 x 4 blocks of 5 x 2 x 3 threads: rows of 10, planes of 10 x 6 = 60, 12 planes.
  const Dim3 grid{2, 3, 4};
  const Dim3 block{5, 2, 3};
  RecordGlobalIndex({
      {grid, block, Index3{0, 0, 0}, Index3{0, 0, 0}, LAUNCHLAB_EXPECTED(0)},
      {grid, block, Index3{0, 0, 0}, Index3{0, 1, 0}, LAUNCHLAB_EXPECTED(10)},
      {grid, block, Index3{0, 0, 0}, Index3{0, 0, 1}, LAUNCHLAB_EXPECTED(60)},
      {grid, block, Index3{0, 1, 0}, Index3{0, 0, 0}, LAUNCHLAB_EXPECTED(20)},
      {grid, block, Index3{0, 0, 1}, Index3{0, 0, 0}, LAUNCHLAB_EXPECTED(180)},
      {grid, block, Index3{1, 0, 2}, Index3{0, 1, 0}, LAUNCHLAB_EXPECTED(375)},
      {grid, block, Index3{1, 2, 3}, Index3{4, 1, 2}, LAUNCHLAB_EXPECTED(719)},  // the last of 720 threads
      // 2^35 threads: the plane offset alone needs more than 32 bits.
      {Dim3{1u << 20, 8, 4}, Dim3{1024}, Index3{(1u << 20) - 1, 7, 3}, Index3{1023},
       LAUNCHLAB_EXPECTED((std::uint64_t{1} << 35) - 1)},
  });
}

TEST(GridArithmetic, EveryThreadOfA3DGridGetsADistinctIndex) {
  // 3 x 2 x 2 blocks of 4 x 3 x 2 threads: 12 x 6 x 4 = 288 threads, and every
  // extent differs, so swapping any two of them shows.
  const Dim3 grid{3, 2, 2};
  const Dim3 block{4, 3, 2};
  const std::uint64_t total = 288;

  // Every index the learner's global_index gives, sorted: exactly 0 to 287
  // once each when no two threads share one and none falls outside.
  std::vector<std::uint64_t> indices;
  for (std::uint32_t bz = 0; bz < grid.z; ++bz)
    for (std::uint32_t by = 0; by < grid.y; ++by)
      for (std::uint32_t bx = 0; bx < grid.x; ++bx)
        for (std::uint32_t tz = 0; tz < block.z; ++tz)
          for (std::uint32_t ty = 0; ty < block.y; ++ty)
            for (std::uint32_t tx = 0; tx < block.x; ++tx)
              indices.push_back(global_index(grid, block, Index3{bx, by, bz}, Index3{tx, ty, tz}));
  std::sort(indices.begin(), indices.end());
  RECORD_EQ(indices, [&] {
    std::vector<std::uint64_t> every(total);
    std::iota(every.begin(), every.end(), 0);
    return every;
  }()) << "the indices global_index gives the 288 threads of grid_dim = {3, 2, 2}, block_dim = {4, 3, 2}, sorted";
}

TEST(GridArithmetic, TheCourseLaunchHas1048576ThreadsIn32768Warps) {
  // vadd<<<4096, 256>>> on 2^20 floats, as every chapter has it.
  const std::uint64_t n = std::uint64_t{1} << 20;
  RECORD_EQ(blocks_needed(n, 256), 4096u) << "blocks_needed(2^20, 256)";
  RECORD_EQ(thread_count(Dim3{4096}, Dim3{256}), 1'048'576u) << "thread_count({4096}, {256})";
  RECORD_EQ(warps_per_block(Dim3{256}), 8u) << "warps_per_block({256})";
  RECORD_EQ(4096u * warps_per_block(Dim3{256}), 32'768u) << "4096 blocks x warps_per_block({256})";
}

}  // namespace
}  // namespace launchlab::journey
