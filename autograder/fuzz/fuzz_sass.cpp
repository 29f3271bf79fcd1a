// The listing parsers and every analysis of what they return: malformed
// text throws std::runtime_error, nothing else may go wrong.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "sass.h"

using namespace launchlab::sass;

namespace {
void analyse(const std::vector<Function>& functions) {
  const ParamSlot slots[] = {{0, 8}, {8, 4}, {16, 16}};
  for (const auto& f : functions) {
    (void)param_reads(f, 0x210, slots);
    (void)count_memory(f);
    (void)special_registers(f);
    (void)registers_used(f);
    for (const auto& ins : f.instructions) {
      for (const auto& op : ins.operands) (void)constant_operand(op);
    }
    try {
      (void)param_base(f.arch);
    } catch (const std::invalid_argument&) {
    }
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    analyse(parse_cuobjdump_sass(text));
  } catch (const std::runtime_error&) {
  }
  try {
    analyse(parse_nvdisasm(text));
  } catch (const std::runtime_error&) {
  }
  return 0;
}
