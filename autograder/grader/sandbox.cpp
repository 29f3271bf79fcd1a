#include "launchlab/grader/sandbox.h"

#include <dirent.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "launchlab/grader/process.h"

namespace fs = std::filesystem;

namespace launchlab::grader {

std::string_view to_string(SandboxKind kind) {
  switch (kind) {
    case SandboxKind::none: return "none";
    case SandboxKind::bubblewrap: return "bubblewrap";
    case SandboxKind::user: return "user";
    case SandboxKind::user_bubblewrap: return "user_bubblewrap";
  }
  return "none";
}

std::optional<SandboxKind> sandbox_kind_named(std::string_view name) {
  for (auto kind : {SandboxKind::none, SandboxKind::bubblewrap, SandboxKind::user, SandboxKind::user_bubblewrap}) {
    if (to_string(kind) == name) return kind;
  }
  return std::nullopt;
}

std::optional<SandboxUser> find_sandbox_user(const std::string& name) {
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 || !found) return std::nullopt;
  if (found->pw_uid == 0 || found->pw_gid == 0) return std::nullopt;
  return SandboxUser{found->pw_name, found->pw_uid, found->pw_gid, found->pw_dir ? found->pw_dir : "/"};
}

std::vector<fs::path> Sandbox::default_system_paths() {
  std::vector<fs::path> paths = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"};
  std::error_code error;
  fs::path toolkit = fs::canonical("/usr/local/cuda", error);
  if (!error) {
    bool inside = false;
    for (const auto& path : paths) {
      auto [end, _] = std::mismatch(path.begin(), path.end(), toolkit.begin(), toolkit.end());
      if (end == path.end()) inside = true;
    }
    if (!inside) paths.push_back(toolkit);
  }
  return paths;
}

std::string Sandbox::describe() const {
  std::string line = "sandbox " + std::string(to_string(kind));
  if (uses_user() && !users.empty()) {
    line += " (as " + users.front().name;
    if (users.size() > 1) line += " and " + std::to_string(users.size() - 1) + " more";
    line += ")";
  }
  if (uses_bubblewrap()) line += " (" + bwrap.string() + ")";
  if (!reason.empty()) line += ": " + reason;
  return line;
}

Sandbox Sandbox::for_run(const std::vector<fs::path>& read_only, const std::vector<fs::path>& writable,
                         bool with_gpu) const {
  Sandbox run = *this;
  for (const auto& path : read_only) run.binds.push_back({path, {}, false});
  for (const auto& path : writable) run.binds.push_back({path, {}, true});
  run.gpu = gpu || with_gpu;
  return run;
}

namespace {

std::string environment_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

std::vector<std::string> split_names(const std::string& names) {
  std::vector<std::string> parts;
  std::stringstream stream(names);
  std::string part;
  while (std::getline(stream, part, ',')) {
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

fs::path find_on_path(const std::string& name) {
  std::stringstream path(environment_or("PATH", "/usr/bin:/bin"));
  std::string folder;
  while (std::getline(path, folder, ':')) {
    fs::path candidate = fs::path(folder) / name;
    if (!folder.empty() && access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace

std::vector<fs::path> nvidia_device_nodes() {
  std::vector<fs::path> nodes;
  std::error_code error;
  for (fs::directory_iterator it("/dev", error), end; !error && it != end; it.increment(error)) {
    std::string name = it->path().filename().string();
    if (name.rfind("nvidia", 0) == 0) nodes.push_back(it->path());
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::vector<std::string> bubblewrap_command(const Sandbox& sandbox, const fs::path& cwd,
                                            const std::vector<std::string>& argv) {
  // Namespaces: a user namespace (even for root: the run has no capability
  // outside it, and --cap-drop ALL none inside), its own PIDs (it sees no
  // process of the grader's and ends with its first one), no network.
  std::vector<std::string> command = {sandbox.bwrap.string(), "--unshare-all", "--unshare-user"};
  if (sandbox.bwrap_disables_userns) command.push_back("--disable-userns");
  command.insert(command.end(), {"--die-with-parent", "--new-session", "--cap-drop", "ALL"});
  for (const auto& path : sandbox.system_paths) {
    std::error_code error;
    auto status = fs::symlink_status(path, error);
    if (error || !fs::exists(status)) continue;
    if (fs::is_symlink(status)) {
      command.insert(command.end(), {"--symlink", fs::read_symlink(path, error).string(), path.string()});
    } else {
      command.insert(command.end(), {"--ro-bind", path.string(), path.string()});
    }
  }
  command.insert(command.end(), {"--proc", "/proc", "--dev", "/dev"});
  if (sandbox.gpu) {
    for (const auto& node : nvidia_device_nodes()) command.insert(command.end(), {"--dev-bind", node.string(), node.string()});
    // CUDA's driver reads the PCI topology there.
    if (fs::exists("/sys")) command.insert(command.end(), {"--ro-bind", "/sys", "/sys"});
  }
  // The run's only writable places besides its binds: two bounded tmpfs.
  const std::string size = std::to_string(sandbox.tmp_size);
  command.insert(command.end(), {"--size", size, "--tmpfs", "/dev/shm", "--size", size, "--tmpfs", "/tmp"});
  for (const auto& bind : sandbox.binds) {
    fs::path destination = bind.destination.empty() ? bind.source : bind.destination;
    command.insert(command.end(), {bind.writable ? "--bind" : "--ro-bind", bind.source.string(), destination.string()});
  }
  // bwrap's root and /dev are tmpfs of their own, unbounded: read-only.
  command.insert(command.end(), {"--remount-ro", "/dev", "--remount-ro", "/"});
  command.insert(command.end(), {"--chdir", cwd.empty() ? std::string("/") : cwd.string(), "--"});
  command.insert(command.end(), argv.begin(), argv.end());
  return command;
}

SandboxRequest SandboxRequest::from_environment() {
  SandboxRequest request;
  std::string kind = environment_or("LAUNCHLAB_SANDBOX", "auto");
  request.kind = kind == "1" ? "auto" : kind;
  request.users = environment_or("LAUNCHLAB_SANDBOX_USER", request.users);
  request.bwrap = environment_or("LAUNCHLAB_BWRAP", "");
  return request;
}

namespace {

// Bubblewrap is tried for real: a kernel without user namespaces, Docker's
// seccomp profile or an AppArmor rule stops it only when it runs.
std::optional<std::string> bubblewrap_fails(Sandbox& candidate) {
  RunLimits limits;
  limits.timeout = std::chrono::seconds(20);
  limits.disk_limit = 0;
  std::string failure;
  for (bool disable_userns : {true, false}) {
    candidate.bwrap_disables_userns = disable_userns;
    RunOutcome outcome = run_limited({"true"}, "/", {}, limits, candidate);
    if (outcome.exited_cleanly()) return std::nullopt;
    failure = outcome.output.empty() ? outcome.describe(limits) : outcome.output;
  }
  while (!failure.empty() && failure.back() == '\n') failure.pop_back();
  return failure;
}

}  // namespace

Sandbox choose_sandbox(const SandboxRequest& request) {
  std::optional<SandboxKind> required;
  if (request.kind != "auto") {
    required = sandbox_kind_named(request.kind);
    if (!required) {
      throw std::runtime_error("LAUNCHLAB_SANDBOX=" + request.kind +
                               " names no sandbox (auto, none, bubblewrap, user, user_bubblewrap)");
    }
  }
  Sandbox sandbox;
  sandbox.wait_for_user = request.wait_for_user;
  if (required == SandboxKind::none) {
    sandbox.reason = "asked for none";
    return sandbox;
  }

  const bool root = geteuid() == 0;
  std::string user_problem;
  if (root) {
    for (const auto& name : split_names(request.users)) {
      const bool pool = name.ends_with('*');
      const std::string first = pool ? name.substr(0, name.size() - 1) : name;
      if (auto user = find_sandbox_user(first)) {
        sandbox.users.push_back(*user);
      } else {
        user_problem += (user_problem.empty() ? "" : "; ") + ("no unprivileged user named " + first);
        continue;
      }
      // The pool's numbered users, as far as they run unbroken: each lets
      // one more of the grading's runs go at once.
      for (int number = 1; pool && number <= kSandboxPoolLimit; ++number) {
        auto sibling = find_sandbox_user(first + "-" + std::to_string(number));
        if (!sibling) break;
        sandbox.users.push_back(*sibling);
      }
    }
  } else {
    user_problem = "the grader is not root, so it cannot run code as another user";
  }

  fs::path bwrap = request.bwrap;
  if (bwrap.empty()) bwrap = access("/usr/bin/bwrap", X_OK) == 0 ? fs::path("/usr/bin/bwrap") : find_on_path("bwrap");
  std::string bwrap_problem;
  if (bwrap.empty()) {
    bwrap_problem = "bubblewrap is not installed (apt-get install bubblewrap, or LAUNCHLAB_BWRAP=path)";
  } else if (access(bwrap.c_str(), X_OK) != 0) {
    bwrap_problem = "no bwrap program at " + bwrap.string();
  }
  sandbox.bwrap = bwrap;

  auto bubblewrap_works = [&](SandboxKind kind) {
    if (!bwrap_problem.empty()) return false;
    Sandbox candidate = sandbox;
    candidate.kind = kind;
    if (auto failure = bubblewrap_fails(candidate)) {
      bwrap_problem = "bubblewrap does not work here" +
                      std::string(kind == SandboxKind::user_bubblewrap ? " as " + sandbox.users.front().name : "") +
                      " (" + *failure + ")";
      return false;
    }
    sandbox.bwrap_disables_userns = candidate.bwrap_disables_userns;
    return true;
  };
  auto refuse = [&](const std::string& why) -> Sandbox {
    throw std::runtime_error("LAUNCHLAB_SANDBOX=" + request.kind + " cannot work here: " + why);
  };

  const bool have_user = root && !sandbox.users.empty();
  if (required == SandboxKind::user || required == SandboxKind::user_bubblewrap) {
    if (!have_user) return refuse(user_problem);
    if (required == SandboxKind::user_bubblewrap && !bubblewrap_works(SandboxKind::user_bubblewrap)) {
      return refuse(bwrap_problem);
    }
    sandbox.kind = *required;
    sandbox.reason = "asked for " + request.kind;
    return sandbox;
  }
  if (required == SandboxKind::bubblewrap) {
    if (!bubblewrap_works(SandboxKind::bubblewrap)) return refuse(bwrap_problem);
    sandbox.kind = SandboxKind::bubblewrap;
    sandbox.reason = "asked for bubblewrap" + std::string(root ? "; it runs the submission as root" : "");
    return sandbox;
  }

  if (have_user) {
    if (bubblewrap_works(SandboxKind::user_bubblewrap)) {
      sandbox.kind = SandboxKind::user_bubblewrap;
      sandbox.reason = "root with a dedicated user, and bubblewrap works as that user";
    } else {
      sandbox.kind = SandboxKind::user;
      sandbox.reason = "root with a dedicated user; " + bwrap_problem;
    }
    return sandbox;
  }
  if (bubblewrap_works(SandboxKind::bubblewrap)) {
    sandbox.kind = SandboxKind::bubblewrap;
    sandbox.reason = root ? "root without a dedicated user (" + user_problem +
                                "): bubblewrap runs the submission as root, which no process limit binds and which reads "
                                "what is bound whatever its mode; create the user for more"
                          : "bubblewrap works here";
    return sandbox;
  }
  sandbox.users.clear();
  sandbox.reason = "no sandbox: " + bwrap_problem + (root ? "; " + user_problem : "");
  return sandbox;
}

void harden_grader_process() {
  // Not dumpable: processes of the same user can neither ptrace the grader
  // nor open its /proc/<pid>/mem, and its /proc files belong to root. The
  // children it forks inherit this until they exec.
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  // What its runs orphan comes to it, whatever the first process of the
  // machine or container is, and is reaped after each run (reap_orphans).
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
}

struct WallClockLimit::State {
  std::mutex mutex;
  std::condition_variable changed;
  bool disarmed = false;
  std::thread timer;
};

WallClockLimit::WallClockLimit(std::chrono::milliseconds limit, std::function<void()> on_expiry, int exit_status,
                               std::chrono::seconds grace)
    : state_(new State) {
  state_->timer = std::thread([state = state_, limit, on_expiry = std::move(on_expiry), exit_status, grace] {
    std::unique_lock lock(state->mutex);
    if (state->changed.wait_for(lock, limit, [&] { return state->disarmed; })) return;
    lock.unlock();
    end_all_runs_for_exit();
    // Whatever on_expiry does, the grading ends.
    alarm(static_cast<unsigned>(std::max<std::chrono::seconds::rep>(1, grace.count())));
    if (on_expiry) on_expiry();
    std::_Exit(exit_status);
  });
}

WallClockLimit::~WallClockLimit() {
  {
    std::lock_guard lock(state_->mutex);
    state_->disarmed = true;
  }
  state_->changed.notify_all();
  state_->timer.join();
  delete state_;
}

}  // namespace launchlab::grader
