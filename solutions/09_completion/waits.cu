// The ways to wait for a kernel, and what each costs. The contract is in
// completion.h; the tests run each method in a process of its own.

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <launchlab/cuda.h>

#include "completion.h"
#include "wait_helpers.cuh"

namespace launchlab::completion {

using namespace detail;
using cuda::Event;
using cuda::Stream;

// Helpers of this file only: not part of the lab's contract.
namespace detail {

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

}  // namespace detail

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
