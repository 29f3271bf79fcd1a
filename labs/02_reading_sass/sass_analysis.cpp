// Part B: what a function's SASS reads and writes.
#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "sass.h"

namespace launchlab::sass {

std::optional<ConstantOperand> constant_operand(std::string_view operand) {
  // TODO(student): "c[0xB][0xOFF]", possibly inside |...| or after '-', gives
  // {B, OFF}; "c[0xB][-0xN]" is offset 0x10000 - N (see the header for the
  // range); anything else (cx[...], c[0x0][R2], R2) gives nothing.
  (void)operand;
  return std::nullopt;
}

std::uint32_t param_base(int arch) {
  // TODO(student): where the parameters start in bank 0 on each
  // architecture (see the chapter, or EIATTR_PARAM_CBANK in cuobjdump -elf).
  (void)arch;
  return 0;
}

std::vector<ParamRead> param_reads(const Function& function, std::uint32_t base, std::span<const ParamSlot> params) {
  // TODO(student): for each instruction, each operand that names c[0x0][X]
  // with X - base inside a parameter's bytes gives one ParamRead.
  (void)function;
  (void)base;
  (void)params;
  return {};
}

MemoryCounts count_memory(const Function& function) {
  // TODO(student): count instructions by mnemonic (see MemoryCounts).
  (void)function;
  return {};
}

std::vector<std::string> special_registers(const Function& function) {
  // TODO(student): the operands that start with "SR_", sorted, unique.
  (void)function;
  return {};
}

RegisterUse registers_used(const Function& function) {
  // TODO(student): the R, UR, P and UP registers named anywhere in the
  // predicates and operands (RZ, URZ, PT and UPT are not registers).
  (void)function;
  return {};
}

}  // namespace launchlab::sass
