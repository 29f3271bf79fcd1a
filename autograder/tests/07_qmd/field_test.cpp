// Part A: read_field and write_field, against bit operations written here one
// bit at a time.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "header_fields.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "qmd.h"

namespace {
using namespace launchlab::qmd;
using launchlab::qmd_tests::get_bits;
using launchlab::qmd_tests::hex_words;
using launchlab::qmd_tests::mw;
using launchlab::qmd_tests::set_bits;

std::vector<std::uint32_t> random_words(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> words(n);
  for (auto& w : words) w = rng();
  return words;
}

// Four zero words after write_field(words, field, value).
std::vector<std::uint32_t> written_to_zero_words(Field field, std::uint64_t value) {
  std::vector<std::uint32_t> words(4, 0);
  write_field(words, field, value);
  return words;
}

// What read_field gives, or nothing when it threw.
std::optional<std::uint64_t> read(std::span<const std::uint32_t> words, Field field) {
  try {
    return read_field(words, field);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The words after write_field, as hex ([i] is word i), or nothing when it threw.
std::optional<std::vector<std::string>> written(std::vector<std::uint32_t> words, Field field, std::uint64_t value) {
  try {
    write_field(words, field, value);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return hex_words(words);
}

// The words with set_bits applied, as hex: what write_field must leave.
std::vector<std::string> expected_words(std::vector<std::uint32_t> words, unsigned hi, unsigned lo,
                                        std::uint64_t value) {
  set_bits(words, hi, lo, value);
  return hex_words(words);
}

TEST(Field, ReadsARangeInsideOneWord) {
  // Word 18 = 0x000000a0: MW(583:580) is bits 4..7 of word 18, which hold 0xa.
  std::vector<std::uint32_t> words(64, 0);
  words[18] = 0xa0;
  RECORD_SCOPE("read_field of 64 words, all zero but word 12 = 4096, word 13 = 0xbeef0001 and word 18 = 0xa0");
  words[12] = 4096;
  words[13] = 0xbeef0001;
  RECORD_EQ(read(words, {583, 580}), 0xau) << "MW(583:580), bits 4..7 of word 18 (null if it threw)";
  RECORD_EQ(read(words, {415, 384}), 4096u) << "MW(415:384), all of word 12";
  RECORD_EQ(read(words, {431, 416}), 1u) << "MW(431:416), the low half of word 13";
  RECORD_EQ(read(words, {447, 432}), 0xbeefu) << "MW(447:432), the high half of word 13";
  RECORD_EQ(read(words, {416, 416}), 1u) << "MW(416:416), bit 0 of word 13";
  RECORD_EQ(read(words, {0, 0}), 0u) << "MW(0:0)";
}

TEST(Field, ReadsEveryRangeOfRandomWords) {
  // Every range of width 1..64 at many offsets, including ranges that cross
  // one or two word boundaries.
  const auto words = random_words(8, 7);
  RECORD_SCOPE("read_field of 8 random words (the first 8 of std::mt19937 seeded with 7)");
  for (unsigned lo = 0; lo < 8 * 32; lo += 3) {
    for (unsigned width = 1; width <= 64 && lo + width <= 8 * 32; width += 5) {
      const unsigned hi = lo + width - 1;
      RECORD_EQ(read(words, {hi, lo}), get_bits(words, hi, lo)) << mw(hi, lo) << " (null if it threw)";
    }
  }
  // The widest and the last ranges exactly.
  RECORD_EQ(read(words, {63, 0}), get_bits(words, 63, 0)) << mw(63, 0);
  RECORD_EQ(read(words, {255, 192}), get_bits(words, 255, 192)) << mw(255, 192);
  RECORD_EQ(read(words, {255, 255}), get_bits(words, 255, 255)) << mw(255, 255);
  RECORD_EQ(read(words, {95, 32}), get_bits(words, 95, 32)) << mw(95, 32) << ", which spans three words";
}

TEST(Field, WritesOnlyItsOwnBits) {
  std::mt19937 rng(11);
  for (unsigned lo = 0; lo < 8 * 32; lo += 7) {
    for (unsigned width = 1; width <= 64 && lo + width <= 8 * 32; width += 9) {
      const unsigned hi = lo + width - 1;
      const auto words = random_words(8, rng());
      const std::uint64_t high = rng();
      const std::uint64_t low = rng();
      const std::uint64_t value = (high << 32 | low) >> (64 - width);  // exactly width random bits
      RECORD_EQ(written(words, {hi, lo}, value), expected_words(words, hi, lo, value))
          << "write_field(" << mw(hi, lo) << ", " << value << ") into 8 random words: the words afterwards ([i] is "
          << "word i, bits 32i to 32i + 31; null if it threw)";
    }
  }
}

TEST(Field, WritesAllOnesAndZerosAtTheEdges) {
  for (unsigned hi : {31u, 32u, 63u, 64u, 127u}) {
    for (unsigned lo : {0u, 1u, 31u, 32u}) {
      if (lo > hi || hi - lo >= 64) continue;
      const std::vector<std::uint32_t> zeros(4, 0), ones(4, 0xffffffffu);
      const std::uint64_t all = hi - lo == 63 ? ~0ull : ((1ull << (hi - lo + 1)) - 1);
      RECORD_EQ(written(zeros, {hi, lo}, all), expected_words(zeros, hi, lo, all))
          << "write_field(" << mw(hi, lo) << ", all ones) into 4 zero words: the words afterwards (null if it threw)";
      RECORD_EQ(written(ones, {hi, lo}, 0), expected_words(ones, hi, lo, 0))
          << "write_field(" << mw(hi, lo) << ", 0) into 4 all-ones words: the words afterwards (null if it threw)";
    }
  }
}

TEST(Field, RangesPastTheEndThrow) {
  std::vector<std::uint32_t> words(64, 0);
  RECORD_SCOPE("64 zero words");
  RECORD_NO_THROW(read_field(words, {2047, 2016})) << "read_field(MW(2047:2016)), the last word of a 64-word QMD";
  RECORD_THROWS(read_field(words, {2048, 2048}), QmdError) << "read_field(MW(2048:2048)), past the last bit";
  RECORD_THROWS(read_field(words, {2050, 2040}), QmdError) << "read_field(MW(2050:2040)), a range that runs off the end";
  RECORD_THROWS(read_field(std::span<const std::uint32_t>{}, {0, 0}), QmdError) << "read_field of no words at all";
  RECORD_THROWS(write_field(words, {4000, 3999}, 1), QmdError) << "write_field(MW(4000:3999), 1)";
  RECORD_THROWS(read_field(words, {3, 4}), QmdError) << "read_field(MW(3:4)): hi below lo";
  RECORD_THROWS(write_field(words, {3, 4}, 0), QmdError) << "write_field(MW(3:4), 0): hi below lo";
  RECORD_THROWS(read_field(words, {64, 0}), QmdError) << "read_field(MW(64:0)): 65 bits do not fit in a 64-bit value";
  RECORD_THROWS(read_field(words, {0xffffffffu, 0xffffffe0u}), QmdError)
      << "read_field(MW(4294967295:4294967264)), a range near the top of unsigned";
  RECORD_EQ(hex_words(words), hex_words(std::vector<std::uint32_t>(64, 0)))
      << "the words after the failed write_field calls: a failed write_field must not change them";
}

TEST(Field, ValuesTooWideThrow) {
  std::vector<std::uint32_t> words(4, 0);
  RECORD_SCOPE("4 zero words");
  RECORD_THROWS(write_field(words, {47, 32}, 1ull << 16), QmdError) << "write_field(MW(47:32), 2^16): 17 bits in 16";
  RECORD_NO_THROW(write_field(words, {47, 32}, 0xffff)) << "write_field(MW(47:32), 0xffff)";
  RECORD_THROWS(write_field(words, {0, 0}, 2), QmdError) << "write_field(MW(0:0), 2): 2 in one bit";
  const std::vector<std::uint32_t> before = words;
  RECORD_THROWS(write_field(words, {40, 28}, 1ull << 13), QmdError) << "write_field(MW(40:28), 2^13): 14 bits in 13";
  RECORD_EQ(words, before)
      << "the words after write_field(MW(40:28), 2^13): a value that does not fit must leave them unchanged";
  RECORD_NO_THROW(write_field(words, {127, 64}, ~0ull)) << "write_field(MW(127:64), 2^64 - 1): 64 bits fit in 64";
  // Drawn fields and values, every other value one bit too wide: only code
  // that rejects exactly those and writes the rest matches the solution.
  std::mt19937_64 random = launchlab::testing::seeded_random(20260702);
  for (int row = 0; row < 8; ++row) {
    const auto width = static_cast<unsigned>(1 + random() % 63);
    const auto lo = static_cast<unsigned>(random() % (128 - width));
    const Field field{lo + width - 1, lo};
    const std::uint64_t value = (random() & ((1ull << width) - 1)) | (row % 2 == 1 ? 1ull << width : 0);
    RECORD_OUTCOME(written_to_zero_words(field, value), QmdError)
        << "write_field(4 zero words, MW(" << field.hi << ":" << field.lo << "), " << value << ")";
  }
}

}  // namespace
