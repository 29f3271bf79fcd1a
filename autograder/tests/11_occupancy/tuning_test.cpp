// The learner's launch configurations on a GPU: they must compute the right
// answer, and run within 5% of the fastest configuration a search over the
// lab's kernel families finds in the same run; vadd must also move data at
// 90% of the rate of a device-to-device copy measured in the same run.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "launchlab/testing.h"
#include "tuning.h"

namespace launchlab::occupancy {
namespace {

constexpr double kSlack = 1.05;  // at most 5% slower than the best found

struct DeviceFloats {
  float* ptr = nullptr;
  explicit DeviceFloats(std::size_t count) {
    if (cudaMalloc(reinterpret_cast<void**>(&ptr), count * sizeof(float)) != cudaSuccess) ptr = nullptr;
  }
  ~DeviceFloats() { cudaFree(ptr); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
};

struct Timer {
  cudaEvent_t a = nullptr, b = nullptr;
  Timer() {
    cudaEventCreate(&a);
    cudaEventCreate(&b);
  }
  ~Timer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  // GPU milliseconds of one call.
  float once(const std::function<void()>& launch) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    return ms;
  }
  float median(const std::function<void()>& launch, int runs) {
    launch();
    std::vector<float> t;
    for (int i = 0; i < runs; ++i) t.push_back(once(launch));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

cudaDeviceProp device() {
  int d = 0;
  cudaGetDevice(&d);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, d);
  return prop;
}

// 2^28 floats (1 GiB per array) where the GPU has room, else 2^26.
std::size_t vadd_elements() {
  return device().totalGlobalMem >= (std::size_t{16} << 30) ? std::size_t{1} << 28 : std::size_t{1} << 26;
}

constexpr std::size_t kHeavyElements = std::size_t{1} << 22;

std::string show(const VaddConfig& c) {
  std::ostringstream s;
  s << "{vector_width " << c.vector_width << ", unroll " << c.unroll << ", block_size " << c.block_size
    << ", grid_size " << c.grid_size << "}";
  return s.str();
}

std::string show(const HeavyConfig& c) {
  std::ostringstream s;
  s << "{block_size " << c.block_size << ", min_blocks_per_sm " << c.min_blocks_per_sm << ", grid_size "
    << c.grid_size << "}";
  return s.str();
}

// Measures every candidate, then the three fastest and the learner's
// configuration again, interleaved, and compares medians.
template <class Config>
void ExpectWithinSlackOfBest(const std::vector<Config>& search, const Config& yours,
                             const std::function<void(const Config&)>& launch, int runs, int rounds,
                             const char* what) {
  Timer timer;
  std::vector<std::pair<float, Config>> found;
  for (const Config& c : search) {
    // The search holds only configurations the runtime says can launch (see
    // launchable()); one that fails all the same is reported and left out,
    // not held against the learner.
    try {
      found.emplace_back(timer.median([&] { launch(c); }, runs), c);
    } catch (const std::runtime_error& e) {
      std::printf("  %s: %s did not launch, left out of the search: %s\n", what, show(c).c_str(), e.what());
      cudaGetLastError();
    }
  }
  ASSERT_EQ(cudaGetLastError(), cudaSuccess) << "the search's own launches failed";
  ASSERT_FALSE(found.empty()) << what << ": no configuration of the search launched";
  std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<Config> finalists;
  for (std::size_t i = 0; i < 3 && i < found.size(); ++i) finalists.push_back(found[i].second);
  finalists.push_back(yours);
  std::vector<std::vector<float>> times(finalists.size());
  for (std::size_t i = 0; i < finalists.size(); ++i) launch(finalists[i]);  // warm
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < finalists.size(); ++i) {
      times[i].push_back(timer.once([&] { launch(finalists[i]); }));
    }
  }
  std::vector<float> medians;
  for (auto& t : times) {
    std::sort(t.begin(), t.end());
    medians.push_back(t[t.size() / 2]);
  }
  const float best = *std::min_element(medians.begin(), medians.end() - 1);
  const float mine = medians.back();
  std::size_t best_index = std::min_element(medians.begin(), medians.end() - 1) - medians.begin();
  std::printf("  %s: yours %s %.4f ms; best of %zu searched %s %.4f ms\n", what, show(yours).c_str(), mine,
              found.size(), show(finalists[best_index]).c_str(), best);
  EXPECT_LE(mine, kSlack * best) << what << ": your configuration " << show(yours) << " took " << mine
                                 << " ms; the search found " << show(finalists[best_index]) << " at " << best
                                 << " ms (allowed: " << kSlack * best << " ms)";
}

// Whether the runtime can launch `kernel` with blocks of `block` threads:
// cudaFuncGetAttributes' maxThreadsPerBlock is below 1024 when the kernel
// needs more registers per thread than a block of 1024 threads can have
// (on sm_90, the float4 vadd with an unroll of 8). Such a configuration
// fails with cudaErrorLaunchOutOfResources, so it is no candidate.
bool launchable(const void* kernel, int block) {
  cudaFuncAttributes attributes{};
  return cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess && block <= attributes.maxThreadsPerBlock;
}

std::vector<VaddConfig> vadd_search() {
  const cudaDeviceProp prop = device();
  std::vector<VaddConfig> search;
  for (int width : {1, 2, 4}) {
    for (int unroll : {1, 2, 4, 8}) {
      for (int block : {128, 256, 512, 1024}) {
        if (!launchable(vadd_kernel(width, unroll), block)) {
          std::printf("  vadd: {vector_width %d, unroll %d, block_size %d} cannot launch on this device "
                      "(maxThreadsPerBlock below %d), left out of the search\n",
                      width, unroll, block, block);
          continue;
        }
        const int wave = prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / block);
        for (int grid : {0, wave, 4 * wave}) search.push_back({width, unroll, block, grid});
      }
    }
  }
  return search;
}

std::vector<HeavyConfig> heavy_search() {
  const cudaDeviceProp prop = device();
  std::vector<HeavyConfig> search;
  for (const HeavyVariant& v : kHeavyVariants) {
    // __launch_bounds__(block_size, ...) makes every variant fit its block; checked all the same.
    if (!launchable(heavy_kernel(v.block_size, v.min_blocks_per_sm), v.block_size)) continue;
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, heavy_kernel(v.block_size, v.min_blocks_per_sm),
                                                  v.block_size, 0);
    const int wave = prop.multiProcessorCount * std::max(per_sm, 1);
    for (int grid : {0, wave, 2 * wave, 4 * wave}) search.push_back({v.block_size, v.min_blocks_per_sm, grid});
  }
  return search;
}

// Calls a choose_* function and turns an exception into a failure.
template <class Choose, class Config>
::testing::AssertionResult Chosen(Choose choose, std::size_t n, Config& out, const char* name) {
  try {
    out = choose(n);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << name << "(" << n << ") threw: " << e.what();
  }
  return ::testing::AssertionSuccess();
}

TEST(Tuning, ChosenConfigurationsComputeTheRightAnswer) {
  LAUNCHLAB_REQUIRE_GPU();
  cudaGetLastError();
  // vadd, with a tail that no whole vector covers.
  const std::size_t n = 1'000'003;
  VaddConfig vadd;
  ASSERT_TRUE(Chosen(choose_vadd_config, vadd_elements(), vadd, "choose_vadd_config"));
  std::vector<float> a(n), b(n), c(n, -1.0f);
  std::mt19937 random(7);
  std::uniform_real_distribution<float> value(-1000.0f, 1000.0f);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = value(random);
    b[i] = value(random);
  }
  DeviceFloats da(n), db(n), dc(n);
  ASSERT_TRUE(da.ptr && db.ptr && dc.ptr) << "cudaMalloc failed";
  cudaMemcpy(da.ptr, a.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(db.ptr, b.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemset(dc.ptr, 0xff, n * 4);
  try {
    launch_vadd(vadd, da.ptr, db.ptr, dc.ptr, n);
  } catch (const std::exception& e) {
    FAIL() << "launch_vadd with your configuration " << show(vadd) << ": " << e.what();
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaMemcpy(c.data(), dc.ptr, n * 4, cudaMemcpyDeviceToHost);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(c[i], a[i] + b[i]) << "vadd with " << show(vadd) << " on " << n << " floats: first wrong at [" << i
                                 << "]";
  }

  HeavyConfig heavy;
  ASSERT_TRUE(Chosen(choose_heavy_config, kHeavyElements, heavy, "choose_heavy_config"));
  const std::size_t m = 100'003;
  std::vector<float> in(m), out(m);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (float& x : in) x = unit(random);
  DeviceFloats din(m), dout(m);
  ASSERT_TRUE(din.ptr && dout.ptr) << "cudaMalloc failed";
  cudaMemcpy(din.ptr, in.data(), m * 4, cudaMemcpyHostToDevice);
  try {
    launch_heavy(heavy, din.ptr, dout.ptr, m);
  } catch (const std::exception& e) {
    FAIL() << "launch_heavy with your configuration " << show(heavy) << ": " << e.what();
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaMemcpy(out.data(), dout.ptr, m * 4, cudaMemcpyDeviceToHost);
  for (std::size_t i = 0; i < m; i += 97) {
    const float want = heavy_function(in[i]);
    ASSERT_NEAR(out[i], want, 1e-4f * std::max(1.0f, std::fabs(want)))
        << "the heavy kernel with " << show(heavy) << ": element " << i;
  }
}

TEST(Tuning, VaddWithin5PercentOfTheBestConfigurationFound) {
  LAUNCHLAB_REQUIRE_GPU();
  cudaGetLastError();
  const std::size_t n = vadd_elements();
  VaddConfig yours;
  ASSERT_TRUE(Chosen(choose_vadd_config, n, yours, "choose_vadd_config"));
  DeviceFloats a(n), b(n), c(n);
  ASSERT_TRUE(a.ptr && b.ptr && c.ptr) << "cudaMalloc of 3 x " << n << " floats failed";
  cudaMemset(a.ptr, 0, n * 4);
  cudaMemset(b.ptr, 0, n * 4);
  try {
    launch_vadd(yours, a.ptr, b.ptr, c.ptr, n);
  } catch (const std::exception& e) {
    FAIL() << "launch_vadd with your configuration " << show(yours) << ": " << e.what();
  }
  ExpectWithinSlackOfBest<VaddConfig>(
      vadd_search(), yours, [&](const VaddConfig& cfg) { launch_vadd(cfg, a.ptr, b.ptr, c.ptr, n); }, 5, 15,
      "vadd");
}

TEST(Tuning, VaddReachesNinetyPercentOfCopyBandwidth) {
  LAUNCHLAB_REQUIRE_GPU();
  cudaGetLastError();
  const std::size_t n = vadd_elements();
  VaddConfig yours;
  ASSERT_TRUE(Chosen(choose_vadd_config, n, yours, "choose_vadd_config"));
  DeviceFloats a(n), b(n), c(n);
  ASSERT_TRUE(a.ptr && b.ptr && c.ptr) << "cudaMalloc of 3 x " << n << " floats failed";
  cudaMemset(a.ptr, 0, n * 4);
  cudaMemset(b.ptr, 0, n * 4);
  Timer timer;
  std::vector<float> copy, add;
  // Interleaved, so that both see the same state of the GPU.
  for (int i = 0; i < 11; ++i) {
    copy.push_back(timer.once([&] { cudaMemcpyAsync(c.ptr, a.ptr, n * 4, cudaMemcpyDeviceToDevice); }));
    add.push_back(timer.once([&] { launch_vadd(yours, a.ptr, b.ptr, c.ptr, n); }));
  }
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::sort(copy.begin(), copy.end());
  std::sort(add.begin(), add.end());
  // A copy reads n floats and writes n; vadd reads 2n and writes n.
  const double copy_tbps = 2.0 * n * 4 / (copy[5] * 1e-3) / 1e12;
  const double vadd_tbps = 3.0 * n * 4 / (add[5] * 1e-3) / 1e12;
  std::printf("  device-to-device copy %.3f TB/s (%.4f ms); your vadd %.3f TB/s (%.4f ms), %.1f%% of the copy\n",
              copy_tbps, copy[5], vadd_tbps, add[5], 100 * vadd_tbps / copy_tbps);
  EXPECT_GE(vadd_tbps, 0.9 * copy_tbps) << "your vadd " << show(yours) << " moved " << vadd_tbps
                                        << " TB/s (12 bytes per element); a cudaMemcpy from device to device "
                                        << copy_tbps << " TB/s (8 bytes per element); 90% is "
                                        << 0.9 * copy_tbps;
}

TEST(Tuning, HeavyKernelWithin5PercentOfTheBestConfigurationFound) {
  LAUNCHLAB_REQUIRE_GPU();
  cudaGetLastError();
  HeavyConfig yours;
  ASSERT_TRUE(Chosen(choose_heavy_config, kHeavyElements, yours, "choose_heavy_config"));
  DeviceFloats in(kHeavyElements), out(kHeavyElements);
  ASSERT_TRUE(in.ptr && out.ptr) << "cudaMalloc failed";
  cudaMemset(in.ptr, 0, kHeavyElements * 4);
  try {
    launch_heavy(yours, in.ptr, out.ptr, kHeavyElements);
  } catch (const std::exception& e) {
    FAIL() << "launch_heavy with your configuration " << show(yours) << ": " << e.what();
  }
  ExpectWithinSlackOfBest<HeavyConfig>(
      heavy_search(), yours, [&](const HeavyConfig& cfg) { launch_heavy(cfg, in.ptr, out.ptr, kHeavyElements); }, 3,
      9, "the heavy kernel");
}

}  // namespace
}  // namespace launchlab::occupancy
