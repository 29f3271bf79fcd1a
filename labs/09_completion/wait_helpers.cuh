#pragma once
// Given code for waits.cu: the host clock, the GPU's clock, the mapped flag
// the kernel writes and the thread that watches it. Not a student file; the
// stream, the event and check() come from launchlab/cuda.h.

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <launchlab/cuda.h>

namespace launchlab::completion::detail {

using cuda::check;

inline std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

__device__ __forceinline__ std::uint64_t read_globaltimer() {
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

// A 4-byte flag in pinned host memory that the GPU can write: host and
// device addresses of the same bytes.
class MappedFlag {
 public:
  MappedFlag() {
    void* host = nullptr;
    check(cudaHostAlloc(&host, sizeof(std::uint32_t), cudaHostAllocMapped), "cudaHostAlloc (mapped)");
    host_ = static_cast<volatile std::uint32_t*>(host);
    *host_ = 0;
    void* device = nullptr;
    check(cudaHostGetDevicePointer(&device, host, 0), "cudaHostGetDevicePointer");
    device_ = static_cast<volatile std::uint32_t*>(device);
  }
  ~MappedFlag() { cudaFreeHost(const_cast<std::uint32_t*>(host_)); }
  MappedFlag(const MappedFlag&) = delete;
  MappedFlag& operator=(const MappedFlag&) = delete;

  volatile std::uint32_t* host() const { return host_; }
  volatile std::uint32_t* device() const { return device_; }

 private:
  volatile std::uint32_t* host_ = nullptr;
  volatile std::uint32_t* device_ = nullptr;
};

// The thread that watches the flag: for value 1, 2, 3, ... it notes the host
// time at which the flag first holds that value. Stopped and joined on every
// way out, so that a failed launch cannot leave it spinning.
class Watcher {
 public:
  Watcher(volatile std::uint32_t* flag, std::size_t values) : seen_(values, -1) {
    thread_ = std::thread([this, flag] {
      for (std::size_t k = 0; k < seen_.size(); ++k) {
        const std::uint32_t wanted = static_cast<std::uint32_t>(k + 1);
        while (*flag < wanted) {
          if (stop_.load(std::memory_order_relaxed)) return;
        }
        seen_[k] = now_ns();
      }
      done_ = true;
    });
  }
  ~Watcher() { stop(); }
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  // Gives the thread up to a second to see the last value, then joins it;
  // after it, seen() is complete (-1 where no value came).
  void finish() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!done_ && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    stop();
  }
  const std::vector<std::int64_t>& seen() const { return seen_; }

 private:
  void stop() {
    if (thread_.joinable()) {
      stop_ = true;
      thread_.join();
    }
  }

  std::vector<std::int64_t> seen_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace launchlab::completion::detail
