// On a GPU: your layouts against cuFuncGetParamInfo, and launches of the
// echo kernels with your buffers, through cuLaunchKernel's `extra` and
// `kernelParams`. Each echo kernel copies the bytes of its parameters, as it
// reads them, to device memory, and the tests compare every byte.
//
// Lines starting with "csv," are data for the chapter, what the driver
// reported, printed as the tests go, in the columns
//   record,kernel,index,name,offset,size,answer
// (param_info: cuFuncGetParamInfo for one parameter; driver_answer: what
// cuLaunchKernel said to a buffer of `size` bytes).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cases.h"
#include "driver_api.h"
#include "launchlab/testing.h"
#include "param_buffer.h"

namespace launchlab::param_buffer_tests {
namespace {

using param_buffer::Layout;
using param_buffer::Slot;

constexpr unsigned kThreads = 256;

// What the driver says about a kernel's parameters: cuFuncGetParamInfo for
// index 0, 1, ... until it refuses the index.
std::vector<Slot> driver_slots(CUfunction f) {
  std::vector<Slot> slots;
  for (std::size_t i = 0; i < 256; ++i) {
    std::size_t offset = 0, size = 0;
    if (driver().func_get_param_info(f, i, &offset, &size) != CUDA_SUCCESS) break;
    slots.push_back(Slot{offset, size});
  }
  return slots;
}

std::size_t end_of(const std::vector<Slot>& slots) {
  return slots.empty() ? 0 : slots.back().offset + slots.back().size;
}

std::size_t total_value_bytes(const std::vector<std::vector<std::byte>>& values) {
  std::size_t n = 0;
  for (const auto& v : values) n += v.size();
  return n;
}

std::string hex(std::span<const std::byte> bytes, std::size_t limit = 8) {
  std::ostringstream out;
  for (std::size_t i = 0; i < bytes.size() && i < limit; ++i) {
    out << (i ? " " : "") << std::hex << std::setw(2) << std::setfill('0') << static_cast<int>(bytes[i]);
  }
  if (bytes.size() > limit) out << " ...";
  return out.str();
}

// Where a value's bytes first appear in a buffer, if anywhere.
std::optional<std::size_t> find_bytes(std::span<const std::byte> buffer, std::span<const std::byte> value) {
  if (value.empty() || value.size() > buffer.size()) return std::nullopt;
  for (std::size_t at = 0; at + value.size() <= buffer.size(); ++at) {
    if (std::memcmp(buffer.data() + at, value.data(), value.size()) == 0) return at;
  }
  return std::nullopt;
}

// "parameter 1 (d, 8 bytes): the kernel reads it at offset 8
// (cuFuncGetParamInfo), your layout puts it at offset 1 ..."
std::string describe_parameter(const EchoCase& c, std::size_t i, const std::vector<Slot>& truth, const Layout* mine,
                               std::span<const std::byte> buffer, std::span<const std::byte> value) {
  std::ostringstream out;
  out << "parameter " << i << " (" << c.params[i].name << ", " << c.params[i].size << " bytes, alignment "
      << c.params[i].alignment << "): expected at offset " << truth[i].offset << " (cuFuncGetParamInfo)";
  if (mine != nullptr && i < mine->slots.size()) out << ", your layout puts it at offset " << mine->slots[i].offset;
  if (auto at = find_bytes(buffer, value)) {
    out << ", and your buffer holds its bytes at offset " << *at;
  } else {
    out << ", and its bytes are nowhere in your buffer";
  }
  return out.str();
}

// Builds the buffer with your lay_out and pack, for one case.
struct Packed {
  Layout layout;
  std::vector<std::vector<std::byte>> values;
  std::vector<std::byte> buffer;
};
::testing::AssertionResult PackWithYourCode(const EchoCase& c, Packed& out) {
  out.values = sample_values(c);
  try {
    out.layout = param_buffer::lay_out(c.params);
    out.buffer = param_buffer::pack(out.layout, std::vector<std::span<const std::byte>>(out.values.begin(), out.values.end()));
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << c.signature << ": lay_out or pack threw: " << e.what();
  }
  return ::testing::AssertionSuccess();
}

// Launches an echo kernel with a buffer through `extra`, declaring `size`
// bytes, and returns what cuLaunchKernel said.
CUresult launch_with_buffer(CUfunction f, std::span<std::byte> buffer, std::size_t size) {
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   CU_LAUNCH_PARAM_END};
  return driver().launch_kernel(f, 1, 1, 1, kThreads, 1, 1, 0, nullptr, nullptr, extra);
}

::testing::AssertionResult Finished() {
  const cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    return ::testing::AssertionFailure() << "the echo kernel failed: " << cudaGetErrorString(status);
  }
  return ::testing::AssertionSuccess();
}

// Compares what the kernel echoed with the values, parameter by parameter,
// and describes the first parameter it read wrong.
::testing::AssertionResult EchoedEveryByte(const EchoCase& c, const std::vector<Slot>& truth, const Packed& packed,
                                           std::span<const std::byte> echo) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < packed.values.size(); ++i) {
    const std::span<const std::byte> value = packed.values[i];
    const auto seen = echo.subspan(at, value.size());
    at += value.size();
    for (std::size_t j = 0; j < value.size(); ++j) {
      if (seen[j] == value[j]) continue;
      return ::testing::AssertionFailure()
             << c.signature << ": the kernel read the wrong bytes for "
             << describe_parameter(c, i, truth, &packed.layout, packed.buffer, value) << ". Byte " << j
             << " of it: expected 0x" << hex(value.subspan(j, 1)) << ", the kernel read 0x" << hex(seen.subspan(j, 1))
             << " (expected " << hex(value) << ", read " << hex(seen) << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(ParamInfoOnGpu, LayoutMatchesCuFuncGetParamInfo) {
  LAUNCHLAB_REQUIRE_GPU();
  for (const EchoCase& c : echo_cases()) {
    const std::vector<Slot> truth = driver_slots(function_of(c.host_function));
    ASSERT_EQ(truth.size(), c.params.size()) << c.signature << ": cuFuncGetParamInfo knows " << truth.size()
                                             << " parameters (a problem of the test, not of your code)";
    for (std::size_t i = 0; i < truth.size(); ++i) {
      std::printf("csv,param_info,%s,%zu,%s,%zu,%zu,\n", c.kernel.c_str(), i, c.params[i].name.c_str(),
                  truth[i].offset, truth[i].size);
    }
    Layout layout;
    try {
      layout = param_buffer::lay_out(c.params);
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.signature << ": lay_out threw: " << e.what();
      continue;
    }
    ASSERT_EQ(layout.slots.size(), truth.size()) << c.signature << ": the number of slots";
    for (std::size_t i = 0; i < truth.size(); ++i) {
      EXPECT_TRUE(layout.slots[i].offset == truth[i].offset && layout.slots[i].size == truth[i].size)
          << c.signature << ": parameter " << i << " (" << c.params[i].name << "): cuFuncGetParamInfo says offset "
          << truth[i].offset << ", size " << truth[i].size << "; your layout says offset " << layout.slots[i].offset
          << ", size " << layout.slots[i].size;
    }
    EXPECT_EQ(layout.size, end_of(truth)) << c.signature << ": the buffer ends where the last parameter ends";
  }
}

TEST(EchoOnGpu, KernelSeesEveryPackedByteThroughExtra) {
  LAUNCHLAB_REQUIRE_GPU();
  for (const EchoCase& c : echo_cases()) {
    Packed packed;
    ASSERT_TRUE(PackWithYourCode(c, packed));
    const CUfunction f = function_of(c.host_function);
    const std::vector<Slot> truth = driver_slots(f);
    clear_echo();
    const CUresult launched = launch_with_buffer(f, packed.buffer, packed.buffer.size());
    if (launched != CUDA_SUCCESS) {
      // Say which parameter your buffer holds in the wrong place.
      std::string first_wrong = "Every parameter's bytes are where the kernel reads them.";
      for (std::size_t i = 0; i < packed.values.size(); ++i) {
        const auto& value = packed.values[i];
        const bool in_place = truth[i].offset + value.size() <= packed.buffer.size() &&
                              std::memcmp(packed.buffer.data() + truth[i].offset, value.data(), value.size()) == 0;
        if (!in_place) {
          first_wrong = "The first parameter in the wrong place is " +
                        describe_parameter(c, i, truth, &packed.layout, packed.buffer, value);
          break;
        }
      }
      ADD_FAILURE() << c.signature << ": cuLaunchKernel refused your " << packed.buffer.size()
                    << "-byte buffer with " << error_name(launched) << "; the kernel's parameters take "
                    << end_of(truth) << " bytes (cuFuncGetParamInfo). " << first_wrong;
      continue;
    }
    ASSERT_TRUE(Finished());
    EXPECT_TRUE(EchoedEveryByte(c, truth, packed, read_echo_bytes(total_value_bytes(packed.values))));
  }
}

TEST(EchoOnGpu, KernelParamsPointersGiveTheSameBytes) {
  LAUNCHLAB_REQUIRE_GPU();
  for (const EchoCase& c : echo_cases()) {
    Packed packed;
    ASSERT_TRUE(PackWithYourCode(c, packed));
    std::vector<void*> pointers;
    try {
      pointers = param_buffer::kernel_params(packed.layout, packed.buffer);
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.signature << ": kernel_params threw: " << e.what();
      continue;
    }
    ASSERT_EQ(pointers.size(), c.params.size()) << c.signature << ": kernelParams needs one pointer per parameter";
    const CUfunction f = function_of(c.host_function);
    clear_echo();
    // The driver copies each parameter from its pointer to the offset it
    // knows from the kernel's image: this launch needs no layout of yours.
    const CUresult launched =
        driver().launch_kernel(f, 1, 1, 1, kThreads, 1, 1, 0, nullptr, pointers.data(), nullptr);
    ASSERT_EQ(launched, CUDA_SUCCESS) << c.signature << ": cuLaunchKernel with kernelParams: " << error_name(launched);
    ASSERT_TRUE(Finished());
    EXPECT_TRUE(EchoedEveryByte(c, driver_slots(f), packed, read_echo_bytes(total_value_bytes(packed.values))))
        << "(through kernelParams the driver takes sizes and offsets from the kernel, so only where your pointers "
           "point matters)";
  }
}

TEST(EchoOnGpu, AWrongLayoutMakesTheKernelReadTheWrongBytes) {
  LAUNCHLAB_REQUIRE_GPU();
  // mixed(char c, double d, int* p, short s, float4 f), packed back to back
  // as if alignment did not exist (35 bytes), then padded with zeros to the
  // 48 bytes the driver expects. The kernel reads d at offset 8, where this
  // buffer holds the last 7 bytes of d and the first byte of p.
  const EchoCase& c = echo_case("mixed");
  const auto values = sample_values(c);
  const CUfunction f = function_of(c.host_function);
  const std::vector<Slot> truth = driver_slots(f);
  std::vector<std::byte> wrong;
  for (const auto& v : values) wrong.insert(wrong.end(), v.begin(), v.end());
  ASSERT_EQ(wrong.size(), 35u);
  wrong.resize(end_of(truth), std::byte{0});

  clear_echo();
  const CUresult launched = launch_with_buffer(f, wrong, wrong.size());
  ASSERT_EQ(launched, CUDA_SUCCESS) << "a 48-byte buffer for a 48-byte parameter list: " << error_name(launched);
  ASSERT_TRUE(Finished());
  const std::vector<std::byte> echo = read_echo_bytes(total_value_bytes(values));

  Layout layout;
  ASSERT_NO_THROW(layout = param_buffer::lay_out(c.params));
  std::size_t at = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::span<const std::byte> seen = std::span<const std::byte>(echo).subspan(at, values[i].size());
    at += values[i].size();
    const std::span<const std::byte> at_true_offset =
        std::span<const std::byte>(wrong).subspan(truth[i].offset, truth[i].size);
    // The kernel reads its own offsets, whatever the buffer holds there.
    EXPECT_TRUE(std::equal(seen.begin(), seen.end(), at_true_offset.begin(), at_true_offset.end()))
        << "parameter " << i << " (" << c.params[i].name << "): the kernel read " << hex(seen) << ", the buffer holds "
        << hex(at_true_offset) << " at offset " << truth[i].offset;
    if (i > 0) {
      EXPECT_FALSE(std::equal(seen.begin(), seen.end(), values[i].begin(), values[i].end()))
          << "parameter " << i << " (" << c.params[i].name << ") was packed at the wrong offset, yet read right";
    }
    // unpack with your layout predicts exactly what the kernel read.
    try {
      const auto predicted = param_buffer::unpack(layout, wrong, i);
      EXPECT_TRUE(std::equal(seen.begin(), seen.end(), predicted.begin(), predicted.end()))
          << "parameter " << i << " (" << c.params[i].name << "): the kernel read " << hex(seen)
          << ", unpack with your layout predicts " << hex(predicted);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unpack(layout, buffer, " << i << ") threw: " << e.what();
    }
  }
}

TEST(EchoOnGpu, TheDriverRefusesAnOversizeBuffer) {
  LAUNCHLAB_REQUIRE_GPU();
  // Your 48-byte buffer for mixed(...), handed over through your fill_extra,
  // then declared with 8 more bytes (the padding a struct of these members
  // would have at its end) and with 32,768 bytes, more than any kernel may
  // take. The driver checks a buffer against the kernel's parameter size
  // only from above: on the H200 (driver 580.159.04) it refused 56 bytes
  // with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES and 32,768 with
  // CUDA_ERROR_INVALID_VALUE, while a buffer one byte short (47) launched,
  // the kernel reading a byte nobody packed. The short case is printed for
  // the chapter, not asserted: nothing documents that it must launch.
  const EchoCase& c = echo_case("mixed");
  Packed packed;
  ASSERT_TRUE(PackWithYourCode(c, packed));
  const CUfunction f = function_of(c.host_function);
  const std::size_t exact = end_of(driver_slots(f));
  ASSERT_EQ(packed.buffer.size(), exact) << "your buffer's length; the kernel's parameters take " << exact << " bytes";

  std::vector<std::byte> room(32768, std::byte{0});
  std::memcpy(room.data(), packed.buffer.data(), packed.buffer.size());
  param_buffer::LaunchExtra extra;
  param_buffer::fill_extra(extra, std::span<std::byte>(room).first(exact));
  clear_echo();
  const CUresult ok = driver().launch_kernel(f, 1, 1, 1, kThreads, 1, 1, 0, nullptr, nullptr, extra.items.data());
  std::printf("csv,driver_answer,mixed,,,,%zu,%s\n", exact, error_name(ok).c_str());
  ASSERT_EQ(ok, CUDA_SUCCESS) << "the exact size through your fill_extra: " << error_name(ok);
  ASSERT_TRUE(Finished());
  EXPECT_TRUE(EchoedEveryByte(c, driver_slots(f), packed, read_echo_bytes(total_value_bytes(packed.values))));

  param_buffer::fill_extra(extra, std::span<std::byte>(room).first(exact - 1));
  const CUresult short_answer = driver().launch_kernel(f, 1, 1, 1, kThreads, 1, 1, 0, nullptr, nullptr, extra.items.data());
  std::printf("csv,driver_answer,mixed,,,,%zu,%s\n", exact - 1, error_name(short_answer).c_str());
  ASSERT_TRUE(Finished()) << "after the launch of " << exact - 1 << " bytes";

  for (std::size_t size : {exact + 8, std::size_t{32768}}) {
    param_buffer::fill_extra(extra, std::span<std::byte>(room).first(size));
    const CUresult answer = driver().launch_kernel(f, 1, 1, 1, kThreads, 1, 1, 0, nullptr, nullptr, extra.items.data());
    std::printf("csv,driver_answer,mixed,,,,%zu,%s\n", size, error_name(answer).c_str());
    EXPECT_NE(answer, CUDA_SUCCESS) << "a " << size << "-byte buffer for " << exact
                                    << " bytes of parameters was accepted";
    ASSERT_TRUE(Finished()) << "after the refused launch of " << size << " bytes";
  }
  std::fflush(stdout);
}

}  // namespace
}  // namespace launchlab::param_buffer_tests
