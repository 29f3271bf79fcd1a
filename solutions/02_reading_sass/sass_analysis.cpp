// Part B: what a function's SASS reads and writes.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <stdexcept>
#include <string>

#include "sass.h"

namespace launchlab::sass {
namespace {

// "0x1f0" at the front of s: its value, and s advanced past it.
bool take_hex(std::string_view& s, std::uint32_t& value) {
  if (s.substr(0, 2) != "0x") return false;
  const char* begin = s.data() + 2;
  auto result = std::from_chars(begin, s.data() + s.size(), value, 16);
  if (result.ec != std::errc() || result.ptr == begin) return false;
  s.remove_prefix(static_cast<std::size_t>(result.ptr - s.data()));
  return true;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Every register name in an operand: a word R<n>, UR<n>, P<n>, UP<n> that
// is not part of a longer word (SR_TID.X holds no register).
void collect_registers(std::string_view text, std::set<int>& r, std::set<int>& ur, std::set<int>& p,
                       std::set<int>& up) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_word(text[i])) {
      ++i;
      continue;
    }
    std::size_t start = i;
    while (i < text.size() && is_word(text[i])) ++i;
    std::string_view word = text.substr(start, i - start);
    // A word right after '.' is a modifier (R2.64, .reuse), not a register.
    if (start > 0 && text[start - 1] == '.') continue;
    std::set<int>* target = nullptr;
    std::size_t prefix = 0;
    if (word.substr(0, 2) == "UR") target = &ur, prefix = 2;
    else if (word.substr(0, 2) == "UP") target = &up, prefix = 2;
    else if (word.substr(0, 1) == "R") target = &r, prefix = 1;
    else if (word.substr(0, 1) == "P") target = &p, prefix = 1;
    if (!target || word.size() == prefix) continue;
    std::string_view digits = word.substr(prefix);
    if (!std::all_of(digits.begin(), digits.end(), is_digit)) continue;
    int n = 0;
    std::from_chars(digits.data(), digits.data() + digits.size(), n);
    target->insert(n);
  }
}

}  // namespace

std::optional<ConstantOperand> constant_operand(std::string_view operand) {
  std::string_view s = operand;
  if (!s.empty() && (s.front() == '-' || s.front() == '~')) s.remove_prefix(1);
  if (!s.empty() && s.front() == '|') {
    if (s.size() < 2 || s.back() != '|') return std::nullopt;
    s = s.substr(1, s.size() - 2);
  }
  if (s.substr(0, 2) != "c[") return std::nullopt;
  s.remove_prefix(2);
  ConstantOperand c;
  std::uint32_t bank = 0;
  if (!take_hex(s, bank) || s.substr(0, 2) != "][") return std::nullopt;
  s.remove_prefix(2);
  // RZ, the register that always reads zero, as the offset: offset 0.
  if (s == "RZ]") {
    c.bank = bank;
    return c;
  }
  // Offsets of 0x8000 and more are printed as negative 16-bit numbers.
  const bool negative = !s.empty() && s.front() == '-';
  if (negative) s.remove_prefix(1);
  if (!take_hex(s, c.offset) || s != "]") return std::nullopt;
  if (negative) {
    constexpr std::uint32_t kBankOffsetSpan = 0x10000;
    if (c.offset == 0 || c.offset > kBankOffsetSpan / 2) return std::nullopt;
    c.offset = kBankOffsetSpan - c.offset;
  }
  c.bank = bank;
  return c;
}

std::uint32_t param_base(int arch) {
  if (arch < 75) throw std::invalid_argument("no parameter base known for sm_" + std::to_string(arch));
  if (arch < 90) return 0x160;
  if (arch < 100) return 0x210;
  return 0x380;
}

std::vector<ParamRead> param_reads(const Function& function, std::uint32_t base, std::span<const ParamSlot> params) {
  std::vector<ParamRead> reads;
  for (const auto& ins : function.instructions) {
    for (const auto& operand : ins.operands) {
      auto c = constant_operand(operand);
      if (!c || c->bank != 0 || c->offset < base) continue;
      std::uint32_t at = c->offset - base;
      for (std::size_t i = 0; i < params.size(); ++i) {
        if (at >= params[i].offset && at < params[i].offset + params[i].size) {
          reads.push_back({ins.address, ins.full_opcode(), i, at - params[i].offset});
          break;
        }
      }
    }
  }
  return reads;
}

MemoryCounts count_memory(const Function& function) {
  MemoryCounts m;
  for (const auto& ins : function.instructions) {
    const std::string& op = ins.opcode;
    if (op == "LDG") ++m.global_loads;
    else if (op == "STG") ++m.global_stores;
    else if (op == "ATOMG" || op == "RED" || op == "REDG") ++m.global_atomics;
    else if (op == "LDS") ++m.shared_loads;
    else if (op == "STS") ++m.shared_stores;
    else if (op == "LDL") ++m.local_loads;
    else if (op == "STL") ++m.local_stores;
    else if (op == "LDC" || op == "ULDC" || op == "LDCU") ++m.constant_loads;
  }
  return m;
}

std::vector<std::string> special_registers(const Function& function) {
  std::set<std::string> found;
  for (const auto& ins : function.instructions) {
    for (const auto& operand : ins.operands) {
      if (operand.rfind("SR_", 0) == 0) found.insert(operand);
    }
  }
  return {found.begin(), found.end()};
}

RegisterUse registers_used(const Function& function) {
  std::set<int> r, ur, p, up;
  for (const auto& ins : function.instructions) {
    collect_registers(ins.predicate, r, ur, p, up);
    for (const auto& operand : ins.operands) collect_registers(operand, r, ur, p, up);
  }
  RegisterUse use;
  use.general.assign(r.begin(), r.end());
  use.uniform.assign(ur.begin(), ur.end());
  use.predicates.assign(p.begin(), p.end());
  use.uniform_predicates.assign(up.begin(), up.end());
  return use;
}

}  // namespace launchlab::sass
