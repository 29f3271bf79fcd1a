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
#include "launchlab/record.h"

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

// What an option's value is, in words: "the info log buffer", "the error
// log buffer", a number (carried in the pointer itself), or null when the
// option is missing.
std::optional<std::string> value_of(const JitOptions& o, CUjit_option key, const std::vector<char>& info,
                                    const std::vector<char>& error) {
  const auto i = slot(o, key);
  if (!i || *i >= o.values.size()) return std::nullopt;
  void* value = o.values[*i];
  if (value == info.data()) return "the info log buffer";
  if (value == error.data()) return "the error log buffer";
  return std::to_string(reinterpret_cast<std::uintptr_t>(value));
}

TEST(JitOptions, EncodesTheLogBuffers) {
  std::vector<char> info(100, 'x'), error(50, 'x');
  RECORD_SCOPE("jit_options(an info log of 100 bytes, an error log of 50 bytes)");
  const JitOptions o = launchlab::driver::jit_options(info, error);
  RECORD_TRUE(o.keys.size() == o.values.size())
      << "one value per option (" << o.keys.size() << " keys, " << o.values.size() << " values)";
  RECORD_TRUE(std::set<CUjit_option>(o.keys.begin(), o.keys.end()).size() == o.keys.size()) << "no option twice";
  // A number travels in the pointer itself; null: the option is missing.
  RECORD_EQ(value_of(o, CU_JIT_WALL_TIME, info, error), "0") << "the value of CU_JIT_WALL_TIME";
  RECORD_EQ(value_of(o, CU_JIT_INFO_LOG_BUFFER, info, error), "the info log buffer")
      << "the value of CU_JIT_INFO_LOG_BUFFER";
  RECORD_EQ(value_of(o, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, info, error), "100")
      << "the value of CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES";
  RECORD_EQ(value_of(o, CU_JIT_ERROR_LOG_BUFFER, info, error), "the error log buffer")
      << "the value of CU_JIT_ERROR_LOG_BUFFER";
  RECORD_EQ(value_of(o, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, info, error), "50")
      << "the value of CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES";
  RECORD_EQ(static_cast<int>(info[0]), 0) << "the info log's first byte: the log starts empty";
  RECORD_EQ(static_cast<int>(error[0]), 0) << "the error log's first byte: the log starts empty";
}

TEST(JitOptions, ReadsWhatTheDriverWroteBack) {
  std::vector<char> info(100), error(50);
  JitOptions o = launchlab::driver::jit_options(info, error);
  const auto wall = slot(o, CU_JIT_WALL_TIME);
  const auto info_size = slot(o, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
  const auto error_size = slot(o, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
  // The test writes into these slots as the driver would: without them it cannot go on.
  const bool slots_to_write = wall && info_size && error_size && o.values.size() == o.keys.size();
  RECORD_TRUE(slots_to_write) << "jit_options(an info log of 100 bytes, an error log of 50 bytes) gives "
                                 "CU_JIT_WALL_TIME and both SIZE_BYTES options, one value per key";
  RECORD_REQUIRE(slots_to_write);
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

  RECORD_SCOPE("read_jit_report of your options, after a driver wrote a wall time of 12.5 ms (a float), the info "
               "log \"" + info_text + "\" with its NUL, " + std::to_string(info_text.size() + 1) +
               " bytes, and the error log \"" + error_text + "\" without one, " +
               std::to_string(error_text.size()) + " bytes, an X after it");
  const launchlab::driver::JitReport r = launchlab::driver::read_jit_report(o);
  RECORD_NEAR(r.wall_ms, 12.5, 1e-6) << "wall_ms: CU_JIT_WALL_TIME, a float in the value's first 4 bytes";
  RECORD_EQ(r.info_log, "ptxas info    : Used 8 registers") << "info_log: the info log ends at its NUL";
  RECORD_EQ(r.error_log, "ptxas fatal   : Unresolved extern function")
      << "error_log: the error log ends after the bytes the driver says it wrote";

  // The driver writes a SIZE_BYTES value as an unsigned int: its four bytes
  // only, so the slot's upper half keeps what was there before.
  JitOptions upper_half_set = o;
  upper_half_set.values[*error_size] = number((std::uintptr_t{0xffffffffu} << 32) | error_text.size());
  RECORD_EQ(launchlab::driver::read_jit_report(upper_half_set).error_log, "ptxas fatal   : Unresolved extern function")
      << "error_log, when the error log's SIZE_BYTES slot holds " << error_text.size()
      << " in its low 32 bits and ones in its upper 32: the count is the low 32 bits alone";

  JitOptions without_wall = o;
  without_wall.keys.erase(without_wall.keys.begin() + static_cast<std::ptrdiff_t>(*wall));
  without_wall.values.erase(without_wall.values.begin() + static_cast<std::ptrdiff_t>(*wall));
  RECORD_THROWS(launchlab::driver::read_jit_report(without_wall), std::invalid_argument)
      << "read_jit_report of options without CU_JIT_WALL_TIME";
}

}  // namespace
}  // namespace launchlab::driver_tests
