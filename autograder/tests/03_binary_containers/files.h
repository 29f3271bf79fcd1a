// What the tests of 03_binary_containers share: the committed files
// (fixtures/README.md, and the cubins of 02_reading_sass/fixtures), fresh
// nvcc builds, how the lab's values are recorded, and the truth about a file
// from independent readers: binutils' readelf, ptxas -v, cuobjdump -elf and
// cuobjdump --list-elf --list-ptx (committed listings, or live where
// cuobjdump is installed). The truth is used only in the expected half of
// records, and the readers of this file exist only in the reference build
// (launchlab/record.h): the learner's program never holds them.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "../02_reading_sass/cubin_fixtures.h"
#include "containers.h"
#include "launchlab/bytes.h"
#include "launchlab/record.h"

namespace launchlab::containers {

// How the lab's values are recorded: by their fields.
nlohmann::json record_value(const KernelParam& param);
nlohmann::json record_value(const NvInfoRecord& record);

}  // namespace launchlab::containers

namespace launchlab::cubin_fixtures {

/// The same fields as a KernelParam, so that the two compare equal.
nlohmann::json record_value(const CuobjdumpParam& param);

}  // namespace launchlab::cubin_fixtures

namespace launchlab::containers_tests {
namespace cubin_fixtures = launchlab::cubin_fixtures;
using containers::FatbinFile;
using containers::KernelParam;
using cubin_fixtures::cubin_path;
using cubin_fixtures::cubin_stems;
using cubin_fixtures::stem_arch;

/// A number as the learner reads offsets: "0x1a0".
struct Hex {
  std::uint64_t value = 0;
};
nlohmann::json record_value(const Hex& hex);
using launchlab::bytes::hex;

/// A file's bytes.
std::vector<std::byte> bytes_of(const std::filesystem::path& path);
/// A committed fixture of this lab: labs/03_binary_containers/fixtures/<name>.
std::filesystem::path fixture_path(std::string_view name);
std::string fixture_text(std::string_view name);

/// One number for many bytes (FNV-1a): equal when every byte is.
std::string checksum(std::span<const std::byte> bytes);

/// What a call that should fail on malformed input did: "FormatError at
/// offset 0x1a0", "throws another exception: ...", or "throws nothing".
template <class Call>
std::string format_error_of(Call&& call) {
  try {
    call();
  } catch (const containers::FormatError& e) {
    return "FormatError at offset " + hex(e.offset());
  } catch (const std::exception& e) {
    return std::string("throws another exception: ") + e.what();
  }
  return "throws nothing";
}

/// What `.nv.info` says about a kernel, as KernelInfo holds it and as
/// cuobjdump -elf prints it.
struct KernelFacts {
  std::optional<std::uint32_t> registers;
  std::optional<std::uint32_t> frame_size;
  std::uint32_t param_base = 0, param_size = 0;
  std::vector<KernelParam> params;
  std::optional<std::uint32_t> max_threads;
};
nlohmann::json record_value(const KernelFacts& facts);
KernelFacts facts_of(const containers::KernelInfo& kernel);

/// The names of the kernels read_cubin found, sorted.
std::vector<std::string> sorted_kernel_names(const containers::CubinInfo& info);

/// The entries a reader found, one (kind, arch) each: {"elf", 80}, {"ptx", 90}.
std::vector<std::pair<std::string, int>> entry_list(const FatbinFile& file);
/// Such a list as a record shows it: "elf 80", "ptx 90".
std::vector<std::string> describe_list(const std::vector<std::pair<std::string, int>>& list);

/// readelf's path, or nothing (binutils is not installed).
std::optional<std::filesystem::path> readelf();

/// A folder kept for the whole test program, holding copies of the kernels.
const std::filesystem::path& work_dir();

#ifndef LAUNCHLAB_EXERCISE
/// The same facts, from cuobjdump -elf.
KernelFacts facts_of(const cubin_fixtures::CuobjdumpKernel& kernel);

// --- readelf ---------------------------------------------------------------

/// One row of `readelf -SW`.
struct TruthSection {
  std::string name;
  std::uint64_t address = 0, offset = 0, size = 0, entry_size = 0, alignment = 0;
  std::uint32_t link = 0, info = 0;
};
std::vector<TruthSection> readelf_sections(const std::filesystem::path& file);
/// One row of the `.symtab` part of `readelf -sW`.
struct TruthSymbol {
  std::string name;
  std::uint64_t value = 0, size = 0;
  std::string type, binding;
  std::uint8_t other = 0;
  std::string section;  ///< "UND", "ABS" or the number
};
std::vector<TruthSymbol> readelf_symbols(const std::filesystem::path& file);
/// `readelf -h`'s "Flags:" and "ABI Version:".
struct TruthHeader {
  std::uint32_t flags = 0;
  int abi_version = 0;
  std::string type;  ///< "EXEC", "REL", "DYN"
};
TruthHeader readelf_header(const std::filesystem::path& file);

// --- cuobjdump ---------------------------------------------------------------

/// `cuobjdump --list-elf --list-ptx`: one (kind, arch) a line, kind "elf" or "ptx".
std::vector<std::pair<std::string, int>> cuobjdump_list(std::string_view listing);

// --- ptxas -v ------------------------------------------------------------------

/// What `ptxas -v` reports for one entry function.
struct TruthPtxas {
  std::uint32_t registers = 0;
  std::uint32_t stack_frame = 0;
  std::uint32_t cmem0 = 0;  ///< "N bytes cmem[0]": the bank's size, parameters included
};
std::map<std::string, TruthPtxas> ptxas_verbose(std::string_view output);

/// A kernel's parameters from PTX: offset and size, each at the next
/// multiple of its alignment (01's rule).
std::map<std::string, std::vector<KernelParam>> ptx_params(std::string_view ptx);
#endif  // LAUNCHLAB_EXERCISE

}  // namespace launchlab::containers_tests
