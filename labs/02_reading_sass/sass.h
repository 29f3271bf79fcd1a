/// @file
/// Reading SASS: the listings `cuobjdump -sass` and `nvdisasm` print for a
/// cubin, and what they say about a kernel: which instructions read which
/// parameter from constant bank 0, how many global loads and stores it makes,
/// which special registers it reads and which registers it names.
///
/// Every function here takes text or parsed values and returns plain values;
/// none of them runs a tool. Malformed text makes them throw
/// std::runtime_error with a message that names the line ("line 12: ..."),
/// never crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::sass {

// ---------------------------------------------------------------------------
// Part A: the listings
// ---------------------------------------------------------------------------

/// One SASS instruction as a listing prints it:
///
///     /*0040*/   @!P0 IMAD.WIDE R2, R5, 0x4, c[0x0][0x210] ;
///
/// gives address 0x40, predicate "!P0", opcode "IMAD", modifiers {"WIDE"},
/// operands {"R2", "R5", "0x4", "c[0x0][0x210]"}.
struct Instruction {
  /// The byte offset of the instruction in its function: the hexadecimal
  /// number between `/*` and `*/` at the start of the line.
  std::uint32_t address = 0;
  /// The guard without its `@`: "P0", "!P0", "UP1", "!PT"; empty when the
  /// instruction has none.
  std::string predicate;
  /// The mnemonic without modifiers: "IMAD", "LDG", "EXIT".
  std::string opcode;
  /// The dot-separated words after the mnemonic, in order: `LDG.E.128` gives
  /// {"E", "128"}, `ISETP.GE.U32.AND` gives {"GE", "U32", "AND"}.
  std::vector<std::string> modifiers;
  /// The operands, split at the commas that are outside brackets, each
  /// trimmed and otherwise exactly as printed: "R2", "R5.reuse", "-R3",
  /// "|R4|", "!PT", "c[0x0][0x210]", "desc[UR4][R2.64]", "[R2.64+0x4]",
  /// "SR_TID.X", "0x3f800000", "`(.L_x_1)". An instruction without operands
  /// (`EXIT ;`) has none.
  std::vector<std::string> operands;

  /// The mnemonic with its modifiers, as printed: "IMAD.WIDE".
  std::string full_opcode() const;
};

/// A function of a listing: a kernel (or a device function) and its code.
struct Function {
  std::string name;  ///< the symbol, mangled as in the cubin: "_Z4vaddPKfS0_Pfi"
  int arch = 0;      ///< the SM architecture the code is for: 90 for sm_90 (and for sm_90a)
  std::vector<Instruction> instructions;  ///< in address order, as listed
};

/// Reads one instruction from the text between the address comment and the
/// `;` that ends it, e.g. `@P0 EXIT` or `LDG.E R2, desc[UR4][R2.64]`
/// (leading and trailing blanks, and a trailing `;`, are allowed).
/// Throws std::runtime_error, whose message names what is wrong with the
/// word "mnemonic", "bracket" or "operand": when there is no mnemonic (an
/// empty text, `@P0 ;`), when a bracket does not close or closes one that
/// never opened (`desc[UR4][R2.64`, `R3]`), when a bracket is closed by
/// another kind (`[R2)`, `(R3]`: `[` closes only with `]`, `(` with `)`,
/// `{` with `}`), or when an operand is empty (`R1, , R2`).
Instruction parse_instruction(std::string_view text);

/// Reads the output of `cuobjdump -sass FILE`, FILE being a cubin, an
/// object, an executable or a library. Each `Function : NAME` line starts a
/// function; its architecture is the one of the `code for sm_NN` line above
/// it. Each instruction line is `/*ADDR*/ INSTRUCTION ; /* 0xENCODING */`,
/// possibly followed by a line holding only `/* 0xENCODING */` (the second
/// half of a 128-bit instruction), which is not an instruction. Every other
/// line (the fatbin's headers, `.headerflags`, the `....` line that ends a
/// function) is skipped. Functions come in the order of the listing.
/// Throws std::runtime_error("line N: ...") for an instruction line before
/// any `Function :` line, or one that parse_instruction rejects.
std::vector<Function> parse_cuobjdump_sass(std::string_view text);

/// Reads the output of `nvdisasm FILE.cubin` (without options). Each
/// function is a section whose name starts with `.text.`:
/// `.section .text.NAME,"ax",@progbits` starts function NAME. Its
/// architecture comes from the `.target sm_90` line at the top (older
/// versions print `.headerflags @"... EF_CUDA_SM90 ..."` instead, which
/// gives 90 too). Inside a `.text.` section, a line
/// `/*ADDR*/ INSTRUCTION ;` is an instruction; labels (`.L_x_0:`, `NAME:`),
/// directives (`.align 128`) and comments are not. Lines in other sections
/// (`.nv.info`'s `/*0000*/ .byte 0x04, 0x2f`) are data, not instructions.
/// Throws std::runtime_error("line N: ...") when an instruction inside a
/// `.text.` section does not parse.
std::vector<Function> parse_nvdisasm(std::string_view text);

/// Where a kernel's parameters sit in constant bank 0, as its cubin's
/// EIATTR_PARAM_CBANK record says.
struct ParamBank {
  std::uint32_t base = 0;  ///< the bank offset of the first parameter's first byte
  std::uint32_t size = 0;  ///< the bytes all its parameters take
  bool operator==(const ParamBank&) const = default;
};

/// The EIATTR_PARAM_CBANK record of each kernel of an nvdisasm listing, by
/// kernel name. nvdisasm prints the cubin's `.nv.info.NAME` sections as
/// data (the lines parse_nvdisasm skips), each record after a comment that
/// names its attribute:
///
///     	//----- nvinfo : EIATTR_PARAM_CBANK
///     	.align		4
///             /*000c*/ 	.byte	0x04, 0x0a
///             /*000e*/ 	.short	(.L_40 - .L_39)
///     	.align		4
///     .L_39:
///             /*0010*/ 	.word	index@(.nv.constant0.read_at_the_end)
///             /*0014*/ 	.short	0x1a80
///             /*0016*/ 	.short	0x7ffc
///
/// In the section `.nv.info.read_at_the_end`, that gives read_at_the_end
/// {0x1a80, 0x7ffc}: the first `.short` after the `.word` is the base, the
/// next one the size. This base is the kernel's own, which param_base(arch)
/// cannot know: past 4,352 bytes of parameters nvcc 13.0 moves it to 0x1a80
/// on sm_75 to sm_89. A kernel without the record is not in the result, nor
/// is any kernel of a `cuobjdump -sass` listing, which prints no `.nv.info`
/// (an empty map). Throws std::runtime_error("line N: ...") when the
/// record's base or size is not a hexadecimal number (`0x...`), or when
/// another record, another section or the end of the text comes before
/// both.
std::map<std::string, ParamBank> nvdisasm_param_banks(std::string_view text);

// ---------------------------------------------------------------------------
// Part B: what the code does
// ---------------------------------------------------------------------------

/// A constant-bank operand `c[0xB][0xOFF]`: bank B, byte offset OFF.
struct ConstantOperand {
  unsigned bank = 0;
  std::uint32_t offset = 0;
  bool operator==(const ConstantOperand&) const = default;
};

/// The constant-bank location an operand names: "c[0x0][0x210]" gives
/// {0, 0x210}; a sign or absolute value around it ("-c[0x0][0x8]",
/// "|c[0x3][0x10]|") is allowed. The listings print the bank offset, a
/// 16-bit field, as a signed number: an offset of 0x8000 or more (read
/// near the end of a large parameter list, see the chapter) comes out
/// negative, and `c[0x0][-0xN]` names the unsigned offset 0x10000 - N, for
/// N from 0x1 to 0x8000: "c[0x0][-0x6588]" gives {0, 0x9a78},
/// "c[0x0][-0x7ff8]" gives {0, 0x8008}. An offset of RZ, the register that
/// always reads zero, is offset 0: "c[0x0][RZ]" gives {0, 0} (how sm_100
/// listings read blockDim.x, see the chapter). Nothing for any other
/// operand, including a bank indexed by a register (`cx[UR4][0x0]`), an
/// offset that is any other register (`c[0x0][R2]`), whose value only the
/// running code knows, and a negative offset outside that range
/// (`c[0x0][-0x0]`, `c[0x0][-0x8001]`).
std::optional<ConstantOperand> constant_operand(std::string_view operand);

/// Where the parameters start in constant bank 0 on an architecture, in
/// bytes, for a kernel with at most 4,352 bytes of parameters (a kernel's
/// own base is in its EIATTR_PARAM_CBANK: nvdisasm_param_banks): 0x160 for
/// sm_80, sm_86 and sm_89 (and every architecture from sm_75 up to sm_89),
/// 0x210 for sm_90, 0x380 for sm_100 and sm_120 (and every architecture from
/// sm_100 on). A kernel with more has them at 0x1a80 from sm_75 to sm_89
/// (nvcc 13.0); its cubin's EIATTR_PARAM_CBANK gives each kernel's own base.
/// Throws std::invalid_argument for an architecture before sm_75.
std::uint32_t param_base(int arch);

/// A parameter's place in the parameter buffer (from the PTX, the host stub
/// or the cubin's EIATTR_KPARAM_INFO): its offset and size in bytes.
struct ParamSlot {
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
};

/// One read of a parameter by an instruction.
struct ParamRead {
  std::uint32_t address = 0;    ///< the instruction's address
  std::string opcode;           ///< the instruction's mnemonic with modifiers: "LDC.64"
  std::size_t param = 0;        ///< the parameter's index in the list given
  std::uint32_t offset_in_param = 0;  ///< the byte offset inside that parameter (4 for the upper half of a double)
  bool operator==(const ParamRead&) const = default;
};

/// Every read of a parameter in a function: each operand c[0x0][X] of an
/// instruction, in listing order, with base <= X < base + (offset + size
/// of the last parameter), that falls inside a parameter's bytes [offset,
/// offset + size) (base = the given base, usually param_base(arch)). An
/// instruction with two such operands gives two reads, in operand order.
/// An offset that falls in the padding between two parameters gives none.
std::vector<ParamRead> param_reads(const Function& function, std::uint32_t base,
                                   std::span<const ParamSlot> params);

/// How many memory instructions of each kind a function has, counted by
/// mnemonic.
struct MemoryCounts {
  std::size_t global_loads = 0;    ///< LDG
  std::size_t global_stores = 0;   ///< STG
  std::size_t global_atomics = 0;  ///< ATOMG, RED and REDG
  std::size_t shared_loads = 0;    ///< LDS
  std::size_t shared_stores = 0;   ///< STS
  std::size_t local_loads = 0;     ///< LDL
  std::size_t local_stores = 0;    ///< STL
  std::size_t constant_loads = 0;  ///< LDC, ULDC and LDCU
  bool operator==(const MemoryCounts&) const = default;
};

/// Counts the memory instructions of a function (a predicated one counts too).
MemoryCounts count_memory(const Function& function);

/// The special registers a function reads: every operand that starts with
/// `SR_` ("SR_TID.X", "SR_CTAID.X", "SR_LANEID", "SR_CLOCKLO"), whatever the
/// instruction (S2R, S2UR, CS2R), sorted and without repeats.
std::vector<std::string> special_registers(const Function& function);

/// The registers a function names, each list sorted by number and without
/// repeats.
struct RegisterUse {
  std::vector<int> general;     ///< R0..R254 (RZ is not a register here)
  std::vector<int> uniform;     ///< UR0..UR62 (URZ is not)
  std::vector<int> predicates;  ///< P0..P6 (PT is not)
  std::vector<int> uniform_predicates;  ///< UP0..UP6 (UPT is not)
  bool operator==(const RegisterUse&) const = default;
};

/// Every register named in the function's operands and predicates, also
/// inside brackets (`desc[UR4][R2.64]` names UR4 and R2) and with
/// modifiers (`R5.reuse`, `-R3`, `!P0`, `R2.64` all name the register).
/// A register pair or quad written once (`R2.64`, the destination of
/// `LDG.E.128 R8`) counts only the register written.
RegisterUse registers_used(const Function& function);

}  // namespace launchlab::sass
