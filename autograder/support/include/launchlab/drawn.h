/// @file
/// Drawn inputs for a test of what a function rejects: which cases are
/// valid, and for a function whose valid calls need a GPU, which calls
/// were rejected. The random engine comes from testing::seeded_random().
#pragma once

#include <algorithm>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace launchlab::testing {

/// Which of `count` drawn cases are valid inputs (true) and which invalid
/// (false), each decided by the draw, with at least two of each kind: a
/// table of outcomes then tells code that rejects every input, and code
/// that rejects none, from code that checks. count must be at least 4.
inline std::vector<bool> draw_validity(std::mt19937_64& random, std::size_t count) {
  if (count < 4) throw std::invalid_argument("draw_validity: two cases of each kind need at least 4");
  std::vector<bool> valid(count);
  // Drawn again until both kinds appear twice: with 8 cases, about one
  // draw in 14 is drawn again.
  while (true) {
    for (std::size_t i = 0; i < count; ++i) valid[i] = random() % 2 == 0;
    const auto valid_count = static_cast<std::size_t>(std::count(valid.begin(), valid.end(), true));
    if (valid_count >= 2 && count - valid_count >= 2) return valid;
  }
}

/// Drawn calls of a function that checks its arguments before any CUDA
/// call, for a test that runs with or without a GPU: a valid call fails in
/// CUDA without one (in words that differ from one build to the other) and
/// runs on one, but whether a call threw std::invalid_argument depends on
/// its arguments only. Record `rejected` with RECORD_EQ beside `invalid`:
/// only code that checks its arguments gives the drawn pattern.
struct RejectionTable {
  std::vector<bool> rejected;  ///< [i]: whether call i threw std::invalid_argument
  std::vector<bool> invalid;   ///< [i]: whether call i's arguments break a rule its header states
  std::string calls;           ///< the calls in order, numbered, for the record's context

  /// Makes one call (a callable) and notes whether it threw std::invalid_argument.
  template <class Call>
  void add(bool valid, const std::string& description, Call&& call) {
    bool threw = false;
    try {
      call();
    } catch (const std::invalid_argument&) {
      threw = true;
    } catch (...) {
    }
    calls += (calls.empty() ? "" : "; ") + std::to_string(rejected.size()) + ": " + description;
    rejected.push_back(threw);
    invalid.push_back(!valid);
  }
};

/// What a call threw, by its kind alone: "std::invalid_argument",
/// "std::runtime_error", "another exception" or "nothing" (a learner's
/// messages are the learner's own words, and no rule states them).
template <class Call>
std::string kind_thrown(Call&& call) {
  try {
    call();
  } catch (const std::invalid_argument&) {
    return "std::invalid_argument";
  } catch (const std::runtime_error&) {
    return "std::runtime_error";
  } catch (...) {
    return "another exception";
  }
  return "nothing";
}

}  // namespace launchlab::testing
