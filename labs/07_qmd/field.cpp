// Part A: reading and writing MW(hi:lo) ranges of a word array.
//
// Bit n of the QMD is bit (n % 32) of word (n / 32): MW(583:580) is bits 4..7
// of word 18. Work it out on paper for MW(415:384), MW(431:416) and a range
// that crosses a word boundary, say MW(40:28), before you write code.
#include "qmd.h"

namespace launchlab::qmd {

std::uint64_t read_field(std::span<const std::uint32_t> words, Field field) {
  // TODO(student): check the range first and throw QmdError when hi < lo,
  // when it is wider than 64 bits, or when bit hi is past the end of words
  // (there are 32 * words.size() bits). Then collect the bits lo..hi, which
  // may come from two or three words, so that bit lo becomes bit 0.
  (void)words;
  (void)field;
  return 0;
}

void write_field(std::span<std::uint32_t> words, Field field, std::uint64_t value) {
  // TODO(student): the same checks as read_field, plus: a value wider than
  // the range throws QmdError (before anything is written). Then replace the
  // bits lo..hi with the value, keeping every other bit of every word.
  (void)words;
  (void)field;
  (void)value;
}

}  // namespace launchlab::qmd
