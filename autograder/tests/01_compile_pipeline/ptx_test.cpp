// Part D: read_ptx and ptx_type_size, against the PTX of real builds and
// committed PTX with the harder cases.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "launchlab/testing.h"
#include "live.h"
#include "pipeline.h"

namespace {
namespace lt = launchlab::testing;
using namespace launchlab::pipeline;
using namespace launchlab::compile_pipeline_tests;

std::string describe(const PtxParam& p) {
  return p.name + " " + p.type + " size " + std::to_string(p.size) + " align " + std::to_string(p.align);
}
std::string describe(const TruthParam& p) {
  return p.name + " " + p.type + " size " + std::to_string(p.size) + " align " + std::to_string(p.align);
}

std::vector<std::string> entry_names(const PtxModule& m) {
  std::vector<std::string> names;
  for (const auto& e : m.entries) names.push_back(e.name);
  return names;
}

const PtxEntry* find_entry(const PtxModule& m, const std::string& name) {
  for (const auto& e : m.entries) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

TEST(Ptx, ModuleHeader) {
  struct Case {
    const char* build;
    const char* suffix;
    const char* target;
  };
  for (const Case& c : {Case{"vadd_sm80", ".ptx", "sm_80"}, Case{"vadd_sm90", ".ptx", "sm_90"},
                        Case{"vadd_gencode", ".compute_80.ptx", "sm_80"}, Case{"vadd_gencode", ".compute_90.ptx", "sm_90"}}) {
    std::string text = live(c.build).read_kept(c.suffix);
    PtxModule m = read_ptx(text);
    EXPECT_EQ(m.target, c.target) << c.build << c.suffix;
    EXPECT_EQ(m.address_size, 64);
    // The truth: the word after ".version " in the file.
    std::size_t at = text.find("\n.version ");
    ASSERT_NE(at, std::string::npos);
    std::size_t start = at + 10;
    EXPECT_EQ(m.version, text.substr(start, text.find('\n', start) - start));
  }
}

TEST(Ptx, VaddEntryAndParams) {
  PtxModule m = read_ptx(live("vadd_sm90").read_kept(".ptx"));
  ASSERT_EQ(m.entries.size(), 1u) << join(entry_names(m));
  const PtxEntry& e = m.entries[0];
  EXPECT_EQ(e.name, "_Z4vaddPKfS0_Pfi");
  EXPECT_TRUE(e.visible);
  ASSERT_EQ(e.params.size(), 4u);
  std::vector<std::string> types, names;
  std::vector<std::size_t> sizes, aligns;
  for (const auto& p : e.params) {
    types.push_back(p.type);
    names.push_back(p.name);
    sizes.push_back(p.size);
    aligns.push_back(p.align);
    EXPECT_FALSE(p.array_length.has_value()) << p.name;
  }
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{".u64", ".u64", ".u64", ".u32"}, types));
  EXPECT_TRUE(lt::SameSequence(std::vector<std::size_t>{8, 8, 8, 4}, sizes));
  EXPECT_TRUE(lt::SameSequence(std::vector<std::size_t>{8, 8, 8, 4}, aligns));
  EXPECT_EQ(names[3], "_Z4vaddPKfS0_Pfi_param_3");
}

TEST(Ptx, ParamsMatchDeclarations) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    for (const auto& file : b.kept) {
      if (file.size() < 4 || file.substr(file.size() - 4) != ".ptx") continue;
      std::string text = b.read_kept(file);
      std::vector<TruthEntry> truth = truth_ptx(text);
      PtxModule m = read_ptx(text);
      std::vector<std::string> expected_names;
      for (const auto& t : truth) expected_names.push_back(t.name);
      EXPECT_TRUE(lt::SameSequence(expected_names, entry_names(m))) << name << "/" << file << ": the entries, in file order";
      for (const auto& t : truth) {
        const PtxEntry* e = find_entry(m, t.name);
        if (!e) continue;
        EXPECT_EQ(e->visible, t.visible) << t.name;
        std::vector<std::string> want, got;
        for (const auto& p : t.params) want.push_back(describe(p));
        for (const auto& p : e->params) got.push_back(describe(p));
        EXPECT_TRUE(lt::SameSequence(want, got)) << name << "/" << file << ": " << t.name;
      }
    }
  }
}

TEST(Ptx, AlignedArraysAndStaticKernels) {
  PtxModule m = read_ptx(live("params_gencode").read_kept(".compute_90.ptx"));
  const PtxEntry* k = find_entry(m, "_Z1kcdPis6float4");
  ASSERT_NE(k, nullptr) << join(entry_names(m));
  ASSERT_EQ(k->params.size(), 5u);
  // float4 travels as .param .align 16 .b8 x[16]
  const PtxParam& f = k->params[4];
  EXPECT_EQ(f.type, ".b8");
  EXPECT_EQ(f.size, 16u);
  EXPECT_EQ(f.align, 16u);
  EXPECT_EQ(f.array_length, std::optional<std::size_t>(16));
  EXPECT_EQ(k->params[0].type, ".u8");
  EXPECT_EQ(k->params[1].type, ".f64");
  const PtxEntry* hidden = find_entry(m, "_Z6hiddeni");
  ASSERT_NE(hidden, nullptr);
  EXPECT_FALSE(hidden->visible) << "a static kernel is a plain .entry";
  const PtxEntry* empty = find_entry(m, "_Z5emptyv");
  ASSERT_NE(empty, nullptr);
  EXPECT_TRUE(empty->params.empty());
}

TEST(Ptx, VaddRegisters) {
  for (const char* build : {"vadd_sm80", "vadd_sm90"}) {
    std::string text = live(build).read_kept(".ptx");
    std::vector<TruthEntry> truth = truth_ptx(text);
    ASSERT_EQ(truth.size(), 1u);
    ASSERT_FALSE(truth[0].top_level_regs.empty());
    PtxModule m = read_ptx(text);
    ASSERT_EQ(m.entries.size(), 1u);
    std::vector<std::string> want, got;
    for (const auto& r : truth[0].top_level_regs) want.push_back(r.type + " " + r.prefix + "<" + std::to_string(r.count) + ">");
    for (const auto& r : m.entries[0].registers) {
      got.push_back(r.type + " " + r.prefix + "<" + std::to_string(r.count) + ">");
      EXPECT_TRUE(r.parameterized) << r.prefix;
    }
    EXPECT_TRUE(lt::SameSequence(want, got)) << build << " (%r<6> declares six registers, %r0 to %r5)";
  }
  // fixtures/vadd.ptx: nvcc --keep --keep-dir k -arch=sm_90 -c vadd.cu -o vadd.o
  PtxModule m = read_ptx(fixture("vadd.ptx"));
  ASSERT_EQ(m.entries.size(), 1u);
  std::vector<std::string> got;
  for (const auto& r : m.entries[0].registers) got.push_back(r.type + " " + r.prefix + "<" + std::to_string(r.count) + ">");
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{".pred %p<2>", ".f32 %f<4>", ".b32 %r<6>", ".b64 %rd<11>"}, got))
      << "fixtures/vadd.ptx";
}

TEST(Ptx, FixtureEdgeCases) {
  // fixtures/multi.ptx: nvcc --keep --keep-dir k -arch=sm_80 -c multi.cu -o multi.o
  PtxModule m = read_ptx(fixture("multi.ptx"));
  EXPECT_EQ(m.version, "9.0");
  EXPECT_EQ(m.target, "sm_80");
  EXPECT_EQ(m.address_size, 64);
  EXPECT_TRUE(lt::SameSequence(
      std::vector<std::string>{"_Z5scaleIfLi2EEvPT_S0_", "_Z5scaleIdLi3EEvPT_S0_", "plain_c", "_Z7boundedPfi",
                               "_Z4fillIfEvPT_S0_i", "_Z4fillIiEvPT_S0_i", "_ZN2ns5innerEPKii"},
      entry_names(m)))
      << "the device function _Z6helperfi is a .func, not an entry";
  const PtxEntry* bounded = find_entry(m, "_Z7boundedPfi");
  ASSERT_NE(bounded, nullptr);
  // .maxntid and .minnctapersm sit between the parameters and the body; the
  // call to helper declares .param param0, param1, retval0 in the body.
  ASSERT_EQ(bounded->params.size(), 2u) << "the .param lines of a call in the body are not the kernel's";
  EXPECT_EQ(bounded->params[1].name, "_Z7boundedPfi_param_1");
  std::vector<std::string> regs;
  for (const auto& r : bounded->registers) regs.push_back(r.type + " " + r.prefix + " " + std::to_string(r.count));
  EXPECT_TRUE(lt::SameSequence(
      std::vector<std::string>{".f32 %f 4", ".b32 %r 11", ".b64 %rd 6", ".b32 temp_param_reg 1"}, regs))
      << "a nested block's .reg counts too, and a plain name declares one register";
  ASSERT_EQ(bounded->registers.size(), 4u);
  EXPECT_FALSE(bounded->registers[3].parameterized);

  // fixtures/params.ptx: nvcc --keep --keep-dir k -arch=sm_90 -c params.cu -o params.o
  PtxModule p = read_ptx(fixture("params.ptx"));
  const PtxEntry* pairs = find_entry(p, "_Z5pairs4Pair3Big7Alignedhl");
  ASSERT_NE(pairs, nullptr) << join(entry_names(p));
  std::vector<std::string> got;
  for (const auto& q : pairs->params) got.push_back(q.type + " " + std::to_string(q.size) + "/" + std::to_string(q.align));
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{".b8 8/4", ".b8 36/4", ".b8 16/16", ".u8 1/1", ".u64 8/8"}, got));
  const PtxEntry* empty = find_entry(p, "_Z5emptyv");
  ASSERT_NE(empty, nullptr);
  EXPECT_TRUE(empty->params.empty());
  EXPECT_TRUE(empty->registers.empty());
  const PtxEntry* hidden = find_entry(p, "_Z6hiddeni");
  ASSERT_NE(hidden, nullptr);
  EXPECT_FALSE(hidden->visible);
}

TEST(Ptx, TypeSizes) {
  struct Case {
    const char* type;
    std::size_t size;
  };
  for (const Case& c : {Case{".u8", 1}, Case{".s8", 1}, Case{".b8", 1}, Case{".u16", 2}, Case{".f16", 2},
                        Case{".bf16", 2}, Case{".b32", 4}, Case{".f32", 4}, Case{".s32", 4}, Case{".u64", 8},
                        Case{".f64", 8}, Case{".b64", 8}, Case{".b128", 16}}) {
    EXPECT_EQ(ptx_type_size(c.type), std::optional<std::size_t>(c.size)) << c.type;
  }
  for (const char* bad : {".pred", ".foo", "u32", "", ".u"}) EXPECT_EQ(ptx_type_size(bad), std::nullopt) << bad;
}

TEST(Ptx, MalformedInputThrows) {
  auto expect_line = [](const std::string& text, const std::string& line) {
    try {
      read_ptx(text);
      ADD_FAILURE() << "expected std::runtime_error for:\n" << text;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(line), std::string::npos) << "the message should name " << line << ": " << e.what();
    }
  };
  const std::string head = ".version 9.0\n.target sm_90\n.address_size 64\n";  // lines 1-3
  // An unknown parameter type.
  expect_line(head + ".visible .entry f(\n\t.param .q64 f_param_0\n)\n{\n\tret;\n}\n", "line 5");
  // A body that never closes.
  expect_line(head + "\n.visible .entry f()\n{\n\t.reg .b32 %r<2>;\n\tret;\n", "line 6");
  // A parameter list that never closes.
  expect_line(head + ".entry f(\n\t.param .u32 f_param_0\n", "line 4");
  // A .reg without its ';'.
  expect_line(head + ".entry f()\n{\n\t.reg .b32 %r<2>\n}\n", "line 6");
  EXPECT_TRUE(read_ptx("").entries.empty());
}

}  // namespace
