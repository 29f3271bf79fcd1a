#include "launchlab/testing.h"

#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace launchlab::testing {
namespace fs = std::filesystem;

std::optional<std::string> gpu_unavailable_reason() {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    return std::string("cudaGetDeviceCount failed: ") + cudaGetErrorName(status) + " (" +
           cudaGetErrorString(status) + ")";
  }
  if (count == 0) return std::string("the CUDA driver sees no device");
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
  const char* seed = std::getenv("LAUNCHLAB_SEED");
  if (!seed || !*seed) return fallback;
  return std::strtoull(seed, nullptr, 0);
}

fs::path nvcc() { return LAUNCHLAB_NVCC; }

fs::path test_data(std::string_view relative) {
  // The grader hands a sandboxed run a copy of the tests' data alone (no
  // test sources), at a path of its own.
  if (const char* data = std::getenv("LAUNCHLAB_TEST_DATA"); data && *data) return fs::path(data) / relative;
  return fs::path(LAUNCHLAB_TESTS_DIR) / relative;
}

CommandResult run_command(const std::vector<std::string>& argv, const fs::path& cwd) {
  if (argv.empty()) throw std::invalid_argument("run_command: empty argv");
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("run_command: pipe failed");
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("run_command: fork failed");
  if (pid == 0) {
    close(pipe_fds[0]);
    dup2(pipe_fds[1], STDOUT_FILENO);
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[1]);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  CommandResult result;
  std::array<char, 65536> buffer;
  ssize_t got;
  while ((got = read(pipe_fds[0], buffer.data(), buffer.size())) > 0) {
    result.output.append(buffer.data(), static_cast<std::size_t>(got));
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
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

}  // namespace launchlab::testing
