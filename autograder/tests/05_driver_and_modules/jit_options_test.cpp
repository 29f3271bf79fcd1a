// Part C, on the CPU: the option arrays, as the comments of enum
// CUjit_option in cuda.h describe them, and reading back what the driver
// writes into them (simulated here the way cuda.h says the driver writes).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver.h"

namespace launchlab::driver_tests {
namespace {

using launchlab::driver::JitOptions;

std::optional<std::size_t> slot(const JitOptions& o, CUjit_option key) {
  for (std::size_t i = 0; i < o.keys.size(); ++i) {
    if (o.keys[i] == key) return i;
  }
  return std::nullopt;
}

void* number(std::size_t n) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(n)); }

TEST(JitOptions, EncodesTheLogBuffers) {
  std::vector<char> info(100, 'x'), error(50, 'x');
  const JitOptions o = launchlab::driver::jit_options(info, error);
  ASSERT_EQ(o.keys.size(), o.values.size()) << "one value per option";
  EXPECT_EQ(std::set<CUjit_option>(o.keys.begin(), o.keys.end()).size(), o.keys.size()) << "no option twice";
  struct Expected {
    CUjit_option key;
    const char* name;
    void* value;
  };
  for (const Expected& e : {Expected{CU_JIT_WALL_TIME, "CU_JIT_WALL_TIME", number(0)},
                            Expected{CU_JIT_INFO_LOG_BUFFER, "CU_JIT_INFO_LOG_BUFFER", info.data()},
                            Expected{CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, "CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES", number(100)},
                            Expected{CU_JIT_ERROR_LOG_BUFFER, "CU_JIT_ERROR_LOG_BUFFER", error.data()},
                            Expected{CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, "CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES",
                                     number(50)}}) {
    const auto i = slot(o, e.key);
    ASSERT_TRUE(i.has_value()) << e.name << " is missing";
    EXPECT_EQ(o.values[*i], e.value) << e.name << ": " << (e.key == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES ||
                                                                   e.key == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
                                                               ? "a number travels in the pointer itself"
                                                               : "");
  }
  EXPECT_EQ(info[0], '\0') << "the info log starts empty";
  EXPECT_EQ(error[0], '\0') << "the error log starts empty";
}

TEST(JitOptions, ReadsWhatTheDriverWroteBack) {
  std::vector<char> info(100), error(50);
  JitOptions o = launchlab::driver::jit_options(info, error);
  const auto wall = slot(o, CU_JIT_WALL_TIME);
  const auto info_size = slot(o, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
  const auto error_size = slot(o, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
  ASSERT_TRUE(wall && info_size && error_size) << "jit_options must set these options first";
  // What the driver does: the wall time, a float, over the value; each log's
  // filled size over its SIZE_BYTES value.
  const float ms = 12.5f;
  o.values[*wall] = nullptr;
  std::memcpy(&o.values[*wall], &ms, sizeof ms);
  const std::string info_text = "ptxas info    : Used 8 registers";
  std::memcpy(info.data(), info_text.c_str(), info_text.size() + 1);
  o.values[*info_size] = number(info_text.size() + 1);
  const std::string error_text = "ptxas fatal   : Unresolved extern function";
  std::memcpy(error.data(), error_text.data(), error_text.size());
  error[error_text.size()] = 'X';  // past the filled size: not part of the log
  o.values[*error_size] = number(error_text.size());

  const launchlab::driver::JitReport r = launchlab::driver::read_jit_report(o);
  EXPECT_FLOAT_EQ(r.wall_ms, 12.5f) << "CU_JIT_WALL_TIME: a float in the value's first 4 bytes";
  EXPECT_EQ(r.info_log, info_text) << "the info log ends at its NUL";
  EXPECT_EQ(r.error_log, error_text) << "the error log ends after the bytes the driver says it wrote";

  JitOptions without_wall = o;
  without_wall.keys.erase(without_wall.keys.begin() + static_cast<std::ptrdiff_t>(*wall));
  without_wall.values.erase(without_wall.values.begin() + static_cast<std::ptrdiff_t>(*wall));
  EXPECT_THROW(launchlab::driver::read_jit_report(without_wall), std::invalid_argument)
      << "options without CU_JIT_WALL_TIME";
}

}  // namespace
}  // namespace launchlab::driver_tests
