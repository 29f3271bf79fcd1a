/// @file
/// How the runs of one grading share the GPU and the host's cores: the
/// three lanes of DESIGN.md's "Grading at class speed". Runs that need no GPU
/// go side by side; runs on the GPU that measure nothing share it; a run
/// that measures (or takes the whole GPU) has it to itself, on cores that
/// no other run of the grading is given.
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace launchlab::grader {

class FileLock;

/// Which lane a run goes in.
enum class Lane {
  cpu,     ///< needs no GPU here: beside anything, off the cores kept for measuring
  /// needs no GPU, but its lab's code opens the GPU where there is one (a
  /// drawn valid call runs on it): beside the shared and course runs, never
  /// beside an alone run, and in turns with the gradings beside this one
  beside,
  shared,  ///< the learner's program on the GPU, beside the grading's other shared runs
  course,  ///< the course's own program on the GPU, beside the course's other runs alone
  alone,   ///< on the GPU with no other run of the grading there
};

/// The lane's name, as results.json's phases give it: "cpu", "shared", "course", "alone".
std::string_view to_string(Lane lane);

/// The turns of one grading's runs. The learner's runs on the GPU share it
/// with each other, the course's with each other, never the one with the
/// other: what a submission does there (take all of its memory, say) never
/// reaches the reference's runs it is judged against, nor the transcripts
/// kept for a whole class. Without cores kept for measuring, a cpu run
/// waits for an alone run too, so that a run that measures has the whole
/// host. An alone run waiting goes before the runs asked for after it, so
/// that the measuring lane is never starved.
class GpuTurns {
 public:
  /// `across_gradings`: a lock file that gradings side by side on this host
  /// take turns on while any of their runs is on the GPU, so that no
  /// submission's code shares the GPU with another's (empty: none);
  /// `measuring_cores`: the cores kept for alone runs that measure.
  GpuTurns(std::filesystem::path across_gradings, std::vector<int> measuring_cores);
  ~GpuTurns();
  GpuTurns(const GpuTurns&) = delete;
  GpuTurns& operator=(const GpuTurns&) = delete;

  /// A turn, held until it is destroyed.
  class Turn {
   public:
    Turn(GpuTurns* turns, Lane lane) : turns_(turns), lane_(lane) {}
    Turn(Turn&& other) noexcept : turns_(other.turns_), lane_(other.lane_) { other.turns_ = nullptr; }
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    Turn& operator=(Turn&&) = delete;
    ~Turn();

   private:
    GpuTurns* turns_;
    Lane lane_;
  };

  /// Waits for a turn in `lane`, adding the seconds it waited to `waited`
  /// where given. A thread holds one turn at a time: a second one, asked for
  /// while an alone run waits for the first to end, would never come.
  Turn take(Lane lane, double* waited = nullptr);
  /// The cores kept for runs that measure (RunLimits::cpus); empty: none kept.
  const std::vector<int>& measuring_cores() const { return measuring_cores_; }
  /// Seconds since these turns were made, at the grading's start: when a run began, on one clock for all.
  double seconds_since_made() const;

 private:
  /// Whether a run in `lane` may start now.
  bool may_start(Lane lane) const;
  /// The count of runs in `lane` this keeps (null for a cpu run beside cores kept).
  int* count_of(Lane lane);
  void give_back(Lane lane);

  std::filesystem::path across_gradings_;
  std::vector<int> measuring_cores_;
  std::chrono::steady_clock::time_point made_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable changed_;
  int learner_runs_ = 0;  ///< shared runs
  int course_runs_ = 0;   ///< course runs
  int cpu_runs_ = 0;      ///< cpu runs, counted only where no cores are kept for measuring
  int beside_runs_ = 0;   ///< beside runs
  int alone_waiting_ = 0;
  bool alone_ = false;
  int on_gpu_ = 0;         ///< runs of every lane but cpu: the lock across gradings is held while any is
  std::unique_ptr<FileLock> across_;
};

/// The cores this process may run on, by number.
std::vector<int> usable_cores();

/// Of `cores`, those kept for runs that measure: the last eighth (at least
/// one) on a host of 4 cores or more; none on a smaller one, where the runs
/// that measure wait for every other run instead.
std::vector<int> cores_kept_for_measuring(const std::vector<int>& cores);

/// Keeps the calling thread, and the threads and processes it starts while
/// this lives, to `cores`; puts its cores back at the end. Empty: changes nothing.
class CoresKept {
 public:
  explicit CoresKept(const std::vector<int>& cores);
  ~CoresKept();
  CoresKept(const CoresKept&) = delete;
  CoresKept& operator=(const CoresKept&) = delete;

 private:
  std::vector<int> before_;
};

}  // namespace launchlab::grader
