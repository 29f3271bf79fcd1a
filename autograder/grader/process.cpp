#include "launchlab/grader/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace fs = std::filesystem;

namespace launchlab::grader {

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
  if (disk_exceeded) {
    return "wrote " + std::to_string(disk_growth >> 20) + " MiB to disk, more than the " +
           std::to_string(limits.disk_limit >> 20) + " MiB allowed";
  }
  if (exit_code) return "exited with status " + std::to_string(*exit_code);
  return "ended in an unknown way";
}

namespace {

// Every child this module waits for, by pid: reap_orphans leaves them to
// their waiters, end_all_runs_for_exit ends them. An entry lives from fork until the
// child is reaped, so its pid (and process group) cannot be reused meanwhile.
struct LiveChild {
  SandboxKind kind = SandboxKind::none;
  std::optional<SandboxUser> user;       // set for a run as a dedicated user without bubblewrap
  std::vector<fs::path> shared_temporary;
};
std::mutex children_mutex;
std::map<pid_t, LiveChild> live_children;

// Set when the grading ends while runs are in progress: a run ended then
// must not look like a program that failed, so run_limited no longer
// returns (the thread that ended the grading exits the process).
std::atomic<bool> grading_ending{false};

void wait_for_the_end_if_ending() {
  while (grading_ending) pause();
}

pid_t fork_registered(const LiveChild& child) {
  std::lock_guard lock(children_mutex);
  pid_t pid = fork();
  if (pid > 0) live_children[pid] = child;
  return pid;
}

void reap_registered(pid_t pid, int* status) {
  std::lock_guard lock(children_mutex);
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
  live_children.erase(pid);
}

// Runs `work` in a forked helper that has become `user`, for at most
// `limit`: the sandbox's own processes can stop (SIGSTOP) the helper, never
// keep the grader waiting.
bool run_as(const SandboxUser& user, const std::function<void()>& work, std::chrono::milliseconds limit) {
  pid_t helper = fork_registered({});
  if (helper < 0) return false;
  if (helper == 0) {
    if (setgroups(0, nullptr) != 0 || setgid(user.gid) != 0 || setuid(user.uid) != 0 || getuid() != user.uid ||
        geteuid() != user.uid) {
      _exit(2);
    }
    work();
    _exit(0);
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  siginfo_t info{};
  while (waitid(P_PID, helper, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != helper &&
         std::chrono::steady_clock::now() < deadline) {
    usleep(2000);
  }
  bool finished = info.si_pid == helper;
  if (!finished) kill(helper, SIGKILL);
  int status = 0;
  reap_registered(helper, &status);
  return finished && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The fields after "Name:" in /proc/<pid>/status that the sweeps read.
struct ProcessStatus {
  bool zombie = false;
  uid_t real = 0, effective = 0, saved = 0;
  pid_t parent = 0;
  std::size_t threads = 1;
};

template <typename Visit>
void for_each_process(Visit visit) {
  DIR* proc = opendir("/proc");
  if (!proc) return;
  while (dirent* entry = readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    std::ifstream file(std::string("/proc/") + entry->d_name + "/status");
    ProcessStatus status;
    bool read_uids = false;
    std::string line;
    while (std::getline(file, line)) {
      if (line.rfind("State:", 0) == 0) {
        status.zombie = line.find('Z') != std::string::npos || line.find('X') != std::string::npos;
      } else if (line.rfind("Uid:", 0) == 0) {
        std::istringstream(line.substr(4)) >> status.real >> status.effective >> status.saved;
        read_uids = true;
      } else if (line.rfind("Threads:", 0) == 0) {
        std::istringstream(line.substr(8)) >> status.threads;
      } else if (line.rfind("PPid:", 0) == 0) {
        std::istringstream(line.substr(5)) >> status.parent;
      }
    }
    if (read_uids && !visit(static_cast<pid_t>(std::atoi(entry->d_name)), status)) break;
  }
  closedir(proc);
}

// Whether a process runs as uid (real, effective or saved: the ones kill(-1)
// from that user reaches); zombies count only when asked for, and never this
// process's own, which its caller reaps (a run's child is kept a zombie until
// then, so that its process group's id stays its own).
bool has_processes(uid_t uid, bool zombies_too) {
  bool found = false;
  const pid_t self = getpid();
  for_each_process([&](pid_t, const ProcessStatus& status) {
    found = (zombies_too || !status.zombie) && !(status.zombie && status.parent == self) &&
            (status.real == uid || status.effective == uid || status.saved == uid);
    return !found;
  });
  return found;
}

// RLIMIT_NPROC counts every task (thread) of the real user.
std::size_t tasks_of(uid_t uid) {
  std::size_t tasks = 0;
  for_each_process([&](pid_t, const ProcessStatus& status) {
    if (status.real == uid) tasks += status.threads;
    return true;
  });
  return tasks;
}

// The dedicated users a run may take, one run at a time each: a run's sweep
// ends everything its user runs. The threads of this grader find a user free
// in users_in_use; other graders on the host (two `launchlab grade` side by
// side, a class's gradings, the selftests under ctest -j) hold a lock file per
// user for as long as their run lasts. Without it a run's sweep killed
// another grader's test mid-run, which then read as "killed by signal 9".
std::mutex users_mutex;
std::condition_variable user_freed;
std::set<uid_t> users_in_use;

class UserLease {
 public:
  UserLease(const std::vector<SandboxUser>& pool, bool wait) {
    std::unique_lock lock(users_mutex);
    while (!take_a_free_user(pool)) {
      if (!wait) throw SandboxUsersBusy(who_holds(pool));
      // Another grader's run ends without a word to this one: look again.
      user_freed.wait_for(lock, std::chrono::milliseconds(100));
    }
    users_in_use.insert(user_->uid);
  }
  ~UserLease() {
    host_lock_.reset();
    {
      std::lock_guard lock(users_mutex);
      users_in_use.erase(user_->uid);
    }
    user_freed.notify_all();
  }
  UserLease(const UserLease&) = delete;
  UserLease& operator=(const UserLease&) = delete;
  const SandboxUser& user() const { return *user_; }

 private:
  bool take_a_free_user(const std::vector<SandboxUser>& pool) {
    for (const auto& user : pool) {
      if (users_in_use.count(user.uid)) continue;
      auto host_lock = std::make_unique<FileLock>(sandbox_user_lock(user), false);
      if (!host_lock->held()) continue;
      user_ = user;
      host_lock_ = std::move(host_lock);
      return true;
    }
    return false;
  }

  // One line per user: taken by a run of this process, or the lock's holder.
  static std::string who_holds(const std::vector<SandboxUser>& pool) {
    std::string lines;
    for (const auto& user : pool) {
      const fs::path lock_file = sandbox_user_lock(user);
      const std::string holder = users_in_use.count(user.uid) ? "a run of this process" : lock_holder(lock_file);
      lines += (lines.empty() ? "" : "; ") + user.name + " is taken (" + lock_file.string() + ", held by " +
               (holder.empty() ? "a process that has just let it go" : holder) + ")";
    }
    return lines;
  }

  std::optional<SandboxUser> user_;
  std::unique_ptr<FileLock> host_lock_;
};

// Bytes a folder takes on disk (allocated blocks; links are not followed).
std::uintmax_t disk_usage(const fs::path& folder) {
  std::uintmax_t bytes = 0;
  struct stat info {};
  if (lstat(folder.c_str(), &info) == 0) bytes += static_cast<std::uintmax_t>(info.st_blocks) * 512;
  std::error_code error;
  for (fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, error), end;
       !error && it != end; it.increment(error)) {
    if (lstat(it->path().c_str(), &info) == 0) bytes += static_cast<std::uintmax_t>(info.st_blocks) * 512;
  }
  return bytes;
}

// A writable place of a run as a dedicated user becomes that user's. lchown:
// a link the previous run left there is changed itself, never its target.
void hand_to(const SandboxUser& user, const fs::path& folder) {
  auto take = [&](const fs::path& path) {
    struct stat info {};
    if (lstat(path.c_str(), &info) == 0 && (info.st_uid != user.uid || info.st_gid != user.gid)) {
      if (lchown(path.c_str(), user.uid, user.gid) != 0) {
        throw std::runtime_error("could not hand " + path.string() + " to " + user.name + ": " + std::strerror(errno));
      }
    }
  };
  take(folder);
  std::error_code error;
  for (fs::recursive_directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    take(it->path());
  }
}

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

// Everything the child needs, made before fork: after it, the child only
// makes system calls.
struct ChildPlan {
  std::string program;
  bool search_path = true;
  std::vector<std::string> argv;
  std::vector<std::string> environment;
  std::string cwd;  // chdir before exec (bubblewrap changes folder itself)
  std::optional<SandboxUser> user;
  rlim_t file_size = RLIM_INFINITY;
  rlim_t data = RLIM_INFINITY;
  rlim_t processes = RLIM_INFINITY;
  std::optional<cpu_set_t> cpus;
  int niceness = 0;
  pid_t grader = 0;
  // execve's arrays, pointing into argv and environment.
  std::vector<char*> argv_pointers;
  std::vector<char*> environment_pointers;

  void point() {
    for (auto& arg : argv) argv_pointers.push_back(arg.data());
    argv_pointers.push_back(nullptr);
    for (auto& entry : environment) environment_pointers.push_back(entry.data());
    environment_pointers.push_back(nullptr);
  }
};

[[noreturn]] void fail_in_child(const char* message, int status) {
  (void)!write(STDERR_FILENO, message, std::strlen(message));
  _exit(status);
}

// An out-of-memory kill takes the run, not the grader. Unprivileged, only
// raising is allowed, and the grader's non-dumpable state (which the child
// inherits until exec) makes /proc/self root's: dumpable for this one write.
void raise_oom_score() {
  const int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
  if (dumpable == 0) prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (fd >= 0) {
    (void)!write(fd, "1000", 4);
    close(fd);
  }
  if (dumpable == 0) prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

[[noreturn]] void exec_child(const ChildPlan& plan, int output_fd, int report_fd) {
  setpgid(0, 0);
  // Everything the child keeps is first lifted above the fds it is given, so
  // that placing one never overwrites another; dup2 makes the placed ones
  // inheritable across exec, while the originals (close-on-exec) vanish there.
  int output_high = fcntl(output_fd, F_DUPFD_CLOEXEC, 10);
  int report_high = report_fd >= 0 ? fcntl(report_fd, F_DUPFD_CLOEXEC, 10) : -1;
  int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  dup2(output_high, STDOUT_FILENO);
  dup2(output_high, STDERR_FILENO);
  if (report_high >= 0) dup2(report_high, 3);
  raise_oom_score();
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  rlimit file_size{plan.file_size, plan.file_size};
  setrlimit(RLIMIT_FSIZE, &file_size);
  rlimit data{plan.data, plan.data};
  setrlimit(RLIMIT_DATA, &data);
  rlimit processes{plan.processes, plan.processes};
  setrlimit(RLIMIT_NPROC, &processes);
  if (plan.cpus && sched_setaffinity(0, sizeof(cpu_set_t), &*plan.cpus) != 0) {
    fail_in_child("launchlab: could not keep the run to its cores\n", 126);
  }
  if (plan.niceness > 0) {
    errno = 0;
    if (nice(plan.niceness) == -1 && errno != 0) fail_in_child("launchlab: could not lower the run's priority\n", 126);
  }
  if (plan.user) {
    // Groups first (setgroups and setgid need root), then the user; then
    // make sure none of root is left.
    const uid_t uid = plan.user->uid;
    const gid_t gid = plan.user->gid;
    if (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
      fail_in_child("launchlab: could not become the sandbox user\n", 126);
    }
    uid_t real, effective, saved;
    gid_t real_group, effective_group, saved_group;
    getresuid(&real, &effective, &saved);
    getresgid(&real_group, &effective_group, &saved_group);
    if (real != uid || effective != uid || saved != uid || real_group != gid || effective_group != gid ||
        saved_group != gid || getgroups(0, nullptr) != 0 || setuid(0) == 0) {
      fail_in_child("launchlab: the sandbox user kept privileges\n", 126);
    }
  }
  if (!plan.cwd.empty() && chdir(plan.cwd.c_str()) != 0) fail_in_child("launchlab: could not enter the run's folder\n", 126);
  // Cleared by the credential change above, so set after it; the grader may
  // have ended between fork and here.
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() != plan.grader) _exit(125);
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);

  if (plan.search_path) {
    execvpe(plan.program.c_str(), plan.argv_pointers.data(), plan.environment_pointers.data());
  } else {
    execve(plan.program.c_str(), plan.argv_pointers.data(), plan.environment_pointers.data());
  }
  fail_in_child("launchlab: could not start the program\n", 127);
}

std::string variable_name(const std::string& entry) { return entry.substr(0, entry.find('=')); }

}  // namespace

bool passes_to_sandbox(std::string_view entry) {
  const std::string_view name = entry.substr(0, entry.find('='));
  static constexpr std::string_view kNames[] = {
      "PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "LD_LIBRARY_PATH",
      // Which GPU, and how CUDA loads modules (lab 05 measures it).
      "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING",
      // What the course's tests read.
      "LAUNCHLAB_OPEN_GPU_DOC", "LAUNCHLAB_COLD_START_TRIALS"};
  return name.starts_with("LC_") || std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

namespace {

// The environment of a run, with `overrides` ("NAME=value") replacing what
// it had under those names, and defaults replacing it where the overrides
// do not name them. A sandboxed run starts from the allow-list of the
// grader's environment (passes_to_sandbox), never from all of it: the
// instructor's tokens and paths stay out of reach; the grader's own tools
// get all of it.
std::vector<std::string> child_environment(const std::vector<std::string>& overrides,
                                           const std::vector<std::string>& defaults, bool report_channel,
                                           bool sandboxed) {
  std::set<std::string> named;
  for (const auto& entry : overrides) named.insert(variable_name(entry));
  named.insert("LAUNCHLAB_TRANSCRIPT_FD");
  std::set<std::string> replaced = named;
  for (const auto& entry : defaults) replaced.insert(variable_name(entry));
  std::vector<std::string> environment;
  for (char** entry = environ; *entry; ++entry) {
    if (replaced.count(variable_name(*entry))) continue;
    if (sandboxed && !passes_to_sandbox(*entry)) continue;
    environment.emplace_back(*entry);
  }
  environment.insert(environment.end(), overrides.begin(), overrides.end());
  for (const auto& entry : defaults) {
    if (!named.count(variable_name(entry))) environment.push_back(entry);
  }
  if (report_channel) environment.push_back("LAUNCHLAB_TRANSCRIPT_FD=3");
  return environment;
}

rlim_t limit_or_infinity(std::uintmax_t value) { return value == 0 ? RLIM_INFINITY : static_cast<rlim_t>(value); }

}  // namespace

bool end_processes_of(const SandboxUser& user, const std::vector<fs::path>& shared_temporary) {
  if (geteuid() != 0 || user.uid == 0) return false;
  // kill(-1) reaches every process the caller may signal: from a helper that
  // is that user, exactly that user's processes. A process forking in a loop
  // can slip through one sweep, so it is repeated until none is left.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool clear = false;
  while (!clear && std::chrono::steady_clock::now() < deadline) {
    run_as(user, [] {
      for (int sweep = 0; sweep < 3; ++sweep) kill(-1, SIGKILL);
    }, std::chrono::seconds(1));
    reap_orphans();
    clear = !has_processes(user.uid, false);
    if (!clear) usleep(5000);
  }
  // Zombies still count against the next run's RLIMIT_NPROC: give whoever
  // reaps them (this process as a subreaper, or init) a moment.
  const auto reaped_by = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (clear && has_processes(user.uid, true) && std::chrono::steady_clock::now() < reaped_by) {
    reap_orphans();
    usleep(2000);
  }
  if (clear && !shared_temporary.empty()) {
    // As that user, so that nothing it linked there leads anywhere else.
    run_as(user, [&] {
      for (const auto& folder : shared_temporary) {
        std::error_code error;
        for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
          struct stat info {};
          if (lstat(it->path().c_str(), &info) == 0 && info.st_uid == user.uid) {
            std::error_code ignored;
            fs::remove_all(it->path(), ignored);
          }
        }
      }
    }, std::chrono::seconds(30));
  }
  return clear;
}

void reap_orphans() {
  // Orphans come to this process only as PID 1 or as a subreaper.
  int subreaper = 0;
  prctl(PR_GET_CHILD_SUBREAPER, &subreaper, 0, 0, 0);
  if (getpid() != 1 && !subreaper) return;
  std::lock_guard lock(children_mutex);
  const pid_t self = getpid();
  DIR* proc = opendir("/proc");
  if (!proc) return;
  while (dirent* entry = readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    std::ifstream file(std::string("/proc/") + entry->d_name + "/stat");
    std::string stat;
    std::getline(file, stat);
    // "pid (name) state ppid ...": the name may hold anything but the last ')'.
    auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    pid_t parent = 0;
    std::istringstream(stat.substr(close + 1)) >> state >> parent;
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (state == 'Z' && parent == self && !live_children.count(pid)) waitpid(pid, nullptr, WNOHANG);
  }
  closedir(proc);
}

void end_all_runs_for_exit() {
  grading_ending = true;
  std::vector<std::pair<pid_t, LiveChild>> running;
  {
    std::lock_guard lock(children_mutex);
    running.assign(live_children.begin(), live_children.end());
  }
  for (const auto& [pid, child] : running) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
  }
  for (const auto& [pid, child] : running) {
    if (child.user) end_processes_of(*child.user, child.shared_temporary);
  }
}

RunOutcome run_limited(const std::vector<std::string>& argv, const fs::path& cwd,
                       const std::vector<std::string>& extra_env, const RunLimits& limits,
                       const RunWatch& watch, ReportChannel* channel) {
  return run_limited(argv, cwd, extra_env, limits, Sandbox{}, watch, channel);
}

RunOutcome run_limited(const std::vector<std::string>& argv, const fs::path& cwd,
                       const std::vector<std::string>& extra_env, const RunLimits& limits,
                       const Sandbox& sandbox, const RunWatch& watch, ReportChannel* channel) {
  if (argv.empty()) throw std::invalid_argument("run_limited: empty argv");
  if (sandbox.uses_user() && sandbox.users.empty()) {
    throw std::invalid_argument("run_limited: sandbox " + std::string(to_string(sandbox.kind)) + " without a user");
  }
  if (sandbox.uses_bubblewrap() && sandbox.bwrap.empty()) {
    throw std::invalid_argument("run_limited: sandbox " + std::string(to_string(sandbox.kind)) + " without bwrap");
  }
  for (const auto& bind : sandbox.binds) {
    if (sandbox.kind != SandboxKind::none && !fs::exists(bind.source)) {
      throw std::invalid_argument("run_limited: the bind " + bind.source.string() + " does not exist");
    }
  }
  wait_for_the_end_if_ending();
  std::optional<UserLease> lease;
  if (sandbox.uses_user()) lease.emplace(sandbox.users, sandbox.wait_for_user);

  ChildPlan plan;
  plan.grader = getpid();
  plan.argv = argv;
  std::vector<std::string> defaults;
  if (sandbox.uses_bubblewrap()) {
    plan.argv = bubblewrap_command(sandbox, cwd, argv);
    defaults = {"HOME=/tmp", "TMPDIR=/tmp"};
  } else {
    plan.cwd = cwd.string();
    if (lease) defaults = {"HOME=" + lease->user().home.string()};
  }
  plan.program = plan.argv.front();
  plan.search_path = plan.program.find('/') == std::string::npos;
  plan.environment = child_environment(extra_env, defaults, channel != nullptr, sandbox.kind != SandboxKind::none);
  plan.point();
  if (lease) plan.user = lease->user();
  if (!limits.cpus.empty()) plan.cpus = cpu_set_of(limits.cpus);
  plan.niceness = std::clamp(limits.niceness, 0, 19);
  plan.file_size = limit_or_infinity(limits.file_size_limit);
  plan.data = limit_or_infinity(limits.memory_limit);
  if (limits.max_processes > 0) {
    // A dedicated user runs nothing else; the grader's own user may. (Root
    // ignores the limit, except in a user namespace of bubblewrap's.)
    plan.processes = lease ? limits.max_processes : tasks_of(getuid()) + limits.max_processes;
  }
  std::vector<fs::path> writable;
  if (sandbox.kind != SandboxKind::none) {
    for (const auto& bind : sandbox.binds) {
      if (bind.writable) writable.push_back(bind.source);
    }
  }
  if (lease) {
    for (const auto& folder : writable) hand_to(lease->user(), folder);
  }
  std::uintmax_t disk_before = 0;
  if (limits.disk_limit > 0) {
    for (const auto& folder : writable) disk_before += disk_usage(folder);
  }

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  int report[2] = {-1, -1};
  if (channel && pipe2(report, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  LiveChild registered{sandbox.kind, std::nullopt, {}};
  if (sandbox.kind == SandboxKind::user) {
    registered.user = lease->user();
    registered.shared_temporary = sandbox.shared_temporary;
  }
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = fork_registered(registered);
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    exec_child(plan, fds[1], report[1]);
  }
  setpgid(pid, pid);  // also in the parent, so the group exists before any kill
  close(fds[1]);
  if (channel) close(report[1]);
  bool report_open = channel != nullptr;

  RunOutcome outcome;
  OutputKeeper keeper(limits.output_kept);
  bool exited = false;
  bool pipe_open = true;
  std::optional<std::chrono::steady_clock::time_point> exited_at;
  auto elapsed = [&] { return std::chrono::steady_clock::now() - start; };
  // The child stays a zombie (WNOWAIT) until the end: its pid, and so its
  // process group's id, cannot be taken by another process while it is
  // killed by that id.
  auto kill_group = [&] { kill(-pid, SIGKILL); };

  std::array<char, 65536> buffer;
  while (true) {
    std::string_view fresh;
    siginfo_t info{};
    if (!exited && waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) {
      exited = true;
      exited_at = std::chrono::steady_clock::now();
    }
    // Once the program has exited, a process it left behind may still hold
    // the pipe open: give the output a moment to drain, then stop waiting.
    if (exited && ((!pipe_open && !report_open) ||
                   std::chrono::steady_clock::now() - *exited_at > std::chrono::milliseconds(500))) {
      break;
    }
    if (!exited && elapsed() > limits.timeout) {
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
          if (keeper.total() > limits.output_limit && !outcome.flooded && !exited) {
            outcome.flooded = true;
            kill_group();
          }
        } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
          pipe_open = false;
        }
      }
    } else if (!exited) {
      poll(nullptr, 0, 20);
    }
    // The watch sees every piece of output, also what is read after the
    // program ended (its last words, a crash's progress line among them);
    // only a program still running can be stopped by it.
    if (watch && (!exited || !fresh.empty())) {
      double seconds = std::chrono::duration<double>(elapsed()).count();
      auto reason = watch(fresh, seconds);
      if (reason && !exited && !outcome.stopped_by_watch && !outcome.timed_out && !outcome.flooded) {
        outcome.stopped_by_watch = *reason;
        kill_group();
      }
    }
  }
  // What the program started is ended with it, and only that: its process
  // group; under bubblewrap, the namespace's first process dies with bwrap
  // (--die-with-parent) and the kernel ends the rest of the namespace; a
  // dedicated user's processes are swept, whatever group or session they
  // moved to. The kernel's end of a namespace is not immediate: a fork bomb's
  // 512 processes outlived their run by seconds, and the user's full process
  // count kept the next runs from starting. So under user_bubblewrap too the
  // sweep runs, and waits until none is left (its /tmp was the run's own).
  kill_group();
  if (sandbox.uses_user()) {
    end_processes_of(lease->user(),
                     sandbox.kind == SandboxKind::user ? sandbox.shared_temporary : std::vector<fs::path>{});
  }
  close(fds[0]);
  if (channel) close(report[0]);
  int status = 0;
  reap_registered(pid, &status);
  reap_orphans();
  wait_for_the_end_if_ending();

  outcome.seconds = std::chrono::duration<double>(elapsed()).count();
  outcome.output = keeper.kept();
  outcome.output_bytes = keeper.total();
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  // bwrap passes on a signal that ended the program as 128 + its number.
  if (sandbox.uses_bubblewrap() && outcome.exit_code && *outcome.exit_code > 128 && *outcome.exit_code < 128 + NSIG) {
    outcome.signal = *outcome.exit_code - 128;
    outcome.exit_code.reset();
  }
  if (limits.disk_limit > 0 && !writable.empty()) {
    std::uintmax_t disk_after = 0;
    for (const auto& folder : writable) disk_after += disk_usage(folder);
    outcome.disk_growth = disk_after > disk_before ? disk_after - disk_before : 0;
    outcome.disk_exceeded = outcome.disk_growth > limits.disk_limit;
  }
  return outcome;
}

namespace {

/// Why a folder is not one only this user can enter, or nothing when it is.
/// flock(2) needs only a descriptor open for reading, so a lock file that
/// another user can merely read is one that user can hold.
std::optional<std::string> not_private(const fs::path& folder) {
  struct stat info {};
  if (lstat(folder.c_str(), &info) != 0) return "cannot read " + folder.string() + ": " + std::strerror(errno);
  if (!S_ISDIR(info.st_mode)) return folder.string() + " is not a folder";
  if (info.st_uid != geteuid()) return folder.string() + " belongs to another user";
  if (info.st_mode & 077) return folder.string() + " can be entered by other users";
  return std::nullopt;
}

/// The folder made (0700) or, when it is this user's already, closed to
/// everyone else.
std::optional<std::string> make_private(const fs::path& folder) {
  if (mkdir(folder.c_str(), 0700) != 0 && errno != EEXIST) return "cannot make " + folder.string() + ": " + std::strerror(errno);
  struct stat info {};
  if (lstat(folder.c_str(), &info) == 0 && S_ISDIR(info.st_mode) && info.st_uid == geteuid()) chmod(folder.c_str(), 0700);
  return not_private(folder);
}

}  // namespace

cpu_set_t cpu_set_of(const std::vector<int>& cores) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cores) CPU_SET(cpu, &set);
  return set;
}

fs::path grader_lock_folder() {
  const fs::path run_folder = fs::path("/run") / "launchlab";
  auto problem = make_private(run_folder);
  if (!problem) return run_folder;
  const fs::path fallback = fs::temp_directory_path() / ("launchlab-locks-" + std::to_string(geteuid()));
  if (auto second = make_private(fallback)) {
    throw std::runtime_error("no folder for the grader's lock files: " + *problem + "; " + *second);
  }
  return fallback;
}

fs::path grader_lock_path(const fs::path& requested) {
  if (!requested.has_filename()) throw std::invalid_argument("a lock file needs a name: " + requested.string());
  const fs::path folder = requested.has_parent_path() ? requested.parent_path() : fs::current_path();
  if (!not_private(folder)) return requested;
  return grader_lock_folder() / requested.filename();
}

FileLock::FileLock(const std::filesystem::path& path, bool wait) {
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  // Another user's lock file can still be locked through a read-only descriptor.
  if (fd_ < 0) fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw std::runtime_error("cannot open the lock file " + path.string() + ": " + std::strerror(errno));
  while (flock(fd_, wait ? LOCK_EX : LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    if (error == EINTR) continue;
    close(fd_);
    fd_ = -1;
    if (!wait && error == EWOULDBLOCK) return;  // taken: not held
    throw std::runtime_error("cannot lock " + path.string() + ": " + std::strerror(error));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) close(fd_);  // closing the only descriptor releases the lock
}

namespace {

// A file of /proc, whole: its size reads as 0, so it is read to its end.
std::string proc_file(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

}  // namespace

fs::path sandbox_user_lock(const SandboxUser& user) {
  return grader_lock_folder() / ("sandbox-user-" + user.name + ".lock");
}

std::string lock_holder(const std::filesystem::path& path) {
  struct stat lock_file {};
  if (stat(path.c_str(), &lock_file) != 0) return "";
  // A line of /proc/locks: "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF";
  // a waiter's line has "->" after its number.
  std::ifstream locks("/proc/locks");
  std::string line;
  pid_t holder = 0;
  while (holder == 0 && std::getline(locks, line)) {
    std::istringstream words(line);
    std::string number, kind, mode, access, device_and_inode;
    pid_t pid = 0;
    if (!(words >> number >> kind >> mode >> access >> pid >> device_and_inode) || kind != "FLOCK") continue;
    const std::string inode = device_and_inode.substr(device_and_inode.rfind(':') + 1);
    if (inode == std::to_string(lock_file.st_ino)) holder = pid;
  }
  if (holder == 0) return "";
  const fs::path process = "/proc/" + std::to_string(holder);
  std::string command = proc_file(process / "cmdline");
  std::replace(command.begin(), command.end(), '\0', ' ');
  while (!command.empty() && command.back() == ' ') command.pop_back();
  std::string text = "process " + std::to_string(holder) + (command.empty() ? "" : " (" + command + ")");
  // Field 22 of /proc/<pid>/stat is when the process started, in clock ticks
  // after boot; /proc/stat's btime is the boot, in seconds since the epoch.
  std::string stat_line = proc_file(process / "stat");
  const auto after_name = stat_line.rfind(')');
  std::istringstream fields(after_name == std::string::npos ? "" : stat_line.substr(after_name + 2));
  std::string field;
  unsigned long long started_ticks = 0;
  for (int index = 3; index <= 22 && fields >> field; ++index) {
    if (index == 22) started_ticks = std::strtoull(field.c_str(), nullptr, 10);
  }
  std::ifstream system_stat("/proc/stat");
  long long boot = 0;
  while (std::getline(system_stat, line)) {
    if (line.rfind("btime ", 0) == 0) boot = std::atoll(line.c_str() + 6);
  }
  if (started_ticks > 0 && boot > 0) {
    const std::time_t started = static_cast<std::time_t>(boot + started_ticks / sysconf(_SC_CLK_TCK));
    std::tm utc{};
    gmtime_r(&started, &utc);
    char when[32];
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &utc);
    text += ", running since " + std::string(when);
  }
  return text;
}

}  // namespace launchlab::grader
