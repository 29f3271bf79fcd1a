#include "launchlab/testing.h"
#include "launchlab/transcript.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <typeindex>

extern char** environ;

namespace launchlab::testing {
namespace fs = std::filesystem;

std::optional<std::string> gpu_unavailable_reason() {
  // Without a driver the runtime blames the driver's version (cudaErrorInsufficientDriver).
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) return std::string("no NVIDIA driver or GPU found here");
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    return std::string("cudaGetDeviceCount failed: ") + cudaGetErrorName(status) + " (" +
           cudaGetErrorString(status) + ")";
  }
  if (count == 0) return std::string("no NVIDIA driver or GPU found here");
  return std::nullopt;
}

std::optional<fs::path> find_cuda_tool(std::string_view name) {
  fs::path beside_nvcc = fs::path(LAUNCHLAB_CUDA_BIN_DIR) / name;
  if (fs::exists(beside_nvcc)) return beside_nvcc;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (dir.empty()) continue;
      fs::path candidate = fs::path(dir) / name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return std::nullopt;
}

std::uint64_t secret_seed(std::uint64_t fallback) {
  // Whether or not a seed is set: the test's inputs follow it when one is.
  transcript_test_read_the_seed();
  const char* seed = std::getenv("LAUNCHLAB_SEED");
  if (!seed || !*seed) return fallback;
  return std::strtoull(seed, nullptr, 0);
}

std::mt19937_64 seeded_random(std::uint64_t fallback) {
  std::string test;
  if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
    test = std::string(info->test_suite_name()) + "." + info->name();
  }
  return std::mt19937_64(secret_seed(fallback) ^ std::hash<std::string>{}(test));
}

fs::path nvcc() { return LAUNCHLAB_NVCC; }

fs::path test_data(std::string_view relative) {
  // The grader hands a sandboxed run a copy of the tests' data alone (no
  // test sources), at a path of its own.
  if (const char* data = std::getenv("LAUNCHLAB_TEST_DATA"); data && *data) return fs::path(data) / relative;
  return fs::path(LAUNCHLAB_TESTS_DIR) / relative;
}

fs::path lab_material(std::string_view relative) {
  // The grader lays the committed labs' folders out beside the tests' data
  // (assemble_test_data), under labs/.
  if (const char* data = std::getenv("LAUNCHLAB_TEST_DATA"); data && *data) return fs::path(data) / "labs" / relative;
  return fs::path(LAUNCHLAB_LABS_DIR) / relative;
}

namespace {

// Starts argv (no shell; execvp when env is null, otherwise execve with env)
// in cwd, its standard output and error into one pipe, and collects them
// until it ends, or until limit runs out (then SIGKILL). The one place the
// tests' support starts a process.
FreshProcess spawn_and_collect(const std::vector<std::string>& argv, const fs::path& cwd,
                               std::vector<std::string>* env, std::optional<std::chrono::seconds> limit) {
  if (argv.empty()) throw std::invalid_argument("run_command: empty argv");
  auto c_strings = [](std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
  };
  std::vector<std::string> args = argv;
  std::vector<char*> args_c = c_strings(args);
  std::vector<char*> env_c;
  if (env) env_c = c_strings(*env);
  int fds[2];
  // Close-on-exec: a command another thread starts meanwhile must not hold
  // this pipe open, or this one's end of output would wait for that one's end.
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("run_command: pipe failed");
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("run_command: fork failed");
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[1]);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    if (env) execve(args_c[0], args_c.data(), env_c.data());
    else execvp(args_c[0], args_c.data());
    _exit(127);
  }
  close(fds[1]);
  FreshProcess result;
  std::array<char, 65536> buffer;
  while (true) {
    int wait_ms = -1;
    if (limit) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(start + *limit - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        result.timed_out = true;
        kill(pid, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left.count(), 1000));
    }
    pollfd pfd{fds[0], POLLIN, 0};
    if (poll(&pfd, 1, wait_ms) <= 0) continue;
    const ssize_t got = read(fds[0], buffer.data(), buffer.size());
    if (got <= 0) break;
    result.output.append(buffer.data(), static_cast<std::size_t>(got));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  result.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, const fs::path& cwd) {
  FreshProcess run = spawn_and_collect(argv, cwd, nullptr, std::nullopt);
  return CommandResult{run.exit_code, std::move(run.output)};
}

TempDir::TempDir() {
  std::random_device entropy;
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path candidate = fs::temp_directory_path() /
                         ("launchlab-test-" + std::to_string(getpid()) + "-" + std::to_string(entropy()));
    if (fs::create_directory(candidate)) {
      path_ = candidate;
      return;
    }
  }
  throw std::runtime_error("TempDir: could not create a temporary folder");
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

double median_of(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median_of: no values");
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string output_of(const std::vector<std::string>& argv, const fs::path& cwd) {
  CommandResult result = run_command(argv, cwd);
  if (result.exit_code != 0) {
    std::string command;
    for (const auto& a : argv) command += a + " ";
    throw std::runtime_error("command failed (exit " + std::to_string(result.exit_code) + "): " + command + "\n" +
                             result.output);
  }
  return std::move(result.output);
}

std::string collapse_spaces(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::string with_line_numbers(std::string_view text) {
  std::string out;
  std::size_t number = 0;
  for (const std::string& line : lines_of(text)) {
    std::string label = std::to_string(++number);
    out += std::string(label.size() < 4 ? 4 - label.size() : 0, ' ') + label + " | " + line + "\n";
  }
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

void write_file(const fs::path& path, std::string_view content) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  out << content;
}

const fs::path& work_dir() {
  static const TempDir dir;
  return dir.path();
}

namespace detail {

const void* made_once(const std::string& key, const std::type_info& type,
                      const std::function<std::shared_ptr<const void>()>& make) {
  // A lock for each key, held while it is made: two keys are made side by
  // side, and a make() that asks for another key waits on that key's alone.
  struct Slot {
    std::mutex making;
    std::shared_ptr<const void> value;
  };
  static std::mutex slots_mutex;
  static std::map<std::pair<std::type_index, std::string>, std::shared_ptr<Slot>> slots;
  std::shared_ptr<Slot> slot;
  {
    std::lock_guard lock(slots_mutex);
    std::shared_ptr<Slot>& kept = slots[std::make_pair(std::type_index(type), key)];
    if (!kept) kept = std::make_shared<Slot>();
    slot = kept;
  }
  std::lock_guard making(slot->making);
  if (!slot->value) slot->value = make();
  return slot->value.get();
}

}  // namespace detail

void make_side_by_side(const std::vector<std::function<void()>>& makes) {
  std::vector<std::thread> threads;
  for (const auto& make : makes) {
    threads.emplace_back([&make] {
      try {
        make();
      } catch (...) {
      }
    });
  }
  for (auto& thread : threads) thread.join();
}

const MadeFile& file_made_once(const std::vector<std::string>& argv, const fs::path& output) {
  std::string key;
  for (const auto& arg : argv) key += arg + '\0';
  return made_once(key, [&] {
    MadeFile file;
    file.output = output_of(argv, work_dir());
    file.path = output.is_absolute() ? output : work_dir() / output;
    file.content = read_file(file.path);
    return file;
  });
}

const MadeFile& nvcc_once(const fs::path& source, const std::vector<std::string>& options,
                          const std::string& output_name) {
  std::vector<std::string> argv = {nvcc().string()};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {source.string(), "-o", (work_dir() / output_name).string()});
  return file_made_once(argv, work_dir() / output_name);
}

std::vector<std::byte> bytes_of(std::string_view text) {
  std::vector<std::byte> bytes(text.size());
  if (!text.empty()) std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

std::string FreshProcess::how_it_ended() const {
  if (timed_out) return "ran past its time limit and was stopped";
  if (exit_code > 128) return "was killed by signal " + std::to_string(exit_code - 128);
  return "exited with " + std::to_string(exit_code);
}

namespace {

// Starts this test program again with `arguments`, the environment of this
// process less every entry that starts with one of `unset`, plus `set`.
FreshProcess run_this_program(const std::vector<std::string>& arguments, const std::vector<std::string>& unset,
                              const std::vector<std::string>& set, std::chrono::seconds limit) {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot find this test program (/proc/self/exe): " + error.message());
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string_view entry(*e);
    const bool dropped = std::any_of(unset.begin(), unset.end(),
                                     [&](const std::string& prefix) { return entry.substr(0, prefix.size()) == prefix; });
    if (!dropped) env.emplace_back(entry);
  }
  env.insert(env.end(), set.begin(), set.end());
  std::vector<std::string> argv = {self.string()};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  return spawn_and_collect(argv, {}, &env, limit);
}

}  // namespace

FreshProcess run_fresh_process(const std::vector<std::string>& unset, const std::vector<std::string>& set,
                               std::chrono::seconds limit) {
  // Should the hook not take over, the program runs no test at all.
  return run_this_program({"--gtest_filter=-*"}, unset, set, limit);
}

namespace {

// Set in the fresh process of outcome_without_a_gpu(): "<Suite.Name>#<call>",
// the test to run again and which of its calls to make.
constexpr const char* kWithoutAGpu = "LAUNCHLAB_WITHOUT_A_GPU";
constexpr std::string_view kWithoutAGpuMark = "launchlab-outcome-without-a-gpu: ";

std::string current_test_name() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? std::string(info->test_suite_name()) + "." + info->name() : std::string();
}

// How many calls of outcome_without_a_gpu() the current test has made.
int next_call_without_a_gpu(const std::string& test) {
  static std::string counted_test;
  static int calls = 0;
  if (test != counted_test) {
    counted_test = test;
    calls = 0;
  }
  return ++calls;
}

}  // namespace

std::string outcome_without_a_gpu(const std::function<std::string()>& outcome) {
  const std::string test = current_test_name();
  const std::string call = test + "#" + std::to_string(next_call_without_a_gpu(test));
  if (const char* wanted = std::getenv(kWithoutAGpu)) {
    // The fresh process: the calls before the one wanted only pass by.
    if (call != wanted) return {};
    const std::string text = outcome();
    std::printf("\n%s%s\n", kWithoutAGpuMark.data(), nlohmann::json(text).dump(-1, ' ', false,
                                                                           nlohmann::json::error_handler_t::replace).c_str());
    std::fflush(nullptr);
    std::_Exit(0);
  }
  const std::string variable = std::string(kWithoutAGpu) + "=";
  const FreshProcess run = run_this_program({"--gtest_filter=" + test}, {"CUDA_VISIBLE_DEVICES=", variable},
                                            {"CUDA_VISIBLE_DEVICES=", variable + call}, std::chrono::seconds(60));
  const std::size_t mark = run.output.rfind(kWithoutAGpuMark);
  if (mark != std::string::npos) {
    const std::size_t end = run.output.find('\n', mark);
    const nlohmann::json text = nlohmann::json::parse(
        run.output.substr(mark + kWithoutAGpuMark.size(), end == std::string::npos ? end : end - mark - kWithoutAGpuMark.size()),
        nullptr, false);
    if (text.is_string()) return text.get<std::string>();
  }
  return "the call did not finish in a process without a GPU: that process " + run.how_it_ended();
}

std::string outcome_in_a_forked_child(const std::function<std::string()>& outcome, std::chrono::seconds limit) {
  int ends[2];
  if (pipe(ends) != 0) throw std::runtime_error("the test could not make a pipe for a forked child");
  std::fflush(nullptr);  // what this process holds unwritten is written once, by this process
  const pid_t child = fork();
  if (child < 0) {
    close(ends[0]);
    close(ends[1]);
    throw std::runtime_error("the test could not fork a child");
  }
  if (child == 0) {
    close(ends[0]);
    std::string text;
    try {
      text = outcome();
    } catch (...) {
      text = "the forked child's own call threw";
    }
    for (std::size_t sent = 0; sent < text.size();) {
      const ssize_t wrote = write(ends[1], text.data() + sent, text.size() - sent);
      if (wrote <= 0) break;
      sent += static_cast<std::size_t>(wrote);
    }
    std::_Exit(0);  // no exit handlers, no buffers of this process's written again
  }
  close(ends[1]);
  std::string text;
  bool timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd readable{ends[0], POLLIN, 0};
    if (poll(&readable, 1, static_cast<int>(left.count())) <= 0) continue;
    char buffer[4096];
    const ssize_t got = read(ends[0], buffer, sizeof buffer);
    if (got <= 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  if (timed_out) kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  close(ends[0]);
  FreshProcess ended;
  ended.timed_out = timed_out;
  ended.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  if (!timed_out && ended.exit_code == 0 && !text.empty()) return text;
  return "the call did not finish in a forked child: the child " + ended.how_it_ended();
}

namespace {

class InsteadOfTests : public ::testing::EmptyTestEventListener {
 public:
  InsteadOfTests(const char* value, int (*child)(const char*)) : value_(value), child_(child) {}
  void OnTestProgramStart(const ::testing::UnitTest&) override {
    const int code = child_(value_);
    std::fflush(nullptr);
    std::_Exit(code);
  }

 private:
  const char* value_;
  int (*child_)(const char*);
};

}  // namespace

bool run_instead_of_tests(const char* variable, int (*child)(const char* value)) {
  const char* value = std::getenv(variable);
  if (value == nullptr) return false;
  ::testing::UnitTest::GetInstance()->listeners().Append(new InsteadOfTests(value, child));
  return true;
}

}  // namespace launchlab::testing
