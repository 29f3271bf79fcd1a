// How the tests of 08_on_the_sm record the lab's types: as objects with the
// field names of trace.h and analysis.h, so that a difference is named by its
// field ("[3].busy_ns: expected 170, got 120").
#pragma once

#include <nlohmann/json.hpp>

#include "analysis.h"
#include "trace.h"

namespace launchlab::on_the_sm {

inline nlohmann::json record_value(const BlockRecord& r) {
  return {{"block", r.block}, {"sm", r.sm}, {"start_ns", r.start_ns}, {"end_ns", r.end_ns},
          {"warp_slots", r.warp_slots}};
}

inline nlohmann::json record_value(const SmLoad& load) {
  return {{"sm", load.sm},
          {"blocks", load.blocks},
          {"peak_resident", load.peak_resident},
          {"waves", load.waves},
          {"first_start_ns", load.first_start_ns},
          {"last_end_ns", load.last_end_ns},
          {"busy_ns", load.busy_ns}};
}

inline nlohmann::json record_value(const TraceSummary& s) {
  nlohmann::json sms = nlohmann::json::array();
  for (const SmLoad& load : s.sms) sms.push_back(record_value(load));
  return {{"blocks", s.blocks},           {"sms", sms},         {"peak_resident", s.peak_resident},
          {"waves", s.waves},             {"span_ns", s.span_ns}, {"tail_ns", s.tail_ns},
          {"balance", s.balance},         {"slot_utilization", s.slot_utilization}};
}

}  // namespace launchlab::on_the_sm
