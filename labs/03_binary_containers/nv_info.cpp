// Part B: the .nv.info records of a cubin.
//
//   cuobjdump -elf vadd.cubin    the same records, as cuobjdump prints them
#include <algorithm>
#include <map>
#include <string>

#include <launchlab/bytes.h>

#include "containers.h"

namespace launchlab::containers {

// launchlab/bytes.h gives read_le<T>(bytes, offset), fits(offset, size,
// total) and hex(value), as elf_reader.cpp says.

std::vector<NvInfoRecord> decode_nv_info(std::span<const std::byte> section, std::uint64_t section_offset) {
  // TODO(student): records of u8 format, u8 attribute, u16 value; an SVAL
  // record (format 4) is followed by `value` bytes of payload. Keep every
  // record, known or not. A format outside 1..4, or a record that runs past
  // the section's end, throws FormatError naming the record's file offset
  // (section_offset + its position).
  (void)section;
  (void)section_offset;
  return {};
}

CubinInfo read_cubin(const ElfFile& elf) {
  CubinInfo info;
  // TODO(student): the architecture (cubin_arch); the records of .nv.info
  // (REGCOUNT and FRAME_SIZE are {u32 symbol index, u32 value}); then one
  // KernelInfo per kernel symbol (FUNC, st_other & 0x10, defined in section
  // .text.<name>), in section order, filled from .nv.info.<name>:
  // PARAM_CBANK, KPARAM_INFO or KPARAM_INFO_V2 (sorted by ordinal),
  // MAX_THREADS.
  (void)elf;
  return info;
}

}  // namespace launchlab::containers
