// record_trace: runs this lab's experiments on the GPU and prints their data
// as CSV, with the facts of the run as `# key: value` lines on top. The
// chapter's figures and the lab's committed traces were made with it.
//
//   record_trace vadd         traced_vadd<<<4096, 256>>> on 2^20 floats
//   record_trace spin         traced_spin<<<3.5 waves, 256>>>, 20 us per block
//   record_trace divergence   branchy under each Split, 15 timed launches each
//
// Build it against the lab's library, yours (liblab_08_on_the_sm.a) or the
// reference solution's (liblab_08_on_the_sm_solution.a), from the
// repository root after `./launchlab test 08`:
//
//   nvcc -std=c++20 -O2 -I labs/08_on_the_sm chapters/08_on_the_sm/record_trace.cpp
//        build/default/labs/08_on_the_sm/liblab_08_on_the_sm.a -o record_trace

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "divergence.h"
#include "trace.h"

namespace lab = launchlab::on_the_sm;

namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(status));
}

// The kernel module's version, from its line in /proc ("NVRM version: NVIDIA
// UNIX ... Kernel Module ... 580.159.04 ..."): the first word made of digits
// and dots with two dots in it. The CUDA driver API's number where there is none.
std::string driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string word;
  while (in >> word) {
    const bool version_like = word.find_first_not_of("0123456789.") == std::string::npos &&
                              std::count(word.begin(), word.end(), '.') == 2;
    if (version_like) return word;
  }
  int version = 0;
  cudaDriverGetVersion(&version);
  return "CUDA driver API " + std::to_string(version);
}

using Meta = std::vector<std::pair<std::string, std::string>>;

Meta device_meta(const std::string& command) {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  int runtime = 0;
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  return {
      {"gpu", prop.name},
      {"driver", driver_version()},
      {"cuda_runtime", std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10)},
      {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
      {"sms", std::to_string(prop.multiProcessorCount)},
      {"max_threads_per_sm", std::to_string(prop.maxThreadsPerMultiProcessor)},
      {"max_blocks_per_sm", std::to_string(prop.maxBlocksPerMultiProcessor)},
      {"command", command},
  };
}

unsigned sm_count() {
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  return static_cast<unsigned>(sms);
}

// How many blocks of this size the runtime lets onto one SM at once.
unsigned blocks_per_sm(const void* kernel, int threads) {
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return static_cast<unsigned>(per_sm);
}

// What the runtime says about one kernel at one block size.
void add_kernel_meta(Meta& meta, const void* kernel, int threads) {
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
  meta.emplace_back("active_blocks_per_sm", std::to_string(blocks_per_sm(kernel, threads)));
  meta.emplace_back("registers_per_thread", std::to_string(attributes.numRegs));
}

int record_vadd(const std::string& command) {
  const unsigned blocks = 4096, threads = 256;
  lab::TraceFile trace;
  trace.meta = device_meta(command);
  trace.meta.emplace_back("kernel", "traced_vadd<<<4096, 256>>> on 2^20 floats");
  add_kernel_meta(trace.meta, reinterpret_cast<const void*>(&lab::traced_vadd), threads);
  lab::trace_vadd(blocks, threads);  // the first launch loads the module: not the one recorded
  trace.records = lab::trace_vadd(blocks, threads);
  lab::write_trace_csv(std::cout, trace);
  return 0;
}

int record_spin(const std::string& command) {
  const unsigned threads = 256;
  const std::uint64_t spin_ns = 20'000;
  lab::TraceFile trace;
  trace.meta = device_meta(command);
  add_kernel_meta(trace.meta, reinterpret_cast<const void*>(&lab::traced_spin), threads);
  const unsigned sms = sm_count();
  const unsigned per_sm = blocks_per_sm(reinterpret_cast<const void*>(&lab::traced_spin), threads);
  const unsigned blocks = sms * per_sm * 7 / 2;  // three and a half waves
  trace.meta.emplace_back("kernel", "traced_spin<<<" + std::to_string(blocks) + ", 256>>>(20000 ns): 3.5 x " +
                                        std::to_string(sms) + " SMs x " + std::to_string(per_sm) +
                                        " blocks per SM");
  lab::trace_spin(blocks, threads, spin_ns);  // warm-up, not recorded
  trace.records = lab::trace_spin(blocks, threads, spin_ns);
  lab::write_trace_csv(std::cout, trace);
  return 0;
}

int record_divergence(const std::string& command) {
  const unsigned blocks = sm_count() * blocks_per_sm(reinterpret_cast<const void*>(&lab::branchy), 256) * 2;
  const int iterations = 16384, trials = 15;
  Meta meta = device_meta(command);
  add_kernel_meta(meta, reinterpret_cast<const void*>(&lab::branchy), 256);
  meta.emplace_back("kernel", "branchy<<<" + std::to_string(blocks) + ", 256>>>(split, 16384 iterations)");
  for (const auto& [key, value] : meta) std::cout << "# " << key << ": " << value << "\n";
  std::cout << "split,trial,ms\n";
  const std::pair<lab::Split, const char*> splits[] = {
      {lab::Split::None, "none"}, {lab::Split::BetweenWarps, "between_warps"}, {lab::Split::InsideWarps, "inside_warps"}};
  for (const auto& [split, name] : splits) {
    const std::vector<double> ms = lab::time_branchy(split, blocks, 256, iterations, trials);
    for (std::size_t t = 0; t < ms.size(); ++t) std::cout << name << "," << t << "," << ms[t] << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc == 2 ? argv[1] : "";
  const std::string command = "record_trace " + what;
  try {
    if (what == "vadd") return record_vadd(command);
    if (what == "spin") return record_spin(command);
    if (what == "divergence") return record_divergence(command);
  } catch (const std::exception& e) {
    std::cerr << "record_trace " << what << ": " << e.what() << "\n";
    return 1;
  }
  std::cerr << "usage: record_trace vadd|spin|divergence > data.csv\n";
  return 2;
}
