// The kernel families of tuning.h: every vadd variant (vector width x unroll)
// and every heavy variant (__launch_bounds__), compiled here once, and the
// functions that launch them. Not a student file: you choose among these.

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <launchlab/cuda.h>

#include "tuning.h"

namespace launchlab::occupancy {

// ---- vadd ----------------------------------------------------------------------

template <int W>
struct Vec;
template <>
struct Vec<1> {
  using type = float;
  __device__ static type add(type x, type y) { return x + y; }
};
template <>
struct Vec<2> {
  using type = float2;
  __device__ static type add(type x, type y) { return make_float2(x.x + y.x, x.y + y.y); }
};
template <>
struct Vec<4> {
  using type = float4;
  __device__ static type add(type x, type y) {
    return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
};

template <int W, int U>
__global__ void vadd_variant(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                             std::size_t n) {
  using V = typename Vec<W>::type;
  const V* va = reinterpret_cast<const V*>(a);
  const V* vb = reinterpret_cast<const V*>(b);
  V* vc = reinterpret_cast<V*>(c);
  const std::size_t vectors = n / W;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t base = t; base < vectors; base += threads * U) {
    V x[U], y[U];
    // All loads first, so that U of them are in flight at once.
#pragma unroll
    for (int k = 0; k < U; ++k) {
      const std::size_t v = base + k * threads;
      if (v < vectors) {
        x[k] = va[v];
        y[k] = vb[v];
      }
    }
#pragma unroll
    for (int k = 0; k < U; ++k) {
      const std::size_t v = base + k * threads;
      if (v < vectors) vc[v] = Vec<W>::add(x[k], y[k]);
    }
  }
  // The floats after the last whole vector.
  const std::size_t tail = n - vectors * W;
  if (t < tail) c[vectors * W + t] = a[vectors * W + t] + b[vectors * W + t];
}

namespace {

void check_launch(const char* what) { cuda::check(cudaGetLastError(), what); }

void check_vadd(const VaddConfig& config) {
  const bool width_ok = config.vector_width == 1 || config.vector_width == 2 || config.vector_width == 4;
  const bool unroll_ok = config.unroll == 1 || config.unroll == 2 || config.unroll == 4 || config.unroll == 8;
  const bool block_ok = config.block_size >= 32 && config.block_size <= 1024 && config.block_size % 32 == 0;
  if (!width_ok || !unroll_ok || !block_ok || config.grid_size < 0) {
    throw std::invalid_argument("VaddConfig{vector_width " + std::to_string(config.vector_width) + ", unroll " +
                                std::to_string(config.unroll) + ", block_size " +
                                std::to_string(config.block_size) + ", grid_size " +
                                std::to_string(config.grid_size) +
                                "}: widths are 1, 2, 4; unrolls 1, 2, 4, 8; blocks multiples of 32 up to 1024; "
                                "grids 0 or more");
  }
}

template <int W, int U>
void launch_variant(int grid, int block, const float* a, const float* b, float* c, std::size_t n,
                    cudaStream_t stream) {
  vadd_variant<W, U><<<grid, block, 0, stream>>>(a, b, c, n);
}

template <int W>
void launch_width(int unroll, int grid, int block, const float* a, const float* b, float* c, std::size_t n,
                  cudaStream_t stream) {
  switch (unroll) {
    case 1: launch_variant<W, 1>(grid, block, a, b, c, n, stream); break;
    case 2: launch_variant<W, 2>(grid, block, a, b, c, n, stream); break;
    case 4: launch_variant<W, 4>(grid, block, a, b, c, n, stream); break;
    default: launch_variant<W, 8>(grid, block, a, b, c, n, stream); break;
  }
}

}  // namespace

const void* vadd_kernel(int vector_width, int unroll) {
  check_vadd(VaddConfig{vector_width, unroll, 32, 0});
  switch (vector_width * 10 + unroll) {
    case 11: return reinterpret_cast<const void*>(&vadd_variant<1, 1>);
    case 12: return reinterpret_cast<const void*>(&vadd_variant<1, 2>);
    case 14: return reinterpret_cast<const void*>(&vadd_variant<1, 4>);
    case 18: return reinterpret_cast<const void*>(&vadd_variant<1, 8>);
    case 21: return reinterpret_cast<const void*>(&vadd_variant<2, 1>);
    case 22: return reinterpret_cast<const void*>(&vadd_variant<2, 2>);
    case 24: return reinterpret_cast<const void*>(&vadd_variant<2, 4>);
    case 28: return reinterpret_cast<const void*>(&vadd_variant<2, 8>);
    case 41: return reinterpret_cast<const void*>(&vadd_variant<4, 1>);
    case 42: return reinterpret_cast<const void*>(&vadd_variant<4, 2>);
    case 44: return reinterpret_cast<const void*>(&vadd_variant<4, 4>);
    default: return reinterpret_cast<const void*>(&vadd_variant<4, 8>);
  }
}

int vadd_grid_size(const VaddConfig& config, std::size_t n) {
  check_vadd(config);
  if (config.grid_size > 0) return config.grid_size;
  const std::size_t vectors = (n + config.vector_width - 1) / config.vector_width;
  const std::size_t per_block = static_cast<std::size_t>(config.block_size) * config.unroll;
  const std::size_t blocks = (vectors + per_block - 1) / per_block;
  if (blocks > 0x7fffffffu) throw std::invalid_argument("vadd_grid_size: too many blocks");
  return blocks == 0 ? 1 : static_cast<int>(blocks);
}

void launch_vadd(const VaddConfig& config, const float* a, const float* b, float* c, std::size_t n,
                 cudaStream_t stream) {
  const int grid = vadd_grid_size(config, n);
  const std::uintptr_t alignment = static_cast<std::uintptr_t>(config.vector_width) * sizeof(float);
  for (const void* p : {static_cast<const void*>(a), static_cast<const void*>(b), static_cast<const void*>(c)}) {
    if (reinterpret_cast<std::uintptr_t>(p) % alignment != 0) {
      throw std::invalid_argument("launch_vadd: a pointer is not aligned to " + std::to_string(alignment) +
                                  " bytes");
    }
  }
  switch (config.vector_width) {
    case 1: launch_width<1>(config.unroll, grid, config.block_size, a, b, c, n, stream); break;
    case 2: launch_width<2>(config.unroll, grid, config.block_size, a, b, c, n, stream); break;
    default: launch_width<4>(config.unroll, grid, config.block_size, a, b, c, n, stream); break;
  }
  // A block above the variant's maxThreadsPerBlock fails here with
  // cudaErrorLaunchOutOfResources (too many registers for the block).
  check_launch("launch_vadd");
}

// ---- the heavy kernel --------------------------------------------------------------

constexpr int kChains = 96;
constexpr int kSteps = 64;

// Unrolling pragmas are for the device compiler; the host compiler would warn.
#if defined(__CUDA_ARCH__)
#define LAUNCHLAB_UNROLLED _Pragma("unroll")
#define LAUNCHLAB_ROLLED _Pragma("unroll 1")
#else
#define LAUNCHLAB_UNROLLED
#define LAUNCHLAB_ROLLED
#endif

// The same arithmetic on both sides: fmaf is exactly rounded on the CPU and
// the GPU, and the sums run in the same order.
__host__ __device__ inline float heavy_of(float x) {
  float acc[kChains];
LAUNCHLAB_UNROLLED
  for (int j = 0; j < kChains; ++j) acc[j] = x + static_cast<float>(j);
LAUNCHLAB_ROLLED
  for (int step = 0; step < kSteps; ++step) {
LAUNCHLAB_UNROLLED
    for (int j = 0; j < kChains; ++j) acc[j] = fmaf(acc[j], x, 0.5f + 0.001f * static_cast<float>(j));
  }
  float sum = 0;
LAUNCHLAB_UNROLLED
  for (int j = 0; j < kChains; ++j) sum += acc[j];
  return sum;
}

template <int B, int M>
__global__ void __launch_bounds__(B, M) heavy_variant(const float* __restrict__ in, float* __restrict__ out,
                                                       std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * B;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * B + threadIdx.x; i < n; i += stride) {
    out[i] = heavy_of(in[i]);
  }
}

namespace {

using HeavyLauncher = void (*)(int grid, const float* in, float* out, std::size_t n, cudaStream_t stream);

template <int B, int M>
void launch_heavy_variant(int grid, const float* in, float* out, std::size_t n, cudaStream_t stream) {
  heavy_variant<B, M><<<grid, B, 0, stream>>>(in, out, n);
}

struct HeavyEntry {
  int block_size;
  int min_blocks;
  const void* kernel;
  HeavyLauncher launch;
};

template <int B, int M>
HeavyEntry entry() {
  return {B, M, reinterpret_cast<const void*>(&heavy_variant<B, M>), &launch_heavy_variant<B, M>};
}

const HeavyEntry& find_heavy(int block_size, int min_blocks) {
  static const HeavyEntry entries[] = {
      entry<128, 1>(),  entry<128, 2>(),  entry<128, 4>(), entry<128, 8>(), entry<256, 1>(),
      entry<256, 2>(),  entry<256, 4>(),  entry<256, 8>(), entry<512, 1>(), entry<512, 2>(),
      entry<512, 4>(),  entry<1024, 1>(), entry<1024, 2>(),
  };
  static_assert(sizeof(entries) / sizeof(entries[0]) == kHeavyVariants.size());
  for (const HeavyEntry& e : entries) {
    if (e.block_size == block_size && e.min_blocks == min_blocks) return e;
  }
  throw std::invalid_argument("no heavy variant __launch_bounds__(" + std::to_string(block_size) + ", " +
                              std::to_string(min_blocks) + "): see kHeavyVariants");
}

}  // namespace

const void* heavy_kernel(int block_size, int min_blocks_per_sm) {
  return find_heavy(block_size, min_blocks_per_sm).kernel;
}

int heavy_grid_size(const HeavyConfig& config, std::size_t n) {
  (void)find_heavy(config.block_size, config.min_blocks_per_sm);
  if (config.grid_size < 0) throw std::invalid_argument("HeavyConfig: grid_size below 0");
  if (config.grid_size > 0) return config.grid_size;
  const std::size_t blocks = (n + config.block_size - 1) / config.block_size;
  if (blocks > 0x7fffffffu) throw std::invalid_argument("heavy_grid_size: too many blocks");
  return blocks == 0 ? 1 : static_cast<int>(blocks);
}

void launch_heavy(const HeavyConfig& config, const float* in, float* out, std::size_t n, cudaStream_t stream) {
  const int grid = heavy_grid_size(config, n);
  find_heavy(config.block_size, config.min_blocks_per_sm).launch(grid, in, out, n, stream);
  check_launch("launch_heavy");
}

float heavy_function(float x) { return heavy_of(x); }

}  // namespace launchlab::occupancy
