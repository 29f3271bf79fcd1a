// Copies between host and device memory, timed. The contract is in
// completion.h.

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <launchlab/cuda.h>

#include "completion.h"

namespace launchlab::completion {

namespace {

using cuda::check;

// Host memory of either kind, freed the way it was allocated.
class HostBuffer {
 public:
  HostBuffer(HostMemory memory, std::size_t bytes) {
    if (memory == HostMemory::Pinned) {
      pinned_.emplace(bytes);
    } else {
      pageable_ = std::make_unique<std::byte[]>(bytes);
    }
    // Touch every page now: the first write to pageable memory is a page
    // fault, which is the operating system's cost, not the copy's.
    std::memset(get(), 0x5a, bytes);
  }
  void* get() const { return pinned_ ? static_cast<void*>(pinned_->get()) : pageable_.get(); }

 private:
  std::optional<cuda::PinnedBuffer<std::byte>> pinned_;
  std::unique_ptr<std::byte[]> pageable_;
};

}  // namespace

std::vector<double> time_copies(HostMemory memory, Direction direction, std::size_t bytes, int trials) {
  if (bytes == 0) throw std::invalid_argument("time_copies: bytes must be at least 1");
  if (trials < 1) throw std::invalid_argument("time_copies: trials must be at least 1, got " + std::to_string(trials));

  HostBuffer host(memory, bytes);
  cuda::DeviceBuffer<std::byte> device(bytes);
  check(cudaMemset(device.get(), 0x3c, bytes), "cudaMemset");
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
