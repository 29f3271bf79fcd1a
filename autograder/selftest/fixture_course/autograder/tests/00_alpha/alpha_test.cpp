#include <cuda_runtime_api.h>

#include "launchlab/testing.h"

#include "alpha.h"

TEST(Alpha, AddsSmallNumbers) { EXPECT_EQ(add(2, 3), 5); }
TEST(Alpha, AddsNegativeNumbers) { EXPECT_EQ(add(-2, -3), -5); }
TEST(Alpha, AddsLargeNumbers) { EXPECT_EQ(add(1L << 40, 1L << 40), 1L << 41); }
TEST(Alpha, RunsOnTheGpu) {
  LAUNCHLAB_REQUIRE_GPU();
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(add(count, 0), count);
}
