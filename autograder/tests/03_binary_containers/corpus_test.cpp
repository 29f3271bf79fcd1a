// Part B on a real corpus: read_cubin on sm_90 cubins of the toolkit's
// libcublasLt.so.13, against what `cuobjdump -elf` printed for the same
// kernels on a machine that has it. gpu_corpus.sh (next to this file)
// compared every kernel of every sm_90 cubin of the library there and kept a
// sample, fixtures/libcublasLt.so.13.kernels.json: for each cubin of the
// sample, its fatbin entry's offset in the library, and for some of its
// kernels the registers, the parameter base and size and the parameters.
// Here the test takes each cubin from the library by that offset (the
// library must be the sample's: same size) and gives it to the learner's
// reader.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "containers.h"
#include "files.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"

namespace {
namespace fs = std::filesystem;
namespace lt = launchlab::testing;
using namespace launchlab::containers;
using namespace launchlab::containers_tests;

std::uint64_t little_endian(std::span<const std::byte> bytes, std::uint64_t at, int width) {
  std::uint64_t v = 0;
  for (int i = 0; i < width; ++i) v |= static_cast<std::uint64_t>(std::to_integer<std::uint8_t>(bytes[at + i])) << (8 * i);
  return v;
}

// The cubin of the fatbin entry whose header is at `offset` in the library:
// its payload, inflated when it is compressed with zstd. The header's
// fields are read where chapter 03 puts them (kind at 0, header size at 4,
// payload size at 8, compressed size at 16, flags at 40, inflated size at
// 56). This prepares the input; it decides nothing.
std::vector<std::byte> entry_cubin(std::span<const std::byte> library, std::uint64_t offset) {
  constexpr std::uint64_t kHeader = 64;
  if (offset > library.size() || library.size() - offset < kHeader)
    throw std::runtime_error("the sample's entry offset " + hex(offset) + " lies outside the library");
  const std::uint64_t header_size = little_endian(library, offset + 4, 4);
  const std::uint64_t payload_size = little_endian(library, offset + 8, 8);
  const std::uint64_t compressed_size = little_endian(library, offset + 16, 4);
  const std::uint64_t flags = little_endian(library, offset + 40, 8);
  const std::uint64_t inflated_size = little_endian(library, offset + 56, 8);
  if (little_endian(library, offset, 2) != 2 || header_size < kHeader || payload_size > library.size() - offset - header_size)
    throw std::runtime_error("the sample's entry at " + hex(offset) + " is not an ELF entry of this library");
  auto payload = library.subspan(offset + header_size, payload_size);
  if ((flags & kFlagCompressedZstd) == 0) return {payload.begin(), payload.end()};
  if (compressed_size > payload_size) throw std::runtime_error("the entry at " + hex(offset) + " has a wrong compressed size");
  return zstd_decompress(payload.first(compressed_size), inflated_size);
}

TEST(Kernels, LibcublasLtSampleMatchesCuobjdumpElf) {
  const fs::path lib = lt::nvcc().parent_path().parent_path() / "lib64" / "libcublasLt.so.13";
  if (!fs::exists(lib)) GTEST_SKIP() << "needs the toolkit's libcublasLt.so.13, which is not installed here";
  const fs::path sample_file = fixture_path("libcublasLt.so.13.kernels.json");
  if (!fs::exists(sample_file))
    GTEST_SKIP() << "the corpus sample (fixtures/libcublasLt.so.13.kernels.json, made by gpu_corpus.sh on a machine "
                    "with cuobjdump) is not committed";
  if (!zstd_available()) GTEST_SKIP() << "needs libzstd.so.1 to inflate the library's cubins";
  const auto sample = nlohmann::json::parse(lt::read_file(sample_file));
  MappedFile mapped(lib);
  if (mapped.bytes().size() != sample.at("library_size").get<std::uint64_t>())
    GTEST_SKIP() << "this libcublasLt.so.13 is not the build the sample was made from (another size)";
  for (const auto& cubin : sample.at("cubins")) {
    const std::string which = "ELF entry " + std::to_string(cubin.at("elf_number").get<int>()) + " of libcublasLt.so.13 (" +
                              cubin.at("cubin").get<std::string>() + ", at " +
                              hex(cubin.at("entry_offset").get<std::uint64_t>()) + ")";
    RECORD_SCOPE("read_cubin(read_elf(the bytes of " + which + "))");
    const auto bytes = entry_cubin(mapped.bytes(), cubin.at("entry_offset").get<std::uint64_t>());
    CubinInfo info = read_cubin(read_elf(bytes));
    RECORD_EQ(info.arch, 90) << "its arch";
    // Which kernels the sample holds is input; what it says about them is
    // the truth, read in the expected half only.
    std::set<std::string> sampled;
    for (const auto& k : cubin.at("kernels")) sampled.insert(k.at("name").get<std::string>());
    std::size_t found = 0;
    for (const auto& k : info.kernels) {
      if (!sampled.count(k.name)) continue;
      ++found;
      RECORD_SCOPE("the kernel " + k.name);
      [[maybe_unused]] auto truth = [&](const char* field) {
        for (const auto& t : cubin.at("kernels"))
          if (t.at("name") == k.name) return t.at(field);
        return nlohmann::json();
      };
      RECORD_EQ(k.registers, [&] {
        const auto v = truth("registers");
        return v.is_null() ? std::optional<std::uint32_t>() : std::optional<std::uint32_t>(v.get<std::uint32_t>());
      }()) << "its registers (EIATTR_REGCOUNT), as cuobjdump -elf printed them";
      RECORD_EQ(Hex{k.param_base}, Hex{truth("param_base").get<std::uint32_t>()})
          << "its param_base (EIATTR_PARAM_CBANK), as cuobjdump -elf printed it";
      RECORD_EQ(k.param_size, truth("param_size").get<std::uint32_t>())
          << "its param_size (EIATTR_PARAM_CBANK), as cuobjdump -elf printed it";
      RECORD_EQ(k.params, [&] {
        std::vector<KernelParam> params;
        for (const auto& p : truth("params"))
          params.push_back({p.at(0).get<std::uint32_t>(), p.at(1).get<std::uint32_t>(), p.at(2).get<std::uint32_t>()});
        return params;
      }()) << "its parameters (EIATTR_KPARAM_INFO, or attribute 0x45 past 4,352 bytes), as cuobjdump -elf printed them";
    }
    RECORD_EQ(found, sampled.size()) << "how many of the " << sampled.size()
                                     << " kernels the sample names for this cubin read_cubin finds";
  }
}

}  // namespace
