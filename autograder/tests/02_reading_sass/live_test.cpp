// Live: fresh nvcc builds of the kernels, disassembled by this machine's
// cuobjdump and nvdisasm (skipped where they are not installed; the same
// behaviour is graded on the committed listings).
#include <gtest/gtest.h>

#include <string>

#include "launchlab/testing.h"
#include "listings.h"
#include "sass.h"

namespace {
using namespace launchlab::sass;
using namespace launchlab::sass_tests;

constexpr int kArchs[] = {80, 90, 120};

TEST(Live, CuobjdumpSassOfAFreshBuild) {
  LAUNCHLAB_REQUIRE_TOOL(cuobjdump, "cuobjdump");
  (void)cuobjdump;
  for (int arch : kArchs) {
    for (const char* source : {"vadd.cu", "zoo.cu"}) {
      SCOPED_TRACE(std::string(source) + " for sm_" + std::to_string(arch));
      const LiveBuild& b = live(source, arch);
      auto functions = parse_cuobjdump_sass(b.cuobjdump_sass);
      ASSERT_TRUE(same_as_truth(functions, truth_cuobjdump(b.cuobjdump_sass)));
      // Every parameter read the listing shows, through cuobjdump -elf's layout.
      auto elf = truth_elf(b.cuobjdump_elf);
      for (const auto& f : functions) {
        auto k = elf.find(f.name);
        ASSERT_NE(k, elf.end()) << f.name;
        if (k->second.param_size == 0) continue;
        EXPECT_EQ(param_base(arch), k->second.param_base) << f.name;
        EXPECT_TRUE(launchlab::testing::SameSequence(
            describe(truth_reads(of_function(truth_cuobjdump(b.cuobjdump_sass), f.name), k->second.param_base,
                                 k->second.params)),
            describe(param_reads(f, k->second.param_base, k->second.params))))
            << f.name;
      }
    }
  }
}

TEST(Live, NvdisasmOfAFreshBuild) {
  LAUNCHLAB_REQUIRE_TOOL(nvdisasm, "nvdisasm");
  (void)nvdisasm;
  for (int arch : kArchs) {
    for (const char* source : {"vadd.cu", "zoo.cu"}) {
      SCOPED_TRACE(std::string(source) + " for sm_" + std::to_string(arch));
      const LiveBuild& b = live(source, arch);
      ASSERT_TRUE(same_as_truth(parse_nvdisasm(b.nvdisasm), truth_nvdisasm(b.nvdisasm)));
    }
  }
}

}  // namespace
