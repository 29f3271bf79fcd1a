/// @file
/// How a record's value is compared with what was expected. One piece of
/// code for both sides: the reference build checks its own records with it,
/// and the judge checks the learner's records with it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace launchlab::testing {

/// The comparison a record declares.
enum class Check {
  equal,
  not_equal,
  near,           ///< |actual - expected| <= parameter
  less,
  less_equal,
  greater,
  greater_equal,
  contains,       ///< the actual text holds the expected text
  one_of,         ///< the actual value equals one of the expected values (an array)
  is_true,
  is_false,
  throws,         ///< the outcome (record.h: what_is_thrown(), outcome_of()) equals the expected one
  holds,          ///< a RECORD_REQUIRE condition
};

/// "equal", "near", ... as the transcript spells it.
std::string_view check_name(Check check);

/// The check a transcript names; nothing for a name it does not know.
std::optional<Check> check_from_name(std::string_view name);

/// Whether actual passes the check; when not, `explanation` says how it
/// differs in words: "expected 5, got 4", "first difference at [3]: ...".
struct CheckResult {
  bool agrees = false;
  std::string explanation;
};

/// Compares a recorded value with the expected one. For is_true, is_false
/// and holds, expected is ignored.
CheckResult check_value(Check check, const nlohmann::json& actual, const nlohmann::json& expected,
                        const nlohmann::json& parameter);

/// Whether a record's passing value follows from its check alone, so that a
/// program that writes its own transcript could pass it without computing
/// anything: is_true, is_false, holds, not_equal and the one-sided bounds
/// (write true, false, another value, +-1.79e308), throws when what passes
/// is the text the test names ("throws Type", "throws nothing"), and equal,
/// or an outcome that returned, when the value expected is a boolean or null;
/// one_of when a boolean or null is among the values it allows, or none is.
/// A test is forgeable when all its records are: its points rest on no value
/// the learner cannot infer, and the course's lint refuses it.
bool forgeable(Check check, const nlohmann::json& expected);

/// A value as a learner reads it: strings quoted, numbers plain, long
/// values clipped.
std::string show_value(const nlohmann::json& value, std::size_t limit = 300);

}  // namespace launchlab::testing
