// Live: cuobjdump on fresh nvcc builds (skipped where cuobjdump is not
// installed; the same behaviour is graded on the committed listings).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "containers.h"
#include "files.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"

namespace {
namespace fs = std::filesystem;
namespace lt = launchlab::testing;
using namespace launchlab::containers;
using namespace launchlab::containers_tests;

TEST(Live, CuobjdumpListOfAFreshExecutable) {
  LAUNCHLAB_REQUIRE_TOOL(cuobjdump, "cuobjdump");
  const fs::path& dir = work_dir();
  const std::vector<std::string> command = {
      lt::nvcc().string(), "-cudart", "shared", "-gencode", "arch=compute_80,code=sm_80", "-gencode",
      "arch=compute_100,code=[sm_100,compute_100]", "-gencode", "arch=compute_120,code=sm_120", "-o", "live_exe",
      "vadd.cu", "main.cu"};
  lt::output_of(command, dir);
  auto file = bytes_of(dir / "live_exe");
  RECORD_EQ(describe_list(entry_list(read_fatbin_file(file))),
            describe_list(cuobjdump_list(lt::output_of({cuobjdump.string(), "--list-elf", "--list-ptx", "live_exe"}, dir))))
      << "read_fatbin_file(the executable of `nvcc -cudart shared -gencode arch=compute_80,code=sm_80 -gencode "
         "arch=compute_100,code=[sm_100,compute_100] -gencode arch=compute_120,code=sm_120 -o live_exe vadd.cu "
         "main.cu`): the kind and architecture of every entry, as `cuobjdump --list-elf --list-ptx live_exe` lists them";
}

TEST(Live, CuobjdumpElfOfFreshCubins) {
  LAUNCHLAB_REQUIRE_TOOL(cuobjdump, "cuobjdump");
  const fs::path& dir = work_dir();
  for (int arch : {80, 90, 120}) {
    const std::string out = "live.sm_" + std::to_string(arch) + ".cubin";
    lt::output_of({lt::nvcc().string(), "-cubin", "-arch=sm_" + std::to_string(arch), "-o", out, "zoo.cu"}, dir);
    RECORD_SCOPE("read_cubin(read_elf(the cubin of `nvcc -cubin -arch=sm_" + std::to_string(arch) + " zoo.cu`))");
    auto file = bytes_of(dir / out);
    CubinInfo info = read_cubin(read_elf(file));
    RECORD_EQ(sorted_kernel_names(info), [&] {
      std::vector<std::string> expected;
      for (const auto& [name, k] : cubin_fixtures::cuobjdump_kernels(lt::output_of({cuobjdump.string(), "-elf", out}, dir)))
        expected.push_back(name);
      return expected;
    }()) << "its kernels' names, sorted, as `cuobjdump -elf` prints them";
    for (const auto& k : info.kernels) {
      // Registers and parameters; the frame size and the launch bounds are
      // graded on the committed cubins (Kernels.AgreeWithCuobjdumpElf).
      KernelFacts got = facts_of(k);
      got.frame_size.reset();
      got.max_threads.reset();
      RECORD_EQ(got, [&] {
        auto truth = cubin_fixtures::cuobjdump_kernels(lt::output_of({cuobjdump.string(), "-elf", out}, dir));
        KernelFacts expected = truth.count(k.name) ? facts_of(truth.at(k.name)) : KernelFacts{};
        expected.frame_size.reset();
        expected.max_threads.reset();
        return expected;
      }()) << "the kernel " << k.name << ": EIATTR_REGCOUNT, EIATTR_PARAM_CBANK and EIATTR_KPARAM_INFO, as `cuobjdump "
              "-elf` prints them (frame size and launch bounds not compared here)";
    }
  }
}

}  // namespace
