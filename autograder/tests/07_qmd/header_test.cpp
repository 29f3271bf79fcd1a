// Part B, the layouts: every range the decoder reads and the encoder writes,
// bit by bit, against fields.csv (copied from NVIDIA's class headers).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "header_fields.h"
#include "launchlab/testing.h"
#include "qmd.h"

namespace {
using namespace launchlab::qmd;
using namespace launchlab::qmd_tests;

// With only one range's bits set (and the version), the decoder must see
// all ones in that range and zero everywhere else; with every bit set except
// that range's, it must see zero in that range.
void check_decoder(unsigned version) {
  const auto fields = header_fields(version);
  const HeaderField major = header_field(version, "major_version");
  for (const auto& f : fields) {
    if (f.field == "major_version") continue;
    SCOPED_TRACE(describe(f));

    auto words = blank_qmd(version);
    set_bits(words, f.hi, f.lo, f.all_ones());
    Qmd q;
    try {
      q = decode(words, version_of(version));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "decode threw on a valid QMD with only this field set: " << e.what();
      continue;
    }
    EXPECT_EQ(get_part(q, f), f.all_ones())
        << "only MW(" << f.hi << ":" << f.lo << ") is set, so this part of the decoded value must be all ones ("
        << f.width() << " bits)";
    for (const auto& other : fields) {
      if (other.field == f.field || other.field == "major_version") continue;
      EXPECT_EQ(get_part(q, other), 0u) << "only " << describe(f) << " is set, yet the decoder found bits in "
                                        << describe(other);
    }

    auto inverse = std::vector<std::uint32_t>(words.size(), 0xffffffffu);
    set_bits(inverse, f.hi, f.lo, 0);
    set_bits(inverse, major.hi, major.lo, version);
    try {
      const Qmd all = decode(inverse, version_of(version));
      EXPECT_EQ(get_part(all, f), 0u) << "every bit but these is set: the decoder reads bits outside MW("
                                      << f.hi << ":" << f.lo << ")";
    } catch (const std::exception& e) {
      ADD_FAILURE() << "decode threw on a valid QMD with every bit but this field's set: " << e.what();
    }
  }
}

// A zero Qmd encodes to the version field alone; setting one part to all
// ones sets exactly that range; encode_into a QMD of all ones clears exactly
// the covered ranges.
void check_encoder(unsigned version) {
  const auto fields = header_fields(version);
  Qmd zero;
  zero.version = version_of(version);
  std::vector<std::uint32_t> base;
  try {
    base = encode(zero);
  } catch (const std::exception& e) {
    FAIL() << "encode threw for a Qmd of zeros: " << e.what();
  }
  const std::string base_diff = first_difference(blank_qmd(version), base);
  EXPECT_EQ(base_diff, "") << "a Qmd of zeros must encode to a zero QMD with only QMD_MAJOR_VERSION = " << version;

  for (const auto& f : fields) {
    if (f.field == "major_version") continue;
    SCOPED_TRACE(describe(f));
    Qmd q = zero;
    set_part(q, f, f.all_ones());
    auto expected = blank_qmd(version);
    set_bits(expected, f.hi, f.lo, f.all_ones());
    try {
      const std::string diff = first_difference(expected, encode(q));
      EXPECT_EQ(diff, "") << "with this part all ones and everything else zero, only MW(" << f.hi << ":" << f.lo
                          << ") and the version may be set";
    } catch (const std::exception& e) {
      ADD_FAILURE() << "encode threw for the largest value this field holds: " << e.what();
    }
  }

  std::vector<std::uint32_t> words(qmd_words(version_of(version)), 0xffffffffu);
  auto expected = words;
  for (const auto& f : fields) set_bits(expected, f.hi, f.lo, 0);
  const HeaderField major = header_field(version, "major_version");
  set_bits(expected, major.hi, major.lo, version);
  try {
    encode_into(zero, words);
    EXPECT_EQ(first_difference(expected, words), "")
        << "encode_into of a Qmd of zeros over a QMD of all ones must clear every covered range and touch no "
           "other bit";
  } catch (const std::exception& e) {
    ADD_FAILURE() << "encode_into threw: " << e.what();
  }
}

TEST(HeaderV03, DecoderReadsEachFieldAtTheHeadersBits) { check_decoder(3); }
TEST(HeaderV03, EncoderWritesEachFieldAtTheHeadersBits) { check_encoder(3); }
TEST(HeaderV04, DecoderReadsEachFieldAtTheHeadersBits) { check_decoder(4); }
TEST(HeaderV04, EncoderWritesEachFieldAtTheHeadersBits) { check_encoder(4); }
TEST(HeaderV05, DecoderReadsEachFieldAtTheHeadersBits) { check_decoder(5); }
TEST(HeaderV05, EncoderWritesEachFieldAtTheHeadersBits) { check_encoder(5); }

}  // namespace
