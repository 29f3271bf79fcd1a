// lay_out and align_up, on the CPU: against the layout nvcc records in the
// cubin (EIATTR_KPARAM_INFO) for the echo kernels, compiled here with
// `nvcc -x cu -cubin -arch=sm_90 kernels/echo_kernels.cuh`, and against what
// nvcc accepts and refuses near the 32,764-byte limit.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases.h"
#include "cubin_info.h"
#include "param_buffer.h"

namespace launchlab::param_buffer_tests {
namespace {

using param_buffer::Layout;
using param_buffer::Param;

const RecordedKernel& recorded(const std::string& kernel) {
  static const std::map<std::string, RecordedKernel> all = read_recorded_params(echo_cubin());
  auto it = all.find(kernel);
  if (it == all.end()) throw std::runtime_error("the cubin has no .nv.info." + kernel + " section");
  return it->second;
}

// lay_out, turning an exception into a failure that says which kernel threw.
::testing::AssertionResult LaysOut(const EchoCase& c, Layout& layout) {
  try {
    layout = param_buffer::lay_out(c.params);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << c.signature << ": lay_out threw: " << e.what();
  }
  return ::testing::AssertionSuccess();
}

// Your layout against the one nvcc recorded: every parameter's offset and
// size, and the number of parameters.
::testing::AssertionResult MatchesNvcc(const std::string& kernel) {
  const EchoCase& c = echo_case(kernel);
  const RecordedKernel& truth = recorded(kernel);
  Layout layout;
  if (auto ok = LaysOut(c, layout); !ok) return ok;
  if (truth.params.size() != c.params.size()) {
    return ::testing::AssertionFailure() << kernel << ": the cubin records " << truth.params.size()
                                         << " parameters, the test describes " << c.params.size()
                                         << " (a problem of the test, not of your code)";
  }
  if (layout.slots.size() != c.params.size()) {
    return ::testing::AssertionFailure() << c.signature << ": expected " << c.params.size()
                                         << " slots, your layout has " << layout.slots.size();
  }
  for (std::size_t i = 0; i < c.params.size(); ++i) {
    const RecordedParam& r = truth.params[i];
    const auto& mine = layout.slots[i];
    if (mine.offset != r.offset || mine.size != r.size) {
      return ::testing::AssertionFailure()
             << c.signature << ": parameter " << i << " (" << c.params[i].name << ", size " << c.params[i].size
             << ", alignment " << c.params[i].alignment << "): nvcc put it at offset " << r.offset << " with "
             << r.size << " bytes, your layout at offset " << mine.offset << " with " << mine.size << " bytes";
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(Layout, AlignUpRoundsUpToAMultiple) {
  struct Case {
    std::size_t offset, alignment, expected;
  };
  for (const Case& c : std::vector<Case>{{0, 1, 0},  {5, 1, 5},     {1, 2, 2},    {9, 8, 16},  {16, 8, 16},
                                         {17, 16, 32}, {33, 4, 36}, {4095, 4096, 4096}, {0, 16, 0}}) {
    std::size_t got = 0;
    try {
      got = param_buffer::align_up(c.offset, c.alignment);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "align_up(" << c.offset << ", " << c.alignment << ") threw: " << e.what();
      continue;
    }
    EXPECT_EQ(got, c.expected) << "align_up(" << c.offset << ", " << c.alignment << ")";
  }
  for (std::size_t bad : {0u, 3u, 6u, 12u}) {
    EXPECT_THROW(param_buffer::align_up(8, bad), std::invalid_argument)
        << "align_up(8, " << bad << "): " << bad << " is not a power of two";
  }
}

TEST(Layout, ScalarsSitAtTheirOwnAlignment) {
  EXPECT_TRUE(MatchesNvcc("scalars"));
  EXPECT_TRUE(MatchesNvcc("tail"));
}

TEST(Layout, PointersAndVectorTypes) {
  EXPECT_TRUE(MatchesNvcc("mixed"));
  EXPECT_TRUE(MatchesNvcc("pointers"));
  EXPECT_TRUE(MatchesNvcc("vectors"));
}

TEST(Layout, StructsWithPadding) { EXPECT_TRUE(MatchesNvcc("structs")); }

TEST(Layout, ArraysInsideStructs) { EXPECT_TRUE(MatchesNvcc("arrays")); }

TEST(Layout, SizeEndsAtTheLastParameter) {
  // EIATTR_CBANK_PARAM_SIZE is the parameters' total size as nvcc counts it:
  // tail(int* p, short s) takes 10 bytes, not 16.
  for (const EchoCase& c : echo_cases()) {
    const RecordedKernel& truth = recorded(c.kernel);
    ASSERT_TRUE(truth.cbank_param_size.has_value()) << c.kernel << ": no EIATTR_CBANK_PARAM_SIZE in the cubin";
    Layout layout;
    ASSERT_TRUE(LaysOut(c, layout));
    EXPECT_EQ(layout.size, *truth.cbank_param_size)
        << c.signature << ": nvcc records a parameter size of " << *truth.cbank_param_size
        << " bytes (EIATTR_CBANK_PARAM_SIZE): the end of the last parameter, with no padding after it";
  }
}

TEST(Layout, TheLargestParameterFits) {
  // One parameter of 32,764 bytes, and 32,000 bytes after a char: nvcc
  // records these kernels with EIATTR_KPARAM_INFO_V2.
  EXPECT_TRUE(MatchesNvcc("largest"));
  EXPECT_TRUE(MatchesNvcc("big_after_char"));
}

TEST(Layout, RefusesMoreThan32764Bytes) {
  // What nvcc itself says, first: cicc counts the parameters' sizes and
  // refuses 32,765 bytes; ptxas counts the padding too and refuses 32,756
  // bytes followed by a pointer, which needs 32,768.
  const CompileResult one_over = compile_cubin("over_by_one.cu");
  ASSERT_NE(one_over.exit_code, 0) << "nvcc compiled a 32,765-byte parameter:\n" << one_over.output;
  EXPECT_NE(one_over.output.find("Formal parameter space overflowed"), std::string::npos) << one_over.output;
  const CompileResult padded_over = compile_cubin("over_by_padding.cu");
  ASSERT_NE(padded_over.exit_code, 0) << "nvcc compiled 32,756 bytes and a pointer:\n" << padded_over.output;
  EXPECT_NE(padded_over.output.find("too much parameter space"), std::string::npos) << padded_over.output;

  const std::vector<Param> one_byte_over = {Param{"s", 32765, 1}};
  EXPECT_THROW(param_buffer::lay_out(one_byte_over), std::length_error)
      << "a 32,765-byte parameter: nvcc says \"Formal parameter space overflowed\"";
  const std::vector<Param> over_by_padding = {Param{"s", 32756, 1}, Param{"p", 8, 8}};
  EXPECT_THROW(param_buffer::lay_out(over_by_padding), std::length_error)
      << "32,756 bytes, then a pointer at offset 32,760: 32,768 bytes in all; ptxas says \"uses too much parameter "
         "space (0x8000 bytes, 0x7ffc max)\"";
  const std::vector<Param> exactly = {Param{"s", 32760, 1}, Param{"i", 4, 4}};
  try {
    Layout layout = param_buffer::lay_out(exactly);
    EXPECT_EQ(layout.size, 32764u) << "32,760 bytes and an int end at 32,764, which fits";
  } catch (const std::exception& e) {
    ADD_FAILURE() << "32,760 bytes and an int take 32,764 bytes, which fits; lay_out threw: " << e.what();
  }
}

TEST(Layout, RejectsImpossibleParameters) {
  const std::vector<Param> zero_size = {Param{"c", 1, 1}, Param{"nothing", 0, 1}};
  EXPECT_THROW(param_buffer::lay_out(zero_size), std::invalid_argument) << "a parameter of 0 bytes";
  for (std::size_t bad : {0u, 3u, 24u}) {
    const std::vector<Param> params = {Param{"c", 1, 1}, Param{"odd", 24, bad}};
    EXPECT_THROW(param_buffer::lay_out(params), std::invalid_argument) << "a parameter aligned to " << bad;
  }
}

TEST(Layout, NoParametersTakeNoBytes) {
  const Layout layout = param_buffer::lay_out(std::span<const Param>{});
  EXPECT_TRUE(layout.slots.empty());
  EXPECT_EQ(layout.size, 0u);
}

}  // namespace
}  // namespace launchlab::param_buffer_tests
