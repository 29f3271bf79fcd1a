// Part D: read_ptx and ptx_type_size, against the PTX of real builds and
// committed PTX with the harder cases.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "live.h"
#include "pipeline.h"

namespace {
namespace lt = launchlab::testing;
using namespace launchlab::pipeline;
using namespace launchlab::compile_pipeline_tests;
using lt::Expected;

// What ParamsMatchDeclarations compares of an entry: its name, whether it is
// visible, and its parameters.
struct Signature {
  std::string name;
  bool visible = false;
  std::vector<PtxParam> params;
};

nlohmann::json record_value(const Signature& s) {
  return {{"name", s.name}, {"visible", s.visible}, {"params", lt::encode(s.params)}};
}

std::vector<Signature> signatures(const PtxModule& m) {
  std::vector<Signature> out;
  for (const auto& e : m.entries) out.push_back({e.name, e.visible, e.params});
  return out;
}

std::vector<std::string> entry_names(const PtxModule& m) {
  std::vector<std::string> names;
  for (const auto& e : m.entries) names.push_back(e.name);
  return names;
}

// The entry with this name, or an empty one when the learner's module has none.
const PtxEntry& entry_named(const PtxModule& m, const std::string& name) {
  static const PtxEntry none;
  for (const auto& e : m.entries) {
    if (e.name == name) return e;
  }
  return none;
}

bool has_entry(const PtxModule& m, const std::string& name) {
  for (const auto& e : m.entries) {
    if (e.name == name) return true;
  }
  return false;
}

const PtxParam& param_at(const PtxEntry& e, std::size_t index) {
  static const PtxParam none;
  return index < e.params.size() ? e.params[index] : none;
}

const PtxEntry& first_entry(const PtxModule& m) {
  static const PtxEntry none;
  return m.entries.empty() ? none : m.entries.front();
}

std::string read_ptx_of(const LiveBuild& b, const std::string& suffix) {
  return "read_ptx(the " + suffix.substr(1) + " that `" + b.command() + "` left)";
}

TEST(Ptx, ModuleHeader) {
  struct Case {
    const char* build;
    const char* suffix;
    Expected<std::string> target;
  };
  const std::vector<Case> cases = {
      {"vadd_sm80", ".ptx", LAUNCHLAB_EXPECTED(std::string("sm_80"))},
      {"vadd_sm90", ".ptx", LAUNCHLAB_EXPECTED(std::string("sm_90"))},
      {"vadd_gencode", ".compute_80.ptx", LAUNCHLAB_EXPECTED(std::string("sm_80"))},
      {"vadd_gencode", ".compute_90.ptx", LAUNCHLAB_EXPECTED(std::string("sm_90"))},
  };
  for (const Case& c : cases) {
    const LiveBuild& b = live(c.build);
    RECORD_SCOPE(read_ptx_of(b, c.suffix));
    const std::string text = b.read_kept(c.suffix);
    PtxModule m = read_ptx(text);
    RECORD_EQ(m.target, c.target) << "its target";
    RECORD_EQ(m.address_size, 64) << "its address_size";
    RECORD_EQ(m.version, [&] {
      // The word after ".version " in the file.
      std::size_t at = text.find("\n.version ");
      if (at == std::string::npos) return std::string("(the file has no .version line)");
      std::size_t start = at + 10;
      return text.substr(start, text.find('\n', start) - start);
    }()) << "its version";
  }
}

TEST(Ptx, VaddEntryAndParams) {
  const LiveBuild& b = live("vadd_sm90");
  RECORD_SCOPE(read_ptx_of(b, ".ptx"));
  PtxModule m = read_ptx(b.read_kept(".ptx"));
  RECORD_EQ(entry_names(m), std::vector<std::string>{"_Z4vaddPKfS0_Pfi"}) << "the entries' names";
  const PtxEntry& e = first_entry(m);
  RECORD_TRUE(e.visible) << "whether entry 0 is visible";
  RECORD_EQ(e.params, std::vector<PtxParam>{{"_Z4vaddPKfS0_Pfi_param_0", ".u64", 8, 8, std::nullopt},
                                            {"_Z4vaddPKfS0_Pfi_param_1", ".u64", 8, 8, std::nullopt},
                                            {"_Z4vaddPKfS0_Pfi_param_2", ".u64", 8, 8, std::nullopt},
                                            {"_Z4vaddPKfS0_Pfi_param_3", ".u32", 4, 4, std::nullopt}})
      << "entry 0's parameters";
}

TEST(Ptx, ParamsMatchDeclarations) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    for (const auto& file : b.kept) {
      if (file.size() < 4 || file.substr(file.size() - 4) != ".ptx") continue;
      const std::string text = b.read_kept(file);
      RECORD_EQ(signatures(read_ptx(text)), [&] {
        std::vector<Signature> expected;
        for (const auto& t : truth_ptx(text)) {
          Signature s{t.name, t.visible, {}};
          for (const auto& p : t.params) s.params.push_back({p.name, p.type, p.size, p.align, p.array_length});
          expected.push_back(s);
        }
        return expected;
      }()) << "read_ptx(" << file << ", which `" << b.command()
           << "` left): each entry's name, visibility and parameters, in file order";
    }
  }
}

TEST(Ptx, AlignedArraysAndStaticKernels) {
  const LiveBuild& b = live("params_gencode");
  RECORD_SCOPE(read_ptx_of(b, ".compute_90.ptx"));
  PtxModule m = read_ptx(b.read_kept(".compute_90.ptx"));
  RECORD_TRUE(has_entry(m, "_Z1kcdPis6float4")) << "whether it has the entry _Z1kcdPis6float4";
  const PtxEntry& k = entry_named(m, "_Z1kcdPis6float4");
  RECORD_EQ(k.params.size(), 5u) << "how many parameters _Z1kcdPis6float4 has";
  // float4 travels as .param .align 16 .b8 x[16]
  RECORD_EQ(param_at(k, 4), PtxParam{"_Z1kcdPis6float4_param_4", ".b8", 16, 16, 16})
      << "parameter 4 of _Z1kcdPis6float4, the float4";
  RECORD_EQ(param_at(k, 0).type, ".u8") << "the type of parameter 0 of _Z1kcdPis6float4, the char";
  RECORD_EQ(param_at(k, 1).type, ".f64") << "the type of parameter 1 of _Z1kcdPis6float4, the double";
  RECORD_TRUE(has_entry(m, "_Z6hiddeni")) << "whether it has the entry _Z6hiddeni";
  RECORD_FALSE(entry_named(m, "_Z6hiddeni").visible) << "whether _Z6hiddeni is visible: a static kernel is a plain .entry";
  RECORD_TRUE(has_entry(m, "_Z5emptyv")) << "whether it has the entry _Z5emptyv";
  RECORD_EQ(entry_named(m, "_Z5emptyv").params.size(), 0u) << "how many parameters _Z5emptyv has";
}

TEST(Ptx, VaddRegisters) {
  for (const char* build : {"vadd_sm80", "vadd_sm90"}) {
    const LiveBuild& b = live(build);
    RECORD_SCOPE(read_ptx_of(b, ".ptx"));
    const std::string text = b.read_kept(".ptx");
    PtxModule m = read_ptx(text);
    RECORD_EQ(m.entries.size(), 1u) << "how many entries";
    RECORD_EQ(first_entry(m).registers, [&] {
      // The `.reg .t %x<N>;` lines directly in the one entry's body.
      std::vector<PtxRegister> expected;
      for (const auto& t : truth_ptx(text)) {
        for (const auto& r : t.top_level_regs) expected.push_back({r.type, r.prefix, r.count, true});
      }
      return expected;
    }()) << "entry 0's registers (%r<6> declares six registers, %r0 to %r5)";
  }
  RECORD_EQ(first_entry(read_ptx(fixture("vadd.ptx"))).registers,
            std::vector<PtxRegister>{{".pred", "%p", 2, true}, {".f32", "%f", 4, true}, {".b32", "%r", 6, true},
                                     {".b64", "%rd", 11, true}})
      << "read_ptx(the committed vadd.ptx of `nvcc --keep --keep-dir k -arch=sm_90 -c vadd.cu -o vadd.o`): entry 0's "
         "registers";
}

TEST(Ptx, FixtureEdgeCases) {
  {
    RECORD_SCOPE("read_ptx(the committed multi.ptx of `nvcc --keep --keep-dir k -arch=sm_80 -c multi.cu -o multi.o`)");
    PtxModule m = read_ptx(fixture("multi.ptx"));
    RECORD_EQ(m.version, "9.0") << "its version";
    RECORD_EQ(m.target, "sm_80") << "its target";
    RECORD_EQ(m.address_size, 64) << "its address_size";
    RECORD_EQ(entry_names(m),
              std::vector<std::string>{"_Z5scaleIfLi2EEvPT_S0_", "_Z5scaleIdLi3EEvPT_S0_", "plain_c", "_Z7boundedPfi",
                                       "_Z4fillIfEvPT_S0_i", "_Z4fillIiEvPT_S0_i", "_ZN2ns5innerEPKii"})
        << "the entries' names: the device function _Z6helperfi is a .func, not an entry";
    // .maxntid and .minnctapersm sit between the parameters and the body; the
    // call to helper declares .param param0, param1, retval0 in the body.
    const PtxEntry& bounded = entry_named(m, "_Z7boundedPfi");
    RECORD_EQ(bounded.params.size(), 2u)
        << "how many parameters _Z7boundedPfi has: the .param lines of a call in the body are not the kernel's";
    RECORD_EQ(param_at(bounded, 1).name, "_Z7boundedPfi_param_1") << "the name of parameter 1 of _Z7boundedPfi";
    RECORD_EQ(bounded.registers, std::vector<PtxRegister>{{".f32", "%f", 4, true},
                                                          {".b32", "%r", 11, true},
                                                          {".b64", "%rd", 6, true},
                                                          {".b32", "temp_param_reg", 1, false}})
        << "the registers of _Z7boundedPfi: a nested block's .reg counts too, and a plain name declares one register";
  }
  {
    RECORD_SCOPE("read_ptx(the committed params.ptx of `nvcc --keep --keep-dir k -arch=sm_90 -c params.cu -o params.o`)");
    PtxModule p = read_ptx(fixture("params.ptx"));
    RECORD_TRUE(has_entry(p, "_Z5pairs4Pair3Big7Alignedhl")) << "whether it has the entry _Z5pairs4Pair3Big7Alignedhl";
    std::vector<std::string> got;
    for (const auto& q : entry_named(p, "_Z5pairs4Pair3Big7Alignedhl").params)
      got.push_back(q.type + " size " + std::to_string(q.size) + " align " + std::to_string(q.align));
    RECORD_EQ(got, std::vector<std::string>{".b8 size 8 align 4", ".b8 size 36 align 4", ".b8 size 16 align 16",
                                            ".u8 size 1 align 1", ".u64 size 8 align 8"})
        << "the parameters of _Z5pairs4Pair3Big7Alignedhl: type, size and align";
    RECORD_TRUE(has_entry(p, "_Z5emptyv")) << "whether it has the entry _Z5emptyv";
    RECORD_EQ(entry_named(p, "_Z5emptyv").params.size(), 0u) << "how many parameters _Z5emptyv has";
    RECORD_EQ(entry_named(p, "_Z5emptyv").registers.size(), 0u) << "how many registers _Z5emptyv declares";
    RECORD_TRUE(has_entry(p, "_Z6hiddeni")) << "whether it has the entry _Z6hiddeni";
    RECORD_FALSE(entry_named(p, "_Z6hiddeni").visible) << "whether _Z6hiddeni is visible";
  }
}

TEST(Ptx, TypeSizes) {
  struct Case {
    const char* type;
    Expected<std::optional<std::size_t>> size;
  };
  const std::vector<Case> cases = {
      {".u8", LAUNCHLAB_EXPECTED(std::optional<std::size_t>(1))},   {".s8", LAUNCHLAB_EXPECTED(std::optional<std::size_t>(1))},
      {".b8", LAUNCHLAB_EXPECTED(std::optional<std::size_t>(1))},   {".u16", LAUNCHLAB_EXPECTED(std::optional<std::size_t>(2))},
      {".f16", LAUNCHLAB_EXPECTED(std::optional<std::size_t>(2))},  {".bf16", LAUNCHLAB_EXPECTED(std::optional<std::size_t>(2))},
      {".b32", LAUNCHLAB_EXPECTED(std::optional<std::size_t>(4))},  {".f32", LAUNCHLAB_EXPECTED(std::optional<std::size_t>(4))},
      {".s32", LAUNCHLAB_EXPECTED(std::optional<std::size_t>(4))},  {".u64", LAUNCHLAB_EXPECTED(std::optional<std::size_t>(8))},
      {".f64", LAUNCHLAB_EXPECTED(std::optional<std::size_t>(8))},  {".b64", LAUNCHLAB_EXPECTED(std::optional<std::size_t>(8))},
      {".b128", LAUNCHLAB_EXPECTED(std::optional<std::size_t>(16))},
      // Not PTX fundamental types a parameter can have.
      {".pred", LAUNCHLAB_EXPECTED(std::optional<std::size_t>())},  {".foo", LAUNCHLAB_EXPECTED(std::optional<std::size_t>())},
      {"u32", LAUNCHLAB_EXPECTED(std::optional<std::size_t>())},    {"", LAUNCHLAB_EXPECTED(std::optional<std::size_t>())},
      {".u", LAUNCHLAB_EXPECTED(std::optional<std::size_t>())},
  };
  for (const Case& c : cases) RECORD_EQ(ptx_type_size(c.type), c.size) << "ptx_type_size(\"" << c.type << "\")";
}

TEST(Ptx, MalformedInputThrows) {
  const std::string head = ".version 9.0\n.target sm_90\n.address_size 64\n";  // lines 1-3
  struct Case {
    std::string text;
    Expected<std::string> line;
  };
  const std::vector<Case> cases = {
      // An unknown parameter type.
      {head + ".visible .entry f(\n\t.param .q64 f_param_0\n)\n{\n\tret;\n}\n", LAUNCHLAB_EXPECTED(std::string("line 5"))},
      // A body that never closes.
      {head + "\n.visible .entry f()\n{\n\t.reg .b32 %r<2>;\n\tret;\n", LAUNCHLAB_EXPECTED(std::string("line 6"))},
      // A parameter list that never closes.
      {head + ".entry f(\n\t.param .u32 f_param_0\n", LAUNCHLAB_EXPECTED(std::string("line 4"))},
      // A .reg without its ';'.
      {head + ".entry f()\n{\n\t.reg .b32 %r<2>\n}\n", LAUNCHLAB_EXPECTED(std::string("line 6"))},
  };
  for (const Case& c : cases) {
    RECORD_SCOPE("read_ptx(<the text below>)\n" + lt::with_line_numbers(c.text));
    RECORD_THROWS(read_ptx(c.text), std::runtime_error);
    const std::string message = lt::message_thrown<std::runtime_error>([&] { read_ptx(c.text); });
    RECORD_CONTAINS(message, c.line) << "the exception's message names the line";
  }
  RECORD_EQ(read_ptx("").entries.size(), 0u) << "read_ptx(\"\"): how many entries";
}

}  // namespace
