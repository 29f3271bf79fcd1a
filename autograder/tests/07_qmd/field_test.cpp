// Part A: read_field and write_field, against bit operations written here one
// bit at a time.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "header_fields.h"
#include "launchlab/testing.h"
#include "qmd.h"

namespace {
using namespace launchlab::qmd;
using launchlab::qmd_tests::first_difference;
using launchlab::qmd_tests::get_bits;
using launchlab::qmd_tests::set_bits;

std::string mw(unsigned hi, unsigned lo) { return "MW(" + std::to_string(hi) + ":" + std::to_string(lo) + ")"; }

std::vector<std::uint32_t> random_words(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> words(n);
  for (auto& w : words) w = rng();
  return words;
}

TEST(Field, ReadsARangeInsideOneWord) {
  // Word 18 = 0x000000a0: MW(583:580) is bits 4..7 of word 18, which hold 0xa.
  std::vector<std::uint32_t> words(64, 0);
  words[18] = 0xa0;
  EXPECT_EQ(read_field(words, {583, 580}), 0xau) << "MW(583:580) is bits 4..7 of word 18";
  words[12] = 4096;
  EXPECT_EQ(read_field(words, {415, 384}), 4096u) << "MW(415:384) is all of word 12";
  words[13] = 0xbeef0001;
  EXPECT_EQ(read_field(words, {431, 416}), 1u) << "MW(431:416) is the low half of word 13";
  EXPECT_EQ(read_field(words, {447, 432}), 0xbeefu) << "MW(447:432) is the high half of word 13";
  EXPECT_EQ(read_field(words, {416, 416}), 1u) << "MW(416:416) is bit 0 of word 13";
  EXPECT_EQ(read_field(words, {0, 0}), 0u);
}

TEST(Field, ReadsEveryRangeOfRandomWords) {
  // Every range of width 1..64 at many offsets, including ranges that cross
  // one or two word boundaries.
  const auto words = random_words(8, 7);
  for (unsigned lo = 0; lo < 8 * 32; lo += 3) {
    for (unsigned width = 1; width <= 64 && lo + width <= 8 * 32; width += 5) {
      const unsigned hi = lo + width - 1;
      ASSERT_EQ(read_field(words, {hi, lo}), get_bits(words, hi, lo)) << mw(hi, lo);
    }
  }
  // The widest and the last ranges exactly.
  EXPECT_EQ(read_field(words, {63, 0}), get_bits(words, 63, 0)) << mw(63, 0);
  EXPECT_EQ(read_field(words, {255, 192}), get_bits(words, 255, 192)) << mw(255, 192);
  EXPECT_EQ(read_field(words, {255, 255}), get_bits(words, 255, 255)) << mw(255, 255);
  EXPECT_EQ(read_field(words, {95, 32}), get_bits(words, 95, 32)) << mw(95, 32) << " spans three words";
}

TEST(Field, WritesOnlyItsOwnBits) {
  std::mt19937 rng(11);
  for (unsigned lo = 0; lo < 8 * 32; lo += 7) {
    for (unsigned width = 1; width <= 64 && lo + width <= 8 * 32; width += 9) {
      const unsigned hi = lo + width - 1;
      auto words = random_words(8, rng());
      auto expected = words;
      const std::uint64_t value = (static_cast<std::uint64_t>(rng()) << 32 | rng()) >>
                                  (64 - width);  // exactly width random bits
      set_bits(expected, hi, lo, value);
      write_field(words, {hi, lo}, value);
      const std::string diff = first_difference(expected, words);
      ASSERT_TRUE(diff.empty()) << "write_field(" << mw(hi, lo) << ", " << value << "): " << diff;
    }
  }
}

TEST(Field, WritesAllOnesAndZerosAtTheEdges) {
  for (unsigned hi : {31u, 32u, 63u, 64u, 127u}) {
    for (unsigned lo : {0u, 1u, 31u, 32u}) {
      if (lo > hi || hi - lo >= 64) continue;
      std::vector<std::uint32_t> zeros(4, 0), ones(4, 0xffffffffu);
      auto expected_zeros = zeros, expected_ones = ones;
      const std::uint64_t all = hi - lo == 63 ? ~0ull : ((1ull << (hi - lo + 1)) - 1);
      set_bits(expected_zeros, hi, lo, all);
      set_bits(expected_ones, hi, lo, 0);
      write_field(zeros, {hi, lo}, all);
      write_field(ones, {hi, lo}, 0);
      EXPECT_EQ(first_difference(expected_zeros, zeros), "") << "all ones into " << mw(hi, lo) << " of zero words";
      EXPECT_EQ(first_difference(expected_ones, ones), "") << "zero into " << mw(hi, lo) << " of all-ones words";
    }
  }
}

TEST(Field, RangesPastTheEndThrow) {
  std::vector<std::uint32_t> words(64, 0);
  EXPECT_NO_THROW(read_field(words, {2047, 2016})) << "the last word of a 64-word QMD";
  EXPECT_THROW(read_field(words, {2048, 2048}), QmdError) << "bit 2048 of 64 words";
  EXPECT_THROW(read_field(words, {2050, 2040}), QmdError) << "a range that runs off the end";
  EXPECT_THROW(read_field(std::span<const std::uint32_t>{}, {0, 0}), QmdError) << "no words at all";
  EXPECT_THROW(write_field(words, {4000, 3999}, 1), QmdError);
  EXPECT_THROW(read_field(words, {3, 4}), QmdError) << "hi below lo";
  EXPECT_THROW(write_field(words, {3, 4}, 0), QmdError) << "hi below lo";
  EXPECT_THROW(read_field(words, {64, 0}), QmdError) << "65 bits do not fit in a 64-bit value";
  EXPECT_THROW(read_field(words, {0xffffffffu, 0xffffffe0u}), QmdError) << "a range near the top of unsigned";
  for (auto w : words) ASSERT_EQ(w, 0u) << "a failed write_field must not change the words";
}

TEST(Field, ValuesTooWideThrow) {
  std::vector<std::uint32_t> words(4, 0);
  EXPECT_THROW(write_field(words, {47, 32}, 1ull << 16), QmdError) << "2^16 in 16 bits";
  EXPECT_NO_THROW(write_field(words, {47, 32}, 0xffff));
  EXPECT_THROW(write_field(words, {0, 0}, 2), QmdError) << "2 in one bit";
  auto before = words;
  EXPECT_THROW(write_field(words, {40, 28}, 1ull << 13), QmdError) << "2^13 in 13 bits";
  EXPECT_EQ(first_difference(before, words), "") << "a value that does not fit must leave the words unchanged";
  EXPECT_NO_THROW(write_field(words, {127, 64}, ~0ull)) << "64 bits of ones fit in a 64-bit range";
}

}  // namespace
