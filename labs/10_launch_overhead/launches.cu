// What a launch costs, measured with the harness. The contract is in
// launches.h; the tests compare your figures with a reference measured in
// the same run (`./launchlab test 10` on a GPU).

#include "launches.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

#include <launchlab/cuda.h>

#include "harness.h"
#include "kernels.cuh"

namespace launchlab::overhead {

// TODO(student): every function below creates a non-blocking stream of its
// own, builds a trial (a lambda) that does exactly what launches.h says one
// trial is, picks the timer (HostTimer, or EventTimer on that stream), and
// returns run_benchmark's summary. Check every CUDA call and throw
// std::runtime_error naming it; destroy what you created on every way out
// (launchlab/cuda.h has cuda::check and cuda::Stream for both). The kernels
// are given in kernels.cuh.

Summary measure_launch_latency(const BenchConfig& config, Clock clock) {
  // TODO(student): items_per_trial times: empty_kernel<<<1, 1, 0, stream>>>(),
  // then cudaStreamSynchronize.
  (void)config;
  (void)clock;
  return {};
}

Summary measure_launch_throughput(const BenchConfig& config, Clock clock) {
  // TODO(student): items_per_trial launches in a row, one wait at the end.
  (void)config;
  (void)clock;
  return {};
}

Summary measure_graph_launch(const BenchConfig& config, Clock clock) {
  // TODO(student): capture items_per_trial launches into a graph,
  // instantiate and upload it before the benchmark; a trial launches the
  // graph and waits.
  (void)config;
  (void)clock;
  return {};
}

Summary measure_param_launch(const BenchConfig& config, std::size_t param_bytes) {
  // TODO(student): map param_bytes to take_blob<N> (0 bytes: empty_kernel)
  // and time back-to-back launches of it with the host clock; throw
  // std::invalid_argument for a size that is not in kParamSizes. Build the
  // Blob once, outside the trials (a 32 KB struct is better on the heap).
  (void)config;
  (void)param_bytes;
  return {};
}

FirstLaunch measure_first_launch(const void* kernel, const BenchConfig& config) {
  // TODO(student): time the very first cudaLaunchKernel of kernel and the
  // wait after it with a HostTimer, then benchmark the same launch and wait.
  (void)kernel;
  (void)config;
  return {};
}

}  // namespace launchlab::overhead
