// Part A: reading cuobjdump -sass and nvdisasm listings.
//
//   nvcc -cubin -arch=sm_90 -o vadd.cubin vadd.cu
//   cuobjdump -sass vadd.cubin
//   nvdisasm vadd.cubin
#include <cctype>
#include <charconv>
#include <stdexcept>
#include <string>

#include "sass.h"

namespace launchlab::sass {
namespace {

// Two helpers you may use (or not).

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits text into lines, without their '\n' (and '\r').
[[maybe_unused]] std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

}  // namespace

std::string Instruction::full_opcode() const {
  std::string text = opcode;
  for (const auto& m : modifiers) text += "." + m;
  return text;
}

Instruction parse_instruction(std::string_view text) {
  Instruction ins;
  // TODO(student): drop a trailing ';'; take the guard ("@!P0" gives
  // predicate "!P0"); split the mnemonic at its dots into opcode and
  // modifiers; split the rest at the commas that are not inside [], () or {}
  // and trim each operand. Throw std::runtime_error for a missing mnemonic,
  // an empty operand or a bracket that does not match, saying which (sass.h
  // names the words).
  ins.opcode = std::string(trim(text));
  return ins;
}

std::vector<Function> parse_cuobjdump_sass(std::string_view text) {
  // TODO(student): walk the lines. "code for sm_NN" sets the architecture,
  // "Function : NAME" starts a function, "/*ADDR*/ INSTRUCTION ; /* 0x... */"
  // is an instruction (address in hexadecimal); a line with only the
  // encoding comment is the second half of the previous instruction.
  // Errors: std::runtime_error("line N: ...").
  (void)text;
  return {};
}

std::vector<Function> parse_nvdisasm(std::string_view text) {
  // TODO(student): the architecture is in ".target sm_NN" (or, from older
  // versions, in ".headerflags" as EF_CUDA_SMNN);
  // ".section .text.NAME,..." starts function NAME; instruction lines count
  // only inside a .text. section, and a "/*ADDR*/ .byte ..." line is data.
  (void)text;
  return {};
}

}  // namespace launchlab::sass
