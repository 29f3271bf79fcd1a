// Copies between host and device memory, timed. The contract is in
// completion.h.

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "completion.h"

namespace launchlab::completion {

namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorName(status) + ": " +
                             cudaGetErrorString(status));
  }
}

// Host memory of either kind, freed the way it was allocated.
class HostBuffer {
 public:
  HostBuffer(HostMemory memory, std::size_t bytes) : memory_(memory) {
    if (memory == HostMemory::Pinned) {
      check(cudaMallocHost(&ptr_, bytes), "cudaMallocHost");
    } else {
      ptr_ = new std::byte[bytes];
    }
    // Touch every page now: the first write to pageable memory is a page
    // fault, which is the operating system's cost, not the copy's.
    std::memset(ptr_, 0x5a, bytes);
  }
  ~HostBuffer() {
    if (memory_ == HostMemory::Pinned) {
      cudaFreeHost(ptr_);
    } else {
      delete[] static_cast<std::byte*>(ptr_);
    }
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  void* get() const { return ptr_; }

 private:
  HostMemory memory_;
  void* ptr_ = nullptr;
};

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) {
    check(cudaMalloc(&ptr_, bytes), "cudaMalloc");
    check(cudaMemset(ptr_, 0x3c, bytes), "cudaMemset");
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

}  // namespace

std::vector<double> time_copies(HostMemory memory, Direction direction, std::size_t bytes, int trials) {
  if (bytes == 0) throw std::invalid_argument("time_copies: bytes must be at least 1");
  if (trials < 1) throw std::invalid_argument("time_copies: trials must be at least 1, got " + std::to_string(trials));

  HostBuffer host(memory, bytes);
  DeviceBuffer device(bytes);
  void* to = direction == Direction::HostToDevice ? device.get() : host.get();
  const void* from = direction == Direction::HostToDevice ? host.get() : device.get();
  const cudaMemcpyKind kind = direction == Direction::HostToDevice ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;

  auto copy = [&] {
    check(cudaMemcpy(to, from, bytes, kind), "cudaMemcpy");
    // A pageable host-to-device copy may return once the bytes are in the
    // driver's staging buffer: wait for the DMA to land too.
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  };
  copy();  // untimed: the first copy pays for setting things up
  std::vector<double> seconds;
  for (int trial = 0; trial < trials; ++trial) {
    const auto start = std::chrono::steady_clock::now();
    copy();
    const auto end = std::chrono::steady_clock::now();
    seconds.push_back(std::chrono::duration<double>(end - start).count());
  }
  return seconds;
}

double gigabytes_per_second(std::size_t bytes, double seconds) {
  if (!(seconds > 0)) throw std::invalid_argument("gigabytes_per_second: seconds must be positive");
  return static_cast<double>(bytes) / seconds / 1e9;
}

}  // namespace launchlab::completion
