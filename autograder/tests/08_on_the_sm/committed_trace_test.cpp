// summarize() on traces recorded on an NVIDIA H200, committed in fixtures/
// (fixtures/README.md has the command that recorded them), on the CPU.
//
// The truth comes from two places that are not the learner's code: the facts
// the recorder wrote beside each trace (the SM count and the occupancy the
// CUDA runtime computed on the H200), and a slow, plain count done here
// (every quantity straight from its definition in analysis.h, by brute force).
// Both are read in the expected half of the records only.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "trace.h"
#include "trace_records.h"

namespace launchlab::on_the_sm {
namespace {

namespace fs = std::filesystem;

// Reads fixtures/<name>; throws when it is missing or cannot be read.
TraceFile LoadFixture(const std::string& name) {
  const fs::path path = testing::lab_material("08_on_the_sm/fixtures/" + name);
  std::ifstream in(path);
  if (!in) throw std::runtime_error("the committed trace " + name + " is missing from the tests");
  TraceFile trace = read_trace_csv(in);
  if (trace.records.empty()) throw std::runtime_error("the committed trace " + name + " holds no records");
  return trace;
}

// A fact the recorder wrote beside the trace ("# sms: 132").
[[maybe_unused]] std::uint64_t MetaNumber(const TraceFile& trace, const std::string& key) {
  const auto value = trace.find(key);
  if (!value) throw std::runtime_error("the committed trace has no '# " + key + ": ...' line");
  return std::stoull(*value);
}

// The summary counted from the definitions in analysis.h, one block at a
// time and by brute force.
[[maybe_unused]] TraceSummary CountByHand(const std::vector<BlockRecord>& records) {
  struct Span {
    std::uint64_t begin, end;  // resident over [begin, end)
  };
  std::map<std::uint32_t, std::vector<Span>> spans;
  std::map<std::uint32_t, SmLoad> loads;
  TraceSummary out;
  std::uint64_t first = UINT64_MAX, last = 0, last_start = 0, resident = 0;
  for (const BlockRecord& r : records) {
    last_start = std::max(last_start, r.start_ns);
    resident += std::max(r.end_ns, r.start_ns + 1) - r.start_ns;
    spans[r.sm].push_back({r.start_ns, std::max(r.end_ns, r.start_ns + 1)});
    SmLoad& e = loads[r.sm];
    e.sm = r.sm;
    e.blocks += 1;
    e.first_start_ns = e.blocks == 1 ? r.start_ns : std::min(e.first_start_ns, r.start_ns);
    e.last_end_ns = std::max(e.last_end_ns, r.end_ns);
    first = std::min(first, r.start_ns);
    last = std::max(last, r.end_ns);
  }
  for (auto& [sm, e] : loads) {
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
    out.sms.push_back(e);
  }
  out.blocks = records.size();
  out.span_ns = last - first;
  out.tail_ns = last - last_start;
  out.slot_utilization =
      out.span_ns == 0 ? 1.0
                       : std::min(1.0, static_cast<double>(resident) /
                                           (static_cast<double>(out.sms.size()) * out.peak_resident * out.span_ns));
  return out;
}

std::vector<std::uint32_t> SmIds(const TraceSummary& summary) {
  std::vector<std::uint32_t> ids;
  for (const SmLoad& load : summary.sms) ids.push_back(load.sm);
  return ids;
}

// summarize(), with whether it threw recorded; an empty summary when it did.
TraceSummary Summarize(const std::vector<BlockRecord>& records) {
  TraceSummary summary;
  RECORD_NO_THROW(summary = summarize(records));
  return summary;
}

// Records a summary of the committed trace against the count by hand, field
// by field; an SM that differs is named by its place in `sms` and its field.
void RecordAgainstCountByHand(const std::vector<BlockRecord>& records) {
  const TraceSummary got = Summarize(records);
  RECORD_EQ(got.blocks, records.size()) << "TraceSummary::blocks: one per record";
  RECORD_EQ(SmIds(got), SmIds(CountByHand(records))) << "the sm of each SmLoad, in increasing order";
  RECORD_EQ(got.sms, CountByHand(records).sms) << "TraceSummary::sms, each SmLoad counted by hand";
  RECORD_EQ(got.peak_resident, CountByHand(records).peak_resident) << "TraceSummary::peak_resident";
  RECORD_EQ(got.waves, CountByHand(records).waves) << "TraceSummary::waves";
  RECORD_EQ(got.span_ns, CountByHand(records).span_ns) << "TraceSummary::span_ns";
  RECORD_EQ(got.tail_ns, CountByHand(records).tail_ns) << "TraceSummary::tail_ns";
  RECORD_NEAR(got.slot_utilization, CountByHand(records).slot_utilization, 1e-9) << "TraceSummary::slot_utilization";
}

TEST(CommittedTrace, VaddSummaryMatchesACountByHand) {
  const TraceFile trace = LoadFixture("vadd_4096x256.csv");
  RECORD_SCOPE("summarize(the committed trace of vadd<<<4096, 256>>> on an H200)");
  RecordAgainstCountByHand(trace.records);
  // A trace cut short on its way is refused at its line, never summarized.
  const std::string cut = "block,sm,start_ns,end_ns,warp_slots\n0,3,100,200,0x00000000000000ff\n1,4,100\n";
  std::istringstream in(cut);
  RECORD_CONTAINS(testing::message_thrown<std::runtime_error>([&] { read_trace_csv(in); }), "line 3")
      << "read_trace_csv of a trace whose line 3 has 3 of its 5 fields:\n" << cut;
}

TEST(CommittedTrace, VaddRanOnEverySmOfTheGpu) {
  // 4096 blocks are several times what the SMs hold at once, so the first
  // wave alone gives every SM work.
  const TraceFile trace = LoadFixture("vadd_4096x256.csv");
  RECORD_SCOPE("summarize(the committed trace of vadd<<<4096, 256>>> on an H200)");
  RECORD_EQ(Summarize(trace.records).sms.size(), MetaNumber(trace, "sms"))
      << "the SMs that ran a block, against cudaDevAttrMultiProcessorCount of the GPU that recorded the trace";
}

TEST(CommittedTrace, SpinSummaryMatchesACountByHand) {
  const TraceFile trace = LoadFixture("spin_waves.csv");
  RECORD_SCOPE("summarize(the committed trace of traced_spin on an H200, several waves)");
  RecordAgainstCountByHand(trace.records);
}

// ceil(blocks / (SMs x blocks per SM)): the waves a uniform grid needs.
[[maybe_unused]] std::uint64_t PredictedWaves(const TraceFile& trace) {
  const std::uint64_t capacity = MetaNumber(trace, "sms") * MetaNumber(trace, "active_blocks_per_sm");
  if (capacity == 0) throw std::runtime_error("the committed trace says no block fits on the GPU");
  return (trace.records.size() + capacity - 1) / capacity;
}

TEST(CommittedTrace, SpinWavesAgreeWithTheOccupancyCalculator) {
  // The recorder asked cudaOccupancyMaxActiveBlocksPerMultiprocessor how many
  // traced_spin blocks fit on one SM; the waves a uniform grid needs are
  // ceil(blocks / (SMs x that)). Counted from the trace, they may differ by
  // one at most (a block handed out late can open one more round).
  const TraceFile trace = LoadFixture("spin_waves.csv");
  RECORD_SCOPE("summarize(the committed trace of traced_spin on an H200, several waves)");
  const TraceSummary got = Summarize(trace.records);
  RECORD_LE(got.peak_resident, MetaNumber(trace, "active_blocks_per_sm"))
      << "TraceSummary::peak_resident: no SM holds more blocks than cudaOccupancyMaxActiveBlocksPerMultiprocessor "
         "allows";
  RECORD_NEAR(got.waves, PredictedWaves(trace), 1)
      << "TraceSummary::waves, against ceil(blocks / (SMs x the blocks per SM the occupancy calculator allows)), "
         "give or take one";
}

}  // namespace
}  // namespace launchlab::on_the_sm
