// occupancy_table: random configurations of the probe kernels and what
// cudaOccupancyMaxActiveBlocksPerMultiprocessor answers for each, on the GPU
// of this machine, as CSV on standard output. It made
// ../fixtures/occupancy_sm90.csv (see ../fixtures/README.md). Beside the
// runtime's answer it writes cuda_occupancy.h's, computed from the same
// device's properties, for comparison.
//
//   nvcc -std=c++20 -O2 -arch=native -I autograder/tests/11_occupancy \
//        autograder/tests/11_occupancy/tools/occupancy_table.cu -o occupancy_table
//   ./occupancy_table 600 > occupancy_sm90.csv

#include <cuda_occupancy.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "occupancy_h.h"
#include "probe_kernels.cuh"

namespace occupancy_h = launchlab::occupancy::occupancy_h;
using launchlab::occupancy::probes::Sample;

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 600;
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    std::fprintf(stderr, "occupancy_table: no usable GPU\n");
    return 1;
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  const auto samples = launchlab::occupancy::probes::sample_runtime(11u, count);
  std::printf("# %s, sm_%d%d, driver API %d, runtime %d\n", prop.name, prop.major, prop.minor, driver, runtime);
  std::printf("# made by: occupancy_table %d (tools/occupancy_table.cu of the lab's tests, seed 11)\n",
              count);
  std::printf(
      "sm,kernel,registers,static_shared,max_dynamic_shared,max_threads,block_size,dynamic_shared,carveout,"
      "api_blocks,api_status,occupancy_h_blocks\n");
  const cudaOccDeviceProp occ_prop(prop);
  int refused = 0, differ = 0;
  for (const Sample& s : samples) {
    cudaOccResult result;
    const int occ = occupancy_h::max_active_blocks(occ_prop,
                                                   {s.max_threads, s.registers, s.static_shared, s.max_dynamic_shared,
                                                    s.carveout, s.block_size, s.dynamic_shared},
                                                   result)
                        ? result.activeBlocksPerMultiprocessor
                        : -1;
    if (s.api_blocks < 0) ++refused;
    if (s.api_blocks >= 0 && occ != s.api_blocks) ++differ;
    std::printf("%d,%s,%d,%zu,%zu,%d,%d,%zu,%d,%d,%s,%d\n", prop.major * 10 + prop.minor, s.kernel.c_str(),
                s.registers, s.static_shared, s.max_dynamic_shared, s.max_threads, s.block_size, s.dynamic_shared,
                s.carveout, s.api_blocks, cudaGetErrorName(s.status), occ);
  }
  std::fprintf(stderr, "occupancy_table: %d configurations, %d refused by the runtime, %d where cuda_occupancy.h "
                       "disagrees with the runtime\n",
               count, refused, differ);
  return 0;
}
