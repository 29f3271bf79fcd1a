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
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness.h"
#include "launchlab/drawn.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "reference.h"

namespace launchlab::overhead {
namespace {

using launchlab::testing::median_of;

// The learner's figures are recorded over the reference's, measured in the
// same run, and compared with 1 within 0.25: launch costs drift within a run
// (interleaved() below keeps the drift from counting against the learner); a
// figure that measures the wrong thing (no wait, a wait per launch, the graph
// built inside the trial, a timer around the wrong code) is off by far more.

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

// How far a figure may be from the reference's measured in another process
// (the reference's run of the same grading), as a fraction of it.
constexpr double kFigureTolerance = 0.5;

Pair interleaved(const std::function<double()>& first, const std::function<double()>& second) {
  std::vector<double> a, b, ratios;
  for (int round = 0; round < kRounds; ++round) {
    a.push_back(first());
    b.push_back(second());
    ratios.push_back(b.back() > 0 ? a.back() / b.back() : 0);
  }
  return {median_of(a), median_of(b), median_of(ratios)};
}

// In the reference's run the judge reads only what each record is compared
// with: the figures of the tests' own launches. The solution's figures would
// be read by nothing there, and measuring them would double the time that
// each grading holds the GPU alone; so that run measures the tests' own
// launches only and stands them in for the solution's. The solution's own
// figures are measured in its run (`launchlab check`), against these.
std::function<double()> yours_or_the_tests(std::function<double()> yours, std::function<double()> tests_own) {
  if constexpr (testing::kReferenceBuild) return tests_own;
  return yours;
}

std::function<Summary()> yours_or_the_tests(std::function<Summary()> yours, std::function<double()> tests_own) {
  if constexpr (testing::kReferenceBuild) {
    return [tests_own] {
      Summary figure;
      figure.median = tests_own();
      return figure;
    };
  }
  return yours;
}

// The tests' own figures alone, kRounds of them, standing in for yours in
// the reference's run (above).
Pair tests_own_alone(const std::function<double()>& tests_own) {
  std::vector<double> figures;
  for (int round = 0; round < kRounds; ++round) figures.push_back(tests_own());
  const double median = median_of(figures);
  return {median, median, 1.0};
}

// The learner's figures (first) against the reference's (second), taken in
// turns: records that the learner's code ran, that its figure is above 0,
// and the median of the rounds' ratios. What each side measured is printed.
void RecordAgainstReference(const std::function<double()>& yours, const std::function<double()>& reference,
                            const std::string& what) {
  RECORD_SCOPE(what);
  Pair pair;
  RECORD_NO_THROW(pair = testing::kReferenceBuild ? tests_own_alone(reference) : interleaved(yours, reference))
      << "your measurement, taking turns with the reference's";
  RECORD_GT(pair.first, 0.0) << "the median of your figures, in microseconds";
  RECORD_NEAR(pair.ratio, 1.0, 0.25)
      << "your figure over the reference's, round by round (the median of " << kRounds << " rounds)";
  // A ratio of 1 is no figure a program must measure to write: the points
  // also rest on the figure itself, against the reference's figure measured
  // in the reference's run, within a half of it (two processes see more of
  // the host's swings than two turns of one).
  RECORD_NEAR(pair.first, pair.second, kFigureTolerance * pair.second)
      << "the median of your figures, in microseconds, against the reference's measured in the reference's run";
  std::printf("  %s: yours %.3f us, reference %.3f us, round by round yours was %.3f times the reference's\n",
              what.c_str(), pair.first, pair.second, pair.ratio);
}

// The median of a measurement, with whether it threw recorded (0 when it did).
double Median(const std::function<Summary()>& measure, const std::string& call) {
  double median = 0;
  RECORD_NO_THROW(median = measure().median) << call;
  return median;
}

void clear_errors() { cudaGetLastError(); }

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("the test's own ") + call + " failed: " + cudaGetErrorString(status));
  }
}

// ---- CPU: arguments are checked before any CUDA call --------------------------

// The cheapest valid configuration: one timed trial of one launch, none
// untimed. The drawn calls below run on a GPU with it, and fail in CUDA
// without one: only whether each call was rejected is the same on every machine.
BenchConfig one_trial() {
  BenchConfig c = config(1, 1);
  c.warmup_trials = 0;
  c.min_trials = 1;
  return c;
}

constexpr const char* kRejectedContext =
    "[i]: whether call i threw std::invalid_argument, with a configuration of one trial of one launch; the calls: ";

TEST(ParamLaunch, RejectsASizeNotInTheList) {
  for (std::size_t bytes : {std::size_t{1}, std::size_t{100}, std::size_t{32765}, std::size_t{65536}}) {
    RECORD_THROWS((void)measure_param_launch(config(10, 50), bytes), std::invalid_argument)
        << "measure_param_launch(config, param_bytes = " << bytes << "), before any CUDA call";
  }
  // Drawn sizes, valid or not by the draw: one of kParamSizes, or one
  // within 16 bytes of one that is none of them.
  std::mt19937_64 random = testing::seeded_random(20261001);
  testing::RejectionTable table;
  for (const bool valid : testing::draw_validity(random, 8)) {
    std::size_t bytes = kParamSizes[random() % kParamSizes.size()];
    if (!valid) {
      do {
        const std::size_t near = kParamSizes[random() % kParamSizes.size()];
        const std::size_t apart = 1 + random() % 16;
        bytes = random() % 2 == 0 && near >= apart ? near - apart : near + apart;
      } while (std::find(kParamSizes.begin(), kParamSizes.end(), bytes) != kParamSizes.end());
    }
    table.add(valid, "measure_param_launch(config, param_bytes = " + std::to_string(bytes) + ")",
              [&] { (void)measure_param_launch(one_trial(), bytes); });
  }
  RECORD_EQ(table.rejected, table.invalid) << kRejectedContext << table.calls;
}

TEST(FirstLaunch, RejectsANullKernel) {
  RECORD_THROWS((void)measure_first_launch(nullptr, config(1, 50)), std::invalid_argument)
      << "measure_first_launch(nullptr, config), before any CUDA call";
  // Drawn calls, each with a null kernel or an empty kernel the tests launch
  // themselves too (never the one FirstLaunch.IsSlowerThanTheLaunchesAfterIt
  // launches first).
  std::mt19937_64 random = testing::seeded_random(20261002);
  testing::RejectionTable table;
  for (const bool valid : testing::draw_validity(random, 8)) {
    const void* kernel = valid ? reference::empty_kernel() : nullptr;
    table.add(valid, valid ? "measure_first_launch(an empty kernel, config)" : "measure_first_launch(nullptr, config)",
              [&] { (void)measure_first_launch(kernel, one_trial()); });
  }
  RECORD_EQ(table.rejected, table.invalid) << kRejectedContext << table.calls;
}

// ---- CPU: where no GPU answers ----------------------------------------------------

TEST(Measurements, CheckTheirArgumentsFirstAndReportAFailedCudaCall) {
  // Where CUDA sees no device, every CUDA call fails: a call whose arguments
  // break a stated rule throws std::invalid_argument (checked before any
  // CUDA call), and any other throws std::runtime_error, the failed call's.
  // The calls are drawn: which ones are valid no transcript written ahead
  // of the run can say.
  std::mt19937_64 random = testing::seeded_random(20261205);
  std::vector<std::size_t> sizes;
  for (const bool valid : testing::draw_validity(random, 6)) {
    std::size_t bytes = kParamSizes[random() % kParamSizes.size()];
    while (!valid && std::find(kParamSizes.begin(), kParamSizes.end(), bytes) != kParamSizes.end()) {
      bytes = 1 + random() % 40000;
    }
    sizes.push_back(bytes);
  }
  const std::vector<bool> kernels = testing::draw_validity(random, 4);
  std::string calls;
  for (const std::size_t bytes : sizes) calls += "measure_param_launch(config, " + std::to_string(bytes) + "); ";
  for (const bool valid : kernels) calls += valid ? "measure_first_launch(an empty kernel, config); " : "measure_first_launch(nullptr, config); ";
  const std::string outcomes = testing::outcome_without_a_gpu([&] {
    std::vector<std::string> thrown;
    for (const std::size_t bytes : sizes) {
      thrown.push_back(testing::kind_thrown([&] { (void)measure_param_launch(one_trial(), bytes); }));
    }
    for (const bool valid : kernels) {
      const void* kernel = valid ? reference::empty_kernel() : nullptr;
      thrown.push_back(testing::kind_thrown([&] { (void)measure_first_launch(kernel, one_trial()); }));
    }
    return nlohmann::json(thrown).dump();
  });
  RECORD_AS_THE_REFERENCE(outcomes)
      << "what each call threw, in a process where CUDA sees no device, in order: " << calls;

  RECORD_THROWS_WITHOUT_A_GPU((void)measure_launch_latency(one_trial(), Clock::host), std::runtime_error)
      << "measure_launch_latency(config, Clock::host) where CUDA sees no device";
  RECORD_THROWS_WITHOUT_A_GPU((void)measure_launch_throughput(one_trial(), Clock::cuda_events), std::runtime_error)
      << "measure_launch_throughput(config, Clock::cuda_events) where CUDA sees no device";
  RECORD_THROWS_WITHOUT_A_GPU((void)measure_graph_launch(one_trial(), Clock::host), std::runtime_error)
      << "measure_graph_launch(config, Clock::host) where CUDA sees no device";
  RECORD_THROWS_WITHOUT_A_GPU((void)measure_param_launch(one_trial(), 64), std::runtime_error)
      << "measure_param_launch(config, 64) where CUDA sees no device";
  RECORD_THROWS_WITHOUT_A_GPU((void)measure_first_launch(reference::empty_kernel(), one_trial()), std::runtime_error)
      << "measure_first_launch(an empty kernel, config) where CUDA sees no device";
  RECORD_THROWS_WITHOUT_A_GPU(EventTimer timer(nullptr), std::runtime_error)
      << "EventTimer(nullptr) where CUDA sees no device: its events cannot be created";
}

// ---- GPU: the clocks ------------------------------------------------------------

TEST(EventTimer, TimesASpinKernelLikeTheRuntimesOwnEvents) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  cudaEvent_t a = nullptr, b = nullptr;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  constexpr unsigned long long kSpinNs = 200'000;
  RECORD_SCOPE("EventTimer(stream) around a kernel that spins 200 us on the GPU, 5 times, taking turns with a pair "
               "of the runtime's own events around the same kernel");
  std::vector<double> yours, theirs;
  // The runtime's own events around the same kernel, right after each of yours.
  auto runtime_events_us = [&] {
    check(cudaEventRecord(a, stream), "cudaEventRecord");
    reference::launch_spin(stream, kSpinNs);
    check(cudaEventRecord(b, stream), "cudaEventRecord");
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    return ms * 1000.0;
  };
  // Five rounds: your EventTimer around the kernel, then the runtime's events around it.
  auto take_turns = [&] {
    EventTimer timer(stream);
    for (int i = 0; i < 5; ++i) {
      timer.start();
      reference::launch_spin(stream, kSpinNs);
      yours.push_back(timer.stop_us());
      theirs.push_back(runtime_events_us());
    }
  };
  RECORD_NO_THROW(take_turns());
  // Stopped without a start, the timer has no first event to measure from:
  // cudaEventElapsedTime refuses an event that was never recorded.
  {
    EventTimer unstarted(stream);
    RECORD_THROWS((void)unstarted.stop_us(), std::runtime_error)
        << "stop_us() of an EventTimer whose start() was never called";
  }
  // While a blocking stream is being captured, the legacy default stream
  // cannot take work: its implicit wait on every blocking stream would make
  // the capture depend on it, so cudaEventRecord refuses
  // (cudaErrorStreamCaptureImplicit), and start() must say so.
  {
    EventTimer on_the_legacy_stream(nullptr);
    cudaStream_t capturing = nullptr;
    check(cudaStreamCreate(&capturing), "cudaStreamCreate");
    check(cudaStreamBeginCapture(capturing, cudaStreamCaptureModeRelaxed), "cudaStreamBeginCapture");
    RECORD_THROWS(on_the_legacy_stream.start(), std::runtime_error)
        << "start() of an EventTimer(nullptr) while another, blocking stream is being captured into a graph";
    cudaGraph_t graph = nullptr;
    (void)cudaStreamEndCapture(capturing, &graph);  // refused: the refusal invalidated the capture
    if (graph != nullptr) cudaGraphDestroy(graph);
    cudaStreamDestroy(capturing);
  }
  clear_errors();
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaStreamDestroy(stream);
  RECORD_EQ(yours.size(), 5u) << "the times your EventTimer read";
  RECORD_REQUIRE(yours.size() == 5 && theirs.size() == 5);
  const double mine = median_of(yours);
  RECORD_GE(mine, 190.0) << "the median your EventTimer read, in microseconds: the kernel spins 200 us on the GPU";
  const double mine_over_runtime = mine / median_of(theirs);
  RECORD_NEAR(mine_over_runtime, 1.0, 0.1)
      << "the median your EventTimer read over the median the runtime's events read";
}

// ---- GPU: the figures against the reference --------------------------------------

TEST(LaunchLatency, MatchesTheReferenceWithin25Percent) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  RecordAgainstReference([] { return measure_launch_latency(config(1, 600), Clock::host).median; },
                         [] { return reference::latency_us(500); },
                         "measure_launch_latency(config, Clock::host): launch + synchronize");
}

TEST(LaunchThroughput, MatchesTheReferenceWithin25Percent) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  RecordAgainstReference([] { return measure_launch_throughput(config(1000, 60), Clock::host).median; },
                         [] { return reference::throughput_us(1000, 30); },
                         "measure_launch_throughput(config with 1000 launches per trial, Clock::host): back-to-back "
                         "launches, per launch");
}

TEST(LaunchThroughput, EventClockAgreesWithTheHostClock) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  // A trial of 1000 launches keeps the GPU waiting for the host: between the
  // two events the GPU sees the host's pace, so both clocks must agree.
  RecordAgainstReference(
      [] { return measure_launch_throughput(config(1000, 60), Clock::cuda_events).median; },
      [] { return measure_launch_throughput(config(1000, 60), Clock::host).median; },
      "measure_launch_throughput(config with 1000 launches per trial, Clock::cuda_events), against the same with "
      "Clock::host (here the 'reference' is your host clock)");
}

TEST(GraphLaunch, MatchesTheReferenceWithin25Percent) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  RecordAgainstReference([] { return measure_graph_launch(config(100, 400), Clock::host).median; },
                         [] { return reference::graph_per_kernel_us(100, 60); },
                         "measure_graph_launch(config with 100 kernels per graph, Clock::host): per kernel");
}

TEST(ParamLaunch, MatchesTheReferenceAtEverySize) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  for (std::size_t bytes : kParamSizes) {
    RecordAgainstReference([bytes] { return measure_param_launch(config(200, 40), bytes).median; },
                           [bytes] { return reference::param_us(bytes, 200, 30); },
                           "measure_param_launch(config with 200 launches per trial, param_bytes = " +
                               std::to_string(bytes) + "): per launch");
  }
}

// ---- GPU: relations that hold on any GPU --------------------------------------------
//
// A relation (above 1, below 1) is what the learner reads, and it is
// recorded; but a ratio above 1 is no value the learner's code must compute
// to write. What carries the points is the ratio itself, judged against the
// same ratio of the tests' own launches (reference.cu) measured in the
// reference's run of the same grading, within a half of it either way: a
// ratio measured with the wrong wait, or none, lands far outside that.

// Records the learner's ratio against the same ratio of the tests' own
// launches, which is what the reference's run measured in its place
// (yours_or_the_tests); the learner's build holds no expected value.
void RecordRatioLikeTheReference(double yours, const std::string& what) {
  [[maybe_unused]] const double theirs = testing::kReferenceBuild ? yours : 0.0;
  RECORD_NEAR(yours, theirs, kFigureTolerance * theirs)
      << what << ", against the same ratio of the tests' own launches in the reference's run (within a half of it)";
  if constexpr (testing::kReferenceBuild) std::printf("  %s, the tests' own launches: %.3f\n", what.c_str(), theirs);
}

TEST(LaunchRelations, LatencyIsAboveTheCostPerLaunchOfThroughput) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  const double latency = Median(yours_or_the_tests([] { return measure_launch_latency(config(1, 3000), Clock::host); },
                                                   [] { return reference::latency_us(500); }),
                                "measure_launch_latency(config, Clock::host)");
  const double per_launch =
      Median(yours_or_the_tests([] { return measure_launch_throughput(config(1000, 200), Clock::host); },
                                [] { return reference::throughput_us(1000, 30); }),
             "measure_launch_throughput(config with 1000 launches per trial, Clock::host)");
  const double latency_over_per_launch = latency / per_launch;
  RECORD_GT(latency_over_per_launch, 1.0)
      << "the median of one launch and wait over the median cost of a back-to-back launch: a round trip cannot be "
         "cheaper than a launch that does not wait";
  RecordRatioLikeTheReference(latency_over_per_launch, "one launch and wait over a back-to-back launch");
}

TEST(LaunchRelations, GraphCostsLessPerKernelThanAStreamLaunch) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  const double graph = Median(yours_or_the_tests([] { return measure_graph_launch(config(100, 2000), Clock::host); },
                                                 [] { return reference::graph_per_kernel_us(100, 60); }),
                              "measure_graph_launch(config with 100 kernels per graph, Clock::host)");
  const double stream =
      Median(yours_or_the_tests([] { return measure_launch_throughput(config(1000, 200), Clock::host); },
                                [] { return reference::throughput_us(1000, 30); }),
             "measure_launch_throughput(config with 1000 launches per trial, Clock::host)");
  const double graph_over_stream = graph / stream;
  RECORD_LT(graph_over_stream, 1.0)
      << "the median cost of a kernel in a graph over that of a launch on a stream: one graph launch should submit "
         "many kernels for the price of one";
  RecordRatioLikeTheReference(graph_over_stream, "a kernel in a graph over a launch on a stream");
}

TEST(LaunchRelations, LargestParameterCostsMoreThanNone) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  Pair pair;
  RECORD_NO_THROW(pair = interleaved(yours_or_the_tests([] { return measure_param_launch(config(200, 40), 32764).median; },
                                                        [] { return reference::param_us(32764, 200, 30); }),
                                     yours_or_the_tests([] { return measure_param_launch(config(200, 40), 0).median; },
                                                        [] { return reference::param_us(0, 200, 30); })))
      << "measure_param_launch(config with 200 launches per trial, 32764 bytes), taking turns with the same with 0 "
         "bytes";
  RECORD_GT(pair.ratio, 1.0) << "the cost of a launch with 32,764 bytes of parameters over that of one without any, "
                             << "round by round (the median of " << kRounds << " rounds)";
  RecordRatioLikeTheReference(pair.ratio, "a launch with 32,764 bytes of parameters over one without any");
}

TEST(FirstLaunch, IsSlowerThanTheLaunchesAfterIt) {
  LAUNCHLAB_REQUIRE_GPU();
  clear_errors();
  const char* loading = std::getenv("CUDA_MODULE_LOADING");
  if (loading != nullptr && std::string(loading) == "EAGER") {
    GTEST_SKIP() << "CUDA_MODULE_LOADING=EAGER loads every kernel at start-up; this test needs lazy loading";
  }
  RECORD_SCOPE("measure_first_launch(a kernel this process has not launched before, config)");
  FirstLaunch result;
  RECORD_NO_THROW(result = measure_first_launch(reference::never_launched_kernel(), config(1, 3000)));
  const double ref_later = reference::latency_us(2000);
  std::printf("  first launch and wait %.3f us, later ones %.3f us (reference %.3f us)\n", result.first_us,
              result.later.median, ref_later);
  const double first_over_later = result.first_us / result.later.median;
  RECORD_GT(first_over_later, 1.0)
      << "first_us over later.median: the first launch of a kernel loads it onto the GPU (lazy loading). Run this "
         "test once per process.";
  RECORD_GT(result.later.median, 0.0) << "later.median, in microseconds";
  const double later_over_reference = result.later.median / ref_later;
  RECORD_NEAR(later_over_reference, 1.0, 0.25)
      << "later.median over the reference's latency of a launch and its wait, measured right after";
  RECORD_NEAR(result.later.median, ref_later, kFigureTolerance * ref_later)
      << "later.median, in microseconds, against the reference's latency of a launch and its wait measured in the "
         "reference's run";
}

}  // namespace
}  // namespace launchlab::overhead
