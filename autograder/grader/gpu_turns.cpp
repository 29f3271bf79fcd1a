#include "launchlab/grader/gpu_turns.h"

#include <sched.h>

#include <algorithm>
#include <chrono>

#include "launchlab/grader/process.h"

namespace launchlab::grader {

GpuTurns::GpuTurns(std::filesystem::path across_gradings, std::vector<int> measuring_cores)
    : across_gradings_(std::move(across_gradings)), measuring_cores_(std::move(measuring_cores)) {}

GpuTurns::~GpuTurns() = default;

double GpuTurns::seconds_since_made() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - made_).count();
}

std::string_view to_string(Lane lane) {
  switch (lane) {
    case Lane::cpu: return "cpu";
    case Lane::beside: return "beside";
    case Lane::shared: return "shared";
    case Lane::course: return "course";
    case Lane::alone: return "alone";
  }
  return "unknown";
}

int* GpuTurns::count_of(Lane lane) {
  switch (lane) {
    case Lane::shared: return &learner_runs_;
    case Lane::course: return &course_runs_;
    case Lane::cpu: return measuring_cores_.empty() ? &cpu_runs_ : nullptr;
    case Lane::beside: return &beside_runs_;
    case Lane::alone: return nullptr;
  }
  return nullptr;
}

bool GpuTurns::may_start(Lane lane) const {
  if (alone_) return lane == Lane::cpu && !measuring_cores_.empty();
  switch (lane) {
    case Lane::alone: return learner_runs_ == 0 && course_runs_ == 0 && cpu_runs_ == 0 && beside_runs_ == 0;
    case Lane::beside: return alone_waiting_ == 0;
    case Lane::shared: return alone_waiting_ == 0 && course_runs_ == 0;
    case Lane::course: return alone_waiting_ == 0 && learner_runs_ == 0;
    case Lane::cpu: return !measuring_cores_.empty() || alone_waiting_ == 0;
  }
  return false;
}

GpuTurns::Turn GpuTurns::take(Lane lane, double* waited) {
  const auto asked = std::chrono::steady_clock::now();
  std::unique_lock hold(mutex_);
  if (lane == Lane::alone) ++alone_waiting_;
  changed_.wait(hold, [&] { return may_start(lane); });
  if (lane == Lane::alone) {
    --alone_waiting_;
    alone_ = true;
  } else if (int* count = count_of(lane)) {
    ++*count;
  }
  if (lane != Lane::cpu && on_gpu_++ == 0 && !across_gradings_.empty()) {
    // Under the mutex: the grading's other runs wait with this one for the
    // gradings beside it to leave the GPU.
    try {
      across_ = std::make_unique<FileLock>(across_gradings_);
    } catch (...) {
      --on_gpu_;
      if (lane == Lane::alone) {
        alone_ = false;
      } else if (int* count = count_of(lane)) {
        --*count;
      }
      hold.unlock();
      changed_.notify_all();
      throw;
    }
  }
  if (waited) *waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  return Turn(this, lane);
}

void GpuTurns::give_back(Lane lane) {
  {
    std::lock_guard hold(mutex_);
    if (lane == Lane::alone) {
      alone_ = false;
    } else if (int* count = count_of(lane)) {
      --*count;
    }
    if (lane != Lane::cpu && --on_gpu_ == 0) across_.reset();
  }
  changed_.notify_all();
}

GpuTurns::Turn::~Turn() {
  if (turns_) turns_->give_back(lane_);
}

std::vector<int> usable_cores() {
  cpu_set_t set;
  std::vector<int> cores;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cores;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cores.push_back(cpu);
  }
  return cores;
}

std::vector<int> cores_kept_for_measuring(const std::vector<int>& cores) {
  if (cores.size() < 4) return {};
  const std::size_t kept = std::max<std::size_t>(1, cores.size() / 8);
  return {cores.end() - static_cast<std::ptrdiff_t>(kept), cores.end()};
}

CoresKept::CoresKept(const std::vector<int>& cores) {
  if (cores.empty()) return;
  before_ = usable_cores();
  const cpu_set_t set = cpu_set_of(cores);
  if (sched_setaffinity(0, sizeof set, &set) != 0) before_.clear();
}

CoresKept::~CoresKept() {
  if (before_.empty()) return;
  const cpu_set_t set = cpu_set_of(before_);
  sched_setaffinity(0, sizeof set, &set);
}

}  // namespace launchlab::grader
