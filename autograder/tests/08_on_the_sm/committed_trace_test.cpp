// summarize() on traces recorded on an NVIDIA H200, committed in fixtures/
// (fixtures/README.md has the command that recorded them), on the CPU.
//
// The truth comes from two places that are not the learner's code: the facts
// the recorder wrote beside each trace (the SM count and the occupancy the
// CUDA runtime computed on the H200), and a slow, plain count done here
// (every quantity straight from its definition in analysis.h, by brute force).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis.h"
#include "launchlab/testing.h"
#include "trace.h"

namespace launchlab::on_the_sm {
namespace {

namespace fs = std::filesystem;

// Loads fixtures/<name>; fails the test (fatally) when it is missing or bad.
void LoadFixture(const std::string& name, TraceFile& trace) {
  const fs::path path = testing::test_data("08_on_the_sm/fixtures/" + name);
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " is missing: it is recorded on a GPU by autograder/tests/08_on_the_sm/gpu_run.sh";
  try {
    trace = read_trace_csv(in);
  } catch (const std::exception& e) {
    FAIL() << path << ": " << e.what();
  }
  ASSERT_FALSE(trace.records.empty()) << path << " holds no records";
}

std::uint64_t MetaNumber(const TraceFile& trace, const std::string& key) {
  const auto value = trace.find(key);
  if (!value) {
    ADD_FAILURE() << "the fixture has no '# " << key << ": ...' line";
    return 0;
  }
  return std::stoull(*value);
}

// One SM's numbers, counted from the definitions in analysis.h.
struct Expected {
  std::uint32_t blocks = 0;
  std::uint32_t peak_resident = 0;
  std::uint32_t waves = 0;
  std::uint64_t first_start_ns = 0;
  std::uint64_t last_end_ns = 0;
  std::uint64_t busy_ns = 0;
};

struct ExpectedSummary {
  std::map<std::uint32_t, Expected> sms;
  std::uint32_t peak_resident = 0;
  std::uint32_t waves = 0;
  std::uint64_t span_ns = 0;
  std::uint64_t tail_ns = 0;
  double slot_utilization = 0;
};

ExpectedSummary CountByHand(const std::vector<BlockRecord>& records) {
  struct Span {
    std::uint64_t begin, end;  // resident over [begin, end)
  };
  std::map<std::uint32_t, std::vector<Span>> spans;
  ExpectedSummary out;
  std::uint64_t first = UINT64_MAX, last = 0, last_start = 0, resident = 0;
  for (const BlockRecord& r : records) {
    last_start = std::max(last_start, r.start_ns);
    resident += std::max(r.end_ns, r.start_ns + 1) - r.start_ns;
    spans[r.sm].push_back({r.start_ns, std::max(r.end_ns, r.start_ns + 1)});
    Expected& e = out.sms[r.sm];
    e.blocks += 1;
    e.first_start_ns = e.blocks == 1 ? r.start_ns : std::min(e.first_start_ns, r.start_ns);
    e.last_end_ns = std::max(e.last_end_ns, r.end_ns);
    first = std::min(first, r.start_ns);
    last = std::max(last, r.end_ns);
  }
  for (auto& [sm, e] : out.sms) {
    const std::vector<Span>& s = spans[sm];
    // The most blocks at one instant: the count is highest just at some
    // block's start, so count at every start.
    for (const Span& at : s) {
      std::uint32_t count = 0;
      for (const Span& other : s) count += (other.begin <= at.begin && at.begin < other.end) ? 1 : 0;
      e.peak_resident = std::max(e.peak_resident, count);
    }
    e.waves = (e.blocks + e.peak_resident - 1) / e.peak_resident;
    // Busy time: cut the time line at every start and end, and add up the
    // pieces that some block covers.
    std::set<std::uint64_t> cuts;
    for (const Span& x : s) {
      cuts.insert(x.begin);
      cuts.insert(x.end);
    }
    std::vector<std::uint64_t> points(cuts.begin(), cuts.end());
    for (std::size_t k = 0; k + 1 < points.size(); ++k) {
      const bool covered = std::any_of(s.begin(), s.end(), [&](const Span& x) {
        return x.begin <= points[k] && points[k] < x.end;
      });
      if (covered) e.busy_ns += points[k + 1] - points[k];
    }
    out.peak_resident = std::max(out.peak_resident, e.peak_resident);
    out.waves = std::max(out.waves, e.waves);
  }
  out.span_ns = last - first;
  out.tail_ns = last - last_start;
  out.slot_utilization =
      out.span_ns == 0 ? 1.0
                       : std::min(1.0, static_cast<double>(resident) /
                                           (static_cast<double>(out.sms.size()) * out.peak_resident * out.span_ns));
  return out;
}

// Compares a summary with the count by hand, SM by SM; reports the first
// SM and field that differ.
void ExpectMatchesCountByHand(const std::vector<BlockRecord>& records) {
  TraceSummary got;
  try {
    got = summarize(records);
  } catch (const std::exception& e) {
    FAIL() << "summarize threw: " << e.what();
  }
  const ExpectedSummary want = CountByHand(records);
  EXPECT_EQ(got.blocks, records.size()) << "blocks";
  std::vector<std::uint32_t> want_ids, got_ids;
  for (const auto& [sm, e] : want.sms) want_ids.push_back(sm);
  for (const SmLoad& load : got.sms) got_ids.push_back(load.sm);
  ASSERT_TRUE(testing::SameSequence(want_ids, got_ids)) << "the SMs of the summary, in increasing order";
  for (const SmLoad& load : got.sms) {
    const Expected& e = want.sms.at(load.sm);
    const std::string where = "SM " + std::to_string(load.sm) + ": ";
    EXPECT_EQ(load.blocks, e.blocks) << where << "blocks";
    EXPECT_EQ(load.peak_resident, e.peak_resident) << where << "peak_resident";
    EXPECT_EQ(load.waves, e.waves) << where << "waves";
    EXPECT_EQ(load.first_start_ns, e.first_start_ns) << where << "first_start_ns";
    EXPECT_EQ(load.last_end_ns, e.last_end_ns) << where << "last_end_ns";
    EXPECT_EQ(load.busy_ns, e.busy_ns) << where << "busy_ns";
    if (::testing::Test::HasFailure()) return;  // the first SM that differs is enough
  }
  EXPECT_EQ(got.peak_resident, want.peak_resident) << "peak_resident";
  EXPECT_EQ(got.waves, want.waves) << "waves";
  EXPECT_EQ(got.span_ns, want.span_ns) << "span_ns";
  EXPECT_EQ(got.tail_ns, want.tail_ns) << "tail_ns";
  EXPECT_NEAR(got.slot_utilization, want.slot_utilization, 1e-9) << "slot_utilization";
}

TEST(CommittedTrace, VaddSummaryMatchesACountByHand) {
  TraceFile trace;
  ASSERT_NO_FATAL_FAILURE(LoadFixture("vadd_4096x256.csv", trace));
  ExpectMatchesCountByHand(trace.records);
}

TEST(CommittedTrace, VaddRanOnEverySmOfTheGpu) {
  // 4096 blocks are several times what the SMs hold at once, so the first
  // wave alone gives every SM work.
  TraceFile trace;
  ASSERT_NO_FATAL_FAILURE(LoadFixture("vadd_4096x256.csv", trace));
  const std::uint64_t sms = MetaNumber(trace, "sms");
  TraceSummary got;
  ASSERT_NO_THROW(got = summarize(trace.records));
  EXPECT_EQ(got.sms.size(), sms) << "SMs that ran a block, against cudaDevAttrMultiProcessorCount on the "
                                 << trace.find("gpu").value_or("GPU") << " that recorded the trace";
}

TEST(CommittedTrace, SpinSummaryMatchesACountByHand) {
  TraceFile trace;
  ASSERT_NO_FATAL_FAILURE(LoadFixture("spin_waves.csv", trace));
  ExpectMatchesCountByHand(trace.records);
}

TEST(CommittedTrace, SpinWavesAgreeWithTheOccupancyCalculator) {
  // The recorder asked cudaOccupancyMaxActiveBlocksPerMultiprocessor how many
  // traced_spin blocks fit on one SM; the waves a uniform grid needs are
  // ceil(blocks / (SMs x that)). Counted from the trace, they may differ by
  // one at most (a block handed out late can open one more round).
  TraceFile trace;
  ASSERT_NO_FATAL_FAILURE(LoadFixture("spin_waves.csv", trace));
  const std::uint64_t sms = MetaNumber(trace, "sms");
  const std::uint64_t per_sm = MetaNumber(trace, "active_blocks_per_sm");
  ASSERT_GT(sms * per_sm, 0u);
  const std::uint64_t blocks = trace.records.size();
  const std::uint64_t predicted = (blocks + sms * per_sm - 1) / (sms * per_sm);
  TraceSummary got;
  ASSERT_NO_THROW(got = summarize(trace.records));
  EXPECT_LE(got.peak_resident, per_sm) << "no SM can hold more blocks than the occupancy calculator allows";
  const std::int64_t off = static_cast<std::int64_t>(got.waves) - static_cast<std::int64_t>(predicted);
  EXPECT_LE(off < 0 ? -off : off, 1) << "waves counted from the trace: " << got.waves << "; ceil(" << blocks
                                     << " / (" << sms << " x " << per_sm << ")) = " << predicted;
}

}  // namespace
}  // namespace launchlab::on_the_sm
