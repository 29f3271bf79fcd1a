// The ways to wait for a kernel, and what each costs. The contract is in
// completion.h; the tests run each method in a process of its own.
//
// Given: wait_helpers.cuh (now_ns(), read_globaltimer(), MappedFlag, Watcher)
// and launchlab/cuda.h (check(), Stream, Event). The TODO(student)s are yours.

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

}  // namespace detail

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
