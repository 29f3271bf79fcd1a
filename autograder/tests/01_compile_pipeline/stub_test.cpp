// Part C: read_stub, against the stubs of real builds (checked against the
// parameter layout their PTX implies) and committed stubs of many kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
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

// Something of each kernel, by mangled name: `._Z6padded6PaddedPi[1]: expected 24, got 20`.
template <class T>
struct ByKernel {
  std::map<std::string, T> items;
};

template <class T>
nlohmann::json record_value(const ByKernel<T>& by_kernel) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : by_kernel.items) out[name] = lt::encode(value);
  return out;
}

ByKernel<std::vector<std::size_t>> offsets_by_kernel(const StubFile& stub) {
  ByKernel<std::vector<std::size_t>> out;
  for (const auto& k : stub.kernels) {
    auto& offsets = out.items[k.mangled_name];
    for (const auto& a : k.arguments) offsets.push_back(a.offset);
  }
  return out;
}

ByKernel<std::vector<bool>> by_reference_by_kernel(const StubFile& stub) {
  ByKernel<std::vector<bool>> out;
  for (const auto& k : stub.kernels) {
    auto& refs = out.items[k.mangled_name];
    for (const auto& a : k.arguments) refs.push_back(a.by_reference);
  }
  return out;
}

std::vector<std::size_t> offsets_of(const StubKernel& k) {
  std::vector<std::size_t> offsets;
  for (const auto& a : k.arguments) offsets.push_back(a.offset);
  return offsets;
}

std::vector<std::string> mangled_names(const StubFile& s) {
  std::vector<std::string> names;
  for (const auto& k : s.kernels) names.push_back(k.mangled_name);
  return names;
}

std::vector<std::string> sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

// The kernel or entry at an index, or an empty one where the learner's list is shorter.
const StubKernel& kernel_at(const StubFile& s, std::size_t index) {
  static const StubKernel none;
  return index < s.kernels.size() ? s.kernels[index] : none;
}

// Where a gencode build keeps the files of its compute_90 pass.
std::string for_compute_90(const LiveBuild& b, const std::string& suffix) {
  return b.name.find("gencode") != std::string::npos ? ".compute_90" + suffix : suffix;
}

std::string read_stub_of(const LiveBuild& b, const std::string& suffix) {
  return "read_stub(the " + suffix.substr(1) + " that `" + b.command() + "` left)";
}

TEST(Stub, VaddOffsets) {
  // Live, and fixtures/vadd.cudafe1.stub.c (nvcc --keep --keep-dir k -arch=sm_90 -c vadd.cu -o vadd.o).
  for (const char* build : {"vadd_sm80", "vadd_sm90", "fixture"}) {
    const bool committed = std::string(build) == "fixture";
    StubFile stub = read_stub(committed ? fixture("vadd.cudafe1.stub.c") : live(build).read_kept(".cudafe1.stub.c"));
    // a, b, c are 8-byte pointers, n a 4-byte int.
    RECORD_EQ(stub.kernels, std::vector<StubKernel>{{"__device_stub__Z4vaddPKfS0_Pfi",
                                                     "_Z4vaddPKfS0_Pfi",
                                                     {{"__par0", 0, false}, {"__par1", 8, false}, {"__par2", 16, false},
                                                      {"__par3", 24, false}}}})
        << (committed ? std::string("read_stub(the committed vadd.cudafe1.stub.c of `nvcc --keep --keep-dir k -arch=sm_90 "
                                    "-c vadd.cu -o vadd.o`)")
                      : read_stub_of(live(build), ".cudafe1.stub.c"))
        << ": its kernels";
  }
}

TEST(Stub, OffsetsFollowPtxAlignment) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    const std::string stub_text = b.read_kept(for_compute_90(b, ".cudafe1.stub.c"));
    RECORD_EQ(offsets_by_kernel(read_stub(stub_text)), [&] {
      // The PTX parameters of each entry, each at the next multiple of its
      // alignment, under the name of the entry's stub.
      ByKernel<std::vector<std::size_t>> expected;
      for (const auto& entry : truth_ptx(b.read_kept(for_compute_90(b, ".ptx"))))
        expected.items[truth_stub_name(stub_text, entry.name)] = truth_offsets(entry.params);
      return expected;
    }()) << read_stub_of(b, for_compute_90(b, ".cudafe1.stub.c"))
         << ": the offsets of each kernel's arguments, which follow the PTX parameters' sizes and alignments";
  }
}

TEST(Stub, KnownParameterLayouts) {
  // From FACTS: k(char, double, int*, short, float4) packs at 0, 8, 16, 24, 32.
  // Padded {char; double; short} is 24 bytes aligned to 8; the pointer after
  // it lands at 24. Pair (8, align 4), Big (36, align 4), Aligned (16, align
  // 16), u8, int64. A kernel without parameters still has a stub.
  const LiveBuild& b = live("params_gencode");
  RECORD_EQ(offsets_by_kernel(read_stub(b.read_kept(".compute_80.cudafe1.stub.c"))),
            ByKernel<std::vector<std::size_t>>{{{"_Z1kcdPis6float4", {0, 8, 16, 24, 32}},
                                                {"_Z6padded6PaddedPi", {0, 24}},
                                                {"_Z5pairs4Pair3Big7Alignedhl", {0, 8, 48, 64, 72}},
                                                {"_Z5emptyv", {}},
                                                {"_Z6hiddeni", {0}}}})
      << read_stub_of(b, ".compute_80.cudafe1.stub.c") << ": the offsets of each kernel's arguments";
}

TEST(Stub, AggregatesPassedByReference) {
  const LiveBuild& b = live("params_gencode");
  RECORD_EQ(by_reference_by_kernel(read_stub(b.read_kept(".compute_90.cudafe1.stub.c"))),
            ByKernel<std::vector<bool>>{{{"_Z1kcdPis6float4", {false, false, false, false, true}},
                                         {"_Z6padded6PaddedPi", {true, false}},
                                         {"_Z5pairs4Pair3Big7Alignedhl", {true, true, true, false, false}},
                                         {"_Z5emptyv", {}},
                                         {"_Z6hiddeni", {false}}}})
      << read_stub_of(b, ".compute_90.cudafe1.stub.c")
      << ": by_reference of each kernel's arguments: structs (float4 too) go through __cudaSetupArg, scalars and "
         "pointers through __cudaSetupArgSimple";
}

TEST(Stub, KernelsMatchPtxEntries) {
  for (const auto& name : live_names()) {
    const LiveBuild& b = live(name);
    RECORD_SCOPE(read_stub_of(b, for_compute_90(b, ".cudafe1.stub.c")));
    const std::string stub_text = b.read_kept(for_compute_90(b, ".cudafe1.stub.c"));
    StubFile stub = read_stub(stub_text);
    std::vector<std::string> registered;
    for (const auto& e : stub.entries) registered.push_back(e.symbol);
    RECORD_EQ(sorted(mangled_names(stub)), [&] {
      std::vector<std::string> names;
      for (const auto& e : truth_ptx(b.read_kept(for_compute_90(b, ".ptx")))) names.push_back(truth_stub_name(stub_text, e.name));
      return sorted(names);
    }()) << "the kernels' mangled names, sorted: one stub for each .entry of the PTX (an extern \"C\" kernel's "
            "stub has a C++ name), and nothing else is a stub";
    RECORD_EQ(sorted(registered), [&] {
      std::vector<std::string> names;
      for (const auto& e : truth_ptx(b.read_kept(for_compute_90(b, ".ptx")))) names.push_back(e.name);
      return sorted(names);
    }()) << "the registered entries' symbols, sorted: __cudaRegisterEntry names every .entry of the PTX, extern "
            "\"C\" ones by their plain name";
  }
}

TEST(Stub, RegisteredEntries) {
  const LiveBuild& b = live("multi_sm90");
  StubFile stub = read_stub(b.read_kept(".cudafe1.stub.c"));
  RECORD_EQ(stub.fatbin_include, "multi.fatbin.c") << read_stub_of(b, ".cudafe1.stub.c") << ": its fatbin_include";
  ByKernel<int> limits;
  for (const auto& e : stub.entries) limits.items[e.symbol] = e.max_threads;
  // __launch_bounds__(128, 4) on bounded; no bound (-1) on the others;
  // extern "C" plain_c is registered under its plain name.
  RECORD_EQ(limits, ByKernel<int>{{{"_Z5scaleIfLi2EEvPT_S0_", -1},
                                   {"_Z5scaleIdLi3EEvPT_S0_", -1},
                                   {"plain_c", -1},
                                   {"_Z7boundedPfi", 128},
                                   {"_Z4fillIfEvPT_S0_i", -1},
                                   {"_Z4fillIiEvPT_S0_i", -1},
                                   {"_ZN2ns5innerEPKii", -1}}})
      << read_stub_of(b, ".cudafe1.stub.c") << ": the max_threads of each registered entry, by symbol";
  const LiveBuild& vadd = live("vadd_gencode");
  RECORD_EQ(read_stub(vadd.read_kept(".compute_80.cudafe1.stub.c")).fatbin_include, "vadd.fatbin.c")
      << read_stub_of(vadd, ".compute_80.cudafe1.stub.c") << ": its fatbin_include";
}

TEST(Stub, FixtureWithManyKernels) {
  {
    RECORD_SCOPE(
        "read_stub(the committed params.cudafe1.stub.c of `nvcc --keep --keep-dir k -arch=sm_90 -c params.cu -o "
        "params.o`)");
    StubFile params = read_stub(fixture("params.cudafe1.stub.c"));
    RECORD_EQ(mangled_names(params), std::vector<std::string>{"_Z1kcdPis6float4", "_Z6padded6PaddedPi",
                                                              "_Z5pairs4Pair3Big7Alignedhl", "_Z5emptyv", "_Z6hiddeni"})
        << "the kernels' mangled names, in file order";
    RECORD_EQ(offsets_of(kernel_at(params, 0)), std::vector<std::size_t>{0, 8, 16, 24, 32}) << "kernel 0's offsets";
    RECORD_EQ(offsets_of(kernel_at(params, 2)), std::vector<std::size_t>{0, 8, 48, 64, 72}) << "kernel 2's offsets";
    RECORD_EQ(params.entries, std::vector<RegisteredEntry>{{"_Z6hiddeni", -1},
                                                           {"_Z5emptyv", -1},
                                                           {"_Z5pairs4Pair3Big7Alignedhl", -1},
                                                           {"_Z6padded6PaddedPi", -1},
                                                           {"_Z1kcdPis6float4", -1}})
        << "the registered entries, in file order: registration runs in reverse order of definition";
  }
  {
    RECORD_SCOPE(
        "read_stub(the committed multi.cudafe1.stub.c of `nvcc --keep --keep-dir k -arch=sm_80 -c multi.cu -o "
        "multi.o`)");
    StubFile multi = read_stub(fixture("multi.cudafe1.stub.c"));
    RECORD_EQ(mangled_names(multi),
              std::vector<std::string>{"_Z5scaleIfLi2EEvPT_S0_", "_Z5scaleIdLi3EEvPT_S0_", "_Z7plain_cPf", "_Z7boundedPfi",
                                       "_Z4fillIfEvPT_S0_i", "_Z4fillIiEvPT_S0_i", "_ZN2ns5innerEPKii"})
        << "the kernels' mangled names, in file order: the template wrappers (__wrapper__device_stub_...) and the calls "
           "of each stub are not stubs";
    RECORD_EQ(offsets_of(kernel_at(multi, 4)), std::vector<std::size_t>{0, 8, 12}) << "kernel 4's offsets";
    // ns::inner copies its __restrict__ pointer into __T4 first, over two lines.
    RECORD_EQ(kernel_at(multi, 6).arguments, std::vector<StubArgument>{{"__T4", 0, false}, {"__par1", 8, false}})
        << "kernel 6's arguments (ns::inner copies its __restrict__ pointer into __T4 first)";
    RECORD_EQ(multi.fatbin_include, "multi.fatbin.c") << "its fatbin_include";
    RECORD_EQ(multi.entries, std::vector<RegisteredEntry>{{"_ZN2ns5innerEPKii", -1},
                                                          {"_Z4fillIiEvPT_S0_i", -1},
                                                          {"_Z4fillIfEvPT_S0_i", -1},
                                                          {"_Z7boundedPfi", 128},
                                                          {"plain_c", -1},
                                                          {"_Z5scaleIdLi3EEvPT_S0_", -1},
                                                          {"_Z5scaleIfLi2EEvPT_S0_", -1}})
        << "the registered entries, in file order";
  }
}

TEST(Stub, MalformedInputThrows) {
  struct Case {
    std::string text;
    Expected<std::string> line;
  };
  const std::vector<Case> cases = {
      // A body that never closes.
      {"#include \"x.fatbin.c\"\n\nvoid __device_stub__Z1fi(int __par0) {\n__cudaSetupArgSimple(__par0, 0UL);\n",
       LAUNCHLAB_EXPECTED(std::string("line 3"))},
      // An offset that is not a number.
      {"void __device_stub__Z1fi(int __par0)\n{\n  __cudaSetupArgSimple(__par0, zero);\n}\n",
       LAUNCHLAB_EXPECTED(std::string("line 3"))},
      // A parameter list that never closes.
      {"\n\nvoid __device_stub__Z1fi(int __par0\n", LAUNCHLAB_EXPECTED(std::string("line 3"))},
  };
  for (const Case& c : cases) {
    RECORD_SCOPE("read_stub(<the text below>)\n" + lt::with_line_numbers(c.text));
    RECORD_THROWS(read_stub(c.text), std::runtime_error);
    const std::string message = lt::message_thrown<std::runtime_error>([&] { read_stub(c.text); });
    RECORD_CONTAINS(message, c.line) << "the exception's message names the line";
  }
  // Nothing to read is not an error.
  StubFile none = read_stub("");
  RECORD_EQ(none.kernels.size(), 0u) << "read_stub(\"\"): how many kernels";
  RECORD_EQ(none.entries.size(), 0u) << "read_stub(\"\"): how many entries";
  RECORD_EQ(none.fatbin_include, "") << "read_stub(\"\"): its fatbin_include";
}

}  // namespace
