// Part A: an ELF64 reader.
//
//   readelf -hSsW vadd.cubin     the same file, as binutils reads it
#include <cstring>
#include <string>

#include "containers.h"

namespace launchlab::containers {
namespace {

// A little-endian read at an offset you have checked (it does not check).
template <class T>
[[maybe_unused]] T read_le(std::span<const std::byte> bytes, std::uint64_t at) {
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    value |= static_cast<T>(static_cast<T>(std::to_integer<std::uint8_t>(bytes[at + i])) << (8 * i));
  return value;
}

}  // namespace

ElfFile read_elf(std::span<const std::byte> bytes) {
  ElfFile elf;
  elf.bytes = bytes;
  // TODO(student): check e_ident (\x7fELF, class 2, data 1), read the header
  // fields, then e_shnum section headers of 64 bytes at e_shoff, their names
  // from section e_shstrndx, and the 24-byte entries of .symtab (type
  // SYMTAB) with names from the section its sh_link names. Check every
  // offset and size against bytes.size() before reading, and throw
  // FormatError(offset, "...") at the offset containers.h lists for that
  // structure (a section's problems at its header, not at its bytes).
  return elf;
}

int cubin_arch(const ElfFile& elf) {
  // TODO(student): e_machine must be 190; the architecture sits in e_flags,
  // in a place that depends on the ABI version (see containers.h).
  (void)elf;
  return 0;
}

}  // namespace launchlab::containers
