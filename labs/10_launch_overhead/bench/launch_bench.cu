// launch_bench: the measurements behind chapter 10's figures, made with the
// lab's own code (built with the solution by autograder/gpu-run.sh, or from a learner's
// files). Not part of the tests.
//
//   launch_bench --all            every measurement, as CSV on standard output
//   launch_bench --latency-only   the launch + synchronize latency of one run, one CSV line:
//                                 median_us,p10_us,p90_us,trials,converged,tenths_min_us,tenths_max_us
//                                 (the last two: the smallest and largest median of the ten
//                                 tenths of the samples, taken in order)
//   launch_bench --drift SECONDS  the same round trip for SECONDS seconds, as CSV: the
//                                 median of each half second, to see how it moves with time
//
// Every mode first settles the process the same way (see settle_in() and
// settle()), and says on standard error where it ran and how long each
// measurement took.
//
// Build (autograder/gpu-run.sh 10 does this):
/*
    nvcc -std=c++20 -O2 -arch=native -I labs/10_launch_overhead \
         labs/10_launch_overhead/bench/launch_bench.cu \
         <build>/labs/10_launch_overhead/liblab_10_launch_overhead.a -o launch_bench
*/

#include <cuda_runtime.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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
//     one, the same in every run), which it returns. Pinning the whole
//     process to one CPU (taskset -c N) would make the driver's own threads
//     share the core with the spinning thread.
int settle_in() {
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
  return near.back();
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

lo::BenchConfig config(int items, int warmup, int min_trials, int max_trials, double target,
                       int check_every) {
  return {.warmup_trials = warmup, .min_trials = min_trials, .max_trials = max_trials,
          .target_relative_error = target, .items_per_trial = items, .check_every = check_every};
}

// The launch + synchronize latency: 20,000 untimed round trips after the
// settling second, then at least 1,000,000 timed ones, more (checked every
// 50,000) until the median's estimated relative error is at most 0.05%, at
// most 1,500,000. Every sample counts; none is dropped.
//
// Why so many, when the stop rule is met long before: on the H200 virtual
// machine the chapter's figures come from, the median of half a second of
// round trips wanders by several percent from one half second to the next
// (launch_bench --drift shows it). The relative error of harness.h assumes
// independent samples and cannot see that; only a run long enough to span
// many of those swings (a million round trips are about ten seconds there)
// gives a median that the next run repeats.
lo::BenchConfig latency_config() { return config(1, 20000, 1000000, 1500000, 0.0005, 50000); }

// The later launches of measure_first_launch: only there to compare with the first.
lo::BenchConfig after_first_config() { return config(1, 1000, 50000, 100000, 0.001, 10000); }

std::size_t samples_of(const lo::Summary& s) { return s.samples.size(); }
std::size_t samples_of(const lo::FirstLaunch& f) { return 1 + f.later.samples.size(); }

// Runs a measurement and reports on standard error how long it took and how
// many samples it made.
template <class Measure>
auto timed(const std::string& what, Measure measure) {
  const auto began = std::chrono::steady_clock::now();
  auto result = measure();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - began;
  std::fprintf(stderr, "launch_bench: %s: %zu samples in %.1f s\n", what.c_str(), samples_of(result),
               took.count());
  return result;
}

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
  const lo::FirstLaunch first = timed("first_launch", [] {
    return lo::measure_first_launch(reinterpret_cast<const void*>(&bench_first_launch_probe),
                                    after_first_config());
  });
  settle();
  rows.push_back(row("first_launch", lo::Clock::host, 0, lo::summarize(std::vector<double>{first.first_us})));
  rows.push_back(row("after_first_launch", lo::Clock::host, 0, first.later));
  for (lo::Clock clock : {lo::Clock::host, lo::Clock::cuda_events}) {
    const std::string on = std::string(" (") + lo::clock_name(clock) + ")";
    rows.push_back(row("launch_latency", clock, 0, timed("launch_latency" + on, [&] {
                         return lo::measure_launch_latency(latency_config(), clock);
                       })));
    rows.push_back(row("launch_throughput", clock, 0, timed("launch_throughput" + on, [&] {
                         return lo::measure_launch_throughput(config(1000, 5, 30, 300, 0.002, 1), clock);
                       })));
    for (int kernels : {1, 10, 100, 1000}) {
      const std::string name = "graph_" + std::to_string(kernels);
      // A graph of one kernel is a trial of a few microseconds: check rarely.
      const int check_every = kernels < 100 ? 100 : 1;
      rows.push_back(row(name, clock, 0, timed(name + on, [&] {
                           return lo::measure_graph_launch(config(kernels, 20, 50, 2000, 0.002, check_every),
                                                           clock);
                         })));
    }
  }
  for (std::size_t bytes : lo::kParamSizes) {
    const std::string what = "param_launch " + std::to_string(bytes) + " bytes";
    rows.push_back(row("param_launch", lo::Clock::host, bytes, timed(what, [&] {
                         return lo::measure_param_launch(config(200, 5, 30, 300, 0.002, 1), bytes);
                       })));
  }
  std::fputs(lo::to_csv(rows).c_str(), stdout);
  return 0;
}

int run_latency_only() {
  settle();
  const lo::Summary s = timed("launch_latency (host)", [] {
    return lo::measure_launch_latency(latency_config(), lo::Clock::host);
  });
  // Drift within the run: the median of each tenth of the samples, in order.
  std::vector<double> tenths;
  const std::size_t tenth = s.samples.size() / 10;
  for (std::size_t k = 0; tenth > 0 && k < 10; ++k) {
    tenths.push_back(lo::median(std::span<const double>(s.samples.data() + k * tenth, tenth)));
  }
  if (tenths.empty()) throw std::runtime_error("fewer than ten samples");
  std::fprintf(stderr, "launch_bench: medians of the ten tenths of the %zu samples:", s.samples.size());
  for (double m : tenths) std::fprintf(stderr, " %.3f", m);
  std::fprintf(stderr, " us\n");
  const auto [low, high] = std::minmax_element(tenths.begin(), tenths.end());
  std::printf("%.4f,%.4f,%.4f,%zu,%d,%.4f,%.4f\n", s.median, s.p10, s.p90, s.samples.size(), s.converged ? 1 : 0,
              *low, *high);
  return 0;
}

// The time the hypervisor kept this virtual CPU from running ("steal", the
// eighth figure of its line in /proc/stat), in milliseconds; 0 on a machine
// that does not count it.
double steal_ms(int cpu) {
  std::ifstream stat("/proc/stat");
  const std::string name = "cpu" + std::to_string(cpu);
  for (std::string line; std::getline(stat, line);) {
    std::istringstream fields(line);
    std::string first;
    fields >> first;
    if (first != name) continue;
    unsigned long long value = 0;
    for (int i = 0; i < 8 && fields >> value; ++i) {
    }
    return static_cast<double>(value) * 1000.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  return 0;
}

// The round trip of measure_launch_latency, written out here so that each
// half second can be cut from the others, and each round trip in two: the
// launch call, until <<<>>> returns, and the wait, until
// cudaStreamSynchronize returns. CSV, one line per half second:
// window,start_s,median_us,launch_call_us,wait_us,samples,steal_ms
// (the medians of the round trip, of its launch call and of its wait).
int run_drift(double seconds, int cpu) {
  settle();
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  std::printf("window,start_s,median_us,launch_call_us,wait_us,samples,steal_ms\n");
  using clock = std::chrono::steady_clock;
  const auto began = clock::now();
  std::vector<double> round_trips, calls, waits;
  for (int w = 0; w * 0.5 < seconds; ++w) {
    const auto until = began + std::chrono::duration<double>((w + 1) * 0.5);
    const double steal_before = steal_ms(cpu);
    round_trips.clear();
    calls.clear();
    waits.clear();
    for (auto now = clock::now(); now < until;) {
      bench_settle_kernel<<<1, 1, 0, stream>>>();
      const auto launched = clock::now();
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      const auto after = clock::now();
      round_trips.push_back(std::chrono::duration<double, std::micro>(after - now).count());
      calls.push_back(std::chrono::duration<double, std::micro>(launched - now).count());
      waits.push_back(std::chrono::duration<double, std::micro>(after - launched).count());
      now = after;
    }
    check(cudaGetLastError(), "bench_settle_kernel<<<1, 1>>>");
    std::printf("%d,%.1f,%.4f,%.4f,%.4f,%zu,%.0f\n", w, w * 0.5, lo::median(round_trips), lo::median(calls),
                lo::median(waits), round_trips.size(), steal_ms(cpu) - steal_before);
  }
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const bool all = argc == 2 && std::strcmp(argv[1], "--all") == 0;
    const bool latency_only = argc == 2 && std::strcmp(argv[1], "--latency-only") == 0;
    double drift_seconds = 0;
    if (argc == 3 && std::strcmp(argv[1], "--drift") == 0) {
      char* end = nullptr;
      drift_seconds = std::strtod(argv[2], &end);
      if (*end != '\0' || !(drift_seconds > 0 && drift_seconds <= 600)) drift_seconds = 0;
    }
    if (!all && !latency_only && drift_seconds == 0) {
      std::fprintf(stderr, "usage: %s --all | --latency-only | --drift SECONDS (up to 600)\n", argv[0]);
      return 2;
    }
    const int cpu = settle_in();
    if (all) return run_all();
    if (latency_only) return run_latency_only();
    return run_drift(drift_seconds, cpu);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "launch_bench: %s\n", e.what());
    return 1;
  }
}
