// Part A: reading and writing MW(hi:lo) ranges of a word array.
#include <algorithm>
#include <string>

#include "qmd.h"

namespace launchlab::qmd {
namespace {

std::string describe(Field field) {
  return "MW(" + std::to_string(field.hi) + ":" + std::to_string(field.lo) + ")";
}

void check_range(std::size_t words, Field field) {
  if (field.hi < field.lo) throw QmdError(describe(field) + ": hi is below lo");
  if (field.hi - field.lo >= 64) {
    throw QmdError(describe(field) + ": " + std::to_string(field.hi - field.lo + 1) +
                   " bits do not fit in a 64-bit value");
  }
  // Compare in 64 bits: 32 * words could overflow an unsigned on a huge span.
  if (static_cast<std::uint64_t>(field.hi) >= 32 * static_cast<std::uint64_t>(words)) {
    throw QmdError(describe(field) + ": bit " + std::to_string(field.hi) + " is past the end of " +
                   std::to_string(words) + " words (" + std::to_string(32 * static_cast<std::uint64_t>(words)) +
                   " bits)");
  }
}

}  // namespace

std::uint64_t read_field(std::span<const std::uint32_t> words, Field field) {
  check_range(words.size(), field);
  std::uint64_t value = 0;
  unsigned taken = 0;  // bits of the value filled so far
  unsigned bit = field.lo;
  while (bit <= field.hi) {
    const unsigned word = bit / 32;
    const unsigned shift = bit % 32;
    const unsigned last = std::min(field.hi, word * 32 + 31);  // last bit of this range in this word
    const unsigned count = last - bit + 1;
    const std::uint64_t mask = count == 32 ? 0xffffffffull : ((1ull << count) - 1);
    value |= ((static_cast<std::uint64_t>(words[word]) >> shift) & mask) << taken;
    taken += count;
    bit = last + 1;
  }
  return value;
}

void write_field(std::span<std::uint32_t> words, Field field, std::uint64_t value) {
  check_range(words.size(), field);
  const unsigned width = field.width();
  if (width < 64 && (value >> width) != 0) {
    throw QmdError(describe(field) + ": the value " + std::to_string(value) + " does not fit in " +
                   std::to_string(width) + " bits");
  }
  unsigned taken = 0;
  unsigned bit = field.lo;
  while (bit <= field.hi) {
    const unsigned word = bit / 32;
    const unsigned shift = bit % 32;
    const unsigned last = std::min(field.hi, word * 32 + 31);
    const unsigned count = last - bit + 1;
    const std::uint64_t mask = count == 32 ? 0xffffffffull : ((1ull << count) - 1);
    const std::uint32_t part = static_cast<std::uint32_t>((value >> taken) & mask);
    const std::uint32_t word_mask = static_cast<std::uint32_t>(mask << shift);
    words[word] = (words[word] & ~word_mask) | static_cast<std::uint32_t>(part << shift);
    taken += count;
    bit = last + 1;
  }
}

}  // namespace launchlab::qmd
