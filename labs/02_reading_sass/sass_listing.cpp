// Part A: reading cuobjdump -sass and nvdisasm listings.
//
//   nvcc -cubin -arch=sm_90 -o vadd.cubin vadd.cu
//   cuobjdump -sass vadd.cubin
//   nvdisasm vadd.cubin
#include <cctype>
#include <charconv>
#include <stdexcept>
#include <string>

#include "listing_text.h"
#include "sass.h"

namespace launchlab::sass {

// Given in listing_text.h: trim(s) and lines_of(text), which you may use
// (or not).
using detail::lines_of;
using detail::trim;

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

std::map<std::string, ParamBank> nvdisasm_param_banks(std::string_view text) {
  // TODO(student): track the section (".section .nv.info.NAME,..." is
  // kernel NAME's); after "//----- nvinfo : EIATTR_PARAM_CBANK", the first
  // ".short" after the ".word" is the base and the next one the size.
  // Errors: std::runtime_error("line N: ...").
  (void)text;
  return {};
}

}  // namespace launchlab::sass
