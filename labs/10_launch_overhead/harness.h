/// @file
/// A benchmark harness: warm-up, repeated trials, a stop rule on the relative
/// error of the median, robust statistics and outliers, and the clocks that
/// time a trial. The clock is an interface, so that the harness can be driven
/// by a fake clock on a machine without a GPU and give the same answer every
/// time.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace launchlab::overhead {

/// Times one trial. The harness calls start() right before a trial and
/// stop_us() right after it; stop_us() returns how long the trial took.
/// Implementations: HostTimer (the CPU's steady clock), EventTimer (CUDA
/// events on a stream), and the fake clocks of the tests.
class Timer {
 public:
  virtual ~Timer() = default;
  /// Marks the beginning of a trial.
  virtual void start() = 0;
  /// Marks the end of the trial begun by the last start().
  /// @return the trial's duration in microseconds
  virtual double stop_us() = 0;
};

/// A Timer on the host's monotonic clock, std::chrono::steady_clock: it
/// measures what the calling thread lived through, wall-clock time, whatever
/// the GPU did meanwhile.
class HostTimer final : public Timer {
 public:
  /// Reads the steady clock.
  void start() override;
  /// Reads the steady clock again.
  /// @return the microseconds since the last start(), as a double
  double stop_us() override;

 private:
  long long start_ns_ = 0;  ///< steady_clock at start(), in nanoseconds since its epoch
};

/// A Timer made of two CUDA events recorded on a stream: start() records the
/// first, stop_us() records the second, waits for it (cudaEventSynchronize)
/// and returns cudaEventElapsedTime between the two. It measures when the
/// GPU reached each event, not when the host called start() or stop_us():
/// host work that does not keep the GPU waiting is invisible to it.
class EventTimer final : public Timer {
 public:
  /// Creates the two events (cudaEventCreate, default flags: with timing).
  /// @param stream the stream the events are recorded on (0: the legacy default stream)
  /// @throws std::runtime_error when a CUDA call fails
  explicit EventTimer(cudaStream_t stream = nullptr);
  /// Destroys the events.
  ~EventTimer() override;
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  /// Records the first event on the stream.
  /// @throws std::runtime_error when a CUDA call fails
  void start() override;
  /// Records the second event, waits for it, and reads the time between the two.
  /// @return the milliseconds of cudaEventElapsedTime, times 1000
  /// @throws std::runtime_error when a CUDA call fails
  double stop_us() override;

 private:
  cudaStream_t stream_ = nullptr;  ///< where the events are recorded
  cudaEvent_t begin_ = nullptr;    ///< recorded by start()
  cudaEvent_t end_ = nullptr;      ///< recorded by stop_us()
};

/// How run_benchmark() runs and when it stops.
struct BenchConfig {
  int warmup_trials = 10;    ///< whole trials run first, untimed, and thrown away (0 or more)
  int min_trials = 20;       ///< timed trials always run (at least 1)
  int max_trials = 1000;     ///< timed trials never exceeded (at least min_trials)
  double target_relative_error = 0.01;  ///< stop once relative_error() of the samples is at most this (above 0)
  int items_per_trial = 1;   ///< units of work one trial does (launches, kernels); each sample is a trial's time divided by it (at least 1)
  /// The stop rule is checked at min_trials samples, then every check_every
  /// samples after that (at least 1). Checking sorts all the samples: with
  /// trials of a few microseconds and tens of thousands of samples, a check
  /// after every trial would cost far more than the trial, and the pauses it
  /// leaves between trials would change what is measured.
  int check_every = 1;
};

/// What a benchmark found. Times are microseconds per item.
struct Summary {
  std::vector<double> samples;       ///< one per timed trial, in the order they ran
  int warmup_trials = 0;             ///< the untimed trials run before the first sample
  double median = 0;                 ///< percentile(samples, 50)
  double p10 = 0;                    ///< percentile(samples, 10)
  double p90 = 0;                    ///< percentile(samples, 90)
  double p99 = 0;                    ///< percentile(samples, 99)
  double mean = 0;                   ///< the arithmetic mean
  double stddev = 0;                 ///< the sample standard deviation (divided by n - 1; 0 when n is 1)
  double min = 0;                    ///< the smallest sample
  double max = 0;                    ///< the largest sample
  double mad = 0;                    ///< median_absolute_deviation(samples)
  double relative_error = 0;         ///< relative_error(samples)
  bool converged = false;            ///< run_benchmark() stopped because relative_error reached the target
  std::vector<std::size_t> outliers; ///< find_outliers(samples): indices into samples, ascending
};

/// The value below which p percent of the samples lie, interpolated
/// linearly between closest ranks: with the samples sorted ascending as
/// x[0..n-1], h = (n - 1) * p / 100, and the result is
/// x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)])
/// (x[n - 1] when floor(h) is n - 1). This is NumPy's default and R's type 7.
///
/// @param samples any order; not modified
/// @param p       the percentile, from 0 (the minimum) to 100 (the maximum)
/// @throws std::invalid_argument when samples is empty or p is outside [0, 100]
double percentile(std::span<const double> samples, double p);

/// The middle of the samples: percentile(samples, 50), which for an even
/// count is the mean of the two middle values.
/// @throws std::invalid_argument when samples is empty
double median(std::span<const double> samples);

/// The median absolute deviation: the median of |x - median(samples)| over
/// all samples. A spread that a few wild samples cannot move.
/// @throws std::invalid_argument when samples is empty
double median_absolute_deviation(std::span<const double> samples);

/// The samples outside Tukey's fences: below q1 - 1.5 * (q3 - q1) or above
/// q3 + 1.5 * (q3 - q1), with q1 = percentile(samples, 25) and
/// q3 = percentile(samples, 75). They are reported, not removed.
/// @return their indices into samples, ascending
/// @throws std::invalid_argument when samples is empty
std::vector<std::size_t> find_outliers(std::span<const double> samples);

/// The standard error of the median relative to the median, estimated
/// robustly: with n samples, sigma = kMadToSigma * MAD estimates the standard
/// deviation of well-behaved samples, and the median's standard error is
/// kMedianStandardError * sigma / sqrt(n). The result is that divided by the
/// median: kMedianStandardError * kMadToSigma * MAD / (sqrt(n) * median).
/// When the median is 0 the result is 0 if MAD is 0, and +infinity otherwise.
/// @throws std::invalid_argument when samples is empty
double relative_error(std::span<const double> samples);

/// 1 / Phi^-1(3/4): MAD times this estimates the standard deviation of normally distributed samples.
inline constexpr double kMadToSigma = 1.4826;
/// sqrt(pi / 2): the standard error of a median is this many times the standard error of a mean.
inline constexpr double kMedianStandardError = 1.2533;

/// Every statistic of Summary for these samples, in the order given.
/// warmup_trials is left 0 and converged false: run_benchmark() sets them.
/// @throws std::invalid_argument when samples is empty
Summary summarize(std::span<const double> samples);

/// Runs a benchmark:
///  1. warm-up: config.warmup_trials calls of trial(), untimed (the timer is not touched);
///  2. timed trials: timer.start(), trial(), then sample = timer.stop_us() / config.items_per_trial;
///  3. the stop rule: with n samples, where n is config.min_trials, or
///     config.min_trials plus a multiple of config.check_every, stops if
///     relative_error(samples) <= config.target_relative_error; stops anyway
///     after config.max_trials samples. The rule is not checked at any other n.
///
/// @param timer  the clock; it is started and stopped once per timed trial and never otherwise
/// @param trial  one trial: everything that is to be timed, the waiting included
/// @param config how to run; see BenchConfig for the valid values
/// @return summarize(samples), with warmup_trials set, and converged set when
///         the final relative error is at most the target
/// @throws std::invalid_argument when config is not valid (before trial() is called)
Summary run_benchmark(Timer& timer, const std::function<void()>& trial, const BenchConfig& config);

/// One row of results: what was measured, with which clock, and what came out.
struct Measurement {
  std::string name;            ///< e.g. "launch_latency"; no commas, quotes or line breaks
  std::string clock;           ///< "host" or "cuda_events"
  std::size_t param_bytes = 0; ///< the kernel's parameter size, 0 when it has none
  Summary summary;             ///< the benchmark's result
};

/// The header line to_csv() writes first, without its line break.
// One literal on one line, so that the docs can show it.
inline constexpr const char* kCsvHeader = "name,clock,param_bytes,trials,warmup_trials,converged,median_us,p10_us,p90_us,p99_us,mean_us,stddev_us,min_us,max_us,relative_error,outliers";

/// The rows as CSV: kCsvHeader and a line feed, then one line per row, each
/// ending in a line feed, with the fields of the header in its order. trials is
/// summary.samples.size(), converged is 1 or 0, outliers is how many there
/// were; the *_us fields are printed with printf's "%.4f" and relative_error
/// with "%.6f". Example: `launch_latency,host,0,120,10,1,9.1000,...`
/// @throws std::invalid_argument when a name or clock contains a comma, a
///         double quote, a carriage return or a line feed
std::string to_csv(std::span<const Measurement> rows);

}  // namespace launchlab::overhead
