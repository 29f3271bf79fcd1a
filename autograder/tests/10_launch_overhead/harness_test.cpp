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
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "launchlab/record.h"
#include "launchlab/testing.h"

namespace launchlab::overhead {
namespace {

using launchlab::testing::lines_of;
using launchlab::testing::median_of;
using launchlab::testing::Expected;

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
  return {.warmup_trials = warmup, .min_trials = min_trials, .max_trials = max_trials,
          .target_relative_error = target, .items_per_trial = items, .check_every = check_every};
}

// run_benchmark on the fake clock, with whether it threw and what the timer
// saw go wrong recorded; the summary (empty when it threw) and the timer's
// starts.
struct FakeRun {
  Summary summary;
  int starts = 0;
};

FakeRun RunOnFakeClock(FakeClock& clock, const BenchConfig& config) {
  FakeTimer timer(clock);
  FakeRun run;
  RECORD_NO_THROW(run.summary = run_benchmark(timer, clock.trial(), config));
  RECORD_EQ(timer.problems(), "") << "what the timer saw go wrong";
  run.starts = timer.starts();
  return run;
}

// ---- The tests' own stop rule, written out from harness.h --------------------

[[maybe_unused]] double test_relative_error(const std::vector<double>& v) {
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
    double p;
    Expected<double> percentile;
  };
  const Case cases[] = {{0, LAUNCHLAB_EXPECTED(15)},  {25, LAUNCHLAB_EXPECTED(20)}, {40, LAUNCHLAB_EXPECTED(29)},
                        {50, LAUNCHLAB_EXPECTED(35)}, {90, LAUNCHLAB_EXPECTED(46)}, {100, LAUNCHLAB_EXPECTED(50)}};
  for (const Case& c : cases) {
    RECORD_NEAR(percentile(x, c.p), c.percentile, 1e-9)
        << "percentile({40, 15, 50, 20, 35}, " << c.p << "): sorted 15 20 35 40 50, h = (n - 1) * p / 100";
  }
  RECORD_EQ(x, (std::vector<double>{40, 15, 50, 20, 35}))
      << "the samples after percentile({40, 15, 50, 20, 35}, p): percentile must not reorder its input";
}

TEST(Statistics, MedianOfOddAndEvenCounts) {
  RECORD_NEAR(median(std::vector<double>{7}), 7, 1e-12) << "median({7})";
  RECORD_NEAR(median(std::vector<double>{3, 1, 2}), 2, 1e-12) << "median({3, 1, 2}): the middle value";
  RECORD_NEAR(median(std::vector<double>{4, 1, 3, 2}), 2.5, 1e-12)
      << "median({4, 1, 3, 2}): the mean of the two middle values";
}

TEST(Statistics, RejectsNoSamplesAndPercentilesOutside0To100) {
  const std::vector<double> none;
  const std::vector<double> some = {1, 2, 3};
  RECORD_THROWS((void)percentile(none, 50), std::invalid_argument) << "percentile({}, 50)";
  RECORD_THROWS((void)median(none), std::invalid_argument) << "median({})";
  RECORD_THROWS((void)median_absolute_deviation(none), std::invalid_argument) << "median_absolute_deviation({})";
  RECORD_THROWS((void)find_outliers(none), std::invalid_argument) << "find_outliers({})";
  RECORD_THROWS((void)relative_error(none), std::invalid_argument) << "relative_error({})";
  RECORD_THROWS((void)summarize(none), std::invalid_argument) << "summarize({})";
  RECORD_THROWS((void)percentile(some, -1), std::invalid_argument) << "percentile({1, 2, 3}, -1)";
  RECORD_THROWS((void)percentile(some, 100.5), std::invalid_argument) << "percentile({1, 2, 3}, 100.5)";
  RECORD_THROWS((void)percentile(some, std::nan("")), std::invalid_argument) << "percentile({1, 2, 3}, NaN)";
  // Drawn whole-number samples (a median of them is exact however it is
  // computed), every other set empty: only code that rejects exactly those
  // and finds the median of the rest matches the solution.
  std::mt19937_64 random = testing::seeded_random(20261001);
  for (int row = 0; row < 8; ++row) {
    std::vector<double> samples(row % 2 == 0 ? 0 : 1 + random() % 9);
    for (double& sample : samples) sample = static_cast<double>(random() % 2001) - 1000;
    RECORD_OUTCOME(median(samples), std::invalid_argument) << "median(" << ::testing::PrintToString(samples) << ")";
  }
}

TEST(Statistics, MedianAbsoluteDeviationIgnoresTheWildestSample) {
  // Median 2; deviations 1 1 0 0 2 4 7, whose median is 1.
  RECORD_NEAR(median_absolute_deviation(std::vector<double>{1, 1, 2, 2, 4, 6, 9}), 1, 1e-12)
      << "median_absolute_deviation({1, 1, 2, 2, 4, 6, 9})";
  // Make the largest sample a thousand times larger: the MAD does not move.
  RECORD_NEAR(median_absolute_deviation(std::vector<double>{1, 1, 2, 2, 4, 6, 9000}), 1, 1e-12)
      << "median_absolute_deviation({1, 1, 2, 2, 4, 6, 9000})";
}

TEST(Statistics, OutliersLieOutsideTukeysFences) {
  // Sorted: 7 9 10 10 10 10 11 11 12 30; q1 = 10, q3 = 11, fences 8.5 and 12.5.
  const std::vector<double> x = {7, 10, 11, 10, 12, 30, 10, 9, 11, 10};
  RECORD_EQ(find_outliers(x), (std::vector<std::size_t>{0, 5}))
      << "find_outliers({7, 10, 11, 10, 12, 30, 10, 9, 11, 10}): the indices of 7 (below 8.5) and 30 (above 12.5); 9 "
         "and 12 are inside the fences";
  const std::vector<double> calm = {10, 11, 10, 12, 11, 10};
  RECORD_EQ(find_outliers(calm), std::vector<std::size_t>{}) << "find_outliers({10, 11, 10, 12, 11, 10})";
}

TEST(Statistics, RelativeErrorIsTheMediansStandardErrorOverTheMedian) {
  // Median 2, MAD 1, n = 7: 1.2533 * 1.4826 * 1 / (sqrt(7) * 2).
  RECORD_NEAR(relative_error(std::vector<double>{1, 1, 2, 2, 4, 6, 9}), 1.2533 * 1.4826 * 1.0 / (std::sqrt(7.0) * 2.0),
              1e-12)
      << "relative_error({1, 1, 2, 2, 4, 6, 9}): median 2, MAD 1, n = 7";
  // Four times the samples, same shape: the error halves.
  std::vector<double> four_times;
  for (int copy = 0; copy < 4; ++copy) {
    for (double v : {1.0, 1.0, 2.0, 2.0, 4.0, 6.0, 9.0}) four_times.push_back(v);
  }
  RECORD_NEAR(relative_error(four_times), 1.2533 * 1.4826 * 1.0 / (std::sqrt(7.0) * 2.0) / 2, 1e-12)
      << "relative_error({1, 1, 2, 2, 4, 6, 9} four times over): 28 samples instead of 7";
  RECORD_EQ(relative_error(std::vector<double>{5, 5, 5}), 0.0) << "relative_error({5, 5, 5}): identical samples";
  RECORD_EQ(relative_error(std::vector<double>{0, 0, 0}), 0.0)
      << "relative_error({0, 0, 0}): a median of 0 with a MAD of 0";
  RECORD_EQ(relative_error(std::vector<double>{-1, 0, 1}), std::numeric_limits<double>::infinity())
      << "relative_error({-1, 0, 1}): a median of 0 with a MAD above 0";
}

TEST(Statistics, SummaryHoldsEveryStatistic) {
  const std::vector<double> x = {4, 8, 6, 2};
  RECORD_SCOPE("summarize({4, 8, 6, 2})");
  Summary s;
  RECORD_NO_THROW(s = summarize(x));
  RECORD_EQ(s.samples, x) << "samples, in the order given";
  RECORD_NEAR(s.median, 5, 1e-12) << "median";
  RECORD_NEAR(s.mean, 5, 1e-12) << "mean";
  RECORD_NEAR(s.stddev, std::sqrt(20.0 / 3.0), 1e-12) << "stddev: the sample standard deviation, divided by n - 1";
  RECORD_NEAR(s.min, 2, 1e-12) << "min";
  RECORD_NEAR(s.max, 8, 1e-12) << "max";
  RECORD_NEAR(s.p10, 2.6, 1e-12) << "p10";
  RECORD_NEAR(s.p90, 7.4, 1e-12) << "p90";
  RECORD_NEAR(s.p99, 7.94, 1e-12) << "p99";
  RECORD_NEAR(s.mad, 2, 1e-12) << "mad";
  RECORD_NEAR(s.relative_error, 1.2533 * 1.4826 * 2 / (2 * 5.0), 1e-12) << "relative_error";
  RECORD_EQ(s.outliers, std::vector<std::size_t>{}) << "outliers";
  RECORD_EQ(s.warmup_trials, 0) << "warmup_trials: summarize leaves it to run_benchmark";
  RECORD_FALSE(s.converged) << "converged: summarize leaves it to run_benchmark";
  RECORD_EQ(summarize(std::vector<double>{3}).stddev, 0.0)
      << "summarize({3}).stddev: the standard deviation of one sample";
}

// ---- The trial loop and the stop rule ------------------------------------------

TEST(Harness, WarmUpTrialsRunUntimedBeforeTheFirstSample) {
  FakeClock clock;
  clock.script = {1000, 1000, 1000, 10, 11, 12, 13, 14};
  RECORD_SCOPE(
      "run_benchmark(a timer, trials of 1000, 1000, 1000, 10, 11, 12, 13, 14 us, {warmup_trials = 3, min_trials = 5, "
      "max_trials = 5})");
  const FakeRun run = RunOnFakeClock(clock, make_config(3, 5, 5, 0.01));
  const Summary& s = run.summary;
  RECORD_EQ(clock.calls, 8u) << "the calls of the trial: 3 warm-up trials and 5 timed ones";
  RECORD_EQ(run.starts, 5) << "the timer's starts: it runs for the timed trials only";
  RECORD_EQ(s.samples, (std::vector<double>{10, 11, 12, 13, 14}))
      << "samples: the trials after the warm-up (the warm-up trials took 1000 us each)";
  RECORD_EQ(s.warmup_trials, 3) << "warmup_trials";
}

TEST(Harness, StopsAtMinTrialsWhenEverySampleIsEqual) {
  FakeClock clock;
  clock.script = {5};
  RECORD_SCOPE("run_benchmark(a timer, trials of 5 us each, {warmup_trials = 0, min_trials = 7, max_trials = 100, "
               "target_relative_error = 0.01})");
  const FakeRun run = RunOnFakeClock(clock, make_config(0, 7, 100, 0.01));
  const Summary& s = run.summary;
  RECORD_EQ(s.samples.size(), 7u)
      << "the samples: the relative error is 0 from the first sample, so min_trials ends it";
  RECORD_TRUE(s.converged) << "converged";
  RECORD_NEAR(s.median, 5, 1e-12) << "median";
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
[[maybe_unused]] std::size_t stop_point(const std::vector<double>& script, int min_trials, int check_every,
                                        double target) {
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

// stop_point() for the test's script, checked to be later than min_trials
// (so that the test shows the rule at work); throws otherwise.
[[maybe_unused]] std::size_t later_stop_point(const std::vector<double>& script, int min_trials, int check_every,
                                              double target) {
  const std::size_t n = stop_point(script, min_trials, check_every, target);
  if (n <= static_cast<std::size_t>(min_trials) || (n - min_trials) % check_every != 0) {
    throw std::logic_error("the test's script stops at " + std::to_string(n) + " samples: it shows nothing");
  }
  if (check_every > 1 && n <= stop_point(script, min_trials, 1, target)) {
    throw std::logic_error("on the test's script, checking every few samples must stop later than every sample");
  }
  return n;
}

TEST(Harness, RunsUntilTheRelativeErrorMeetsTheTarget) {
  FakeClock clock;
  clock.script = noisy_script();
  const double target = 0.005;
  const int min_trials = 10;
  RECORD_SCOPE("run_benchmark(a timer, trials of 90 to 110 us, {warmup_trials = 0, min_trials = 10, max_trials = 5000, "
               "target_relative_error = 0.005, check_every = 1})");
  const FakeRun run = RunOnFakeClock(clock, make_config(0, min_trials, 5000, target));
  const Summary& s = run.summary;
  RECORD_EQ(s.samples.size(), later_stop_point(clock.script, min_trials, 1, target))
      << "the samples: the first sample count, from min_trials on, at which relative_error <= 0.005";
  RECORD_TRUE(s.converged) << "converged";
  RECORD_LE(s.relative_error, target) << "relative_error";
}

TEST(Harness, ChecksTheStopRuleOnlyEveryCheckEverySamples) {
  FakeClock clock;
  clock.script = noisy_script();
  const double target = 0.005;
  const int min_trials = 10;
  const int check_every = 64;
  RECORD_SCOPE("run_benchmark(a timer, trials of 90 to 110 us, {warmup_trials = 0, min_trials = 10, max_trials = 5000, "
               "target_relative_error = 0.005, check_every = 64})");
  const FakeRun run = RunOnFakeClock(clock, make_config(0, min_trials, 5000, target, 1, check_every));
  const Summary& s = run.summary;
  RECORD_EQ(s.samples.size(), later_stop_point(clock.script, min_trials, check_every, target))
      << "the samples: the rule is checked at 10, 74, 138, ... samples only (checked after every sample, it would "
         "stop earlier on these trials)";
  RECORD_TRUE(s.converged) << "converged";
}

TEST(Harness, GivesUpAfterMaxTrialsAndSaysSo) {
  // 50, 100, 150 over and over: median 100, MAD 50, relative error about 0.93 / sqrt(n).
  FakeClock clock;
  clock.script = {50, 100, 150};
  RECORD_SCOPE("run_benchmark(a timer, trials of 50, 100, 150, 50, 100, 150, ... us, {warmup_trials = 0, min_trials = "
               "10, max_trials = 200, target_relative_error = 0.01})");
  const FakeRun run = RunOnFakeClock(clock, make_config(0, 10, 200, 0.01));
  const Summary& s = run.summary;
  RECORD_EQ(s.samples.size(), 200u) << "the samples: the target needs thousands of samples; max_trials is 200";
  RECORD_FALSE(s.converged) << "converged: stopped by max_trials, not by the target";
  RECORD_GT(s.relative_error, 0.01) << "relative_error";
}

TEST(Harness, DividesEachTrialByItsItems) {
  FakeClock clock;
  clock.script = {400, 440};
  RECORD_SCOPE("run_benchmark(a timer, trials of 400, 440, 400, 440, ... us, {warmup_trials = 1, min_trials = 4, "
               "max_trials = 4, items_per_trial = 40})");
  const FakeRun run = RunOnFakeClock(clock, make_config(1, 4, 4, 0.5, 40));
  const Summary& s = run.summary;
  // The warm-up takes the script's first entry, so the samples start at 440.
  RECORD_EQ(s.samples, (std::vector<double>{11, 10, 11, 10})) << "samples: trials of 440 and 400 us, 40 items each";
}

TEST(Harness, ReportsAnOutlierByItsTrialIndex) {
  FakeClock clock;
  clock.script = {10, 10.2, 9.9, 10.1, 10, 9.8, 10.3, 95, 10, 10.1, 9.9, 10.2};
  RECORD_SCOPE("run_benchmark(a timer, trials of 10, 10.2, 9.9, 10.1, 10, 9.8, 10.3, 95, 10, 10.1, 9.9, 10.2 us, "
               "{warmup_trials = 0, min_trials = 12, max_trials = 12})");
  const FakeRun run = RunOnFakeClock(clock, make_config(0, 12, 12, 0.5));
  const Summary& s = run.summary;
  RECORD_EQ(s.outliers, (std::vector<std::size_t>{7})) << "outliers: trial 7 took 95 us, the others about 10";
  RECORD_NEAR(s.max, 95, 1e-12) << "max: an outlier is reported, not removed";
}

TEST(Harness, RejectsABadConfigurationBeforeRunningAnything) {
  struct Bad {
    BenchConfig config;
    const char* what;
  };
  const Bad cases[] = {
      {make_config(-1, 5, 10, 0.01), "warmup_trials = -1"},
      {make_config(0, 0, 10, 0.01), "min_trials = 0"},
      {make_config(0, 10, 5, 0.01), "max_trials = 5, below min_trials = 10"},
      {make_config(0, 5, 10, 0), "target_relative_error = 0"},
      {make_config(0, 5, 10, 0.01, 0), "items_per_trial = 0"},
      {make_config(0, 5, 10, 0.01, 1, 0), "check_every = 0"},
  };
  for (const Bad& bad : cases) {
    RECORD_SCOPE(std::string("run_benchmark(a timer, a trial, a configuration with ") + bad.what + ")");
    FakeClock clock;
    clock.script = {1};
    FakeTimer timer(clock);
    RECORD_THROWS((void)run_benchmark(timer, clock.trial(), bad.config), std::invalid_argument);
    RECORD_EQ(clock.calls, 0u) << "the calls of the trial: the configuration is checked before any";
  }
}

// ---- The host clock --------------------------------------------------------------

TEST(HostTimer, MeasuresASleep) {
  // A sleep of a drawn length, 20 to 60 ms: only a timer that reads the
  // clock knows how long it was. A sleep may overrun on a busy host, never
  // fall short, so the measurement lies between the sleep and twice it.
  std::mt19937_64 random = testing::seeded_random(20261202);
  const int sleep_ms = 20 + static_cast<int>(random() % 41);
  const double sleep_us = 1000.0 * sleep_ms;
  HostTimer timer;
  timer.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  const double us = timer.stop_us();
  RECORD_SCOPE("HostTimer around a sleep of " + std::to_string(sleep_ms) + " ms");
  RECORD_GE(us, sleep_us) << "it lasts at least the sleep, in microseconds";
  RECORD_NEAR(us, sleep_us, sleep_us) << "it lasts at most twice the sleep, in microseconds";
  timer.start();
  const double nothing = timer.stop_us();
  RECORD_GE(nothing, 0.0) << "HostTimer: start() then stop_us() at once";
  RECORD_LT(nothing, 1000.0) << "HostTimer: start() then stop_us() at once";
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

// A row as the learner reads it in a failure.
std::string Shown(const Measurement& m) {
  const Summary& s = m.summary;
  std::ostringstream text;
  text << "{name \"" << m.name << "\", clock \"" << m.clock << "\", param_bytes " << m.param_bytes << ", "
       << s.samples.size() << " samples, warmup_trials " << s.warmup_trials << ", converged " << s.converged
       << ", median " << s.median << ", p10 " << s.p10 << ", p90 " << s.p90 << ", p99 " << s.p99 << ", mean "
       << s.mean << ", stddev " << s.stddev << ", min " << s.min << ", max " << s.max << ", relative_error "
       << s.relative_error << ", " << s.outliers.size() << " outlier(s)}";
  return text.str();
}

// The first `count` comma-separated fields of a line, each with its comma.
std::string FirstFields(const std::string& line, int count) {
  std::size_t from = 0;
  for (int i = 0; i < count; ++i) {
    const std::size_t comma = line.find(',', from);
    if (comma == std::string::npos) return line;
    from = comma + 1;
  }
  return line.substr(0, from);
}

// The first field of the one row to_csv writes for known_row() named `name`.
std::string first_row_name(const std::string& name) {
  std::vector<Measurement> rows = {known_row()};
  rows[0].name = name;
  const std::vector<std::string> lines = lines_of(to_csv(rows));
  return lines.size() < 2 ? std::string() : lines[1].substr(0, lines[1].find(','));
}

TEST(Csv, StartsWithTheHeaderAndHasOneLinePerRow) {
  Measurement second = known_row();
  second.name = "param_launch";
  second.param_bytes = 32764;
  const std::vector<Measurement> rows = {known_row(), second};
  RECORD_SCOPE("to_csv({the row below, the same row with name \"param_launch\" and param_bytes 32764}) with the row " +
               Shown(rows[0]));
  std::string csv;
  RECORD_NO_THROW(csv = to_csv(rows));
  const std::vector<std::string> lines = lines_of(csv);
  RECORD_EQ(lines.size(), 3u) << "the lines: a header and two rows";
  RECORD_REQUIRE(lines.size() == 3);
  RECORD_EQ(lines[0], std::string(kCsvHeader)) << "the first line";
  RECORD_EQ(FirstFields(lines[2], 3), "param_launch,host,32764,") << "the third line's first three fields";
  RECORD_TRUE(!csv.empty() && csv.back() == '\n') << "the text ends in a line feed: every line ends in one";
  RECORD_FALSE(csv.find('\r') != std::string::npos)
      << "whether the text holds a carriage return: a line ends in a line feed alone";
  std::string no_rows;
  RECORD_NO_THROW(no_rows = to_csv({})) << "to_csv({})";
  RECORD_EQ(lines_of(no_rows).size(), 1u) << "the lines of to_csv({}): the header alone";
}

TEST(Csv, PrintsTheFieldsInTheHeadersOrder) {
  const std::vector<Measurement> rows = {known_row()};
  RECORD_SCOPE("to_csv({" + Shown(rows[0]) + "})");
  std::string csv;
  RECORD_NO_THROW(csv = to_csv(rows));
  const std::vector<std::string> lines = lines_of(csv);
  RECORD_EQ(lines.size(), 2u) << "the lines: a header and one row";
  RECORD_REQUIRE(lines.size() == 2);
  RECORD_EQ(lines[1], "launch_latency,host,0,3,10,1,9.1000,9.0200,9.4200,9.4920,9.2000,0.2646,9.0000,9.5000,"
                      "0.010727,1")
      << "the row's line, under the header " << kCsvHeader;
}

TEST(Csv, RejectsANameThatWouldBreakTheFormat) {
  for (const char* name : {"launch,latency", "launch\"latency", "launch\nlatency"}) {
    Measurement m = known_row();
    m.name = name;
    const std::vector<Measurement> rows = {m};
    RECORD_THROWS((void)to_csv(rows), std::invalid_argument)
        << "to_csv({a row whose name is " << nlohmann::json(name).dump() << "})";
  }
  Measurement m = known_row();
  m.clock = "host,events";
  const std::vector<Measurement> rows = {m};
  RECORD_THROWS((void)to_csv(rows), std::invalid_argument) << "to_csv({a row whose clock is \"host,events\"})";
  // Drawn names, every other one with a comma, a quote or a line feed in it:
  // only code that rejects exactly those and writes the others matches the solution.
  std::mt19937_64 random = testing::seeded_random(20261002);
  for (int row = 0; row < 8; ++row) {
    std::string name;
    for (std::uint64_t length = 1 + random() % 12; length > 0; --length) name += "abcdefghijklmnopqrstuvwxyz_"[random() % 27];
    if (row % 2 == 1) name.insert(random() % (name.size() + 1), 1, ",\"\n"[random() % 3]);
    RECORD_OUTCOME(first_row_name(name), std::invalid_argument)
        << "to_csv({a row whose name is " << nlohmann::json(name).dump() << "}): its first field";
  }
}

}  // namespace
}  // namespace launchlab::overhead
