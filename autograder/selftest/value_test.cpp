// The grader reads GoogleTest's JSON and writes results.json:
// its parsers must read what they are given and refuse the rest clearly.
#include <gtest/gtest.h>

#include "launchlab/grader/value.h"

using launchlab::grader::parse_json;
using launchlab::grader::ParseError;
using launchlab::grader::Value;

TEST(Json, ReadsNestedValues) {
  Value v = parse_json(R"({"a": [1, -2.5, "x\n\u00e9"], "b": {"c": true, "d": null}})");
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.find("a")->as_array()[0].as_int(), 1);
  EXPECT_DOUBLE_EQ(v.find("a")->as_array()[1].as_number(), -2.5);
  EXPECT_EQ(v.find("a")->as_array()[2].as_string(), "x\n\xC3\xA9");
  EXPECT_TRUE(v.find("b")->find("c")->as_bool());
  EXPECT_TRUE(v.find("b")->find("d")->is_null());
}

TEST(Json, RefusesMalformedTextNamingTheOffset) {
  for (const char* bad : {"{", "[1,]", "{\"a\" 1}", "\"unterminated", "tru", "[1] 2", "{\"a\":\"\x01\"}"}) {
    try {
      parse_json(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const ParseError& error) {
      EXPECT_NE(std::string(error.what()).find("byte"), std::string::npos) << error.what();
    }
  }
}

TEST(Json, RefusesDeepNestingInsteadOfOverflowingTheStack) {
  std::string deep(100000, '[');
  EXPECT_THROW(parse_json(deep), ParseError);
}

TEST(Json, WritesValidUtf8FromAnyBytes) {
  Value v = Value::Object{};
  v["output"] = std::string("ok \xff\xfe bad bytes \x01 and \"quotes\"");
  std::string text = v.dump();
  EXPECT_EQ(text, "{\"output\":\"ok \xEF\xBF\xBD\xEF\xBF\xBD bad bytes \\u0001 and \\\"quotes\\\"\"}");
  EXPECT_EQ(parse_json(text).find("output")->as_string(), "ok \xEF\xBF\xBD\xEF\xBF\xBD bad bytes \x01 and \"quotes\"");
}

TEST(Json, KeepsMemberOrder) {
  Value v = Value::Object{};
  v["zeta"] = 1;
  v["alpha"] = 2;
  EXPECT_EQ(v.dump(), "{\"zeta\":1,\"alpha\":2}");
}
