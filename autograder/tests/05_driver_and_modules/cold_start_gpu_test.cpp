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
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "driver.h"
#include "launchlab/testing.h"
#include "support.h"

namespace launchlab::driver_tests {
namespace {

constexpr int kTrials = 2;

const std::string& cubin_path() {
  static const std::string path = compile("many.cu", "-cubin", "sm_" + device_arch()).path.string();
  return path;
}

// Runs a trial and checks what every cold start must report.
::testing::AssertionResult ColdStarts(const TrialSetup& setup, TrialOutcome& o) {
  o = run_trial(setup);
  if (!o.ok) return ::testing::AssertionFailure() << o.error;
  const std::string where = setup.image.filename().string() + ", CUDA_MODULE_LOADING=" +
                            setup.module_loading.value_or("(unset)") + ": ";
  if (static_cast<int>(o.value("result")) != kExpected) {
    return ::testing::AssertionFailure() << where << kKernel << "(out, " << kValue << ") should write " << kExpected
                                         << ", result is " << o.value("result");
  }
  if (static_cast<unsigned>(o.value("functions")) != kManyKernels) {
    return ::testing::AssertionFailure() << where << "many.cu has " << kManyKernels
                                         << " kernels, load_state counted " << o.value("functions");
  }
  double sum = 0;
  for (const char* step : {"init_ms", "context_ms", "load_ms", "get_function_ms", "first_launch_ms",
                           "second_launch_ms"}) {
    if (!(o.value(step) > 0)) return ::testing::AssertionFailure() << where << step << " is " << o.value(step);
    sum += o.value(step);
  }
  if (sum > o.process_ms) {
    return ::testing::AssertionFailure() << where << "the steps add up to " << sum
                                         << " ms, more than the whole process took (" << o.process_ms << " ms)";
  }
  return ::testing::AssertionSuccess();
}

TEST(ColdStartOnGpu, EagerLoadingLoadsEveryKernelAtLoad) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  for (int t = 0; t < kTrials; ++t) {
    TrialOutcome o;
    ASSERT_TRUE(ColdStarts(TrialSetup{cubin_path(), "EAGER", false, std::nullopt}, o));
    EXPECT_EQ(static_cast<int>(o.value("loading_mode")), static_cast<int>(CU_MODULE_EAGER_LOADING))
        << "cuModuleGetLoadingMode under CUDA_MODULE_LOADING=EAGER";
    EXPECT_EQ(o.value("loaded_after_load"), o.value("functions"))
        << "eager loading puts every kernel on the GPU when the module is loaded";
  }
}

TEST(ColdStartOnGpu, LazyLoadingWaitsForTheKernelToBeAsked) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  // LAZY asked for, and the default (unset): lazy since CUDA 12.2.
  for (const std::optional<std::string>& mode : {std::optional<std::string>("LAZY"), std::optional<std::string>()}) {
    for (int t = 0; t < kTrials; ++t) {
      TrialOutcome o;
      ASSERT_TRUE(ColdStarts(TrialSetup{cubin_path(), mode, false, std::nullopt}, o));
      const std::string which = "CUDA_MODULE_LOADING=" + mode.value_or("(unset)");
      std::printf("csv,lazy_state,%s,%g,%g,%g\n", mode.value_or("unset").c_str(), o.value("functions"),
                  o.value("loaded_after_load"), o.value("loaded_after_get"));
      EXPECT_EQ(static_cast<int>(o.value("loading_mode")), static_cast<int>(CU_MODULE_LAZY_LOADING))
          << which << ": cuModuleGetLoadingMode";
      EXPECT_LT(o.value("loaded_after_load"), o.value("functions"))
          << which << ": lazy loading leaves kernels off the GPU at load";
      EXPECT_GT(o.value("loaded_after_get"), o.value("loaded_after_load"))
          << which << ": cuModuleGetFunction loads the kernel it returns";
      EXPECT_LT(o.value("loaded_after_get"), o.value("functions"))
          << which << ": asking for one kernel loads not all of them";
    }
  }
  std::fflush(stdout);
}

TEST(ColdStartOnGpu, PtxAndCubinRunTheSameKernel) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  const std::string ptx = compile("many.cu", "-ptx", "compute_" + device_arch()).path.string();
  TrialOutcome from_cubin, from_ptx;
  ASSERT_TRUE(ColdStarts(TrialSetup{cubin_path(), "EAGER", false, std::nullopt}, from_cubin));
  // No compute cache: the JIT compiles all 256 kernels during the load.
  ASSERT_TRUE(ColdStarts(TrialSetup{ptx, "EAGER", true, std::nullopt}, from_ptx));
  std::printf("csv,jit,load_ms cubin %g ptx %g, jit_wall_ms %g\n", from_cubin.value("load_ms"),
              from_ptx.value("load_ms"), from_ptx.value("jit_wall_ms"));
  EXPECT_GT(from_ptx.value("jit_wall_ms"), 0.0) << "CU_JIT_WALL_TIME after compiling PTX (read with read_jit_report)";
  EXPECT_LE(from_ptx.value("jit_wall_ms"), from_ptx.value("load_ms"))
      << "the JIT ran inside cuModuleLoadDataEx, so its wall time fits inside the load's";
  std::fflush(stdout);
}

TEST(ColdStartOnGpu, ContextCreationIsTimed) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  const auto start = std::chrono::steady_clock::now();
  const std::vector<double> times = launchlab::driver::time_context_creation(5);
  const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(times.size(), 5u) << "one time per trial";
  double sum = 0;
  for (double t : times) {
    EXPECT_GT(t, 0.0) << "a context cannot be created in no time";
    sum += t;
  }
  EXPECT_LE(sum, elapsed) << "the creations add up to more than the call took";
  EXPECT_THROW(launchlab::driver::time_context_creation(0), std::invalid_argument);
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
  ASSERT_TRUE(ColdStarts(configs.back().setup, warm_up));

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
      ASSERT_TRUE(ColdStarts(config.setup, o)) << config.name << ", trial " << t;
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
  ASSERT_EQ(warm_contexts.size(), static_cast<std::size_t>(trials));
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
      EXPECT_EQ(s.count, values.size()) << config << " " << step;
      EXPECT_EQ(s.min, *lo) << config << " " << step;
      EXPECT_EQ(s.max, *hi) << config << " " << step;
      EXPECT_TRUE(s.min <= s.p25 && s.p25 <= s.median && s.median <= s.p75 && s.p75 <= s.max)
          << config << " " << step << ": min " << s.min << ", p25 " << s.p25 << ", median " << s.median << ", p75 "
          << s.p75 << ", max " << s.max;
    }
  }
  std::fflush(stdout);

  if (const char* csv_path = std::getenv("LAUNCHLAB_COLD_START_CSV")) {
    char name[256] = {};
    CUdevice device = 0;
    int driver_version = 0;
    ASSERT_EQ(cuDeviceGet(&device, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuDeviceGetName(name, sizeof name, device), CUDA_SUCCESS);
    ASSERT_EQ(cuDriverGetVersion(&driver_version), CUDA_SUCCESS);
    std::ofstream csv(csv_path);
    ASSERT_TRUE(csv) << "cannot write " << csv_path;
    csv << "# GPU: " << name << " (sm_" << arch << "); cuDriverGetVersion " << driver_version << "\n";
    if (const std::string version = first_line_of("/proc/driver/nvidia/version"); !version.empty()) {
      csv << "# " << version << "\n";
    }
    csv << "# command: LAUNCHLAB_COLD_START_TRIALS=" << trials << " LAUNCHLAB_COLD_START_CSV=" << csv_path
        << " test_05_driver_and_modules --gtest_filter='ColdStartOnGpu.*'\n";
    csv << "# image: kernels/many.cu, " << kManyKernels << " kernels; launched: " << kKernel
        << "; each trial a fresh process\n";
    csv << "config,trial,quantity,value\n" << rows.str();
    ASSERT_TRUE(csv.good()) << "writing " << csv_path << " failed";
    std::printf("wrote %s\n", csv_path);
  }
}

}  // namespace
}  // namespace launchlab::driver_tests
