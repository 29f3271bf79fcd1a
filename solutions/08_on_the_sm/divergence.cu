// The divergence experiment: one kernel, two paths, three ways to split the
// threads of a block between them. The contract is in divergence.h.

#include "branchy.cuh"
#include "divergence.h"

namespace launchlab::on_the_sm {

__host__ __device__ bool takes_first_path(Split split, unsigned thread_in_block) {
  switch (split) {
    case Split::None:
      return true;
    case Split::BetweenWarps:
      // Threads 0-31 are warp 0, 32-63 warp 1, ...: all lanes of a warp agree.
      return (thread_in_block / 32u) % 2u == 0u;
    case Split::InsideWarps:
      // Neighbouring lanes disagree: every warp holds both paths.
      return thread_in_block % 2u == 0u;
  }
  return true;
}

}  // namespace launchlab::on_the_sm
