// What a trace says about the grid's spread over the SMs. The definitions
// are in analysis.h; `./launchlab test 08` runs the tests.

#include "analysis.h"

#include <stdexcept>

namespace launchlab::on_the_sm {

TraceSummary summarize(std::span<const BlockRecord> records) {
  // TODO(student): summarize the trace as analysis.h defines it.
  //  - Reject an empty trace and a record whose end_ns < start_ns
  //    (std::invalid_argument).
  //  - Group the records by sm. For each SM: its blocks; its peak_resident,
  //    from a sweep over the starts and ends in time order (at equal times an
  //    end comes before a start: [start, end) intervals; a block with
  //    end == start lasts [start, start + 1)); its waves, blocks over
  //    peak_resident rounded up; first_start_ns, last_end_ns; and busy_ns,
  //    the length of the union of its intervals.
  //  - Then the grid: peak_resident and waves are the largest of the SMs';
  //    span_ns, tail_ns, balance and slot_utilization as analysis.h says.
  (void)records;
  return TraceSummary{};
}

}  // namespace launchlab::on_the_sm
