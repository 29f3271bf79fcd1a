// The two clocks of the harness: the host's steady clock and a pair of CUDA
// events. The contract is in harness.h.

#include <cuda_runtime_api.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include <launchlab/cuda.h>

#include "harness.h"

namespace launchlab::overhead {
namespace {

using cuda::check;

long long steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void HostTimer::start() { start_ns_ = steady_now_ns(); }

double HostTimer::stop_us() { return static_cast<double>(steady_now_ns() - start_ns_) / 1000.0; }

EventTimer::EventTimer(cudaStream_t stream) : stream_(stream) {
  check(cudaEventCreate(&begin_), "cudaEventCreate");
  const cudaError_t second = cudaEventCreate(&end_);
  if (second != cudaSuccess) {
    cudaEventDestroy(begin_);
    check(second, "cudaEventCreate");
  }
}

EventTimer::~EventTimer() {
  // A destructor must not throw; the statuses are dropped.
  cudaEventDestroy(begin_);
  cudaEventDestroy(end_);
}

void EventTimer::start() { check(cudaEventRecord(begin_, stream_), "cudaEventRecord (start)"); }

double EventTimer::stop_us() {
  check(cudaEventRecord(end_, stream_), "cudaEventRecord (stop)");
  // The elapsed time exists only once the GPU has passed the second event.
  check(cudaEventSynchronize(end_), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, begin_, end_), "cudaEventElapsedTime");
  return static_cast<double>(ms) * 1000.0;
}

}  // namespace launchlab::overhead
