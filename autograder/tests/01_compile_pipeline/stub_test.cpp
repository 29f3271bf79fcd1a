// Part C: read_stub, against the stubs of real builds (checked against the
// parameter layout their PTX implies) and committed stubs of many kernels.
#include <gtest/gtest.h>

#include <map>
#include <set>
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

std::vector<std::size_t> offsets_of(const StubKernel& k) {
  std::vector<std::size_t> offsets;
  for (const auto& a : k.arguments) offsets.push_back(a.offset);
  return offsets;
}

std::vector<bool> by_reference_of(const StubKernel& k) {
  std::vector<bool> refs;
  for (const auto& a : k.arguments) refs.push_back(a.by_reference);
  return refs;
}

std::vector<std::string> mangled_names(const StubFile& s) {
  std::vector<std::string> names;
  for (const auto& k : s.kernels) names.push_back(k.mangled_name);
  return names;
}

const StubKernel* find_kernel(const StubFile& s, const std::string& mangled) {
  for (const auto& k : s.kernels) {
    if (k.mangled_name == mangled) return &k;
  }
  return nullptr;
}

TEST(Stub, VaddOffsets) {
  // Live, and fixtures/vadd.cudafe1.stub.c (nvcc --keep --keep-dir k -arch=sm_90 -c vadd.cu -o vadd.o).
  for (const char* build : {"vadd_sm80", "vadd_sm90", "fixture"}) {
    StubFile stub = read_stub(std::string(build) == "fixture" ? fixture("vadd.cudafe1.stub.c")
                                                             : live(build).read_kept(".cudafe1.stub.c"));
    ASSERT_EQ(stub.kernels.size(), 1u) << build << ": one kernel, found " << join(mangled_names(stub));
    const StubKernel& vadd = stub.kernels[0];
    EXPECT_EQ(vadd.stub_name, "__device_stub__Z4vaddPKfS0_Pfi");
    EXPECT_EQ(vadd.mangled_name, "_Z4vaddPKfS0_Pfi");
    // a, b, c are 8-byte pointers, n a 4-byte int.
    EXPECT_TRUE(lt::SameSequence(std::vector<std::size_t>{0, 8, 16, 24}, offsets_of(vadd))) << build;
    EXPECT_TRUE(lt::SameSequence(std::vector<bool>{false, false, false, false}, by_reference_of(vadd))) << build;
    std::vector<std::string> variables;
    for (const auto& a : vadd.arguments) variables.push_back(a.variable);
    EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"__par0", "__par1", "__par2", "__par3"}, variables));
  }
}

TEST(Stub, OffsetsFollowPtxAlignment) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    StubFile stub = read_stub(b.read_kept(b.name.find("gencode") != std::string::npos ? ".compute_90.cudafe1.stub.c"
                                                                                        : ".cudafe1.stub.c"));
    std::vector<TruthEntry> entries =
        truth_ptx(b.read_kept(b.name.find("gencode") != std::string::npos ? ".compute_90.ptx" : ".ptx"));
    ASSERT_FALSE(entries.empty()) << name;
    for (const auto& entry : entries) {
      if (entry.name.rfind("_Z", 0) != 0) continue;  // extern "C": the stub has a C++ name (see KernelsMatchPtxEntries)
      const StubKernel* k = find_kernel(stub, entry.name);
      ASSERT_NE(k, nullptr) << name << ": no stub for " << entry.name << "; stubs: " << join(mangled_names(stub));
      EXPECT_TRUE(lt::SameSequence(truth_offsets(entry.params), offsets_of(*k)))
          << name << ": " << entry.name << ", whose PTX parameters sit at their alignment";
    }
  }
}

TEST(Stub, KnownParameterLayouts) {
  // From FACTS: k(char, double, int*, short, float4) packs at 0, 8, 16, 24, 32.
  StubFile stub = read_stub(live("params_gencode").read_kept(".compute_80.cudafe1.stub.c"));
  const StubKernel* k = find_kernel(stub, "_Z1kcdPis6float4");
  ASSERT_NE(k, nullptr) << join(mangled_names(stub));
  EXPECT_TRUE(lt::SameSequence(std::vector<std::size_t>{0, 8, 16, 24, 32}, offsets_of(*k)));
  // Padded {char; double; short} is 24 bytes aligned to 8; the pointer after it lands at 24.
  const StubKernel* padded = find_kernel(stub, "_Z6padded6PaddedPi");
  ASSERT_NE(padded, nullptr);
  EXPECT_TRUE(lt::SameSequence(std::vector<std::size_t>{0, 24}, offsets_of(*padded)));
  // Pair (8, align 4), Big (36, align 4), Aligned (16, align 16), u8, int64.
  const StubKernel* pairs = find_kernel(stub, "_Z5pairs4Pair3Big7Alignedhl");
  ASSERT_NE(pairs, nullptr);
  EXPECT_TRUE(lt::SameSequence(std::vector<std::size_t>{0, 8, 48, 64, 72}, offsets_of(*pairs)));
  const StubKernel* empty = find_kernel(stub, "_Z5emptyv");
  ASSERT_NE(empty, nullptr) << "a kernel without parameters still has a stub";
  EXPECT_TRUE(empty->arguments.empty());
}

TEST(Stub, AggregatesPassedByReference) {
  StubFile stub = read_stub(live("params_gencode").read_kept(".compute_90.cudafe1.stub.c"));
  struct Case {
    const char* kernel;
    std::vector<bool> by_reference;
  };
  for (const Case& c : {Case{"_Z1kcdPis6float4", {false, false, false, false, true}},
                        Case{"_Z6padded6PaddedPi", {true, false}},
                        Case{"_Z5pairs4Pair3Big7Alignedhl", {true, true, true, false, false}},
                        Case{"_Z6hiddeni", {false}}}) {
    const StubKernel* k = find_kernel(stub, c.kernel);
    ASSERT_NE(k, nullptr) << c.kernel << " not among " << join(mangled_names(stub));
    EXPECT_TRUE(lt::SameSequence(c.by_reference, by_reference_of(*k)))
        << c.kernel << ": structs (float4 too) go through __cudaSetupArg, scalars and pointers through __cudaSetupArgSimple";
  }
}

TEST(Stub, KernelsMatchPtxEntries) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    bool gencode = b.name.find("gencode") != std::string::npos;
    StubFile stub = read_stub(b.read_kept(gencode ? ".compute_90.cudafe1.stub.c" : ".cudafe1.stub.c"));
    std::set<std::string> ptx_names, ptx_cxx_names;
    for (const auto& e : truth_ptx(b.read_kept(gencode ? ".compute_90.ptx" : ".ptx"))) {
      ptx_names.insert(e.name);
      if (e.name.rfind("_Z", 0) == 0) ptx_cxx_names.insert(e.name);
    }
    std::set<std::string> stub_names, registered;
    for (const auto& k : stub.kernels) {
      if (k.mangled_name != "_Z7plain_cPf") stub_names.insert(k.mangled_name);
    }
    for (const auto& e : stub.entries) registered.insert(e.symbol);
    EXPECT_EQ(ptx_cxx_names, stub_names) << name << ": every C++ kernel in the PTX has one stub, and nothing else is a stub";
    EXPECT_EQ(ptx_names, registered) << name << ": __cudaRegisterEntry names every .entry, extern \"C\" ones by their plain name";
    EXPECT_EQ(stub.kernels.size(), stub.entries.size()) << name;
  }
}

TEST(Stub, RegisteredEntries) {
  StubFile stub = read_stub(live("multi_sm90").read_kept(".cudafe1.stub.c"));
  EXPECT_EQ(stub.fatbin_include, "multi.fatbin.c");
  std::map<std::string, int> limits;
  for (const auto& e : stub.entries) limits[e.symbol] = e.max_threads;
  ASSERT_EQ(limits.size(), 7u) << "seven kernels are registered";
  for (const auto& [symbol, limit] : limits) {
    // __launch_bounds__(128, 4) on bounded; no bound (-1) on the others.
    EXPECT_EQ(limit, symbol == "_Z7boundedPfi" ? 128 : -1) << symbol;
  }
  EXPECT_TRUE(limits.count("plain_c")) << "extern \"C\" plain_c is registered under its plain name";
  EXPECT_EQ(read_stub(live("vadd_gencode").read_kept(".compute_80.cudafe1.stub.c")).fatbin_include, "vadd.fatbin.c");
}

TEST(Stub, FixtureWithManyKernels) {
  // fixtures/params.cudafe1.stub.c: nvcc --keep --keep-dir k -arch=sm_90 -c params.cu -o params.o
  StubFile params = read_stub(fixture("params.cudafe1.stub.c"));
  EXPECT_TRUE(lt::SameSequence(std::vector<std::string>{"_Z1kcdPis6float4", "_Z6padded6PaddedPi",
                                                        "_Z5pairs4Pair3Big7Alignedhl", "_Z5emptyv", "_Z6hiddeni"},
                               mangled_names(params)));
  ASSERT_EQ(params.kernels.size(), 5u);
  EXPECT_TRUE(lt::SameSequence(std::vector<std::size_t>{0, 8, 16, 24, 32}, offsets_of(params.kernels[0])));
  EXPECT_TRUE(lt::SameSequence(std::vector<std::size_t>{0, 8, 48, 64, 72}, offsets_of(params.kernels[2])));
  ASSERT_EQ(params.entries.size(), 5u);
  EXPECT_EQ(params.entries[0].symbol, "_Z6hiddeni") << "registration runs in reverse order of definition";
  EXPECT_EQ(params.entries[4].symbol, "_Z1kcdPis6float4");

  // fixtures/multi.cudafe1.stub.c: nvcc --keep --keep-dir k -arch=sm_80 -c multi.cu -o multi.o
  StubFile multi = read_stub(fixture("multi.cudafe1.stub.c"));
  EXPECT_TRUE(lt::SameSequence(
      std::vector<std::string>{"_Z5scaleIfLi2EEvPT_S0_", "_Z5scaleIdLi3EEvPT_S0_", "_Z7plain_cPf", "_Z7boundedPfi",
                               "_Z4fillIfEvPT_S0_i", "_Z4fillIiEvPT_S0_i", "_ZN2ns5innerEPKii"},
      mangled_names(multi)))
      << "the template wrappers (__wrapper__device_stub_...) and the calls of each stub are not stubs";
  ASSERT_EQ(multi.kernels.size(), 7u);
  EXPECT_TRUE(lt::SameSequence(std::vector<std::size_t>{0, 8, 12}, offsets_of(multi.kernels[4])));
  // ns::inner copies its __restrict__ pointer into __T4 first, over two lines.
  const StubKernel& inner = multi.kernels[6];
  ASSERT_EQ(inner.arguments.size(), 2u);
  EXPECT_EQ(inner.arguments[0].variable, "__T4");
  EXPECT_EQ(inner.arguments[1].variable, "__par1");
  EXPECT_EQ(inner.arguments[1].offset, 8u);
  EXPECT_EQ(multi.fatbin_include, "multi.fatbin.c");
  ASSERT_EQ(multi.entries.size(), 7u);
  EXPECT_EQ(multi.entries[3].symbol, "_Z7boundedPfi");
  EXPECT_EQ(multi.entries[3].max_threads, 128);
  EXPECT_EQ(multi.entries[4].symbol, "plain_c");
}

TEST(Stub, MalformedInputThrows) {
  auto expect_line = [](const std::string& text, const std::string& line) {
    try {
      read_stub(text);
      ADD_FAILURE() << "expected std::runtime_error for:\n" << text;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(line), std::string::npos) << "the message should name " << line << ": " << e.what();
    }
  };
  // A body that never closes.
  expect_line("#include \"x.fatbin.c\"\n\nvoid __device_stub__Z1fi(int __par0) {\n__cudaSetupArgSimple(__par0, 0UL);\n",
              "line 3");
  // An offset that is not a number.
  expect_line("void __device_stub__Z1fi(int __par0)\n{\n  __cudaSetupArgSimple(__par0, zero);\n}\n", "line 3");
  // A parameter list that never closes.
  expect_line("\n\nvoid __device_stub__Z1fi(int __par0\n", "line 3");
  // Nothing to read is not an error.
  StubFile none = read_stub("");
  EXPECT_TRUE(none.kernels.empty());
  EXPECT_TRUE(none.entries.empty());
  EXPECT_TRUE(none.fatbin_include.empty());
}

}  // namespace
