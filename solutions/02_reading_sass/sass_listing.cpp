// Part A: reading cuobjdump -sass and nvdisasm listings.
//
//   nvcc -cubin -arch=sm_90 -o vadd.cubin vadd.cu
//   cuobjdump -sass vadd.cubin
//   nvdisasm vadd.cubin
#include <cctype>
#include <algorithm>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <string>

#include "listing_text.h"
#include "sass.h"

namespace launchlab::sass {

using detail::lines_of;
using detail::trim;

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

[[noreturn]] void fail_line(std::size_t line, const std::string& what) {
  throw std::runtime_error("line " + std::to_string(line) + ": " + what);
}

// "/*0a40*/ rest" gives 0xa40 and rest; nothing when the line does not start
// with an address comment of hexadecimal digits.
bool split_address(std::string_view line, std::uint32_t& address, std::string_view& rest) {
  line = trim(line);
  if (!starts_with(line, "/*")) return false;
  std::size_t end = line.find("*/");
  if (end == std::string_view::npos || end == 2) return false;
  std::string_view digits = line.substr(2, end - 2);
  for (char c : digits) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  if (digits.size() > 8) return false;
  std::from_chars(digits.data(), digits.data() + digits.size(), address, 16);
  rest = line.substr(end + 2);
  return true;
}

// The architecture number in "sm_90", "sm_90a", "SM90": the digits after the prefix.
int arch_after(std::string_view text, std::string_view prefix) {
  std::size_t at = text.find(prefix);
  if (at == std::string_view::npos) return 0;
  int value = 0;
  const char* begin = text.data() + at + prefix.size();
  auto result = std::from_chars(begin, text.data() + text.size(), value);
  return result.ptr == begin ? 0 : value;
}

// The name a ".section NAME,..." line opens; nothing for any other line.
std::optional<std::string_view> section_name(std::string_view t) {
  if (!starts_with(t, ".section") || t.size() <= 8 || !std::isspace(static_cast<unsigned char>(t[8])))
    return std::nullopt;
  std::string_view name = trim(t.substr(8));
  return name.substr(0, name.find(','));
}

}  // namespace

std::string Instruction::full_opcode() const {
  std::string text = opcode;
  for (const auto& m : modifiers) text += "." + m;
  return text;
}

Instruction parse_instruction(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.back() == ';') text = trim(text.substr(0, text.size() - 1));
  Instruction ins;
  if (!text.empty() && text.front() == '@') {
    std::size_t end = 1;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    ins.predicate = std::string(text.substr(1, end - 1));
    if (ins.predicate.empty()) throw std::runtime_error("a predicate '@' without a register");
    text = trim(text.substr(end));
  }
  std::size_t end = 0;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
  std::string_view mnemonic = text.substr(0, end);
  if (mnemonic.empty()) throw std::runtime_error("no mnemonic in '" + std::string(text) + "'");
  if (!std::isalpha(static_cast<unsigned char>(mnemonic.front())))
    throw std::runtime_error("'" + std::string(mnemonic) + "' is not a mnemonic");
  std::size_t dot = mnemonic.find('.');
  ins.opcode = std::string(mnemonic.substr(0, dot));
  while (dot != std::string_view::npos) {
    std::size_t next = mnemonic.find('.', dot + 1);
    std::string_view modifier = mnemonic.substr(dot + 1, next == std::string_view::npos ? next : next - dot - 1);
    if (modifier.empty()) throw std::runtime_error("an empty modifier in '" + std::string(mnemonic) + "'");
    ins.modifiers.emplace_back(modifier);
    dot = next;
  }

  std::string_view rest = trim(text.substr(end));
  if (rest.empty()) return ins;
  // The closers still owed, innermost last: a bracket closes only with its own kind.
  std::string owed;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= rest.size(); ++i) {
    char c = i < rest.size() ? rest[i] : ',';
    if (c == '[') owed.push_back(']');
    if (c == '(') owed.push_back(')');
    if (c == '{') owed.push_back('}');
    if (c == ']' || c == ')' || c == '}') {
      if (owed.empty() || owed.back() != c) {
        throw std::runtime_error("a bracket closes that never opened in '" + std::string(rest) + "'");
      }
      owed.pop_back();
    }
    if (c == ',' && owed.empty()) {
      std::string_view operand = trim(rest.substr(start, i - start));
      if (operand.empty()) throw std::runtime_error("an empty operand in '" + std::string(rest) + "'");
      ins.operands.emplace_back(operand);
      start = i + 1;
    }
  }
  if (!owed.empty()) throw std::runtime_error("a bracket does not close in '" + std::string(rest) + "'");
  return ins;
}

namespace {

// Both listings write an instruction as "/*addr*/ text ;" followed by whatever
// the tool adds after the ';' (cuobjdump: the encoding comment); it belongs to
// the last function opened.
void append_instruction(std::vector<Function>& functions, std::size_t number, std::uint32_t address,
                        std::string_view rest) {
  std::size_t semicolon = rest.find(';');
  if (semicolon == std::string_view::npos) fail_line(number, "an instruction without ';'");
  if (functions.empty()) fail_line(number, "an instruction before any 'Function :' line");
  try {
    Instruction ins = parse_instruction(rest.substr(0, semicolon));
    ins.address = address;
    functions.back().instructions.push_back(std::move(ins));
  } catch (const std::runtime_error& e) {
    fail_line(number, e.what());
  }
}

}  // namespace

std::vector<Function> parse_cuobjdump_sass(std::string_view text) {
  std::vector<Function> functions;
  int arch = 0;
  std::size_t number = 0;
  for (std::string_view line : lines_of(text)) {
    ++number;
    std::string_view t = trim(line);
    if (starts_with(t, "code for sm_")) {
      arch = arch_after(t, "sm_");
      continue;
    }
    if (starts_with(t, "Function :")) {
      functions.push_back({std::string(trim(t.substr(10))), arch, {}});
      continue;
    }
    std::uint32_t address = 0;
    std::string_view rest;
    if (!split_address(t, address, rest)) continue;
    append_instruction(functions, number, address, rest);
  }
  return functions;
}

std::vector<Function> parse_nvdisasm(std::string_view text) {
  std::vector<Function> functions;
  int arch = 0;
  bool in_text = false;
  std::size_t number = 0;
  for (std::string_view line : lines_of(text)) {
    ++number;
    std::string_view t = trim(line);
    if (starts_with(t, ".target")) {
      if (int a = arch_after(t, "sm_")) arch = a;
      continue;
    }
    if (starts_with(t, ".headerflags")) {  // older nvdisasm: the ELF flags' names
      if (int a = arch_after(t, "EF_CUDA_SM")) arch = a;
      continue;
    }
    if (auto name = section_name(t)) {
      in_text = starts_with(*name, ".text.");
      if (in_text) functions.push_back({std::string(name->substr(6)), arch, {}});
      continue;
    }
    if (!in_text) continue;
    std::uint32_t address = 0;
    std::string_view rest;
    if (!split_address(t, address, rest)) continue;
    rest = trim(rest);
    if (starts_with(rest, ".")) continue;  // data in a code section (.byte, .word)
    append_instruction(functions, number, address, rest);
  }
  return functions;
}

std::map<std::string, ParamBank> nvdisasm_param_banks(std::string_view text) {
  constexpr std::string_view kInfoPrefix = ".nv.info.", kRecordComment = "//----- nvinfo :";
  std::map<std::string, ParamBank> banks;
  std::string kernel;        // the kernel whose .nv.info section this is, or none
  bool in_record = false;    // inside kernel's EIATTR_PARAM_CBANK record
  bool after_word = false;   // its symbol's .word is behind us
  std::vector<std::uint32_t> numbers;  // its base, then its size
  std::size_t number = 0;
  auto unfinished = [&] {
    if (in_record) fail_line(number, "EIATTR_PARAM_CBANK of " + kernel + " ends before its base and size");
  };
  for (std::string_view line : lines_of(text)) {
    ++number;
    std::string_view t = trim(line);
    if (auto name = section_name(t)) {
      unfinished();
      kernel = starts_with(*name, kInfoPrefix) ? std::string(name->substr(kInfoPrefix.size())) : "";
      continue;
    }
    if (starts_with(t, kRecordComment)) {
      unfinished();
      in_record = !kernel.empty() && trim(t.substr(kRecordComment.size())) == "EIATTR_PARAM_CBANK";
      after_word = false;
      numbers.clear();
      continue;
    }
    std::uint32_t address = 0;
    std::string_view data;
    if (!in_record || !split_address(t, address, data)) continue;
    data = trim(data);
    if (starts_with(data, ".word")) after_word = true;
    if (!after_word || !starts_with(data, ".short")) continue;
    std::string_view value = trim(data.substr(6));
    std::uint32_t parsed = 0;
    auto result = std::from_chars(value.data() + std::min<std::size_t>(2, value.size()), value.data() + value.size(), parsed, 16);
    if (!starts_with(value, "0x") || result.ec != std::errc() || result.ptr != value.data() + value.size())
      fail_line(number, "EIATTR_PARAM_CBANK of " + kernel + ": \"" + std::string(value) + "\" is not a hexadecimal number");
    numbers.push_back(parsed);
    if (numbers.size() == 2) {
      banks[kernel] = {numbers[0], numbers[1]};
      in_record = false;
    }
  }
  unfinished();
  return banks;
}

}  // namespace launchlab::sass
