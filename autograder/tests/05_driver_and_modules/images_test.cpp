// Part A, on the CPU: images nvcc writes here, at test time, from
// kernels/small.cu.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "driver.h"
#include "launchlab/drawn.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "support.h"

namespace launchlab::driver_tests {
namespace {

using launchlab::driver::identify_image;
using launchlab::testing::Expected;

std::vector<std::byte> bytes(std::string_view text) {
  std::vector<std::byte> out(text.size());
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

// What sass_runs_on says for each (sm, major, minor), in order.
std::vector<bool> runs_on_each(const std::vector<std::array<int, 3>>& cases) {
  std::vector<bool> runs;
  for (const auto& [sm, major, minor] : cases) runs.push_back(launchlab::driver::sass_runs_on(sm, major, minor));
  return runs;
}

std::string as_text(const std::vector<std::byte>& image) {
  return std::string(reinterpret_cast<const char*>(image.data()), image.size());
}

TEST(Images, IdentifiesWhatNvccWrites) {
  // nvcc -ptx -arch=compute_75 small.cu, ptxas -arch=sm_90 of that PTX, and
  // fatbinary --create of both: what nvcc -cubin and nvcc -fatbin would write.
  const Compiled& ptx = ptx75("small.cu");
  RECORD_EQ(identify_image(ptx.bytes), launchlab::driver::ImageKind::Ptx)
      << "identify_image(what nvcc -ptx -arch=compute_75 writes)";
  RECORD_EQ(identify_image(assemble("small.cu", 90).bytes), launchlab::driver::ImageKind::Cubin)
      << "identify_image(what ptxas -arch=sm_90 writes)";
  RECORD_EQ(identify_image(fatbin("small.cu", 90).bytes), launchlab::driver::ImageKind::Fatbin)
      << "identify_image(what fatbinary --create writes)";
  RECORD_EQ(identify_image(nul_terminated(ptx.bytes)), launchlab::driver::ImageKind::Ptx)
      << "identify_image(PTX with its terminating NUL)";
  RECORD_EQ(identify_image(bytes("// a comment\n\n   \t.version 9.0\n.target sm_90\n")), launchlab::driver::ImageKind::Ptx)
      << "identify_image(\"// a comment\\n\\n   \\t.version 9.0\\n.target sm_90\\n\"): comments and blank lines may "
         "come before .version";
  RECORD_EQ(identify_image(bytes("// a comment\r\n\r\n.version 9.0\r\n")), launchlab::driver::ImageKind::Ptx)
      << "identify_image(\"// a comment\\r\\n\\r\\n.version 9.0\\r\\n\"): a carriage return is a blank";
}

TEST(Images, UnknownBytesAreNoImage) {
  const std::string host_elf = launchlab::testing::read_file("/proc/self/exe").substr(0, 64);
  const std::vector<std::byte>& cubin = assemble("small.cu", 90).bytes;
  const std::vector<std::pair<std::string, std::vector<std::byte>>> cases = {
      {"no bytes", {}},
      {"\"\\x7f" "EL\"", bytes("\x7f" "EL")},
      {"the first 64 bytes of this test program, an x86-64 ELF file (e_machine 62)", bytes(host_elf)},
      {"the first 63 bytes of the cubin of ptxas -arch=sm_90, e_machine 190 but an ELF64 header cut short",
       std::vector<std::byte>(cubin.begin(), cubin.begin() + 63)},
      {"\"hello, world\\n\", a text that is no PTX", bytes("hello, world\n")},
      {"\".target sm_90\\n.version 9.0\\n\", PTX whose first directive is .target", bytes(".target sm_90\n.version 9.0\n")},
      {"\"\\xba\\x55\\xed\\x50\", the fatbin magic byte-swapped", bytes("\xba\x55\xed\x50")},
  };
  for (const auto& [what, image] : cases) {
    RECORD_EQ(identify_image(image), launchlab::driver::ImageKind::Unknown) << "identify_image(" << what << ")";
  }
  // One byte more and the header is whole: where Unknown ends, which code
  // that calls everything Unknown does not know.
  RECORD_EQ(identify_image(std::vector<std::byte>(cubin.begin(), cubin.begin() + 64)), launchlab::driver::ImageKind::Cubin)
      << "identify_image(the first 64 bytes of the same cubin: a whole ELF64 header with e_machine 190)";
  const std::vector<std::byte>& fat = fatbin("small.cu", 90).bytes;
  RECORD_EQ(identify_image(std::vector<std::byte>(fat.begin(), fat.begin() + 4)), launchlab::driver::ImageKind::Fatbin)
      << "identify_image(the first 4 bytes of the fatbin of fatbinary --create: its magic alone)";
}

TEST(Images, PtxImageEndsWithExactlyOneNul) {
  using launchlab::driver::ptx_image;
  RECORD_EQ(as_text(ptx_image(".version 9.0\n")), std::string(".version 9.0\n\0", 14))
      << "ptx_image(\".version 9.0\\n\")";
  RECORD_EQ(as_text(ptx_image(std::string_view(".version 9.0\n\0", 14))), std::string(".version 9.0\n\0", 14))
      << "ptx_image(\".version 9.0\\n\\0\"): text that already ends with its NUL gets no second one";
  RECORD_EQ(as_text(ptx_image("")), std::string("\0", 1)) << "ptx_image(\"\")";
  const Compiled& ptx = ptx75("small.cu");
  const std::string text = as_text(ptx.bytes);
  RECORD_EQ(as_text(ptx_image(text)), text + std::string("\0", 1))
      << "ptx_image(the PTX nvcc -ptx -arch=compute_75 wrote for small.cu)";
  RECORD_THROWS(ptx_image(std::string_view(".version 9.0\0.target sm_90\n", 27)), std::invalid_argument)
      << "ptx_image(\".version 9.0\\0.target sm_90\\n\"): a NUL inside the text";
}

TEST(Images, CubinArchitectureFromTheElfHeader) {
  for (int sm : {75, 80, 86, 90, 100, 120}) {
    const Compiled& cubin = assemble("small.cu", sm);
    const std::string call = "cubin_sm(the cubin of ptxas -arch=sm_" + std::to_string(sm) + ")";
    RECORD_NO_THROW(launchlab::driver::cubin_sm(cubin.bytes)) << call;
    std::optional<int> got;
    try {
      got = launchlab::driver::cubin_sm(cubin.bytes);
    } catch (const std::exception&) {
    }
    RECORD_EQ(got, sm) << call;
  }
  RECORD_THROWS(launchlab::driver::cubin_sm(ptx75("small.cu").bytes), std::invalid_argument)
      << "cubin_sm(PTX): PTX is no cubin";
  RECORD_THROWS(launchlab::driver::cubin_sm(fatbin("small.cu", 90).bytes), std::invalid_argument)
      << "cubin_sm(a fatbin): a fatbin is no cubin";
}

TEST(Images, CubinSmChecksTheAbiAndReadsBits8To15) {
  // The cubin of ptxas -arch=sm_90 with its ELF header changed. A valid row
  // writes a drawn architecture into bits 8 to 15 of e_flags and drawn bits
  // into the rest of it; an invalid row gives EI_OSABI or EI_ABIVERSION a
  // value other than nvcc 13.0's (0x41 and 8). Only code that rejects
  // exactly the invalid rows and reads the architecture from those eight
  // bits matches the solution.
  const std::vector<std::byte>& cubin = assemble("small.cu", 90).bytes;
  std::mt19937_64 random = launchlab::testing::seeded_random(20260503);
  for (const bool valid : launchlab::testing::draw_validity(random, 8)) {
    std::vector<std::byte> patched = cubin;
    std::string change;
    if (valid) {
      const auto sm = static_cast<std::uint32_t>(random() % 256);
      const auto flags = (static_cast<std::uint32_t>(random()) & 0xffff00ffu) | (sm << 8);
      std::memcpy(patched.data() + 48, &flags, sizeof flags);
      char shown[48];
      std::snprintf(shown, sizeof shown, "e_flags %#010x (bits 8 to 15: %u)", flags, sm);
      change = shown;
    } else {
      const bool os_abi = random() % 2 == 0;
      const std::size_t at = os_abi ? 7 : 8;
      const unsigned nvcc13 = os_abi ? 0x41 : 8;
      const auto value = static_cast<unsigned>((nvcc13 + 1 + random() % 255) % 256);
      patched[at] = static_cast<std::byte>(value);
      change = std::string(os_abi ? "EI_OSABI" : "EI_ABIVERSION") + " " + std::to_string(value);
    }
    RECORD_OUTCOME(launchlab::driver::cubin_sm(patched), std::invalid_argument)
        << "cubin_sm(the cubin of ptxas -arch=sm_90 with " << change << ")";
  }
}

TEST(Images, SassRunsWithinItsMajorVersion) {
  // The CUDA C++ Programming Guide, "Binary Compatibility": a cubin for
  // compute capability X.y runs on X.z with z >= y, and nowhere else.
  struct Case {
    int sm, major, minor;
    Expected<bool> runs;
  };
  const std::vector<Case> cases = {
      {80, 8, 0, LAUNCHLAB_EXPECTED(true)},    {80, 8, 6, LAUNCHLAB_EXPECTED(true)},
      {80, 8, 9, LAUNCHLAB_EXPECTED(true)},    {86, 8, 0, LAUNCHLAB_EXPECTED(false)},
      {80, 9, 0, LAUNCHLAB_EXPECTED(false)},   {90, 9, 0, LAUNCHLAB_EXPECTED(true)},
      {75, 7, 5, LAUNCHLAB_EXPECTED(true)},    {70, 7, 5, LAUNCHLAB_EXPECTED(true)},
      {75, 8, 0, LAUNCHLAB_EXPECTED(false)},   {100, 12, 0, LAUNCHLAB_EXPECTED(false)},
      {120, 12, 0, LAUNCHLAB_EXPECTED(true)},  {120, 10, 0, LAUNCHLAB_EXPECTED(false)},
  };
  for (const Case& c : cases) {
    RECORD_EQ(launchlab::driver::sass_runs_on(c.sm, c.major, c.minor), c.runs)
        << "sass_runs_on(" << c.sm << ", " << c.major << ", " << c.minor << "): SASS for sm_" << c.sm
        << " on a device of compute capability " << c.major << "." << c.minor;
  }
  // Drawn cases, half of them of the device's own major version: each answer
  // alone is one of two values, so they are recorded as one list.
  std::mt19937_64 random = launchlab::testing::seeded_random(20260502);
  std::vector<std::array<int, 3>> drawn(16);
  std::string shown;
  for (auto& [sm, major, minor] : drawn) {
    major = 7 + static_cast<int>(random() % 6);
    minor = static_cast<int>(random() % 10);
    sm = 10 * (random() % 2 == 0 ? major : 7 + static_cast<int>(random() % 6)) + static_cast<int>(random() % 10);
    shown += " (" + std::to_string(sm) + ", " + std::to_string(major) + ", " + std::to_string(minor) + ")";
  }
  RECORD_OUTCOME(runs_on_each(drawn), std::invalid_argument) << "sass_runs_on(sm, major, minor) for each of" << shown;
}

}  // namespace
}  // namespace launchlab::driver_tests
