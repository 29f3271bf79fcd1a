// measure_completion: runs this lab's measurements and prints them as CSV
// rows, for the chapter's figures.
//
//   measure_completion info                          the run's facts, as `# key: value` lines
//   measure_completion waits METHOD TRIALS KERNEL_NS method,trial,wake_ns,round_trip_ns rows
//   measure_completion copies TRIALS                 memory,direction,bytes,trial,seconds rows,
//                                                    4 KiB to 1 GiB in steps of 4x
//
// `waits` measures one method per process: the scheduling flags of a CUDA
// context are fixed when it is created (see measure_waits in completion.h).
// Build it against the lab's library, yours (liblab_09_completion.a) or the
// reference solution's (liblab_09_completion_solution.a), from the
// repository root after `./launchlab test 09`:
//
//   nvcc -std=c++20 -O2 -I labs/09_completion chapters/09_completion/measure_completion.cpp
//        build/default/labs/09_completion/liblab_09_completion.a -o measure_completion

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "completion.h"

namespace lab = launchlab::completion;

namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(status));
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line.empty() ? "(not reported)" : line;
}

int info() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  int runtime = 0, driver = 0;
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  std::cout << "# gpu: " << prop.name << "\n";
  std::cout << "# driver: " << first_line("/proc/driver/nvidia/version") << "\n";
  std::cout << "# cuda_driver_api: " << driver / 1000 << "." << driver % 1000 / 10 << "\n";
  std::cout << "# cuda_runtime: " << runtime / 1000 << "." << runtime % 1000 / 10 << "\n";
  std::cout << "# async_engine_count: " << prop.asyncEngineCount << "\n";
  std::cout << "# host_native_atomics: " << prop.hostNativeAtomicSupported << "\n";
  char bus_id[32] = "";
  check(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device), "cudaDeviceGetPCIBusId");
  std::cout << "# pci_bus_id: " << bus_id << "\n";
  if (const auto link = lab::read_pcie_link(device)) {
    std::cout << "# link_max: PCIe " << link->gigatransfers_per_second << " GT/s x" << link->lanes << "\n";
    std::cout << "# link_max_bytes_per_second: " << lab::pcie_bytes_per_second(*link) << "\n";
  } else {
    std::cout << "# link_max: (not reported)\n";
  }
  return 0;
}

int waits(const std::string& name, int trials, std::uint64_t kernel_ns) {
  const auto method = lab::method_from_name(name);
  if (!method) throw std::invalid_argument("no wait method named " + name);
  const std::vector<lab::WaitSample> samples = lab::measure_waits(*method, trials, kernel_ns);
  for (std::size_t k = 0; k < samples.size(); ++k) {
    std::cout << name << "," << k << "," << samples[k].wake_ns << "," << samples[k].round_trip_ns << "\n";
  }
  return 0;
}

int copies(int trials) {
  for (lab::HostMemory memory : {lab::HostMemory::Pageable, lab::HostMemory::Pinned}) {
    for (lab::Direction direction : {lab::Direction::HostToDevice, lab::Direction::DeviceToHost}) {
      for (std::size_t bytes = 4096; bytes <= (std::size_t{1} << 30); bytes *= 4) {
        const std::vector<double> seconds = lab::time_copies(memory, direction, bytes, trials);
        for (std::size_t t = 0; t < seconds.size(); ++t) {
          std::cout << (memory == lab::HostMemory::Pinned ? "pinned" : "pageable") << ","
                    << (direction == lab::Direction::HostToDevice ? "h2d" : "d2h") << "," << bytes << "," << t
                    << "," << seconds[t] << "\n";
        }
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 1 && args[0] == "info") return info();
    if (args.size() == 4 && args[0] == "waits") return waits(args[1], std::stoi(args[2]), std::stoull(args[3]));
    if (args.size() == 2 && args[0] == "copies") return copies(std::stoi(args[1]));
  } catch (const std::exception& e) {
    std::cerr << "measure_completion: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "usage: measure_completion info | waits METHOD TRIALS KERNEL_NS | copies TRIALS\n";
  return 2;
}
