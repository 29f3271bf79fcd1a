// Part A: parse_instruction, parse_cuobjdump_sass and parse_nvdisasm, on
// instructions written the way the listings print them and on the listings
// cuobjdump and nvdisasm made of the committed cubins (fixtures/README.md).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "launchlab/testing.h"
#include "listings.h"
#include "sass.h"

namespace {
namespace lt = launchlab::testing;
using namespace launchlab::sass;
using namespace launchlab::sass_tests;

struct Case {
  const char* text;
  const char* predicate;
  const char* opcode;
  std::vector<std::string> modifiers;
  std::vector<std::string> operands;
};

void expect_case(const Case& c) {
  SCOPED_TRACE(c.text);
  Instruction ins = parse_instruction(c.text);
  EXPECT_EQ(ins.predicate, c.predicate);
  EXPECT_EQ(ins.opcode, c.opcode);
  EXPECT_TRUE(lt::SameSequence(c.modifiers, ins.modifiers)) << "modifiers";
  EXPECT_TRUE(lt::SameSequence(c.operands, ins.operands)) << "operands";
}

template <class F>
::testing::AssertionResult throws_naming(F&& f, const std::string& part) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    if (what.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "the message should contain \"" << part << "\", it says: " << what;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "expected std::runtime_error, got another exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "expected std::runtime_error, nothing was thrown";
}

void expect_same_as_truth(const std::vector<Function>& functions, const std::vector<TruthInstruction>& truth,
                          const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(same_as_truth(functions, truth));
}

TEST(Instruction, PredicateOpcodeModifiersOperands) {
  const std::vector<Case> cases = {
      {"IMAD.WIDE R2, R5, 0x4, c[0x0][0x210] ;", "", "IMAD", {"WIDE"}, {"R2", "R5", "0x4", "c[0x0][0x210]"}},
      {"@!P0 IMAD.WIDE.U32 R2, R9, 0x4, R2", "!P0", "IMAD", {"WIDE", "U32"}, {"R2", "R9", "0x4", "R2"}},
      {"  @P0 EXIT ;  ", "P0", "EXIT", {}, {}},
      {"EXIT", "", "EXIT", {}, {}},
      {"S2R R0, SR_TID.X ;", "", "S2R", {}, {"R0", "SR_TID.X"}},
      {"S2UR UR4, SR_CTAID.X", "", "S2UR", {}, {"UR4", "SR_CTAID.X"}},
      {"ISETP.GE.U32.AND P0, PT, R9, UR5, PT ;", "", "ISETP", {"GE", "U32", "AND"}, {"P0", "PT", "R9", "UR5", "PT"}},
      {"@!UPT UIADD3 UR4, UR4, -0x1, URZ", "!UPT", "UIADD3", {}, {"UR4", "UR4", "-0x1", "URZ"}},
      {"FADD R7, -R2.reuse, |R5| ;", "", "FADD", {}, {"R7", "-R2.reuse", "|R5|"}},
      {"BRA `(.L_x_1) ;", "", "BRA", {}, {"`(.L_x_1)"}},
      {"BAR.SYNC.DEFER_BLOCKING 0x0 ;", "", "BAR", {"SYNC", "DEFER_BLOCKING"}, {"0x0"}},
  };
  for (const auto& c : cases) expect_case(c);
}

TEST(Instruction, OperandsKeepBracketsWhole) {
  const std::vector<Case> cases = {
      {"LDG.E R2, desc[UR4][R2.64] ;", "", "LDG", {"E"}, {"R2", "desc[UR4][R2.64]"}},
      {"STG.E.128 desc[UR4][R6.64+0x10], R12", "", "STG", {"E", "128"}, {"desc[UR4][R6.64+0x10]", "R12"}},
      {"LDS R5, [R0+UR4+0x200] ;", "", "LDS", {}, {"R5", "[R0+UR4+0x200]"}},
      {"@P2 ATOMG.E.ADD.STRONG.GPU PT, R28, desc[UR4][R16.64], R5 ;", "P2", "ATOMG", {"E", "ADD", "STRONG", "GPU"},
       {"PT", "R28", "desc[UR4][R16.64]", "R5"}},
      {"LDC.64 R2, c[0x0][0x380]", "", "LDC", {"64"}, {"R2", "c[0x0][0x380]"}},
      {"MOV R1, cx[UR4][0x10] ;", "", "MOV", {}, {"R1", "cx[UR4][0x10]"}},
      {"CALL.ABS.NOINC `(_Z3fooi) ;", "", "CALL", {"ABS", "NOINC"}, {"`(_Z3fooi)"}},
  };
  for (const auto& c : cases) expect_case(c);
}

TEST(Instruction, MalformedInputThrows) {
  EXPECT_TRUE(throws_naming([] { parse_instruction(""); }, "mnemonic"));
  EXPECT_TRUE(throws_naming([] { parse_instruction("@P0 ;"); }, "mnemonic"));
  EXPECT_TRUE(throws_naming([] { parse_instruction("FADD R1, , R2"); }, "operand"));
  EXPECT_TRUE(throws_naming([] { parse_instruction("LDG.E R2, desc[UR4][R2.64"); }, "bracket"));
  EXPECT_TRUE(throws_naming([] { parse_instruction("LDG.E R2, R3]"); }, "bracket"));
}

TEST(CuobjdumpSass, EveryInstructionOfTheFixtures) {
  for (const auto& stem : cubin_stems()) {
    std::string text = fixture(stem + ".cubin.cuobjdump-sass.txt");
    expect_same_as_truth(parse_cuobjdump_sass(text), truth_cuobjdump(text), stem + " (cuobjdump -sass)");
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::string text = fixture("vadd_exe.cuobjdump-sass.txt");
  expect_same_as_truth(parse_cuobjdump_sass(text), truth_cuobjdump(text), "vadd_exe (cuobjdump -sass)");
}

TEST(CuobjdumpSass, FunctionsAndArchitectures) {
  for (const auto& stem : cubin_stems()) {
    SCOPED_TRACE(stem);
    auto functions = parse_cuobjdump_sass(fixture(stem + ".cubin.cuobjdump-sass.txt"));
    ASSERT_FALSE(functions.empty());
    for (const auto& f : functions) EXPECT_EQ(f.arch, stem_arch(stem)) << f.name;
    if (stem.rfind("vadd", 0) == 0) {
      ASSERT_EQ(functions.size(), 1u);
      EXPECT_EQ(functions[0].name, "_Z4vaddPKfS0_Pfi");
      ASSERT_FALSE(functions[0].instructions.empty());
      EXPECT_EQ(functions[0].instructions.front().address, 0u);
    } else {
      EXPECT_NE(find(functions, "plain_c"), nullptr) << "the extern \"C\" kernel";
      EXPECT_NE(find(functions, "_Z5scaleIfEvPT_S0_l"), nullptr) << "scale<float>";
    }
  }
  // An executable with code for sm_80 and sm_90: every function twice.
  auto functions = parse_cuobjdump_sass(fixture("vadd_exe.cuobjdump-sass.txt"));
  EXPECT_NE(find(functions, "_Z4vaddPKfS0_Pfi", 80), nullptr) << "vadd for sm_80 in vadd_exe";
  EXPECT_NE(find(functions, "_Z4vaddPKfS0_Pfi", 90), nullptr) << "vadd for sm_90 in vadd_exe";
}

TEST(CuobjdumpSass, MalformedListingThrows) {
  const std::string before_function =
      "\n\tcode for sm_90\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;          /* 0x00000a00ff017b82 */\n";
  EXPECT_TRUE(throws_naming([&] { parse_cuobjdump_sass(before_function); }, "line 3"));
  const std::string bad_operand =
      "\n\tcode for sm_90\n\t\tFunction : k\n"
      "\t.headerflags\t@\"EF_CUDA_SM90\"\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;          /* 0x00000a00ff017b82 */\n"
      "                                                                   /* 0x000fe40000000800 */\n"
      "        /*0010*/                   LDG.E R2, desc[UR4][R2.64 ;     /* 0x0000000402027981 */\n";
  EXPECT_TRUE(throws_naming([&] { parse_cuobjdump_sass(bad_operand); }, "line 7"));
}

TEST(Nvdisasm, EveryInstructionOfTheFixtures) {
  for (const auto& stem : cubin_stems()) {
    std::string text = fixture(stem + ".cubin.nvdisasm.txt");
    auto functions = parse_nvdisasm(text);
    expect_same_as_truth(functions, truth_nvdisasm(text), stem + " (nvdisasm)");
    if (::testing::Test::HasFatalFailure()) return;
    for (const auto& f : functions) EXPECT_EQ(f.arch, stem_arch(stem)) << stem << " " << f.name << ": the architecture";
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
  auto functions = parse_nvdisasm(listing);
  ASSERT_EQ(functions.size(), 1u) << "only .text._Z1kPi is code";
  const Function& f = functions[0];
  EXPECT_EQ(f.name, "_Z1kPi");
  EXPECT_EQ(f.arch, 90);
  std::vector<std::uint32_t> addresses;
  std::vector<std::string> texts;
  for (const auto& ins : f.instructions) {
    addresses.push_back(ins.address);
    texts.push_back(render(ins));
  }
  EXPECT_TRUE(lt::SameSequence(std::vector<std::uint32_t>{0x0, 0x10, 0x20, 0x30, 0x40}, addresses));
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"LDC R1, c[0x0][0x28]", "S2R R0, SR_TID.X",
                                                        "ISETP.NE.AND P0, PT, R0, RZ, PT", "@P0 EXIT", "BRA `(.L_x_0)"},
                               texts));
}

TEST(Nvdisasm, AgreesWithCuobjdump) {
  // Two tools, one cubin: the same functions and the same instructions at
  // the same addresses. (Branch targets are spelled differently: a label in
  // nvdisasm, an address in cuobjdump.)
  for (const auto& stem : cubin_stems()) {
    SCOPED_TRACE(stem);
    auto a = parse_cuobjdump_sass(fixture(stem + ".cubin.cuobjdump-sass.txt"));
    auto b = parse_nvdisasm(fixture(stem + ".cubin.nvdisasm.txt"));
    ASSERT_FALSE(a.empty()) << "cuobjdump's listing has functions";
    ASSERT_EQ(a.size(), b.size());
    for (const auto& fa : a) {
      const Function* fb = find(b, fa.name);
      ASSERT_NE(fb, nullptr) << fa.name << " is in cuobjdump's listing but not in nvdisasm's";
      ASSERT_EQ(fa.instructions.size(), fb->instructions.size()) << fa.name;
      for (std::size_t i = 0; i < fa.instructions.size(); ++i) {
        const Instruction& x = fa.instructions[i];
        const Instruction& y = fb->instructions[i];
        ASSERT_EQ(x.address, y.address) << fa.name << " instruction " << i;
        ASSERT_EQ(x.full_opcode(), y.full_opcode()) << fa.name << " at " << std::hex << x.address;
        ASSERT_EQ(x.predicate, y.predicate) << fa.name << " at " << std::hex << x.address;
        bool label = false;
        for (const auto& operand : y.operands) label = label || operand.find('`') != std::string::npos;
        if (!label) {
          ASSERT_TRUE(lt::SameSequence(x.operands, y.operands)) << fa.name << " at " << std::hex << x.address;
        }
      }
    }
  }
}

}  // namespace
