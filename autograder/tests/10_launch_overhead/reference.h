// The tests' own measurements of what a launch costs, made in the same run
// as the learner's and independent of the learner's code: fixed numbers of
// trials, the host's steady clock, the median. Also the kernels the tests
// hand to the learner's code.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace launchlab::overhead::reference {

/// Launch + cudaStreamSynchronize of an empty kernel <<<1, 1>>>: median microseconds.
double latency_us(int trials);

/// `launches` back-to-back launches, one wait: median microseconds per launch.
double throughput_us(int launches, int trials);

/// A graph of `kernels` empty kernels, launched and waited for: median microseconds per kernel.
double graph_per_kernel_us(int kernels, int trials);

/// Back-to-back launches of a kernel taking one `bytes`-byte struct by value
/// (0: no parameter): median microseconds per launch. bytes is one of
/// 0, 8, 64, 256, 1024, 4096, 8192, 16384, 32764.
double param_us(std::size_t bytes, int launches, int trials);

/// Launches a kernel that spins on the GPU's global timer for `ns` nanoseconds.
void launch_spin(cudaStream_t stream, unsigned long long ns);

/// A kernel without parameters that does nothing, which the tests' own
/// measurements launch too (so launching it costs no module load of its
/// own): its host stub's address.
const void* empty_kernel();

/// A kernel without parameters that nothing in the tests launches except the
/// learner's measure_first_launch(): its host stub's address. It lives alone
/// in first_launch_probe.cu, so that its module is loaded by its own first
/// launch and by nothing else.
const void* never_launched_kernel();

}  // namespace launchlab::overhead::reference
