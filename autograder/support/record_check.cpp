#include "launchlab/record_check.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <utility>

namespace launchlab::testing {
using nlohmann::json;

namespace {

constexpr std::array<std::pair<Check, std::string_view>, 13> kNames = {{
    {Check::equal, "equal"},
    {Check::not_equal, "not_equal"},
    {Check::near, "near"},
    {Check::less, "less"},
    {Check::less_equal, "less_equal"},
    {Check::greater, "greater"},
    {Check::greater_equal, "greater_equal"},
    {Check::contains, "contains"},
    {Check::one_of, "one_of"},
    {Check::is_true, "is_true"},
    {Check::is_false, "is_false"},
    {Check::throws, "throws"},
    {Check::holds, "holds"},
}};

std::string clip(std::string text, std::size_t limit) {
  if (text.size() > limit) {
    text.resize(limit);
    text += "...";
  }
  return text;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  if (!text.empty() && text.back() == '\n') lines.emplace_back();
  return lines;
}

/// Where two values first differ, in words; empty when they are equal.
std::string first_difference(const json& expected, const json& actual, const std::string& where) {
  if (expected == actual) return {};
  if (expected.is_array() && actual.is_array()) {
    std::size_t common = std::min(expected.size(), actual.size());
    for (std::size_t i = 0; i < common; ++i) {
      std::string inner = first_difference(expected[i], actual[i], where + "[" + std::to_string(i) + "]");
      if (!inner.empty()) {
        return inner + (expected.size() != actual.size()
                            ? " (and the sizes differ: expected " + std::to_string(expected.size()) +
                                  " elements, got " + std::to_string(actual.size()) + ")"
                            : std::string());
      }
    }
    return (where.empty() ? std::string("the ") : where + ": the ") + "first " + std::to_string(common) +
           " elements agree, then the sizes differ: expected " + std::to_string(expected.size()) +
           " elements, got " + std::to_string(actual.size()) +
           (actual.size() > expected.size() ? "; the first extra one is " + show_value(actual[common])
                                            : "; the first missing one is " + show_value(expected[common]));
  }
  if (expected.is_object() && actual.is_object()) {
    for (const auto& [key, value] : expected.items()) {
      if (!actual.contains(key)) return where + "." + key + " is missing";
      std::string inner = first_difference(value, actual[key], where + "." + key);
      if (!inner.empty()) return inner;
    }
    for (const auto& [key, value] : actual.items()) {
      if (!expected.contains(key)) return where + "." + key + " was not expected";
    }
    return {};
  }
  if (expected.is_string() && actual.is_string()) {
    const std::string& e = expected.get_ref<const std::string&>();
    const std::string& a = actual.get_ref<const std::string&>();
    if (e.find('\n') != std::string::npos || a.find('\n') != std::string::npos) {
      auto el = split_lines(e);
      auto al = split_lines(a);
      std::size_t common = std::min(el.size(), al.size());
      for (std::size_t i = 0; i < common; ++i) {
        if (el[i] != al[i]) {
          return (where.empty() ? std::string() : where + ": ") + "first difference at line " +
                 std::to_string(i + 1) + ": expected " + show_value(el[i]) + ", got " + show_value(al[i]);
        }
      }
      return (where.empty() ? std::string() : where + ": ") + "the first " + std::to_string(common) +
             " lines agree, then expected " + std::to_string(el.size()) + " lines, got " + std::to_string(al.size());
    }
  }
  return (where.empty() ? std::string() : where + ": ") + "expected " + show_value(expected) + ", got " +
         show_value(actual);
}

bool both_numbers(const json& a, const json& b) { return a.is_number() && b.is_number(); }

/// a < b for numbers (exact for integers of either sign) and strings.
std::optional<bool> less_than(const json& a, const json& b) {
  if (a.is_number_integer() && b.is_number_integer()) {
    bool a_negative = a.is_number_integer() && !a.is_number_unsigned() && a.get<std::int64_t>() < 0;
    bool b_negative = b.is_number_integer() && !b.is_number_unsigned() && b.get<std::int64_t>() < 0;
    if (a_negative != b_negative) return a_negative;
    if (a_negative) return a.get<std::int64_t>() < b.get<std::int64_t>();
    return a.get<std::uint64_t>() < b.get<std::uint64_t>();
  }
  if (both_numbers(a, b)) return a.get<double>() < b.get<double>();
  if (a.is_string() && b.is_string()) return a.get<std::string>() < b.get<std::string>();
  return std::nullopt;
}

CheckResult order(const json& actual, const json& expected, bool want_less, bool or_equal, const char* words) {
  auto is_less = want_less ? less_than(actual, expected) : less_than(expected, actual);
  if (!is_less) return {false, "expected a number " + std::string(words) + " " + show_value(expected) + ", got " + show_value(actual)};
  bool ok = *is_less || (or_equal && actual == expected);
  if (ok) return {true, {}};
  return {false, "expected a value " + std::string(words) + " " + show_value(expected) + ", got " + show_value(actual)};
}

}  // namespace

std::string_view check_name(Check check) {
  for (const auto& [value, name] : kNames) {
    if (value == check) return name;
  }
  return "unknown";
}

std::optional<Check> check_from_name(std::string_view name) {
  for (const auto& [value, known] : kNames) {
    if (known == name) return value;
  }
  return std::nullopt;
}

std::string show_value(const json& value, std::size_t limit) {
  if (value.is_string()) {
    return clip(json(value.get<std::string>()).dump(-1, ' ', false, json::error_handler_t::replace), limit);
  }
  return clip(value.dump(-1, ' ', false, json::error_handler_t::replace), limit);
}

bool forgeable(Check check, const json& expected) {
  const auto guessable = [](const json& value) { return value.is_boolean() || value.is_null(); };
  switch (check) {
    case Check::equal: return guessable(expected);
    case Check::near:
    case Check::contains: return false;
    case Check::one_of:
      return !expected.is_array() || expected.empty() || std::any_of(expected.begin(), expected.end(), guessable);
    case Check::throws:
      // RECORD_OUTCOME's {"returned": value} is the solution's own value;
      // any text is a description of a throw, which the test source names.
      return !expected.is_object() || guessable(expected.value("returned", json()));
    case Check::not_equal:
    case Check::less:
    case Check::less_equal:
    case Check::greater:
    case Check::greater_equal:
    case Check::is_true:
    case Check::is_false:
    case Check::holds: return true;
  }
  return true;
}

CheckResult check_value(Check check, const json& actual, const json& expected, const json& parameter) {
  switch (check) {
    case Check::equal:
    case Check::throws: {
      if (actual == expected) return {true, {}};
      return {false, first_difference(expected, actual, "")};
    }
    case Check::not_equal:
      if (actual != expected) return {true, {}};
      return {false, "expected anything but " + show_value(expected) + ", got it"};
    case Check::near: {
      if (!both_numbers(actual, expected) || !parameter.is_number()) {
        return {false, "expected a number within " + show_value(parameter) + " of " + show_value(expected) + ", got " +
                           show_value(actual)};
      }
      double difference = std::fabs(actual.get<double>() - expected.get<double>());
      if (difference <= parameter.get<double>()) return {true, {}};
      std::ostringstream text;
      text << "expected " << show_value(expected) << " within " << show_value(parameter) << ", got "
           << show_value(actual) << " (off by " << difference << ")";
      return {false, text.str()};
    }
    case Check::less: return order(actual, expected, true, false, "below");
    case Check::less_equal: return order(actual, expected, true, true, "at most");
    case Check::greater: return order(actual, expected, false, false, "above");
    case Check::greater_equal: return order(actual, expected, false, true, "at least");
    case Check::contains: {
      if (actual.is_string() && expected.is_string() &&
          actual.get<std::string>().find(expected.get<std::string>()) != std::string::npos) {
        return {true, {}};
      }
      return {false, "expected a text that contains " + show_value(expected) + ", got " + show_value(actual, 600)};
    }
    case Check::one_of: {
      if (expected.is_array() && std::find(expected.begin(), expected.end(), actual) != expected.end()) {
        return {true, {}};
      }
      return {false, "expected one of " + show_value(expected, 600) + ", got " + show_value(actual)};
    }
    case Check::is_true:
    case Check::holds:
      if (actual == json(true)) return {true, {}};
      return {false, check == Check::holds ? "it did not hold, so the test stopped here" : "expected true, got " + show_value(actual)};
    case Check::is_false:
      if (actual == json(false)) return {true, {}};
      return {false, "expected false, got " + show_value(actual)};
  }
  return {false, "an unknown comparison"};
}

}  // namespace launchlab::testing
