// Part B, the notation: parse_mw_defines against a reader of the tests' own
// (a regular expression per line), on the course's headers and on texts
// that hold every form the rules allow.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "header_fields.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "qmd.h"

namespace {
using namespace launchlab::qmd;
using namespace launchlab::qmd_tests;

// The defines parse_mw_defines read, as "NAME MW(hi:lo)", or nothing when it threw.
std::optional<std::vector<std::string>> parsed(std::string_view text) {
  try {
    std::vector<std::string> out;
    for (const auto& define : parse_mw_defines(text)) out.push_back(describe_define(define));
    return out;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The text with its lines numbered, for the context of a record.
std::string numbered(std::string_view text) {
  std::string out;
  unsigned line = 1;
  out += "\n  1 | ";
  for (char c : text) {
    if (c == '\n') {
      out += "\n  " + std::to_string(++line) + " | ";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += c;
    }
  }
  return out;
}

TEST(Notation, ReadsEveryDefineOfTheCourseHeaders) {
  for (unsigned v : {3u, 4u, 5u}) {
    const std::string text(course_header(version_of(v)));
    RECORD_EQ(parsed(text), reference_defines(text))
        << "parse_mw_defines of labs/07_qmd/headers/qmd_v0" << v << "_00.h: its MW defines in order, each as "
        << "NAME MW(hi:lo) or NAME(i) MW((base+(i)*step):(base+(i)*step)) (null if it threw)";
  }
}

TEST(Notation, ReadsIndexedFormulasAndSpacing) {
  const std::string text =
      "#define NVCDC0_QMDV05_00_SASS_VERSION MW(455:448)\n"
      "  #  define   NVCDC0_QMDV05_00_GRID_DEPTH\tMW( 1327 : 1312 )   // spaces and tabs between the pieces\n"
      "#define NVCDC0_QMDV05_00_CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6(i)    MW((1375+(i)*64):(1344+(i)*64))\n"
      "#define NVCDC0_QMDV05_00_TPC_DISABLE_MASK(j) MW( ( 2271 + ( j ) * 32 ) : ( 2240 + ( j ) * 32 ) ) /* j */\n"
      "#define NVCDC0_QMDV05_00_CONSTANT_BUFFER_VALID(i) MW((1856+(i)*4):(1856+(i)*4))\r\n"
      "#define NVCDC0_QMDV05_00_MIXED(i) MW((7+(i)*8):0)\n"
      "#define NVCDC0_QMDV05_01_SUB_TASK_CONSTANT_BANK_VALID(i,j)         MW((886+(i)*416+(j)*202):(886+(i)*416+(j)*202))\n"
      "#define NVCDC0_QMDV05_01_SUB_TASK_CONSTANT_BANK_ADDR_LOWER_SHIFTED6(i, j) MW(( 991 + (j)*64 + (i)*416 ):(960+(i)*416+(j)*64))\n"
      "#define NVCDC0_QMDV05_00_LAST MW(0:0)";
  RECORD_EQ(parsed(text), reference_defines(text))
      << "parse_mw_defines of:" << numbered(text) << "\nits MW defines in order (null if it threw)";
}

TEST(Notation, SkipsWhatIsNotAnMwDefine) {
  const std::string text =
      "/* The \"MW(X:Y)\" notation: see the comments of NVIDIA's headers. */\n"
      "// the field is in bits 0-31 of word number 3 of the structure.  The \"MW(X:Y)\"\n"
      "#ifndef __CLCBC0QMD_H__\n"
      "#define __CLCBC0QMD_H__\n"
      "\n"
      "#define NVCBC0_QMDV04_00_QMD_TYPE_GRID_CTA                         0x00000002\n"
      " * #define NVCBC0_QMDV04_00_IN_A_COMMENT MW(1:0)\n"
      "#define NVCBC0_QMDV04_00_GRID_WIDTH                                MW(1055:1024)\n"
      "#define NVCBC0_QMDV04_00_NOT_A_RANGE MWX(3:0)\n"
      "#define NVCBC0_QMDV04_00_A_MACRO(x) ((x) + 1)\n"
      "#define NVCBC0_QMDV04_00_RELEASE_ENABLE_TRUE 0x00000001\n"
      "#endif // __CLCBC0QMD_H__\n";
  RECORD_EQ(parsed(text), reference_defines(text))
      << "parse_mw_defines of:" << numbered(text) << "\nits MW defines, which are only those of line 8 (null if it threw)";
}

TEST(Notation, MalformedDefinesThrowWithTheirLine) {
  struct Case {
    const char* define;
    const char* why;
  };
  const Case cases[] = {
      {"#define NVCBC0_QMDV04_00_GRID_WIDTH MW(1055:)", "a missing bound"},
      {"#define NVCBC0_QMDV04_00_GRID_WIDTH MW(10x5:1024)", "a letter in a number"},
      {"#define NVCBC0_QMDV04_00_GRID_WIDTH MW(1055:1024) + 1", "text after MW(...)"},
      {"#define NVCBC0_QMDV04_00_CONSTANT_BUFFER_VALID MW((416+(i)*4):(416+(i)*4))", "a formula without a parameter"},
      {"#define NVCBC0_QMDV04_00_CONSTANT_BUFFER_VALID(i) MW((416+(k)*4):(416+(k)*4))", "a formula in k, not i"},
      {"#define NVCDC0_QMDV05_01_SUB_TASK_CONSTANT_BANK_VALID(i,j) MW((886+(i)*416+(i)*202):886)", "i twice in a bound"},
      {"#define NVCBC0_QMDV04_00_GRID_WIDTH MW(4294967296:0)", "a bound above 2^32 - 1"},
      {"#define NVCBC0_QMDV04_00_GRID_WIDTH MW(1024:1055)", "hi below lo"},
  };
  unsigned blank_lines = 0;
  for (const auto& c : cases) {
    // The bad define comes after a good one and some blank lines, on line 2 + blank_lines.
    const std::string text = "#define NVCBC0_QMDV04_00_QMD_MAJOR_VERSION MW(583:580)\n" +
                             std::string(blank_lines, '\n') + c.define + "\n#define NVCBC0_QMDV04_00_LAST MW(1:0)\n";
    const unsigned line = 2 + blank_lines;
    ++blank_lines;
    RECORD_SCOPE(std::string("parse_mw_defines of a text whose line ") + std::to_string(line) + " has " + c.why +
                 ":" + numbered(text));
    RECORD_THROWS(parse_mw_defines(text), QmdError) << "it throws QmdError";
    RECORD_CONTAINS(launchlab::testing::message_thrown<QmdError>([&] { parse_mw_defines(text); }),
                    "line " + std::to_string(line))
        << "the message of what it threw names the line";
  }
}

}  // namespace
