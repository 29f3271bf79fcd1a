// Part B: the .nv.info records of a cubin.
//
//   cuobjdump -elf vadd.cubin    the same records, as cuobjdump prints them
#include <algorithm>
#include <map>
#include <string>

#include <launchlab/bytes.h>

#include "containers.h"

namespace launchlab::containers {
namespace {

using bytes::read_le;

constexpr std::uint8_t kMaxThreads = 0x05;
constexpr std::uint8_t kParamCbank = 0x0a;
constexpr std::uint8_t kFrameSize = 0x11;
constexpr std::uint8_t kKparamInfo = 0x17;
constexpr std::uint8_t kKparamInfoV2 = 0x45;  // instead of 0x17 past 4,352 bytes of parameters
constexpr std::uint8_t kRegcount = 0x2f;
constexpr std::uint8_t kFuncType = 2;
constexpr std::uint8_t kCudaEntry = 0x10;

void need(const NvInfoRecord& r, std::size_t bytes) {
  if (r.payload.size() < bytes)
    throw FormatError(r.offset, attribute_name(r.attribute) + " has " + std::to_string(r.payload.size()) +
                                    " bytes of payload, fewer than " + std::to_string(bytes));
}

}  // namespace

std::vector<NvInfoRecord> decode_nv_info(std::span<const std::byte> section, std::uint64_t section_offset) {
  std::vector<NvInfoRecord> records;
  std::size_t at = 0;
  while (at < section.size()) {
    NvInfoRecord r;
    r.offset = section_offset + at;
    if (section.size() - at < 4) throw FormatError(r.offset, "a .nv.info record header is cut short");
    r.format = std::to_integer<std::uint8_t>(section[at]);
    r.attribute = std::to_integer<std::uint8_t>(section[at + 1]);
    r.value = read_le<std::uint16_t>(section, at + 2);
    if (r.format < 1 || r.format > 4) throw FormatError(r.offset, "unknown .nv.info format " + std::to_string(r.format));
    at += 4;
    if (r.format == static_cast<std::uint8_t>(NvInfoFormat::SVAL)) {
      if (section.size() - at < r.value)
        throw FormatError(r.offset, attribute_name(r.attribute) + "'s payload of " + std::to_string(r.value) +
                                        " bytes runs past the end of the section");
      r.payload.assign(section.begin() + static_cast<std::ptrdiff_t>(at),
                       section.begin() + static_cast<std::ptrdiff_t>(at + r.value));
      at += r.value;
    }
    records.push_back(std::move(r));
  }
  return records;
}

CubinInfo read_cubin(const ElfFile& elf) {
  CubinInfo info;
  info.arch = cubin_arch(elf);

  // Per-symbol values in .nv.info.
  std::map<std::uint32_t, std::uint32_t> registers, frames;
  if (const ElfSection* s = elf.find_section(".nv.info")) {
    info.module_records = decode_nv_info(elf.contents(*s), s->offset);
    for (const auto& r : info.module_records) {
      if (r.attribute != kRegcount && r.attribute != kFrameSize) continue;
      need(r, 8);
      (r.attribute == kRegcount ? registers : frames)[read_le<std::uint32_t>(r.payload, 0)] = read_le<std::uint32_t>(r.payload, 4);
    }
  }

  // The kernels: FUNC symbols marked as entries, in the order of their sections.
  std::vector<std::pair<std::uint16_t, std::uint32_t>> kernels;  // section index, symbol index
  for (std::uint32_t i = 0; i < elf.symbols.size(); ++i) {
    const ElfSymbol& sym = elf.symbols[i];
    if (sym.type == kFuncType && (sym.other & kCudaEntry) && sym.section < elf.sections.size() &&
        elf.sections[sym.section].name == ".text." + sym.name)
      kernels.emplace_back(sym.section, i);
  }
  std::sort(kernels.begin(), kernels.end());

  for (const auto& [section, symbol] : kernels) {
    KernelInfo k;
    k.name = elf.symbols[symbol].name;
    if (auto it = registers.find(symbol); it != registers.end()) k.registers = it->second;
    if (auto it = frames.find(symbol); it != frames.end()) k.frame_size = it->second;
    if (const ElfSection* s = elf.find_section(".nv.info." + k.name)) {
      k.records = decode_nv_info(elf.contents(*s), s->offset);
      for (const auto& r : k.records) {
        if (r.attribute == kParamCbank) {
          need(r, 8);
          k.param_base = read_le<std::uint16_t>(r.payload, 4);
          k.param_size = read_le<std::uint16_t>(r.payload, 6);
        } else if (r.attribute == kKparamInfo) {
          need(r, 12);
          k.params.push_back({read_le<std::uint16_t>(r.payload, 4), read_le<std::uint16_t>(r.payload, 6), read_le<std::uint32_t>(r.payload, 8) >> 18});
        } else if (r.attribute == kKparamInfoV2) {
          // Bytes 10 and 11 are the pointee's log-alignment and space (5 for
          // a pointer on sm_100 and later): the size is the u16 before them.
          need(r, 12);
          k.params.push_back({read_le<std::uint16_t>(r.payload, 4), read_le<std::uint16_t>(r.payload, 6), read_le<std::uint16_t>(r.payload, 8)});
        } else if (r.attribute == kMaxThreads) {
          need(r, 12);
          k.max_threads = read_le<std::uint32_t>(r.payload, 0) * read_le<std::uint32_t>(r.payload, 4) * read_le<std::uint32_t>(r.payload, 8);
        }
      }
      std::sort(k.params.begin(), k.params.end(),
                [](const KernelParam& a, const KernelParam& b) { return a.ordinal < b.ordinal; });
    }
    info.kernels.push_back(std::move(k));
  }
  return info;
}

}  // namespace launchlab::containers
