// Part A: read_elf and cubin_arch, against binutils' readelf on the
// committed cubins, an object, an executable and a CUDA library, and on
// truncated and corrupted copies.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "containers.h"
#include "files.h"
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

// read_elf(bytes) must throw FormatError naming `offset`.
::testing::AssertionResult throws_at(const std::vector<std::byte>& bytes, std::uint64_t offset) {
  try {
    read_elf(bytes);
  } catch (const FormatError& e) {
    if (e.offset() != offset)
      return ::testing::AssertionFailure() << "FormatError at offset " << e.offset() << ", expected " << offset << ": "
                                           << e.what();
    std::string what = e.what();
    if (what.find("offset") == std::string::npos)
      return ::testing::AssertionFailure() << "the message should name the offset: " << what;
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "expected FormatError, got: " << e.what();
  }
  return ::testing::AssertionFailure() << "expected FormatError at offset " << offset << ", nothing was thrown";
}

TEST(Elf, HeaderOfEveryFile) {
  auto tool = readelf();
  if (!tool) GTEST_SKIP() << "needs readelf (binutils), which is not installed here";
  for (const auto& file : elf_files()) {
    SCOPED_TRACE(file.filename().string());
    auto bytes = bytes_of(file);
    ElfFile elf = read_elf(bytes);
    TruthHeader h = readelf_header(file);
    EXPECT_EQ(elf.flags, h.flags) << "e_flags";
    EXPECT_EQ(elf.abi_version, h.abi_version) << "EI_ABIVERSION";
    const std::map<std::string, std::uint16_t> types = {{"REL", 1}, {"EXEC", 2}, {"DYN", 3}};
    ASSERT_TRUE(types.count(h.type)) << h.type;
    EXPECT_EQ(elf.type, types.at(h.type)) << "e_type (readelf: " << h.type << ")";
    EXPECT_EQ(elf.machine, file.extension() == ".cubin" ? 190 : 62) << "e_machine";
  }
}

TEST(Elf, SectionsMatchReadelf) {
  auto tool = readelf();
  if (!tool) GTEST_SKIP() << "needs readelf (binutils), which is not installed here";
  for (const auto& file : elf_files()) {
    SCOPED_TRACE(file.filename().string());
    auto bytes = bytes_of(file);
    ElfFile elf = read_elf(bytes);
    auto truth = readelf_sections(file);
    ASSERT_EQ(elf.sections.size(), truth.size()) << "sections";
    for (std::size_t i = 0; i < truth.size(); ++i) {
      const ElfSection& s = elf.sections[i];
      const TruthSection& t = truth[i];
      SCOPED_TRACE("section [" + std::to_string(i) + "] " + t.name);
      EXPECT_EQ(s.name, t.name);
      EXPECT_EQ(s.address, t.address) << "address";
      EXPECT_EQ(s.offset, t.offset) << "offset";
      EXPECT_EQ(s.size, t.size) << "size";
      EXPECT_EQ(s.entry_size, t.entry_size) << "entry size";
      EXPECT_EQ(s.link, t.link) << "link";
      EXPECT_EQ(s.info, t.info) << "info";
      EXPECT_EQ(s.alignment, t.alignment) << "alignment";
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(Elf, SymbolsMatchReadelf) {
  auto tool = readelf();
  if (!tool) GTEST_SKIP() << "needs readelf (binutils), which is not installed here";
  const std::map<std::string, int> types = {{"NOTYPE", 0}, {"OBJECT", 1}, {"FUNC", 2}, {"SECTION", 3},
                                            {"FILE", 4},   {"COMMON", 5}, {"TLS", 6}};
  const std::map<std::string, int> bindings = {{"LOCAL", 0}, {"GLOBAL", 1}, {"WEAK", 2}};
  for (const auto& file : elf_files()) {
    SCOPED_TRACE(file.filename().string());
    auto bytes = bytes_of(file);
    ElfFile elf = read_elf(bytes);
    auto truth = readelf_symbols(file);
    ASSERT_EQ(elf.symbols.size(), truth.size()) << "symbols in .symtab";
    for (std::size_t i = 0; i < truth.size(); ++i) {
      const ElfSymbol& s = elf.symbols[i];
      const TruthSymbol& t = truth[i];
      SCOPED_TRACE("symbol " + std::to_string(i) + " " + t.name);
      // readelf shows a section symbol without a name by its section's name.
      std::string name = s.name;
      if (name.empty() && s.type == 3 && s.section < elf.sections.size()) name = elf.sections[s.section].name;
      EXPECT_TRUE(name == t.name || name == t.name.substr(0, t.name.find('@')))
          << "name: readelf says " << t.name << ", got " << name;
      EXPECT_EQ(s.value, t.value) << "value";
      EXPECT_EQ(s.size, t.size) << "size";
      if (types.count(t.type)) {
        EXPECT_EQ(s.type, types.at(t.type)) << "type " << t.type;
      }
      if (bindings.count(t.binding)) {
        EXPECT_EQ(s.binding, bindings.at(t.binding)) << "binding " << t.binding;
      }
      EXPECT_EQ(s.other & 0xfc, t.other & 0xfc) << "st_other";
      if (t.section == "UND") {
        EXPECT_EQ(s.section, 0);
      } else if (t.section == "ABS") {
        EXPECT_EQ(s.section, 0xfff1);
      } else if (t.section != "COM") {
        EXPECT_EQ(std::to_string(s.section), t.section) << "section index";
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(Elf, CubinArchitectures) {
  // The architecture each cubin was compiled for (-arch=sm_NN, in its name).
  for (const auto& stem : cubin_stems()) {
    auto bytes = bytes_of(cubin_path(stem));
    EXPECT_EQ(cubin_arch(read_elf(bytes)), stem_arch(stem)) << stem;
  }
  // Before ABI version 8 the low byte holds it (an sm_75 cubin of an older toolkit).
  ElfFile old;
  old.machine = 190;
  old.abi_version = 7;
  old.flags = 0x004b054b;
  EXPECT_EQ(cubin_arch(old), 75) << "ABI version 7, e_flags 0x004b054b";
  auto host = bytes_of(fixture_path("vadd.o"));
  EXPECT_THROW(cubin_arch(read_elf(host)), std::invalid_argument) << "an x86-64 object is not a cubin";
}

TEST(Elf, TruncatedAndCorruptFilesNameTheOffset) {
  const auto good = bytes_of(cubin_path("vadd.sm_90"));
  const std::uint64_t shoff = u64_at(good, 40);
  // Shorter than the ELF header.
  for (std::size_t size : {0, 4, 63}) {
    EXPECT_TRUE(throws_at({good.begin(), good.begin() + static_cast<std::ptrdiff_t>(size)}, 0)) << size << " bytes";
  }
  // Not ELF, not 64-bit.
  {
    auto b = good;
    b[1] = std::byte{'X'};
    EXPECT_TRUE(throws_at(b, 0)) << "bad magic";
    b = good;
    b[4] = std::byte{1};
    EXPECT_TRUE(throws_at(b, 0)) << "ELFCLASS32";
  }
  // Cut inside the section header table: the first header that is cut.
  for (std::uint64_t k : {0, 1, 5}) {
    std::size_t size = static_cast<std::size_t>(shoff + 64 * k + 10);
    EXPECT_TRUE(throws_at({good.begin(), good.begin() + static_cast<std::ptrdiff_t>(size)}, shoff + 64 * k))
        << "file cut " << size << " bytes in, inside section header " << k;
  }
  // A section whose bytes lie past the end of the file: its header.
  {
    auto b = good;
    put_u64(b, static_cast<std::size_t>(shoff + 64 * 3 + 32), 0x7fffffffffffffffULL);
    EXPECT_TRUE(throws_at(b, shoff + 64 * 3)) << "section 3 with an enormous sh_size";
    b = good;
    put_u64(b, static_cast<std::size_t>(shoff + 64 * 4 + 24), good.size() - 2);
    EXPECT_TRUE(throws_at(b, shoff + 64 * 4)) << "section 4 starting 2 bytes before the end";
  }
  // A section name outside the name table: that section's header.
  {
    auto b = good;
    put_u32(b, static_cast<std::size_t>(shoff + 64 * 2), 0x00ffffff);
    EXPECT_TRUE(throws_at(b, shoff + 64 * 2)) << "section 2's sh_name far outside .shstrtab";
  }
  // e_shstrndx not a section: the ELF header.
  {
    auto b = good;
    b[62] = std::byte{0x70};
    b[63] = std::byte{0};
    EXPECT_TRUE(throws_at(b, 0)) << "e_shstrndx 112";
  }
}

TEST(Elf, CorruptBytesNeverCrash) {
  // Thousands of damaged copies: each either reads or throws FormatError
  // (std::invalid_argument from read_cubin on a file that is not a cubin).
  std::mt19937 random(20260302);
  for (const char* source : {"cubin", "object"}) {
    const auto good = std::string(source) == "cubin" ? bytes_of(cubin_path("zoo.sm_90")) : bytes_of(fixture_path("vadd.o"));
    ASSERT_GT(read_elf(good).sections.size(), 10u) << "the undamaged " << source << " reads";
    int refused = 0;
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
        FAIL() << source << " round " << round << ": expected FormatError, got " << e.what();
      }
    }
    // Damage in the headers is seen: a reader that checks nothing refuses nothing.
    EXPECT_GT(refused, 150) << source << ": damaged copies refused, of 1500";
  }
}

}  // namespace
