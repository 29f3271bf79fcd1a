// compute_occupancy() on the CPU: cases worked out by hand on sm_90; a sweep
// of every documented architecture against NVIDIA's own calculator,
// cuda_occupancy.h; and a table of cudaOccupancyMaxActiveBlocksPerMultiprocessor's
// answers made on an H200 (fixtures/occupancy_sm90.csv).
//
// Each test hands compute_occupancy the limits of documented_limits.h, not
// the learner's arch_limits(), so that a slip in one does not fail the other.

#include <cuda_occupancy.h>
#include <gtest/gtest.h>

#include <climits>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "documented_limits.h"
#include "launchlab/testing.h"
#include "occupancy.h"

namespace launchlab::occupancy {
namespace {

constexpr unsigned kWarps = static_cast<unsigned>(Limiter::warps);
constexpr unsigned kRegisters = static_cast<unsigned>(Limiter::registers);
constexpr unsigned kShared = static_cast<unsigned>(Limiter::shared_memory);
constexpr unsigned kBlocks = static_cast<unsigned>(Limiter::blocks);

std::string limiter_names(unsigned limiters) {
  std::string s;
  auto add = [&](unsigned bit, const char* name) {
    if (limiters & bit) s += (s.empty() ? "" : "|") + std::string(name);
  };
  add(kWarps, "warps");
  add(kRegisters, "registers");
  add(kShared, "shared_memory");
  add(kBlocks, "blocks");
  return s.empty() ? "none" : s;
}

KernelResources kernel(int registers, std::size_t static_shared = 0, std::size_t max_dynamic = 0) {
  KernelResources k;
  k.registers_per_thread = registers;
  k.static_shared_bytes = static_shared;
  k.max_dynamic_shared_bytes = max_dynamic ? max_dynamic : 48 * 1024 - static_shared;
  return k;
}

LaunchShape shape(int block, std::size_t dynamic = 0, int carveout = -1) {
  LaunchShape l;
  l.block_size = block;
  l.dynamic_shared_bytes = dynamic;
  l.carveout_percent = carveout;
  return l;
}

std::string describe(const KernelResources& k, const LaunchShape& l) {
  std::ostringstream s;
  s << "{" << k.registers_per_thread << " registers, " << k.static_shared_bytes << " B static, max dynamic "
    << k.max_dynamic_shared_bytes << " B} <<<block " << l.block_size << ", " << l.dynamic_shared_bytes
    << " B dynamic>>>, carveout " << l.carveout_percent;
  return s.str();
}

// Expects an occupancy on sm_90: the active blocks and the limiters.
void ExpectSm90(const KernelResources& k, const LaunchShape& l, int blocks, unsigned limiters, const char* why) {
  Occupancy o;
  try {
    o = compute_occupancy(documented::limits(90), k, l);
  } catch (const std::exception& e) {
    ADD_FAILURE() << describe(k, l) << ": compute_occupancy threw: " << e.what();
    return;
  }
  EXPECT_EQ(o.active_blocks, blocks) << describe(k, l) << " on sm_90: " << why;
  EXPECT_EQ(o.limiters, limiters) << describe(k, l) << " on sm_90: expected limiters " << limiter_names(limiters)
                                  << ", got " << limiter_names(o.limiters);
}

// ---- Worked out by hand on sm_90: 64 warps, 32 blocks, 64 K registers in 4 parts,
// ---- 228 KiB of shared memory, 1 KiB reserved per block, 128-byte units.

TEST(Occupancy, WarpsLimitABlockOf256Threads) {
  ExpectSm90(kernel(16), shape(256), 8, kWarps, "8 warps per block, 64 per SM");
  const Occupancy o = compute_occupancy(documented::limits(90), kernel(16), shape(256));
  EXPECT_EQ(o.active_warps, 64);
  EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
  EXPECT_EQ(o.blocks_by_block_limit, 32);
}

TEST(Occupancy, TheBlockLimitStopsSmallBlocks) {
  ExpectSm90(kernel(16), shape(32), 32, kBlocks, "one warp per block: 64 would fit by warps, 32 blocks is the cap");
  const Occupancy o = compute_occupancy(documented::limits(90), kernel(16), shape(32));
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5) << "32 warps of 64";
}

TEST(Occupancy, APartialWarpTakesAWholeWarp) {
  ExpectSm90(kernel(16), shape(100), 16, kWarps, "100 threads are 4 warps (the last one partial): 64 / 4");
}

TEST(Occupancy, RegistersAreAllocatedPerWarpInUnitsOf256) {
  // 33 * 32 = 1056 registers per warp, allocated as 1280; 16384 / 1280 = 12 warps
  // per part, 48 per SM, 12 blocks of 4 warps. Without the unit: 15.
  ExpectSm90(kernel(33), shape(128), 12, kRegisters, "33 registers per thread, 1280 per warp after rounding");
  const Occupancy o = compute_occupancy(documented::limits(90), kernel(33), shape(128));
  EXPECT_EQ(o.registers_per_warp, 1280);
}

TEST(Occupancy, TheRegisterFileIsSplitAmongFourSchedulers) {
  // 80 * 32 = 2560 per warp: the whole file would hold 25 warps, but each
  // quarter holds 6 (16384 / 2560), so the SM holds 24.
  ExpectSm90(kernel(80), shape(32), 24, kRegisters, "each quarter of the register file holds 6 warps");
}

TEST(Occupancy, TooManyRegistersForOneBlockMeansNone) {
  // 255 registers: 8192 per warp, 2 warps per quarter, 8 per SM; a block of 16 warps cannot start.
  ExpectSm90(kernel(255), shape(512), 0, kRegisters, "16 warps of 8192 registers are twice the register file");
  ExpectSm90(kernel(255), shape(256), 1, kRegisters, "8 warps of 8192 registers fill the register file");
  ExpectSm90(kernel(256), shape(32), 0, kRegisters, "no kernel may use more than 255 registers per thread");
}

TEST(Occupancy, ReservedSharedMemoryCountsInEveryBlock) {
  // 32 KiB + 1 KiB = 33792 bytes per block; 233472 / 33792 = 6 (7 without the reserved KiB).
  ExpectSm90(kernel(16), shape(64, 32 * 1024), 6, kShared, "32 KiB dynamic plus the 1 KiB the driver keeps");
  const Occupancy o = compute_occupancy(documented::limits(90), kernel(16), shape(64, 32 * 1024));
  EXPECT_EQ(o.shared_per_block, 33792u);
  EXPECT_EQ(o.shared_capacity, 233472u);
}

TEST(Occupancy, SharedMemoryIsAllocatedIn128ByteUnits) {
  // 7000 + 1024 = 8024 bytes, allocated as 8064: 233472 / 8064 = 28 (29 for 8024).
  ExpectSm90(kernel(16, 7000), shape(32), 28, kShared, "7000 B static plus 1 KiB, rounded up to 8064 B");
  const Occupancy o = compute_occupancy(documented::limits(90), kernel(16, 7000), shape(32));
  EXPECT_EQ(o.shared_per_block, 8064u);
}

TEST(Occupancy, TheCarveoutPreferenceSetsTheCapacity) {
  // 25% of 233472 is 58368 bytes, rounded up to the 64 KiB capacity;
  // 10 KiB + 1 KiB per block: 65536 / 11264 = 5 blocks.
  ExpectSm90(kernel(16), shape(64, 10 * 1024, 25), 5, kShared, "a carveout of 25% gives 64 KiB");
  const Occupancy o = compute_occupancy(documented::limits(90), kernel(16), shape(64, 10 * 1024, 25));
  EXPECT_EQ(o.shared_capacity, 65536u);
  ExpectSm90(kernel(16), shape(64, 10 * 1024, 100), 20, kShared, "a carveout of 100% gives 228 KiB: 233472 / 11264");
}

TEST(Occupancy, TooSmallACarveoutGrowsToHoldOneBlock) {
  // A carveout of 0 asks for no shared memory; one block needs 11264 bytes, so the SM gets 16 KiB.
  ExpectSm90(kernel(16), shape(64, 10 * 1024, 0), 1, kShared, "16 KiB holds one block of 11264 bytes");
  const Occupancy o = compute_occupancy(documented::limits(90), kernel(16), shape(64, 10 * 1024, 0));
  EXPECT_EQ(o.shared_capacity, 16384u);
}

TEST(Occupancy, DynamicSharedMemoryAboveTheKernelsLimitMeansNone) {
  ExpectSm90(kernel(16, 0, 48 * 1024), shape(64, 48 * 1024 + 4), 0, kShared,
             "the kernel allows 48 KiB of dynamic shared memory (cudaFuncAttributeMaxDynamicSharedMemorySize)");
  ExpectSm90(kernel(16, 0, 100 * 1024), shape(64, 100 * 1024), 2, kShared,
             "after opting in to 100 KiB: 233472 / 103424 = 2");
}

TEST(Occupancy, ABlockAbove1024ThreadsMeansNone) {
  ExpectSm90(kernel(16), shape(1025), 0, kWarps, "no block may have more than 1024 threads");
}

TEST(Occupancy, ATieReportsEveryLimiter) {
  // 32 registers: 1024 per warp, 16 warps per quarter, 64 per SM: 8 blocks of 256, as many as the warps allow.
  ExpectSm90(kernel(32), shape(256), 8, kWarps | kRegisters, "registers and warps both allow 8 blocks");
}

TEST(Occupancy, RejectsABlockOfNoThreadsAndACarveoutOutOfRange) {
  for (const LaunchShape& bad : {shape(0), shape(-32), shape(64, 0, -2), shape(64, 0, 101)}) {
    try {
      (void)compute_occupancy(documented::limits(90), kernel(16), bad);
      ADD_FAILURE() << describe(kernel(16), bad) << ": expected std::invalid_argument, got no exception";
    } catch (const std::invalid_argument&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << describe(kernel(16), bad) << ": expected std::invalid_argument, got: " << e.what();
    }
  }
}

// ---- Against cuda_occupancy.h, on every documented architecture ---------------------

TEST(Occupancy, AgreesWithCudaOccupancyHOnEveryArchitecture) {
  int compared = 0, mismatches = 0;
  std::ostringstream first;
  for (const documented::Row& row : documented::rows()) {
    const ArchLimits arch = documented::limits(row.sm);
    const cudaOccDeviceProp properties = documented::occ_properties(row.sm);
    for (int registers : {0, 16, 24, 32, 33, 40, 56, 64, 72, 96, 128, 168, 200, 255}) {
      for (int block : {1, 32, 64, 96, 100, 128, 192, 256, 320, 384, 512, 640, 768, 1024}) {
        for (std::size_t dynamic : {0, 100, 1024, 4000, 10 * 1024, 33 * 1024, 48 * 1024, 100 * 1024, 200 * 1024}) {
          for (std::size_t static_shared : {0, 5000}) {
            for (int carveout : {-1, 0, 25, 50, 100}) {
              const std::size_t optin = static_cast<std::size_t>(arch.max_shared_per_block_optin);
              // The largest dynamic size cudaFuncSetAttribute accepts for this kernel.
              const std::size_t max_dynamic = optin - static_shared;
              cudaOccFuncAttributes attributes;
              attributes.maxThreadsPerBlock = 1024;
              attributes.numRegs = registers;
              attributes.sharedSizeBytes = static_shared;
              attributes.partitionedGCConfig = PARTITIONED_GC_OFF;
              attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
              attributes.maxDynamicSharedSizeBytes = max_dynamic;
              attributes.numBlockBarriers = 1;
              cudaOccDeviceState state;
              state.carveoutConfig = carveout;
              cudaOccResult result{};
              const cudaOccError status =
                  cudaOccMaxActiveBlocksPerMultiprocessor(&result, &properties, &attributes, &state, block, dynamic);
              ASSERT_EQ(status, CUDA_OCC_SUCCESS) << "cuda_occupancy.h refused sm_" << row.sm;

              const KernelResources k = kernel(registers, static_shared, max_dynamic);
              const LaunchShape l = shape(block, dynamic, carveout);
              Occupancy o;
              try {
                o = compute_occupancy(arch, k, l);
              } catch (const std::exception& e) {
                FAIL() << "sm_" << row.sm << ", " << describe(k, l) << ": compute_occupancy threw: " << e.what();
              }
              // Block barriers and virtual resources limit nothing for these kernels.
              const unsigned expected_limiters = result.limitingFactors & (kWarps | kRegisters | kShared | kBlocks);
              ++compared;
              if (o.active_blocks != result.activeBlocksPerMultiprocessor || o.limiters != expected_limiters) {
                if (mismatches++ < 8) {
                  first << "\n  sm_" << row.sm << ", " << describe(k, l) << ": expected "
                        << result.activeBlocksPerMultiprocessor << " blocks limited by "
                        << limiter_names(expected_limiters) << ", got " << o.active_blocks << " limited by "
                        << limiter_names(o.limiters);
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0) << mismatches << " of " << compared
                           << " configurations differ from cuda_occupancy.h; the first ones:" << first.str();
}

// ---- Against the runtime, from a table made on an H200 ------------------------------

struct TableRow {
  int sm = 0;
  std::string kernel;
  int registers = 0;
  std::size_t static_shared = 0, max_dynamic = 0;
  int block = 0;
  std::size_t dynamic = 0;
  int carveout = -1;
  int api_blocks = -1;
};

std::vector<TableRow> read_table(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<TableRow> rows;
  std::vector<std::string> header;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream split(line);
    for (std::string f; std::getline(split, f, ',');) fields.push_back(f);
    if (header.empty()) {
      header = fields;
      continue;
    }
    auto field = [&](const std::string& name) -> const std::string& {
      for (std::size_t i = 0; i < header.size(); ++i) {
        if (header[i] == name && i < fields.size()) return fields[i];
      }
      throw std::runtime_error(path.string() + ": no column " + name + " in: " + line);
    };
    TableRow r;
    r.sm = std::stoi(field("sm"));
    r.kernel = field("kernel");
    r.registers = std::stoi(field("registers"));
    r.static_shared = std::stoul(field("static_shared"));
    r.max_dynamic = std::stoul(field("max_dynamic_shared"));
    r.block = std::stoi(field("block_size"));
    r.dynamic = std::stoul(field("dynamic_shared"));
    r.carveout = std::stoi(field("carveout"));
    r.api_blocks = std::stoi(field("api_blocks"));
    rows.push_back(r);
  }
  return rows;
}

void ExpectTableRows(bool with_carveout) {
  const std::filesystem::path path = launchlab::testing::test_data("11_occupancy/fixtures/occupancy_sm90.csv");
  if (!std::filesystem::exists(path)) {
    // The table is committed; without it this test proves nothing, so it fails.
    FAIL() << path << " is missing: it is made on a GPU by autograder/tests/11_occupancy/gpu_run.sh";
  }
  const std::vector<TableRow> rows = read_table(path);
  int compared = 0, mismatches = 0;
  std::ostringstream first;
  for (const TableRow& r : rows) {
    if (r.api_blocks < 0 || (r.carveout >= 0) != with_carveout) continue;  // the runtime refused, or the other test's
    // Dynamic shared memory above the kernel's maximum: left out, as in
    // OccupancyLive (live_test.cu says why): the runtime's answer for a launch
    // the kernel has not opted into is not documented.
    if (r.dynamic > r.max_dynamic) continue;
    const ArchLimits arch = documented::limits(r.sm);
    ASSERT_EQ(arch.sm, r.sm) << "the table is for sm_" << r.sm << ", which has no documented limits here";
    const KernelResources k = kernel(r.registers, r.static_shared, r.max_dynamic);
    const LaunchShape l = shape(r.block, r.dynamic, r.carveout);
    Occupancy o;
    try {
      o = compute_occupancy(arch, k, l);
    } catch (const std::exception& e) {
      FAIL() << r.kernel << " " << describe(k, l) << ": compute_occupancy threw: " << e.what();
    }
    ++compared;
    if (o.active_blocks != r.api_blocks && mismatches++ < 8) {
      first << "\n  " << r.kernel << " " << describe(k, l) << ": the runtime said " << r.api_blocks
            << " blocks, you " << o.active_blocks;
    }
  }
  ASSERT_GT(compared, 100) << "too few rows in " << path;
  EXPECT_EQ(mismatches, 0) << mismatches << " of " << compared
                           << " configurations differ from cudaOccupancyMaxActiveBlocksPerMultiprocessor on the "
                              "H200; the first ones:"
                           << first.str();
}

TEST(OccupancyTable, MatchesTheRuntimeWithoutACarveoutPreference) { ExpectTableRows(false); }

TEST(OccupancyTable, MatchesTheRuntimeWithACarveoutPreference) { ExpectTableRows(true); }

}  // namespace
}  // namespace launchlab::occupancy
