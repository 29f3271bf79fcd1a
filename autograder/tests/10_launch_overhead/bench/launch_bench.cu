// launch_bench: the measurements behind chapter 10's figures, made with the
// lab's own code (built from solutions/ by gpu_run.sh, or from a learner's
// files). Not part of the tests.
//
//   launch_bench --all            every measurement, as CSV on standard output
//   launch_bench --latency-only   the launch + synchronize latency of one run, one CSV line:
//                                 median_us,p10_us,p90_us,trials,converged
//
// Both modes first settle the process the same way (see settle_in() and
// settle()), and say on standard error where they ran.
//
// Build (gpu_run.sh does this):
/*
    nvcc -std=c++20 -O2 -arch=native -I labs/10_launch_overhead \
         autograder/tests/10_launch_overhead/bench/launch_bench.cu \
         <build>/labs/10_launch_overhead/liblab_10_launch_overhead.a -o launch_bench
*/

#include <cuda_runtime.h>
#include <pthread.h>
#include <sched.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness.h"
#include "launches.h"

namespace lo = launchlab::overhead;

// Launched for the first time by measure_first_launch.
__global__ void bench_first_launch_probe() {}

// Launched by settle() only.
__global__ void bench_settle_kernel() {}

namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorName(status) + ": " +
                             cudaGetErrorString(status));
  }
}

// The CPUs of a Linux cpulist, e.g. "0-7,16-23".
std::vector<int> parse_cpulist(const std::string& text) {
  std::vector<int> cpus;
  std::stringstream list(text);
  std::string range;
  while (std::getline(list, range, ',')) {
    if (range.empty() || !std::isdigit(static_cast<unsigned char>(range[0]))) continue;
    const std::size_t dash = range.find('-');
    const int first = std::stoi(range.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

// Before anything is measured, and before the CUDA context exists:
//  1. cudaDeviceScheduleSpin: a thread waiting in cudaStreamSynchronize spins
//     on the CPU instead of yielding it or sleeping, so that the end of the
//     wait is seen as soon as the GPU signals it, and not whenever the OS
//     scheduler next runs the thread;
//  2. the process on the CPUs next to the GPU (the GPU's PCI device lists
//     them in sysfs, local_cpulist), among those it may use, so that the
//     context's memory and the driver's threads, which are created next and
//     inherit the mask, are on the GPU's NUMA node;
//  3. the context, created now (cudaFree(nullptr));
//  4. then the measuring thread alone pinned to one of those CPUs (the last
//     one, the same in every run). Pinning the whole process to one CPU
//     (taskset -c N) would make the driver's own threads share the core with
//     the spinning thread.
void settle_in() {
  check(cudaSetDeviceFlags(cudaDeviceScheduleSpin), "cudaSetDeviceFlags(cudaDeviceScheduleSpin)");
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  char bus[32] = {};
  check(cudaDeviceGetPCIBusId(bus, sizeof bus, device), "cudaDeviceGetPCIBusId");
  std::string bus_id(bus);
  for (char& c : bus_id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string local_text;
  std::ifstream("/sys/bus/pci/devices/" + bus_id + "/local_cpulist") >> local_text;
  const std::vector<int> local = parse_cpulist(local_text);

  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) throw std::runtime_error("sched_getaffinity failed");
  std::vector<int> near;
  for (int cpu : local) {
    if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &allowed)) near.push_back(cpu);
  }
  if (near.empty()) {  // sysfs did not say, or none of those CPUs is ours: all of ours
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &allowed)) near.push_back(cpu);
    }
  }
  cpu_set_t process;
  CPU_ZERO(&process);
  for (int cpu : near) CPU_SET(cpu, &process);
  if (sched_setaffinity(0, sizeof process, &process) != 0) throw std::runtime_error("sched_setaffinity failed");

  check(cudaFree(nullptr), "cudaFree(nullptr) (creating the context)");
  unsigned flags = 0;
  check(cudaGetDeviceFlags(&flags), "cudaGetDeviceFlags");

  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(near.back(), &one);
  if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) {
    throw std::runtime_error("pthread_setaffinity_np failed");
  }
  std::fprintf(stderr,
               "launch_bench: GPU %s, local CPUs \"%s\", %zu of them usable; measuring thread on CPU %d; "
               "scheduling %s\n",
               bus_id.c_str(), local_text.c_str(), near.size(), near.back(),
               (flags & cudaDeviceScheduleMask) == cudaDeviceScheduleSpin ? "spin" : "NOT spin");
}

// One second of launches and waits, untimed, before the measurements: the
// CPU and the GPU leave their idle clocks, and the launch path is hot.
void settle() {
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 100; ++i) {
      bench_settle_kernel<<<1, 1, 0, stream>>>();
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (settling)");
    }
  }
  check(cudaGetLastError(), "bench_settle_kernel<<<1, 1>>>");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

lo::BenchConfig config(int items, int warmup, int min_trials, int max_trials, double target) {
  lo::BenchConfig c;
  c.warmup_trials = warmup;
  c.min_trials = min_trials;
  c.max_trials = max_trials;
  c.target_relative_error = target;
  c.items_per_trial = items;
  return c;
}

// The launch + synchronize latency: 20,000 untimed round trips after the
// settling second, then at least 50,000 timed ones (about half a second),
// more until the median's estimated relative error is at most 0.05%, at
// most 200,000. Every sample counts; none is dropped.
lo::BenchConfig latency_config() { return config(1, 20000, 50000, 200000, 0.0005); }

lo::Measurement row(const std::string& name, lo::Clock clock, std::size_t bytes, lo::Summary summary) {
  lo::Measurement m;
  m.name = name;
  m.clock = lo::clock_name(clock);
  m.param_bytes = bytes;
  m.summary = std::move(summary);
  return m;
}

int run_all() {
  std::vector<lo::Measurement> rows;
  // The first launch comes first: nothing has touched the probe kernel yet.
  const lo::FirstLaunch first =
      lo::measure_first_launch(reinterpret_cast<const void*>(&bench_first_launch_probe), latency_config());
  settle();
  rows.push_back(row("first_launch", lo::Clock::host, 0, lo::summarize(std::vector<double>{first.first_us})));
  rows.push_back(row("after_first_launch", lo::Clock::host, 0, first.later));
  for (lo::Clock clock : {lo::Clock::host, lo::Clock::cuda_events}) {
    rows.push_back(row("launch_latency", clock, 0, lo::measure_launch_latency(latency_config(), clock)));
    rows.push_back(row("launch_throughput", clock, 0,
                       lo::measure_launch_throughput(config(1000, 5, 30, 300, 0.002), clock)));
    for (int kernels : {1, 10, 100, 1000}) {
      rows.push_back(row("graph_" + std::to_string(kernels), clock, 0,
                         lo::measure_graph_launch(config(kernels, 20, 50, 2000, 0.002), clock)));
    }
  }
  for (std::size_t bytes : lo::kParamSizes) {
    rows.push_back(row("param_launch", lo::Clock::host, bytes,
                       lo::measure_param_launch(config(200, 5, 30, 300, 0.002), bytes)));
  }
  std::fputs(lo::to_csv(rows).c_str(), stdout);
  return 0;
}

int run_latency_only() {
  settle();
  const lo::Summary s = lo::measure_launch_latency(latency_config(), lo::Clock::host);
  std::printf("%.4f,%.4f,%.4f,%zu,%d\n", s.median, s.p10, s.p90, s.samples.size(), s.converged ? 1 : 0);
  // Drift within the run: the median of each tenth of the samples, in order.
  std::fprintf(stderr, "launch_bench: medians of the ten tenths of the %zu samples:", s.samples.size());
  const std::size_t tenth = s.samples.size() / 10;
  for (std::size_t k = 0; tenth > 0 && k < 10; ++k) {
    const std::span<const double> part(s.samples.data() + k * tenth, tenth);
    std::fprintf(stderr, " %.3f", lo::median(part));
  }
  std::fprintf(stderr, " us\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const bool all = argc == 2 && std::strcmp(argv[1], "--all") == 0;
    const bool latency_only = argc == 2 && std::strcmp(argv[1], "--latency-only") == 0;
    if (all || latency_only) settle_in();
    if (all) return run_all();
    if (latency_only) return run_latency_only();
    std::fprintf(stderr, "usage: %s --all | --latency-only\n", argv[0]);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "launch_bench: %s\n", e.what());
    return 1;
  }
}
