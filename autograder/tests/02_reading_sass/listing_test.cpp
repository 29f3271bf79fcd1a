// Part A: parse_instruction, parse_cuobjdump_sass and parse_nvdisasm, on
// instructions written the way the listings print them and on the listings
// cuobjdump and nvdisasm made of the committed cubins (fixtures/README.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "listings.h"
#include "sass.h"

namespace {
namespace lt = launchlab::testing;
using namespace launchlab::sass;
using namespace launchlab::sass_tests;
using lt::Expected;

// What parse_instruction gives of an instruction's text.
struct Parts {
  std::string predicate;
  std::string opcode;
  std::vector<std::string> modifiers;
  std::vector<std::string> operands;
};

nlohmann::json record_value(const Parts& p) {
  return {{"predicate", p.predicate}, {"opcode", p.opcode}, {"modifiers", p.modifiers}, {"operands", p.operands}};
}

Parts parts_of(const Instruction& ins) { return {ins.predicate, ins.opcode, ins.modifiers, ins.operands}; }

struct Case {
  const char* text;
  Expected<Parts> parts;
};

void RecordCases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    RECORD_EQ(parts_of(parse_instruction(c.text)), c.parts) << "parse_instruction(\"" << c.text << "\")";
  }
}

std::string parse_of(const char* function, const std::string& text) {
  return std::string(function) + "(<the listing below>)\n" + lt::with_line_numbers(text);
}

TEST(Instruction, PredicateOpcodeModifiersOperands) {
  RecordCases({
      {"IMAD.WIDE R2, R5, 0x4, c[0x0][0x210] ;", LAUNCHLAB_EXPECTED(Parts{"", "IMAD", {"WIDE"}, {"R2", "R5", "0x4", "c[0x0][0x210]"}})},
      {"@!P0 IMAD.WIDE.U32 R2, R9, 0x4, R2", LAUNCHLAB_EXPECTED(Parts{"!P0", "IMAD", {"WIDE", "U32"}, {"R2", "R9", "0x4", "R2"}})},
      {"  @P0 EXIT ;  ", LAUNCHLAB_EXPECTED(Parts{"P0", "EXIT", {}, {}})},
      {"EXIT", LAUNCHLAB_EXPECTED(Parts{"", "EXIT", {}, {}})},
      {"S2R R0, SR_TID.X ;", LAUNCHLAB_EXPECTED(Parts{"", "S2R", {}, {"R0", "SR_TID.X"}})},
      {"S2UR UR4, SR_CTAID.X", LAUNCHLAB_EXPECTED(Parts{"", "S2UR", {}, {"UR4", "SR_CTAID.X"}})},
      {"ISETP.GE.U32.AND P0, PT, R9, UR5, PT ;",
       LAUNCHLAB_EXPECTED(Parts{"", "ISETP", {"GE", "U32", "AND"}, {"P0", "PT", "R9", "UR5", "PT"}})},
      {"@!UPT UIADD3 UR4, UR4, -0x1, URZ", LAUNCHLAB_EXPECTED(Parts{"!UPT", "UIADD3", {}, {"UR4", "UR4", "-0x1", "URZ"}})},
      {"FADD R7, -R2.reuse, |R5| ;", LAUNCHLAB_EXPECTED(Parts{"", "FADD", {}, {"R7", "-R2.reuse", "|R5|"}})},
      {"BRA `(.L_x_1) ;", LAUNCHLAB_EXPECTED(Parts{"", "BRA", {}, {"`(.L_x_1)"}})},
      {"BAR.SYNC.DEFER_BLOCKING 0x0 ;", LAUNCHLAB_EXPECTED(Parts{"", "BAR", {"SYNC", "DEFER_BLOCKING"}, {"0x0"}})},
  });
}

TEST(Instruction, OperandsKeepBracketsWhole) {
  RecordCases({
      {"LDG.E R2, desc[UR4][R2.64] ;", LAUNCHLAB_EXPECTED(Parts{"", "LDG", {"E"}, {"R2", "desc[UR4][R2.64]"}})},
      {"STG.E.128 desc[UR4][R6.64+0x10], R12", LAUNCHLAB_EXPECTED(Parts{"", "STG", {"E", "128"}, {"desc[UR4][R6.64+0x10]", "R12"}})},
      {"LDS R5, [R0+UR4+0x200] ;", LAUNCHLAB_EXPECTED(Parts{"", "LDS", {}, {"R5", "[R0+UR4+0x200]"}})},
      {"@P2 ATOMG.E.ADD.STRONG.GPU PT, R28, desc[UR4][R16.64], R5 ;",
       LAUNCHLAB_EXPECTED(Parts{"P2", "ATOMG", {"E", "ADD", "STRONG", "GPU"}, {"PT", "R28", "desc[UR4][R16.64]", "R5"}})},
      {"LDC.64 R2, c[0x0][0x380]", LAUNCHLAB_EXPECTED(Parts{"", "LDC", {"64"}, {"R2", "c[0x0][0x380]"}})},
      {"MOV R1, cx[UR4][0x10] ;", LAUNCHLAB_EXPECTED(Parts{"", "MOV", {}, {"R1", "cx[UR4][0x10]"}})},
      {"CALL.ABS.NOINC `(_Z3fooi) ;", LAUNCHLAB_EXPECTED(Parts{"", "CALL", {"ABS", "NOINC"}, {"`(_Z3fooi)"}})},
  });
}

TEST(Instruction, MalformedInputThrows) {
  struct Malformed {
    const char* text;
    Expected<std::string> names;
  };
  const std::vector<Malformed> cases = {
      {"", LAUNCHLAB_EXPECTED(std::string("mnemonic"))},
      {"@P0 ;", LAUNCHLAB_EXPECTED(std::string("mnemonic"))},
      {"FADD R1, , R2", LAUNCHLAB_EXPECTED(std::string("operand"))},
      {"LDG.E R2, desc[UR4][R2.64", LAUNCHLAB_EXPECTED(std::string("bracket"))},
      {"LDG.E R2, R3]", LAUNCHLAB_EXPECTED(std::string("bracket"))},
      // A bracket closes only with its own kind.
      {"LDG.E R2, [R2)", LAUNCHLAB_EXPECTED(std::string("bracket"))},
      {"LDG.E R2, (R3], R4", LAUNCHLAB_EXPECTED(std::string("bracket"))},
  };
  for (const auto& c : cases) {
    RECORD_SCOPE(std::string("parse_instruction(\"") + c.text + "\")");
    RECORD_THROWS(parse_instruction(c.text), std::runtime_error);
    const std::string message = lt::message_thrown<std::runtime_error>([&] { parse_instruction(c.text); });
    RECORD_CONTAINS(message, c.names) << "the exception's message says what is wrong";
  }
}

TEST(CuobjdumpSass, EveryInstructionOfTheFixtures) {
  std::vector<std::string> listings;
  for (const auto& stem : cubin_stems()) listings.push_back(stem + ".cubin");
  listings.push_back("vadd_exe");
  for (const auto& file : listings) {
    const std::string text = fixture(file + ".cuobjdump-sass.txt");
    RECORD_EQ(listed(parse_cuobjdump_sass(text)), truth_listed(truth_cuobjdump(text)))
        << "parse_cuobjdump_sass(the output of `cuobjdump -sass " << file
        << "`): every function's name, architecture and instructions, each at its address";
  }
}

TEST(CuobjdumpSass, FunctionsAndArchitectures) {
  for (const auto& stem : cubin_stems()) {
    RECORD_SCOPE("parse_cuobjdump_sass(the output of `cuobjdump -sass " + stem + ".cubin`)");
    auto functions = parse_cuobjdump_sass(fixture(stem + ".cubin.cuobjdump-sass.txt"));
    std::set<int> archs;
    for (const auto& f : functions) archs.insert(f.arch);
    RECORD_EQ(archs, std::set<int>{stem_arch(stem)}) << "the architectures of its functions";
    if (stem.rfind("vadd", 0) == 0) {
      std::vector<std::string> names;
      for (const auto& f : functions) names.push_back(f.name);
      RECORD_EQ(names, std::vector<std::string>{"_Z4vaddPKfS0_Pfi"}) << "its functions' names";
      const bool has_instructions = !functions.empty() && !functions[0].instructions.empty();
      RECORD_REQUIRE(has_instructions);
      RECORD_EQ(functions[0].instructions.front().address, 0u) << "the address of its first instruction";
    } else {
      RECORD_TRUE(find(functions, "plain_c") != nullptr) << "whether it has the extern \"C\" kernel plain_c";
      RECORD_TRUE(find(functions, "_Z5scaleIfEvPT_S0_l") != nullptr) << "whether it has scale<float>, _Z5scaleIfEvPT_S0_l";
    }
  }
  // An executable with code for sm_80 and sm_90: every function twice.
  auto functions = parse_cuobjdump_sass(fixture("vadd_exe.cuobjdump-sass.txt"));
  RECORD_TRUE(find(functions, "_Z4vaddPKfS0_Pfi", 80) != nullptr)
      << "parse_cuobjdump_sass(the output of `cuobjdump -sass vadd_exe`): whether it has vadd for sm_80";
  RECORD_TRUE(find(functions, "_Z4vaddPKfS0_Pfi", 90) != nullptr)
      << "parse_cuobjdump_sass(the output of `cuobjdump -sass vadd_exe`): whether it has vadd for sm_90";
}

TEST(CuobjdumpSass, MalformedListingThrows) {
  struct Malformed {
    std::string text;
    Expected<std::string> line;
  };
  const std::vector<Malformed> cases = {
      // An instruction before any function.
      {"\n\tcode for sm_90\n"
       "        /*0000*/                   LDC R1, c[0x0][0x28] ;          /* 0x00000a00ff017b82 */\n",
       LAUNCHLAB_EXPECTED(std::string("line 3"))},
      // An operand whose bracket does not close.
      {"\n\tcode for sm_90\n\t\tFunction : k\n"
       "\t.headerflags\t@\"EF_CUDA_SM90\"\n"
       "        /*0000*/                   LDC R1, c[0x0][0x28] ;          /* 0x00000a00ff017b82 */\n"
       "                                                                   /* 0x000fe40000000800 */\n"
       "        /*0010*/                   LDG.E R2, desc[UR4][R2.64 ;     /* 0x0000000402027981 */\n",
       LAUNCHLAB_EXPECTED(std::string("line 7"))},
  };
  for (const auto& c : cases) {
    RECORD_SCOPE(parse_of("parse_cuobjdump_sass", c.text));
    RECORD_THROWS(parse_cuobjdump_sass(c.text), std::runtime_error);
    const std::string message = lt::message_thrown<std::runtime_error>([&] { parse_cuobjdump_sass(c.text); });
    RECORD_CONTAINS(message, c.line) << "the exception's message names the line";
  }
}

TEST(Nvdisasm, EveryInstructionOfTheFixtures) {
  for (const auto& stem : cubin_stems()) {
    const std::string text = fixture(stem + ".cubin.nvdisasm.txt");
    RECORD_EQ(listed(parse_nvdisasm(text)), [&] {
      // The architecture is the one the cubin was built for.
      auto functions = truth_listed(truth_nvdisasm(text));
      for (auto& f : functions) {
        if (f.arch != stem_arch(stem)) f.arch = -1;  // a listing that disagrees with its cubin fails the reference
      }
      return functions;
    }()) << "parse_nvdisasm(the output of `nvdisasm " << stem
         << ".cubin`): every function's name, architecture and instructions, each at its address";
  }
}

// EIATTR_PARAM_CBANK as nvdisasm prints it in each `.nv.info.NAME`
// section, against what cuobjdump -elf prints for the same cubins: this
// lab's fixtures, and chapter 03's large-parameter cubins (03's
// fixtures/large_params/), whose base moves to 0x1a80 on sm_80 to sm_89.
TEST(Nvdisasm, ParamBanksMatchCuobjdumpElf) {
  auto record_banks = [](const std::string& cubin, const std::string& listing, [[maybe_unused]] const std::string& elf) {
    RECORD_EQ(nvdisasm_param_banks(listing), truth_param_banks(elf))
        << "nvdisasm_param_banks(the output of `nvdisasm " << cubin
        << "`): each kernel's base and size, as `cuobjdump -elf` prints its EIATTR_PARAM_CBANK";
  };
  for (const auto& stem : cubin_stems()) {
    record_banks(stem + ".cubin", fixture(stem + ".cubin.nvdisasm.txt"), fixture03(stem + ".cubin.cuobjdump-elf.txt"));
  }
  for (const auto& large : large_param_cubins()) {
    const std::string cubin = large.file();
    record_banks(cubin, fixture03(cubin + ".nvdisasm.txt"), fixture03(cubin + ".cuobjdump-elf.txt"));
  }
  RECORD_EQ(nvdisasm_param_banks(fixture("vadd.sm_90.cubin.cuobjdump-sass.txt")).size(), 0u)
      << "nvdisasm_param_banks(the output of `cuobjdump -sass vadd.sm_90.cubin`, which prints no .nv.info): how many";
}

TEST(Nvdisasm, MalformedParamCbankThrows) {
  const std::string head =
      "\t.section\t.nv.info.k,\"\",@\"SHT_CUDA_INFO\"\n"
      "\t//----- nvinfo : EIATTR_PARAM_CBANK\n"
      "        /*000c*/ \t.byte\t0x04, 0x0a\n"
      "        /*000e*/ \t.short\t(.L_1 - .L_0)\n"
      ".L_0:\n"
      "        /*0010*/ \t.word\tindex@(.nv.constant0.k)\n";
  struct Malformed {
    std::string what, text;
    Expected<std::string> line;
  };
  const std::vector<Malformed> cases = {
      {"a base and no size, then the text ends", head + "        /*0014*/ \t.short\t0x1a80\n",
       LAUNCHLAB_EXPECTED(std::string("line 7"))},
      {"a base and no size, then the next record",
       head + "        /*0014*/ \t.short\t0x1a80\n\t//----- nvinfo : EIATTR_CBANK_PARAM_SIZE\n",
       LAUNCHLAB_EXPECTED(std::string("line 8"))},
      {"a size that is not a hexadecimal number", head + "        /*0014*/ \t.short\t0x1a80\n        /*0016*/ \t.short\t28\n",
       LAUNCHLAB_EXPECTED(std::string("line 8"))},
  };
  for (const auto& c : cases) {
    RECORD_SCOPE("nvdisasm_param_banks(a listing whose EIATTR_PARAM_CBANK has " + c.what + ":\n" + c.text + ")");
    RECORD_THROWS(nvdisasm_param_banks(c.text), std::runtime_error);
    const std::string message = lt::message_thrown<std::runtime_error>([&] { nvdisasm_param_banks(c.text); });
    RECORD_CONTAINS(message, c.line) << "the exception's message names the line";
  }
}

TEST(Nvdisasm, DataInOtherSectionsIsNotCode) {
  // The shape of nvdisasm's output: .nv.info data lines carry address
  // comments too, and labels sit between instructions.
  const std::string listing =
      "\t.target\tsm_90\n"
      "\t.elftype\t@\"ET_EXEC\"\n\n\n"
      "//--------------------- .nv.info._Z1kPi         --------------------------\n"
      "\t.section\t.nv.info._Z1kPi,\"\",@\"SHT_CUDA_INFO\"\n"
      "\t.align\t4\n"
      "        /*0000*/ \t.byte\t0x04, 0x2f\n"
      "        /*0002*/ \t.short\t(.L_1 - .L_0)\n"
      "\t.align\t\t4\n"
      ".L_0:\n"
      "        /*0004*/ \t.word\tindex@(_Z1kPi)\n"
      "//--------------------- .text._Z1kPi            --------------------------\n"
      "\t.section\t.text._Z1kPi,\"ax\",@progbits\n"
      "\t.sectioninfo\t@\"SHI_REGISTERS=8\"\n"
      "\t.align\t128\n"
      "        .global         _Z1kPi\n"
      "_Z1kPi:\n"
      ".text._Z1kPi:\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
      "        /*0010*/                   S2R R0, SR_TID.X ;\n"
      "        /*0020*/                   ISETP.NE.AND P0, PT, R0, RZ, PT ;\n"
      "        /*0030*/              @P0 EXIT ;\n"
      ".L_x_0:\n"
      "        /*0040*/                   BRA `(.L_x_0);\n"
      ".L_x_1:\n";
  RECORD_EQ(listed(parse_nvdisasm(listing)),
            std::vector<ListedFunction>{{"_Z1kPi",
                                         90,
                                         {"/*0000*/ LDC R1, c[0x0][0x28]", "/*0010*/ S2R R0, SR_TID.X",
                                          "/*0020*/ ISETP.NE.AND P0, PT, R0, RZ, PT", "/*0030*/ @P0 EXIT",
                                          "/*0040*/ BRA `(.L_x_0)"}}})
      << parse_of("parse_nvdisasm", listing)
      << "its functions: only .text._Z1kPi is code, and only its instruction lines are instructions";
}

// An instruction of a .text. section that parse_instruction rejects stops the
// whole listing, and the message says on which line.
TEST(Nvdisasm, MalformedInstructionThrowsWithItsLine) {
  const std::string listing =
      "\t.target\tsm_90\n"
      "\t.section\t.text._Z1kPi,\"ax\",@progbits\n"
      "_Z1kPi:\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
      "        /*0010*/                   LDG.E R2, desc[UR4][R2.64) ;\n";
  RECORD_SCOPE(parse_of("parse_nvdisasm", listing));
  RECORD_THROWS(parse_nvdisasm(listing), std::runtime_error);
  const std::string message = lt::message_thrown<std::runtime_error>([&] { parse_nvdisasm(listing); });
  RECORD_CONTAINS(message, LAUNCHLAB_EXPECTED(std::string("line 5:"))) << "the exception's message names the line";
}

// Where the two parses of one cubin first disagree, in words; empty when the
// functions and instructions are the same. Branch targets are spelled
// differently (a label in nvdisasm, an address in cuobjdump), so the
// operands of an instruction with a label are not compared.
std::string first_disagreement(const std::vector<Function>& cuobjdump, const std::vector<Function>& nvdisasm) {
  if (cuobjdump.empty()) return "parse_cuobjdump_sass gave no functions";
  if (cuobjdump.size() != nvdisasm.size()) {
    return "parse_cuobjdump_sass gave " + std::to_string(cuobjdump.size()) + " functions, parse_nvdisasm " +
           std::to_string(nvdisasm.size());
  }
  for (const auto& fa : cuobjdump) {
    const Function* fb = find(nvdisasm, fa.name);
    if (!fb) return fa.name + " is a function of parse_cuobjdump_sass, not of parse_nvdisasm";
    if (fa.instructions.size() != fb->instructions.size()) {
      return fa.name + ": " + std::to_string(fa.instructions.size()) + " instructions from parse_cuobjdump_sass, " +
             std::to_string(fb->instructions.size()) + " from parse_nvdisasm";
    }
    for (std::size_t i = 0; i < fa.instructions.size(); ++i) {
      const Instruction& x = fa.instructions[i];
      const Instruction& y = fb->instructions[i];
      char where[96];
      std::snprintf(where, sizeof where, "instruction %zu (at 0x%04x from parse_cuobjdump_sass)", i, x.address);
      const std::string at = fa.name + ", " + where + ": ";
      if (x.address != y.address) return at + "parse_nvdisasm's is at a different address";
      bool label = false;
      for (const auto& operand : y.operands) label = label || operand.find('`') != std::string::npos;
      if (x.full_opcode() != y.full_opcode() || x.predicate != y.predicate || (!label && x.operands != y.operands)) {
        return at + "parse_cuobjdump_sass gives `" + render(x) + "`, parse_nvdisasm `" + render(y) + "`";
      }
    }
  }
  return "";
}

TEST(Nvdisasm, AgreesWithCuobjdump) {
  // Two tools, one cubin: the same functions and the same instructions at
  // the same addresses.
  for (const auto& stem : cubin_stems()) {
    const auto from_cuobjdump = parse_cuobjdump_sass(fixture(stem + ".cubin.cuobjdump-sass.txt"));
    const auto from_nvdisasm = parse_nvdisasm(fixture(stem + ".cubin.nvdisasm.txt"));
    RECORD_EQ(first_disagreement(from_cuobjdump, from_nvdisasm), "")
        << "parse_cuobjdump_sass(`cuobjdump -sass " << stem << ".cubin`) and parse_nvdisasm(`nvdisasm " << stem
        << ".cubin`): where they first disagree (nothing when they agree)";
  }
}

}  // namespace
