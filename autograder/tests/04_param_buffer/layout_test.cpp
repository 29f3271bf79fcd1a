// lay_out and align_up, on the CPU: against the layout nvcc records in the
// cubin (EIATTR_KPARAM_INFO) for the echo kernels, compiled here with
// `nvcc -x cu -cubin -arch=sm_90 kernels/echo_kernels.cuh`, and against what
// nvcc accepts and refuses near the 32,764-byte limit.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases.h"
#include "cubin_info.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "param_buffer.h"

namespace launchlab::param_buffer_tests {
namespace {

using launchlab::testing::Expected;
using param_buffer::Layout;
using param_buffer::Param;

// What lay_out does with params: "throws std::length_error", "throws nothing", ...
std::string what_lay_out_throws(const std::vector<Param>& params) {
  return launchlab::testing::what_is_thrown<std::length_error>("std::length_error",
                                                                [&] { (void)param_buffer::lay_out(params); });
}

// Your layout of an echo kernel against the one nvcc recorded: whether
// lay_out threw, then every slot ([i] is parameter i).
void RecordLayoutOf(const std::string& kernel) {
  const EchoCase& c = echo_case(kernel);
  RECORD_SCOPE("lay_out for " + c.signature + "; [i] is parameter i, as nvcc lays it out in the cubin");
  RECORD_NO_THROW(param_buffer::lay_out(c.params));
  RECORD_EQ(layout_or_empty(c).slots, nvcc_slots(kernel));
}

TEST(Layout, AlignUpRoundsUpToAMultiple) {
  struct Case {
    std::size_t offset, alignment;
    Expected<std::size_t> rounded;
  };
  const std::vector<Case> cases = {
      {0, 1, LAUNCHLAB_EXPECTED(0)},       {5, 1, LAUNCHLAB_EXPECTED(5)},   {1, 2, LAUNCHLAB_EXPECTED(2)},
      {9, 8, LAUNCHLAB_EXPECTED(16)},      {16, 8, LAUNCHLAB_EXPECTED(16)}, {17, 16, LAUNCHLAB_EXPECTED(32)},
      {33, 4, LAUNCHLAB_EXPECTED(36)},     {4095, 4096, LAUNCHLAB_EXPECTED(4096)},
      {0, 16, LAUNCHLAB_EXPECTED(0)},
  };
  for (const Case& c : cases) {
    const std::string call = "align_up(" + std::to_string(c.offset) + ", " + std::to_string(c.alignment) + ")";
    RECORD_NO_THROW(param_buffer::align_up(c.offset, c.alignment)) << call;
    std::optional<std::size_t> got;
    try {
      got = param_buffer::align_up(c.offset, c.alignment);
    } catch (const std::exception&) {
    }
    RECORD_EQ(got, c.rounded) << call;
  }
  for (std::size_t bad : {0u, 3u, 6u, 12u}) {
    RECORD_THROWS(param_buffer::align_up(8, bad), std::invalid_argument)
        << "align_up(8, " << bad << "): " << bad << " is not a power of two";
  }
}

TEST(Layout, ScalarsSitAtTheirOwnAlignment) {
  RecordLayoutOf("scalars");
  RecordLayoutOf("tail");
}

TEST(Layout, PointersAndVectorTypes) {
  RecordLayoutOf("mixed");
  RecordLayoutOf("pointers");
  RecordLayoutOf("vectors");
}

TEST(Layout, StructsWithPadding) { RecordLayoutOf("structs"); }

TEST(Layout, ArraysInsideStructs) { RecordLayoutOf("arrays"); }

TEST(Layout, SizeEndsAtTheLastParameter) {
  // EIATTR_CBANK_PARAM_SIZE is the parameters' total size as nvcc counts it:
  // tail(int* p, short s) takes 10 bytes, not 16.
  for (const EchoCase& c : echo_cases()) {
    RECORD_NO_THROW(param_buffer::lay_out(c.params)) << "lay_out for " << c.signature;
    RECORD_EQ(layout_or_empty(c).size, nvcc_param_size(c.kernel))
        << "lay_out for " << c.signature
        << ": the size, which nvcc records as EIATTR_CBANK_PARAM_SIZE: the end of the last parameter, with no "
           "padding after it";
  }
}

TEST(Layout, TheLargestParameterFits) {
  // One parameter of 32,764 bytes, and 32,000 bytes after a char: nvcc
  // records these kernels with EIATTR_KPARAM_INFO_V2.
  RecordLayoutOf("largest");
  RecordLayoutOf("big_after_char");
}

TEST(Layout, RefusesMoreThan32764Bytes) {
  // What nvcc itself says decides what lay_out must do: cicc counts the
  // parameters' sizes and refuses 32,765 bytes ("Formal parameter space
  // overflowed"); ptxas counts the padding too and refuses 32,756 bytes
  // followed by a pointer, which needs 32,768 ("uses too much parameter space").
  const std::vector<Param> one_byte_over = {Param{"s", 32765, 1}};
  RECORD_EQ(what_lay_out_throws(one_byte_over), nvcc_verdict("over_by_one.cu", "Formal parameter space overflowed"))
      << show(one_byte_over) << ": 32,765 bytes, one more than a kernel may take";
  const std::vector<Param> over_by_padding = {Param{"s", 32756, 1}, Param{"p", 8, 8}};
  RECORD_EQ(what_lay_out_throws(over_by_padding), nvcc_verdict("over_by_padding.cu", "too much parameter space"))
      << show(over_by_padding) << ": 32,756 bytes, then a pointer at offset 32,760, 32,768 bytes in all";
  // The message says how many bytes the parameters need, padding included.
  RECORD_CONTAINS(launchlab::testing::message_thrown<std::length_error>([&] { param_buffer::lay_out(one_byte_over); }),
                  "32765")
      << "the message of the std::length_error of " << show(one_byte_over);
  RECORD_CONTAINS(launchlab::testing::message_thrown<std::length_error>([&] { param_buffer::lay_out(over_by_padding); }),
                  "32768")
      << "the message of the std::length_error of " << show(over_by_padding);
  const std::vector<Param> exactly = {Param{"s", 32760, 1}, Param{"i", 4, 4}};
  RECORD_NO_THROW(param_buffer::lay_out(exactly)) << show(exactly) << ": 32,764 bytes, which fit";
  std::optional<std::size_t> size;
  try {
    size = param_buffer::lay_out(exactly).size;
  } catch (const std::exception&) {
  }
  RECORD_EQ(size, 32764u) << show(exactly) << ": the size";
}

TEST(Layout, RejectsImpossibleParameters) {
  const std::vector<Param> zero_size = {Param{"c", 1, 1}, Param{"nothing", 0, 1}};
  RECORD_THROWS(param_buffer::lay_out(zero_size), std::invalid_argument) << show(zero_size) << ": a parameter of 0 bytes";
  for (std::size_t bad : {0u, 3u, 24u}) {
    const std::vector<Param> params = {Param{"c", 1, 1}, Param{"odd", 24, bad}};
    RECORD_THROWS(param_buffer::lay_out(params), std::invalid_argument)
        << show(params) << ": an alignment of " << bad << ", not a power of two";
  }
  // Drawn parameter lists, every other one with a parameter of 0 bytes or an
  // alignment that is no power of two: only code that rejects exactly those
  // and lays out the others matches the solution.
  std::mt19937_64 random = launchlab::testing::seeded_random(20260401);
  for (int row = 0; row < 8; ++row) {
    std::vector<Param> params(1 + random() % 6);
    for (Param& p : params) {
      p.alignment = std::size_t{1} << (random() % 5);
      p.size = p.alignment * (1 + random() % 4);
      p.name = std::string(1, static_cast<char>('a' + random() % 26));
    }
    if (row % 2 == 1) {
      Param& broken = params[random() % params.size()];
      if (random() % 2 == 0) {
        broken.size = 0;
      } else {
        broken.alignment = std::array<std::size_t, 4>{0, 3, 12, 24}[random() % 4];
      }
    }
    RECORD_OUTCOME(param_buffer::lay_out(params).slots, std::invalid_argument) << show(params);
  }
}

TEST(Layout, NoParametersTakeNoBytes) {
  RECORD_NO_THROW(param_buffer::lay_out(std::span<const Param>{})) << "lay_out({})";
  std::optional<Layout> layout;
  try {
    layout = param_buffer::lay_out(std::span<const Param>{});
  } catch (const std::exception&) {
  }
  RECORD_REQUIRE(layout.has_value());
  RECORD_EQ(layout->slots.size(), 0u) << "lay_out({}): the number of slots";
  RECORD_EQ(layout->size, 0u) << "lay_out({}): the size";
}

}  // namespace
}  // namespace launchlab::param_buffer_tests
