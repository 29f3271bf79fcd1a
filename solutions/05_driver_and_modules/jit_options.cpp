// Part C: the option arrays of cuModuleLoadDataEx.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "driver.h"

namespace launchlab::driver {

namespace {

void* number(std::size_t n) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(n)); }

std::size_t slot_of(const JitOptions& options, CUjit_option key) {
  for (std::size_t i = 0; i < options.keys.size() && i < options.values.size(); ++i) {
    if (options.keys[i] == key) return i;
  }
  throw std::invalid_argument("read_jit_report: option " + std::to_string(static_cast<int>(key)) + " is missing");
}

std::string log_text(const JitOptions& options, CUjit_option buffer_key, CUjit_option size_key) {
  const char* buffer = static_cast<const char*>(options.values[slot_of(options, buffer_key)]);
  // The driver writes the number of bytes it filled into the slot; only its
  // low 32 bits are an unsigned int.
  const auto filled =
      static_cast<unsigned int>(reinterpret_cast<std::uintptr_t>(options.values[slot_of(options, size_key)]));
  if (buffer == nullptr) return {};
  std::size_t length = 0;
  while (length < filled && buffer[length] != '\0') ++length;
  return std::string(buffer, length);
}

}  // namespace

JitOptions jit_options(std::span<char> info_log, std::span<char> error_log) {
  if (!info_log.empty()) info_log[0] = '\0';
  if (!error_log.empty()) error_log[0] = '\0';
  JitOptions o;
  o.keys = {CU_JIT_WALL_TIME,        CU_JIT_INFO_LOG_BUFFER,           CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  o.values = {number(0), info_log.data(), number(info_log.size()), error_log.data(), number(error_log.size())};
  return o;
}

JitReport read_jit_report(const JitOptions& options) {
  JitReport report;
  void* const wall = options.values[slot_of(options, CU_JIT_WALL_TIME)];
  std::memcpy(&report.wall_ms, &wall, sizeof(float));  // a float in the slot's first bytes (little-endian)
  report.info_log = log_text(options, CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
  report.error_log = log_text(options, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
  return report;
}

}  // namespace launchlab::driver
