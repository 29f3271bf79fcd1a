// summarize() on small hand-made traces, on the CPU: each test builds a trace
// whose answer can be worked out on paper, and says why in a comment.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "analysis.h"
#include "launchlab/drawn.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "trace.h"
#include "trace_records.h"

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

// The trace as the learner reads it in a failure: "block 0 on SM 3 over [100, 200), ...".
std::string Listing(const std::vector<BlockRecord>& trace) {
  std::string text;
  for (const BlockRecord& r : trace) {
    if (!text.empty()) text += ", ";
    text += "block " + std::to_string(r.block) + " on SM " + std::to_string(r.sm) + " over [" +
            std::to_string(r.start_ns) + ", " + std::to_string(r.end_ns) + ")";
  }
  return text.empty() ? "no records" : text;
}

// summarize(), with whether it threw recorded; an empty summary when it did.
TraceSummary Summarize(const std::vector<BlockRecord>& trace) {
  TraceSummary summary;
  RECORD_NO_THROW(summary = summarize(trace));
  return summary;
}

// One number per SM of a summary, recorded as {"SM 3": 3, "SM 7": 1, ...}.
struct PerSm {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> values;
};

nlohmann::json record_value(const PerSm& per_sm) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [sm, value] : per_sm.values) object["SM " + std::to_string(sm)] = value;
  return object;
}

// The field of every SmLoad of the summary, by SM.
template <class Field>
PerSm Each(const TraceSummary& summary, Field SmLoad::*field) {
  PerSm per_sm;
  for (const SmLoad& load : summary.sms) per_sm.values.emplace_back(load.sm, load.*field);
  return per_sm;
}

// A summary less its two ratios, balance and slot_utilization: a record of
// drawn inputs compares exactly, and a ratio may differ in its last bit with
// the order of its operations (their own tests allow for that).
struct WholeNumbers {
  TraceSummary summary;
};

nlohmann::json record_value(const WholeNumbers& whole) {
  nlohmann::json summary = record_value(whole.summary);
  summary.erase("balance");
  summary.erase("slot_utilization");
  return summary;
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
  RECORD_SCOPE("summarize(" + Listing(trace) + ")");
  const TraceSummary s = Summarize(trace);
  RECORD_EQ(s.blocks, 6u) << "TraceSummary::blocks: one per record";
  RECORD_EQ(Each(s, &SmLoad::blocks), (PerSm{{{0, 2}, {3, 3}, {7, 1}}})) << "SmLoad::blocks of each SM";
}

TEST(Summary, ListsOnlyTheSmsThatRanABlockInIncreasingOrder) {
  const std::vector<BlockRecord> trace = {
      Block(0, 131, 0, 10), Block(1, 2, 0, 10), Block(2, 64, 0, 10), Block(3, 2, 20, 30), Block(4, 0, 5, 6),
  };
  RECORD_SCOPE("summarize(" + Listing(trace) + ")");
  RECORD_EQ(SmIds(Summarize(trace)), (std::vector<std::uint32_t>{0, 2, 64, 131})) << "the sm of each SmLoad, in order";
}

TEST(Summary, BlocksThatOnlyTouchDoNotOverlap) {
  // On SM 1, each block starts at the very nanosecond the previous one ended:
  // [0, 100), [100, 200), [200, 300). Never two at once: peak 1, 3 waves.
  const std::vector<BlockRecord> trace = {Block(0, 1, 0, 100), Block(1, 1, 100, 200), Block(2, 1, 200, 300)};
  RECORD_SCOPE("summarize(" + Listing(trace) + ")");
  const TraceSummary s = Summarize(trace);
  RECORD_EQ(Each(s, &SmLoad::peak_resident), (PerSm{{{1, 1}}}))
      << "SmLoad::peak_resident: [0, 100), [100, 200), [200, 300) never overlap: an end at t comes before a start at t";
  RECORD_EQ(Each(s, &SmLoad::waves), (PerSm{{{1, 3}}})) << "SmLoad::waves";
}

TEST(Summary, PeakResidentIsTheMostBlocksAtOneInstant) {
  // SM 0: [0, 50), [10, 60), [20, 30), [40, 45) -> at t = 40..44 blocks 0, 1
  // and 3 run (block 2 ended at 30): peak 3, never 4.
  // SM 5: [0, 10) and [10, 20) touch, [5, 15) overlaps both: peak 2.
  const std::vector<BlockRecord> trace = {
      Block(0, 0, 0, 50), Block(1, 0, 10, 60), Block(2, 0, 20, 30), Block(3, 0, 40, 45),
      Block(4, 5, 0, 10), Block(5, 5, 10, 20), Block(6, 5, 5, 15),
  };
  RECORD_SCOPE("summarize(" + Listing(trace) + ")");
  const TraceSummary s = Summarize(trace);
  RECORD_EQ(Each(s, &SmLoad::peak_resident), (PerSm{{{0, 3}, {5, 2}}})) << "SmLoad::peak_resident of each SM";
  RECORD_EQ(s.peak_resident, 3u) << "TraceSummary::peak_resident: the largest of the SMs'";
}

TEST(Summary, ABlockTheTimerSawAsInstantStillCounts) {
  // A block with start == end lasts [start, start + 1). On SM 2 one such block
  // sits inside a long one: peak 2. On SM 4 it is alone: peak 1, 1 wave, 1 ns busy.
  const std::vector<BlockRecord> trace = {
      Block(0, 2, 0, 100), Block(1, 2, 50, 50),
      Block(2, 4, 70, 70),
  };
  RECORD_SCOPE("summarize(" + Listing(trace) + ")");
  const TraceSummary s = Summarize(trace);
  RECORD_EQ(Each(s, &SmLoad::peak_resident), (PerSm{{{2, 2}, {4, 1}}}))
      << "SmLoad::peak_resident: a block whose end_ns equals its start_ns is resident over [start_ns, start_ns + 1)";
  RECORD_EQ(Each(s, &SmLoad::waves), (PerSm{{{2, 1}, {4, 1}}}))
      << "SmLoad::waves";
  RECORD_EQ(Each(s, &SmLoad::busy_ns), (PerSm{{{2, 100}, {4, 1}}}))
      << "SmLoad::busy_ns: a block whose end_ns equals its start_ns is resident for one nanosecond";
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
  RECORD_SCOPE("summarize(" + Listing(trace) + ")");
  const TraceSummary s = Summarize(trace);
  RECORD_EQ(Each(s, &SmLoad::waves), (PerSm{{{0, 3}, {1, 2}, {2, 1}}})) << "SmLoad::waves of each SM";
  RECORD_EQ(s.waves, 3u) << "TraceSummary::waves: the busiest SM's";
}

TEST(Summary, TailRunsFromTheLastStartToTheLastEnd) {
  // The last block to start is block 3 on SM 1, at 700; the last to end is
  // block 5 on SM 2, at 1000: tail 300. span: earliest start 10 (SM 2) to
  // latest end 1000 = 990.
  const std::vector<BlockRecord> trace = {
      Block(0, 0, 100, 400), Block(1, 0, 20, 300), Block(2, 1, 50, 250),
      Block(3, 1, 700, 900), Block(4, 2, 10, 500), Block(5, 2, 600, 1000),
  };
  RECORD_SCOPE("summarize(" + Listing(trace) + ")");
  const TraceSummary s = Summarize(trace);
  RECORD_EQ(Each(s, &SmLoad::first_start_ns), (PerSm{{{0, 20}, {1, 50}, {2, 10}}}))
      << "SmLoad::first_start_ns of each SM";
  RECORD_EQ(Each(s, &SmLoad::last_end_ns), (PerSm{{{0, 400}, {1, 900}, {2, 1000}}}))
      << "SmLoad::last_end_ns of each SM";
  RECORD_EQ(s.tail_ns, 300u) << "TraceSummary::tail_ns: the latest end_ns minus the latest start_ns";
  RECORD_EQ(s.span_ns, 990u) << "TraceSummary::span_ns: the latest end_ns minus the earliest start_ns";
}

TEST(Summary, BusyTimeCountsOverlapsOnceAndGapsNever) {
  // SM 3: [0, 100) and [50, 120) overlap (120 ns busy), then a gap, then
  // [200, 250) and [210, 220) inside it (50 ns): 170 ns.
  const std::vector<BlockRecord> trace = {
      Block(0, 3, 50, 120), Block(1, 3, 0, 100), Block(2, 3, 210, 220), Block(3, 3, 200, 250),
  };
  RECORD_SCOPE("summarize(" + Listing(trace) + ")");
  RECORD_EQ(Each(Summarize(trace), &SmLoad::busy_ns), (PerSm{{{3, 170}}}))
      << "SmLoad::busy_ns: the length of the union of the blocks' resident intervals (overlaps count once, gaps not "
         "at all)";
}

TEST(Summary, BalanceIsFewestOverMostBlocks) {
  // SM 0: 4 blocks, SM 1: 1 block, SM 2: 2 blocks -> 1 / 4.
  std::vector<BlockRecord> trace;
  std::uint32_t id = 0;
  for (int k = 0; k < 4; ++k) trace.push_back(Block(id++, 0, 100 * k, 100 * k + 50));
  trace.push_back(Block(id++, 1, 0, 50));
  for (int k = 0; k < 2; ++k) trace.push_back(Block(id++, 2, 100 * k, 100 * k + 50));
  {
    RECORD_SCOPE("summarize(" + Listing(trace) + ")");
    RECORD_NEAR(Summarize(trace).balance, 0.25, 1e-12)
        << "TraceSummary::balance: the fewest blocks an SM ran over the most";
  }
  const std::vector<BlockRecord> even = {Block(0, 0, 0, 10), Block(1, 1, 0, 10), Block(2, 2, 5, 10)};
  RECORD_SCOPE("summarize(" + Listing(even) + ")");
  RECORD_NEAR(Summarize(even).balance, 1.0, 1e-12) << "TraceSummary::balance: one block on each of three SMs";
}

TEST(Summary, SlotUtilizationComparesBlockTimeWithWhatTheSmsCouldHold) {
  // Span [0, 100). SM 0 holds two blocks at once, so peak_resident is 2 and
  // two SMs could have held 2 x 2 x 100 = 400 block-ns. The blocks used
  // 100 + 100 + 50 = 250: 0.625.
  const std::vector<BlockRecord> trace = {
      Block(0, 0, 0, 100), Block(1, 0, 0, 100), Block(2, 1, 25, 75),
  };
  {
    RECORD_SCOPE("summarize(" + Listing(trace) + ")");
    RECORD_NEAR(Summarize(trace).slot_utilization, 0.625, 1e-12)
        << "TraceSummary::slot_utilization: the blocks' resident time over sms.size() x peak_resident x span_ns";
  }
  const std::vector<BlockRecord> instant = {Block(0, 0, 5, 5), Block(1, 1, 5, 5)};
  RECORD_SCOPE("summarize(" + Listing(instant) + ")");
  RECORD_NEAR(Summarize(instant).slot_utilization, 1.0, 1e-12)
      << "TraceSummary::slot_utilization when span_ns is 0";
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
  RECORD_SCOPE("summarize(300 records of blocks on SMs 0, 3, 6, ..., 18 with random times), then summarize(the same "
               "records shuffled)");
  const TraceSummary first = Summarize(trace);
  std::shuffle(trace.begin(), trace.end(), random);
  const TraceSummary second = Summarize(trace);
  RECORD_EQ(first.sms.size(), 7u) << "the number of SmLoads in the first summary";
  // Both summaries are the learner's: how the second differs from the first
  // is recorded in words ("expected" there is the first summary, "got" the second).
  const std::string changed =
      testing::check_value(testing::Check::equal, testing::encode(second), testing::encode(first), nullptr).explanation;
  RECORD_EQ(changed, "") << "how the summary of the shuffled records differs from the first summary";
}

TEST(Summary, RejectsAnEmptyTraceAndABlockThatEndsBeforeItStarts) {
  RECORD_THROWS(summarize(std::vector<BlockRecord>{}), std::invalid_argument) << "summarize(no records)";
  const std::vector<BlockRecord> backwards = {Block(0, 0, 0, 10), Block(1, 0, 500, 499)};
  RECORD_THROWS(summarize(backwards), std::invalid_argument)
      << "summarize(" << Listing(backwards) << "): block 1 ends at 499 ns, before it starts at 500 ns";
  // Drawn traces, some of them empty or with a block that ends before it
  // starts: only code that rejects exactly those and summarizes the others
  // matches the solution.
  std::mt19937_64 random = testing::seeded_random(20260801);
  for (const bool valid : testing::draw_validity(random, 8)) {
    std::vector<BlockRecord> trace(1 + random() % 8);
    for (std::uint32_t b = 0; b < trace.size(); ++b) {
      const std::uint64_t start = 100 + random() % 1000;  // so that an end 50 ns before it is no wrap-around
      trace[b] = Block(b, static_cast<std::uint32_t>(random() % 4), start, start + random() % 300);
    }
    if (!valid) {
      if (random() % 3 == 0) {
        trace.clear();
      } else {
        BlockRecord& backwards_block = trace[random() % trace.size()];
        backwards_block.end_ns = backwards_block.start_ns - 1 - random() % 50;
      }
    }
    RECORD_OUTCOME(WholeNumbers{summarize(trace)}, std::invalid_argument)
        << "summarize(" << Listing(trace) << "); returned: the summary's counts and times";
  }
}

}  // namespace
}  // namespace launchlab::on_the_sm
