// Part E, on a GPU: cold starts, each in a fresh process of this program with
// its own CUDA_MODULE_LOADING, running your cold_start on many.cu (256
// kernels) compiled for this GPU.
//
// The chapter's measurement is the last test here with more trials, its
// samples written to a CSV file:
//
//   export LAUNCHLAB_COLD_START_TRIALS=12 LAUNCHLAB_COLD_START_CSV=cold_start.csv
//   build/default/tests/test_05_driver_and_modules --gtest_filter='ColdStartOnGpu.*'
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "support.h"

namespace launchlab::driver_tests {
namespace {

constexpr int kTrials = 2;

const std::string& cubin_path() {
  static const std::string path = compile("many.cu", "-cubin", "sm_" + device_arch()).path.string();
  return path;
}

std::string where(const TrialSetup& setup) {
  return "your cold_start of " + setup.image.filename().string() + " in a fresh process, CUDA_MODULE_LOADING=" +
         setup.module_loading.value_or("(unset)") + (setup.cache_disabled ? ", CUDA_CACHE_DISABLE=1" : "");
}

// A value the cold start reported (NaN when it reported none).
double reported(const TrialOutcome& o, const std::string& key) {
  auto it = o.values.find(key);
  return it == o.values.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
}

// Runs a trial and records what every cold start must report; false when
// the process did not report at all.
bool RecordColdStart(const TrialSetup& setup, TrialOutcome& o) {
  o = run_trial(setup);
  RECORD_SCOPE(where(setup));
  RECORD_TRUE(o.ok) << "the process reported its cold start" << (o.ok ? "" : ": " + o.error);
  if (!o.ok) return false;
  RECORD_EQ(reported(o, "result"), kExpected) << kKernel << "(out, " << kValue << "): out[0] afterwards";
  RECORD_EQ(reported(o, "functions"), kManyKernels) << "load_state's count of many.cu's kernels";
  double sum = 0;
  for (const char* step : {"init_ms", "context_ms", "load_ms", "get_function_ms", "first_launch_ms",
                           "second_launch_ms"}) {
    RECORD_GT(reported(o, step), 0.0) << step << ", in ms";
    sum += reported(o, step);
  }
  RECORD_LE(sum / o.process_ms, 1.0) << "the steps' sum (" << sum << " ms) over what the whole process took ("
                                     << o.process_ms << " ms)";
  return true;
}

TEST(ColdStartOnGpu, EagerLoadingLoadsEveryKernelAtLoad) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  for (int t = 0; t < kTrials; ++t) {
    const TrialSetup setup{cubin_path(), "EAGER", false, std::nullopt};
    TrialOutcome o;
    RECORD_REQUIRE(RecordColdStart(setup, o));
    RECORD_SCOPE(where(setup));
    RECORD_EQ(static_cast<int>(reported(o, "loading_mode")), static_cast<int>(CU_MODULE_EAGER_LOADING))
        << "loading_mode, from cuModuleGetLoadingMode (CU_MODULE_EAGER_LOADING is " << CU_MODULE_EAGER_LOADING
        << ", CU_MODULE_LAZY_LOADING " << CU_MODULE_LAZY_LOADING << ")";
    RECORD_TRUE(reported(o, "loaded_after_load") == reported(o, "functions"))
        << "eager loading puts every kernel on the GPU when the module is loaded: after the load, "
        << reported(o, "loaded_after_load") << " of " << reported(o, "functions") << " kernels were loaded";
  }
}

TEST(ColdStartOnGpu, LazyLoadingWaitsForTheKernelToBeAsked) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  // LAZY asked for, and the default (unset): lazy since CUDA 12.2.
  for (const std::optional<std::string>& mode : {std::optional<std::string>("LAZY"), std::optional<std::string>()}) {
    for (int t = 0; t < kTrials; ++t) {
      const TrialSetup setup{cubin_path(), mode, false, std::nullopt};
      TrialOutcome o;
      RECORD_REQUIRE(RecordColdStart(setup, o));
      RECORD_SCOPE(where(setup));
      const double functions = reported(o, "functions");
      const double after_load = reported(o, "loaded_after_load");
      const double after_get = reported(o, "loaded_after_get");
      std::printf("csv,lazy_state,%s,%g,%g,%g\n", mode.value_or("unset").c_str(), functions, after_load, after_get);
      const std::string counts = ": of " + std::to_string(static_cast<int>(functions)) + " kernels, " +
                                 std::to_string(static_cast<int>(after_load)) + " were loaded after the load and " +
                                 std::to_string(static_cast<int>(after_get)) + " after get_function";
      RECORD_EQ(static_cast<int>(reported(o, "loading_mode")), static_cast<int>(CU_MODULE_LAZY_LOADING))
          << "loading_mode, from cuModuleGetLoadingMode (CU_MODULE_EAGER_LOADING is " << CU_MODULE_EAGER_LOADING
          << ", CU_MODULE_LAZY_LOADING " << CU_MODULE_LAZY_LOADING << ")";
      RECORD_TRUE(after_load < functions) << "lazy loading leaves kernels off the GPU at load" << counts;
      RECORD_TRUE(after_get > after_load) << "cuModuleGetFunction loads the kernel it returns" << counts;
      RECORD_TRUE(after_get < functions) << "asking for one kernel loads not all of them" << counts;
    }
  }
  std::fflush(stdout);
}

TEST(ColdStartOnGpu, PtxAndCubinRunTheSameKernel) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  const std::string ptx = compile("many.cu", "-ptx", "compute_" + device_arch()).path.string();
  TrialOutcome from_cubin, from_ptx;
  RECORD_REQUIRE(RecordColdStart(TrialSetup{cubin_path(), "EAGER", false, std::nullopt}, from_cubin));
  // No compute cache: the JIT compiles all 256 kernels during the load.
  const TrialSetup ptx_setup{ptx, "EAGER", true, std::nullopt};
  RECORD_REQUIRE(RecordColdStart(ptx_setup, from_ptx));
  std::printf("csv,jit,load_ms cubin %g ptx %g, jit_wall_ms %g\n", reported(from_cubin, "load_ms"),
              reported(from_ptx, "load_ms"), reported(from_ptx, "jit_wall_ms"));
  RECORD_SCOPE(where(ptx_setup));
  RECORD_GT(reported(from_ptx, "jit_wall_ms"), 0.0) << "jit_wall_ms: CU_JIT_WALL_TIME after compiling PTX (read with "
                                                       "read_jit_report)";
  RECORD_TRUE(reported(from_ptx, "jit_wall_ms") <= reported(from_ptx, "load_ms"))
      << "the JIT ran inside cuModuleLoadDataEx, so its wall time (" << reported(from_ptx, "jit_wall_ms")
      << " ms) fits inside the load's (" << reported(from_ptx, "load_ms") << " ms)";
  std::fflush(stdout);
}

TEST(ColdStartOnGpu, ContextCreationIsTimed) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  RECORD_SCOPE("time_context_creation(5)");
  const auto start = std::chrono::steady_clock::now();
  const std::vector<double> times = launchlab::driver::time_context_creation(5);
  const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  RECORD_EQ(times.size(), 5u) << "one time per trial";
  double sum = 0;
  for (double t : times) {
    RECORD_GT(t, 0.0) << "a time, in ms: a context cannot be created in no time";
    sum += t;
  }
  RECORD_LE(sum / elapsed, 1.0) << "the times' sum (" << sum << " ms) over how long the call took (" << elapsed
                                << " ms)";
  RECORD_THROWS(launchlab::driver::time_context_creation(0), std::invalid_argument) << "time_context_creation(0)";
}

// How many cold starts each configuration gets, and where the samples go.
int trials_from_environment() {
  if (const char* n = std::getenv("LAUNCHLAB_COLD_START_TRIALS")) return std::max(1, std::atoi(n));
  return kTrials;
}

std::string first_line_of(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

TEST(ColdStartOnGpu, EveryStepHasAMedianAndASpread) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  const int trials = trials_from_environment();
  const std::string arch = device_arch();
  const std::string ptx = compile("many.cu", "-ptx", "compute_" + arch).path.string();
  launchlab::testing::TempDir cache;
  struct Config {
    std::string name;
    TrialSetup setup;
  };
  const std::vector<Config> configs = {
      {"cubin_eager", {cubin_path(), "EAGER", false, std::nullopt}},
      {"cubin_lazy", {cubin_path(), "LAZY", false, std::nullopt}},
      {"ptx_eager_nocache", {ptx, "EAGER", true, std::nullopt}},
      {"ptx_lazy_nocache", {ptx, "LAZY", true, std::nullopt}},
      {"ptx_lazy_warmcache", {ptx, "LAZY", false, cache.path()}},
  };
  // One start that is not counted fills the compute cache of the last one.
  TrialOutcome warm_up;
  RECORD_REQUIRE(RecordColdStart(configs.back().setup, warm_up));

  const std::vector<std::string> steps = {"init_ms",         "context_ms",      "load_ms",
                                          "get_function_ms", "first_launch_ms", "second_launch_ms",
                                          "jit_wall_ms"};
  std::map<std::string, std::map<std::string, std::vector<double>>> samples;
  std::ostringstream rows;
  // Round-robin over the configurations, so that a drift over time (clocks,
  // caches, other load) spreads over all of them alike.
  for (int t = 0; t < trials; ++t) {
    for (const Config& config : configs) {
      TrialOutcome o;
      RECORD_REQUIRE(RecordColdStart(config.setup, o));
      for (const auto& step : steps) {
        samples[config.name][step].push_back(o.value(step));
        rows << config.name << "," << t << "," << step << "," << o.value(step) << "\n";
      }
      samples[config.name]["process_ms"].push_back(o.process_ms);
      rows << config.name << "," << t << ",process_ms," << o.process_ms << "\n";
      for (const char* count : {"loaded_after_load", "loaded_after_get"}) {
        rows << config.name << "," << t << "," << count << "," << o.value(count) << "\n";
      }
    }
  }
  // Contexts created once the driver is initialized, in this process.
  const std::vector<double> warm_contexts = launchlab::driver::time_context_creation(trials);
  RECORD_EQ(warm_contexts.size(), static_cast<std::size_t>(trials)) << "time_context_creation(" << trials << ")";
  RECORD_REQUIRE(warm_contexts.size() == static_cast<std::size_t>(trials));
  samples["context_warm"]["create_ms"] = warm_contexts;
  for (int t = 0; t < trials; ++t) {
    rows << "context_warm," << t << ",create_ms," << warm_contexts[static_cast<std::size_t>(t)] << "\n";
  }

  // Your summarize, on every series, checked against the series itself.
  std::printf("%-20s %-18s %6s %11s %11s %11s %11s %11s\n", "config", "step", "trials", "median", "p25", "p75",
              "min", "max");
  for (const auto& [config, by_step] : samples) {
    for (const auto& [step, values] : by_step) {
      const launchlab::driver::Summary s = launchlab::driver::summarize(values);
      std::printf("%-20s %-18s %6zu %11.3f %11.3f %11.3f %11.3f %11.3f\n", config.c_str(), step.c_str(), s.count,
                  s.median, s.p25, s.p75, s.min, s.max);
      const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
      RECORD_SCOPE("your summarize of the " + std::to_string(values.size()) + " samples of " + step + " in " + config);
      RECORD_TRUE(s.count == values.size()) << "count is the number of samples (it says " << s.count << ")";
      RECORD_TRUE(s.min == *lo) << "min is the smallest sample, " << *lo << " (it says " << s.min << ")";
      RECORD_TRUE(s.max == *hi) << "max is the largest sample, " << *hi << " (it says " << s.max << ")";
      RECORD_TRUE(s.min <= s.p25 && s.p25 <= s.median && s.median <= s.p75 && s.p75 <= s.max)
          << "min <= p25 <= median <= p75 <= max: min " << s.min << ", p25 " << s.p25 << ", median " << s.median
          << ", p75 " << s.p75 << ", max " << s.max;
    }
  }
  std::fflush(stdout);

  if (const char* csv_path = std::getenv("LAUNCHLAB_COLD_START_CSV")) {
    char name[256] = {};
    CUdevice device = 0;
    int driver_version = 0;
    if (cuDeviceGet(&device, 0) != CUDA_SUCCESS || cuDeviceGetName(name, sizeof name, device) != CUDA_SUCCESS ||
        cuDriverGetVersion(&driver_version) != CUDA_SUCCESS) {
      throw std::runtime_error("the driver could not name the GPU for the CSV file");
    }
    std::ofstream csv(csv_path);
    if (!csv) throw std::runtime_error(std::string("cannot write ") + csv_path);
    csv << "# GPU: " << name << " (sm_" << arch << "); cuDriverGetVersion " << driver_version << "\n";
    if (const std::string version = first_line_of("/proc/driver/nvidia/version"); !version.empty()) {
      csv << "# " << version << "\n";
    }
    csv << "# command: LAUNCHLAB_COLD_START_TRIALS=" << trials << " LAUNCHLAB_COLD_START_CSV=" << csv_path
        << " test_05_driver_and_modules --gtest_filter='ColdStartOnGpu.*'\n";
    csv << "# image: kernels/many.cu, " << kManyKernels << " kernels; launched: " << kKernel
        << "; each trial a fresh process\n";
    csv << "config,trial,quantity,value\n" << rows.str();
    if (!csv.good()) throw std::runtime_error(std::string("writing ") + csv_path + " failed");
    std::printf("wrote %s\n", csv_path);
  }
}

}  // namespace
}  // namespace launchlab::driver_tests
