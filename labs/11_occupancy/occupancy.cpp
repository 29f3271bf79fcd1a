// The occupancy calculator. The rules are in occupancy.h.

#include "occupancy.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace launchlab::occupancy {

Occupancy compute_occupancy(const ArchLimits& arch, const KernelResources& kernel, const LaunchShape& launch) {
  // TODO(student): check the arguments; from the rules in occupancy.h,
  // work out how many blocks each of the four resources (warps, registers,
  // shared memory, blocks) allows, with their allocation units; take the
  // smallest; report every limiter that equals it, the allocations, the
  // capacity, the active warps and the occupancy.
  (void)arch;
  (void)kernel;
  (void)launch;
  return {};
}

}  // namespace launchlab::occupancy
