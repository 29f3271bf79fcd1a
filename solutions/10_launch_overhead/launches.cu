// What a launch costs, measured with the harness. The contract is in
// launches.h; the tests compare these figures with a reference measured in
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

namespace {

using cuda::check;
using cuda::Stream;

std::unique_ptr<Timer> make_timer(Clock clock, cudaStream_t stream) {
  if (clock == Clock::cuda_events) return std::make_unique<EventTimer>(stream);
  return std::make_unique<HostTimer>();
}

void launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  check(cudaGetLastError(), "empty_kernel<<<1, 1>>>");
}

template <std::size_t N>
Summary measure_blob(const BenchConfig& config) {
  Stream stream;
  HostTimer timer;
  // Built once, outside every trial: only the launch copies it.
  auto blob = std::make_unique<Blob<N>>();
  const Blob<N>& argument = *blob;
  auto trial = [&] {
    for (int i = 0; i < config.items_per_trial; ++i) {
      take_blob<N><<<1, 1, 0, stream>>>(argument);
      check(cudaGetLastError(), "take_blob<<<1, 1>>>");
    }
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  };
  return run_benchmark(timer, trial, config);
}

// The graph and its executable form, destroyed on every way out.
struct Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
};

}  // namespace

Summary measure_launch_latency(const BenchConfig& config, Clock clock) {
  Stream stream;
  std::unique_ptr<Timer> timer = make_timer(clock, stream);
  auto trial = [&] {
    for (int i = 0; i < config.items_per_trial; ++i) {
      launch_empty(stream);
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
  };
  return run_benchmark(*timer, trial, config);
}

Summary measure_launch_throughput(const BenchConfig& config, Clock clock) {
  Stream stream;
  std::unique_ptr<Timer> timer = make_timer(clock, stream);
  auto trial = [&] {
    for (int i = 0; i < config.items_per_trial; ++i) launch_empty(stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  };
  return run_benchmark(*timer, trial, config);
}

Summary measure_graph_launch(const BenchConfig& config, Clock clock) {
  if (config.items_per_trial < 1) {
    throw std::invalid_argument("measure_graph_launch: a graph needs at least one kernel");
  }
  Stream stream;
  Graph graph;
  // Capture records the launches into a graph instead of running them.
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  for (int i = 0; i < config.items_per_trial; ++i) {
    empty_kernel<<<1, 1, 0, stream>>>();
  }
  const cudaError_t launched = cudaGetLastError();
  check(cudaStreamEndCapture(stream, &graph.graph), "cudaStreamEndCapture");
  check(launched, "empty_kernel<<<1, 1>>> (captured)");
  check(cudaGraphInstantiate(&graph.exec, graph.graph, 0), "cudaGraphInstantiate");
  // The first launch of a graph uploads it; done here, it is not timed.
  check(cudaGraphUpload(graph.exec, stream), "cudaGraphUpload");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

  std::unique_ptr<Timer> timer = make_timer(clock, stream);
  auto trial = [&] {
    check(cudaGraphLaunch(graph.exec, stream), "cudaGraphLaunch");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  };
  return run_benchmark(*timer, trial, config);
}

Summary measure_param_launch(const BenchConfig& config, std::size_t param_bytes) {
  switch (param_bytes) {
    case 0: return measure_launch_throughput(config, Clock::host);
    case 8: return measure_blob<8>(config);
    case 64: return measure_blob<64>(config);
    case 256: return measure_blob<256>(config);
    case 1024: return measure_blob<1024>(config);
    case 4096: return measure_blob<4096>(config);
    case 8192: return measure_blob<8192>(config);
    case 16384: return measure_blob<16384>(config);
    case 32764: return measure_blob<32764>(config);
    default:
      throw std::invalid_argument("measure_param_launch: " + std::to_string(param_bytes) +
                                  " bytes is not one of kParamSizes");
  }
}

FirstLaunch measure_first_launch(const void* kernel, const BenchConfig& config) {
  if (kernel == nullptr) throw std::invalid_argument("measure_first_launch: no kernel");
  Stream stream;
  HostTimer timer;
  auto launch_and_wait = [&] {
    check(cudaLaunchKernel(kernel, dim3(1), dim3(1), nullptr, 0, stream), "cudaLaunchKernel");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  };
  FirstLaunch result;
  timer.start();
  launch_and_wait();
  result.first_us = timer.stop_us();
  result.later = run_benchmark(timer, launch_and_wait, config);
  return result;
}

}  // namespace launchlab::overhead
