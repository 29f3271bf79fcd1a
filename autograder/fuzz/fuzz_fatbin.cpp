// read_fatbin_file on anything (bare fatbins, host ELF files, cubins), and
// entry_payload on each entry that claims less than 1 MiB inflated.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "containers.h"

using namespace launchlab::containers;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    FatbinFile fb = read_fatbin_file(bytes);
    for (const auto& c : fb.containers) {
      for (const auto& e : c.entries) {
        if (e.uncompressed_size > (1u << 20)) continue;
        try {
          (void)entry_payload(e, bytes);
        } catch (const FormatError&) {
        } catch (const std::runtime_error& error) {
          // The one other refusal entry_payload documents.
          if (std::string(error.what()).find("LZ4") == std::string::npos) std::abort();
        }
      }
    }
  } catch (const FormatError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
