#include "fresh_process.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "launchlab/testing.h"

extern char** environ;

namespace launchlab::completion_tests {
namespace {

namespace fs = std::filesystem;
using completion::WaitMethod;
using completion::WaitSample;

constexpr const char* kMethodVar = "LAUNCHLAB_09_CHILD_METHOD";
constexpr const char* kTrialsVar = "LAUNCHLAB_09_CHILD_TRIALS";
constexpr const char* kKernelVar = "LAUNCHLAB_09_CHILD_KERNEL_NS";
constexpr const char* kOutVar = "LAUNCHLAB_09_CHILD_OUT";

// In the child: measure, write the result file, and leave without running any test.
class ChildEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* method_name = std::getenv(kMethodVar);
    const char* out_path = std::getenv(kOutVar);
    if (!method_name || !out_path) return;  // the parent: nothing to do here
    std::ofstream out(out_path);
    try {
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
    out.close();
    std::fflush(nullptr);
    _exit(0);
  }
};

[[maybe_unused]] ::testing::Environment* const kChild = ::testing::AddGlobalTestEnvironment(new ChildEnvironment);

}  // namespace

ChildResult measure_in_fresh_process(WaitMethod method, int trials, std::uint64_t kernel_ns) {
  ChildResult result;
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  if (!test) {
    result.error = "measure_in_fresh_process must run inside a test";
    return result;
  }
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) {
    result.error = "cannot find this test program (/proc/self/exe): " + error.message();
    return result;
  }
  testing::TempDir dir;
  const fs::path out = dir.path() / "samples.txt";

  // The child's environment: ours, without stale child variables, plus the request.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "LAUNCHLAB_09_CHILD_", 19) != 0) env_strings.emplace_back(*e);
  }
  env_strings.push_back(std::string(kMethodVar) + "=" + std::string(completion::method_name(method)));
  env_strings.push_back(std::string(kTrialsVar) + "=" + std::to_string(trials));
  env_strings.push_back(std::string(kKernelVar) + "=" + std::to_string(kernel_ns));
  env_strings.push_back(std::string(kOutVar) + "=" + out.string());
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string program = self.string();
  std::string filter = std::string("--gtest_filter=") + test->test_suite_name() + "." + test->name();
  char* argv[] = {program.data(), filter.data(), nullptr};

  int fds[2];
  if (pipe(fds) != 0) {
    result.error = "pipe failed";
    return result;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    result.error = "fork failed";
    return result;
  }
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[1]);
    execve(argv[0], argv, envp.data());
    _exit(127);
  }
  close(fds[1]);
  // Collect its output (for the failure message) until it ends, for 120 s at most.
  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  bool timed_out = false;
  std::array<char, 4096> buffer;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(std::min<long long>(left.count(), 1000))) <= 0) continue;
    const ssize_t got = read(fds[0], buffer.data(), buffer.size());
    if (got <= 0) break;
    if (output.size() < 20000) output.append(buffer.data(), static_cast<std::size_t>(got));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  auto with_output = [&](const std::string& what) {
    return what + "\nthe child's output:\n" + (output.size() > 3000 ? output.substr(output.size() - 3000) : output);
  };
  if (timed_out) {
    result.error = with_output("the child measuring " + std::string(completion::method_name(method)) +
                               " ran for 120 s and was stopped");
    return result;
  }
  std::ifstream in(out);
  if (!in) {
    result.error = with_output("the child measuring " + std::string(completion::method_name(method)) +
                               " wrote no result (exit status " + std::to_string(status) + ")");
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
  return result;
}

const ChildResult& measured(WaitMethod method) {
  static std::map<WaitMethod, ChildResult> cache;
  auto found = cache.find(method);
  if (found == cache.end()) found = cache.emplace(method, measure_in_fresh_process(method, kTrials, kKernelNs)).first;
  return found->second;
}

}  // namespace launchlab::completion_tests
