// How the tests of 11_occupancy describe a configuration and an answer of
// the calculator in what they record: the same words for the learner's
// answers and for the truth they are compared with.
#pragma once

#include <cstddef>
#include <exception>
#include <sstream>
#include <string>

#include "occupancy.h"

namespace launchlab::occupancy::records {

/// A kernel and its launch, as a failure names them:
/// "{33 registers, 0 B static, max dynamic 49152 B} <<<block 128, 0 B dynamic>>>, carveout -1".
inline std::string describe(const KernelResources& k, const LaunchShape& l) {
  std::ostringstream s;
  s << "{" << k.registers_per_thread << " registers, " << k.static_shared_bytes << " B static, max dynamic "
    << k.max_dynamic_shared_bytes << " B} <<<block " << l.block_size << ", " << l.dynamic_shared_bytes
    << " B dynamic>>>, carveout " << l.carveout_percent;
  return s.str();
}

/// The Limiter bits by name: "warps|registers", "none".
inline std::string limiter_names(unsigned limiters) {
  std::string s;
  auto add = [&](Limiter limiter, const char* name) {
    if (has_limiter(limiters, limiter)) s += (s.empty() ? "" : "|") + std::string(name);
  };
  add(Limiter::warps, "warps");
  add(Limiter::registers, "registers");
  add(Limiter::shared_memory, "shared_memory");
  add(Limiter::blocks, "blocks");
  const unsigned known = static_cast<unsigned>(Limiter::warps) | static_cast<unsigned>(Limiter::registers) |
                         static_cast<unsigned>(Limiter::shared_memory) | static_cast<unsigned>(Limiter::blocks);
  if (limiters & ~known) s += (s.empty() ? "" : "|") + std::to_string(limiters & ~known);
  return s.empty() ? "none" : s;
}

/// An answer in a table of many: the active blocks and the first letters of
/// the limiters, "12 R", "8 WR", "0 S"; "-" for no limiter.
inline std::string short_answer(int active_blocks, unsigned limiters) {
  std::string letters;
  if (has_limiter(limiters, Limiter::warps)) letters += 'W';
  if (has_limiter(limiters, Limiter::registers)) letters += 'R';
  if (has_limiter(limiters, Limiter::shared_memory)) letters += 'S';
  if (has_limiter(limiters, Limiter::blocks)) letters += 'B';
  if (letters.empty()) letters = "-";
  return std::to_string(active_blocks) + " " + letters;
}

/// The legend of short_answer(), for the context of a table.
inline constexpr const char* kShortAnswerLegend =
    "each answer is the active blocks and their limiters (W warps, R registers, S shared memory, B blocks)";

/// compute_occupancy as short_answer() writes it, or what it threw.
inline std::string learners_short_answer(const ArchLimits& arch, const KernelResources& k, const LaunchShape& l) {
  try {
    const Occupancy o = compute_occupancy(arch, k, l);
    return short_answer(o.active_blocks, o.limiters);
  } catch (const std::exception& e) {
    return std::string("throws: ") + e.what();
  }
}

/// An answer of blocks alone, for tables of the runtime's answers: "4 blocks", "1 block".
inline std::string active_blocks(int blocks) { return std::to_string(blocks) + (blocks == 1 ? " block" : " blocks"); }

/// compute_occupancy's active blocks as active_blocks() writes them, or what it threw.
inline std::string learners_active_blocks(const ArchLimits& arch, const KernelResources& k, const LaunchShape& l) {
  try {
    return active_blocks(compute_occupancy(arch, k, l).active_blocks);
  } catch (const std::exception& e) {
    return std::string("throws: ") + e.what();
  }
}

}  // namespace launchlab::occupancy::records
