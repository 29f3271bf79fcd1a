// The harness on the CPU: its statistics on samples whose answers are worked
// out by hand, its trial loop and stop rule driven by a deterministic fake
// clock, the host clock against a sleep, and its CSV.

#include "harness.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "launchlab/testing.h"

namespace launchlab::overhead {
namespace {

using launchlab::testing::lines_of;
using launchlab::testing::median_of;
using launchlab::testing::SameSequence;

// ---- A fake clock ------------------------------------------------------------
//
// Time stands still except when a trial runs: each call of the trial moves
// the clock forward by the next duration of a script. The timer reads that
// clock, so a harness that times anything but exactly one trial between
// start() and stop_us() gets samples that differ from the script.

struct FakeClock {
  double now_us = 0;
  std::vector<double> script;  // the duration of each call of the trial, in order
  std::size_t calls = 0;       // calls of the trial so far

  // Durations past the end of the script repeat it from the start.
  double next_duration() const { return script[calls % script.size()]; }
  std::function<void()> trial() {
    return [this] {
      now_us += next_duration();
      ++calls;
    };
  }
};

class FakeTimer final : public Timer {
 public:
  explicit FakeTimer(const FakeClock& clock) : clock_(clock) {}
  void start() override {
    if (running_) problems_ += "start() called twice without stop_us(); ";
    running_ = true;
    begin_ = clock_.now_us;
    calls_at_start_ = clock_.calls;
    ++starts_;
  }
  double stop_us() override {
    if (!running_) problems_ += "stop_us() called without start(); ";
    running_ = false;
    if (clock_.calls != calls_at_start_ + 1) {
      problems_ += "a timed trial saw " + std::to_string(clock_.calls - calls_at_start_) +
                   " calls of the trial instead of 1; ";
    }
    return clock_.now_us - begin_;
  }
  int starts() const { return starts_; }
  const std::string& problems() const { return problems_; }

 private:
  const FakeClock& clock_;
  bool running_ = false;
  double begin_ = 0;
  std::size_t calls_at_start_ = 0;
  int starts_ = 0;
  std::string problems_;
};

BenchConfig make_config(int warmup, int min_trials, int max_trials, double target, int items = 1,
                        int check_every = 1) {
  BenchConfig c;
  c.warmup_trials = warmup;
  c.min_trials = min_trials;
  c.max_trials = max_trials;
  c.target_relative_error = target;
  c.items_per_trial = items;
  c.check_every = check_every;
  return c;
}

template <class Call>
::testing::AssertionResult ThrowsInvalidArgument(Call call, const std::string& what) {
  try {
    call();
  } catch (const std::invalid_argument&) {
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << what << ": expected std::invalid_argument, got another exception: "
                                         << e.what();
  }
  return ::testing::AssertionFailure() << what << ": expected std::invalid_argument, got no exception";
}

// ---- The tests' own stop rule, written out from harness.h --------------------

double test_relative_error(const std::vector<double>& v) {
  const double m = median_of(v);
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::fabs(x - m));
  const double mad = median_of(dev);
  return 1.2533 * 1.4826 * mad / (std::sqrt(static_cast<double>(v.size())) * m);
}

// ---- Statistics --------------------------------------------------------------

TEST(Statistics, PercentileInterpolatesBetweenClosestRanks) {
  // Sorted: 15 20 35 40 50. h = 4p/100: p = 40 gives h = 1.6, 20 + 0.6 * 15 = 29.
  const std::vector<double> x = {40, 15, 50, 20, 35};
  struct Case {
    double p, expected;
  };
  for (Case c : {Case{0, 15}, Case{25, 20}, Case{40, 29}, Case{50, 35}, Case{90, 46}, Case{100, 50}}) {
    EXPECT_NEAR(percentile(x, c.p), c.expected, 1e-9)
        << "percentile({40, 15, 50, 20, 35}, " << c.p << "): sorted 15 20 35 40 50, h = (n - 1) * p / 100";
  }
  EXPECT_EQ(x, (std::vector<double>{40, 15, 50, 20, 35})) << "percentile must not reorder its input";
}

TEST(Statistics, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median(std::vector<double>{7}), 7) << "median({7})";
  EXPECT_DOUBLE_EQ(median(std::vector<double>{3, 1, 2}), 2) << "median({3, 1, 2}): the middle value";
  EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5)
      << "median({4, 1, 3, 2}): the mean of the two middle values";
}

TEST(Statistics, RejectsNoSamplesAndPercentilesOutside0To100) {
  const std::vector<double> none;
  const std::vector<double> some = {1, 2, 3};
  EXPECT_TRUE(ThrowsInvalidArgument([&] { (void)percentile(none, 50); }, "percentile of no samples"));
  EXPECT_TRUE(ThrowsInvalidArgument([&] { (void)median(none); }, "median of no samples"));
  EXPECT_TRUE(ThrowsInvalidArgument([&] { (void)median_absolute_deviation(none); }, "MAD of no samples"));
  EXPECT_TRUE(ThrowsInvalidArgument([&] { (void)find_outliers(none); }, "outliers of no samples"));
  EXPECT_TRUE(ThrowsInvalidArgument([&] { (void)relative_error(none); }, "relative error of no samples"));
  EXPECT_TRUE(ThrowsInvalidArgument([&] { (void)summarize(none); }, "summary of no samples"));
  EXPECT_TRUE(ThrowsInvalidArgument([&] { (void)percentile(some, -1); }, "percentile -1"));
  EXPECT_TRUE(ThrowsInvalidArgument([&] { (void)percentile(some, 100.5); }, "percentile 100.5"));
  EXPECT_TRUE(ThrowsInvalidArgument([&] { (void)percentile(some, std::nan("")); }, "percentile NaN"));
}

TEST(Statistics, MedianAbsoluteDeviationIgnoresTheWildestSample) {
  // Median 2; deviations 1 1 0 0 2 4 7, whose median is 1.
  EXPECT_DOUBLE_EQ(median_absolute_deviation(std::vector<double>{1, 1, 2, 2, 4, 6, 9}), 1);
  // Make the largest sample a thousand times larger: the MAD does not move.
  EXPECT_DOUBLE_EQ(median_absolute_deviation(std::vector<double>{1, 1, 2, 2, 4, 6, 9000}), 1);
}

TEST(Statistics, OutliersLieOutsideTukeysFences) {
  // Sorted: 7 9 10 10 10 10 11 11 12 30; q1 = 10, q3 = 11, fences 8.5 and 12.5.
  const std::vector<double> x = {7, 10, 11, 10, 12, 30, 10, 9, 11, 10};
  const std::vector<std::size_t> expected = {0, 5};
  EXPECT_TRUE(SameSequence(expected, find_outliers(x)))
      << "indices of 7 (below 8.5) and 30 (above 12.5); 9 and 12 are inside the fences";
  const std::vector<double> calm = {10, 11, 10, 12, 11, 10};
  EXPECT_TRUE(find_outliers(calm).empty()) << "no sample of {10, 11, 10, 12, 11, 10} is an outlier";
}

TEST(Statistics, RelativeErrorIsTheMediansStandardErrorOverTheMedian) {
  // Median 2, MAD 1, n = 7.
  const double expected = 1.2533 * 1.4826 * 1.0 / (std::sqrt(7.0) * 2.0);
  EXPECT_NEAR(relative_error(std::vector<double>{1, 1, 2, 2, 4, 6, 9}), expected, 1e-12);
  // Four times the samples, same shape: the error halves.
  std::vector<double> four_times;
  for (int copy = 0; copy < 4; ++copy) {
    for (double v : {1.0, 1.0, 2.0, 2.0, 4.0, 6.0, 9.0}) four_times.push_back(v);
  }
  EXPECT_NEAR(relative_error(four_times), expected / 2, 1e-12) << "28 samples instead of 7";
  EXPECT_EQ(relative_error(std::vector<double>{5, 5, 5}), 0) << "identical samples";
  EXPECT_EQ(relative_error(std::vector<double>{0, 0, 0}), 0) << "a median of 0 with a MAD of 0";
  EXPECT_EQ(relative_error(std::vector<double>{-1, 0, 1}), std::numeric_limits<double>::infinity())
      << "a median of 0 with a MAD above 0";
}

TEST(Statistics, SummaryHoldsEveryStatistic) {
  const std::vector<double> x = {4, 8, 6, 2};
  const Summary s = summarize(x);
  EXPECT_TRUE(SameSequence(x, s.samples)) << "samples, in the order given";
  EXPECT_DOUBLE_EQ(s.median, 5);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_NEAR(s.stddev, std::sqrt(20.0 / 3.0), 1e-12) << "sample standard deviation, divided by n - 1";
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 8);
  EXPECT_NEAR(s.p10, 2.6, 1e-12);
  EXPECT_NEAR(s.p90, 7.4, 1e-12);
  EXPECT_NEAR(s.p99, 7.94, 1e-12);
  EXPECT_DOUBLE_EQ(s.mad, 2);
  EXPECT_NEAR(s.relative_error, 1.2533 * 1.4826 * 2 / (2 * 5.0), 1e-12);
  EXPECT_TRUE(s.outliers.empty());
  EXPECT_EQ(s.warmup_trials, 0);
  EXPECT_FALSE(s.converged) << "summarize leaves converged to run_benchmark";
  EXPECT_EQ(summarize(std::vector<double>{3}).stddev, 0) << "the standard deviation of one sample";
}

// ---- The trial loop and the stop rule ------------------------------------------

TEST(Harness, WarmUpTrialsRunUntimedBeforeTheFirstSample) {
  FakeClock clock;
  clock.script = {1000, 1000, 1000, 10, 11, 12, 13, 14};
  FakeTimer timer(clock);
  const Summary s = run_benchmark(timer, clock.trial(), make_config(3, 5, 5, 0.01));
  EXPECT_EQ(timer.problems(), "");
  EXPECT_EQ(clock.calls, 8u) << "3 warm-up trials and 5 timed ones";
  EXPECT_EQ(timer.starts(), 5) << "the timer runs for the timed trials only";
  const std::vector<double> expected = {10, 11, 12, 13, 14};
  EXPECT_TRUE(SameSequence(expected, s.samples))
      << "the samples are the trials after the warm-up (the warm-up trials took 1000 us each)";
  EXPECT_EQ(s.warmup_trials, 3);
}

TEST(Harness, StopsAtMinTrialsWhenEverySampleIsEqual) {
  FakeClock clock;
  clock.script = {5};
  FakeTimer timer(clock);
  const Summary s = run_benchmark(timer, clock.trial(), make_config(0, 7, 100, 0.01));
  EXPECT_EQ(timer.problems(), "");
  EXPECT_EQ(s.samples.size(), 7u) << "the relative error is 0 from the first sample, so min_trials ends it";
  EXPECT_TRUE(s.converged);
  EXPECT_DOUBLE_EQ(s.median, 5);
}

// Deterministic noise between 90 and 110 us from a fixed linear congruential generator.
std::vector<double> noisy_script() {
  std::vector<double> script;
  std::uint32_t state = 12345;
  for (int i = 0; i < 5000; ++i) {
    state = state * 1664525u + 1013904223u;
    script.push_back(90.0 + 20.0 * static_cast<double>(state >> 8) / static_cast<double>(1u << 24));
  }
  return script;
}

// Where the rule of harness.h stops on a script: the first sample count n
// from min_trials on, with (n - min_trials) a multiple of check_every, at
// which the relative error is at most the target; 0 if none.
std::size_t stop_point(const std::vector<double>& script, int min_trials, int check_every, double target) {
  std::vector<double> seen;
  for (double d : script) {
    seen.push_back(d);
    const int n = static_cast<int>(seen.size());
    if (n >= min_trials && (n - min_trials) % check_every == 0 && test_relative_error(seen) <= target) {
      return seen.size();
    }
  }
  return 0;
}

TEST(Harness, RunsUntilTheRelativeErrorMeetsTheTarget) {
  FakeClock clock;
  clock.script = noisy_script();
  const double target = 0.005;
  const int min_trials = 10;
  const std::size_t expected = stop_point(clock.script, min_trials, 1, target);
  ASSERT_GT(expected, static_cast<std::size_t>(min_trials)) << "the script should need more than min_trials";

  FakeTimer timer(clock);
  const Summary s = run_benchmark(timer, clock.trial(), make_config(0, min_trials, 5000, target));
  EXPECT_EQ(timer.problems(), "");
  EXPECT_EQ(s.samples.size(), expected)
      << "the first sample count, from min_trials on, at which relative_error <= " << target;
  EXPECT_TRUE(s.converged);
  EXPECT_LE(s.relative_error, target);
}

TEST(Harness, ChecksTheStopRuleOnlyEveryCheckEverySamples) {
  FakeClock clock;
  clock.script = noisy_script();
  const double target = 0.005;
  const int min_trials = 10;
  const int check_every = 64;
  const std::size_t every_sample = stop_point(clock.script, min_trials, 1, target);
  const std::size_t expected = stop_point(clock.script, min_trials, check_every, target);
  ASSERT_GT(expected, every_sample) << "on this script, checking every 64 samples must stop later than every sample";
  ASSERT_EQ((expected - min_trials) % check_every, 0u);

  FakeTimer timer(clock);
  const Summary s = run_benchmark(timer, clock.trial(), make_config(0, min_trials, 5000, target, 1, check_every));
  EXPECT_EQ(timer.problems(), "");
  EXPECT_EQ(s.samples.size(), expected)
      << "with min_trials " << min_trials << " and check_every " << check_every
      << ", the rule is checked at 10, 74, 138, ... samples only; checked after every sample it would stop at "
      << every_sample;
  EXPECT_TRUE(s.converged);
}

TEST(Harness, GivesUpAfterMaxTrialsAndSaysSo) {
  // 50, 100, 150 over and over: median 100, MAD 50, relative error about 0.93 / sqrt(n).
  FakeClock clock;
  clock.script = {50, 100, 150};
  FakeTimer timer(clock);
  const Summary s = run_benchmark(timer, clock.trial(), make_config(0, 10, 200, 0.01));
  EXPECT_EQ(timer.problems(), "");
  EXPECT_EQ(s.samples.size(), 200u) << "the target needs thousands of samples; max_trials is 200";
  EXPECT_FALSE(s.converged) << "stopped by max_trials, not by the target";
  EXPECT_GT(s.relative_error, 0.01);
}

TEST(Harness, DividesEachTrialByItsItems) {
  FakeClock clock;
  clock.script = {400, 440};
  FakeTimer timer(clock);
  const Summary s = run_benchmark(timer, clock.trial(), make_config(1, 4, 4, 0.5, 40));
  EXPECT_EQ(timer.problems(), "");
  // The warm-up takes the script's first entry, so the samples start at 440.
  const std::vector<double> expected = {11, 10, 11, 10};
  EXPECT_TRUE(SameSequence(expected, s.samples)) << "trials of 440 and 400 us, 40 items each";
}

TEST(Harness, ReportsAnOutlierByItsTrialIndex) {
  FakeClock clock;
  clock.script = {10, 10.2, 9.9, 10.1, 10, 9.8, 10.3, 95, 10, 10.1, 9.9, 10.2};
  FakeTimer timer(clock);
  const Summary s = run_benchmark(timer, clock.trial(), make_config(0, 12, 12, 0.5));
  EXPECT_EQ(timer.problems(), "");
  const std::vector<std::size_t> expected = {7};
  EXPECT_TRUE(SameSequence(expected, s.outliers)) << "trial 7 took 95 us, the others about 10";
  EXPECT_DOUBLE_EQ(s.max, 95) << "an outlier is reported, not removed";
}

TEST(Harness, RejectsABadConfigurationBeforeRunningAnything) {
  struct Bad {
    BenchConfig config;
    const char* what;
  };
  const Bad cases[] = {
      {make_config(-1, 5, 10, 0.01), "warmup_trials = -1"},
      {make_config(0, 0, 10, 0.01), "min_trials = 0"},
      {make_config(0, 10, 5, 0.01), "max_trials below min_trials"},
      {make_config(0, 5, 10, 0), "target_relative_error = 0"},
      {make_config(0, 5, 10, 0.01, 0), "items_per_trial = 0"},
      {make_config(0, 5, 10, 0.01, 1, 0), "check_every = 0"},
  };
  for (const Bad& bad : cases) {
    FakeClock clock;
    clock.script = {1};
    FakeTimer timer(clock);
    EXPECT_TRUE(ThrowsInvalidArgument([&] { (void)run_benchmark(timer, clock.trial(), bad.config); }, bad.what));
    EXPECT_EQ(clock.calls, 0u) << bad.what << ": the trial ran before the configuration was checked";
  }
}

// ---- The host clock --------------------------------------------------------------

TEST(HostTimer, MeasuresASleep) {
  HostTimer timer;
  timer.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  const double us = timer.stop_us();
  EXPECT_GE(us, 3000.0) << "a 3 ms sleep lasts at least 3000 us";
  EXPECT_LT(us, 500000.0) << "a 3 ms sleep measured as more than half a second";
  timer.start();
  const double nothing = timer.stop_us();
  EXPECT_GE(nothing, 0.0);
  EXPECT_LT(nothing, 1000.0) << "start() then stop_us() at once";
}

// ---- CSV ---------------------------------------------------------------------------

Measurement known_row() {
  Measurement m;
  m.name = "launch_latency";
  m.clock = "host";
  m.param_bytes = 0;
  Summary& s = m.summary;
  s.samples = {9.0, 9.1, 9.5};
  s.warmup_trials = 10;
  s.converged = true;
  s.median = 9.1;
  s.p10 = 9.02;
  s.p90 = 9.42;
  s.p99 = 9.492;
  s.mean = 9.2;
  s.stddev = 0.264575;
  s.min = 9.0;
  s.max = 9.5;
  s.mad = 0.1;
  s.relative_error = 0.0107268;
  s.outliers = {2};
  return m;
}

TEST(Csv, StartsWithTheHeaderAndHasOneLinePerRow) {
  Measurement second = known_row();
  second.name = "param_launch";
  second.param_bytes = 32764;
  const std::vector<Measurement> rows = {known_row(), second};
  const std::string csv = to_csv(rows);
  const std::vector<std::string> lines = lines_of(csv);
  ASSERT_EQ(lines.size(), 3u) << "a header and two rows; got:\n" << csv;
  EXPECT_EQ(lines[0], kCsvHeader);
  EXPECT_EQ(lines[2].rfind("param_launch,host,32764,", 0), 0u) << "got: " << lines[2];
  EXPECT_FALSE(csv.empty() || csv.back() != '\n') << "every line ends in a line break";
  EXPECT_EQ(csv.find('\r'), std::string::npos) << "a line ends in a line feed alone, without a carriage return";
  EXPECT_EQ(lines_of(to_csv({})).size(), 1u) << "no rows: the header alone";
}

TEST(Csv, PrintsTheFieldsInTheHeadersOrder) {
  const std::vector<Measurement> rows = {known_row()};
  const std::vector<std::string> lines = lines_of(to_csv(rows));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1],
            "launch_latency,host,0,3,10,1,9.1000,9.0200,9.4200,9.4920,9.2000,0.2646,9.0000,9.5000,"
            "0.010727,1");
}

TEST(Csv, RejectsANameThatWouldBreakTheFormat) {
  for (const char* name : {"launch,latency", "launch\"latency", "launch\nlatency"}) {
    Measurement m = known_row();
    m.name = name;
    const std::vector<Measurement> rows = {m};
    EXPECT_TRUE(ThrowsInvalidArgument([&] { (void)to_csv(rows); }, std::string("name ") + name));
  }
  Measurement m = known_row();
  m.clock = "host,events";
  const std::vector<Measurement> rows = {m};
  EXPECT_TRUE(ThrowsInvalidArgument([&] { (void)to_csv(rows); }, "clock host,events"));
}

}  // namespace
}  // namespace launchlab::overhead
