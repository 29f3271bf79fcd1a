// libFuzzer target: read_field and write_field (07_qmd) on arbitrary words
// and ranges. A range is valid when hi >= lo, it is at most 64 bits wide and
// hi is inside the words: then the result must equal a bit-by-bit reference;
// otherwise QmdError must be thrown and nothing written.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "qmd.h"

using launchlab::qmd::Field;
using launchlab::qmd::QmdError;

namespace {

std::uint64_t reference_read(const std::vector<std::uint32_t>& w, unsigned hi, unsigned lo) {
  std::uint64_t v = 0;
  for (unsigned bit = hi + 1; bit-- > lo;) v = (v << 1) | ((w[bit / 32] >> (bit % 32)) & 1);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 16) return 0;
  std::uint32_t hi, lo;
  std::uint64_t value;
  std::memcpy(&hi, data, 4);
  std::memcpy(&lo, data + 4, 4);
  std::memcpy(&value, data + 8, 8);
  // Mostly small ranges, so that valid ones are common; sometimes anything.
  if ((hi & 0x80000000u) == 0) {
    hi &= 0x3ff;
    lo &= 0x3ff;
  }
  std::vector<std::uint32_t> words((size - 16) / 4);
  if (!words.empty()) std::memcpy(words.data(), data + 16, words.size() * 4);
  const Field field{hi, lo};
  const bool valid = hi >= lo && hi - lo < 64 && static_cast<std::uint64_t>(hi) < 32 * static_cast<std::uint64_t>(words.size());

  try {
    const std::uint64_t got = launchlab::qmd::read_field(words, field);
    if (!valid || got != reference_read(words, hi, lo)) std::abort();
  } catch (const QmdError&) {
    if (valid) std::abort();
  }

  const std::vector<std::uint32_t> before = words;
  const unsigned width = hi - lo + 1;
  const bool fits = valid && (width >= 64 || (value >> width) == 0);
  try {
    launchlab::qmd::write_field(words, field, value);
    if (!fits) std::abort();
    if (reference_read(words, hi, lo) != value) std::abort();
    for (std::size_t bit = 0; bit < 32 * words.size(); ++bit) {  // every other bit unchanged
      if (bit >= lo && bit <= hi) continue;
      if (((words[bit / 32] ^ before[bit / 32]) >> (bit % 32)) & 1) std::abort();
    }
  } catch (const QmdError&) {
    if (fits || words != before) std::abort();
  }
  return 0;
}
