// pack, unpack, kernel_params and fill_extra, on the CPU. The expected
// buffers are built here from the offsets nvcc records in the cubin.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "cases.h"
#include "cubin_info.h"
#include "launchlab/testing.h"
#include "param_buffer.h"

namespace launchlab::param_buffer_tests {
namespace {

using launchlab::testing::SameSequence;
using param_buffer::Layout;
using param_buffer::Param;

std::vector<std::span<const std::byte>> spans_of(const std::vector<std::vector<std::byte>>& values) {
  return std::vector<std::span<const std::byte>>(values.begin(), values.end());
}

// The buffer as nvcc lays it out: each value at its recorded offset, zeros elsewhere.
std::vector<std::byte> expected_buffer(const std::string& kernel, const std::vector<std::vector<std::byte>>& values) {
  static const auto all = read_recorded_params(echo_cubin());
  const RecordedKernel& truth = all.at(kernel);
  std::vector<std::byte> buffer(*truth.cbank_param_size, std::byte{0});
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::memcpy(buffer.data() + truth.params.at(i).offset, values[i].data(), values[i].size());
  }
  return buffer;
}

std::vector<int> as_ints(std::span<const std::byte> bytes) {
  std::vector<int> out;
  for (std::byte b : bytes) out.push_back(static_cast<int>(b));
  return out;
}

TEST(Pack, PutsEachValueAtItsOffset) {
  for (const char* kernel : {"scalars", "mixed", "structs", "arrays", "vectors", "big_after_char"}) {
    const EchoCase& c = echo_case(kernel);
    const auto values = sample_values(c);
    std::vector<std::byte> packed;
    try {
      packed = param_buffer::pack(param_buffer::lay_out(c.params), spans_of(values));
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.signature << ": lay_out or pack threw: " << e.what();
      continue;
    }
    const std::vector<std::byte> expected = expected_buffer(kernel, values);
    EXPECT_EQ(packed.size(), expected.size()) << c.signature << ": the buffer's length";
    EXPECT_TRUE(SameSequence(as_ints(expected), as_ints(packed)))
        << c.signature << ": [k] is the buffer's byte k; the offsets come from the cubin nvcc wrote";
  }
}

TEST(Pack, ZeroesThePadding) {
  // structs(char c, Padded pd, short s, Pair pr, char last): bytes 1-7 and
  // 34-35 of the buffer belong to no parameter, and Padded's own padding
  // comes with its value.
  const EchoCase& c = echo_case("structs");
  std::vector<std::vector<std::byte>> values;
  for (const Param& p : c.params) values.emplace_back(p.size, std::byte{0xff});
  const std::vector<std::byte> packed = param_buffer::pack(param_buffer::lay_out(c.params), spans_of(values));
  EXPECT_TRUE(SameSequence(as_ints(expected_buffer("structs", values)), as_ints(packed)))
      << "every parameter is 0xff bytes, padding between parameters must be 0";
}

TEST(Pack, RefusesValuesThatDoNotMatchTheLayout) {
  const std::vector<Param> params = {Param{"c", 1, 1}, Param{"d", 8, 8}};
  const Layout layout = param_buffer::lay_out(params);
  const std::vector<std::byte> one(1), eight(8), four(4);
  const std::vector<std::span<const std::byte>> too_few = {one};
  EXPECT_THROW(param_buffer::pack(layout, too_few), std::invalid_argument) << "two parameters, one value";
  const std::vector<std::span<const std::byte>> too_many = {one, eight, eight};
  EXPECT_THROW(param_buffer::pack(layout, too_many), std::invalid_argument) << "two parameters, three values";
  const std::vector<std::span<const std::byte>> wrong_size = {one, four};
  EXPECT_THROW(param_buffer::pack(layout, wrong_size), std::invalid_argument) << "d takes 8 bytes, 4 were given";
}

TEST(Unpack, ReturnsTheBytesOfOneSlot) {
  const EchoCase& c = echo_case("arrays");
  const auto values = sample_values(c);
  const Layout layout = param_buffer::lay_out(c.params);
  const std::vector<std::byte> buffer = expected_buffer("arrays", values);
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_TRUE(SameSequence(as_ints(values[i]), as_ints(param_buffer::unpack(layout, buffer, i))))
        << c.signature << ": parameter " << i << " (" << c.params[i].name << ")";
  }
  // Read with the right layout, a wrongly packed buffer gives what it holds
  // at the right offsets: the bytes of d are buffer[56, 64), whatever they are.
  std::vector<std::byte> shifted(buffer.size(), std::byte{0});
  std::memcpy(shifted.data() + 1, buffer.data(), buffer.size() - 1);
  EXPECT_TRUE(SameSequence(as_ints(std::span<const std::byte>(shifted).subspan(56, 8)),
                           as_ints(param_buffer::unpack(layout, shifted, 3))))
      << "unpack reads the slot's bytes, whatever they hold";
  EXPECT_THROW(param_buffer::unpack(layout, buffer, values.size()), std::out_of_range) << "past the last parameter";
  EXPECT_THROW(param_buffer::unpack(layout, std::span<const std::byte>(buffer).first(60), 4), std::out_of_range)
      << "a buffer that ends before the slot";
}

TEST(LaunchArgs, KernelParamsPointAtEachSlot) {
  const EchoCase& c = echo_case("mixed");
  const Layout layout = param_buffer::lay_out(c.params);
  std::vector<std::byte> buffer(layout.size);
  const std::vector<void*> pointers = param_buffer::kernel_params(layout, buffer);
  ASSERT_EQ(pointers.size(), c.params.size()) << "one pointer per parameter";
  // The recorded offsets of mixed(char c, double d, int* p, short s, float4 f).
  static const auto all = read_recorded_params(echo_cubin());
  for (std::size_t i = 0; i < pointers.size(); ++i) {
    const auto expected = static_cast<std::ptrdiff_t>(all.at("mixed").params.at(i).offset);
    EXPECT_EQ(static_cast<std::byte*>(pointers[i]) - buffer.data(), expected)
        << "kernelParams[" << i << "] (" << c.params[i].name << ") should point " << expected
        << " bytes into the buffer";
  }
  std::vector<std::byte> short_buffer(layout.size - 1);
  EXPECT_THROW(param_buffer::kernel_params(layout, short_buffer), std::out_of_range)
      << "a buffer one byte too short for the last slot";
}

TEST(LaunchArgs, ExtraFollowsCudaH) {
  std::vector<std::byte> buffer(48);
  param_buffer::LaunchExtra extra;
  param_buffer::fill_extra(extra, buffer);
  // cuda.h: CU_LAUNCH_PARAM_BUFFER_POINTER is ((void*)0x01), CU_LAUNCH_PARAM_BUFFER_SIZE
  // ((void*)0x02), CU_LAUNCH_PARAM_END ((void*)0x00); the size goes by address.
  EXPECT_EQ(extra.items[0], CU_LAUNCH_PARAM_BUFFER_POINTER) << "items[0]";
  EXPECT_EQ(extra.items[1], static_cast<void*>(buffer.data())) << "items[1]: the buffer";
  EXPECT_EQ(extra.items[2], CU_LAUNCH_PARAM_BUFFER_SIZE) << "items[2]";
  EXPECT_EQ(extra.items[3], static_cast<void*>(&extra.size)) << "items[3]: the address of a size_t holding the size";
  EXPECT_EQ(extra.items[4], CU_LAUNCH_PARAM_END) << "items[4]";
  EXPECT_EQ(extra.size, 48u) << "the size is the buffer's length";
}

}  // namespace
}  // namespace launchlab::param_buffer_tests
