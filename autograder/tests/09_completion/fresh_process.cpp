#include "fresh_process.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "launchlab/testing.h"

namespace launchlab::completion_tests {
namespace {

namespace lt = launchlab::testing;
using completion::WaitMethod;
using completion::WaitSample;

constexpr const char* kMethodVar = "LAUNCHLAB_09_CHILD_METHOD";
constexpr const char* kTrialsVar = "LAUNCHLAB_09_CHILD_TRIALS";
constexpr const char* kKernelVar = "LAUNCHLAB_09_CHILD_KERNEL_NS";
constexpr const char* kOutVar = "LAUNCHLAB_09_CHILD_OUT";

// In the child: measure, write the result file, and leave without running any test.
int measure_child(const char* out_path) {
  std::ofstream out(out_path);
  try {
    const char* method_name = std::getenv(kMethodVar) ? std::getenv(kMethodVar) : "";
    const auto method = completion::method_from_name(method_name);
    if (!method) throw std::runtime_error(std::string("no wait method named ") + method_name);
    const int trials = std::atoi(std::getenv(kTrialsVar) ? std::getenv(kTrialsVar) : "0");
    const std::uint64_t kernel_ns = std::strtoull(std::getenv(kKernelVar) ? std::getenv(kKernelVar) : "0", nullptr, 10);
    const std::vector<WaitSample> samples = completion::measure_waits(*method, trials, kernel_ns);
    unsigned flags = 0;
    const cudaError_t status = cudaGetDeviceFlags(&flags);
    if (status != cudaSuccess) throw std::runtime_error(std::string("cudaGetDeviceFlags: ") + cudaGetErrorString(status));
    out << "flags " << flags << "\n";
    for (const WaitSample& s : samples) out << "sample " << s.wake_ns << " " << s.round_trip_ns << "\n";
  } catch (const std::exception& e) {
    std::string what = e.what();
    for (char& c : what) c = c == '\n' ? ' ' : c;
    out << "error measure_waits threw: " << what << "\n";
  }
  return 0;
}

[[maybe_unused]] const bool kChild = lt::run_instead_of_tests(kOutVar, measure_child);

}  // namespace

ChildResult measure_in_fresh_process(WaitMethod method, int trials, std::uint64_t kernel_ns) {
  ChildResult result;
  const std::string method_text(completion::method_name(method));
  try {
    lt::TempDir dir;
    const auto out = dir.path() / "samples.txt";
    const lt::FreshProcess child =
        lt::run_fresh_process({"LAUNCHLAB_09_CHILD_"},
                              {std::string(kMethodVar) + "=" + method_text, std::string(kTrialsVar) + "=" + std::to_string(trials),
                               std::string(kKernelVar) + "=" + std::to_string(kernel_ns), std::string(kOutVar) + "=" + out.string()});
    auto with_output = [&](const std::string& what) {
      const std::string& output = child.output;
      return what + "\nthe child's output:\n" + (output.size() > 3000 ? output.substr(output.size() - 3000) : output);
    };
    if (child.timed_out) {
      result.error = with_output("the child measuring " + method_text + " ran for 120 s and was stopped");
      return result;
    }
    std::ifstream in(out);
    if (!in) {
      result.error = with_output("the child measuring " + method_text + " wrote no result (it " + child.how_it_ended() + ")");
      return result;
    }
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string kind;
      fields >> kind;
      if (kind == "flags") {
        fields >> result.device_flags;
      } else if (kind == "sample") {
        WaitSample s;
        fields >> s.wake_ns >> s.round_trip_ns;
        result.samples.push_back(s);
      } else if (kind == "error") {
        result.error = line.substr(6);
      }
    }
  } catch (const std::exception& e) {
    result.error = std::string("the child measuring ") + method_text + " could not be started: " + e.what();
  }
  return result;
}

const ChildResult& measured(WaitMethod method) {
  return lt::made_once(std::string(completion::method_name(method)),
                       [&] { return measure_in_fresh_process(method, kTrials, kKernelNs); });
}

}  // namespace launchlab::completion_tests
