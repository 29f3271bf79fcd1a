// The ways to wait for a kernel, and what each costs. The contract is in
// completion.h; the tests run each method in a process of its own.
//
// The helpers in namespace detail (the mapped flag, a stream, an event,
// the thread that watches the flag) are given; the TODO(student)s are yours.

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

void wait_for(WaitMethod method, cudaStream_t stream, cudaEvent_t event) {
  // TODO(student): wait as the method says (completion.h describes each).
  // StreamQuerySpin loops on cudaStreamQuery(stream) while it answers
  // cudaErrorNotReady, and checks the last answer; the StreamSync methods
  // call cudaStreamSynchronize(stream); the EventSync methods call
  // cudaEventSynchronize(event). Check every status.
  (void)method;
  (void)stream;
  (void)event;
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
  // TODO(student): return the cudaDeviceSchedule... flag the method runs
  // under (its comment in completion.h names it). 0 is cudaDeviceScheduleAuto,
  // which lets the driver choose: not what any method asks for.
  (void)method;
  return 0;
}

unsigned event_flags(WaitMethod method) {
  // TODO(student): cudaEventDisableTiming for every method, plus
  // cudaEventBlockingSync for EventSyncBlocking.
  (void)method;
  return 0;
}

__global__ void signal_after(std::uint64_t spin_ns, volatile std::uint32_t* flag, std::uint32_t value) {
  // TODO(student): spin until read_globaltimer() is spin_ns past its first
  // reading, then store value to *flag between two __threadfence_system()
  // calls: the first keeps earlier writes from arriving after the flag, the
  // second sends the flag out to host memory without delay.
  (void)spin_ns;
  (void)flag;
  (void)value;
}

std::vector<WaitSample> measure_waits(WaitMethod method, int trials, std::uint64_t kernel_ns) {
  // TODO(student): measure the method, as completion.h describes.
  //  1. Before any CUDA call, throw std::invalid_argument when trials < 1 or
  //     kernel_ns is outside [10000, 1000000000].
  //  2. cudaSetDeviceFlags(schedule_flags(method)): the first CUDA call, so
  //     that the context is created with these flags.
  //  3. A MappedFlag, a Stream and an Event(event_flags(method)), and a
  //     Watcher on the flag for trials + 1 values.
  //  4. For k = 0 .. trials: note now_ns(), launch
  //     signal_after<<<1, 1, 0, stream>>>(kernel_ns, flag.device(), k + 1),
  //     check cudaGetLastError(), record the event when the method uses one
  //     (the EventSync methods), wait_for(...), note now_ns() again.
  //  5. watcher.finish(); trial 0 was the warm-up. For k >= 1 the sample is
  //     {returned - watcher.seen()[k], returned - started}.
  (void)method;
  (void)trials;
  (void)kernel_ns;
  return {};
}

}  // namespace launchlab::completion
