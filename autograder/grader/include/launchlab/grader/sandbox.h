/// @file
/// Where a run the grader does not trust happens: as whom, seeing which
/// files, and how what it started is ended. The grader chooses a Sandbox once
/// (choose_sandbox), copies it for each run and adds that run's binds, and
/// hands it to run_limited (process.h).
///
/// What each kind keeps from the child (sandbox_test.cpp attacks each claim):
///
/// | kind            | the child runs                        | it cannot                                         |
/// |-----------------|---------------------------------------|---------------------------------------------------|
/// | none            | as the grader's user, in a process    | ptrace the grader, read its memory, write its     |
/// |                 | group of its own                      | oom_score_adj (the grader is not dumpable)        |
/// | bubblewrap      | as the grader's user, in namespaces   | what none cannot, nor see or signal the grader    |
/// |                 | (user, pid, ipc, net, uts, cgroup,    | (PID namespace), read or write what is not bound, |
/// |                 | mount): the system read-only, its     | reach the network, leave a process behind (the    |
/// |                 | binds, its own bounded /tmp, /dev/shm | namespace ends with the run), fill more than its  |
/// |                 |                                       | /tmp and /dev/shm                                 |
/// | user            | as a dedicated unprivileged user      | what none cannot, nor read the grader's private   |
/// |                 | (the grader runs as root)             | (0600, 0700) files, write the grader's files,     |
/// |                 |                                       | signal the grader, leave a process behind (a      |
/// |                 |                                       | sweep as that user) or a file in the shared /tmp  |
/// | user_bubblewrap | as that user, then under bubblewrap   | all of the above                                  |
///
/// Every kind gets the run's limits (process.h): time, output, file size,
/// processes, memory, no core dumps, no new privileges, oom_score_adj 1000.
///
/// What they do not do: kind none leaves the child free to signal the
/// grader, read and write whatever the grader's user may, and keep a process
/// that left its group (setsid) running. Kind user hides nothing that is
/// world-readable (keep what the sandbox must not read 0700/0600). A grader
/// run as root with kind bubblewrap runs the child as root: bound files are
/// readable whatever their mode, and no process limit binds root (the
/// container's pids limit must). The disk a writable bind takes is checked
/// after the run (RunLimits::disk_limit), not bounded while it lasts. The
/// child may lower its oom_score_adj again, down to the grader's own, unless
/// the root grader holds CAP_SYS_RESOURCE (Docker drops it by default).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::grader {

enum class SandboxKind { none, bubblewrap, user, user_bubblewrap };

/// "none", "bubblewrap", "user", "user_bubblewrap".
std::string_view to_string(SandboxKind kind);
/// The kind of that name, or nothing.
std::optional<SandboxKind> sandbox_kind_named(std::string_view name);

/// An unprivileged user that exists only to run submissions: whatever runs
/// as it may be ended, and whatever it owns in the shared temporary folders
/// removed, after every run.
struct SandboxUser {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::filesystem::path home;  ///< HOME for its runs outside bubblewrap
};

/// Looks a user up by name; nothing when it does not exist or is root.
std::optional<SandboxUser> find_sandbox_user(const std::string& name);

/// A path the run may see. Under bubblewrap nothing else outside the system
/// folders exists; as a dedicated user the bind's source is the path itself
/// (no mount namespace), and a writable one is handed to that user
/// (lchown, recursively) before the run. Kind none ignores binds.
struct Bind {
  std::filesystem::path source;
  std::filesystem::path destination;  ///< inside the sandbox; empty: the same as source
  bool writable = false;
};

/// How runs are sandboxed. A default Sandbox is kind none.
struct Sandbox {
  SandboxKind kind = SandboxKind::none;
  /// The dedicated users (user kinds). A run takes one that no other run of
  /// this process is using, waiting for one to be free: the sweep that ends a
  /// run's processes ends everything its user runs. Grading processes that
  /// run side by side on one host (outside containers) need users of their own.
  std::vector<SandboxUser> users;
  /// User kinds: false makes a run that finds every user taken throw
  /// SandboxUsersBusy (process.h), naming who holds them, instead of waiting.
  bool wait_for_user = true;
  std::filesystem::path bwrap;       ///< bubblewrap kinds: the bwrap program
  bool bwrap_disables_userns = false;  ///< bwrap takes --disable-userns (0.8.0 and later)
  std::vector<Bind> binds;           ///< this run's paths, besides the system
  bool gpu = false;                  ///< bubblewrap kinds: the NVIDIA device nodes and /sys, so CUDA works
  std::size_t tmp_size = 512u << 20;  ///< bubblewrap kinds: bytes of the run's own /tmp and /dev/shm
  /// Read-only inside bubblewrap: the system, and the CUDA toolkit where it
  /// lives outside /usr.
  std::vector<std::filesystem::path> system_paths = default_system_paths();
  /// World-writable folders a dedicated user could leave files in (user kind):
  /// what it owns there is removed after each run.
  std::vector<std::filesystem::path> shared_temporary = {"/tmp", "/var/tmp", "/dev/shm"};
  std::string reason;                ///< why choose_sandbox chose this kind

  bool uses_bubblewrap() const { return kind == SandboxKind::bubblewrap || kind == SandboxKind::user_bubblewrap; }
  bool uses_user() const { return kind == SandboxKind::user || kind == SandboxKind::user_bubblewrap; }
  /// One line for the grader's log and results.json: the kind, as whom, and why.
  std::string describe() const;
  /// This sandbox for one run: `read_only` and `writable` bound where they
  /// are, besides the binds it has, and the GPU if asked for.
  Sandbox for_run(const std::vector<std::filesystem::path>& read_only,
                  const std::vector<std::filesystem::path>& writable, bool with_gpu = false) const;

  /// /usr, /etc, /bin, /sbin, /lib* (kept as the links they are), and the
  /// folder /usr/local/cuda resolves to when it is not under /usr.
  static std::vector<std::filesystem::path> default_system_paths();
};

/// The most numbered users a pool (SandboxRequest::users) is looked for in.
inline constexpr int kSandboxPoolLimit = 64;

/// What the grader was asked for: by default, from the environment.
struct SandboxRequest {
  /// "auto" (the strongest that works here) or a kind's name, which is then
  /// required. LAUNCHLAB_SANDBOX; "1" and unset mean "auto".
  std::string kind = "auto";
  /// The dedicated users' names, comma-separated (LAUNCHLAB_SANDBOX_USER,
  /// else "launchlab-sandbox*"). Used only as root. A name ending in `*`
  /// is a pool: the user without the star and its numbered siblings
  /// NAME-1, NAME-2, ... up to the first that does not exist. A grading
  /// runs as many of its programs at once as it has users (one user runs
  /// one program at a time: ending a run ends everything its user runs).
  std::string users = "launchlab-sandbox*";
  /// The bwrap program (LAUNCHLAB_BWRAP, else /usr/bin/bwrap, else bwrap on PATH).
  std::filesystem::path bwrap;
  /// Whether trying bubblewrap as a dedicated user waits for one that another
  /// grading holds (Sandbox::wait_for_user); doctor does not wait.
  bool wait_for_user = true;

  static SandboxRequest from_environment();
};

/// Picks the strongest sandbox that works here and says why (Sandbox::reason):
/// as root with a dedicated user, user_bubblewrap where bubblewrap works when
/// started as that user, else user; as root without one, bubblewrap (which
/// still runs as root: the reason says so); as another user, bubblewrap where
/// it works, else none. Bubblewrap is tried for real (`bwrap ... true`), once
/// per call. A required kind that cannot work here throws std::runtime_error
/// saying why.
Sandbox choose_sandbox(const SandboxRequest& request = SandboxRequest::from_environment());

/// The bwrap command line that runs argv in cwd (a path inside the sandbox)
/// under this sandbox: what run_limited executes for the bubblewrap kinds.
std::vector<std::string> bubblewrap_command(const Sandbox& sandbox, const std::filesystem::path& cwd,
                                            const std::vector<std::string>& argv);

/// The NVIDIA device nodes present here (/dev/nvidiactl, /dev/nvidia-uvm,
/// /dev/nvidia-uvm-tools, /dev/nvidia0..N, /dev/nvidia-caps).
std::vector<std::filesystem::path> nvidia_device_nodes();

/// Makes the grader's own process hard to reach from the processes it runs:
/// not dumpable (no ptrace, no /proc/<pid>/mem, its /proc files, oom_score_adj
/// among them, are root's), and no core dumps. It also becomes a child
/// subreaper: what its runs orphan is reaped by it (reap_orphans), not left
/// to a first process that may not reap. Call it first in the entry point.
void harden_grader_process();

/// A wall-clock limit for the whole grading. When it expires, every run in
/// progress is ended (end_all_runs_for_exit: the threads waiting for them
/// wait for ever), on_expiry is called on the limit's own thread (it writes
/// the results that say so) and the process exits with exit_status, also
/// when on_expiry does not return within `grace` (alarm: SIGALRM ends it).
/// Destroying the limit disarms it.
class WallClockLimit {
 public:
  WallClockLimit(std::chrono::milliseconds limit, std::function<void()> on_expiry, int exit_status = 124,
                 std::chrono::seconds grace = std::chrono::seconds(30));
  ~WallClockLimit();
  WallClockLimit(const WallClockLimit&) = delete;
  WallClockLimit& operator=(const WallClockLimit&) = delete;

 private:
  struct State;
  State* state_;
};

}  // namespace launchlab::grader
