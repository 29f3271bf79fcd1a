// The vadd program: argument checks on the CPU, then the kernel and the host
// function on a GPU, every element compared exactly with the CPU's a[i] + b[i].

#include "vadd.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "grid.h"
#include "launchlab/testing.h"

namespace launchlab::journey {
namespace {

using launchlab::testing::SameSequence;

// No sum of two inputs in [-1000, 1000] can equal it, so an element that still
// holds it was never written.
constexpr float kUnwritten = -4242.0f;

struct Vectors {
  std::vector<float> a, b;
  std::vector<float> expected;  // a[i] + b[i], added on the CPU
};

// Reproducible inputs with fractional parts, so that a sum computed from the
// wrong elements, or rounded differently, shows. A float addition is exact
// to the same last bit on the CPU and the GPU (IEEE round to nearest).
Vectors make_vectors(std::size_t n) {
  std::mt19937 random(static_cast<std::uint32_t>(n) * 2654435761u + 12345u);
  std::uniform_real_distribution<float> value(-1000.0f, 1000.0f);
  Vectors v;
  v.a.resize(n);
  v.b.resize(n);
  v.expected.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    v.a[i] = value(random);
    v.b[i] = value(random);
    v.expected[i] = v.a[i] + v.b[i];
  }
  return v;
}

// Runs add_vectors_on_gpu and turns an exception into a failure that says
// which case threw.
::testing::AssertionResult Adds(std::size_t n, unsigned block_size) {
  const Vectors v = make_vectors(n);
  std::vector<float> c(n, kUnwritten);
  try {
    add_vectors_on_gpu(v.a, v.b, c, block_size);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "n = " << n << ", block_size = " << block_size
                                         << ": add_vectors_on_gpu threw: " << e.what();
  }
  ::testing::AssertionResult same = SameSequence(v.expected, c);
  if (!same) {
    return ::testing::AssertionFailure()
           << "n = " << n << ", block_size = " << block_size << ", c = a + b: " << same.message()
           << (c.empty() || c[0] != kUnwritten ? "" : " (c[0] was never written)");
  }
  return ::testing::AssertionSuccess();
}

// Passes when call throws std::invalid_argument, and says what happened otherwise.
::testing::AssertionResult ThrowsInvalidArgument(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument&) {
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure()
           << "expected std::invalid_argument, got another exception: " << e.what()
           << " (check the arguments before the first CUDA call)";
  }
  return ::testing::AssertionFailure() << "expected std::invalid_argument, got no exception";
}

// ---- On the CPU: wrong arguments are rejected before any CUDA call ----------

TEST(VaddArguments, RejectsInputsOfDifferentLengths) {
  std::vector<float> a(10, 1.0f), b(9, 2.0f), c(10, kUnwritten);
  EXPECT_TRUE(ThrowsInvalidArgument([&] { add_vectors_on_gpu(a, b, c); }))
      << "a has 10 elements, b 9";
  EXPECT_TRUE(ThrowsInvalidArgument([&] { add_vectors_on_gpu(b, a, c); }))
      << "a has 9 elements, b 10";
}

TEST(VaddArguments, RejectsAnOutputOfADifferentLength) {
  std::vector<float> a(10, 1.0f), b(10, 2.0f), shorter(9, kUnwritten), longer(11, kUnwritten);
  EXPECT_TRUE(ThrowsInvalidArgument([&] { add_vectors_on_gpu(a, b, shorter); }))
      << "a and b have 10 elements, c 9";
  EXPECT_TRUE(ThrowsInvalidArgument([&] { add_vectors_on_gpu(a, b, longer); }))
      << "a and b have 10 elements, c 11";
}

TEST(VaddArguments, RejectsABlockSizeOfZero) {
  std::vector<float> a(10, 1.0f), b(10, 2.0f), c(10, kUnwritten);
  EXPECT_TRUE(ThrowsInvalidArgument([&] { add_vectors_on_gpu(a, b, c, 0); })) << "block_size = 0";
}

// ---- On a GPU: the whole program ---------------------------------------------

TEST(VaddOnGpu, AddsVectorsAroundOneBlock) {
  LAUNCHLAB_REQUIRE_GPU();
  cudaGetLastError();  // start from a clean error state
  for (std::size_t n : {0u, 1u, 255u, 256u, 257u}) {
    EXPECT_TRUE(Adds(n, 256));
  }
  // n = 0 must launch nothing: a launch of 0 blocks leaves an error behind.
  const cudaError_t left = cudaGetLastError();
  EXPECT_EQ(left, cudaSuccess) << "a CUDA error was left pending after add_vectors_on_gpu: "
                               << cudaGetErrorString(left)
                               << " (does n = 0 launch 0 blocks, or is an error left unchecked?)";
}

TEST(VaddOnGpu, AddsAMillionElementsWithEveryBlockSize) {
  LAUNCHLAB_REQUIRE_GPU();
  // 2^20 is the course's vadd<<<4096, 256>>>; 1,000,003 is prime, so no block
  // size divides it and the last block is always partial.
  for (std::size_t n : {std::size_t{1} << 20, std::size_t{1'000'003}}) {
    for (unsigned block_size : {32u, 128u, 256u, 1024u}) {
      EXPECT_TRUE(Adds(n, block_size));
    }
  }
}

TEST(VaddOnGpu, ReportsAnImpossibleBlockSizeAsRuntimeError) {
  LAUNCHLAB_REQUIRE_GPU();
  int device = 0;
  int max_threads = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, device),
            cudaSuccess);
  const unsigned too_many = 2u * static_cast<unsigned>(max_threads);

  const Vectors v = make_vectors(1000);
  std::vector<float> c(1000, kUnwritten);
  // What this runtime and driver answer to such a launch is asked, not
  // assumed: CUDA 13.0 on an H200 says cudaErrorInvalidValue where older
  // stacks said cudaErrorInvalidConfiguration. With n = 0 no thread would
  // touch memory even if the launch went ahead.
  const float* no_input = nullptr;
  float* no_output = nullptr;
  int no_elements = 0;
  void* probe_args[] = {&no_input, &no_input, &no_output, &no_elements};
  const cudaError_t refusal = cudaLaunchKernel(reinterpret_cast<const void*>(&vadd), dim3(1),
                                               dim3(too_many), probe_args, 0, nullptr);
  cudaGetLastError();
  ASSERT_NE(refusal, cudaSuccess) << "the runtime accepted a block of " << too_many << " threads";
  const std::string reason = cudaGetErrorString(refusal);
  try {
    add_vectors_on_gpu(v.a, v.b, c, too_many);
    ADD_FAILURE() << "block_size = " << too_many << " (the device allows " << max_threads
                  << "): expected std::runtime_error mentioning \"" << reason
                  << "\", got no exception (is the launch checked with cudaGetLastError()?)";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos)
        << "expected the message to contain cudaGetErrorString's \"" << reason
        << "\", got: " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected std::runtime_error, got another exception: " << e.what();
  }
  cudaGetLastError();  // whatever happened, leave no error for the next test
}

// Device memory for a test, freed on every way out of it.
struct DeviceFloats {
  float* ptr = nullptr;
  explicit DeviceFloats(std::size_t count) {
    if (cudaMalloc(reinterpret_cast<void**>(&ptr), count * sizeof(float)) != cudaSuccess)
      ptr = nullptr;
  }
  ~DeviceFloats() { cudaFree(ptr); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  bool ok() const { return ptr != nullptr; }
};

// Launches the learner's kernel directly, on buffers padded past n, with the
// grid from the learner's blocks_needed (plus extra_blocks), and checks that
// c[0, n) holds a + b and nothing past c[n - 1] was written.
void ExpectKernelStaysInBounds(std::size_t n, unsigned block_size, unsigned extra_blocks) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", block_size = " + std::to_string(block_size) +
               ", blocks_needed + " + std::to_string(extra_blocks) + " blocks");
  const std::uint64_t needed = blocks_needed(n, block_size);
  ASSERT_GE(needed * block_size, n)
      << "blocks_needed(" << n << ", " << block_size << ") returned " << needed
      << ", too few blocks: make the GridArithmetic tests pass first";
  const unsigned blocks = static_cast<unsigned>(needed) + extra_blocks;
  // Every thread of the grid finds memory at its index, so a kernel without
  // the bounds check writes past n instead of crashing.
  const std::size_t padded = static_cast<std::size_t>(blocks) * block_size + 64;

  Vectors v = make_vectors(n);
  std::vector<float> a = v.a, b = v.b;
  a.resize(padded, 1.0f);
  b.resize(padded, 2.0f);
  std::vector<float> c(padded, kUnwritten);

  DeviceFloats da(padded), db(padded), dc(padded);
  ASSERT_TRUE(da.ok() && db.ok() && dc.ok()) << "cudaMalloc failed";
  const std::size_t bytes = padded * sizeof(float);
  ASSERT_EQ(cudaMemcpy(da.ptr, a.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(db.ptr, b.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dc.ptr, c.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);

  // The address of vadd as this file sees it is the host stub nvcc wrote for
  // the kernel, which is how cudaLaunchKernel knows which kernel is meant.
  int count = static_cast<int>(n);
  void* args[] = {&da.ptr, &db.ptr, &dc.ptr, &count};
  const cudaError_t launched = cudaLaunchKernel(reinterpret_cast<const void*>(&vadd), dim3(blocks),
                                                dim3(block_size), args, 0, nullptr);
  ASSERT_EQ(launched, cudaSuccess) << "cudaLaunchKernel: " << cudaGetErrorString(launched);
  const cudaError_t finished = cudaDeviceSynchronize();
  ASSERT_EQ(finished, cudaSuccess) << "the kernel failed: " << cudaGetErrorString(finished);
  ASSERT_EQ(cudaMemcpy(c.data(), dc.ptr, bytes, cudaMemcpyDeviceToHost), cudaSuccess);

  const std::span<const float> written(c.data(), n);
  EXPECT_TRUE(SameSequence(v.expected, written)) << "c[0, n) should hold a + b";
  const std::span<const float> beyond(c.data() + n, padded - n);
  const std::vector<float> untouched(padded - n, kUnwritten);
  ::testing::AssertionResult same = SameSequence(untouched, beyond);
  EXPECT_TRUE(same) << "past the end: [k] above means c[n + k], which no thread may write "
                       "(does the kernel check i < n?)";
}

TEST(VaddKernel, LeavesEveryElementPastNUntouched) {
  LAUNCHLAB_REQUIRE_GPU();
  cudaGetLastError();
  ExpectKernelStaysInBounds(1000, 256, 0);  // 4 blocks, 24 threads without an element
  ExpectKernelStaysInBounds(1, 1024, 0);    // one element, 1023 idle threads
  ExpectKernelStaysInBounds(257, 32, 3);    // a grid larger than it needs to be
  ExpectKernelStaysInBounds(1'000'003, 128, 0);
}

}  // namespace
}  // namespace launchlab::journey
