// Part A, on the CPU: images nvcc writes here, at test time, from
// kernels/small.cu.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "driver.h"
#include "launchlab/testing.h"
#include "support.h"

namespace launchlab::driver_tests {
namespace {

using launchlab::driver::ImageKind;

std::string kind_name(ImageKind kind) {
  switch (kind) {
    case ImageKind::Cubin: return "Cubin";
    case ImageKind::Fatbin: return "Fatbin";
    case ImageKind::Ptx: return "Ptx";
    case ImageKind::Unknown: return "Unknown";
  }
  return "?";
}

std::vector<std::byte> bytes(std::string_view text) {
  std::vector<std::byte> out(text.size());
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

TEST(Images, IdentifiesWhatNvccWrites) {
  // nvcc -ptx -arch=compute_75 small.cu, ptxas -arch=sm_90 of that PTX, and
  // fatbinary --create of both: what nvcc -cubin and nvcc -fatbin would write.
  const Compiled& ptx = ptx75("small.cu");
  EXPECT_EQ(kind_name(launchlab::driver::identify_image(ptx.bytes)), "Ptx") << "nvcc -ptx";
  EXPECT_EQ(kind_name(launchlab::driver::identify_image(assemble("small.cu", 90).bytes)), "Cubin") << "ptxas";
  EXPECT_EQ(kind_name(launchlab::driver::identify_image(fatbin("small.cu", 90).bytes)), "Fatbin") << "fatbinary";
  EXPECT_EQ(kind_name(launchlab::driver::identify_image(nul_terminated(ptx.bytes))), "Ptx")
      << "PTX with its terminating NUL";
  EXPECT_EQ(kind_name(launchlab::driver::identify_image(bytes("// a comment\n\n   \t.version 9.0\n.target sm_90\n"))), "Ptx")
      << "comments and blank lines may come before .version";
}

TEST(Images, UnknownBytesAreNoImage) {
  const std::string host_elf = launchlab::testing::read_file("/proc/self/exe").substr(0, 64);
  const std::vector<std::pair<std::string, std::vector<std::byte>>> cases = {
      {"no bytes", {}},
      {"\"\\x7f" "EL\"", bytes("\x7f" "EL")},
      {"this test program, an x86-64 ELF file (e_machine 62)", bytes(host_elf)},
      {"a text that is no PTX", bytes("hello, world\n")},
      {"PTX whose first directive is .target", bytes(".target sm_90\n.version 9.0\n")},
      {"the fatbin magic, byte-swapped", bytes("\xba\x55\xed\x50")},
  };
  for (const auto& [what, image] : cases) {
    EXPECT_EQ(kind_name(launchlab::driver::identify_image(image)), "Unknown") << what;
  }
}

TEST(Images, PtxImageEndsWithExactlyOneNul) {
  using launchlab::driver::ptx_image;
  auto as_text = [](const std::vector<std::byte>& image) {
    return std::string(reinterpret_cast<const char*>(image.data()), image.size());
  };
  EXPECT_EQ(as_text(ptx_image(".version 9.0\n")), std::string(".version 9.0\n\0", 14));
  EXPECT_EQ(as_text(ptx_image(std::string_view(".version 9.0\n\0", 14))), std::string(".version 9.0\n\0", 14))
      << "text that already ends with its NUL gets no second one";
  EXPECT_EQ(as_text(ptx_image("")), std::string("\0", 1));
  const Compiled& ptx = ptx75("small.cu");
  const std::string text(reinterpret_cast<const char*>(ptx.bytes.data()), ptx.bytes.size());
  EXPECT_EQ(as_text(ptx_image(text)), text + std::string("\0", 1)) << "the PTX nvcc wrote";
  EXPECT_THROW(ptx_image(std::string_view(".version 9.0\0.target sm_90\n", 27)), std::invalid_argument)
      << "a NUL inside the text";
}

TEST(Images, CubinArchitectureFromTheElfHeader) {
  for (int sm : {75, 80, 86, 90, 100, 120}) {
    const Compiled& cubin = assemble("small.cu", sm);
    try {
      EXPECT_EQ(launchlab::driver::cubin_sm(cubin.bytes), sm) << "ptxas -arch=sm_" << sm;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "cubin_sm threw for the cubin of ptxas -arch=sm_" << sm << ": " << e.what();
    }
  }
  EXPECT_THROW(launchlab::driver::cubin_sm(ptx75("small.cu").bytes), std::invalid_argument) << "PTX is no cubin";
  EXPECT_THROW(launchlab::driver::cubin_sm(fatbin("small.cu", 90).bytes), std::invalid_argument)
      << "a fatbin is no cubin";
}

TEST(Images, SassRunsWithinItsMajorVersion) {
  // The CUDA C++ Programming Guide, "Binary Compatibility": a cubin for
  // compute capability X.y runs on X.z with z >= y, and nowhere else.
  struct Case {
    int sm, major, minor;
    bool runs;
  };
  for (const Case& c : {Case{80, 8, 0, true}, Case{80, 8, 6, true}, Case{80, 8, 9, true}, Case{86, 8, 0, false},
                        Case{80, 9, 0, false}, Case{90, 9, 0, true}, Case{75, 7, 5, true}, Case{70, 7, 5, true},
                        Case{75, 8, 0, false}, Case{100, 12, 0, false}, Case{120, 12, 0, true}, Case{120, 10, 0, false}}) {
    EXPECT_EQ(launchlab::driver::sass_runs_on(c.sm, c.major, c.minor), c.runs)
        << "SASS for sm_" << c.sm << " on a device of compute capability " << c.major << "." << c.minor;
  }
}

}  // namespace
}  // namespace launchlab::driver_tests
