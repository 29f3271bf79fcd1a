// The documented limits of each architecture. Find them in the CUDA C++
// Programming Guide (the table "Technical Specifications per Compute
// Capability", and the sections on shared memory per compute capability) and
// in cuda_occupancy.h, the occupancy calculator in the CUDA toolkit's include
// folder.

#include <stdexcept>
#include <string>

#include "occupancy.h"

namespace launchlab::occupancy {

ArchLimits arch_limits(int sm) {
  // TODO(student): fill every field of ArchLimits for sm 80, 86, 89, 90, 100
  // and 120, and throw std::invalid_argument for any other value. Many
  // fields are the same on all six; the threads, blocks and shared memory
  // per SM, and the capacities the carveout can choose from, are not.
  ArchLimits limits;
  limits.sm = sm;
  return limits;
}

}  // namespace launchlab::occupancy
