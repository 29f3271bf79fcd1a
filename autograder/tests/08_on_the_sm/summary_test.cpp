// summarize() on small hand-made traces, on the CPU: each test builds a trace
// whose answer can be worked out on paper, and says why in a comment.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis.h"
#include "launchlab/testing.h"
#include "trace.h"

namespace launchlab::on_the_sm {
namespace {

// A record of the given block on the given SM, resident over [start, end).
BlockRecord Block(std::uint32_t block, std::uint32_t sm, std::uint64_t start, std::uint64_t end) {
  BlockRecord r;
  r.block = block;
  r.sm = sm;
  r.start_ns = start;
  r.end_ns = end;
  r.warp_slots = 0xff;
  return r;
}

// summarize(), with an exception turned into a failure that names it.
TraceSummary Summarize(const std::vector<BlockRecord>& records) {
  try {
    return summarize(records);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "summarize threw: " << e.what();
    return TraceSummary{};
  }
}

// The SmLoad of one SM, or a failure saying which SMs the summary has.
const SmLoad* FindSm(const TraceSummary& summary, std::uint32_t sm) {
  for (const SmLoad& load : summary.sms)
    if (load.sm == sm) return &load;
  std::string have;
  for (const SmLoad& load : summary.sms) have += " " + std::to_string(load.sm);
  ADD_FAILURE() << "the summary has no entry for SM " << sm << " (it has SMs:" << have << ")";
  return nullptr;
}

std::vector<std::uint32_t> SmIds(const TraceSummary& summary) {
  std::vector<std::uint32_t> ids;
  for (const SmLoad& load : summary.sms) ids.push_back(load.sm);
  return ids;
}

TEST(Summary, CountsTheBlocksOfEachSm) {
  // SM 3 ran three blocks, SM 7 one, SM 0 two; the times do not matter here.
  const std::vector<BlockRecord> trace = {
      Block(0, 3, 100, 200), Block(1, 7, 100, 200), Block(2, 3, 100, 200),
      Block(3, 0, 100, 200), Block(4, 3, 300, 400), Block(5, 0, 300, 400),
  };
  const TraceSummary s = Summarize(trace);
  EXPECT_EQ(s.blocks, 6u) << "blocks: one per record";
  for (auto [sm, blocks] : {std::pair{0u, 2u}, std::pair{3u, 3u}, std::pair{7u, 1u}}) {
    if (const SmLoad* load = FindSm(s, sm)) {
      EXPECT_EQ(load->blocks, blocks) << "blocks of SM " << sm;
    }
  }
}

TEST(Summary, ListsOnlyTheSmsThatRanABlockInIncreasingOrder) {
  const std::vector<BlockRecord> trace = {
      Block(0, 131, 0, 10), Block(1, 2, 0, 10), Block(2, 64, 0, 10), Block(3, 2, 20, 30), Block(4, 0, 5, 6),
  };
  const std::vector<std::uint32_t> expected = {0, 2, 64, 131};
  EXPECT_TRUE(testing::SameSequence(expected, SmIds(Summarize(trace)))) << "the sm of each SmLoad, in order";
}

TEST(Summary, BlocksThatOnlyTouchDoNotOverlap) {
  // On SM 1, each block starts at the very nanosecond the previous one ended:
  // [0, 100), [100, 200), [200, 300). Never two at once: peak 1, 3 waves.
  const std::vector<BlockRecord> trace = {Block(0, 1, 0, 100), Block(1, 1, 100, 200), Block(2, 1, 200, 300)};
  const TraceSummary s = Summarize(trace);
  if (const SmLoad* load = FindSm(s, 1)) {
    EXPECT_EQ(load->peak_resident, 1u)
        << "[0, 100), [100, 200), [200, 300) never overlap: an end at t comes before a start at t";
    EXPECT_EQ(load->waves, 3u) << "3 blocks, at most 1 at a time";
  }
}

TEST(Summary, PeakResidentIsTheMostBlocksAtOneInstant) {
  // SM 0: [0, 50), [10, 60), [20, 30), [40, 45) -> at t = 40..44 blocks 0, 1
  // and 3 run (block 2 ended at 30): peak 3, never 4.
  // SM 5: [0, 10) and [10, 20) touch, [5, 15) overlaps both: peak 2.
  const std::vector<BlockRecord> trace = {
      Block(0, 0, 0, 50), Block(1, 0, 10, 60), Block(2, 0, 20, 30), Block(3, 0, 40, 45),
      Block(4, 5, 0, 10), Block(5, 5, 10, 20), Block(6, 5, 5, 15),
  };
  const TraceSummary s = Summarize(trace);
  if (const SmLoad* load = FindSm(s, 0)) {
    EXPECT_EQ(load->peak_resident, 3u) << "SM 0";
  }
  if (const SmLoad* load = FindSm(s, 5)) {
    EXPECT_EQ(load->peak_resident, 2u) << "SM 5";
  }
  EXPECT_EQ(s.peak_resident, 3u) << "the grid's peak_resident is the largest of the SMs'";
}

TEST(Summary, ABlockTheTimerSawAsInstantStillCounts) {
  // A block with start == end lasts [start, start + 1). On SM 2 one such block
  // sits inside a long one: peak 2. On SM 4 it is alone: peak 1, 1 wave, 1 ns busy.
  const std::vector<BlockRecord> trace = {
      Block(0, 2, 0, 100), Block(1, 2, 50, 50),
      Block(2, 4, 70, 70),
  };
  const TraceSummary s = Summarize(trace);
  if (const SmLoad* load = FindSm(s, 2)) {
    EXPECT_EQ(load->peak_resident, 2u) << "SM 2: [0, 100) holds [50, 51)";
  }
  if (const SmLoad* load = FindSm(s, 4)) {
    EXPECT_EQ(load->peak_resident, 1u) << "SM 4: one instantaneous block";
    EXPECT_EQ(load->waves, 1u) << "SM 4: one block, one wave (and no division by zero)";
    EXPECT_EQ(load->busy_ns, 1u) << "SM 4: [70, 71) is 1 ns";
  }
}

TEST(Summary, WavesAreBlocksOverPeakRoundedUpOnTheBusiestSm) {
  // SM 0 runs 2 at a time and gets 5 blocks: ceil(5 / 2) = 3 waves.
  // SM 1 runs 2 at a time and gets 4 blocks: 2 waves.
  // SM 2 gets 1 block: 1 wave. The grid took 3 waves.
  std::vector<BlockRecord> trace;
  std::uint32_t id = 0;
  for (std::uint64_t t : {0u, 100u}) {  // SM 0: two rounds of two...
    trace.push_back(Block(id++, 0, t, t + 100));
    trace.push_back(Block(id++, 0, t, t + 100));
  }
  trace.push_back(Block(id++, 0, 200, 300));  // ...and a fifth alone
  for (std::uint64_t t : {0u, 100u}) {
    trace.push_back(Block(id++, 1, t, t + 100));
    trace.push_back(Block(id++, 1, t + 10, t + 90));
  }
  trace.push_back(Block(id++, 2, 0, 100));
  const TraceSummary s = Summarize(trace);
  const std::uint32_t expected[][2] = {{0, 3}, {1, 2}, {2, 1}};
  for (const auto& [sm, waves] : expected) {
    if (const SmLoad* load = FindSm(s, sm)) {
      EXPECT_EQ(load->waves, waves) << "waves of SM " << sm;
    }
  }
  EXPECT_EQ(s.waves, 3u) << "the grid's waves are the busiest SM's";
}

TEST(Summary, TailRunsFromTheLastStartToTheLastEnd) {
  // The last block to start is block 3 on SM 1, at 700; the last to end is
  // block 5 on SM 2, at 1000: tail 300. span: earliest start 10 (SM 2) to
  // latest end 1000 = 990.
  const std::vector<BlockRecord> trace = {
      Block(0, 0, 100, 400), Block(1, 0, 20, 300), Block(2, 1, 50, 250),
      Block(3, 1, 700, 900), Block(4, 2, 10, 500), Block(5, 2, 600, 1000),
  };
  const TraceSummary s = Summarize(trace);
  if (const SmLoad* load = FindSm(s, 0)) {
    EXPECT_EQ(load->first_start_ns, 20u) << "first_start_ns of SM 0";
    EXPECT_EQ(load->last_end_ns, 400u) << "last_end_ns of SM 0";
  }
  if (const SmLoad* load = FindSm(s, 1)) {
    EXPECT_EQ(load->first_start_ns, 50u) << "first_start_ns of SM 1";
    EXPECT_EQ(load->last_end_ns, 900u) << "last_end_ns of SM 1";
  }
  EXPECT_EQ(s.tail_ns, 300u) << "tail_ns = latest end_ns (1000) - latest start_ns (700)";
  EXPECT_EQ(s.span_ns, 990u) << "span_ns = latest end_ns (1000) - earliest start_ns (10)";
}

TEST(Summary, BusyTimeCountsOverlapsOnceAndGapsNever) {
  // SM 3: [0, 100) and [50, 120) overlap (120 ns busy), then a gap, then
  // [200, 250) and [210, 220) inside it (50 ns): 170 ns.
  const std::vector<BlockRecord> trace = {
      Block(0, 3, 50, 120), Block(1, 3, 0, 100), Block(2, 3, 210, 220), Block(3, 3, 200, 250),
  };
  const TraceSummary s = Summarize(trace);
  if (const SmLoad* load = FindSm(s, 3)) {
    EXPECT_EQ(load->busy_ns, 170u) << "the union of [0,100), [50,120), [200,250), [210,220) is 120 + 50 ns";
  }
}

TEST(Summary, BalanceIsFewestOverMostBlocks) {
  // SM 0: 4 blocks, SM 1: 1 block, SM 2: 2 blocks -> 1 / 4.
  std::vector<BlockRecord> trace;
  std::uint32_t id = 0;
  for (int k = 0; k < 4; ++k) trace.push_back(Block(id++, 0, 100 * k, 100 * k + 50));
  trace.push_back(Block(id++, 1, 0, 50));
  for (int k = 0; k < 2; ++k) trace.push_back(Block(id++, 2, 100 * k, 100 * k + 50));
  EXPECT_DOUBLE_EQ(Summarize(trace).balance, 0.25) << "fewest blocks (1, SM 1) over most (4, SM 0)";

  const std::vector<BlockRecord> even = {Block(0, 0, 0, 10), Block(1, 1, 0, 10), Block(2, 2, 5, 10)};
  EXPECT_DOUBLE_EQ(Summarize(even).balance, 1.0) << "one block on each of three SMs";
}

TEST(Summary, SlotUtilizationComparesBlockTimeWithWhatTheSmsCouldHold) {
  // Span [0, 100). SM 0 holds two blocks at once, so peak_resident is 2 and
  // two SMs could have held 2 x 2 x 100 = 400 block-ns. The blocks used
  // 100 + 100 + 50 = 250: 0.625.
  const std::vector<BlockRecord> trace = {
      Block(0, 0, 0, 100), Block(1, 0, 0, 100), Block(2, 1, 25, 75),
  };
  EXPECT_DOUBLE_EQ(Summarize(trace).slot_utilization, 0.625);

  const std::vector<BlockRecord> instant = {Block(0, 0, 5, 5), Block(1, 1, 5, 5)};
  EXPECT_DOUBLE_EQ(Summarize(instant).slot_utilization, 1.0) << "span_ns is 0: slot_utilization is 1.0 by definition";
}

TEST(Summary, DoesNotDependOnTheOrderOfTheRecords) {
  // A made-up grid of 300 blocks on 7 SMs with random times; shuffled, the
  // summary must not change.
  std::mt19937 random(8);
  std::vector<BlockRecord> trace;
  for (std::uint32_t b = 0; b < 300; ++b) {
    const std::uint64_t start = 1'000'000 + random() % 5000;
    trace.push_back(Block(b, random() % 7 * 3, start, start + random() % 400));
  }
  const TraceSummary first = Summarize(trace);
  std::shuffle(trace.begin(), trace.end(), random);
  const TraceSummary second = Summarize(trace);
  ASSERT_EQ(first.sms.size(), 7u) << "the trace uses SMs 0, 3, 6, ..., 18";
  ASSERT_TRUE(testing::SameSequence(SmIds(first), SmIds(second))) << "the SMs, in order";
  for (std::size_t i = 0; i < first.sms.size(); ++i) {
    const SmLoad& a = first.sms[i];
    const SmLoad& b = second.sms[i];
    EXPECT_TRUE(a.blocks == b.blocks && a.peak_resident == b.peak_resident && a.waves == b.waves &&
                a.first_start_ns == b.first_start_ns && a.last_end_ns == b.last_end_ns && a.busy_ns == b.busy_ns)
        << "SM " << a.sm << " changed when the records were shuffled";
  }
  EXPECT_EQ(first.waves, second.waves);
  EXPECT_EQ(first.tail_ns, second.tail_ns);
  EXPECT_DOUBLE_EQ(first.slot_utilization, second.slot_utilization);
  EXPECT_EQ(first.span_ns, second.span_ns);
}

TEST(Summary, RejectsAnEmptyTraceAndABlockThatEndsBeforeItStarts) {
  auto throws_invalid_argument = [](const std::vector<BlockRecord>& trace) -> ::testing::AssertionResult {
    try {
      summarize(trace);
    } catch (const std::invalid_argument&) {
      return ::testing::AssertionSuccess();
    } catch (const std::exception& e) {
      return ::testing::AssertionFailure() << "expected std::invalid_argument, got another exception: " << e.what();
    }
    return ::testing::AssertionFailure() << "expected std::invalid_argument, got a summary";
  };
  EXPECT_TRUE(throws_invalid_argument({})) << "an empty trace";
  EXPECT_TRUE(throws_invalid_argument({Block(0, 0, 0, 10), Block(1, 0, 500, 499)}))
      << "block 1 ends at 499 ns, before it starts at 500 ns";
}

}  // namespace
}  // namespace launchlab::on_the_sm
