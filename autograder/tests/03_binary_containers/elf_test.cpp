// Part A: read_elf and cubin_arch, against binutils' readelf on the
// committed cubins, an object, an executable and a CUDA library, and on
// truncated and corrupted copies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "containers.h"
#include "files.h"
#include "launchlab/bytes.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"

namespace {
namespace fs = std::filesystem;
namespace lt = launchlab::testing;
using namespace launchlab::containers;
using namespace launchlab::containers_tests;

// The files compared with readelf: every committed cubin, an object, an
// executable, and (where the toolkit has it) the CUDA runtime library.
std::vector<fs::path> elf_files() {
  std::vector<fs::path> files;
  for (const auto& stem : cubin_stems()) files.push_back(cubin_path(stem));
  files.push_back(fixture_path("vadd.o"));
  files.push_back(fixture_path("vadd_exe"));
  fs::path cudart = lt::nvcc().parent_path().parent_path() / "lib64" / "libcudart.so.13";
  if (fs::exists(cudart)) files.push_back(cudart);
  return files;
}

std::string read_elf_of(const fs::path& file) { return "read_elf(the bytes of " + file.filename().string() + ")"; }

// The header fields HeaderOfEveryFile compares.
struct Header {
  std::uint16_t type = 0;
  std::uint16_t machine = 0;
  std::uint8_t abi_version = 0;
  std::uint32_t flags = 0;
};
nlohmann::json record_value(const Header& h) {
  return {{"type", h.type}, {"machine", h.machine}, {"abi_version", h.abi_version}, {"flags", hex(h.flags)}};
}

// The section header fields readelf -SW prints, as SectionsMatchReadelf compares them.
struct Section {
  std::string name;
  std::uint64_t address = 0, offset = 0, size = 0, entry_size = 0;
  std::uint32_t link = 0, info = 0;
  std::uint64_t alignment = 0;
};
nlohmann::json record_value(const Section& s) {
  return {{"name", s.name},     {"address", hex(s.address)}, {"offset", hex(s.offset)}, {"size", hex(s.size)},
          {"entry_size", s.entry_size}, {"link", s.link},    {"info", s.info},          {"alignment", s.alignment}};
}

// The symbol fields readelf -sW prints, as SymbolsMatchReadelf compares them.
struct Symbol {
  std::string name;
  std::uint64_t value = 0, size = 0;
  int type = 0, binding = 0, other = 0;
  std::uint16_t section = 0;
};
nlohmann::json record_value(const Symbol& s) {
  return {{"name", s.name},       {"value", hex(s.value)}, {"size", s.size},          {"type", s.type},
          {"binding", s.binding}, {"other", s.other},      {"section", s.section}};
}

std::uint64_t u64_at(const std::vector<std::byte>& b, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(std::to_integer<std::uint8_t>(b[at + i])) << (8 * i);
  return v;
}
void put_u64(std::vector<std::byte>& b, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i) b[at + i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}
void put_u32(std::vector<std::byte>& b, std::size_t at, std::uint32_t v) {
  for (std::size_t i = 0; i < 4; ++i) b[at + i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}

TEST(Elf, HeaderOfEveryFile) {
  if (!readelf()) GTEST_SKIP() << "needs readelf (binutils), which is not installed here";
  for (const auto& file : elf_files()) {
    auto bytes = bytes_of(file);
    ElfFile elf = read_elf(bytes);
    RECORD_EQ((Header{elf.type, elf.machine, elf.abi_version, elf.flags}), [&] {
      TruthHeader h = readelf_header(file);
      const std::map<std::string, std::uint16_t> types = {{"REL", 1}, {"EXEC", 2}, {"DYN", 3}};
      return Header{types.count(h.type) ? types.at(h.type) : std::uint16_t{0},
                    static_cast<std::uint16_t>(file.extension() == ".cubin" ? 190 : 62),
                    static_cast<std::uint8_t>(h.abi_version), h.flags};
    }()) << read_elf_of(file) << ": e_type, e_machine, EI_ABIVERSION and e_flags, as `readelf -h` reads them";
  }
}

TEST(Elf, SectionsMatchReadelf) {
  if (!readelf()) GTEST_SKIP() << "needs readelf (binutils), which is not installed here";
  for (const auto& file : elf_files()) {
    auto bytes = bytes_of(file);
    ElfFile elf = read_elf(bytes);
    std::vector<Section> got;
    for (const auto& s : elf.sections)
      got.push_back({s.name, s.address, s.offset, s.size, s.entry_size, s.link, s.info, s.alignment});
    RECORD_EQ(got, [&] {
      std::vector<Section> expected;
      for (const auto& t : readelf_sections(file))
        expected.push_back({t.name, t.address, t.offset, t.size, t.entry_size, t.link, t.info, t.alignment});
      return expected;
    }()) << read_elf_of(file) << ": every section, as `readelf -SW` reads them ([i] is section i)";
  }
}

TEST(Elf, SymbolsMatchReadelf) {
  if (!readelf()) GTEST_SKIP() << "needs readelf (binutils), which is not installed here";
  for (const auto& file : elf_files()) {
    auto bytes = bytes_of(file);
    ElfFile elf = read_elf(bytes);
    std::vector<Symbol> got;
    for (const auto& s : elf.symbols) {
      // readelf shows a section symbol without a name by its section's name.
      std::string name = s.name;
      if (name.empty() && s.type == 3 && s.section < elf.sections.size()) name = elf.sections[s.section].name;
      got.push_back({name, s.value, s.size, s.type, s.binding, s.other & 0xfc, s.section});
    }
    RECORD_EQ(got, [&] {
      // readelf's names, types, bindings and section names, in the ELF's
      // numbers. Where readelf prints something this test does not map (a
      // version after '@', an OS-specific type, a COMMON section), the
      // reference's own reading stands in for it.
      const std::map<std::string, int> types = {{"NOTYPE", 0}, {"OBJECT", 1}, {"FUNC", 2}, {"SECTION", 3},
                                                {"FILE", 4},   {"COMMON", 5}, {"TLS", 6}};
      const std::map<std::string, int> bindings = {{"LOCAL", 0}, {"GLOBAL", 1}, {"WEAK", 2}};
      std::vector<Symbol> expected;
      auto truth = readelf_symbols(file);
      for (std::size_t i = 0; i < truth.size(); ++i) {
        const TruthSymbol& t = truth[i];
        const Symbol* own = i < got.size() ? &got[i] : nullptr;
        Symbol e{t.name, t.value, t.size, 0, 0, t.other & 0xfc, 0};
        if (own && own->name == t.name.substr(0, t.name.find('@'))) e.name = own->name;
        e.type = types.count(t.type) ? types.at(t.type) : own ? own->type : -1;
        e.binding = bindings.count(t.binding) ? bindings.at(t.binding) : own ? own->binding : -1;
        if (t.section == "UND") e.section = 0;
        else if (t.section == "ABS") e.section = 0xfff1;
        else if (t.section == "COM") e.section = own ? own->section : 0;
        else e.section = static_cast<std::uint16_t>(std::stoul(t.section));
        expected.push_back(e);
      }
      return expected;
    }()) << read_elf_of(file) << ": every symbol of .symtab, as `readelf -sW` reads them ([i] is symbol i; other "
            "without its two visibility bits)";
  }
}

TEST(Elf, CubinArchitectures) {
  // The architecture each cubin was compiled for (-arch=sm_NN, in its name).
  for (const auto& stem : cubin_stems()) {
    auto bytes = bytes_of(cubin_path(stem));
    RECORD_EQ(cubin_arch(read_elf(bytes)), stem_arch(stem))
        << "cubin_arch(" << read_elf_of(cubin_path(stem)) << "), made with -arch=sm_" << stem_arch(stem);
  }
  // Before ABI version 8 the low byte holds it (an sm_75 cubin of an older toolkit).
  ElfFile old;
  old.machine = 190;
  old.abi_version = 7;
  old.flags = 0x004b054b;
  RECORD_EQ(cubin_arch(old), 75) << "cubin_arch(an ElfFile with e_machine 190, ABI version 7, e_flags 0x004b054b)";
  auto host = bytes_of(fixture_path("vadd.o"));
  RECORD_THROWS(cubin_arch(read_elf(host)), std::invalid_argument)
      << "cubin_arch(" << read_elf_of(fixture_path("vadd.o")) << "): an x86-64 object is not a cubin";
}

TEST(Elf, TruncatedAndCorruptFilesNameTheOffset) {
  const auto good = bytes_of(cubin_path("vadd.sm_90"));
  const std::uint64_t shoff = u64_at(good, 40);
  struct Case {
    std::vector<std::byte> bytes;
    std::string what;
    lt::Expected<std::uint64_t> offset;
  };
  std::vector<Case> cases;
  auto first = [&](std::size_t size) {
    return std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(size));
  };
  // Shorter than the ELF header: the header.
  for (std::size_t size : {0, 4, 63}) cases.push_back({first(size), "the first " + std::to_string(size) + " bytes of vadd.sm_90.cubin", LAUNCHLAB_EXPECTED(0)});
  // Not ELF, not 64-bit: the header.
  {
    auto b = good;
    b[1] = std::byte{'X'};
    cases.push_back({b, "vadd.sm_90.cubin with byte 1 of the magic number made 'X'", LAUNCHLAB_EXPECTED(0)});
    b = good;
    b[4] = std::byte{1};
    cases.push_back({b, "vadd.sm_90.cubin with EI_CLASS made 1 (ELFCLASS32)", LAUNCHLAB_EXPECTED(0)});
  }
  // Cut inside the section header table: the first header that is cut.
  for (std::uint64_t k : {0, 1, 5}) {
    const std::size_t size = static_cast<std::size_t>(shoff + 64 * k + 10);
    cases.push_back({first(size), "the first " + std::to_string(size) + " bytes of vadd.sm_90.cubin, which end inside section header " + std::to_string(k),
                     LAUNCHLAB_EXPECTED(shoff + 64 * k)});
  }
  // A section whose bytes lie past the end of the file: its header.
  {
    auto b = good;
    put_u64(b, static_cast<std::size_t>(shoff + 64 * 3 + 32), 0x7fffffffffffffffULL);
    cases.push_back({b, "vadd.sm_90.cubin with section 3's sh_size made 0x7fffffffffffffff", LAUNCHLAB_EXPECTED(shoff + 64 * 3)});
    b = good;
    put_u64(b, static_cast<std::size_t>(shoff + 64 * 4 + 24), good.size() - 2);
    cases.push_back({b, "vadd.sm_90.cubin with section 4's sh_offset made 2 bytes before the end", LAUNCHLAB_EXPECTED(shoff + 64 * 4)});
  }
  // A section name outside the name table: that section's header.
  {
    auto b = good;
    put_u32(b, static_cast<std::size_t>(shoff + 64 * 2), 0x00ffffff);
    cases.push_back({b, "vadd.sm_90.cubin with section 2's sh_name made 0xffffff, far outside .shstrtab", LAUNCHLAB_EXPECTED(shoff + 64 * 2)});
  }
  // e_shstrndx not a section: the ELF header.
  {
    auto b = good;
    b[62] = std::byte{0x70};
    b[63] = std::byte{0};
    cases.push_back({b, "vadd.sm_90.cubin with e_shstrndx made 112", LAUNCHLAB_EXPECTED(0)});
  }
  for (const Case& c : cases) {
    RECORD_SCOPE("read_elf(" + c.what + "; its section headers start at " + hex(shoff) + ", 64 bytes each)");
    RECORD_EQ(format_error_of([&] { read_elf(c.bytes); }), "FormatError at offset " + hex(c.offset.value));
    const std::string message = lt::message_thrown<FormatError>([&] { read_elf(c.bytes); });
    RECORD_CONTAINS(message, "offset") << "the FormatError's message names the offset";
  }
  // Beneath every reader, the shared little-endian read has its own guard,
  // which no offset can overflow.
  const std::vector<std::byte> three(3);
  RECORD_THROWS(launchlab::bytes::read_le<std::uint32_t>(three, 0), std::out_of_range) << "read_le<std::uint32_t>(3 bytes, 0)";
  RECORD_THROWS(launchlab::bytes::read_le<std::uint16_t>(three, UINT64_MAX), std::out_of_range)
      << "read_le<std::uint16_t>(3 bytes, 2^64 - 1)";
}

TEST(Elf, CorruptBytesNeverCrash) {
  // Thousands of damaged copies: each either reads or throws FormatError
  // (std::invalid_argument from read_cubin on a file that is not a cubin).
  std::mt19937 random(20260302);
  for (const char* source : {"cubin", "object"}) {
    const bool cubin = std::string(source) == "cubin";
    const std::string name = cubin ? "zoo.sm_90.cubin" : "vadd.o";
    RECORD_SCOPE("read_elf, then read_cubin for a cubin, on 1500 damaged copies of " + name);
    const auto good = cubin ? bytes_of(cubin_path("zoo.sm_90")) : bytes_of(fixture_path("vadd.o"));
    RECORD_GT(read_elf(good).sections.size(), 10u) << "how many sections the undamaged file has";
    int refused = 0;
    std::vector<std::string> other_exceptions;
    for (int round = 0; round < 1500; ++round) {
      auto b = good;
      int edits = 1 + static_cast<int>(random() % 8);
      for (int e = 0; e < edits; ++e) {
        std::size_t at = random() % b.size();
        // Favour the headers, where a damaged size or offset does harm.
        if (random() % 2) at = random() % std::min<std::size_t>(b.size(), 64);
        if (random() % 3 == 0) at = static_cast<std::size_t>(u64_at(good, 40) + random() % (b.size() - u64_at(good, 40)));
        b[at] = static_cast<std::byte>(random() & 0xff);
      }
      if (random() % 4 == 0) b.resize(random() % b.size());
      try {
        ElfFile elf = read_elf(b);
        if (elf.machine == 190) (void)read_cubin(elf);
      } catch (const FormatError&) {
        ++refused;
      } catch (const std::invalid_argument&) {
      } catch (const std::exception& e) {
        if (other_exceptions.size() < 3) other_exceptions.push_back("copy " + std::to_string(round) + ": " + e.what());
      }
    }
    RECORD_EQ(other_exceptions, std::vector<std::string>{})
        << "the copies that threw something else than FormatError (the first three)";
    // Damage in the headers is seen: a reader that checks nothing refuses nothing.
    RECORD_GT(refused, 150) << "how many damaged copies were refused with FormatError";
  }
}

}  // namespace
