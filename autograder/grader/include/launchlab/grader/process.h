/// @file
/// Runs a program the grader does not trust: in its own process group, with a
/// time limit, an output limit and no way to keep the grader waiting.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::grader {

/// The limits one run is held to.
struct RunLimits {
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  std::size_t output_limit = 8u << 20;   ///< bytes of stdout+stderr before the run is stopped
  std::size_t output_kept = 64u << 10;   ///< bytes kept for reports (the head and the tail)
  std::size_t file_size_limit = 256u << 20;  ///< RLIMIT_FSIZE for the child
  std::size_t max_processes = 0;             ///< RLIMIT_NPROC for the child (0: unlimited)
};

/// How a run ended.
struct RunOutcome {
  std::optional<int> exit_code;        ///< set when the program exited
  std::optional<int> signal;           ///< set when a signal ended it
  bool timed_out = false;              ///< stopped at the time limit
  bool flooded = false;                ///< stopped at the output limit
  std::optional<std::string> stopped_by_watch;  ///< why the watch stopped it
  std::string output;                  ///< what was kept of stdout and stderr
  std::size_t output_bytes = 0;        ///< everything it wrote, kept or not
  double seconds = 0;

  bool exited_cleanly() const { return exit_code && *exit_code == 0; }
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

/// Whether the grader runs sandboxed: as a container's first process (PID 1,
/// which nothing inside the container can kill), or with LAUNCHLAB_SANDBOX=1
/// under a user of its own (the course's container and Gradescope set it).
/// Then, after every run, it ends every other process its user owns, so that
/// nothing a submission started outlives its run. Never on a learner's
/// machine: there that would end the learner's own programs.
bool sandboxed();

/// Runs argv (no shell) in cwd with extra environment entries ("NAME=value").
/// Everything the program starts runs in its process group and is killed
/// when the run ends, however it ends. Never throws for the child's sake;
/// throws std::runtime_error only when the grader itself cannot fork or pipe.
RunOutcome run_limited(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                       const std::vector<std::string>& extra_env, const RunLimits& limits,
                       const RunWatch& watch = {}, ReportChannel* channel = nullptr);

}  // namespace launchlab::grader
