/// @file
/// Test records: the exercise side of every lab's tests.
///
/// A test runs the learner's code and *records* what it returned; it never
/// decides whether that was right. The same test source is compiled twice:
///
/// - the **exercise** build (LAUNCHLAB_EXERCISE defined) is linked with the
///   learner's files. Each RECORD_* macro writes the value it was given to
///   the transcript and nothing else: the expected half of every macro is
///   left out of the program text, so the program holds no expected values
///   and makes no verdicts.
/// - the **reference** build is linked with solutions/. The same macros also
///   write the comparison and the expected value, and check them as
///   GoogleTest assertions, so the course's own tests prove the solutions.
///
/// The judge (autograder/grader/judge.cpp), in a process the learner's code
/// cannot reach, compares the two transcripts record by record with the
/// comparison the reference declared.
///
/// Writing a test:
///
///     TEST(GridArithmetic, BlocksNeededRoundsUp) {
///       RECORD_EQ(blocks_needed(1025, 256), 5u) << "blocks_needed(n = 1025, block_size = 256)";
///     }
///
/// **A point rests on a value the learner cannot infer.** The learner's
/// program writes its own transcript, so it can write any value: a record
/// whose passing value follows from its check (RECORD_TRUE: write true) proves
/// nothing. Every test with points needs at least one record that compares
/// the learner's value with the reference's value for the same input, exactly
/// or within a tolerance, where that value is not implied by the check
/// (record_check.h's forgeable(); `launchlab lint` refuses a test without one).
///
/// - RECORD_EQ(actual, expected), RECORD_NEAR(actual, expected, tolerance),
///   RECORD_CONTAINS(text, part): `expected` is compiled into the reference
///   build only; these carry points, unless `expected` is a boolean.
/// - RECORD_ONE_OF(actual, allowed): `allowed` (a range, compiled into the
///   reference build only) is every value that passes, found by the
///   reference process: where more than one answer is right and which ones
///   are depends on what the reference measured (the launch configurations
///   within some margin of the fastest, say). It carries points unless a
///   boolean or null is among the values allowed.
/// - RECORD_AS_THE_REFERENCE(actual): the expected value is what the same
///   expression gives in the reference's run, on the solution: for a figure
///   the GPU decides (how many warps an SM holds at once, for a block size
///   drawn from the seed) that no test source can hold. `actual` is read
///   twice in the reference build: name a variable.
/// - RECORD_OUTCOME(expression, Type): what the expression did on an input,
///   {"returned": value} or "throws Type", judged equal to what the solution
///   did on the same input. For inputs drawn with seeded_random()
///   (testing.h), whose answers no test source holds: a table of seed-drawn
///   inputs, some valid and some not, shows whether the code rejects exactly
///   the invalid ones and computes the rest.
/// - RECORD_NE / LT / LE / GT / GE (actual, bound), RECORD_TRUE / RECORD_FALSE
///   (condition), RECORD_THROWS(statement, Type), RECORD_NO_THROW(statement),
///   RECORD_REQUIRE(condition): each implies its own passing value, so none
///   carries a point alone. Use them beside records that do: never put an
///   expected value inside a condition (RECORD_TRUE(f(x) == y) is
///   RECORD_EQ(f(x), y)), and give a test of what must throw a row of
///   seed-drawn valid inputs recorded with RECORD_OUTCOME.
/// - RECORD_THROWS_WITHOUT_A_GPU(statement, Type): RECORD_THROWS, with the
///   statement run again in a process where CUDA sees no device
///   (launchlab/testing.h: outcome_without_a_gpu), for a header's promise
///   about a failed CUDA call; in a test that needs no GPU before it.
/// - RECORD_THROWS_IN_A_FORKED_CHILD(statement, Type): RECORD_THROWS, with
///   the statement run in a child forked from this process, where the
///   driver answers every call with an error (launchlab/testing.h:
///   outcome_in_a_forked_child), for a promise about a driver call that no
///   handle a test may pass makes fail; in a test that needs a GPU.
/// - RECORD_REQUIRE(condition): ends the test (return) when the condition
///   fails, so that what follows never reads past what the learner returned.
/// - RECORD_SCOPE(text): adds text to the context of every record made in
///   the enclosing block (what SCOPED_TRACE was for).
/// - Tables of cases keep expected values in Expected<T> fields written with
///   LAUNCHLAB_EXPECTED(value): the learner's build keeps none of them.
///
/// A record's key is its expression's text and how many times that text was
/// recorded before in the same test, so both builds name records alike. The
/// context (`<< ...`) says, in the learner's terms, what was given: the
/// judge shows it with the expected and the received value.
///
/// Values are recorded as JSON: numbers, strings, booleans, optional (null),
/// ranges (arrays) and pairs; a lab type gets a `record_value(const T&)`
/// function returning nlohmann::json in T's own namespace, found by
/// argument-dependent lookup; anything else is recorded as GoogleTest prints it.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <concepts>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <ranges>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "launchlab/record_check.h"

namespace launchlab::testing {

#ifdef LAUNCHLAB_EXERCISE
inline constexpr bool kReferenceBuild = false;
#else
/// True in the reference build (solutions), false in the learner's.
inline constexpr bool kReferenceBuild = true;
#endif

/// An expected value in a table of cases. In the learner's build it holds
/// nothing: write its initializer with LAUNCHLAB_EXPECTED(value).
template <class T>
struct Expected {
#ifndef LAUNCHLAB_EXERCISE
  T value{};
  Expected() = default;
  Expected(T v) : value(std::move(v)) {}  // NOLINT: implicit, for tables
#endif
};

namespace record_detail {

template <class T>
struct is_expected : std::false_type {};
template <class T>
struct is_expected<Expected<T>> : std::true_type {};

template <class T>
concept string_like = std::convertible_to<const T&, std::string_view>;

template <class T>
concept has_record_value = requires(const T& v) {
  { record_value(v) } -> std::convertible_to<nlohmann::json>;
};

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
struct is_pair : std::false_type {};
template <class A, class B>
struct is_pair<std::pair<A, B>> : std::true_type {};

}  // namespace record_detail

/// A value as the transcript holds it. It calls itself by its qualified
/// name: a lab's own encode() (qmd::encode) must never be picked by
/// argument-dependent lookup for a member or an element.
template <class T>
nlohmann::json encode(const T& value) {
  using U = std::remove_cvref_t<T>;
  if constexpr (record_detail::is_expected<U>::value) {
#ifdef LAUNCHLAB_EXERCISE
    return nullptr;
#else
    return ::launchlab::testing::encode(value.value);
#endif
  } else if constexpr (record_detail::has_record_value<U>) {
    return record_value(value);
  } else if constexpr (std::is_same_v<U, bool>) {
    return value;
  } else if constexpr (std::is_same_v<U, char>) {
    return std::string(1, value);
  } else if constexpr (std::is_same_v<U, std::byte>) {
    return std::to_integer<unsigned>(value);
  } else if constexpr (std::is_enum_v<U>) {
    return static_cast<std::underlying_type_t<U>>(value);
  } else if constexpr (std::is_integral_v<U>) {
    return value;
  } else if constexpr (std::is_floating_point_v<U>) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return static_cast<double>(value);
  } else if constexpr (std::is_same_v<U, std::nullptr_t> || std::is_same_v<U, std::nullopt_t>) {
    return nullptr;
  } else if constexpr (record_detail::string_like<U>) {
    return std::string(std::string_view(value));
  } else if constexpr (std::is_same_v<U, std::filesystem::path>) {
    return value.string();
  } else if constexpr (record_detail::is_optional<U>::value) {
    if (!value) return nullptr;
    return ::launchlab::testing::encode(*value);
  } else if constexpr (record_detail::is_pair<U>::value) {
    return nlohmann::json::array({::launchlab::testing::encode(value.first), ::launchlab::testing::encode(value.second)});
  } else if constexpr (std::ranges::range<U>) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& item : value) items.push_back(::launchlab::testing::encode(item));
    return items;
  } else {
    return ::testing::PrintToString(value);
  }
}

/// Adds to the context of every record made while it lives.
class RecordScope {
 public:
  explicit RecordScope(std::string text);
  ~RecordScope();
  RecordScope(const RecordScope&) = delete;
  RecordScope& operator=(const RecordScope&) = delete;
};

/// One record; written to the transcript when the full expression ends.
class Record {
 public:
  Record(const char* expression, Check check, nlohmann::json actual, const char* file, int line);
  Record(const Record&) = delete;
  Record& operator=(const Record&) = delete;
  ~Record();

  /// The reference build's half: what the value is compared with.
  Record& expect(nlohmann::json expected, nlohmann::json parameter = nullptr);

  /// The reference build's half when the solution's own value is what the
  /// learner's is compared with (RECORD_OUTCOME): for inputs drawn at run
  /// time, whose answers no test source can hold.
  Record& expect_own_value();

  /// Context, in the learner's terms: the input that gave this value.
  template <class T>
  Record& operator<<(const T& context) {
    std::ostringstream text;
    text << context;
    context_ += text.str();
    return *this;
  }

  /// Whether the value agrees (reference build; always true in the learner's).
  bool agreed() const { return agreed_; }

 private:
  std::string expression_;
  Check check_;
  nlohmann::json actual_;
  nlohmann::json expected_;
  nlohmann::json parameter_;
  bool has_expected_ = false;
  std::string context_;
  const char* file_;
  int line_;
  bool agreed_ = true;
};

/// What an expression did, as RECORD_OUTCOME records it: {"returned": its
/// value} (null for a void expression), or what_is_thrown()'s words for what
/// it threw.
template <class Exception, class Expression>
nlohmann::json outcome_of(const char* type_name, Expression&& expression) {
  try {
    if constexpr (std::is_void_v<decltype(expression())>) {
      expression();
      return {{"returned", nullptr}};
    } else {
      return {{"returned", ::launchlab::testing::encode(expression())}};
    }
  } catch (const Exception&) {
    return std::string("throws ") + type_name;
  } catch (const std::exception& e) {
    return std::string("throws another exception: ") + e.what();
  } catch (...) {
    return "throws something that is not a std::exception";
  }
}

/// What a statement threw, as a record holds it: "throws Type",
/// "throws another exception: what()", or "throws nothing".
template <class Exception, class Statement>
std::string what_is_thrown(const char* type_name, Statement&& statement) {
  nlohmann::json outcome = outcome_of<Exception>(type_name, [&] { statement(); });
  return outcome.is_string() ? outcome.get<std::string>() : "throws nothing";
}

/// What a statement threw, for RECORD_NO_THROW: "throws nothing", or what.
template <class Statement>
std::string what_is_thrown_if_any(Statement&& statement) {
  try {
    statement();
  } catch (const std::exception& e) {
    return std::string("throws an exception: ") + e.what();
  } catch (...) {
    return "throws something that is not a std::exception";
  }
  return "throws nothing";
}

/// The exception a statement threw, when it threw one of that type.
template <class Exception, class Statement>
std::optional<Exception> thrown(Statement&& statement) {
  try {
    statement();
  } catch (const Exception& e) {
    return e;
  } catch (...) {
  }
  return std::nullopt;
}

/// Records that a RECORD_REQUIRE condition held or not; returns it.
bool record_requirement(const char* expression, bool held, const char* file, int line);

}  // namespace launchlab::testing

#define LAUNCHLAB_RECORD_CONCAT_INNER(a, b) a##b
#define LAUNCHLAB_RECORD_CONCAT(a, b) LAUNCHLAB_RECORD_CONCAT_INNER(a, b)

#define LAUNCHLAB_RECORD_BASE(check, actual) \
  ::launchlab::testing::Record(#actual, ::launchlab::testing::Check::check, ::launchlab::testing::encode(actual), __FILE__, __LINE__)

#ifdef LAUNCHLAB_EXERCISE
#define LAUNCHLAB_EXPECTED(...) \
  {}
#define LAUNCHLAB_RECORD_WITH(check, actual, ...) LAUNCHLAB_RECORD_BASE(check, actual)
#define RECORD_NEAR(actual, expected, tolerance) LAUNCHLAB_RECORD_BASE(near, actual)
#else
#define LAUNCHLAB_EXPECTED(...) (__VA_ARGS__)
#define LAUNCHLAB_RECORD_WITH(check, actual, ...) \
  LAUNCHLAB_RECORD_BASE(check, actual).expect(::launchlab::testing::encode(__VA_ARGS__))
#define RECORD_NEAR(actual, expected, tolerance)                      \
  LAUNCHLAB_RECORD_BASE(near, actual)                                 \
      .expect(::launchlab::testing::encode(expected), ::launchlab::testing::encode(tolerance))
#endif

#define RECORD_EQ(actual, ...) LAUNCHLAB_RECORD_WITH(equal, actual, __VA_ARGS__)
#define RECORD_NE(actual, ...) LAUNCHLAB_RECORD_WITH(not_equal, actual, __VA_ARGS__)
#define RECORD_LT(actual, ...) LAUNCHLAB_RECORD_WITH(less, actual, __VA_ARGS__)
#define RECORD_LE(actual, ...) LAUNCHLAB_RECORD_WITH(less_equal, actual, __VA_ARGS__)
#define RECORD_GT(actual, ...) LAUNCHLAB_RECORD_WITH(greater, actual, __VA_ARGS__)
#define RECORD_GE(actual, ...) LAUNCHLAB_RECORD_WITH(greater_equal, actual, __VA_ARGS__)
#define RECORD_CONTAINS(text, ...) LAUNCHLAB_RECORD_WITH(contains, text, __VA_ARGS__)
#define RECORD_ONE_OF(actual, ...) LAUNCHLAB_RECORD_WITH(one_of, actual, __VA_ARGS__)
#define RECORD_AS_THE_REFERENCE(actual) LAUNCHLAB_RECORD_WITH(equal, actual, actual)
#define RECORD_TRUE(condition) LAUNCHLAB_RECORD_BASE(is_true, static_cast<bool>(condition))
#define RECORD_FALSE(condition) LAUNCHLAB_RECORD_BASE(is_false, static_cast<bool>(condition))

#define RECORD_THROWS(statement, Type)                                                                 \
  ::launchlab::testing::Record(#statement, ::launchlab::testing::Check::throws,                        \
                               ::launchlab::testing::what_is_thrown<Type>(#Type, [&] { statement; }), \
                               __FILE__, __LINE__)                                                     \
      .expect(std::string("throws ") + #Type)
// RECORD_THROWS with the statement run in another process by `elsewhere`,
// a function of testing.h that takes the outcome as a std::function.
#define LAUNCHLAB_RECORD_THROWS_ELSEWHERE(elsewhere, statement, Type)                                        \
  ::launchlab::testing::Record(                                                                              \
      #statement, ::launchlab::testing::Check::throws,                                                       \
      elsewhere([&] { return ::launchlab::testing::what_is_thrown<Type>(#Type, [&] { statement; }); }),      \
      __FILE__, __LINE__)                                                                                    \
      .expect(std::string("throws ") + #Type)
// Where CUDA sees no device (testing.h: outcome_without_a_gpu), for what a
// lab promises of a failed CUDA call.
#define RECORD_THROWS_WITHOUT_A_GPU(statement, Type) \
  LAUNCHLAB_RECORD_THROWS_ELSEWHERE(::launchlab::testing::outcome_without_a_gpu, statement, Type)
// In a child forked from this process (testing.h: outcome_in_a_forked_child),
// where the driver answers no call.
#define RECORD_THROWS_IN_A_FORKED_CHILD(statement, Type) \
  LAUNCHLAB_RECORD_THROWS_ELSEWHERE(::launchlab::testing::outcome_in_a_forked_child, statement, Type)
#define RECORD_NO_THROW(statement)                                                                              \
  ::launchlab::testing::Record(#statement, ::launchlab::testing::Check::throws,                                 \
                               ::launchlab::testing::what_is_thrown_if_any([&] { statement; }),            \
                               __FILE__, __LINE__)                                                              \
      .expect(std::string("throws nothing"))

#define RECORD_OUTCOME(expression, Type)                                                                       \
  ::launchlab::testing::Record(#expression, ::launchlab::testing::Check::throws,                               \
                               ::launchlab::testing::outcome_of<Type>(#Type, [&] { return expression; }),      \
                               __FILE__, __LINE__)                                                             \
      .expect_own_value()

#define RECORD_REQUIRE(condition)                                                                        \
  if (::launchlab::testing::record_requirement(#condition, static_cast<bool>(condition), __FILE__, __LINE__)) { \
  } else                                                                                                         \
    return

#define RECORD_SCOPE(...) \
  ::launchlab::testing::RecordScope LAUNCHLAB_RECORD_CONCAT(launchlab_record_scope_, __LINE__)(__VA_ARGS__)
