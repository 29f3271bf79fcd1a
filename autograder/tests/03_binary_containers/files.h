// What the tests of 03_binary_containers share: the committed files
// (fixtures/README.md, and the cubins of 02_reading_sass/fixtures), fresh
// nvcc builds, and the truth about a file from independent readers:
// binutils' readelf, ptxas -v, cuobjdump -elf and cuobjdump --list-elf
// --list-ptx (committed listings, or live where cuobjdump is installed).
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "containers.h"

namespace launchlab::containers_tests {
using containers::FatbinFile;
using containers::KernelParam;

/// A file's bytes.
std::vector<std::byte> bytes_of(const std::filesystem::path& path);
/// A committed fixture of this lab: autograder/tests/03_binary_containers/fixtures/<name>.
std::filesystem::path fixture_path(std::string_view name);
std::string fixture_text(std::string_view name);
/// The committed cubins of 02_reading_sass: "vadd.sm_80", ... "zoo.sm_120".
std::vector<std::string> cubin_stems();
std::filesystem::path cubin_path(const std::string& stem);
int stem_arch(const std::string& stem);

// --- readelf ---------------------------------------------------------------

/// readelf's path, or nothing (binutils is not installed).
std::optional<std::filesystem::path> readelf();
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

/// One `Attribute:` block of `cuobjdump -elf` inside a .nv.info section.
struct TruthAttribute {
  std::string name;    ///< "EIATTR_REGCOUNT"
  std::string format;  ///< "EIFMT_SVAL"
  std::string value;   ///< the text after "Value:" and any lines that continue it, blanks collapsed
};
/// Section name (".nv.info", ".nv.info._Z4vaddPKfS0_Pfi") -> its attributes, in order.
std::map<std::string, std::vector<TruthAttribute>> cuobjdump_nv_info(std::string_view cuobjdump_elf);

/// What cuobjdump -elf says about one kernel.
struct TruthKernel {
  std::optional<std::uint32_t> registers;
  std::optional<std::uint32_t> frame_size;
  std::uint32_t param_base = 0, param_size = 0;
  std::vector<KernelParam> params;  ///< sorted by ordinal
  std::optional<std::uint32_t> max_threads;
};
std::map<std::string, TruthKernel> cuobjdump_kernels(std::string_view cuobjdump_elf);

/// `cuobjdump --list-elf --list-ptx`: one (kind, arch) a line, kind "elf" or "ptx".
std::vector<std::pair<std::string, int>> cuobjdump_list(std::string_view listing);
/// The same from what the learner's reader found.
std::vector<std::pair<std::string, int>> entry_list(const FatbinFile& file);

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

// --- live builds -----------------------------------------------------------------

/// A folder kept for the whole test program, holding copies of the kernels.
const std::filesystem::path& work_dir();

/// "{ordinal 0 offset 0 size 8}, ..." for messages.
std::vector<std::string> describe(const std::vector<KernelParam>& params);

}  // namespace launchlab::containers_tests
