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
#include <iterator>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis.h"
#include "divergence.h"
#include "launchlab/cuda.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "trace.h"
#include "trace_records.h"

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

// Two full waves of 256-thread traced_spin blocks: as many as fit on every
// SM, twice over.
unsigned TwoFullWavesOf256ThreadBlocks() {
  return static_cast<unsigned>(MultiprocessorCount() * SpinBlocksPerSm(256) * 2);
}

// A value shown in a failure as the object it holds.
struct Shown {
  nlohmann::json value;
};
nlohmann::json record_value(const Shown& shown) { return shown.value; }

// records[b].block of every record, in order.
std::vector<std::uint32_t> BlockIds(const std::vector<BlockRecord>& records) {
  std::vector<std::uint32_t> ids;
  for (const BlockRecord& r : records) ids.push_back(r.block);
  return ids;
}

// 0, 1, ..., count - 1.
[[maybe_unused]] std::vector<std::uint32_t> EveryBlock(unsigned count) {
  std::vector<std::uint32_t> ids(count);
  std::iota(ids.begin(), ids.end(), 0u);
  return ids;
}

// How many distinct SM ids the records name.
std::size_t DistinctSms(const std::vector<BlockRecord>& records) {
  std::set<std::uint32_t> used;
  for (const BlockRecord& r : records) used.insert(r.sm);
  return used.size();
}

// Each number of bits set in warp_slots that some record has, once.
std::set<int> WarpSlotCounts(const std::vector<BlockRecord>& records) {
  std::set<int> counts;
  for (const BlockRecord& r : records) counts.insert(std::popcount(r.warp_slots));
  return counts;
}

// The first record that ends before it starts.
std::optional<BlockRecord> FirstBackwards(const std::vector<BlockRecord>& records) {
  for (const BlockRecord& r : records) {
    if (r.end_ns < r.start_ns) return r;
  }
  return std::nullopt;
}

constexpr const char* kBlockIds =
    "records[b].block of every record b, in order: block b's record belongs at records[b] (thread 0 of every block "
    "writes blockIdx.x)";

TEST(LiveTrace, RecordsEveryBlockOfTheGridOnce) {
  LAUNCHLAB_REQUIRE_GPU();
  {
    RECORD_SCOPE("trace_spin(blocks = 1000, threads_per_block = 128, spin_ns = 2000)");
    std::vector<BlockRecord> spin;
    RECORD_NO_THROW(spin = trace_spin(1000, 128, 2000));
    RECORD_EQ(BlockIds(spin), EveryBlock(1000)) << kBlockIds;
  }
  {
    RECORD_SCOPE("trace_vadd(blocks = 257, threads_per_block = 64)");
    std::vector<BlockRecord> vadd;
    RECORD_NO_THROW(vadd = trace_vadd(257, 64));
    RECORD_EQ(BlockIds(vadd), EveryBlock(257)) << kBlockIds;
  }
}

TEST(LiveTrace, SmIdsAreRealSmsAndALargeGridUsesEveryOne) {
  LAUNCHLAB_REQUIRE_GPU();
  const unsigned blocks = TwoFullWavesOf256ThreadBlocks();
  RECORD_SCOPE("trace_spin(two full waves of 256-thread blocks, spin_ns = 20000)");
  std::vector<BlockRecord> records;
  RECORD_NO_THROW(records = trace_spin(blocks, 256, 20'000));
  RECORD_EQ(records.size(), blocks) << "the records returned, one per block";
  std::optional<std::uint32_t> largest_sm;
  for (const BlockRecord& r : records) largest_sm = std::max(largest_sm.value_or(0), r.sm);
  RECORD_LT(largest_sm, ReadGpu().nsmid) << "the largest sm of any record, against %nsmid";
  RECORD_EQ(DistinctSms(records), static_cast<std::size_t>(MultiprocessorCount()))
      << "the distinct SM ids of the records, against cudaDevAttrMultiProcessorCount";
}

TEST(LiveTrace, TimestampsComeFromTheGlobalTimer) {
  LAUNCHLAB_REQUIRE_GPU();
  // The test reads %globaltimer itself just before and just after the traced
  // launch: every start and end must lie between (another clock, such as
  // clock64's cycles, would not).
  const unsigned blocks = static_cast<unsigned>(MultiprocessorCount() * 2);
  RECORD_SCOPE("trace_spin(two blocks per SM, 128 threads, spin_ns = 50000)");
  std::vector<BlockRecord> records;
  const GpuView before = ReadGpu();
  RECORD_NO_THROW(records = trace_spin(blocks, 128, 50'000));
  const GpuView after = ReadGpu();
  RECORD_EQ(records.size(), blocks) << "the records returned, one per block";
  std::optional<Shown> outside;
  for (const BlockRecord& r : records) {
    if (!(before.now_ns <= r.start_ns && r.start_ns <= r.end_ns && r.end_ns <= after.now_ns)) {
      outside = Shown{{{"record", record_value(r)},
                       {"globaltimer_before_the_launch", before.now_ns},
                       {"globaltimer_after_it", after.now_ns}}};
      break;
    }
  }
  RECORD_EQ(outside, std::nullopt)
      << "the first record whose start_ns and end_ns do not lie, in that order, between the %globaltimer the test "
         "read just before the launch and the one it read just after it";
}

TEST(LiveTrace, EveryBlockLastsAtLeastItsSpinTime) {
  LAUNCHLAB_REQUIRE_GPU();
  // A spin drawn from the seed, whole microseconds from 20 to 60: the course
  // knows how long each block must last, and a transcript written ahead of
  // the run does not.
  std::mt19937_64 random = testing::seeded_random(20261203);
  const std::uint64_t spin_ns = 1'000 * (20 + random() % 41);
  const unsigned blocks = static_cast<unsigned>(MultiprocessorCount() * 3);
  RECORD_SCOPE("trace_spin(three blocks per SM, 128 threads, spin_ns = " + std::to_string(spin_ns) + ")");
  std::vector<BlockRecord> records;
  RECORD_NO_THROW(records = trace_spin(blocks, 128, spin_ns));
  std::optional<std::int64_t> shortest_ns;
  for (const BlockRecord& r : records) {
    const std::int64_t lasted = static_cast<std::int64_t>(r.end_ns) - static_cast<std::int64_t>(r.start_ns);
    shortest_ns = std::min(shortest_ns.value_or(lasted), lasted);
  }
  RECORD_GE(shortest_ns, static_cast<std::int64_t>(spin_ns)) << "the shortest end_ns - start_ns of any record";
  RECORD_REQUIRE(shortest_ns.has_value());
  // A block ends a few hundred nanoseconds after its spin on the H200; a
  // tenth of the spin, and at least 5 us, leaves room for a slower GPU and
  // none for a block that spins twice or not at all.
  RECORD_NEAR(*shortest_ns, static_cast<std::int64_t>(spin_ns), static_cast<std::int64_t>(std::max<std::uint64_t>(5'000, spin_ns / 10)))
      << "the shortest end_ns - start_ns of any record, against the spin";
}

TEST(LiveTrace, WarpSlotsCountTheWarpsOfEachBlock) {
  LAUNCHLAB_REQUIRE_GPU();
  const unsigned blocks = static_cast<unsigned>(MultiprocessorCount());
  for (unsigned threads : {32u, 96u, 256u, 1000u, 1024u}) {
    RECORD_SCOPE("trace_spin(one block per SM, threads_per_block = " + std::to_string(threads) +
                 ", spin_ns = 5000)");
    std::vector<BlockRecord> records;
    RECORD_NO_THROW(records = trace_spin(blocks, threads, 5'000));
    // A partial warp still takes a slot.
    RECORD_EQ(WarpSlotCounts(records), (std::set<int>{static_cast<int>((threads + 31) / 32)}))
        << "the numbers of bits set in warp_slots, each number once: every warp of a block sets the bit of its "
           "own %warpid";
  }
}

TEST(LiveTrace, BlocksResidentTogetherUseDifferentWarpSlots) {
  LAUNCHLAB_REQUIRE_GPU();
  // Two blocks that are on one SM at the same time hold different hardware
  // warp slots. "At the same time" with a margin of 2 us on each side, far
  // above the timer's steps, for blocks that last 40 us. The block size is
  // drawn from the seed, so how many slots a full SM holds at once (blocks
  // that fit times warps per block) is the GPU's to say: the figure is judged
  // against the one the reference's trace of the same launch shows.
  std::mt19937_64 random = testing::seeded_random(20261204);
  constexpr unsigned kThreadChoices[] = {64, 96, 160, 192, 224, 256, 288, 352, 416, 480};
  const unsigned threads = kThreadChoices[random() % std::size(kThreadChoices)];
  const unsigned blocks = static_cast<unsigned>(MultiprocessorCount() * SpinBlocksPerSm(threads) * 2);
  RECORD_SCOPE("trace_spin(two full waves of " + std::to_string(threads) + "-thread blocks, spin_ns = 40000)");
  std::vector<BlockRecord> records;
  RECORD_NO_THROW(records = trace_spin(blocks, threads, 40'000));
  std::map<std::uint32_t, std::vector<const BlockRecord*>> by_sm;
  for (const BlockRecord& r : records) by_sm[r.sm].push_back(&r);
  const std::uint64_t margin = 2'000;
  int pairs = 0;
  int most_slots_in_use = 0;
  std::optional<Shown> sharing;
  for (const auto& [sm, on_sm] : by_sm) {
    for (std::size_t i = 0; i < on_sm.size(); ++i) {
      const BlockRecord& a = *on_sm[i];
      // The slots of every block on a's SM that runs from just after a
      // starts until a margin later.
      const std::uint64_t moment = a.start_ns + margin;
      std::uint64_t in_use = 0;
      for (const BlockRecord* b : on_sm) {
        if (b->start_ns <= moment && moment + margin <= b->end_ns) in_use |= b->warp_slots;
      }
      most_slots_in_use = std::max(most_slots_in_use, std::popcount(in_use));
      for (std::size_t j = i + 1; j < on_sm.size(); ++j) {
        const BlockRecord& b = *on_sm[j];
        const bool together = a.start_ns + margin < b.end_ns && b.start_ns + margin < a.end_ns;
        if (!together) continue;
        ++pairs;
        if ((a.warp_slots & b.warp_slots) != 0 && !sharing) {
          sharing = Shown{{{"one", record_value(a)}, {"other", record_value(b)}}};
        }
      }
    }
  }
  RECORD_EQ(sharing, std::nullopt)
      << "the first two records of one SM that overlap by more than 2 us and share a bit of warp_slots";
  RECORD_GT(pairs, 0) << "the pairs of blocks that ran together on one SM (more than 2 us of overlap)";
  // What the judge compares: a full SM holds the most warps it can, each in
  // a slot of its own, so the bits set at one moment count them all.
  RECORD_AS_THE_REFERENCE(most_slots_in_use)
      << "the most bits of warp_slots set at one moment on one SM: the union of warp_slots over the blocks running "
         "there 2 us after some block started";
}

TEST(LiveTrace, VaddTracesTheCourseLaunch) {
  LAUNCHLAB_REQUIRE_GPU();
  // vadd<<<4096, 256>>> on 2^20 floats, as every chapter has it.
  RECORD_SCOPE("trace_vadd(blocks = 4096, threads_per_block = 256)");
  std::vector<BlockRecord> records;
  RECORD_NO_THROW(records = trace_vadd(4096, 256));
  RECORD_EQ(BlockIds(records), EveryBlock(4096)) << kBlockIds;
  RECORD_EQ(FirstBackwards(records), std::nullopt) << "the first record whose end_ns is before its start_ns";
  RECORD_EQ(WarpSlotCounts(records), (std::set<int>{8}))
      << "the numbers of bits set in warp_slots, each number once: 256 threads are 8 warps";
  RECORD_EQ(DistinctSms(records), static_cast<std::size_t>(MultiprocessorCount()))
      << "the distinct SM ids of the records, against cudaDevAttrMultiProcessorCount";
}

// The GPU's memory, held in chunks of `chunk` bytes until not one more
// fits, and given back when it goes: while it lives, an allocation of
// `chunk` bytes fails. The failed cudaMalloc's error is cleared, here and
// on release, so that no later call reports it.
class HeldGpuMemory {
 public:
  explicit HeldGpuMemory(std::size_t chunk) {
    for (void* p = nullptr; cudaMalloc(&p, chunk) == cudaSuccess; p = nullptr) held_.push_back(p);
    cudaGetLastError();
  }
  ~HeldGpuMemory() {
    for (void* p : held_) cudaFree(p);
    cudaGetLastError();
  }
  HeldGpuMemory(const HeldGpuMemory&) = delete;
  HeldGpuMemory& operator=(const HeldGpuMemory&) = delete;

 private:
  std::vector<void*> held_;
};

TEST(LiveTrace, RefusesWhatCannotRunAndReportsCudaFailures) {
  LAUNCHLAB_REQUIRE_GPU();
  // Grids no launch can have, refused before any CUDA call.
  RECORD_THROWS(trace_vadd(0, 256), std::invalid_argument) << "trace_vadd(0 blocks, 256)";
  RECORD_THROWS(trace_vadd(4, 1025), std::invalid_argument) << "trace_vadd(4, 1025 threads)";
  constexpr unsigned k2To22 = 1u << 22, k2To31 = 1u << 31;
  RECORD_THROWS(trace_vadd(k2To22, 1024), std::invalid_argument) << "trace_vadd(2^22, 1024): 2^32 elements, past an int";
  RECORD_THROWS(trace_spin(k2To31, 32, 0), std::invalid_argument) << "trace_spin(2^31 blocks, 32, 0)";
  RECORD_THROWS(trace_spin(4, 0, 0), std::invalid_argument) << "trace_spin(4, 0 threads, 0)";
  RECORD_THROWS(trace_spin(4, 32, 1'000'000'001), std::invalid_argument) << "trace_spin(4, 32, one second and 1 ns)";
  RECORD_THROWS(time_branchy(Split::None, 0, 32, 16, 1), std::invalid_argument) << "time_branchy(None, 0 blocks, ...)";
  RECORD_THROWS(time_branchy(Split::None, 4, 2048, 16, 1), std::invalid_argument) << "time_branchy(None, 4, 2048 threads, ...)";
  RECORD_THROWS(time_branchy(Split::None, 4, 32, 0, 1), std::invalid_argument) << "time_branchy(None, 4, 32, 0 iterations, 1)";
  RECORD_THROWS(time_branchy(Split::None, 4, 32, 16, 0), std::invalid_argument) << "time_branchy(None, 4, 32, 16, 0 trials)";

  // The course's CUDA wrappers: each failed call is a cuda::Error.
  RECORD_THROWS(cuda::check(cudaErrorInvalidValue, "cudaMemcpy"), cuda::Error) << "check(cudaErrorInvalidValue, ...)";
  constexpr std::size_t kPebibyte = std::size_t{1} << 50;
  RECORD_THROWS(cuda::DeviceBuffer<std::byte> far_too_large(kPebibyte), cuda::Error) << "DeviceBuffer of 1 PiB";
  RECORD_THROWS(cuda::PinnedBuffer<std::byte> far_too_large(kPebibyte), cuda::Error) << "PinnedBuffer of 1 PiB";
  RECORD_THROWS(cuda::Event interprocess(cudaEventInterprocess), cuda::Error)
      << "Event(cudaEventInterprocess): an interprocess event must also disable timing";
  RECORD_THROWS(cuda::Stream unknown_flags(0x80u), cuda::Error) << "Stream(0x80), a flag streams do not have";
  cudaGetLastError();

  // With the GPU's memory taken, the launches' first allocation (256 MiB:
  // the records, or an array of 2^26 floats) fails.
  constexpr std::size_t kChunk = std::size_t{1} << 28;
  constexpr unsigned kBlocksOf1024Floats = kChunk / sizeof(float) / 1024;
  {
    const HeldGpuMemory held(kChunk);
    RECORD_THROWS(trace_spin(kChunk / sizeof(BlockRecord), 32, 0), std::runtime_error)
        << "trace_spin(blocks whose records take 256 MiB, 32, 0) with no 256 MiB left on the GPU";
    RECORD_THROWS(trace_vadd(kBlocksOf1024Floats, 1024), std::runtime_error)
        << "trace_vadd(2^16, 1024): arrays of 256 MiB, with no 256 MiB left on the GPU";
    RECORD_THROWS(time_branchy(Split::None, kBlocksOf1024Floats, 1024, 16, 1), std::runtime_error)
        << "time_branchy(None, 2^16, 1024, 16, 1): an output of 256 MiB, with no 256 MiB left on the GPU";
  }
  // Nothing of it stays: the GPU launches again.
  RECORD_SCOPE("trace_spin(blocks = 4, threads_per_block = 32, spin_ns = 0), once the memory is given back");
  std::vector<BlockRecord> records;
  RECORD_NO_THROW(records = trace_spin(4, 32, 0));
  RECORD_EQ(BlockIds(records), EveryBlock(4)) << kBlockIds;
}

// A grid of spin blocks `waves` times what the GPU holds at once, 50 us each.
struct WaveRun {
  int sms = 0;
  int per_sm = 0;
  unsigned blocks = 0;
  TraceSummary summary;
};

WaveRun RunWaves(double waves) {
  WaveRun run;
  run.sms = MultiprocessorCount();
  run.per_sm = SpinBlocksPerSm(256);
  run.blocks = static_cast<unsigned>(waves * run.sms * run.per_sm);
  std::vector<BlockRecord> records;
  RECORD_NO_THROW(records = trace_spin(run.blocks, 256, 50'000));
  RECORD_NO_THROW(run.summary = summarize(records)) << "summarize(the trace)";
  return run;
}

// ceil(blocks / (SMs x blocks per SM)): the waves the occupancy calculator predicts.
[[maybe_unused]] std::uint64_t PredictedWaves(const WaveRun& run) {
  const std::uint64_t capacity = static_cast<std::uint64_t>(run.sms) * run.per_sm;
  return (run.blocks + capacity - 1) / capacity;
}

TEST(LiveAnalysis, PeakResidentMatchesTheOccupancyCalculator) {
  LAUNCHLAB_REQUIRE_GPU();
  RECORD_SCOPE("trace_spin(two full waves of 256-thread blocks, spin_ns = 50000), then summarize");
  const WaveRun run = RunWaves(2.0);
  RECORD_EQ(run.summary.peak_resident, static_cast<std::uint32_t>(SpinBlocksPerSm(256)))
      << "TraceSummary::peak_resident, against cudaOccupancyMaxActiveBlocksPerMultiprocessor(traced_spin, 256 "
         "threads)";
}

TEST(LiveAnalysis, WavesAgreeWithTheOccupancyCalculator) {
  LAUNCHLAB_REQUIRE_GPU();
  for (double waves : {1.0, 3.5}) {
    RECORD_SCOPE("trace_spin(" + std::string(waves == 1.0 ? "1" : "3.5") +
                 " times the 256-thread blocks the GPU holds at once, spin_ns = 50000), then summarize");
    const WaveRun run = RunWaves(waves);
    RECORD_NEAR(run.summary.waves, PredictedWaves(run), 1)
        << "TraceSummary::waves, against ceil(blocks / (SMs x the blocks per SM the occupancy calculator allows)), "
           "give or take one";
  }
}

}  // namespace
}  // namespace launchlab::on_the_sm
