// Part A: an ELF64 reader.
//
//   readelf -hSsW vadd.cubin     the same file, as binutils reads it
#include <cstring>
#include <string>

#include <launchlab/bytes.h>

#include "containers.h"

namespace launchlab::containers {

// Given in launchlab/bytes.h: read_le<T>(bytes, offset), a little-endian
// read that throws std::out_of_range past the end (a guard: the FormatError
// the contract asks for is yours to throw first), and fits(offset, size,
// total), the overflow-safe bounds check.
using bytes::fits;
using bytes::read_le;

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
