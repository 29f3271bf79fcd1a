#include "support.h"

#include <gtest/gtest.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "driver.h"
#include "launchlab/testing.h"

extern char** environ;

namespace launchlab::driver_tests {
namespace fs = std::filesystem;

namespace {

const fs::path& work_dir() {
  static launchlab::testing::TempDir dir;
  return dir.path();
}

std::vector<std::byte> bytes_of(const std::string& text) {
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

}  // namespace

namespace {

std::mutex compile_mutex;
std::map<std::string, Compiled> compiled_files;

// Runs a tool once per key, and keeps the file it wrote. The caller holds compile_mutex.
const Compiled& produce(const std::string& key, const fs::path& out, const std::vector<std::string>& argv) {
  if (auto it = compiled_files.find(key); it != compiled_files.end()) return it->second;
  const auto result = launchlab::testing::run_command(argv);
  if (result.exit_code != 0) {
    std::string command;
    for (const auto& a : argv) command += a + " ";
    throw std::runtime_error("command failed (exit " + std::to_string(result.exit_code) + "): " + command + "\n" +
                             result.output);
  }
  Compiled c{out, bytes_of(launchlab::testing::read_file(out))};
  return compiled_files.emplace(key, std::move(c)).first->second;
}

std::string tool(const char* name) {
  auto path = launchlab::testing::find_cuda_tool(name);
  if (!path) throw std::runtime_error(std::string(name) + " is not installed beside nvcc");
  return path->string();
}

fs::path kernel_source(const std::string& source) {
  return launchlab::testing::test_data("05_driver_and_modules/kernels/" + source);
}

const Compiled& compile_locked(const std::string& source, const std::string& kind, const std::string& arch) {
  const std::string extension = kind == "-ptx" ? ".ptx" : kind == "-fatbin" ? ".fatbin" : ".cubin";
  const fs::path out = work_dir() / (fs::path(source).stem().string() + "_nvcc_" + arch + extension);
  return produce("nvcc " + source + " " + kind + " " + arch, out,
                 {launchlab::testing::nvcc().string(), kind, "-arch=" + arch, kernel_source(source).string(), "-o",
                  out.string()});
}

}  // namespace

const Compiled& compile(const std::string& source, const std::string& kind, const std::string& arch) {
  std::lock_guard<std::mutex> lock(compile_mutex);
  return compile_locked(source, kind, arch);
}

const Compiled& ptx75(const std::string& source) { return compile(source, "-ptx", "compute_75"); }

const Compiled& assemble(const std::string& source, int sm) {
  const Compiled& ptx = ptx75(source);
  std::lock_guard<std::mutex> lock(compile_mutex);
  const std::string arch = "sm_" + std::to_string(sm);
  const fs::path out = work_dir() / (fs::path(source).stem().string() + "_" + arch + ".cubin");
  return produce("ptxas " + source + " " + arch, out, {tool("ptxas"), "-arch=" + arch, ptx.path.string(), "-o", out.string()});
}

const Compiled& fatbin(const std::string& source, int sm) {
  const Compiled& cubin = assemble(source, sm);
  const Compiled& ptx = ptx75(source);
  std::lock_guard<std::mutex> lock(compile_mutex);
  const fs::path out = work_dir() / (fs::path(source).stem().string() + "_sm_" + std::to_string(sm) + ".fatbin");
  return produce("fatbinary " + source + " " + std::to_string(sm), out,
                 {tool("fatbinary"), "--64", "--create=" + out.string(),
                  "--image3=kind=elf,sm=" + std::to_string(sm) + ",file=" + cubin.path.string(),
                  "--image3=kind=ptx,sm=75,file=" + ptx.path.string()});
}

std::vector<std::byte> nul_terminated(const std::vector<std::byte>& bytes) {
  std::vector<std::byte> image = bytes;
  image.push_back(std::byte{0});
  return image;
}

std::string error_name(CUresult status) {
  const char* name = nullptr;
  if (cuGetErrorName(status, &name) == CUDA_SUCCESS && name != nullptr) return name;
  return "CUresult " + std::to_string(static_cast<int>(status));
}

std::string device_arch() {
  CUdevice device = 0;
  int major = 0, minor = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
      cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS) {
    throw std::runtime_error("device_arch: the driver could not say the device's compute capability");
  }
  return std::to_string(major * 10 + minor);
}

// ---- cold starts in fresh processes -------------------------------------------

double TrialOutcome::value(const std::string& key) const {
  auto it = values.find(key);
  if (it == values.end()) throw std::runtime_error("the cold start reported no " + key);
  return it->second;
}

namespace {

// This program's own path, to start it again.
std::string self_path() {
  std::vector<char> buffer(4096);
  const ssize_t n = readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
  if (n <= 0) throw std::runtime_error("cannot read /proc/self/exe");
  return std::string(buffer.data(), static_cast<std::size_t>(n));
}

// The environment of this process without the variables a trial sets, plus
// those the trial asks for.
std::vector<std::string> trial_environment(const TrialSetup& setup) {
  static const std::vector<std::string> managed = {"CUDA_MODULE_LOADING=", "CUDA_CACHE_DISABLE=", "CUDA_CACHE_PATH=",
                                                   "CUDA_FORCE_PTX_JIT=", std::string(kColdStartVariable) + "="};
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    bool skip = false;
    for (const auto& prefix : managed) skip = skip || entry.rfind(prefix, 0) == 0;
    if (!skip) env.push_back(entry);
  }
  if (setup.module_loading) env.push_back("CUDA_MODULE_LOADING=" + *setup.module_loading);
  if (setup.cache_disabled) env.push_back("CUDA_CACHE_DISABLE=1");
  if (setup.cache_path) env.push_back("CUDA_CACHE_PATH=" + setup.cache_path->string());
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

TrialOutcome run_trial(const TrialSetup& setup) {
  TrialOutcome outcome;
  // Should the cold start not take over, the program runs no test at all.
  std::vector<std::string> args = {self_path(), "--gtest_filter=-*"};
  std::vector<std::string> env = trial_environment(setup);
  env.push_back(std::string(kColdStartVariable) + "=" + setup.image.string());
  std::vector<char*> argv = c_strings(args);
  std::vector<char*> envp = c_strings(env);

  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("run_trial: pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);

  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    throw std::runtime_error(std::string("run_trial: posix_spawn failed: ") + std::strerror(spawned));
  }
  std::string output;
  char buffer[4096];
  ssize_t got;
  while ((got = read(pipe_fds[0], buffer, sizeof buffer)) > 0) output.append(buffer, static_cast<std::size_t>(got));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  outcome.process_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  std::istringstream lines(output);
  std::string line;
  bool reported = false;
  while (std::getline(lines, line)) {
    if (line.rfind("cold_start ", 0) != 0) continue;
    std::istringstream words(line.substr(11));
    std::string word;
    while (words >> word) {
      const auto eq = word.find('=');
      if (eq != std::string::npos) outcome.values[word.substr(0, eq)] = std::stod(word.substr(eq + 1));
    }
    reported = true;
  }
  outcome.ok = reported && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!outcome.ok) {
    outcome.error = "the cold start in a fresh process (" + setup.image.filename().string() + ", CUDA_MODULE_LOADING=" +
                    setup.module_loading.value_or("(unset)") + ") " +
                    (WIFEXITED(status) ? "exited with " + std::to_string(WEXITSTATUS(status))
                                       : "was killed by signal " + std::to_string(WTERMSIG(status))) +
                    "; it printed:\n" + output;
  }
  return outcome;
}

namespace {

// The fresh process's side: one cold start, one line on stdout.
int cold_start_child(const char* image_argument) {
  try {
    if (auto why = launchlab::driver::load_driver_library()) {
      std::printf("error %s\n", why->c_str());
      return 2;
    }
    const fs::path image_path = image_argument;
    std::vector<std::byte> image = bytes_of(launchlab::testing::read_file(image_path));
    if (image_path.extension() == ".ptx") image = nul_terminated(image);
    const launchlab::driver::ColdStart r = launchlab::driver::cold_start(image, kKernel, kValue);
    std::printf(
        "cold_start init_ms=%.6f context_ms=%.6f load_ms=%.6f get_function_ms=%.6f first_launch_ms=%.6f "
        "second_launch_ms=%.6f jit_wall_ms=%.6f loading_mode=%d functions=%u loaded_after_load=%u "
        "loaded_after_get=%u result=%d\n",
        r.init_ms, r.context_ms, r.load_ms, r.get_function_ms, r.first_launch_ms, r.second_launch_ms,
        static_cast<double>(r.jit_wall_ms), static_cast<int>(r.loading_mode), r.after_load.functions,
        r.after_load.loaded, r.after_get_function.loaded, r.result);
    return 0;
  } catch (const std::exception& e) {
    std::printf("error %s\n", e.what());
    return 2;
  }
}

// CUDA_MODULE_LOADING and the compute cache are read when a process
// initializes CUDA, so each cold start needs a process of its own. run_trial
// starts this program again with kColdStartVariable set and no test to run;
// this listener does the cold start as the test program starts (after main
// has begun, so every static object exists) and ends the process there.
class ColdStartChild : public ::testing::EmptyTestEventListener {
 public:
  void OnTestProgramStart(const ::testing::UnitTest&) override {
    const int code = cold_start_child(std::getenv(kColdStartVariable));
    std::fflush(stdout);
    std::_Exit(code);
  }
};

[[maybe_unused]] const bool cold_start_child_registered = [] {
  if (std::getenv(kColdStartVariable) == nullptr) return false;
  ::testing::UnitTest::GetInstance()->listeners().Append(new ColdStartChild);
  return true;
}();

}  // namespace

}  // namespace launchlab::driver_tests
