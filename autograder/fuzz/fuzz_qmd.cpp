// libFuzzer target: decode (07_qmd) on arbitrary bytes. Byte 0 picks the
// version (3, 4 or 5 by its value mod 3), the rest is the QMD. Bad input must
// throw QmdError; a QMD that decodes must encode back: encode_into(decode(q))
// leaves q unchanged, and decode(encode(decode(q))) gives the same Qmd.
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "qmd.h"

using namespace launchlab::qmd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const QmdVersion versions[] = {QmdVersion::V03_00, QmdVersion::V04_00, QmdVersion::V05_00};
  const QmdVersion version = versions[data[0] % 3];
  std::vector<std::uint32_t> words;
  try {
    words = words_from_bytes(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  } catch (const QmdError&) {
    if ((size - 1) % 4 == 0) std::abort();
    return 0;
  }
  Qmd q;
  try {
    q = decode(words, version);
  } catch (const QmdError&) {
    return 0;
  }
  if (q.version != version) std::abort();
  try {
    std::vector<std::uint32_t> again = words;
    encode_into(q, again);
    if (again != words) std::abort();
    if (decode(encode(q), version) != q) std::abort();
  } catch (const QmdError&) {
    std::abort();  // what decode returns must be encodable
  }
  (void)to_json(q);
  (void)to_text(q);
  return 0;
}
