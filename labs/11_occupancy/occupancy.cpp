// The occupancy calculator. The rules are in occupancy.h.

#include "occupancy.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace launchlab::occupancy {

Occupancy compute_occupancy(const ArchLimits& arch, const KernelResources& kernel, const LaunchShape& launch) {
  // TODO(student): check the arguments; compute the four limits (warps,
  // registers, shared memory, blocks) exactly as occupancy.h describes them,
  // with their allocation units; take the smallest; report every limiter
  // that equals it, the active warps and the occupancy.
  (void)arch;
  (void)kernel;
  (void)launch;
  return {};
}

}  // namespace launchlab::occupancy
