/// @file
/// What a launch costs, measured with the harness of harness.h: the round
/// trip of one launch, the rate of back-to-back launches, a CUDA graph's cost
/// per kernel, the effect of the parameter size, and the first launch of a
/// kernel against the ones after it.
#pragma once

#include <array>
#include <cstddef>

#include "harness.h"

namespace launchlab::overhead {

/// Which clock times the trials.
enum class Clock {
  host,         ///< HostTimer: what the calling thread waited
  cuda_events,  ///< EventTimer on the measurement's stream: what the GPU saw
};

/// The name of a clock as it appears in a Measurement and in CSV: "host" or "cuda_events".
inline const char* clock_name(Clock clock) {
  return clock == Clock::host ? "host" : "cuda_events";
}

/// The parameter sizes measure_param_launch() knows, in bytes. 32,764 is the
/// largest parameter list a kernel may have since CUDA 12.1 on Volta and
/// later; 4,096 was the limit before.
inline constexpr std::array<std::size_t, 9> kParamSizes = {0,    8,    64,    256,  1024,
                                                            4096, 8192, 16384, 32764};

/// The round trip of one launch: each item is an empty kernel launched
/// <<<1, 1>>> on a stream of its own, followed by cudaStreamSynchronize on
/// that stream, so that the next launch starts on an idle GPU.
///
/// Like every measure_* function here, it creates its stream with
/// cudaStreamCreateWithFlags(cudaStreamNonBlocking), runs run_benchmark()
/// with @p config on it, and destroys the stream before returning.
///
/// @param config the harness's configuration; items_per_trial round trips per trial
/// @param clock  HostTimer, or EventTimer on the measurement's stream
/// @return microseconds per launch and wait
/// @throws std::runtime_error when a CUDA call fails
Summary measure_launch_latency(const BenchConfig& config, Clock clock);

/// The rate of back-to-back launches: a trial launches the empty kernel
/// <<<1, 1>>> config.items_per_trial times in a row on one stream, then
/// waits once with cudaStreamSynchronize. With many launches per trial the
/// one wait is shared by all of them, and the cost per launch is what the
/// slower of the two sides, the host's launch path or the GPU, can sustain.
///
/// @param config the harness's configuration; items_per_trial launches per trial
/// @param clock  HostTimer, or EventTimer on the measurement's stream
/// @return microseconds per launch
/// @throws std::runtime_error when a CUDA call fails
Summary measure_launch_throughput(const BenchConfig& config, Clock clock);

/// A CUDA graph's cost per kernel: config.items_per_trial launches of the
/// empty kernel <<<1, 1>>> are captured from the stream into a graph
/// (cudaStreamBeginCapture / cudaStreamEndCapture), instantiated once
/// (cudaGraphInstantiate) and uploaded (cudaGraphUpload) before the
/// benchmark; a trial is one cudaGraphLaunch followed by
/// cudaStreamSynchronize. Building the graph is not part of any trial.
///
/// @param config the harness's configuration; items_per_trial kernels in the graph
/// @param clock  HostTimer, or EventTimer on the measurement's stream
/// @return microseconds per kernel of the graph
/// @throws std::runtime_error when a CUDA call fails
Summary measure_graph_launch(const BenchConfig& config, Clock clock);

/// The cost of a kernel's parameters: like measure_launch_throughput() with
/// the host clock, but the kernel launched back to back takes one parameter
/// of exactly @p param_bytes bytes, a struct passed by value, so that the
/// launch must carry all of them to the GPU. 0 bytes launches a kernel
/// without parameters.
///
/// @param config      the harness's configuration; items_per_trial launches per trial
/// @param param_bytes one of kParamSizes
/// @return microseconds per launch
/// @throws std::invalid_argument when param_bytes is not in kParamSizes (before any CUDA call)
/// @throws std::runtime_error when a CUDA call fails
Summary measure_param_launch(const BenchConfig& config, std::size_t param_bytes);

/// What measure_first_launch() found.
struct FirstLaunch {
  double first_us = 0;  ///< the first launch and wait of the kernel in this process
  Summary later;        ///< the launches and waits after it, as measure_launch_latency() would time them
};

/// The first launch of a kernel against the ones after it. The first
/// launch of @p kernel <<<1, 1>>> with cudaLaunchKernel, and the
/// cudaStreamSynchronize after it, are timed once with a HostTimer; then
/// run_benchmark() times the same launch and wait with @p config.
///
/// @param kernel the address of a `__global__ void kernel()` without
///               parameters that this process has not launched before
///               (the host stub's address, as cudaLaunchKernel takes it)
/// @param config the harness's configuration for the later launches
/// @throws std::invalid_argument when kernel is null (before any CUDA call)
/// @throws std::runtime_error when a CUDA call fails
FirstLaunch measure_first_launch(const void* kernel, const BenchConfig& config);

}  // namespace launchlab::overhead
