// The tests' own launch measurements: deliberately plain (a fixed number of
// trials, a steady clock, a median), so that they share nothing with the
// harness the learner writes.

#include "reference.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace launchlab::overhead::reference {

// The same kernels as the lab's kernels.cuh, under names of their own: that
// header defines its kernels for launches.cu, and a second copy of them in
// this program would clash with the learner's.
__global__ void reference_empty() {}

template <std::size_t N>
struct Bytes {
  unsigned char b[N];
};

template <std::size_t N>
__global__ void reference_bytes(Bytes<N> bytes) {
  (void)bytes;
}

__global__ void spin(unsigned long long ns) {
  unsigned long long start = 0;
  unsigned long long now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("reference: ") + call + " failed: " + cudaGetErrorString(status));
  }
}

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
  ~Stream() { cudaStreamDestroy(s); }
};

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs `warmup` untimed trials, then `trials` timed ones; median per item.
template <class Trial>
double measure(int warmup, int trials, int items, Trial trial) {
  for (int i = 0; i < warmup; ++i) trial();
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(trials));
  for (int i = 0; i < trials; ++i) {
    const double t0 = now_us();
    trial();
    samples.push_back((now_us() - t0) / items);
  }
  return median_of(std::move(samples));
}

template <std::size_t N>
double bytes_us(int launches, int trials) {
  Stream stream;
  auto argument = std::make_unique<Bytes<N>>();
  const Bytes<N>& a = *argument;
  return measure(3, trials, launches, [&] {
    for (int i = 0; i < launches; ++i) reference_bytes<N><<<1, 1, 0, stream.s>>>(a);
    check(cudaStreamSynchronize(stream.s), "cudaStreamSynchronize");
  });
}

}  // namespace

double latency_us(int trials) {
  Stream stream;
  return measure(200, trials, 1, [&] {
    reference_empty<<<1, 1, 0, stream.s>>>();
    check(cudaStreamSynchronize(stream.s), "cudaStreamSynchronize");
  });
}

double throughput_us(int launches, int trials) {
  Stream stream;
  return measure(3, trials, launches, [&] {
    for (int i = 0; i < launches; ++i) reference_empty<<<1, 1, 0, stream.s>>>();
    check(cudaStreamSynchronize(stream.s), "cudaStreamSynchronize");
  });
}

double graph_per_kernel_us(int kernels, int trials) {
  Stream stream;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  check(cudaStreamBeginCapture(stream.s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  for (int i = 0; i < kernels; ++i) reference_empty<<<1, 1, 0, stream.s>>>();
  check(cudaStreamEndCapture(stream.s, &graph), "cudaStreamEndCapture");
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  double result = 0;
  try {
    result = measure(20, trials, kernels, [&] {
      check(cudaGraphLaunch(exec, stream.s), "cudaGraphLaunch");
      check(cudaStreamSynchronize(stream.s), "cudaStreamSynchronize");
    });
  } catch (...) {
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    throw;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return result;
}

double param_us(std::size_t bytes, int launches, int trials) {
  switch (bytes) {
    case 0: return throughput_us(launches, trials);
    case 8: return bytes_us<8>(launches, trials);
    case 64: return bytes_us<64>(launches, trials);
    case 256: return bytes_us<256>(launches, trials);
    case 1024: return bytes_us<1024>(launches, trials);
    case 4096: return bytes_us<4096>(launches, trials);
    case 8192: return bytes_us<8192>(launches, trials);
    case 16384: return bytes_us<16384>(launches, trials);
    case 32764: return bytes_us<32764>(launches, trials);
    default: throw std::invalid_argument("reference::param_us: unknown size " + std::to_string(bytes));
  }
}

const void* empty_kernel() { return reinterpret_cast<const void*>(&reference_empty); }

void launch_spin(cudaStream_t stream, unsigned long long ns) {
  spin<<<1, 1, 0, stream>>>(ns);
  check(cudaGetLastError(), "spin<<<1, 1>>>");
}

}  // namespace launchlab::overhead::reference
