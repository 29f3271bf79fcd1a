// Part C: fatbins, bare or inside a host file.
//
//   cuobjdump --list-elf --list-ptx app     the same entries, as cuobjdump lists them
#include <string>

#include <launchlab/bytes.h>

#include "containers.h"

namespace launchlab::containers {

// launchlab/bytes.h gives read_le<T>(bytes, offset), fits(offset, size,
// total) and hex(value), as elf_reader.cpp says.

std::vector<FatbinContainer> walk_containers(std::span<const std::byte> bytes, std::uint64_t base) {
  // TODO(student): container header (16 bytes: magic, version, header size,
  // size of entries), then entries back to back until the container's end
  // (see containers.h for the entry header); zero bytes between containers
  // are padding. Every size read from the file must be checked before it
  // is used: throw FormatError(offset, "...") otherwise.
  (void)bytes;
  (void)base;
  return {};
}

FatbinFile read_fatbin_file(std::span<const std::byte> bytes) {
  FatbinFile file;
  // TODO(student): a bare fatbin starts with the container magic; a cubin
  // (e_machine 190) becomes one ELF entry; any other ELF file has its
  // wrappers in .nvFatBinSegment (24 bytes each) and its containers in
  // .nv_fatbin.
  (void)bytes;
  return file;
}

std::vector<std::byte> entry_payload(const FatbinEntry& entry, std::span<const std::byte> file) {
  // TODO(student): the payload bytes; when the zstd flag is set, the first
  // compressed_size bytes inflated with zstd_decompress to
  // uncompressed_size bytes. A frame that does not inflate is a
  // FormatError at the payload's offset, the other checks at the entry's
  // (see containers.h).
  (void)entry;
  (void)file;
  return {};
}

}  // namespace launchlab::containers
