// The tests of lab 00_alpha, written with records as every lab's are: the
// learner's build records what add() and total() return, the reference
// build also checks them against the expected values.
#include <cuda_runtime_api.h>

#include "launchlab/record.h"
#include "launchlab/testing.h"

#include "alpha.h"
#include "stats.h"

namespace alpha {
namespace {

TEST(Alpha, AddsSmallNumbers) { RECORD_EQ(add(2, 3), 5L); }
TEST(Alpha, AddsNegativeNumbers) { RECORD_EQ(add(-2, -3), -5L); }
TEST(Alpha, AddsLargeNumbers) { RECORD_EQ(add(1L << 40, 1L << 40), 1L << 41); }

TEST(Alpha, RunsOnTheGpu) {
  LAUNCHLAB_REQUIRE_GPU();
  int count = 0;
  RECORD_REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  RECORD_EQ(add(count, 0), static_cast<long>(count)) << "add(the number of GPUs, 0)";
}

TEST(AlphaStats, TotalsAList) {
  RECORD_EQ(total({1, 2, 3, 4}), 10L);
  RECORD_EQ(total({}), 0L);
}

}  // namespace
}  // namespace alpha
