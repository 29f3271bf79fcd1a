// arch_limits() against the documented limits of documented_limits.h, on the CPU.

#include <gtest/gtest.h>

#include <initializer_list>
#include <iterator>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>

#include "documented_limits.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "occupancy.h"

namespace launchlab::occupancy {
namespace {

// The architectures the lab documents.
constexpr int kArchitectures[] = {80, 86, 89, 90, 100, 120};

// For each documented architecture: arch_limits(sm), with whether it threw
// and the sm it answers for recorded, then record_fields(sm, limits). Stops
// at the first architecture it throws for.
template <class RecordFields>
void ForEachArchitecture(RecordFields record_fields) {
  for (int sm : kArchitectures) {
    RECORD_SCOPE("arch_limits(" + std::to_string(sm) + ")");
    std::optional<ArchLimits> got;
    RECORD_NO_THROW(got = arch_limits(sm));
    RECORD_REQUIRE(got.has_value());
    RECORD_EQ(got->sm, sm) << "sm";
    record_fields(sm, *got);
  }
}

// One number of ArchLimits, and what it means.
struct Field {
  int ArchLimits::*member;
  const char* name;
};

// Records the fields of arch_limits(sm) against the documented limits, for
// each documented architecture.
void RecordFields(std::initializer_list<Field> fields) {
  ForEachArchitecture([&]([[maybe_unused]] int sm, const ArchLimits& got) {
    for (const Field& field : fields) RECORD_EQ(got.*field.member, documented::limits(sm).*field.member) << field.name;
  });
}

TEST(ArchLimits, ThreadsWarpsAndBlocksPerSm) {
  RecordFields({
      {&ArchLimits::warp_size, "warp_size"},
      {&ArchLimits::max_threads_per_block, "max_threads_per_block"},
      {&ArchLimits::max_threads_per_sm, "max_threads_per_sm: resident threads per SM"},
      {&ArchLimits::max_warps_per_sm, "max_warps_per_sm: resident warps per SM"},
      {&ArchLimits::max_blocks_per_sm, "max_blocks_per_sm: resident blocks per SM"},
  });
}

TEST(ArchLimits, RegisterFileAndItsAllocation) {
  RecordFields({
      {&ArchLimits::registers_per_sm, "registers_per_sm: 32-bit registers in one SM's register file"},
      {&ArchLimits::max_registers_per_block, "max_registers_per_block"},
      {&ArchLimits::max_registers_per_thread, "max_registers_per_thread"},
      {&ArchLimits::register_allocation_unit, "register_allocation_unit: a warp's registers come in multiples of it"},
      {&ArchLimits::register_file_partitions, "register_file_partitions: one part per warp scheduler"},
  });
}

TEST(ArchLimits, SharedMemoryPerSmAndPerBlock) {
  RecordFields({
      {&ArchLimits::max_shared_per_sm, "max_shared_per_sm: bytes, the largest capacity"},
      {&ArchLimits::max_shared_per_block, "max_shared_per_block: bytes without opting in"},
      {&ArchLimits::max_shared_per_block_optin, "max_shared_per_block_optin: bytes after opting in"},
      {&ArchLimits::reserved_shared_per_block, "reserved_shared_per_block: bytes the driver keeps per block"},
      {&ArchLimits::shared_allocation_unit, "shared_allocation_unit"},
  });
}

TEST(ArchLimits, SharedMemoryCapacitiesOfTheCarveout) {
  ForEachArchitecture([]([[maybe_unused]] int sm, const ArchLimits& got) {
    RECORD_EQ(got.shared_capacities_kib, documented::limits(sm).shared_capacities_kib)
        << "shared_capacities_kib: the capacities (KiB) one SM's shared memory can be set to, ascending";
  });
}

TEST(ArchLimits, RejectsAnArchitectureItDoesNotKnow) {
  for (int sm : {0, 70, 75, 87, 91, 101, 121}) {
    RECORD_THROWS((void)arch_limits(sm), std::invalid_argument) << "arch_limits(" << sm << ")";
  }
  // Drawn architectures, every other one documented: only code that rejects
  // exactly the others and answers for these matches the solution.
  std::mt19937_64 random = launchlab::testing::seeded_random(20261101);
  for (int row = 0; row < 8; ++row) {
    const int sm = row % 2 == 0 ? kArchitectures[random() % std::size(kArchitectures)] : static_cast<int>(random() % 200);
    RECORD_OUTCOME(arch_limits(sm).shared_capacities_kib, std::invalid_argument) << "arch_limits(" << sm << ")";
  }
}

}  // namespace
}  // namespace launchlab::occupancy
