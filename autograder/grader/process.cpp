#include "launchlab/grader/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace launchlab::grader {

bool sandboxed() {
  const char* flag = std::getenv("LAUNCHLAB_SANDBOX");
  return getpid() == 1 || (flag && std::string(flag) == "1");
}

std::string RunOutcome::describe(const RunLimits& limits) const {
  if (timed_out) {
    return "timed out after " + std::to_string(limits.timeout.count() / 1000) + " s and was stopped";
  }
  if (flooded) {
    return "wrote more than " + std::to_string(limits.output_limit >> 20) + " MiB of output and was stopped";
  }
  if (stopped_by_watch) return *stopped_by_watch;
  if (signal) {
    return "was killed by signal " + std::to_string(*signal) + " (" + strsignal(*signal) + ")";
  }
  if (exit_code) return "exited with status " + std::to_string(*exit_code);
  return "ended in an unknown way";
}

namespace {

class OutputKeeper {
 public:
  explicit OutputKeeper(std::size_t budget) : head_budget_(budget / 2), tail_budget_(budget - budget / 2) {}

  void append(const char* data, std::size_t size) {
    total_ += size;
    std::size_t to_head = std::min(size, head_budget_ - std::min(head_budget_, head_.size()));
    head_.append(data, to_head);
    if (to_head < size) {
      tail_.append(data + to_head, size - to_head);
      if (tail_.size() > 2 * tail_budget_) tail_.erase(0, tail_.size() - tail_budget_);
    }
  }

  std::string kept() const {
    if (tail_.size() <= tail_budget_) return head_ + tail_;
    return head_ + "\n[... " + std::to_string(total_ - head_.size() - tail_budget_) +
           " bytes left out ...]\n" + tail_.substr(tail_.size() - tail_budget_);
  }

  std::size_t total() const { return total_; }

 private:
  std::size_t head_budget_;
  std::size_t tail_budget_;
  std::string head_;
  std::string tail_;
  std::size_t total_ = 0;
};

// Places fd at exactly target in the child; dup2 makes it inheritable across
// exec, while the originals (close-on-exec) vanish there.
void place_fd(int fd, int target) { dup2(fd, target); }

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                             const std::vector<std::string>& extra_env, const RunLimits& limits,
                             int output_fd, int report_fd) {
  setpgid(0, 0);
  // Everything the child keeps is first lifted above the fds it is given, so
  // that placing one never overwrites another.
  int output_high = fcntl(output_fd, F_DUPFD_CLOEXEC, 10);
  int report_high = report_fd >= 0 ? fcntl(report_fd, F_DUPFD_CLOEXEC, 10) : -1;
  int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  dup2(output_high, STDOUT_FILENO);
  dup2(output_high, STDERR_FILENO);
  if (report_high >= 0) {
    place_fd(report_high, 3);
    setenv("LAUNCHLAB_TRANSCRIPT_FD", "3", 1);
  }
  if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  rlimit file_size{limits.file_size_limit, limits.file_size_limit};
  setrlimit(RLIMIT_FSIZE, &file_size);
  if (limits.max_processes > 0) {
    rlimit processes{limits.max_processes, limits.max_processes};
    setrlimit(RLIMIT_NPROC, &processes);
  }
  for (const auto& entry : extra_env) putenv(const_cast<char*>(entry.c_str()));
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  const char message[] = "launchlab: could not start the program\n";
  (void)!write(STDERR_FILENO, message, sizeof message - 1);
  _exit(127);
}

}  // namespace

RunOutcome run_limited(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                       const std::vector<std::string>& extra_env, const RunLimits& limits,
                       const RunWatch& watch, ReportChannel* channel) {
  if (argv.empty()) throw std::invalid_argument("run_limited: empty argv");
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  int report[2] = {-1, -1};
  if (channel && pipe2(report, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    exec_child(argv, cwd, extra_env, limits, fds[1], report[1]);
  }
  setpgid(pid, pid);  // also in the parent, so the group exists before any kill
  close(fds[1]);
  if (channel) close(report[1]);
  bool report_open = channel != nullptr;

  RunOutcome outcome;
  OutputKeeper keeper(limits.output_kept);
  int status = 0;
  bool reaped = false;
  bool pipe_open = true;
  std::optional<std::chrono::steady_clock::time_point> reaped_at;
  auto elapsed = [&] { return std::chrono::steady_clock::now() - start; };
  auto kill_group = [&] { kill(-pid, SIGKILL); };

  std::array<char, 65536> buffer;
  while (true) {
    std::string_view fresh;
    if (!reaped && waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      reaped_at = std::chrono::steady_clock::now();
    }
    // Once the program has exited, a process it left behind may still hold
    // the pipe open: give the output a moment to drain, then stop waiting.
    if (reaped && ((!pipe_open && !report_open) ||
                   std::chrono::steady_clock::now() - *reaped_at > std::chrono::milliseconds(500))) {
      break;
    }
    if (!reaped && elapsed() > limits.timeout) {
      outcome.timed_out = true;
      kill_group();
    }
    if (pipe_open || report_open) {
      pollfd pfds[2] = {{pipe_open ? fds[0] : -1, POLLIN, 0}, {report_open ? report[0] : -1, POLLIN, 0}};
      int ready = poll(pfds, 2, 100);
      if (ready > 0 && pfds[1].revents) {
        ssize_t got = read(report[0], buffer.data(), buffer.size());
        if (got > 0) {
          std::size_t room = channel->limit - std::min(channel->limit, channel->report.size());
          channel->report.append(buffer.data(), std::min(room, static_cast<std::size_t>(got)));
          if (static_cast<std::size_t>(got) > room) channel->overflowed = true;
        } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
          report_open = false;
        }
      }
      if (ready > 0 && pfds[0].revents) {
        ssize_t got = read(fds[0], buffer.data(), buffer.size());
        if (got > 0) {
          keeper.append(buffer.data(), static_cast<std::size_t>(got));
          fresh = std::string_view(buffer.data(), static_cast<std::size_t>(got));
          if (keeper.total() > limits.output_limit && !outcome.flooded && !reaped) {
            outcome.flooded = true;
            kill_group();
          }
        } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
          pipe_open = false;
        }
      }
    } else if (!reaped) {
      poll(nullptr, 0, 20);
    }
    // The watch sees every piece of output, also what is read after the
    // program ended (its last words, a crash's progress line among them);
    // only a program still running can be stopped by it.
    if (watch && (!reaped || !fresh.empty())) {
      double seconds = std::chrono::duration<double>(elapsed()).count();
      auto reason = watch(fresh, seconds);
      if (reason && !reaped && !outcome.stopped_by_watch && !outcome.timed_out && !outcome.flooded) {
        outcome.stopped_by_watch = *reason;
        kill_group();
      }
    }
  }
  // Whatever the program started is ended with it; sandboxed, the grader
  // also ends what left the group (setsid) and reaps the orphans that came
  // to it (kill(-1) spares the caller and init).
  kill_group();
  if (sandboxed()) {
    // Repeated, since a process forking in a loop can slip through one sweep;
    // kill(-1, 0) says whether any process is left to signal.
    for (int sweep = 0; sweep < 100 && kill(-1, 0) == 0; ++sweep) {
      kill(-1, SIGKILL);
      if (!reaped) reaped = waitpid(pid, &status, 0) == pid;
      while (waitpid(-1, nullptr, WNOHANG) > 0) {
      }
      usleep(10000);
    }
  }
  close(fds[0]);
  if (channel) close(report[0]);

  outcome.seconds = std::chrono::duration<double>(elapsed()).count();
  outcome.output = keeper.kept();
  outcome.output_bytes = keeper.total();
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

}  // namespace launchlab::grader
