// The grader reads lab.toml and GoogleTest's JSON and writes results.json:
// its parsers must read what they are given and refuse the rest clearly.
#include <gtest/gtest.h>

#include "launchlab/grader/value.h"

using launchlab::grader::parse_json;
using launchlab::grader::parse_toml;
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

TEST(Toml, ReadsTheLabFormat) {
  Value v = parse_toml(R"(# a lab
title = "The journey"   # trailing comment
chapter = 0
student_files = ["grid.cpp", 'vadd.cu']
hints = [
  "first",
  "second with \"quotes\"",   # comment inside
]

[[tests]]
name = "Grid.Blocks"
points = 2

[[tests]]
name = "Vadd.Gpu"
points = 1_0
needs = ["gpu"]
)");
  EXPECT_EQ(v.find("title")->as_string(), "The journey");
  EXPECT_EQ(v.find("chapter")->as_int(), 0);
  EXPECT_EQ(v.find("student_files")->as_array()[1].as_string(), "vadd.cu");
  EXPECT_EQ(v.find("hints")->as_array()[1].as_string(), "second with \"quotes\"");
  const auto& tests = v.find("tests")->as_array();
  ASSERT_EQ(tests.size(), 2u);
  EXPECT_EQ(tests[1].find("points")->as_int(), 10);
  EXPECT_EQ(tests[1].find("needs")->as_array()[0].as_string(), "gpu");
}

TEST(Toml, ReadsMultiLineStrings) {
  Value v = parse_toml("hint = \"\"\"\nline one\nline two\"\"\"\n");
  EXPECT_EQ(v.find("hint")->as_string(), "line one\nline two");
}

TEST(Toml, RefusesMalformedTextNamingTheLine) {
  struct Case { const char* text; const char* line; };
  for (Case c : {Case{"a = 1\nb = \n", "line 2"}, Case{"a = [1, 2\n", "line 2"}, Case{"a = 1\na = 2\n", "line 2"},
                 Case{"x = \"open\n", "line 1"}, Case{"[t]\n[t]\n", "line 2"}, Case{"a = 1 b\n", "line 1"}}) {
    try {
      parse_toml(c.text);
      ADD_FAILURE() << "accepted " << c.text;
    } catch (const ParseError& error) {
      EXPECT_NE(std::string(error.what()).find(c.line), std::string::npos) << error.what();
    }
  }
}
