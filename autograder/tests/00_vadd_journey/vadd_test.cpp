// The vadd program: argument checks on the CPU, then the kernel and the host
// function on a GPU, every element compared exactly with the CPU's a[i] + b[i].

#include "vadd.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grid.h"
#include "launchlab/cuda.h"
#include "launchlab/drawn.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"

namespace launchlab::journey {
namespace {

// No sum of two inputs in [-1000, 1000] can equal it, so an element that still
// holds it was never written.
constexpr float kUnwritten = -4242.0f;

struct Vectors {
  std::vector<float> a, b;
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
  for (std::size_t i = 0; i < n; ++i) {
    v.a[i] = value(random);
    v.b[i] = value(random);
  }
  return v;
}

// The right answer, a[i] + b[i] added on the CPU: written only inside the
// expected half of a record, so the learner's program never computes it.
std::vector<float> sums(const Vectors& v) {
  std::vector<float> c(v.a.size());
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = v.a[i] + v.b[i];
  return c;
}

// Some elements of c by name ("c[256]"), an element still holding the fill
// value shown as "never written": a difference then reads as
// `.c[256]: expected 12.5, got "never written"`.
struct Elements {
  std::vector<std::pair<std::size_t, float>> items;
};

nlohmann::json record_value(const Elements& e) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [i, value] : e.items) {
    std::string name = "c[" + std::to_string(i) + "]";
    if (value == kUnwritten) out[name] = "never written";
    else out[name] = launchlab::testing::encode(value);
  }
  return out;
}

// The elements a wrong grid or index gets wrong first: every one when there
// are few, otherwise the first two blocks and the last two (the partial one).
Elements telling_elements(std::span<const float> c, unsigned block_size) {
  Elements e;
  const std::size_t n = c.size();
  const std::size_t edge = 2 * static_cast<std::size_t>(block_size);
  for (std::size_t i = 0; i < n; ++i) {
    if (n <= 2 * edge || i < edge || i >= n - edge) e.items.emplace_back(i, c[i]);
  }
  return e;
}

// One number for all the elements (FNV-1a over their bits): equal when every
// element is, to the last bit.
std::string checksum(std::span<const float> c) {
  std::uint64_t hash = 14695981039346656037ull;
  for (float value : c) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    for (int byte = 0; byte < 4; ++byte) {
      hash ^= (bits >> (8 * byte)) & 0xff;
      hash *= 1099511628211ull;
    }
  }
  char text[19];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::size_t count_never_written(std::span<const float> c) {
  return static_cast<std::size_t>(std::count(c.begin(), c.end(), kUnwritten));
}

// The first few indices at or past n that hold anything but the fill value.
std::vector<std::size_t> written_past(std::span<const float> c, std::size_t n) {
  std::vector<std::size_t> written;
  for (std::size_t i = n; i < c.size() && written.size() < 8; ++i) {
    if (c[i] != kUnwritten) written.push_back(i);
  }
  return written;
}

// Records what add_vectors_on_gpu left in c for a + b.
void RecordAdds(std::size_t n, unsigned block_size) {
  RECORD_SCOPE("add_vectors_on_gpu(a, b, c) with n = " + std::to_string(n) + " elements, block_size = " +
               std::to_string(block_size));
  const Vectors v = make_vectors(n);
  std::vector<float> c(n, kUnwritten);
  RECORD_NO_THROW(add_vectors_on_gpu(v.a, v.b, c, block_size));
  RECORD_EQ(count_never_written(c), 0u) << "elements of c that were never written";
  RECORD_EQ(telling_elements(c, block_size), telling_elements(sums(v), block_size))
      << "c = a + b, the first and last two blocks of elements";
  RECORD_EQ(checksum(c), checksum(sums(v))) << "c = a + b, every element, as one checksum of their bits";
}

// ---- On the CPU: wrong arguments are rejected before any CUDA call ----------
// Each test also makes drawn calls, valid or not by the draw, and records
// which of them threw std::invalid_argument: a valid call runs on a GPU and
// fails in CUDA without one, so only whether a call was rejected is the same
// on every machine. The valid calls are tiny (at most 15 elements).

std::string Call(std::size_t a, std::size_t b, std::size_t c, unsigned block_size) {
  return "add_vectors_on_gpu(a of " + std::to_string(a) + (a == 1 ? " element" : " elements") + ", b of " +
         std::to_string(b) + ", c of " + std::to_string(c) + ", block_size = " + std::to_string(block_size) + ")";
}

// Calls add_vectors_on_gpu with drawn inputs of these lengths.
void AddCall(testing::RejectionTable& table, bool valid, std::size_t a_size, std::size_t b_size, std::size_t c_size,
             unsigned block_size) {
  const Vectors v = make_vectors(std::max(a_size, b_size));
  const std::vector<float> a(v.a.begin(), v.a.begin() + a_size), b(v.b.begin(), v.b.begin() + b_size);
  std::vector<float> c(c_size, kUnwritten);
  table.add(valid, Call(a_size, b_size, c_size, block_size), [&] { add_vectors_on_gpu(a, b, c, block_size); });
}

constexpr const char* kRejectedContext = "[i]: whether call i threw std::invalid_argument; the calls: ";

TEST(VaddArguments, RejectsInputsOfDifferentLengths) {
  std::vector<float> a(10, 1.0f), b(9, 2.0f), c(10, kUnwritten);
  RECORD_THROWS(add_vectors_on_gpu(a, b, c), std::invalid_argument)
      << "add_vectors_on_gpu(a of 10 elements, b of 9, c of 10): checked before the first CUDA call";
  RECORD_THROWS(add_vectors_on_gpu(b, a, c), std::invalid_argument)
      << "add_vectors_on_gpu(a of 9 elements, b of 10, c of 10): checked before the first CUDA call";
  std::mt19937_64 random = testing::seeded_random(20260001);
  testing::RejectionTable table;
  for (const bool valid : testing::draw_validity(random, 8)) {
    const std::size_t n = random() % 16;
    const std::size_t other = valid ? n : n + 1 + random() % 4;
    const bool a_longer = random() % 2 == 0;
    AddCall(table, valid, a_longer ? other : n, a_longer ? n : other, n, 256);
  }
  RECORD_EQ(table.rejected, table.invalid) << kRejectedContext << table.calls;
}

TEST(VaddArguments, RejectsAnOutputOfADifferentLength) {
  std::vector<float> a(10, 1.0f), b(10, 2.0f), shorter(9, kUnwritten), longer(11, kUnwritten);
  RECORD_THROWS(add_vectors_on_gpu(a, b, shorter), std::invalid_argument)
      << "add_vectors_on_gpu(a and b of 10 elements, c of 9): checked before the first CUDA call";
  RECORD_THROWS(add_vectors_on_gpu(a, b, longer), std::invalid_argument)
      << "add_vectors_on_gpu(a and b of 10 elements, c of 11): checked before the first CUDA call";
  std::mt19937_64 random = testing::seeded_random(20260002);
  testing::RejectionTable table;
  for (const bool valid : testing::draw_validity(random, 8)) {
    const std::size_t n = random() % 16;
    std::size_t c_size = n;
    if (!valid) c_size = n > 0 && random() % 2 == 0 ? random() % n : n + 1 + random() % 4;
    AddCall(table, valid, n, n, c_size, 256);
  }
  RECORD_EQ(table.rejected, table.invalid) << kRejectedContext << table.calls;
}

TEST(VaddArguments, RejectsABlockSizeOfZero) {
  std::vector<float> a(10, 1.0f), b(10, 2.0f), c(10, kUnwritten);
  RECORD_THROWS(add_vectors_on_gpu(a, b, c, 0), std::invalid_argument)
      << "add_vectors_on_gpu(a, b, c of 10 elements, block_size = 0): checked before the first CUDA call";
  std::mt19937_64 random = testing::seeded_random(20260003);
  testing::RejectionTable table;
  for (const bool valid : testing::draw_validity(random, 8)) {
    const std::size_t n = 1 + random() % 15;
    AddCall(table, valid, n, n, n, valid ? static_cast<unsigned>(1 + random() % 1024) : 0);
  }
  RECORD_EQ(table.rejected, table.invalid) << kRejectedContext << table.calls;
}

// More elements than vadd's `int n` can count. The three spans cover address
// space reserved with no access allowed, and no memory behind it: a function
// that read an element, or tried to copy the inputs, before its checks
// would crash instead of throwing, and one that allocated first would fail
// with a CUDA error.
TEST(VaddArguments, RejectsMoreElementsThanAnIntCounts) {
  const std::size_t n = static_cast<std::size_t>(INT_MAX) + 1;
  constexpr std::size_t kMoreDrawn = 64;  // the drawn calls' lengths reach n + 63
  const std::size_t bytes = (n + kMoreDrawn) * sizeof(float);
  void* reserved = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  RECORD_REQUIRE(reserved != MAP_FAILED);
  float* untouchable = static_cast<float*>(reserved);
  const std::span<const float> a(untouchable, n), b(untouchable, n);
  const std::span<float> c(untouchable, n);
  RECORD_THROWS(add_vectors_on_gpu(a, b, c), std::invalid_argument)
      << "add_vectors_on_gpu(a, b, c of INT_MAX + 1 elements): checked before the first CUDA call";
  // Drawn calls: the invalid ones of INT_MAX + 1 to INT_MAX + 64 elements,
  // over the reserved space; the valid ones of at most 15.
  std::mt19937_64 random = testing::seeded_random(20260004);
  testing::RejectionTable table;
  for (const bool valid : testing::draw_validity(random, 8)) {
    if (valid) {
      const std::size_t small = random() % 16;
      AddCall(table, valid, small, small, small, 256);
    } else {
      const std::size_t length = n + random() % kMoreDrawn;
      table.add(valid, "add_vectors_on_gpu(a, b, c of INT_MAX + " + std::to_string(length - n + 1) + " elements)",
                [&] {
                  const std::span<const float> input(untouchable, length);
                  add_vectors_on_gpu(input, input, std::span<float>(untouchable, length));
                });
    }
  }
  RECORD_EQ(table.rejected, table.invalid) << kRejectedContext << table.calls;
  munmap(reserved, bytes);
}

// ---- On the CPU: one thread's work, for every thread of a grid --------------
// The GPU tests run the kernel itself; these run its per-thread work
// (vadd_thread) as the GPU would, thread by thread, where there is no GPU.

// Runs vadd_thread for every thread of `blocks` blocks of block_size threads
// over n elements. The arrays reach past the whole grid, so that a thread
// which ignores n writes into c's padding (checked) rather than past c.
void RecordEveryThreadOfAGrid(std::size_t n, unsigned blocks, unsigned block_size) {
  RECORD_SCOPE("vadd_thread for every (block, thread) of " + std::to_string(blocks) + " blocks of " +
               std::to_string(block_size) + " threads, n = " + std::to_string(n));
  const std::size_t padded = static_cast<std::size_t>(blocks) * block_size + 64;
  const Vectors inputs = make_vectors(padded);
  std::vector<float> c(padded, kUnwritten);
  for (unsigned block = 0; block < blocks; ++block) {
    for (unsigned thread = 0; thread < block_size; ++thread) {
      vadd_thread(block, block_size, thread, inputs.a.data(), inputs.b.data(), c.data(), static_cast<int>(n));
    }
  }
  const std::span<const float> written(c.data(), n);
  const std::vector<float> expected = sums(inputs);
  RECORD_EQ(telling_elements(written, block_size),
            telling_elements(std::span<const float>(expected.data(), n), block_size))
      << "c = a + b, the first and last two blocks of elements";
  RECORD_EQ(count_never_written(written), 0u) << "elements of c[0, n) that no thread wrote";
  RECORD_EQ(written_past(c, n), std::vector<std::size_t>{})
      << "the indices at or past n that some thread wrote: none may be (does vadd_thread check i < n?)";
}

TEST(VaddThread, EveryThreadOfSmallGridsWritesOnlyItsOwnElement) {
  RecordEveryThreadOfAGrid(1000, 4, 256);  // 24 threads without an element
  RecordEveryThreadOfAGrid(1, 1, 1024);    // one element, 1023 idle threads
  RecordEveryThreadOfAGrid(257, 12, 32);   // a grid three blocks larger than it needs to be
  RecordEveryThreadOfAGrid(64, 2, 32);     // whole blocks, no idle thread
  RecordEveryThreadOfAGrid(0, 1, 32);      // nothing to add
}

// The threads of the block just past INT_MAX, with n = INT_MAX: their
// indices are past the end. The arrays are address space with no access
// allowed: an index that wrapped to a negative int, or any access at all,
// crashes the test instead of passing it. One thread of a small grid first,
// so that a vadd_thread which does nothing does not pass.
TEST(VaddThread, AnIndexPastINT_MAXIsPastTheEnd) {
  RecordEveryThreadOfAGrid(6, 1, 8);
  constexpr unsigned kBlockSize = 256;
  const unsigned block = static_cast<unsigned>(INT_MAX / kBlockSize + 1);
  RECORD_SCOPE("vadd_thread for every thread of block " + std::to_string(block) + " of " + std::to_string(kBlockSize) +
               " threads (indices from 2^31), n = INT_MAX");
  const std::size_t bytes = (static_cast<std::size_t>(INT_MAX) + 1) * sizeof(float);
  void* reserved = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  RECORD_REQUIRE(reserved != MAP_FAILED);
  float* untouchable = static_cast<float*>(reserved);
  unsigned threads_done = 0;
  for (unsigned thread = 0; thread < kBlockSize; ++thread) {
    vadd_thread(block, kBlockSize, thread, untouchable, untouchable, untouchable, INT_MAX);
    ++threads_done;
  }
  RECORD_EQ(threads_done, kBlockSize) << "threads that returned without touching a, b or c";
  munmap(reserved, bytes);
}

// ---- On a GPU: the whole program ---------------------------------------------

TEST(VaddOnGpu, AddsVectorsAroundOneBlock) {
  LAUNCHLAB_REQUIRE_GPU();
  cudaGetLastError();  // start from a clean error state
  for (std::size_t n : {0u, 1u, 255u, 256u, 257u}) RecordAdds(n, 256);
  // n = 0 must launch nothing: a launch of 0 blocks leaves an error behind.
  const cudaError_t left = cudaGetLastError();
  RECORD_EQ(std::string(cudaGetErrorName(left)), "cudaSuccess")
      << "the CUDA error left pending after add_vectors_on_gpu (does n = 0 launch 0 blocks, or is an error left "
         "unchecked?)";
}

TEST(VaddOnGpu, AddsAMillionElementsWithEveryBlockSize) {
  LAUNCHLAB_REQUIRE_GPU();
  // 2^20 is the course's vadd<<<4096, 256>>>; 1,000,003 is prime, so no block
  // size divides it and the last block is always partial.
  for (std::size_t n : {std::size_t{1} << 20, std::size_t{1'000'003}}) {
    for (unsigned block_size : {32u, 128u, 256u, 1024u}) RecordAdds(n, block_size);
  }
}

TEST(VaddOnGpu, ReportsAnImpossibleBlockSizeAsRuntimeError) {
  LAUNCHLAB_REQUIRE_GPU();
  int device = 0;
  int max_threads = 0;
  const bool device_attributes_read =
      cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, device) == cudaSuccess;
  RECORD_REQUIRE(device_attributes_read);
  const unsigned too_many = 2u * static_cast<unsigned>(max_threads);
  RECORD_SCOPE("add_vectors_on_gpu(a, b, c of 1000 elements, block_size = " + std::to_string(too_many) +
               "), twice the device's limit of " + std::to_string(max_threads) + " threads per block");

  const Vectors v = make_vectors(1000);
  std::vector<float> c(1000, kUnwritten);
  RECORD_THROWS(add_vectors_on_gpu(v.a, v.b, c, too_many), std::runtime_error)
      << "(is the launch checked with cudaGetLastError()?)";
  cudaGetLastError();
  const std::string message =
      launchlab::testing::message_thrown<std::runtime_error>([&] { add_vectors_on_gpu(v.a, v.b, c, too_many); });
  cudaGetLastError();  // whatever happened, leave no error for what follows
  // What this runtime and driver answer to such a launch is asked, not
  // assumed: CUDA 13.0 on an H200 says cudaErrorInvalidValue where older
  // stacks said cudaErrorInvalidConfiguration. With n = 0 no thread would
  // touch memory even if the launch went ahead.
  RECORD_CONTAINS(message, [&] {
    const float* no_input = nullptr;
    float* no_output = nullptr;
    int no_elements = 0;
    void* probe_args[] = {&no_input, &no_input, &no_output, &no_elements};
    const cudaError_t refusal = cudaLaunchKernel(reinterpret_cast<const void*>(&vadd), dim3(1), dim3(too_many),
                                                 probe_args, 0, nullptr);
    cudaGetLastError();
    return refusal == cudaSuccess ? std::string("(the runtime itself accepted such a block)")
                                  : std::string(cudaGetErrorString(refusal));
  }()) << "the exception's message, which gives cudaGetErrorString()'s text for the refused launch";
}

// Device memory for a test, freed on every way out of it. The learner of
// lab 00 writes such an owner in vadd.cu; the tests take the given one that
// the later labs use (a failed cudaMalloc throws).
using DeviceFloats = launchlab::cuda::DeviceBuffer<float>;

// Launches the learner's kernel directly, on buffers padded past n, with the
// grid from the learner's blocks_needed (plus extra_blocks), and records
// c[0, n) and whether anything past c[n - 1] was written.
void RecordKernelStaysInBounds(std::size_t n, unsigned block_size, unsigned extra_blocks) {
  RECORD_SCOPE("vadd<<<blocks_needed(" + std::to_string(n) + ", " + std::to_string(block_size) + ") + " +
               std::to_string(extra_blocks) + ", " + std::to_string(block_size) + ">>>(a, b, c, n = " +
               std::to_string(n) + ")");
  const std::uint64_t needed = blocks_needed(n, block_size);
  // Too few blocks: make the GridArithmetic tests pass first.
  const bool blocks_needed_covers_n = needed * block_size >= n;
  RECORD_REQUIRE(blocks_needed_covers_n);
  const unsigned blocks = static_cast<unsigned>(needed) + extra_blocks;
  // Every thread of the grid finds memory at its index, so a kernel without
  // the bounds check writes past n instead of crashing.
  const std::size_t padded = static_cast<std::size_t>(blocks) * block_size + 64;

  Vectors v = make_vectors(n);
  const Vectors inputs = v;
  v.a.resize(padded, 1.0f);
  v.b.resize(padded, 2.0f);
  std::vector<float> c(padded, kUnwritten);

  DeviceFloats da(padded), db(padded), dc(padded);
  const std::size_t bytes = padded * sizeof(float);
  float* a_on_device = da.get();
  float* b_on_device = db.get();
  float* c_on_device = dc.get();
  const bool device_memory_ready = cudaMemcpy(a_on_device, v.a.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
                                   cudaMemcpy(b_on_device, v.b.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
                                   cudaMemcpy(c_on_device, c.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess;
  RECORD_REQUIRE(device_memory_ready);

  // The address of vadd as this file sees it is the host stub nvcc wrote for
  // the kernel, which is how cudaLaunchKernel knows which kernel is meant.
  int count = static_cast<int>(n);
  void* args[] = {&a_on_device, &b_on_device, &c_on_device, &count};
  const cudaError_t launched = cudaLaunchKernel(reinterpret_cast<const void*>(&vadd), dim3(blocks),
                                                dim3(block_size), args, 0, nullptr);
  RECORD_EQ(std::string(cudaGetErrorName(launched)), "cudaSuccess") << "what cudaLaunchKernel returned";
  const cudaError_t finished = cudaDeviceSynchronize();
  RECORD_EQ(std::string(cudaGetErrorName(finished)), "cudaSuccess") << "what the kernel's run returned";
  const bool kernel_ran = launched == cudaSuccess && finished == cudaSuccess &&
                          cudaMemcpy(c.data(), c_on_device, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
  RECORD_REQUIRE(kernel_ran);

  const std::span<const float> written(c.data(), n);
  RECORD_EQ(telling_elements(written, block_size), telling_elements(sums(inputs), block_size))
      << "c = a + b, the first and last two blocks of elements";
  RECORD_EQ(checksum(written), checksum(sums(inputs))) << "c = a + b, every element, as one checksum of their bits";
  RECORD_EQ(written_past(c, n), std::vector<std::size_t>{})
      << "the indices at or past n that some thread wrote: none may be (does the kernel check i < n?)";
}

TEST(VaddKernel, LeavesEveryElementPastNUntouched) {
  LAUNCHLAB_REQUIRE_GPU();
  cudaGetLastError();
  RecordKernelStaysInBounds(1000, 256, 0);  // 4 blocks, 24 threads without an element
  RecordKernelStaysInBounds(1, 1024, 0);    // one element, 1023 idle threads
  RecordKernelStaysInBounds(257, 32, 3);    // a grid larger than it needs to be
  RecordKernelStaysInBounds(1'000'003, 128, 0);
}

}  // namespace
}  // namespace launchlab::journey
