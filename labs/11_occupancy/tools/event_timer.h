// GPU milliseconds of a launch, between two events on the default stream:
// how the tuning tests and tuning_sweep.cu beside it (the chapter's figures)
// time the same configurations.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace launchlab::occupancy {

class EventTimer {
 public:
  EventTimer() {
    cudaEventCreate(&start_);
    cudaEventCreate(&stop_);
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  // The GPU milliseconds of one call.
  float once(const std::function<void()>& launch) {
    cudaEventRecord(start_);
    launch();
    cudaEventRecord(stop_);
    cudaEventSynchronize(stop_);
    float ms = 0;
    cudaEventElapsedTime(&ms, start_, stop_);
    return ms;
  }

  // The median of `runs` timed calls, after one untimed call.
  float median(const std::function<void()>& launch, int runs) {
    launch();
    std::vector<float> times;
    for (int i = 0; i < runs; ++i) times.push_back(once(launch));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace launchlab::occupancy
