// Live traces on a GPU: the learner's traced kernels run, and what they
// recorded is checked against what the test reads for itself (its own kernel
// reading %globaltimer and %nsmid), against the CUDA runtime (the SM count,
// the occupancy calculator), and against facts that must hold of any real
// run (blocks resident together on one SM cannot share a warp slot).

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis.h"
#include "launchlab/testing.h"
#include "trace.h"

namespace launchlab::on_the_sm {
namespace {

// The test's own view of the GPU: the timer and %nsmid, read by one thread.
__global__ void read_timer_and_nsmid(unsigned long long* out) {
  unsigned long long now;
  unsigned nsmid;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
  out[0] = now;
  out[1] = nsmid;
}

void Check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

struct GpuView {
  std::uint64_t now_ns;
  std::uint32_t nsmid;
};

GpuView ReadGpu() {
  unsigned long long* out = nullptr;
  Check(cudaMalloc(&out, 2 * sizeof(unsigned long long)), "cudaMalloc");
  read_timer_and_nsmid<<<1, 1>>>(out);
  unsigned long long host[2] = {0, 0};
  cudaError_t status = cudaGetLastError();
  if (status == cudaSuccess) status = cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  cudaFree(out);
  Check(status, "the test's own timer kernel");
  return {host[0], static_cast<std::uint32_t>(host[1])};
}

int MultiprocessorCount() {
  int device = 0, sms = 0;
  Check(cudaGetDevice(&device), "cudaGetDevice");
  Check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  return sms;
}

// How many traced_spin blocks of this size the runtime says fit on one SM.
int SpinBlocksPerSm(unsigned threads) {
  int per_sm = 0;
  Check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, traced_spin, static_cast<int>(threads), 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor(traced_spin)");
  if (per_sm < 1) throw std::runtime_error("the occupancy calculator says no traced_spin block fits on an SM");
  return per_sm;
}

// Runs a trace and turns an exception into a fatal failure.
#define TRACE_OR_FAIL(records, call)                                     \
  std::vector<BlockRecord> records;                                      \
  try {                                                                  \
    records = (call);                                                    \
  } catch (const std::exception& e) {                                    \
    FAIL() << #call << " threw: " << e.what();                           \
  }

// Every block index from 0 to blocks - 1 appears exactly once, at its own index.
::testing::AssertionResult EveryBlockOnce(const std::vector<BlockRecord>& records, unsigned blocks) {
  if (records.size() != blocks) {
    return ::testing::AssertionFailure() << "expected " << blocks << " records, got " << records.size();
  }
  for (unsigned b = 0; b < blocks; ++b) {
    if (records[b].block != b) {
      return ::testing::AssertionFailure() << "records[" << b << "].block is " << records[b].block << ", expected "
                                           << b << " (is blockIdx.x written by thread 0 of every block?)";
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(LiveTrace, RecordsEveryBlockOfTheGridOnce) {
  LAUNCHLAB_REQUIRE_GPU();
  {
    TRACE_OR_FAIL(spin, trace_spin(1000, 128, 2000));
    EXPECT_TRUE(EveryBlockOnce(spin, 1000)) << "trace_spin(1000 blocks, 128 threads)";
  }
  {
    TRACE_OR_FAIL(vadd, trace_vadd(257, 64));
    EXPECT_TRUE(EveryBlockOnce(vadd, 257)) << "trace_vadd(257 blocks, 64 threads)";
  }
}

TEST(LiveTrace, SmIdsAreRealSmsAndALargeGridUsesEveryOne) {
  LAUNCHLAB_REQUIRE_GPU();
  const int sms = MultiprocessorCount();
  const unsigned blocks = static_cast<unsigned>(sms * SpinBlocksPerSm(256) * 2);
  const GpuView gpu = ReadGpu();
  TRACE_OR_FAIL(records, trace_spin(blocks, 256, 20'000));
  std::set<std::uint32_t> used;
  for (const BlockRecord& r : records) {
    ASSERT_LT(r.sm, gpu.nsmid) << "block " << r.block << " says it ran on SM " << r.sm << ", but %nsmid is "
                               << gpu.nsmid;
    used.insert(r.sm);
  }
  EXPECT_EQ(used.size(), static_cast<std::size_t>(sms))
      << "distinct SM ids in a grid of " << blocks << " blocks (two full waves), against "
      << "cudaDevAttrMultiProcessorCount";
}

TEST(LiveTrace, TimestampsComeFromTheGlobalTimer) {
  LAUNCHLAB_REQUIRE_GPU();
  // The test reads %globaltimer itself just before and just after the traced
  // launch: every start and end must lie between (another clock, such as
  // clock64's cycles, would not).
  const unsigned blocks = static_cast<unsigned>(MultiprocessorCount() * 2);
  const GpuView before = ReadGpu();
  TRACE_OR_FAIL(records, trace_spin(blocks, 128, 50'000));
  const GpuView after = ReadGpu();
  for (const BlockRecord& r : records) {
    ASSERT_TRUE(before.now_ns <= r.start_ns && r.start_ns <= r.end_ns && r.end_ns <= after.now_ns)
        << "block " << r.block << ": start_ns " << r.start_ns << ", end_ns " << r.end_ns
        << "; expected before.now <= start <= end <= after.now with %globaltimer read by the test before the "
        << "launch (" << before.now_ns << ") and after it (" << after.now_ns << ")";
  }
}

TEST(LiveTrace, EveryBlockLastsAtLeastItsSpinTime) {
  LAUNCHLAB_REQUIRE_GPU();
  const std::uint64_t spin_ns = 30'000;
  const unsigned blocks = static_cast<unsigned>(MultiprocessorCount() * 3);
  TRACE_OR_FAIL(records, trace_spin(blocks, 128, spin_ns));
  for (const BlockRecord& r : records) {
    ASSERT_GE(r.end_ns - r.start_ns, spin_ns)
        << "block " << r.block << " lasted " << (r.end_ns - r.start_ns) << " ns (start " << r.start_ns << ", end "
        << r.end_ns << ") in traced_spin(" << spin_ns << " ns)";
  }
}

TEST(LiveTrace, WarpSlotsCountTheWarpsOfEachBlock) {
  LAUNCHLAB_REQUIRE_GPU();
  const unsigned blocks = static_cast<unsigned>(MultiprocessorCount());
  for (unsigned threads : {32u, 96u, 256u, 1000u, 1024u}) {
    TRACE_OR_FAIL(records, trace_spin(blocks, threads, 5'000));
    const int warps = static_cast<int>((threads + 31) / 32);  // a partial warp still takes a slot
    for (const BlockRecord& r : records) {
      ASSERT_EQ(std::popcount(r.warp_slots), warps)
          << "blocks of " << threads << " threads: block " << r.block << " has warp_slots 0x" << std::hex
          << r.warp_slots << std::dec << "; every warp of the block sets the bit of its own %warpid";
    }
  }
}

TEST(LiveTrace, BlocksResidentTogetherUseDifferentWarpSlots) {
  LAUNCHLAB_REQUIRE_GPU();
  // Two blocks that are on one SM at the same time hold different hardware
  // warp slots. "At the same time" with a margin of 2 us on each side, far
  // above the timer's steps, for blocks that last 40 us.
  const int sms = MultiprocessorCount();
  const unsigned blocks = static_cast<unsigned>(sms * SpinBlocksPerSm(256) * 2);
  TRACE_OR_FAIL(records, trace_spin(blocks, 256, 40'000));
  std::map<std::uint32_t, std::vector<const BlockRecord*>> by_sm;
  for (const BlockRecord& r : records) by_sm[r.sm].push_back(&r);
  const std::uint64_t margin = 2'000;
  int pairs = 0;
  for (const auto& [sm, on_sm] : by_sm) {
    for (std::size_t i = 0; i < on_sm.size(); ++i) {
      for (std::size_t j = i + 1; j < on_sm.size(); ++j) {
        const BlockRecord& a = *on_sm[i];
        const BlockRecord& b = *on_sm[j];
        const bool together = a.start_ns + margin < b.end_ns && b.start_ns + margin < a.end_ns;
        if (!together) continue;
        ++pairs;
        ASSERT_EQ(a.warp_slots & b.warp_slots, 0u)
            << "SM " << sm << ": blocks " << a.block << " [" << a.start_ns << ", " << a.end_ns << ") and " << b.block
            << " [" << b.start_ns << ", " << b.end_ns << ") ran together but share warp slots: 0x" << std::hex
            << a.warp_slots << " and 0x" << b.warp_slots;
      }
    }
  }
  EXPECT_GT(pairs, 0) << "no two blocks ran together on one SM: the trace shows no overlap at all";
}

TEST(LiveTrace, VaddTracesTheCourseLaunch) {
  LAUNCHLAB_REQUIRE_GPU();
  // vadd<<<4096, 256>>> on 2^20 floats, as every chapter has it.
  TRACE_OR_FAIL(records, trace_vadd(4096, 256));
  ASSERT_TRUE(EveryBlockOnce(records, 4096));
  std::set<std::uint32_t> used;
  for (const BlockRecord& r : records) {
    ASSERT_LE(r.start_ns, r.end_ns) << "block " << r.block;
    ASSERT_EQ(std::popcount(r.warp_slots), 8) << "block " << r.block << ": 256 threads are 8 warps";
    used.insert(r.sm);
  }
  EXPECT_EQ(used.size(), static_cast<std::size_t>(MultiprocessorCount())) << "SMs that ran a block of 4096";
}

// A grid of spin blocks `waves` times what the GPU holds at once, 50 us each.
struct WaveRun {
  int sms = 0;
  int per_sm = 0;
  unsigned blocks = 0;
  TraceSummary summary;
};

void RunWaves(double waves, WaveRun& run) {
  run.sms = MultiprocessorCount();
  run.per_sm = SpinBlocksPerSm(256);
  run.blocks = static_cast<unsigned>(waves * run.sms * run.per_sm);
  TRACE_OR_FAIL(records, trace_spin(run.blocks, 256, 50'000));
  try {
    run.summary = summarize(records);
  } catch (const std::exception& e) {
    FAIL() << "summarize threw: " << e.what();
  }
}

TEST(LiveAnalysis, PeakResidentMatchesTheOccupancyCalculator) {
  LAUNCHLAB_REQUIRE_GPU();
  WaveRun run;
  ASSERT_NO_FATAL_FAILURE(RunWaves(2.0, run));
  EXPECT_EQ(run.summary.peak_resident, static_cast<std::uint32_t>(run.per_sm))
      << "the most traced_spin blocks of 256 threads resident on one SM, against "
      << "cudaOccupancyMaxActiveBlocksPerMultiprocessor";
}

TEST(LiveAnalysis, WavesAgreeWithTheOccupancyCalculator) {
  LAUNCHLAB_REQUIRE_GPU();
  for (double waves : {1.0, 3.5}) {
    WaveRun run;
    ASSERT_NO_FATAL_FAILURE(RunWaves(waves, run));
    const std::uint64_t capacity = static_cast<std::uint64_t>(run.sms) * run.per_sm;
    const std::uint64_t predicted = (run.blocks + capacity - 1) / capacity;
    const std::int64_t off = static_cast<std::int64_t>(run.summary.waves) - static_cast<std::int64_t>(predicted);
    EXPECT_LE(off < 0 ? -off : off, 1)
        << run.blocks << " blocks: waves counted from the trace " << run.summary.waves << ", ceil(" << run.blocks
        << " / (" << run.sms << " SMs x " << run.per_sm << " blocks per SM)) = " << predicted;
  }
}

}  // namespace
}  // namespace launchlab::on_the_sm
