// Part B: constant operands, parameter reads, memory instructions, special
// registers and registers, against what regular expressions find in the
// committed listings and what cuobjdump -elf says about the same cubins.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <optional>
#include <set>
#include <sstream>
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

void check_param_reads(const std::string& stem) {
  SCOPED_TRACE(stem);
  std::string text = fixture(stem + ".cubin.cuobjdump-sass.txt");
  auto truth = truth_cuobjdump(text);
  auto elf = truth_elf(fixture03(stem + ".cubin.cuobjdump-elf.txt"));
  auto functions = parse_cuobjdump_sass(text);
  ASSERT_FALSE(functions.empty());
  for (const auto& f : functions) {
    auto k = elf.find(f.name);
    ASSERT_NE(k, elf.end()) << f.name << " has no .nv.info section in cuobjdump -elf";
    std::uint32_t base = k->second.param_size ? k->second.param_base : param_base(stem_arch(stem));
    auto expected = truth_reads(of_function(truth, f.name), base, k->second.params);
    auto got = param_reads(f, base, k->second.params);
    EXPECT_TRUE(lt::SameSequence(describe(expected), describe(got))) << f.name;
  }
}

TEST(Constant, Operands) {
  struct Case {
    const char* operand;
    std::optional<ConstantOperand> expected;
  };
  const std::vector<Case> cases = {
      {"c[0x0][0x210]", ConstantOperand{0, 0x210}},
      {"c[0x0][0x0]", ConstantOperand{0, 0}},
      {"c[0x3][0x1c]", ConstantOperand{3, 0x1c}},
      {"-c[0x0][0x8]", ConstantOperand{0, 8}},
      {"|c[0x0][0x388]|", ConstantOperand{0, 0x388}},
      {"c[0x0][0x1a80]", ConstantOperand{0, 0x1a80}},
      {"cx[UR4][0x10]", std::nullopt},
      {"c[0x0][R2]", std::nullopt},
      {"R2", std::nullopt},
      {"0x210", std::nullopt},
      {"desc[UR4][R2.64]", std::nullopt},
      {"c[0x0][0x210", std::nullopt},
  };
  for (const auto& c : cases) {
    auto got = constant_operand(c.operand);
    EXPECT_EQ(got.has_value(), c.expected.has_value()) << c.operand;
    if (got && c.expected) {
      EXPECT_EQ(got->bank, c.expected->bank) << c.operand;
      EXPECT_EQ(got->offset, c.expected->offset) << c.operand;
    }
  }
}

TEST(ParamBase, MatchesParamCbank) {
  // The truth: EIATTR_PARAM_CBANK of every kernel with parameters, as
  // cuobjdump -elf prints it for the committed cubins.
  int checked = 0;
  for (const auto& stem : cubin_stems()) {
    for (const auto& [name, k] : truth_elf(fixture03(stem + ".cubin.cuobjdump-elf.txt"))) {
      if (k.param_size == 0) continue;
      EXPECT_EQ(param_base(stem_arch(stem)), k.param_base) << stem << " " << name;
      ++checked;
    }
  }
  EXPECT_GE(checked, 10) << "kernels with EIATTR_PARAM_CBANK in the fixtures";
  EXPECT_THROW(param_base(70), std::invalid_argument) << "sm_70: not a course architecture";
}

TEST(ParamReads, VaddOnEveryArchitecture) {
  for (int arch : {80, 86, 89, 90, 100, 120}) {
    std::string stem = "vadd.sm_" + std::to_string(arch);
    check_param_reads(stem);
    // vadd reads all four parameters: a, b, c and n.
    auto functions = parse_cuobjdump_sass(fixture(stem + ".cubin.cuobjdump-sass.txt"));
    ASSERT_EQ(functions.size(), 1u);
    const std::vector<ParamSlot> params = {{0, 8}, {8, 8}, {16, 8}, {24, 4}};
    std::set<std::size_t> read;
    for (const auto& r : param_reads(functions[0], param_base(arch), params)) read.insert(r.param);
    EXPECT_EQ(read, (std::set<std::size_t>{0, 1, 2, 3})) << stem << ": the parameters read";
  }
}

TEST(ParamReads, ZooKernelsMatchKparamInfo) {
  for (const auto& stem : cubin_stems()) {
    if (stem.rfind("zoo", 0) == 0) check_param_reads(stem);
  }
}

TEST(ParamReads, PaddingAndOutOfRange) {
  // mixed(char c, double d, int* p, short s, float4 f) on sm_90: offsets 0,
  // 8, 16, 24, 32; bytes 1-7 and 26-31 are padding.
  Function f;
  f.name = "mixed";
  f.arch = 90;
  for (const char* text : {"LDC.U8 R0, c[0x0][0x210]", "LDC R1, c[0x0][0x214]", "LDC.64 R2, c[0x0][0x218]",
                           "DADD R4, R4, c[0x0][0x218]", "MOV R5, c[0x0][0x21c]", "LDC R6, c[0x0][0x238]",
                           "LDC R7, c[0x0][0x21c0]", "MOV R8, c[0x3][0x218]", "IMAD R9, R1, c[0x0][0x0], R0",
                           "FADD R10, c[0x0][0x23c], -c[0x0][0x230]"}) {
    Instruction ins = parse_instruction(text);
    ins.address = static_cast<std::uint32_t>(16 * f.instructions.size());
    f.instructions.push_back(ins);
  }
  const std::vector<ParamSlot> params = {{0, 1}, {8, 8}, {16, 8}, {24, 2}, {32, 16}};
  const std::vector<ParamRead> expected = {
      {0x00, "LDC.U8", 0, 0}, {0x20, "LDC.64", 1, 0}, {0x30, "DADD", 1, 0}, {0x40, "MOV", 1, 4},
      {0x50, "LDC", 4, 8},    {0x90, "FADD", 4, 12},  {0x90, "FADD", 4, 0},
  };
  EXPECT_TRUE(lt::SameSequence(describe(expected), describe(param_reads(f, 0x210, params))));
}

TEST(Memory, CountsMatchTheListings) {
  for (const auto& stem : cubin_stems()) {
    std::string text = fixture(stem + ".cubin.cuobjdump-sass.txt");
    auto truth = truth_cuobjdump(text);
    auto functions = parse_cuobjdump_sass(text);
    ASSERT_EQ(functions.size(), truth_functions(truth).size()) << stem << ": functions parsed";
    for (const auto& f : functions) {
      MemoryCounts expected;
      for (const auto& t : of_function(truth, f.name)) {
        std::string m = truth_mnemonic(t.text);
        if (m == "LDG") ++expected.global_loads;
        if (m == "STG") ++expected.global_stores;
        if (m == "ATOMG" || m == "RED" || m == "REDG") ++expected.global_atomics;
        if (m == "LDS") ++expected.shared_loads;
        if (m == "STS") ++expected.shared_stores;
        if (m == "LDL") ++expected.local_loads;
        if (m == "STL") ++expected.local_stores;
        if (m == "LDC" || m == "ULDC" || m == "LDCU") ++expected.constant_loads;
      }
      MemoryCounts got = count_memory(f);
      SCOPED_TRACE(stem + " " + f.name);
      EXPECT_EQ(got.global_loads, expected.global_loads);
      EXPECT_EQ(got.global_stores, expected.global_stores);
      EXPECT_EQ(got.global_atomics, expected.global_atomics);
      EXPECT_EQ(got.shared_loads, expected.shared_loads);
      EXPECT_EQ(got.shared_stores, expected.shared_stores);
      EXPECT_EQ(got.local_loads, expected.local_loads);
      EXPECT_EQ(got.local_stores, expected.local_stores);
      EXPECT_EQ(got.constant_loads, expected.constant_loads);
    }
  }
}

TEST(Memory, VaddLoadsTwiceStoresOnce) {
  // c[i] = a[i] + b[i]: two global loads and one store, on every architecture.
  for (int arch : {80, 86, 89, 90, 100, 120}) {
    auto functions = parse_cuobjdump_sass(fixture("vadd.sm_" + std::to_string(arch) + ".cubin.cuobjdump-sass.txt"));
    ASSERT_EQ(functions.size(), 1u);
    MemoryCounts m = count_memory(functions[0]);
    EXPECT_EQ(m.global_loads, 2u) << "sm_" << arch;
    EXPECT_EQ(m.global_stores, 1u) << "sm_" << arch;
    EXPECT_EQ(m.global_atomics, 0u) << "sm_" << arch;
  }
}

TEST(Special, RegistersMatchTheListings) {
  static const std::regex sr_re(R"(\bSR_\w+(?:\.\w+)?)");
  for (const auto& stem : cubin_stems()) {
    std::string text = fixture(stem + ".cubin.cuobjdump-sass.txt");
    auto truth = truth_cuobjdump(text);
    auto functions = parse_cuobjdump_sass(text);
    ASSERT_EQ(functions.size(), truth_functions(truth).size()) << stem << ": functions parsed";
    for (const auto& f : functions) {
      std::set<std::string> expected;
      for (const auto& t : of_function(truth, f.name)) {
        for (auto it = std::sregex_iterator(t.text.begin(), t.text.end(), sr_re); it != std::sregex_iterator(); ++it)
          expected.insert(it->str());
      }
      EXPECT_TRUE(lt::SameSequence(expected, special_registers(f))) << stem << " " << f.name;
      if (f.name == "_Z7specialPj") {
        auto got = special_registers(f);
        for (const char* sr : {"SR_TID.X", "SR_LANEID"})
          EXPECT_NE(std::find(got.begin(), got.end(), sr), got.end()) << stem << ": special() reads " << sr;
      }
    }
  }
}

TEST(Registers, MatchTheListings) {
  static const std::regex reg_re(R"((^|[^\w.])(UR|UP|R|P)(\d+)\b)");
  for (const auto& stem : cubin_stems()) {
    std::string text = fixture(stem + ".cubin.cuobjdump-sass.txt");
    auto truth = truth_cuobjdump(text);
    auto functions = parse_cuobjdump_sass(text);
    ASSERT_EQ(functions.size(), truth_functions(truth).size()) << stem << ": functions parsed";
    for (const auto& f : functions) {
      std::set<int> r, ur, p, up;
      for (const auto& t : of_function(truth, f.name)) {
        for (auto it = std::sregex_iterator(t.text.begin(), t.text.end(), reg_re); it != std::sregex_iterator(); ++it) {
          std::string kind = (*it)[2].str();
          int n = std::stoi((*it)[3].str());
          (kind == "R" ? r : kind == "UR" ? ur : kind == "P" ? p : up).insert(n);
        }
      }
      RegisterUse got = registers_used(f);
      SCOPED_TRACE(stem + " " + f.name);
      EXPECT_TRUE(lt::SameSequence(r, got.general)) << "R";
      EXPECT_TRUE(lt::SameSequence(ur, got.uniform)) << "UR";
      EXPECT_TRUE(lt::SameSequence(p, got.predicates)) << "P";
      EXPECT_TRUE(lt::SameSequence(up, got.uniform_predicates)) << "UP";
    }
  }
}

TEST(Registers, WithinWhatPtxasAllocated) {
  // cuobjdump -res-usage reports the registers ptxas allocated per thread;
  // no instruction names a register beyond them.
  for (const auto& stem : cubin_stems()) {
    auto allocated = truth_res_usage(fixture03(stem + ".cubin.res-usage.txt"));
    auto functions = parse_cuobjdump_sass(fixture(stem + ".cubin.cuobjdump-sass.txt"));
    ASSERT_EQ(functions.size(), allocated.size()) << stem << ": functions parsed vs. cuobjdump -res-usage";
    for (const auto& f : functions) {
      auto it = allocated.find(f.name);
      ASSERT_NE(it, allocated.end()) << stem << ": " << f.name << " is not in cuobjdump -res-usage";
      RegisterUse use = registers_used(f);
      if (use.general.empty()) continue;
      EXPECT_LT(use.general.back(), it->second) << stem << " " << f.name << ": REG:" << it->second;
    }
  }
}

}  // namespace
