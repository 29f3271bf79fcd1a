// What a trace says about the grid's spread over the SMs. The definitions
// are in analysis.h; `./launchlab test 08` runs the tests.

#include "analysis.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace launchlab::on_the_sm {

namespace {

// A block's resident interval [begin, end), with the one-nanosecond rule for
// a block the timer saw start and end at the same instant.
struct Interval {
  std::uint64_t begin;
  std::uint64_t end;
};

Interval resident(const BlockRecord& record) {
  return {record.start_ns, std::max(record.end_ns, record.start_ns + 1)};
}

// The most intervals that hold one instant: sweep over the starts and ends in
// time order, an end before a start at the same time (the intervals are
// half-open, so those two never overlap).
std::uint32_t peak_overlap(const std::vector<Interval>& intervals) {
  std::vector<std::pair<std::uint64_t, int>> events;
  events.reserve(intervals.size() * 2);
  for (const Interval& interval : intervals) {
    events.emplace_back(interval.begin, +1);
    events.emplace_back(interval.end, -1);
  }
  std::sort(events.begin(), events.end());  // (t, -1) sorts before (t, +1)
  int running = 0;
  int peak = 0;
  for (const auto& event : events) {
    running += event.second;
    peak = std::max(peak, running);
  }
  return static_cast<std::uint32_t>(peak);
}

// The length of the union of the intervals.
std::uint64_t union_length(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::uint64_t total = 0;
  std::uint64_t covered_to = 0;
  bool any = false;
  for (const Interval& interval : intervals) {
    if (!any || interval.begin >= covered_to) {
      total += interval.end - interval.begin;
      covered_to = interval.end;
      any = true;
    } else if (interval.end > covered_to) {
      total += interval.end - covered_to;
      covered_to = interval.end;
    }
  }
  return total;
}

}  // namespace

TraceSummary summarize(std::span<const BlockRecord> records) {
  if (records.empty()) throw std::invalid_argument("summarize: the trace has no records");

  struct OnOneSm {
    std::vector<Interval> intervals;
    std::uint64_t last_end = 0;  // the records' own end_ns, not the stretched one
  };
  std::map<std::uint32_t, OnOneSm> by_sm;
  std::uint64_t first_start = records.front().start_ns;
  std::uint64_t last_start = records.front().start_ns;
  std::uint64_t last_end = records.front().end_ns;
  std::uint64_t resident_total = 0;  // every block's resident time, added up
  for (const BlockRecord& record : records) {
    if (record.end_ns < record.start_ns) {
      throw std::invalid_argument("summarize: block " + std::to_string(record.block) + " ends at " +
                                  std::to_string(record.end_ns) + " ns, before it starts at " +
                                  std::to_string(record.start_ns) + " ns");
    }
    OnOneSm& sm = by_sm[record.sm];
    sm.intervals.push_back(resident(record));
    sm.last_end = std::max(sm.last_end, record.end_ns);
    first_start = std::min(first_start, record.start_ns);
    last_start = std::max(last_start, record.start_ns);
    last_end = std::max(last_end, record.end_ns);
    resident_total += sm.intervals.back().end - sm.intervals.back().begin;
  }

  TraceSummary summary;
  summary.blocks = records.size();
  summary.span_ns = last_end - first_start;
  for (const auto& [sm, on_sm] : by_sm) {
    SmLoad load;
    load.sm = sm;
    load.blocks = static_cast<std::uint32_t>(on_sm.intervals.size());
    load.peak_resident = peak_overlap(on_sm.intervals);
    load.waves = (load.blocks + load.peak_resident - 1) / load.peak_resident;
    load.first_start_ns = on_sm.intervals.front().begin;
    for (const Interval& interval : on_sm.intervals) {
      load.first_start_ns = std::min(load.first_start_ns, interval.begin);
    }
    load.last_end_ns = on_sm.last_end;
    load.busy_ns = union_length(on_sm.intervals);
    summary.sms.push_back(load);
  }

  std::uint32_t fewest = summary.sms.front().blocks;
  std::uint32_t most = fewest;
  for (const SmLoad& load : summary.sms) {
    summary.peak_resident = std::max(summary.peak_resident, load.peak_resident);
    summary.waves = std::max(summary.waves, load.waves);
    fewest = std::min(fewest, load.blocks);
    most = std::max(most, load.blocks);
  }
  summary.tail_ns = last_end - last_start;
  summary.balance = static_cast<double>(fewest) / static_cast<double>(most);
  // A block stretched to one nanosecond can reach 1 ns past span_ns: cap at 1.
  const double slots = static_cast<double>(summary.sms.size()) * summary.peak_resident *
                       static_cast<double>(summary.span_ns);
  summary.slot_utilization =
      summary.span_ns == 0 ? 1.0 : std::min(1.0, static_cast<double>(resident_total) / slots);
  return summary;
}

}  // namespace launchlab::on_the_sm
