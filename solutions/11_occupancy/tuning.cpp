// Choosing launch configurations: reason first (what bounds the kernel, what
// the occupancy calculator says), measure a short list last. The contract is
// in tuning.h.

#include "tuning.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <launchlab/cuda.h>

#include "occupancy.h"

namespace launchlab::occupancy {
namespace {

using cuda::check;

// Device floats, zeroed.
cuda::DeviceBuffer<float> device_floats(std::size_t count) {
  cuda::DeviceBuffer<float> floats(count);
  check(cudaMemset(floats.get(), 0, floats.bytes()), "cudaMemset");
  return floats;
}

// The median GPU time of `runs` launches, after one untimed launch.
float median_ms(const std::function<void()>& launch, int runs) {
  const cuda::Event begin, end;
  launch();
  std::vector<float> times;
  for (int i = 0; i < runs; ++i) {
    check(cudaEventRecord(begin), "cudaEventRecord");
    launch();
    check(cudaEventRecord(end), "cudaEventRecord");
    check(cudaEventSynchronize(end), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

cudaDeviceProp current_device() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  return prop;
}

}  // namespace

VaddConfig choose_vadd_config(std::size_t n) {
  // vadd does one addition per 12 bytes it moves: memory bandwidth bounds it,
  // and reaching the bandwidth takes many bytes in flight per SM. float4 loads
  // move 16 bytes per instruction, and loading `unroll` vectors before the
  // first store keeps that many loads outstanding per thread. Full occupancy
  // is easy (the kernel needs few registers and no shared memory), so the
  // short list varies what bounds the bytes in flight, and a measurement
  // decides among them.
  const cudaDeviceProp prop = current_device();
  const std::size_t sample = std::min<std::size_t>(n, std::size_t{1} << 26);
  if (sample == 0) return VaddConfig{4, 1, 256, 0};
  const auto a = device_floats(sample), b = device_floats(sample), c = device_floats(sample);

  std::vector<VaddConfig> candidates;
  for (int unroll : {1, 2, 4}) {
    // A variant that needs many registers cannot run large blocks at all.
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, vadd_kernel(4, unroll)), "cudaFuncGetAttributes");
    for (int block : {256, 512}) {
      if (block > attributes.maxThreadsPerBlock) continue;
      candidates.push_back({4, unroll, block, 0});
      // One full wave of blocks that loop over the array.
      candidates.push_back({4, unroll, block, prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / block)});
    }
  }
  VaddConfig best = candidates.front();
  float best_ms = 0;
  for (const VaddConfig& candidate : candidates) {
    const float ms = median_ms([&] { launch_vadd(candidate, a.get(), b.get(), c.get(), sample); }, 5);
    if (best_ms == 0 || ms < best_ms) {
      best_ms = ms;
      best = candidate;
    }
  }
  return best;
}

HeavyConfig choose_heavy_config(std::size_t n) {
  // The heavy kernel keeps 96 running values per thread. Asking
  // __launch_bounds__ for more blocks per SM caps its registers; below what it
  // needs, the values spill to local memory and every step reads and writes
  // them there. The calculator gives each variant's occupancy; variants that
  // spill (localSizeBytes > 0) are left out unless all of them spill; a
  // measurement decides among the rest, with a grid of one or two full waves
  // or one thread per element.
  const cudaDeviceProp prop = current_device();
  const ArchLimits arch = arch_limits(prop.major * 10 + prop.minor);

  struct Candidate {
    HeavyConfig config;
    bool spills;
  };
  std::vector<Candidate> candidates;
  for (const HeavyVariant& v : kHeavyVariants) {
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, heavy_kernel(v.block_size, v.min_blocks_per_sm)),
          "cudaFuncGetAttributes");
    KernelResources kernel;
    kernel.registers_per_thread = attributes.numRegs;
    kernel.static_shared_bytes = attributes.sharedSizeBytes;
    kernel.max_dynamic_shared_bytes = static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes);
    LaunchShape shape;
    shape.block_size = v.block_size;
    const Occupancy occupancy = compute_occupancy(arch, kernel, shape);
    if (occupancy.active_blocks == 0) continue;
    const int wave = prop.multiProcessorCount * occupancy.active_blocks;
    for (int grid : {0, wave, 2 * wave}) {
      candidates.push_back({{v.block_size, v.min_blocks_per_sm, grid}, attributes.localSizeBytes > 0});
    }
  }
  const bool any_without_spills =
      std::any_of(candidates.begin(), candidates.end(), [](const Candidate& c) { return !c.spills; });

  const std::size_t sample = std::min<std::size_t>(n, std::size_t{1} << 22);
  if (sample == 0 || candidates.empty()) return HeavyConfig{256, 1, 0};
  const auto in = device_floats(sample), out = device_floats(sample);
  HeavyConfig best = candidates.front().config;
  float best_ms = 0;
  for (const Candidate& candidate : candidates) {
    if (any_without_spills && candidate.spills) continue;
    const float ms = median_ms([&] { launch_heavy(candidate.config, in.get(), out.get(), sample); }, 3);
    if (best_ms == 0 || ms < best_ms) {
      best_ms = ms;
      best = candidate.config;
    }
  }
  return best;
}

}  // namespace launchlab::occupancy
