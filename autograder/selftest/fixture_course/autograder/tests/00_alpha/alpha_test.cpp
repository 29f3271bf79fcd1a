#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "alpha.h"

TEST(Alpha, AddsSmallNumbers) { EXPECT_EQ(add(2, 3), 5); }
TEST(Alpha, AddsNegativeNumbers) { EXPECT_EQ(add(-2, -3), -5); }
TEST(Alpha, AddsLargeNumbers) { EXPECT_EQ(add(1L << 40, 1L << 40), 1L << 41); }
TEST(Alpha, RunsOnTheGpu) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "needs a GPU: none here";
  EXPECT_EQ(add(count, 0), count);
}
