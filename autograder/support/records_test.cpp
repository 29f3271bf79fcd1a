// What a record proves: which checks imply their own passing value
// (forgeable()), and what RECORD_OUTCOME records of an expression.

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "launchlab/record.h"
#include "launchlab/record_check.h"

namespace launchlab::testing {
namespace {

using nlohmann::json;

TEST(Forgeable, ChecksThatImplyTheirPassingValueAreForgeableWhateverTheExpectedValue) {
  for (Check check : {Check::is_true, Check::is_false, Check::holds, Check::not_equal, Check::less,
                      Check::less_equal, Check::greater, Check::greater_equal}) {
    for (const json& expected : {json(true), json(17), json("text"), json::array({1, 2})}) {
      EXPECT_TRUE(forgeable(check, expected)) << check_name(check) << " of " << expected.dump();
    }
  }
}

TEST(Forgeable, EqualIsForgeableOnlyForABooleanOrNull) {
  EXPECT_TRUE(forgeable(Check::equal, true));
  EXPECT_TRUE(forgeable(Check::equal, false));
  EXPECT_TRUE(forgeable(Check::equal, nullptr));
  EXPECT_FALSE(forgeable(Check::equal, 0));
  EXPECT_FALSE(forgeable(Check::equal, "false"));
  EXPECT_FALSE(forgeable(Check::equal, json::array({true})));
  EXPECT_FALSE(forgeable(Check::near, 1.5));
  EXPECT_FALSE(forgeable(Check::contains, "line 3:"));
}

TEST(Forgeable, OneOfIsForgeableWhenItAllowsABooleanNullOrNothing) {
  EXPECT_FALSE(forgeable(Check::one_of, json::array({json::array({4, 1, 256}), json::array({4, 2, 512})})));
  EXPECT_TRUE(forgeable(Check::one_of, json::array({17, nullptr})));
  EXPECT_TRUE(forgeable(Check::one_of, json::array({false, 3})));
  EXPECT_TRUE(forgeable(Check::one_of, json::array()));
  EXPECT_TRUE(forgeable(Check::one_of, 17)) << "an expected value that is no list allows nothing the judge can read";
}

TEST(OneOf, PassesAValueTheListHoldsAndNamesTheListOtherwise) {
  const json allowed = json::array({json::array({4, 1, 256}), json::array({4, 2, 512})});
  EXPECT_TRUE(check_value(Check::one_of, json::array({4, 2, 512}), allowed, nullptr).agrees);
  const CheckResult missed = check_value(Check::one_of, json::array({1, 1, 32}), allowed, nullptr);
  EXPECT_FALSE(missed.agrees);
  EXPECT_EQ(missed.explanation, "expected one of [[4,1,256],[4,2,512]], got [1,1,32]");
  EXPECT_FALSE(check_value(Check::one_of, 3, 3, nullptr).agrees) << "an expected value that is no list";
  EXPECT_EQ(check_from_name("one_of"), Check::one_of);
}

TEST(Forgeable, AThrowIsForgeableAndAnOutcomeThatReturnedAValueIsNot) {
  EXPECT_TRUE(forgeable(Check::throws, "throws std::invalid_argument"));
  EXPECT_TRUE(forgeable(Check::throws, "throws nothing"));
  EXPECT_TRUE(forgeable(Check::throws, json{{"returned", nullptr}}));
  EXPECT_TRUE(forgeable(Check::throws, json{{"returned", false}}));
  EXPECT_TRUE(forgeable(Check::throws, json::object()));
  EXPECT_FALSE(forgeable(Check::throws, json{{"returned", 4096}}));
  EXPECT_FALSE(forgeable(Check::throws, json{{"returned", json::array({1, 2})}}));
}

int halve_even(int n) {
  if (n % 2 != 0) throw std::invalid_argument("odd");
  return n / 2;
}

TEST(Outcome, RecordsTheValueReturned) {
  EXPECT_EQ(outcome_of<std::invalid_argument>("std::invalid_argument", [] { return halve_even(8); }),
            json({{"returned", 4}}));
  EXPECT_EQ(outcome_of<std::invalid_argument>("std::invalid_argument", [] { return std::vector<int>{1, 2}; }),
            json({{"returned", json::array({1, 2})}}));
}

TEST(Outcome, RecordsNullForAVoidExpressionThatReturned) {
  int calls = 0;
  EXPECT_EQ(outcome_of<std::invalid_argument>("std::invalid_argument", [&] { ++calls; }), json({{"returned", nullptr}}));
  EXPECT_EQ(calls, 1);
}

TEST(Outcome, NamesTheExpectedExceptionAndDescribesAnyOther) {
  EXPECT_EQ(outcome_of<std::invalid_argument>("std::invalid_argument", [] { return halve_even(7); }),
            json("throws std::invalid_argument"));
  EXPECT_EQ(outcome_of<std::out_of_range>("std::out_of_range", [] { return halve_even(7); }),
            json("throws another exception: odd"));
  EXPECT_EQ(outcome_of<std::out_of_range>("std::out_of_range", []() -> int { throw 3; }),
            json("throws something that is not a std::exception"));
}

TEST(Outcome, WhatIsThrownKeepsItsWords) {
  EXPECT_EQ(what_is_thrown<std::invalid_argument>("std::invalid_argument", [] { halve_even(3); }),
            "throws std::invalid_argument");
  EXPECT_EQ(what_is_thrown<std::invalid_argument>("std::invalid_argument", [] { halve_even(4); }), "throws nothing");
}

}  // namespace
}  // namespace launchlab::testing
