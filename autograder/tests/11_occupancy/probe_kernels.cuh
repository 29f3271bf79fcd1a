// Kernels whose resources the occupancy tests control: the number of
// independent multiply-add chains sets the registers the compiler gives
// them, a __shared__ array sets their static shared memory, and
// __launch_bounds__ caps their registers. Used by live_test.cu and by
// tools/occupancy_table.cu, which made fixtures/occupancy_sm90.csv.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace launchlab::occupancy::probes {

template <int Chains>
__device__ inline float chains_of(float x, int steps) {
  float acc[Chains];
#pragma unroll
  for (int j = 0; j < Chains; ++j) acc[j] = x + static_cast<float>(j);
  for (int step = 0; step < steps; ++step) {
#pragma unroll
    for (int j = 0; j < Chains; ++j) acc[j] = fmaf(acc[j], x, 0.25f + 0.01f * static_cast<float>(j));
  }
  float sum = 0;
#pragma unroll
  for (int j = 0; j < Chains; ++j) sum += acc[j];
  return sum;
}

template <int Chains>
__global__ void probe(const float* in, float* out, int steps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = chains_of<Chains>(in[i], steps);
}

template <int Chains, int Floats>
__global__ void probe_shared(const float* in, float* out, int steps) {
  __shared__ float tile[Floats];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x % Floats] = in[i];
  __syncthreads();
  out[i] = chains_of<Chains>(tile[(threadIdx.x + 1) % Floats], steps);
}

template <int Chains, int Block, int MinBlocks>
__global__ void __launch_bounds__(Block, MinBlocks) probe_bounded(const float* in, float* out, int steps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = chains_of<Chains>(in[i], steps);
}

struct Probe {
  const char* name;
  const void* kernel;
};

#define LAUNCHLAB_PROBE(...) Probe{#__VA_ARGS__, reinterpret_cast<const void*>(&__VA_ARGS__)}

inline const std::vector<Probe>& all() {
  static const std::vector<Probe> kernels = {
      LAUNCHLAB_PROBE(probe<1>),
      LAUNCHLAB_PROBE(probe<8>),
      LAUNCHLAB_PROBE(probe<24>),
      LAUNCHLAB_PROBE(probe<40>),
      LAUNCHLAB_PROBE(probe<64>),
      LAUNCHLAB_PROBE(probe<100>),
      LAUNCHLAB_PROBE(probe<150>),
      LAUNCHLAB_PROBE(probe<220>),
      LAUNCHLAB_PROBE(probe_shared<8, 256>),
      LAUNCHLAB_PROBE(probe_shared<8, 3000>),
      LAUNCHLAB_PROBE(probe_shared<8, 12000>),
      LAUNCHLAB_PROBE(probe_shared<64, 256>),
      LAUNCHLAB_PROBE(probe_shared<64, 3000>),
      LAUNCHLAB_PROBE(probe_shared<64, 12000>),
      LAUNCHLAB_PROBE(probe_shared<150, 256>),
      LAUNCHLAB_PROBE(probe_shared<150, 3000>),
      LAUNCHLAB_PROBE(probe_shared<150, 12000>),
      LAUNCHLAB_PROBE(probe_bounded<150, 256, 2>),
      LAUNCHLAB_PROBE(probe_bounded<100, 128, 8>),
      LAUNCHLAB_PROBE(probe_bounded<64, 512, 3>),
  };
  return kernels;
}

#undef LAUNCHLAB_PROBE

// One configuration and the runtime's answer for it.
struct Sample {
  std::string kernel;                 // the probe's name, commas replaced by ';'
  int registers = 0;                  // cudaFuncAttributes::numRegs
  std::size_t static_shared = 0;      // cudaFuncAttributes::sharedSizeBytes
  std::size_t max_dynamic_shared = 0; // cudaFuncAttributes::maxDynamicSharedSizeBytes, as set
  int max_threads = 0;                // cudaFuncAttributes::maxThreadsPerBlock
  int block_size = 0;
  std::size_t dynamic_shared = 0;
  int carveout = -1;                  // cudaFuncAttributePreferredSharedMemoryCarveout, as set
  cudaError_t status = cudaSuccess;   // what the set-up and cudaOccupancyMaxActiveBlocksPerMultiprocessor returned
  int api_blocks = -1;                // its answer; -1 when a call failed
  const void* fn = nullptr;
};

// Sets a sample's attributes on its kernel (again: a later sample of the
// same kernel changes them) and asks cudaOccupancyMaxActiveBlocksPerMultiprocessor
// for it: fills status and api_blocks. A sample whose set-up failed is left as it is.
inline void ask_runtime(Sample& s) {
  if (s.status != cudaSuccess) return;
  s.status = cudaFuncSetAttribute(s.fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(s.max_dynamic_shared));
  if (s.status == cudaSuccess) {
    s.status = cudaFuncSetAttribute(s.fn, cudaFuncAttributePreferredSharedMemoryCarveout, s.carveout);
  }
  if (s.status == cudaSuccess) {
    int blocks = -1;
    s.status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, s.fn, s.block_size, s.dynamic_shared);
    if (s.status == cudaSuccess) s.api_blocks = blocks;
  }
  cudaGetLastError();
}

// `count` random configurations of the probes on the current device, each
// set up with cudaFuncSetAttribute and read back with cudaFuncGetAttributes,
// without the runtime's answer (api_blocks stays -1; status is the
// set-up's). The same seed gives the same configurations with the same C++
// standard library.
inline std::vector<Sample> sample_configurations(unsigned seed, int count) {
  std::mt19937 random(seed);
  auto uniform = [&](long long lo, long long hi) {
    return std::uniform_int_distribution<long long>(lo, hi)(random);
  };
  int device = 0;
  cudaGetDevice(&device);
  int optin = 0;
  cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  const int carveouts[] = {0, 10, 25, 33, 50, 66, 75, 90, 100};
  std::vector<Sample> samples;
  for (int i = 0; i < count; ++i) {
    const Probe& probe = all()[static_cast<std::size_t>(uniform(0, static_cast<long long>(all().size()) - 1))];
    Sample s;
    s.fn = probe.kernel;
    s.kernel = probe.name;
    for (char& c : s.kernel) {
      if (c == ',') c = ';';
    }
    cudaFuncAttributes base{};
    s.status = cudaFuncGetAttributes(&base, probe.kernel);
    const long long allowed = static_cast<long long>(optin) - static_cast<long long>(base.sharedSizeBytes);
    const long long max_dynamic =
        uniform(0, 1) ? 49152 - static_cast<long long>(base.sharedSizeBytes) : uniform(0, allowed);
    s.carveout = uniform(0, 1) ? -1 : carveouts[uniform(0, 8)];
    if (s.status == cudaSuccess) {
      s.status = cudaFuncSetAttribute(probe.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(max_dynamic));
    }
    if (s.status == cudaSuccess) {
      s.status = cudaFuncSetAttribute(probe.kernel, cudaFuncAttributePreferredSharedMemoryCarveout, s.carveout);
    }
    cudaFuncAttributes attributes{};
    if (s.status == cudaSuccess) s.status = cudaFuncGetAttributes(&attributes, probe.kernel);
    s.registers = attributes.numRegs;
    s.static_shared = attributes.sharedSizeBytes;
    s.max_dynamic_shared = static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes);
    s.max_threads = attributes.maxThreadsPerBlock;
    const long long roll = uniform(0, 9);
    s.block_size = static_cast<int>(roll == 0 || s.max_threads < 1 ? uniform(1, 1024) : uniform(1, s.max_threads));
    const long long dynamic_roll = uniform(0, 9);
    s.dynamic_shared = static_cast<std::size_t>(
        dynamic_roll < 2 ? 0 : dynamic_roll < 9 ? uniform(0, max_dynamic) : uniform(0, allowed));
    cudaGetLastError();
    samples.push_back(s);
  }
  return samples;
}

// sample_configurations() with the runtime's answer for each.
inline std::vector<Sample> sample_runtime(unsigned seed, int count) {
  std::vector<Sample> samples = sample_configurations(seed, count);
  for (Sample& s : samples) ask_runtime(s);
  return samples;
}

}  // namespace launchlab::occupancy::probes
