// decode_nv_info on raw bytes, as the contents of one section.
#include <cstddef>
#include <cstdint>
#include <span>

#include "containers.h"

using namespace launchlab::containers;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    auto records = decode_nv_info(bytes, 0x40);
    for (const auto& r : records) (void)attribute_name(r.attribute);
  } catch (const FormatError&) {
  }
  return 0;
}
