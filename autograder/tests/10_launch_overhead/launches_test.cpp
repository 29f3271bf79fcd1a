// The learner's launch figures on a GPU, against the tests' own reference
// measured in the same run (reference.cu), within a stated tolerance; and the
// relations that must hold between them whatever the GPU.

#include "launches.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness.h"
#include "launchlab/testing.h"
#include "reference.h"

namespace launchlab::overhead {
namespace {

using launchlab::testing::median_of;

// How far a learner's median may be from the reference's: launch costs drift
// within a run (interleaved() below keeps the drift from counting against
// the learner); a figure that measures the wrong thing (no wait, a wait per
// launch, the graph built inside the trial, a timer around the wrong code)
// is off by far more.
constexpr double kTolerance = 0.25;

BenchConfig config(int items, int max_trials) {
  BenchConfig c;
  c.warmup_trials = 20;
  c.min_trials = 30;
  c.max_trials = max_trials;
  c.target_relative_error = 0.005;
  c.items_per_trial = items;
  return c;
}

// Two measurements taken in turns: the median of each one's rounds, and the
// median over the rounds of first / second, each pair measured back to back.
struct Pair {
  double first = 0;
  double second = 0;
  double ratio = 0;
};

// The two measurements take turns, kRounds times each. On the H200 the
// chapter measured, the host's speed, and with it the cost of a launch call,
// swings by a third from one half second to the next: measured one after
// the other, two correct figures can land on different sides of a swing.
// Taken in turns, the two of a round see nearly the same machine, and the
// median of the rounds' ratios sets aside a round that straddles a swing.
constexpr int kRounds = 5;

Pair interleaved(const std::function<double()>& first, const std::function<double()>& second) {
  std::vector<double> a, b, ratios;
  for (int round = 0; round < kRounds; ++round) {
    a.push_back(first());
    b.push_back(second());
    ratios.push_back(b.back() > 0 ? a.back() / b.back() : 0);
  }
  return {median_of(a), median_of(b), median_of(ratios)};
}

::testing::AssertionResult Within(double learner, double reference, const std::string& what) {
  if (!(learner > 0)) {
    return ::testing::AssertionFailure() << what << ": your median is " << learner
                                         << " us; the reference measured " << reference << " us";
  }
  const double off = std::abs(learner - reference) / reference;
  if (off > kTolerance) {
    return ::testing::AssertionFailure() << what << ": your median is " << learner << " us, the reference's "
                                         << reference << " us, " << static_cast<int>(off * 100 + 0.5)
                                         << "% apart; allowed " << static_cast<int>(kTolerance * 100) << "%";
  }
  std::printf("  %s: yours %.3f us, reference %.3f us\n", what.c_str(), learner, reference);
  return ::testing::AssertionSuccess();
}

// The learner's figure (first) against the reference (second), taken in turns.
::testing::AssertionResult Within(const Pair& pair, const std::string& what) {
  if (!(pair.first > 0)) {
    return ::testing::AssertionFailure() << what << ": your median is " << pair.first
                                         << " us; the reference measured " << pair.second << " us";
  }
  const double off = std::abs(pair.ratio - 1);
  if (off > kTolerance) {
    return ::testing::AssertionFailure()
           << what << ": your median is " << pair.first << " us, the reference's " << pair.second
           << " us; taking turns with it, yours was " << pair.ratio << " times the reference's (median of "
           << kRounds << " rounds), " << static_cast<int>(off * 100 + 0.5) << "% apart; allowed "
           << static_cast<int>(kTolerance * 100) << "%";
  }
  std::printf("  %s: yours %.3f us, reference %.3f us, round by round yours was %.3f times the reference's\n",
              what.c_str(), pair.first, pair.second, pair.ratio);
  return ::testing::AssertionSuccess();
}

void clear_errors() { cudaGetLastError(); }

// ---- CPU: arguments are checked before any CUDA call --------------------------

TEST(ParamLaunch, RejectsASizeNotInTheList) {
  for (std::size_t bytes : {std::size_t{1}, std::size_t{100}, std::size_t{32765}, std::size_t{65536}}) {
    try {
      (void)measure_param_launch(config(10, 50), bytes);
      ADD_FAILURE() << "measure_param_launch(" << bytes << " bytes): expected std::invalid_argument, got no exception";
    } catch (const std::invalid_argument&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << "measure_param_launch(" << bytes
                    << " bytes): expected std::invalid_argument before any CUDA call, got: " << e.what();
    }
  }
}

TEST(FirstLaunch, RejectsANullKernel) {
  try {
    (void)measure_first_launch(nullptr, config(1, 50));
    ADD_FAILURE() << "measure_first_launch(nullptr): expected std::invalid_argument, got no exception";
  } catch (const std::invalid_argument&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << "measure_first_launch(nullptr): expected std::invalid_argument before any CUDA call, got: "
                  << e.what();
  }
}

// ---- GPU: the clocks ------------------------------------------------------------

TEST(EventTimer, TimesASpinKernelLikeTheRuntimesOwnEvents) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudaEventCreate(&a), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&b), cudaSuccess);
  constexpr unsigned long long kSpinNs = 200'000;
  std::vector<double> yours, theirs;
  {
    EventTimer timer(stream);
    for (int i = 0; i < 5; ++i) {
      timer.start();
      reference::launch_spin(stream, kSpinNs);
      yours.push_back(timer.stop_us());

      ASSERT_EQ(cudaEventRecord(a, stream), cudaSuccess);
      reference::launch_spin(stream, kSpinNs);
      ASSERT_EQ(cudaEventRecord(b, stream), cudaSuccess);
      ASSERT_EQ(cudaEventSynchronize(b), cudaSuccess);
      float ms = 0;
      ASSERT_EQ(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
      theirs.push_back(ms * 1000.0);
    }
  }
  std::sort(yours.begin(), yours.end());
  std::sort(theirs.begin(), theirs.end());
  const double mine = yours[2], ref = theirs[2];
  EXPECT_GE(mine, 190.0) << "the kernel spins for 200 us on the GPU; your EventTimer read " << mine << " us";
  EXPECT_LE(std::abs(mine - ref), std::max(0.1 * ref, 5.0))
      << "your EventTimer read " << mine << " us (median of 5), the runtime's events " << ref << " us";
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaStreamDestroy(stream);
}

// ---- GPU: the figures against the reference --------------------------------------

TEST(LaunchLatency, MatchesTheReferenceWithin25Percent) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  const Pair pair = interleaved([] { return measure_launch_latency(config(1, 600), Clock::host).median; },
                                [] { return reference::latency_us(500); });
  EXPECT_TRUE(Within(pair, "launch + synchronize"));
}

TEST(LaunchThroughput, MatchesTheReferenceWithin25Percent) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  const Pair pair =
      interleaved([] { return measure_launch_throughput(config(1000, 60), Clock::host).median; },
                  [] { return reference::throughput_us(1000, 30); });
  EXPECT_TRUE(Within(pair, "back-to-back launches, per launch"));
}

TEST(LaunchThroughput, EventClockAgreesWithTheHostClock) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  // A trial of 1000 launches keeps the GPU waiting for the host: between the
  // two events the GPU sees the host's pace, so both clocks must agree.
  const Pair pair =
      interleaved([] { return measure_launch_throughput(config(1000, 60), Clock::cuda_events).median; },
                  [] { return measure_launch_throughput(config(1000, 60), Clock::host).median; });
  EXPECT_TRUE(Within(pair, "back-to-back launches timed by CUDA events, against your host clock"));
}

TEST(GraphLaunch, MatchesTheReferenceWithin25Percent) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  const Pair pair =
      interleaved([] { return measure_graph_launch(config(100, 400), Clock::host).median; },
                  [] { return reference::graph_per_kernel_us(100, 60); });
  EXPECT_TRUE(Within(pair, "a graph of 100 kernels, per kernel"));
}

TEST(ParamLaunch, MatchesTheReferenceAtEverySize) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  for (std::size_t bytes : kParamSizes) {
    const Pair pair =
        interleaved([bytes] { return measure_param_launch(config(200, 40), bytes).median; },
                    [bytes] { return reference::param_us(bytes, 200, 30); });
    EXPECT_TRUE(Within(pair, "a " + std::to_string(bytes) + "-byte parameter, per launch"));
  }
}

// ---- GPU: relations that hold on any GPU --------------------------------------------

TEST(LaunchRelations, LatencyIsAboveTheCostPerLaunchOfThroughput) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  const double latency = measure_launch_latency(config(1, 3000), Clock::host).median;
  const double per_launch = measure_launch_throughput(config(1000, 200), Clock::host).median;
  EXPECT_GT(latency, per_launch) << "one launch and wait took " << latency
                                 << " us, but back-to-back launches cost " << per_launch
                                 << " us each: a round trip cannot be cheaper than a launch that does not wait";
}

TEST(LaunchRelations, GraphCostsLessPerKernelThanAStreamLaunch) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  const double graph = measure_graph_launch(config(100, 2000), Clock::host).median;
  const double stream = measure_launch_throughput(config(1000, 200), Clock::host).median;
  EXPECT_LT(graph, stream) << "a kernel in a graph cost " << graph << " us, a launch on a stream " << stream
                           << " us: one graph launch should submit many kernels for the price of one";
}

TEST(LaunchRelations, LargestParameterCostsMoreThanNone) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  const Pair pair = interleaved([] { return measure_param_launch(config(200, 40), 32764).median; },
                                [] { return measure_param_launch(config(200, 40), 0).median; });
  EXPECT_GT(pair.ratio, 1.0) << "launches with 32,764 bytes of parameters cost " << pair.first
                             << " us each, launches without any " << pair.second << " us (medians of "
                             << kRounds << " rounds; round by round, " << pair.ratio << " times as much)";
}

TEST(FirstLaunch, IsSlowerThanTheLaunchesAfterIt) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  const char* loading = std::getenv("CUDA_MODULE_LOADING");
  if (loading != nullptr && std::string(loading) == "EAGER") {
    GTEST_SKIP() << "CUDA_MODULE_LOADING=EAGER loads every kernel at start-up; this test needs lazy loading";
  }
  const FirstLaunch result = measure_first_launch(reference::never_launched_kernel(), config(1, 3000));
  const double ref_later = reference::latency_us(2000);
  std::printf("  first launch and wait %.3f us, later ones %.3f us (reference %.3f us)\n", result.first_us,
              result.later.median, ref_later);
  EXPECT_GT(result.first_us, result.later.median)
      << "the first launch of a kernel loads it onto the GPU (lazy loading); it took " << result.first_us
      << " us against " << result.later.median << " us for the later ones. Run this test once per process.";
  EXPECT_TRUE(Within(result.later.median, ref_later, "launches after the first, with their wait"));
}

}  // namespace
}  // namespace launchlab::overhead
