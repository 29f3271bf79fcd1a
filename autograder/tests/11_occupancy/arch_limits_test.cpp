// arch_limits() against the documented limits of documented_limits.h, on the CPU.

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "documented_limits.h"
#include "launchlab/testing.h"
#include "occupancy.h"

namespace launchlab::occupancy {
namespace {

using launchlab::testing::SameSequence;

// Calls arch_limits and turns an exception into a failure that names the architecture.
::testing::AssertionResult Limits(int sm, ArchLimits& out) {
  try {
    out = arch_limits(sm);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "arch_limits(" << sm << ") threw: " << e.what();
  }
  if (out.sm != sm) {
    return ::testing::AssertionFailure() << "arch_limits(" << sm << ").sm is " << out.sm;
  }
  return ::testing::AssertionSuccess();
}

TEST(ArchLimits, ThreadsWarpsAndBlocksPerSm) {
  for (const documented::Row& row : documented::rows()) {
    ArchLimits got;
    ASSERT_TRUE(Limits(row.sm, got));
    const ArchLimits want = documented::limits(row.sm);
    SCOPED_TRACE("sm_" + std::to_string(row.sm));
    EXPECT_EQ(got.warp_size, want.warp_size);
    EXPECT_EQ(got.max_threads_per_block, want.max_threads_per_block);
    EXPECT_EQ(got.max_threads_per_sm, want.max_threads_per_sm) << "resident threads per SM";
    EXPECT_EQ(got.max_warps_per_sm, want.max_warps_per_sm) << "resident warps per SM";
    EXPECT_EQ(got.max_blocks_per_sm, want.max_blocks_per_sm) << "resident blocks per SM";
  }
}

TEST(ArchLimits, RegisterFileAndItsAllocation) {
  for (const documented::Row& row : documented::rows()) {
    ArchLimits got;
    ASSERT_TRUE(Limits(row.sm, got));
    const ArchLimits want = documented::limits(row.sm);
    SCOPED_TRACE("sm_" + std::to_string(row.sm));
    EXPECT_EQ(got.registers_per_sm, want.registers_per_sm) << "64 K 32-bit registers per SM";
    EXPECT_EQ(got.max_registers_per_block, want.max_registers_per_block);
    EXPECT_EQ(got.max_registers_per_thread, want.max_registers_per_thread);
    EXPECT_EQ(got.register_allocation_unit, want.register_allocation_unit) << "registers per warp come in units of";
    EXPECT_EQ(got.register_file_partitions, want.register_file_partitions) << "one part per warp scheduler";
  }
}

TEST(ArchLimits, SharedMemoryPerSmAndPerBlock) {
  for (const documented::Row& row : documented::rows()) {
    ArchLimits got;
    ASSERT_TRUE(Limits(row.sm, got));
    const ArchLimits want = documented::limits(row.sm);
    SCOPED_TRACE("sm_" + std::to_string(row.sm));
    EXPECT_EQ(got.max_shared_per_sm, want.max_shared_per_sm) << "bytes, the largest capacity";
    EXPECT_EQ(got.max_shared_per_block, want.max_shared_per_block) << "bytes without opting in";
    EXPECT_EQ(got.max_shared_per_block_optin, want.max_shared_per_block_optin) << "bytes after opting in";
    EXPECT_EQ(got.reserved_shared_per_block, want.reserved_shared_per_block) << "bytes the driver keeps per block";
    EXPECT_EQ(got.shared_allocation_unit, want.shared_allocation_unit);
  }
}

TEST(ArchLimits, SharedMemoryCapacitiesOfTheCarveout) {
  for (const documented::Row& row : documented::rows()) {
    ArchLimits got;
    ASSERT_TRUE(Limits(row.sm, got));
    EXPECT_TRUE(SameSequence(row.capacities_kib, got.shared_capacities_kib))
        << "sm_" << row.sm << ": the capacities (KiB) one SM's shared memory can be set to, ascending";
  }
}

TEST(ArchLimits, RejectsAnArchitectureItDoesNotKnow) {
  for (int sm : {0, 70, 75, 87, 91, 101, 121}) {
    try {
      (void)arch_limits(sm);
      ADD_FAILURE() << "arch_limits(" << sm << "): expected std::invalid_argument, got no exception";
    } catch (const std::invalid_argument&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << "arch_limits(" << sm << "): expected std::invalid_argument, got: " << e.what();
    }
  }
}

}  // namespace
}  // namespace launchlab::occupancy
