// Part C: fatbins, bare or inside a host file.
//
//   cuobjdump --list-elf --list-ptx app     the same entries, as cuobjdump lists them
#include <string>

#include <launchlab/bytes.h>

#include "containers.h"

namespace launchlab::containers {
namespace {

using bytes::hex;
using bytes::read_le;

constexpr std::uint64_t kContainerHeader = 16;
constexpr std::uint64_t kEntryHeaderMin = 64;
constexpr std::uint64_t kWrapperSize = 24;
constexpr std::uint16_t kEmCuda = 190;

}  // namespace

std::vector<FatbinContainer> walk_containers(std::span<const std::byte> bytes, std::uint64_t base) {
  std::vector<FatbinContainer> containers;
  std::uint64_t at = 0;
  while (at < bytes.size()) {
    if (std::to_integer<std::uint8_t>(bytes[at]) == 0) {  // alignment between containers
      ++at;
      continue;
    }
    FatbinContainer c;
    c.offset = base + at;
    if (bytes.size() - at < kContainerHeader) throw FormatError(c.offset, "a fatbin container header is cut short");
    std::uint32_t magic = read_le<std::uint32_t>(bytes, at);
    if (magic != kContainerMagic) throw FormatError(c.offset, "no fatbin container here: magic " + hex(magic));
    c.version = read_le<std::uint16_t>(bytes, at + 4);
    c.header_size = read_le<std::uint16_t>(bytes, at + 6);
    c.size = read_le<std::uint64_t>(bytes, at + 8);
    if (c.header_size < kContainerHeader || c.header_size > bytes.size() - at)
      throw FormatError(c.offset, "the container's header size " + std::to_string(c.header_size) + " is impossible");
    const std::uint64_t first = at + c.header_size;
    if (c.size > bytes.size() - first)
      throw FormatError(c.offset, "the container's " + std::to_string(c.size) + " bytes of entries run past the end");
    const std::uint64_t end = first + c.size;
    std::uint64_t e = first;
    while (e < end) {
      FatbinEntry entry;
      entry.offset = base + e;
      if (end - e < kEntryHeaderMin) throw FormatError(entry.offset, "a fatbin entry header is cut short");
      entry.kind = read_le<std::uint16_t>(bytes, e);
      entry.header_size = read_le<std::uint32_t>(bytes, e + 4);
      entry.payload_size = read_le<std::uint64_t>(bytes, e + 8);
      entry.compressed_size = read_le<std::uint32_t>(bytes, e + 16);
      entry.version_minor = read_le<std::uint16_t>(bytes, e + 24);
      entry.version_major = read_le<std::uint16_t>(bytes, e + 26);
      entry.arch = read_le<std::uint32_t>(bytes, e + 28);
      entry.flags = read_le<std::uint64_t>(bytes, e + 40);
      entry.uncompressed_size = read_le<std::uint64_t>(bytes, e + 56);
      if (entry.header_size < kEntryHeaderMin || entry.header_size > end - e)
        throw FormatError(entry.offset, "the entry's header size " + std::to_string(entry.header_size) + " is impossible");
      if (entry.payload_size > end - e - entry.header_size)
        throw FormatError(entry.offset, "the entry's payload of " + std::to_string(entry.payload_size) +
                                            " bytes runs past its container");
      if (!entry.compressed()) entry.uncompressed_size = entry.payload_size;
      entry.payload_offset = entry.offset + entry.header_size;
      c.entries.push_back(entry);
      e += entry.header_size + entry.payload_size;
    }
    containers.push_back(std::move(c));
    at = end;
  }
  return containers;
}

FatbinFile read_fatbin_file(std::span<const std::byte> bytes) {
  FatbinFile file;
  if (bytes.size() >= 4 && read_le<std::uint32_t>(bytes, 0) == kContainerMagic) {
    file.containers = walk_containers(bytes, 0);
    return file;
  }
  ElfFile elf = read_elf(bytes);
  if (elf.machine == kEmCuda) {
    FatbinEntry entry;
    entry.kind = 2;
    entry.payload_size = bytes.size();
    entry.uncompressed_size = bytes.size();
    entry.arch = static_cast<std::uint32_t>(cubin_arch(elf));
    FatbinContainer c;
    c.size = bytes.size();
    c.entries.push_back(entry);
    file.containers.push_back(std::move(c));
    return file;
  }
  if (const ElfSection* segment = elf.find_section(".nvFatBinSegment")) {
    std::span<const std::byte> data = elf.contents(*segment);
    if (data.size() % kWrapperSize != 0)
      throw FormatError(segment->offset, ".nvFatBinSegment's size " + std::to_string(data.size()) +
                                             " is not a multiple of 24");
    for (std::uint64_t at = 0; at < data.size(); at += kWrapperSize) {
      FatbinWrapper w;
      w.offset = segment->offset + at;
      w.magic = read_le<std::uint32_t>(data, at);
      w.version = read_le<std::uint32_t>(data, at + 4);
      w.data = read_le<std::uint64_t>(data, at + 8);
      w.filename_or_fatbins = read_le<std::uint64_t>(data, at + 16);
      if (w.magic != kWrapperMagic) throw FormatError(w.offset, "a fatbin wrapper with magic " + hex(w.magic));
      file.wrappers.push_back(w);
    }
  }
  if (const ElfSection* fatbin = elf.find_section(".nv_fatbin")) {
    file.containers = walk_containers(elf.contents(*fatbin), fatbin->offset);
  }
  return file;
}

std::vector<std::byte> entry_payload(const FatbinEntry& entry, std::span<const std::byte> file) {
  if (entry.payload_offset > file.size() || entry.payload_size > file.size() - entry.payload_offset)
    throw FormatError(entry.offset, "the entry's payload lies outside the file");
  std::span<const std::byte> payload = file.subspan(entry.payload_offset, entry.payload_size);
  if (!entry.compressed()) return {payload.begin(), payload.end()};
  if (entry.flags & kFlagCompressedLz4) throw std::runtime_error("LZ4-compressed fatbin entries are not supported");
  if (entry.compressed_size > payload.size())
    throw FormatError(entry.offset, "the compressed size " + std::to_string(entry.compressed_size) +
                                        " is larger than the payload");
  constexpr std::uint64_t kLargest = std::uint64_t{1} << 30;  // no GPU code object is near 1 GiB
  if (entry.uncompressed_size > kLargest)
    throw FormatError(entry.offset, "an uncompressed size of " + std::to_string(entry.uncompressed_size) +
                                        " bytes is not believable");
  try {
    return zstd_decompress(payload.first(entry.compressed_size), entry.uncompressed_size);
  } catch (const std::runtime_error& e) {
    if (!zstd_available()) throw;
    throw FormatError(entry.payload_offset, e.what());
  }
}

}  // namespace launchlab::containers
