/// @file
/// What a trace says about how the grid was spread over the SMs: blocks per
/// SM, how many ran at once, the waves, the tail and the balance.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "trace.h"

namespace launchlab::on_the_sm {

/// One SM's share of a grid.
///
/// A block is *resident* on its SM from start_ns up to, but not including,
/// end_ns: a block that ends at t and one that starts at t did not overlap. A
/// block whose end_ns equals its start_ns (the timer did not tick while it
/// ran) counts as resident for one nanosecond, [start_ns, start_ns + 1).
struct SmLoad {
  std::uint32_t sm = 0;              ///< the SM's `%smid`
  std::uint32_t blocks = 0;          ///< how many blocks of the grid ran on it
  std::uint32_t peak_resident = 0;   ///< the most blocks resident on it at one instant
  std::uint32_t waves = 0;           ///< blocks / peak_resident, rounded up
  std::uint64_t first_start_ns = 0;  ///< the earliest start_ns of its blocks
  std::uint64_t last_end_ns = 0;     ///< the latest end_ns of its blocks
  /// How long at least one block was resident on it: the length of the
  /// union of its blocks' resident intervals (overlaps count once, gaps not
  /// at all).
  std::uint64_t busy_ns = 0;
};

/// The whole grid's spread over the GPU.
struct TraceSummary {
  std::uint64_t blocks = 0;  ///< the number of records
  /// One entry per SM that ran at least one block, in increasing `sm` order.
  std::vector<SmLoad> sms;
  /// The largest peak_resident of all SMs.
  std::uint32_t peak_resident = 0;
  /// The number of waves: the largest `waves` of all SMs. A grid that fits
  /// on the GPU at once is 1 wave; the busiest SM ran its blocks in this many
  /// rounds of peak_resident blocks.
  std::uint32_t waves = 0;
  /// From the earliest start_ns to the latest end_ns of the whole grid.
  std::uint64_t span_ns = 0;
  /// The tail: from the moment the grid's last block started to the moment
  /// its last block ended (the latest end_ns minus the latest start_ns).
  /// Once every block has been handed out, an SM that finishes a block has
  /// nothing left to run: the GPU only empties from then on.
  std::uint64_t tail_ns = 0;
  /// The fewest blocks any SM in `sms` ran divided by the most: 1.0 when
  /// every SM ran the same number.
  double balance = 0.0;
  /// How full the GPU was kept: the blocks' resident time added up, divided
  /// by what the SMs that took part could have held over the span,
  /// sms.size() × peak_resident × span_ns. 1.0 when span_ns is 0, and never
  /// more than 1.0 (a one-nanosecond block can reach 1 ns past the span).
  double slot_utilization = 0.0;
};

/// Summarizes a trace. The records may come in any order; the result does
/// not depend on it.
///
/// @param records one record per block (any order)
/// @return the summary described by TraceSummary and SmLoad
/// @throws std::invalid_argument when there are no records, or a record ends
///         before it starts
TraceSummary summarize(std::span<const BlockRecord> records);

}  // namespace launchlab::on_the_sm
