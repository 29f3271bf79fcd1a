#include "vadd.h"

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "grid.h"

namespace launchlab::journey {

__host__ __device__ void vadd_thread(unsigned block, unsigned block_size, unsigned thread, const float* a,
                                     const float* b, float* c, int n) {
  // In 64 bits: for an n near INT_MAX the last block's indices can pass
  // INT_MAX; stored in an int they would turn negative and slip past i < n.
  const unsigned long long i = static_cast<unsigned long long>(block) * block_size + thread;
  // The grid is rounded up to whole blocks, so the last block may hold
  // threads with no element: they must not touch memory.
  if (n > 0 && i < static_cast<unsigned long long>(n)) c[i] = a[i] + b[i];
}

__global__ void vadd(const float* a, const float* b, float* c, int n) {
  vadd_thread(blockIdx.x, blockDim.x, threadIdx.x, a, b, c, n);
}

namespace {

// Every CUDA runtime call returns a status; one that is ignored turns a clear
// error into wrong numbers far away. This makes each failure an exception
// that says which call failed and why.
void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorName(status) + ": " +
                             cudaGetErrorString(status));
  }
}

// One device array of floats, freed when it goes out of scope, so that an
// exception thrown by any later call cannot leak device memory.
class DeviceFloats {
 public:
  explicit DeviceFloats(std::size_t count) {
    check(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(float)), "cudaMalloc");
  }
  // cudaFree's status is dropped: a destructor must not throw, and after a
  // failed kernel the context is already broken and reported.
  ~DeviceFloats() { cudaFree(ptr_); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;

  float* get() const { return ptr_; }

 private:
  float* ptr_ = nullptr;
};

}  // namespace

void add_vectors_on_gpu(std::span<const float> a, std::span<const float> b, std::span<float> c,
                        unsigned block_size) {
  // Argument errors are the caller's and must read the same with or without a
  // GPU, so they are found before the first CUDA call.
  if (b.size() != a.size() || c.size() != a.size()) {
    throw std::invalid_argument("add_vectors_on_gpu: a, b and c must have the same length (got " +
                                std::to_string(a.size()) + ", " + std::to_string(b.size()) + ", " +
                                std::to_string(c.size()) + ")");
  }
  if (block_size == 0) {
    throw std::invalid_argument("add_vectors_on_gpu: block_size must be at least 1");
  }
  if (a.size() > static_cast<std::size_t>(INT_MAX)) {
    throw std::invalid_argument("add_vectors_on_gpu: vadd counts elements in an int; " +
                                std::to_string(a.size()) + " is too many");
  }
  const std::size_t n = a.size();
  // Zero blocks is an invalid launch configuration, and there is nothing to do.
  if (n == 0) return;

  const std::size_t bytes = n * sizeof(float);
  DeviceFloats da(n);
  DeviceFloats db(n);
  DeviceFloats dc(n);
  check(cudaMemcpy(da.get(), a.data(), bytes, cudaMemcpyHostToDevice),
        "cudaMemcpy (a to the device)");
  check(cudaMemcpy(db.get(), b.data(), bytes, cudaMemcpyHostToDevice),
        "cudaMemcpy (b to the device)");

  // n <= INT_MAX and block_size >= 1, so the block count fits gridDim.x's
  // limit of 2^31 - 1.
  const auto blocks = static_cast<unsigned>(blocks_needed(n, block_size));
  vadd<<<blocks, block_size>>>(da.get(), db.get(), dc.get(), static_cast<int>(n));
  // A launch returns nothing: a bad configuration (say, more threads per block
  // than the device allows) is only reported by the next cudaGetLastError.
  check(cudaGetLastError(), "vadd<<<...>>> launch");
  // The kernel runs asynchronously; waiting here attributes a fault inside it
  // to the kernel rather than to the copy that follows.
  check(cudaDeviceSynchronize(), "vadd kernel (cudaDeviceSynchronize)");
  check(cudaMemcpy(c.data(), dc.get(), bytes, cudaMemcpyDeviceToHost),
        "cudaMemcpy (c to the host)");
}

}  // namespace launchlab::journey
