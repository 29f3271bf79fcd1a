// Live: fresh nvcc builds of the kernels, disassembled by this machine's
// cuobjdump and nvdisasm (skipped where they are not installed; the same
// behaviour is graded on the committed listings).
#include <gtest/gtest.h>

#include <string>

#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "listings.h"
#include "sass.h"

namespace {
using namespace launchlab::sass;
using namespace launchlab::sass_tests;

std::string fresh(const char* source, int arch) {
  return std::string("`nvcc -cubin -arch=sm_") + std::to_string(arch) + " " + source + "`";
}

TEST(Live, CuobjdumpSassOfAFreshBuild) {
  LAUNCHLAB_REQUIRE_TOOL(cuobjdump, "cuobjdump");
  (void)cuobjdump;
  for (int arch : kLiveArchs) {
    for (const char* source : kLiveSources) {
      RECORD_SCOPE("the output of `cuobjdump -sass` for the cubin of " + fresh(source, arch));
      const LiveBuild& b = live(source, arch);
      auto functions = parse_cuobjdump_sass(b.cuobjdump_sass);
      RECORD_EQ(listed(functions), truth_listed(truth_cuobjdump(b.cuobjdump_sass)))
          << "parse_cuobjdump_sass of it: every function's name, architecture and instructions, each at its address";
      // Every parameter read the listing shows, through cuobjdump -elf's layout.
      const auto layouts = elf_layouts(b.cuobjdump_elf);
      for (const auto& f : functions) {
        auto k = layouts.find(f.name);
        const bool cuobjdump_elf_knows_the_function = k != layouts.end();
        RECORD_REQUIRE(cuobjdump_elf_knows_the_function);
        if (k->second.param_size == 0) continue;
        RECORD_EQ(param_base(arch), k->second.param_base)
            << "param_base(" << arch << "), EIATTR_PARAM_CBANK of " << f.name;
        RECORD_EQ(param_reads(f, k->second.param_base, k->second.params),
                  truth_reads(of_function(truth_cuobjdump(b.cuobjdump_sass), f.name), k->second.param_base,
                              k->second.params))
            << "param_reads(its function " << f.name << ", with the layout cuobjdump -elf gives)";
      }
    }
  }
}

TEST(Live, NvdisasmOfAFreshBuild) {
  LAUNCHLAB_REQUIRE_TOOL(nvdisasm, "nvdisasm");
  (void)nvdisasm;
  for (int arch : kLiveArchs) {
    for (const char* source : kLiveSources) {
      const LiveBuild& b = live(source, arch);
      RECORD_EQ(listed(parse_nvdisasm(b.nvdisasm)), truth_listed(truth_nvdisasm(b.nvdisasm)))
          << "parse_nvdisasm(the output of `nvdisasm` for the cubin of " << fresh(source, arch)
          << "): every function's name, architecture and instructions, each at its address";
    }
  }
}

}  // namespace
