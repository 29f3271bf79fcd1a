// compute_occupancy() against Nsight Compute: ncu profiles the lab's own
// kernels (vadd and heavy variants, launched by this very program in a test
// that runs only when asked for), and the blocks per SM it says each resource
// allows, and the theoretical occupancy, are what the calculator's answers
// for the same kernels and launches are compared with. The achieved
// occupancy it measured is printed beside them.
//
// ncu runs in the reference program only, which skips, saying why, where
// ncu is not installed or may not read the GPU's performance counters; the
// learner's program records its calculator's answers alone.

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "live_device.h"
#include "occupancy.h"
#include "tuning.h"

namespace launchlab::occupancy {
namespace {

/// One profiled launch: a variant of the lab's kernels, its block size and the
/// carveout preference it is given first (cudaFuncAttributePreferredSharedMemoryCarveout),
/// so that the shared memory capacity is the launch's input on both sides.
struct ProfiledLaunch {
  bool heavy;     ///< the heavy kernel (else vadd)
  int a, b;       ///< vadd: vector_width, unroll; heavy: __launch_bounds__(a, b)
  int block_size;
  int carveout;

  const void* kernel() const { return heavy ? heavy_kernel(a, b) : vadd_kernel(a, b); }
  std::string name() const {
    std::ostringstream s;
    if (heavy) s << "heavy_variant<" << a << ", " << b << ">";
    else s << "vadd_variant<" << a << ", " << b << ">";
    s << " <<<..., " << block_size << ">>> with a carveout of " << carveout << "%";
    return s.str();
  }
};

// Each limiter has its turn: blocks (blocks of one warp), shared memory
// (small blocks with a carveout of 0, which leaves the smallest capacity that
// holds the 1 KiB the driver reserves in every block), warps (large vadd
// blocks), registers (the heavy kernel).
const std::vector<ProfiledLaunch> kLaunches = {
    {false, 1, 1, 32, 100},  {false, 2, 2, 64, 0},    {false, 4, 4, 512, 100}, {true, 128, 1, 128, 100},
    {true, 256, 2, 256, 50}, {true, 512, 4, 512, 25}, {true, 1024, 1, 1024, 100},
};

/// The metrics, one launch: ncu's names, in the order of kMetrics.
const char* const kMetrics[] = {
    "launch__occupancy_limit_registers",      "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",          "launch__occupancy_limit_blocks",
    "sm__maximum_warps_per_active_cycle_pct", "sm__warps_active.avg.pct_of_peak_sustained_active",
};

/// The launches the profiler watches, in kLaunches' order, each once.
TEST(OccupancyNcu, DISABLED_LaunchesTheLabsKernelsForNsightCompute) {
  LAUNCHLAB_REQUIRE_GPU();
  const std::size_t n = std::size_t{1} << 22;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(cudaMalloc(&a, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&c, n * sizeof(float)), cudaSuccess);
  for (const ProfiledLaunch& launch : kLaunches) {
    ASSERT_EQ(cudaFuncSetAttribute(launch.kernel(), cudaFuncAttributePreferredSharedMemoryCarveout, launch.carveout),
              cudaSuccess);
    if (launch.heavy) launch_heavy(HeavyConfig{launch.a, launch.b, 0}, a, c, n / 4);
    else launch_vadd(VaddConfig{launch.a, launch.b, launch.block_size, 0}, a, b, c, n);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << launch.name();
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

/// ncu's metrics of one launch, by name.
using NcuMetrics = std::map<std::string, double>;

/// The fields of one line of ncu's --csv output (quoted, comma-separated).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"') quoted = !quoted;
    else if (ch == ',' && !quoted) fields.push_back(std::exchange(field, {}));
    else field += ch;
  }
  fields.push_back(field);
  return fields;
}

/// The launches ncu's --csv output describes, by its launch ID; lines that
/// are not its table (its own ==PROF== lines, the program's output) are skipped.
std::map<int, NcuMetrics> parse_ncu_csv(const std::string& output) {
  std::map<int, NcuMetrics> launches;
  std::map<std::string, std::size_t> column;
  for (const std::string& line : testing::lines_of(output)) {
    if (line.empty() || line.front() != '"') continue;
    const std::vector<std::string> fields = csv_fields(line);
    if (column.empty()) {
      for (std::size_t i = 0; i < fields.size(); ++i) column[fields[i]] = i;
      if (!column.count("ID") || !column.count("Metric Name") || !column.count("Metric Value")) column.clear();
      continue;
    }
    const std::size_t last = std::max({column["ID"], column["Metric Name"], column["Metric Value"]});
    if (fields.size() <= last) continue;
    std::string value = fields[column["Metric Value"]];
    std::erase(value, ',');  // 1,024
    try {
      launches[std::stoi(fields[column["ID"]])][fields[column["Metric Name"]]] = std::stod(value);
    } catch (const std::exception&) {
      // "n/a" and the like: the metric is missing, which the comparison reports.
    }
  }
  return launches;
}

/// ncu's metrics of kLaunches, from profiling this program's
/// DISABLED_LaunchesTheLabsKernelsForNsightCompute; nothing and why where it cannot.
std::optional<std::vector<NcuMetrics>> profile_with_ncu(std::string& why) {
  const std::optional<std::filesystem::path> ncu = testing::find_cuda_tool("ncu");
  if (!ncu) {
    why = "needs ncu (Nsight Compute), which is not installed here";
    return std::nullopt;
  }
  std::string metrics;
  for (const char* metric : kMetrics) metrics += (metrics.empty() ? "" : ",") + std::string(metric);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  // The profiled program is this one, without the transcript the grader reads.
  const testing::CommandResult run = testing::run_command(
      {"env", "-u", "LAUNCHLAB_TRANSCRIPT_FD", ncu->string(), "--metrics", metrics, "--csv", "--clock-control", "none",
       "--kernel-name", "regex:vadd_variant|heavy_variant", self, "--gtest_also_run_disabled_tests",
       "--gtest_filter=OccupancyNcu.DISABLED_LaunchesTheLabsKernelsForNsightCompute"});
  if (run.output.find("ERR_NVGPUCTRPERM") != std::string::npos) {
    why = "ncu may not read this GPU's performance counters here (ERR_NVGPUCTRPERM: profiling needs root, or the "
          "driver's NVreg_RestrictProfilingToAdminUsers=0)";
    return std::nullopt;
  }
  const std::map<int, NcuMetrics> launches = parse_ncu_csv(run.output);
  if (launches.size() != kLaunches.size()) {
    std::string error;
    for (const std::string& line : testing::lines_of(run.output)) {
      if (line.starts_with("==ERROR==")) error = line;
    }
    why = "ncu profiled " + std::to_string(launches.size()) + " of the " + std::to_string(kLaunches.size()) +
          " launches (exit status " + std::to_string(run.exit_code) + ")" + (error.empty() ? "" : ": " + error);
    return std::nullopt;
  }
  std::vector<NcuMetrics> in_order;
  for (const auto& [id, metrics_of_launch] : launches) in_order.push_back(metrics_of_launch);
  return in_order;
}

/// A metric of ncu's for a launch, or -1 when ncu did not give it.
double metric(const NcuMetrics& launch, const char* name) {
  auto found = launch.find(name);
  return found == launch.end() ? -1 : found->second;
}

TEST(OccupancyNcu, LimitsMatchNsightComputeForTheLabsKernels) {
  LAUNCHLAB_REQUIRE_GPU();
  int sm = 0;
  std::string why;
  if (!live::current_sm(sm, why)) GTEST_SKIP() << why;
  std::vector<NcuMetrics> profiled;
  if constexpr (testing::kReferenceBuild) {
    std::optional<std::vector<NcuMetrics>> found = profile_with_ncu(why);
    if (!found) GTEST_SKIP() << why;
    profiled = std::move(*found);
  }
  std::optional<ArchLimits> arch;
  RECORD_NO_THROW(arch = arch_limits(sm)) << "arch_limits(" << sm << ")";
  RECORD_REQUIRE(arch.has_value());
  std::printf("  %-58s %5s %5s %5s %5s %9s %9s\n", "launch (ncu's figures)", "regs", "smem", "warps", "block",
              "theory %", "achieved %");
  for (std::size_t i = 0; i < kLaunches.size(); ++i) {
    const ProfiledLaunch& launch = kLaunches[i];
    cudaFuncAttributes attributes{};
    const bool read = cudaFuncGetAttributes(&attributes, launch.kernel()) == cudaSuccess;
    RECORD_REQUIRE(read);
    const KernelResources kernel{attributes.numRegs, attributes.sharedSizeBytes,
                                 static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes)};
    const LaunchShape shape{launch.block_size, 0, launch.carveout};
    Occupancy o;
    RECORD_NO_THROW(o = compute_occupancy(*arch, kernel, shape)) << launch.name();
    RECORD_SCOPE("compute_occupancy(arch_limits(" + std::to_string(sm) + "), {" + std::to_string(kernel.registers_per_thread) +
                 " registers, " + std::to_string(kernel.static_shared_bytes) + " B static}, " + launch.name() +
                 ") against Nsight Compute's profile of that launch");
    // ncu's figures exist in the reference program only, where the expected halves read them.
    [[maybe_unused]] const NcuMetrics* ncu = testing::kReferenceBuild ? &profiled[i] : nullptr;
    RECORD_EQ(o.blocks_by_registers, static_cast<int>(metric(*ncu, kMetrics[0]))) << "blocks_by_registers: launch__occupancy_limit_registers";
    RECORD_EQ(o.blocks_by_shared, static_cast<int>(metric(*ncu, kMetrics[1]))) << "blocks_by_shared: launch__occupancy_limit_shared_mem";
    RECORD_EQ(o.blocks_by_warps, static_cast<int>(metric(*ncu, kMetrics[2]))) << "blocks_by_warps: launch__occupancy_limit_warps";
    RECORD_EQ(o.blocks_by_block_limit, static_cast<int>(metric(*ncu, kMetrics[3]))) << "blocks_by_block_limit: launch__occupancy_limit_blocks";
    RECORD_NEAR(o.occupancy * 100.0, metric(*ncu, kMetrics[4]), 0.01)
        << "occupancy, in percent: sm__maximum_warps_per_active_cycle_pct (the theoretical occupancy)";
    if constexpr (testing::kReferenceBuild) {
      std::printf("  %-58s %5.0f %5.0f %5.0f %5.0f %9.2f %9.2f\n", launch.name().c_str(), metric(profiled[i], kMetrics[0]),
                  metric(profiled[i], kMetrics[1]), metric(profiled[i], kMetrics[2]), metric(profiled[i], kMetrics[3]),
                  metric(profiled[i], kMetrics[4]), metric(profiled[i], kMetrics[5]));
    }
  }
}

}  // namespace
}  // namespace launchlab::occupancy
