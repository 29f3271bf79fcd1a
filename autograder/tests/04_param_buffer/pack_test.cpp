// pack, unpack, kernel_params and fill_extra, on the CPU. The expected
// buffers are built here from the offsets nvcc records in the cubin.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases.h"
#include "cubin_info.h"
#include "launchlab/drawn.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "param_buffer.h"

namespace launchlab::param_buffer_tests {
namespace {

using param_buffer::Layout;
using param_buffer::Param;

std::vector<std::span<const std::byte>> spans_of(const std::vector<std::vector<std::byte>>& values) {
  return std::vector<std::span<const std::byte>>(values.begin(), values.end());
}

// Packs values with your lay_out and pack, recording whether either threw;
// no bytes when one did.
std::vector<std::byte> PackWithYourCode(const EchoCase& c, const std::vector<std::vector<std::byte>>& values) {
  RECORD_NO_THROW(param_buffer::pack(param_buffer::lay_out(c.params), spans_of(values)))
      << "pack(lay_out(...), values) for " << c.signature;
  try {
    return param_buffer::pack(param_buffer::lay_out(c.params), spans_of(values));
  } catch (const std::exception&) {
    return {};
  }
}

TEST(Pack, PutsEachValueAtItsOffset) {
  for (const char* kernel : {"scalars", "mixed", "structs", "arrays", "vectors", "big_after_char"}) {
    const EchoCase& c = echo_case(kernel);
    const auto values = sample_values(c);
    RECORD_SCOPE("pack(lay_out(...), values) for " + c.signature);
    const std::vector<std::byte> packed = PackWithYourCode(c, values);
    RECORD_EQ(packed.size(), nvcc_param_size(kernel)) << "the buffer's length";
    RECORD_EQ(as_ints(packed), as_ints(nvcc_buffer(kernel, values)))
        << "[k] is the buffer's byte k; each value belongs at the offset nvcc gives its parameter, zeros elsewhere";
  }
}

TEST(Pack, ZeroesThePadding) {
  // structs(char c, Padded pd, short s, Pair pr, char last): bytes 1-7 and
  // 34-35 of the buffer belong to no parameter, and Padded's own padding
  // comes with its value.
  const EchoCase& c = echo_case("structs");
  std::vector<std::vector<std::byte>> values;
  for (const Param& p : c.params) values.emplace_back(p.size, std::byte{0xff});
  RECORD_SCOPE("pack(lay_out(...), values) for " + c.signature + ", every value all 0xff bytes");
  const std::vector<std::byte> packed = PackWithYourCode(c, values);
  RECORD_EQ(as_ints(packed), as_ints(nvcc_buffer("structs", values)))
      << "[k] is the buffer's byte k (255 is 0xff); padding between parameters must be 0";
}

TEST(Pack, RefusesValuesThatDoNotMatchTheLayout) {
  {
    const std::vector<Param> params = {Param{"c", 1, 1}, Param{"d", 8, 8}};
    const Layout layout = param_buffer::lay_out(params);
    const std::vector<std::byte> one(1), eight(8), four(4);
    RECORD_SCOPE("the layout of (char c, double d)");
    const std::vector<std::span<const std::byte>> too_few = {one};
    RECORD_THROWS(param_buffer::pack(layout, too_few), std::invalid_argument)
        << "pack with one value for two parameters";
    const std::vector<std::span<const std::byte>> too_many = {one, eight, eight};
    RECORD_THROWS(param_buffer::pack(layout, too_many), std::invalid_argument)
        << "pack with three values for two parameters";
    const std::vector<std::span<const std::byte>> wrong_size = {one, four};
    RECORD_THROWS(param_buffer::pack(layout, wrong_size), std::invalid_argument)
        << "pack with a 4-byte value for d, which takes 8";
  }
  // Drawn parameter lists and values, some of them given one value too few,
  // one too many or one of the wrong size: only code that rejects exactly
  // those and packs the others matches the solution.
  std::mt19937_64 random = launchlab::testing::seeded_random(20260402);
  for (const bool valid : launchlab::testing::draw_validity(random, 8)) {
    std::vector<Param> drawn(1 + random() % 5);
    for (Param& p : drawn) {
      p.alignment = std::size_t{1} << (random() % 4);
      p.size = p.alignment * (1 + random() % 3);
      p.name = std::string(1, static_cast<char>('a' + random() % 26));
    }
    std::vector<std::vector<std::byte>> values;
    for (const Param& p : drawn) {
      std::vector<std::byte>& value = values.emplace_back(p.size);
      for (std::byte& b : value) b = static_cast<std::byte>(1 + random() % 255);  // never a padding byte
    }
    std::string given = "a value of the parameter's size for each";
    if (!valid) {
      switch (random() % 3) {
        case 0:
          values.pop_back();
          given = "one value fewer than parameters";
          break;
        case 1:
          values.emplace_back(1 + random() % 8, std::byte{0x5a});
          given = "one value more than parameters";
          break;
        default: {
          const std::size_t index = random() % values.size();
          values[index].resize(values[index].size() + 1 + random() % 4, std::byte{0x5a});
          given = "value " + std::to_string(index) + " longer than its parameter";
        }
      }
    }
    std::vector<std::vector<int>> shown;
    for (const auto& value : values) shown.push_back(as_ints(value));
    RECORD_OUTCOME(as_ints(param_buffer::pack(param_buffer::lay_out(drawn), spans_of(values))), std::invalid_argument)
        << "pack(" << show(drawn) << ", values " << ::testing::PrintToString(shown) << "): " << given
        << "; returned: [k] is the buffer's byte k";
  }
}

TEST(Unpack, ReturnsTheBytesOfOneSlot) {
  // A buffer whose byte k holds the number k: what unpack returns are the
  // offsets it read, whatever the buffer was packed with (the kernel does
  // not know how its buffer was filled either).
  const EchoCase& c = echo_case("arrays");
  std::vector<std::byte> buffer(128);
  for (std::size_t k = 0; k < buffer.size(); ++k) buffer[k] = static_cast<std::byte>(k);
  const Layout layout = layout_or_empty(c);
  RECORD_SCOPE("unpack(lay_out(...), buffer, index) for " + c.signature +
               ", with a 128-byte buffer whose byte k holds the number k");
  RECORD_NO_THROW(param_buffer::lay_out(c.params));
  for (std::size_t i = 0; i < c.params.size(); ++i) {
    std::optional<std::vector<int>> got;
    try {
      got = as_ints(param_buffer::unpack(layout, buffer, i));
    } catch (const std::exception&) {
    }
    RECORD_EQ(got, [&] {
      const param_buffer::Slot slot = nvcc_slots("arrays").at(i);
      std::vector<int> offsets;
      for (std::size_t k = slot.offset; k < slot.offset + slot.size; ++k) offsets.push_back(static_cast<int>(k));
      return offsets;
    }()) << "index " << i << " (" << c.params[i].name << "); null: unpack threw";
  }
  RECORD_THROWS(param_buffer::unpack(layout, buffer, c.params.size()), std::out_of_range)
      << "index " << c.params.size() << ", past the last parameter";
  RECORD_THROWS(param_buffer::unpack(layout, std::span<const std::byte>(buffer).first(60), 4), std::out_of_range)
      << "index 4 (n) of the buffer's first 60 bytes, which end before n's slot";
}

TEST(LaunchArgs, KernelParamsPointAtEachSlot) {
  const EchoCase& c = echo_case("mixed");
  const Layout layout = layout_or_empty(c);
  RECORD_SCOPE("kernel_params(lay_out(...), buffer) for " + c.signature);
  RECORD_NO_THROW(param_buffer::lay_out(c.params));
  std::vector<std::byte> buffer(layout.size);
  std::vector<void*> pointers;
  RECORD_NO_THROW(pointers = param_buffer::kernel_params(layout, buffer));
  // Where each pointer points, in bytes from the buffer's start (null: outside the buffer).
  std::vector<std::optional<std::ptrdiff_t>> offsets;
  for (void* p : pointers) {
    const auto* byte = static_cast<const std::byte*>(p);
    const bool inside = byte >= buffer.data() && byte <= buffer.data() + buffer.size();
    offsets.push_back(inside ? std::optional<std::ptrdiff_t>(byte - buffer.data()) : std::nullopt);
  }
  RECORD_EQ(offsets, [] {
    std::vector<std::optional<std::ptrdiff_t>> expected;
    for (const auto& slot : nvcc_slots("mixed")) expected.push_back(static_cast<std::ptrdiff_t>(slot.offset));
    return expected;
  }()) << "[i]: how many bytes into the buffer kernelParams[i] points (null: outside it); one pointer per parameter";
  std::vector<std::byte> short_buffer(layout.size == 0 ? 0 : layout.size - 1);
  RECORD_THROWS(param_buffer::kernel_params(layout, short_buffer), std::out_of_range)
      << "a buffer one byte too short for the last slot";
}

TEST(LaunchArgs, ExtraFollowsCudaH) {
  std::vector<std::byte> buffer(48);
  param_buffer::LaunchExtra extra;
  RECORD_NO_THROW(param_buffer::fill_extra(extra, buffer)) << "fill_extra(extra, a 48-byte buffer)";
  // cuda.h: CU_LAUNCH_PARAM_BUFFER_POINTER is ((void*)0x01), CU_LAUNCH_PARAM_BUFFER_SIZE
  // ((void*)0x02), CU_LAUNCH_PARAM_END ((void*)0x00); the size goes by address.
  const auto what = [&](const void* item) -> std::string {
    if (item == buffer.data()) return "the buffer's first byte";
    if (item == &extra.size) return "the address of extra.size";
    const auto value = reinterpret_cast<std::uintptr_t>(item);
    if (value < 0x1000) return "(void*)" + std::to_string(value);
    return "another address";
  };
  std::vector<std::string> items;
  for (const void* item : extra.items) items.push_back(what(item));
  RECORD_EQ(items, std::vector<std::string>{what(CU_LAUNCH_PARAM_BUFFER_POINTER), "the buffer's first byte",
                                            what(CU_LAUNCH_PARAM_BUFFER_SIZE), "the address of extra.size",
                                            what(CU_LAUNCH_PARAM_END)})
      << "fill_extra(extra, a 48-byte buffer): extra.items, [i] is items[i]";
  RECORD_EQ(extra.size, 48u) << "fill_extra(extra, a 48-byte buffer): extra.size, the buffer's length";
}

}  // namespace
}  // namespace launchlab::param_buffer_tests
