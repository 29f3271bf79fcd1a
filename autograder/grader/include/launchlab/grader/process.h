/// @file
/// Runs a program the grader does not trust: in a sandbox (sandbox.h), with
/// limits on time, output, file size, processes, memory and disk, and no way
/// to keep the grader waiting. This is the one place the grader starts
/// processes.
#pragma once

#include <sched.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "launchlab/grader/sandbox.h"

namespace launchlab::grader {

/// The limits one run is held to.
struct RunLimits {
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  std::size_t output_limit = 8u << 20;   ///< bytes of stdout+stderr before the run is stopped
  std::size_t output_kept = 64u << 10;   ///< bytes kept for reports (the head and the tail)
  std::size_t file_size_limit = 256u << 20;  ///< RLIMIT_FSIZE for the child
  /// Processes (threads count too) the run may start, through RLIMIT_NPROC.
  /// As a dedicated user this is the limit; as the grader's own user, whose
  /// other processes count against the same limit, it is added to the number
  /// that user runs already (an instructor with many processes is not
  /// broken). 0: no limit. Root ignores RLIMIT_NPROC.
  std::size_t max_processes = 512;
  /// RLIMIT_DATA: the writable private memory (heap, anonymous mappings) the
  /// child may map, 0: none. RLIMIT_AS would break CUDA, which reserves a
  /// large address space up front (inaccessible, so RLIMIT_DATA does not count
  /// it). A determined program can grow past RLIMIT_DATA (mprotect does not
  /// check it): the container's memory cgroup is the hard bound, and the
  /// child's oom_score_adj of 1000 makes it, not the grader, the one killed.
  std::size_t memory_limit = 8ull << 30;
  /// Bytes the writable binds may grow by during the run, checked after it
  /// (0: not checked). The run's /tmp and /dev/shm under bubblewrap are
  /// bounded by Sandbox::tmp_size instead.
  std::uintmax_t disk_limit = 4ull << 30;
  /// The CPUs the run is kept to (sched_setaffinity), by number; empty: the
  /// grader's own. A run that measures gets the cores kept for measuring
  /// (GpuTurns), which no other run of the grading is given.
  std::vector<int> cpus;
  /// How much less of the CPU the run asks for than the grader's other
  /// runs: added to the grader's nice value (19 at most), so that a run
  /// nobody waits on yields the cores to those that hold the GPU. The run
  /// can raise it, never lower it.
  int niceness = 0;
};

/// The niceness (RunLimits) of work that the GPU's runs beside it should
/// not wait behind: a grading's runs that need no GPU, and the learner's
/// build, beside which the reference's half of each lab runs and other
/// gradings of a class hold the GPU.
inline constexpr int kYieldingNiceness = 10;

/// These cores (by number) as the set sched_setaffinity takes.
cpu_set_t cpu_set_of(const std::vector<int>& cores);

/// How a run ended.
struct RunOutcome {
  std::optional<int> exit_code;        ///< set when the program exited
  std::optional<int> signal;           ///< set when a signal ended it
  bool timed_out = false;              ///< stopped at the time limit
  bool flooded = false;                ///< stopped at the output limit
  std::optional<std::string> stopped_by_watch;  ///< why the watch stopped it
  bool disk_exceeded = false;          ///< the writable binds grew past RunLimits::disk_limit
  std::uintmax_t disk_growth = 0;      ///< bytes the writable binds grew by (when checked)
  std::string output;                  ///< what was kept of stdout and stderr
  std::size_t output_bytes = 0;        ///< everything it wrote, kept or not
  double seconds = 0;

  bool exited_cleanly() const { return exit_code && *exit_code == 0 && !disk_exceeded; }
  /// "exit status 1", "killed by signal 11 (Segmentation fault)", "timed out after 120 s", ...
  std::string describe(const RunLimits& limits) const;
};

/// The pipe a test program writes its transcript to (launchlab/transcript.h):
/// the child's fd 3, named by LAUNCHLAB_TRANSCRIPT_FD=3. `report` grows while
/// the program runs, so a watch can follow it.
struct ReportChannel {
  std::size_t limit = 16u << 20;   ///< transcript bytes kept; more marks it overflowed
  std::string report;              ///< what the program wrote
  bool overflowed = false;
};

/// Called with each new piece of output (empty when none came) at least every
/// 100 ms; a returned reason stops the run (the process group is killed).
using RunWatch = std::function<std::optional<std::string>(std::string_view new_output, double seconds)>;

/// Whether an entry of the grader's environment ("NAME=value") is handed to
/// a sandboxed program: PATH, HOME, LANG, LANGUAGE, LC_*, TERM, TZ,
/// LD_LIBRARY_PATH, the CUDA variables that pick a device or a loading mode,
/// and the LAUNCHLAB_* variables the course's tests read. Nothing else of the
/// grader's environment reaches it.
bool passes_to_sandbox(std::string_view entry);

/// Runs argv (no shell) in cwd with extra environment entries ("NAME=value"),
/// in the sandbox given (cwd and argv[0] are paths inside it). A sandboxed
/// run (any kind but none) gets those entries and the allow-list of the
/// grader's environment (passes_to_sandbox); kind none inherits it all. The child runs
/// in a process group of its own, with the limits, no core dumps, no new
/// privileges (PR_SET_NO_NEW_PRIVS), oom_score_adj 1000 and a parent-death
/// signal. When the run ends, however it ends, what it started is ended, and
/// only that: its process group (none), its PID namespace (bubblewrap kinds),
/// every process of its dedicated user (user). Bubblewrap reports a signal
/// that ended the program as exit status 128+N; it is reported as the signal.
/// Throws std::invalid_argument for a bind whose source does not exist or a
/// user kind without a user (the caller's mistakes), std::runtime_error when
/// the grader itself cannot fork or pipe; never for the child's sake.
RunOutcome run_limited(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                       const std::vector<std::string>& extra_env, const RunLimits& limits,
                       const Sandbox& sandbox, const RunWatch& watch = {}, ReportChannel* channel = nullptr);

/// The same, without a sandbox (kind none): the grader's own tools.
RunOutcome run_limited(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                       const std::vector<std::string>& extra_env, const RunLimits& limits,
                       const RunWatch& watch = {}, ReportChannel* channel = nullptr);

/// Ends every process that runs as the user (and nothing else: kill(-1) from
/// a helper that has become that user), then removes what it owns directly
/// in `shared_temporary`. Needs root; true when none of its processes is left.
bool end_processes_of(const SandboxUser& user, const std::vector<std::filesystem::path>& shared_temporary = {});

/// Reaps the orphaned children handed to this process (it runs as PID 1,
/// or as a child subreaper) and that no run is waiting for: the container's
/// first process must reap them. run_limited calls it after every run.
void reap_orphans();

/// For the moment the grading ends early (WallClockLimit): ends every run
/// in progress in this process (their process groups, bubblewrap's
/// namespaces, the dedicated users' processes), and from then on
/// run_limited neither starts nor returns, so that no ended run is taken for
/// a failed program. The caller then exits the process.
void end_all_runs_for_exit();

/// Who holds an flock(2) on the file at path, from /proc/locks: "process 1234
/// (launchlab grade --labs 00), running since 2026-12-02 00:41:07 UTC"; "" when
/// no process does (or the file is missing). The holder may be in another PID
/// namespace, where its number means another process: the text is for people.
std::string lock_holder(const std::filesystem::path& path);

/// The lock file a grading holds for as long as its run is the dedicated
/// user's (in grader_lock_folder()): lock_holder() of it says who runs as
/// that user now.
std::filesystem::path sandbox_user_lock(const SandboxUser& user);

/// Thrown by a run whose sandbox says not to wait for a dedicated user
/// (Sandbox::wait_for_user) when every one is taken: what() names each user's
/// lock and who holds it.
class SandboxUsersBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The folder of the grader's lock files (the GPU's, the sandbox users'):
/// /run/launchlab, or where /run cannot be written (a container with a
/// read-only root) launchlab-locks-UID in the temporary folder; made 0700
/// and owned by the grader's user, since a program that can merely open a
/// lock file can hold its flock and stall every other grading. Throws
/// std::runtime_error when neither is such a folder (another user made it).
std::filesystem::path grader_lock_folder();

/// Where the grader takes a lock file that an instructor named: the path
/// itself when its folder is one only the grader's user can enter, else the
/// same name in grader_lock_folder(), so that gradings asking for the same
/// name still share it.
std::filesystem::path grader_lock_path(const std::filesystem::path& requested);

/// An exclusive flock(2) on a file (created when missing), held from
/// construction to destruction: gradings side by side take turns through it
/// (on the trusted build they share, on the GPU). The descriptor is
/// close-on-exec, so no program the grader runs holds the lock.
class FileLock {
 public:
  /// Waits for the lock (or, without wait, takes it only if it is free: see
  /// held()); throws std::runtime_error when path cannot be opened.
  explicit FileLock(const std::filesystem::path& path, bool wait = true);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace launchlab::grader
