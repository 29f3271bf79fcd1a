// Part C: the option arrays of cuModuleLoadDataEx. Read the comments of
// enum CUjit_option in cuda.h: each option says its type and whether the
// driver writes it back.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "driver.h"

namespace launchlab::driver {

JitOptions jit_options(std::span<char> info_log, std::span<char> error_log) {
  // TODO(student): the five options and their values. A number travels in
  // the pointer itself: reinterpret_cast<void*>(std::uintptr_t{n}). Start
  // both logs as empty strings.
  (void)info_log;
  (void)error_log;
  return {};
}

JitReport read_jit_report(const JitOptions& options) {
  // TODO(student): find each option's slot by its key. The wall time is a
  // float in the first four bytes of its slot (std::memcpy it out); each
  // SIZE_BYTES slot now holds how many bytes the driver wrote to its log.
  // std::invalid_argument when an option is missing.
  (void)options;
  return {};
}

}  // namespace launchlab::driver
