// The occupancy calculator. The rules are in occupancy.h, in the order this
// file applies them.

#include "occupancy.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace launchlab::occupancy {
namespace {

std::size_t round_up(std::size_t x, std::size_t unit) { return (x + unit - 1) / unit * unit; }

// The smallest capacity the SM can be set to that holds `bytes`, or 0 if none does.
std::size_t capacity_at_least(const ArchLimits& arch, std::size_t bytes) {
  for (int kib : arch.shared_capacities_kib) {
    const std::size_t capacity = static_cast<std::size_t>(kib) * 1024;
    if (capacity >= bytes) return capacity;
  }
  return 0;
}

}  // namespace

Occupancy compute_occupancy(const ArchLimits& arch, const KernelResources& kernel, const LaunchShape& launch) {
  if (launch.block_size < 1) {
    throw std::invalid_argument("compute_occupancy: block_size must be at least 1, got " +
                                std::to_string(launch.block_size));
  }
  if (launch.carveout_percent < -1 || launch.carveout_percent > 100) {
    throw std::invalid_argument("compute_occupancy: carveout_percent must be -1 or 0 to 100, got " +
                                std::to_string(launch.carveout_percent));
  }
  Occupancy o;
  const int warps_per_block = (launch.block_size + arch.warp_size - 1) / arch.warp_size;

  // Warps: a partial warp occupies a whole warp slot.
  o.blocks_by_warps =
      launch.block_size > arch.max_threads_per_block ? 0 : arch.max_warps_per_sm / warps_per_block;

  // Registers: allocated per warp, in units; each warp lives in one partition.
  const int regs = kernel.registers_per_thread;
  o.registers_per_warp =
      static_cast<int>(round_up(static_cast<std::size_t>(regs) * arch.warp_size, arch.register_allocation_unit));
  if (regs > arch.max_registers_per_thread ||
      static_cast<long long>(o.registers_per_warp) * warps_per_block > arch.max_registers_per_block) {
    o.blocks_by_registers = 0;
  } else if (regs == 0) {
    o.blocks_by_registers = INT_MAX;
  } else {
    const int per_partition = arch.registers_per_sm / arch.register_file_partitions;
    const int warps = arch.register_file_partitions * (per_partition / o.registers_per_warp);
    o.blocks_by_registers = warps / warps_per_block;
  }

  // Shared memory: the driver's reserved bytes count in every block.
  o.shared_per_block = round_up(kernel.static_shared_bytes + launch.dynamic_shared_bytes +
                                    static_cast<std::size_t>(arch.reserved_shared_per_block),
                                arch.shared_allocation_unit);
  const std::size_t most = static_cast<std::size_t>(arch.max_shared_per_sm);
  const std::size_t preferred =
      launch.carveout_percent < 0 ? most
                                  : capacity_at_least(arch, static_cast<std::size_t>(launch.carveout_percent) *
                                                                most / 100);
  o.shared_capacity = preferred >= o.shared_per_block ? preferred : capacity_at_least(arch, o.shared_per_block);
  if (launch.dynamic_shared_bytes > kernel.max_dynamic_shared_bytes ||
      kernel.static_shared_bytes + launch.dynamic_shared_bytes >
          static_cast<std::size_t>(arch.max_shared_per_block_optin) ||
      o.shared_capacity == 0) {
    o.blocks_by_shared = 0;
  } else if (o.shared_per_block == 0) {
    o.blocks_by_shared = INT_MAX;
  } else {
    o.blocks_by_shared = static_cast<int>(o.shared_capacity / o.shared_per_block);
  }

  o.blocks_by_block_limit = arch.max_blocks_per_sm;

  o.active_blocks = std::min({o.blocks_by_warps, o.blocks_by_registers, o.blocks_by_shared, o.blocks_by_block_limit});
  if (o.blocks_by_warps == o.active_blocks) o.limiters |= static_cast<unsigned>(Limiter::warps);
  if (o.blocks_by_registers == o.active_blocks) o.limiters |= static_cast<unsigned>(Limiter::registers);
  if (o.blocks_by_shared == o.active_blocks) o.limiters |= static_cast<unsigned>(Limiter::shared_memory);
  if (o.blocks_by_block_limit == o.active_blocks) o.limiters |= static_cast<unsigned>(Limiter::blocks);
  o.active_warps = o.active_blocks * warps_per_block;
  o.occupancy = arch.max_warps_per_sm > 0 ? static_cast<double>(o.active_warps) / arch.max_warps_per_sm : 0.0;
  return o;
}

}  // namespace launchlab::occupancy
