// read_elf, then read_cubin and every .nv.info section of a cubin: any input
// either reads or throws FormatError (std::invalid_argument for a file that
// is not a cubin); anything else, a crash or a sanitizer report, is a bug.
#include <cstddef>
#include <cstdint>
#include <span>

#include "containers.h"

using namespace launchlab::containers;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    ElfFile elf = read_elf(bytes);
    for (const auto& s : elf.sections) {
      if (s.name.rfind(".nv.info", 0) == 0) (void)decode_nv_info(elf.contents(s), s.offset);
    }
    if (elf.machine == 190) (void)read_cubin(elf);
  } catch (const FormatError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
