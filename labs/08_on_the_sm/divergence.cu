// The divergence experiment: one kernel, two paths, three ways to split the
// threads of a block between them. The contract is in divergence.h; the
// paths and the kernel, branchy, are given in branchy.cuh. Before you run it,
// predict the time of each Split.

#include "branchy.cuh"
#include "divergence.h"

namespace launchlab::on_the_sm {

__host__ __device__ bool takes_first_path(Split split, unsigned thread_in_block) {
  // TODO(student): decide the thread's path. Split::None: every thread takes
  // the first path. Split::BetweenWarps: whole warps of 32 threads alternate,
  // warp 0 first. Split::InsideWarps: even threads first, odd threads second.
  (void)split;
  (void)thread_in_block;
  return true;
}

}  // namespace launchlab::on_the_sm
