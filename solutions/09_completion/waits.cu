// The ways to wait for a kernel, and what each costs. The contract is in
// completion.h; the tests run each method in a process of its own.

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "completion.h"

namespace launchlab::completion {

// Helpers of this file only: not part of the lab's contract.
namespace detail {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorName(status) + ": " +
                             cudaGetErrorString(status));
  }
}

std::int64_t now_ns() {
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

class Stream {
 public:
  Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  explicit Event(unsigned flags) { check(cudaEventCreateWithFlags(&event_, flags), "cudaEventCreateWithFlags"); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

bool uses_event(WaitMethod method) {
  return method == WaitMethod::EventSyncSpin || method == WaitMethod::EventSyncBlocking;
}

void wait_for(WaitMethod method, cudaStream_t stream, cudaEvent_t event) {
  switch (method) {
    case WaitMethod::StreamQuerySpin: {
      cudaError_t status;
      while ((status = cudaStreamQuery(stream)) == cudaErrorNotReady) {
      }
      check(status, "cudaStreamQuery");
      return;
    }
    case WaitMethod::StreamSyncSpin:
    case WaitMethod::StreamSyncYield:
    case WaitMethod::StreamSyncBlocking:
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      return;
    case WaitMethod::EventSyncSpin:
    case WaitMethod::EventSyncBlocking:
      check(cudaEventSynchronize(event), "cudaEventSynchronize");
      return;
  }
}

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

}  // namespace detail

using namespace detail;

unsigned schedule_flags(WaitMethod method) {
  switch (method) {
    case WaitMethod::StreamSyncYield:
      return cudaDeviceScheduleYield;
    case WaitMethod::StreamSyncBlocking:
      return cudaDeviceScheduleBlockingSync;
    case WaitMethod::StreamQuerySpin:
    case WaitMethod::StreamSyncSpin:
    case WaitMethod::EventSyncSpin:
    case WaitMethod::EventSyncBlocking:
      return cudaDeviceScheduleSpin;
  }
  return cudaDeviceScheduleSpin;
}

unsigned event_flags(WaitMethod method) {
  return cudaEventDisableTiming | (method == WaitMethod::EventSyncBlocking ? cudaEventBlockingSync : 0u);
}

__global__ void signal_after(std::uint64_t spin_ns, volatile std::uint32_t* flag, std::uint32_t value) {
  const std::uint64_t start = read_globaltimer();
  while (read_globaltimer() - start < spin_ns) {
  }
  __threadfence_system();  // nothing before the flag may arrive after it
  *flag = value;
  __threadfence_system();  // push the flag out to host memory now
}

std::vector<WaitSample> measure_waits(WaitMethod method, int trials, std::uint64_t kernel_ns) {
  if (trials < 1) throw std::invalid_argument("measure_waits: trials must be at least 1, got " + std::to_string(trials));
  if (kernel_ns < 10'000 || kernel_ns > 1'000'000'000) {
    throw std::invalid_argument("measure_waits: kernel_ns must be in [10000, 1000000000], got " +
                                std::to_string(kernel_ns));
  }
  // The first CUDA call: the primary context is created with these flags.
  check(cudaSetDeviceFlags(schedule_flags(method)), "cudaSetDeviceFlags");

  MappedFlag flag;
  Stream stream;
  Event event(event_flags(method));
  const auto rounds = static_cast<std::size_t>(trials) + 1;  // round 0 is not timed: it loads the module
  std::vector<std::int64_t> started(rounds), returned(rounds);
  Watcher watcher(flag.host(), rounds);
  for (std::size_t k = 0; k < rounds; ++k) {
    started[k] = now_ns();
    signal_after<<<1, 1, 0, stream.get()>>>(kernel_ns, flag.device(), static_cast<std::uint32_t>(k + 1));
    check(cudaGetLastError(), "signal_after<<<1, 1>>>");
    if (uses_event(method)) check(cudaEventRecord(event.get(), stream.get()), "cudaEventRecord");
    wait_for(method, stream.get(), event.get());
    returned[k] = now_ns();
  }
  watcher.finish();

  std::vector<WaitSample> samples;
  for (std::size_t k = 1; k < rounds; ++k) {
    if (watcher.seen()[k] < 0) {
      throw std::runtime_error("measure_waits: the flag of trial " + std::to_string(k) + " never arrived");
    }
    samples.push_back({returned[k] - watcher.seen()[k], returned[k] - started[k]});
  }
  return samples;
}

}  // namespace launchlab::completion
