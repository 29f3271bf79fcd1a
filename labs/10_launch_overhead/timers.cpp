// The two clocks of the harness: the host's steady clock and a pair of CUDA
// events. The contract is in harness.h.

#include <cuda_runtime_api.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include <launchlab/cuda.h>

#include "harness.h"

namespace launchlab::overhead {

void HostTimer::start() {
  // TODO(student): remember std::chrono::steady_clock::now() in start_ns_
  // (nanoseconds since the clock's epoch).
}

double HostTimer::stop_us() {
  // TODO(student): the microseconds since start(), as a double.
  return 0;
}

EventTimer::EventTimer(cudaStream_t stream) : stream_(stream) {
  // TODO(student): create begin_ and end_ with cudaEventCreate; throw
  // std::runtime_error (naming the call; cuda::check from launchlab/cuda.h
  // does) if it fails, without leaking the first event when the second fails.
}

EventTimer::~EventTimer() {
  // TODO(student): destroy both events (a destructor must not throw).
}

void EventTimer::start() {
  // TODO(student): record begin_ on stream_.
}

double EventTimer::stop_us() {
  // TODO(student): record end_ on stream_, wait for it, and return
  // cudaEventElapsedTime(begin_, end_) in microseconds. Check every call.
  return 0;
}

}  // namespace launchlab::overhead
