// What the tests of 02_reading_sass share: the committed cubins and the
// listings cuobjdump and nvdisasm made of them (fixtures/README.md), fresh
// builds and listings where the tools exist, how the lab's values are
// recorded, and the truth about a listing worked out here with regular
// expressions over its lines, never from the learner's code. The truth
// exists only in the reference build (launchlab/record.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cubin_fixtures.h"
#include "launchlab/bytes.h"
#include "launchlab/record.h"
#include "sass.h"

namespace launchlab::sass {

// How the lab's values are recorded: by their fields, addresses in hex as
// the listings print them.
nlohmann::json record_value(const ConstantOperand& operand);
nlohmann::json record_value(const ParamRead& read);
nlohmann::json record_value(const MemoryCounts& counts);
nlohmann::json record_value(const RegisterUse& use);
nlohmann::json record_value(const ParamBank& bank);

}  // namespace launchlab::sass

namespace launchlab::sass_tests {
using cubin_fixtures::cubin_stems;
using cubin_fixtures::large_param_cubins;
using cubin_fixtures::stem_arch;

/// A committed fixture of this lab: labs/02_reading_sass/fixtures/<name>.
std::string fixture(std::string_view name);
/// A committed fixture of 03_binary_containers (the ELF view of the same cubins).
std::string fixture03(std::string_view name);

// Numbers in hex, as the listings print offsets: hex(0x210) is "0x210".
using launchlab::bytes::hex;

/// An Instruction written back as a listing writes it: "@!P0 IMAD.WIDE R2, R5, 0x4, R2".
std::string render(const sass::Instruction& ins);

/// A function of a listing as a record shows it: each instruction is its
/// address and its text, "/*0040*/ @!P0 IMAD.WIDE R2, R5, 0x4, R2".
struct ListedFunction {
  std::string name;
  int arch = 0;
  std::vector<std::string> instructions;
};
nlohmann::json record_value(const ListedFunction& function);
/// What the learner's parser read, as a record shows it.
std::vector<ListedFunction> listed(const std::vector<sass::Function>& functions);

/// A fresh build of kernels/<source> for one architecture, with its listings
/// (empty when the tool is not installed).
struct LiveBuild {
  std::filesystem::path cubin;
  std::string cuobjdump_sass;
  std::string cuobjdump_elf;
  std::string nvdisasm;
};
/// The sources under kernels/ that are built fresh, and the architectures each is built for.
inline constexpr const char* kLiveSources[] = {"vadd.cu", "zoo.cu"};
inline constexpr int kLiveArchs[] = {80, 90, 120};
/// Built on first use and kept for the test program: nvcc -cubin -arch=sm_NN.
/// The first call makes every build of kLiveSources and kLiveArchs, side by side.
const LiveBuild& live(const std::string& source, int arch);

/// The learner's function with this name, or nullptr.
const sass::Function* find(const std::vector<sass::Function>& functions, const std::string& name, int arch = 0);

#ifndef LAUNCHLAB_EXERCISE
/// One instruction line of a listing, as the regular expressions see it.
struct TruthInstruction {
  std::string function;
  int arch = 0;
  std::uint32_t address = 0;
  std::string text;  ///< between the address comment and ';', blanks collapsed to one space
  int function_index = 0;  ///< which function of the listing, counting from 0 (a name can come twice)
};
/// The instruction lines of `cuobjdump -sass` output: /*ADDR*/ TEXT ; /* 0x... */
std::vector<TruthInstruction> truth_cuobjdump(std::string_view listing);
/// The instruction lines of `nvdisasm` output inside .text. sections.
std::vector<TruthInstruction> truth_nvdisasm(std::string_view listing);
/// The function names of a listing, in order.
std::vector<std::string> truth_functions(const std::vector<TruthInstruction>& lines);
/// The listing's functions as a record shows them (see listed()).
std::vector<ListedFunction> truth_listed(const std::vector<TruthInstruction>& lines);

/// The mnemonic with modifiers of an instruction's text ("IMAD.WIDE"), and
/// the mnemonic alone ("IMAD").
std::string truth_opcode(const std::string& text);
std::string truth_mnemonic(const std::string& text);
/// The instruction lines of one function.
std::vector<TruthInstruction> of_function(const std::vector<TruthInstruction>& all, const std::string& name);
/// Every c[0x0][X] operand of each line, in order, that falls in one of
/// the parameters (X - base inside [offset, offset + size)); a printed
/// c[0x0][-0xN] is X = 0x10000 - N.
std::vector<sass::ParamRead> truth_reads(const std::vector<TruthInstruction>& lines, std::uint32_t base,
                                         const std::vector<sass::ParamSlot>& params);

/// EIATTR_PARAM_CBANK of each kernel that has one, from `cuobjdump -elf`
/// output ("Value: 0x16 0x7ffc0210": the size above the base).
std::map<std::string, sass::ParamBank> truth_param_banks(std::string_view cuobjdump_elf);

/// The registers `cuobjdump -res-usage` reports, by function name.
std::map<std::string, int> truth_res_usage(std::string_view res_usage);
#endif  // LAUNCHLAB_EXERCISE

/// What cuobjdump -elf says about one kernel's parameters: EIATTR_PARAM_CBANK
/// and the EIATTR_KPARAM_INFO records (by ordinal). These are the inputs
/// param_reads() takes.
struct ElfLayout {
  std::uint32_t param_base = 0;
  std::uint32_t param_size = 0;
  std::vector<sass::ParamSlot> params;
};
/// Kernel name -> its layout, from `cuobjdump -elf` output.
std::map<std::string, ElfLayout> elf_layouts(std::string_view cuobjdump_elf);

}  // namespace launchlab::sass_tests
