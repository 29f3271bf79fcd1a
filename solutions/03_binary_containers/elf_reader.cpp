// Part A: an ELF64 reader.
//
//   readelf -hSsW vadd.cubin     the same file, as binutils reads it
#include <cstring>
#include <string>

#include <launchlab/bytes.h>

#include "containers.h"

namespace launchlab::containers {
namespace {

using bytes::fits;
using bytes::read_le;

constexpr std::size_t kHeaderSize = 64;
constexpr std::size_t kSectionHeaderSize = 64;
constexpr std::size_t kSymbolSize = 24;
constexpr std::uint32_t kSymtab = 2;
constexpr std::uint32_t kNoBits = 8;
constexpr std::uint32_t kNull = 0;

// The NUL-terminated string at `at` inside a string table section.
std::string name_in(const ElfFile& elf, const ElfSection& table, std::uint64_t at, std::uint64_t where,
                    const char* what) {
  if (table.type == kNull || table.type == kNoBits || !fits(table.offset, table.size, elf.bytes.size()))
    throw FormatError(where, std::string(what) + " names come from a section without bytes in the file");
  if (at >= table.size) throw FormatError(where, std::string(what) + " name offset " + std::to_string(at) +
                                                     " lies outside " + table.name);
  std::span<const std::byte> strings = elf.bytes.subspan(table.offset, table.size);
  const char* begin = reinterpret_cast<const char*>(strings.data()) + at;
  const void* end = std::memchr(begin, 0, table.size - at);
  if (!end) throw FormatError(where, std::string(what) + " name is not NUL-terminated in " + table.name);
  return std::string(begin, static_cast<const char*>(end));
}

}  // namespace

ElfFile read_elf(std::span<const std::byte> bytes) {
  ElfFile elf;
  elf.bytes = bytes;
  if (bytes.size() < kHeaderSize) throw FormatError(0, "truncated ELF header: " + std::to_string(bytes.size()) + " bytes");
  static const unsigned char magic[4] = {0x7f, 'E', 'L', 'F'};
  if (std::memcmp(bytes.data(), magic, 4) != 0) throw FormatError(0, "not an ELF file (no \\x7fELF)");
  if (read_le<std::uint8_t>(bytes, 4) != 2) throw FormatError(0, "not a 64-bit ELF file (EI_CLASS)");
  if (read_le<std::uint8_t>(bytes, 5) != 1) throw FormatError(0, "not a little-endian ELF file (EI_DATA)");
  elf.os_abi = read_le<std::uint8_t>(bytes, 7);
  elf.abi_version = read_le<std::uint8_t>(bytes, 8);
  elf.type = read_le<std::uint16_t>(bytes, 16);
  elf.machine = read_le<std::uint16_t>(bytes, 18);
  elf.flags = read_le<std::uint32_t>(bytes, 48);
  const std::uint64_t shoff = read_le<std::uint64_t>(bytes, 40);
  const std::uint16_t shentsize = read_le<std::uint16_t>(bytes, 58);
  std::uint64_t shnum = read_le<std::uint16_t>(bytes, 60);
  std::uint64_t shstrndx = read_le<std::uint16_t>(bytes, 62);
  if (shoff == 0) return elf;  // no section header table
  if (shentsize != kSectionHeaderSize)
    throw FormatError(0, "section header size is " + std::to_string(shentsize) + ", not 64");
  if (!fits(shoff, kSectionHeaderSize, bytes.size()))
    throw FormatError(shoff, "the section header table lies outside the file");
  // Extended numbering: a count or string-table index too large for the
  // header lives in section 0 (sh_size and sh_link).
  if (shnum == 0) shnum = read_le<std::uint64_t>(bytes, shoff + 32);
  if (shstrndx == 0xffff) shstrndx = read_le<std::uint32_t>(bytes, shoff + 40);
  if (shnum > (bytes.size() - shoff) / kSectionHeaderSize)
    throw FormatError(shoff + (bytes.size() - shoff) / kSectionHeaderSize * kSectionHeaderSize,
                      "the section header table (" + std::to_string(shnum) + " headers) runs past the end of the file");

  std::vector<std::uint32_t> name_offsets;
  elf.sections.reserve(shnum);
  for (std::uint64_t i = 0; i < shnum; ++i) {
    const std::uint64_t at = shoff + i * kSectionHeaderSize;
    ElfSection s;
    name_offsets.push_back(read_le<std::uint32_t>(bytes, at));
    s.type = read_le<std::uint32_t>(bytes, at + 4);
    s.flags = read_le<std::uint64_t>(bytes, at + 8);
    s.address = read_le<std::uint64_t>(bytes, at + 16);
    s.offset = read_le<std::uint64_t>(bytes, at + 24);
    s.size = read_le<std::uint64_t>(bytes, at + 32);
    s.link = read_le<std::uint32_t>(bytes, at + 40);
    s.info = read_le<std::uint32_t>(bytes, at + 44);
    s.alignment = read_le<std::uint64_t>(bytes, at + 48);
    s.entry_size = read_le<std::uint64_t>(bytes, at + 56);
    // Every section with bytes must lie inside the file (a NULL section's
    // fields mean nothing: section 0's may hold extended numbering).
    if (s.type != kNoBits && s.type != kNull && !fits(s.offset, s.size, bytes.size()))
      throw FormatError(at, "section " + std::to_string(i) + "'s bytes lie outside the file");
    elf.sections.push_back(s);
  }
  if (shnum == 0 || shstrndx == 0) return elf;  // no section names (SHN_UNDEF)
  if (shstrndx >= shnum) throw FormatError(0, "e_shstrndx " + std::to_string(shstrndx) + " is not a section");
  const ElfSection& names = elf.sections[shstrndx];
  if (names.type == kNoBits) throw FormatError(shoff + shstrndx * kSectionHeaderSize, "the section-name table has no bytes");
  for (std::uint64_t i = 0; i < shnum; ++i) {
    const std::uint64_t at = shoff + i * kSectionHeaderSize;
    elf.sections[i].name = (i == 0 && name_offsets[i] == 0 && names.size == 0) ? std::string()
                                                                               : name_in(elf, names, name_offsets[i], at, "section");
  }

  // .symtab: the first SYMTAB section.
  for (std::uint64_t i = 0; i < shnum; ++i) {
    const ElfSection& symtab = elf.sections[i];
    if (symtab.type != kSymtab) continue;
    const std::uint64_t header_at = shoff + i * kSectionHeaderSize;
    if (symtab.entry_size != kSymbolSize)
      throw FormatError(header_at, "the symbol table's entry size is " + std::to_string(symtab.entry_size) + ", not 24");
    if (symtab.link == 0 || symtab.link >= shnum) throw FormatError(header_at, "the symbol table's string table is not a section");
    const ElfSection& strings = elf.sections[symtab.link];
    if (strings.type == kNoBits) throw FormatError(header_at, "the symbol table's string table has no bytes");
    const std::uint64_t count = symtab.size / kSymbolSize;
    elf.symbols.reserve(count);
    for (std::uint64_t j = 0; j < count; ++j) {
      const std::uint64_t at = symtab.offset + j * kSymbolSize;
      ElfSymbol sym;
      std::uint32_t name = read_le<std::uint32_t>(bytes, at);
      std::uint8_t info = read_le<std::uint8_t>(bytes, at + 4);
      sym.type = info & 0xf;
      sym.binding = info >> 4;
      sym.other = read_le<std::uint8_t>(bytes, at + 5);
      sym.section = read_le<std::uint16_t>(bytes, at + 6);
      sym.value = read_le<std::uint64_t>(bytes, at + 8);
      sym.size = read_le<std::uint64_t>(bytes, at + 16);
      sym.name = (name == 0 && strings.size == 0) ? std::string() : name_in(elf, strings, name, at, "symbol");
      elf.symbols.push_back(std::move(sym));
    }
    break;
  }
  return elf;
}

int cubin_arch(const ElfFile& elf) {
  constexpr std::uint16_t kEmCuda = 190;
  constexpr std::uint8_t kAbiCudaV1 = 7;
  if (elf.machine != kEmCuda) throw std::invalid_argument("not a cubin: e_machine is " + std::to_string(elf.machine));
  if (elf.abi_version <= kAbiCudaV1) return static_cast<int>(elf.flags & 0xff);
  return static_cast<int>((elf.flags >> 8) & 0xff);
}

}  // namespace launchlab::containers
