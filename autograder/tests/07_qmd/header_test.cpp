// Part B, the layouts: every range the decoder reads and the encoder writes,
// bit by bit, against fields.csv (copied from NVIDIA's class headers).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "header_fields.h"
#include "launchlab/record.h"
#include "qmd.h"

namespace {
using namespace launchlab::qmd;
using namespace launchlab::qmd_tests;

std::string version_name(unsigned v) { return "V0" + std::to_string(v) + "_00"; }

// What decode gives, or nothing when it threw.
std::optional<Qmd> decoded(const std::vector<std::uint32_t>& words, unsigned version) {
  try {
    return decode(words, version_of(version));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// What encode gives, as its runs of set bits, or nothing when it threw.
std::optional<std::vector<std::string>> encoded(const Qmd& q, unsigned version) {
  try {
    return set_bit_runs(encode(q), version);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// "encode(a V04_00 Qmd of zeros but grid = [4294967295,0,0])".
std::string encode_call(const Qmd& q, unsigned version) {
  Qmd zero;
  zero.version = q.version;
  const nlohmann::json given = record_value(q), zeros = record_value(zero);
  std::string members;
  for (const auto& [key, value] : given.items()) {
    if (value != zeros[key]) members += (members.empty() ? "" : ", ") + key + " = " + value.dump();
  }
  return "encode(a " + version_name(version) + " Qmd of zeros" + (members.empty() ? "" : " but " + members) + ")";
}

// With only one range's bits set (and the version), the decoder must see
// all ones in that range and zero everywhere else; with every bit set except
// that range's, it must see zero in that range (and ones in every other).
void check_decoder(unsigned version) {
  const HeaderField major = header_field(version, "major_version");
  for (const auto& f : header_fields(version)) {
    if (f.field == "major_version") continue;
    RECORD_SCOPE(describe(f));

    auto words = blank_qmd(version);
    set_bits(words, f.hi, f.lo, f.all_ones());
    RECORD_EQ(decoded(words, version), table_decode(words, version))
        << "decode(a " << version_name(version) << " QMD with only " << mw(f.hi, f.lo)
        << " all ones, and QMD_MAJOR_VERSION), as the header's ranges read it (null: decode threw)";

    auto inverse = std::vector<std::uint32_t>(words.size(), 0xffffffffu);
    set_bits(inverse, f.hi, f.lo, 0);
    set_bits(inverse, major.hi, major.lo, version);
    RECORD_EQ(decoded(inverse, version), table_decode(inverse, version))
        << "decode(a " << version_name(version) << " QMD with every bit set but " << mw(f.hi, f.lo)
        << " and QMD_MAJOR_VERSION's), as the header's ranges read it (null: decode threw)";
  }
}

// A zero Qmd encodes to the version field alone; setting one part to all
// ones sets exactly that range; encode_into a QMD of all ones clears exactly
// the covered ranges.
void check_encoder(unsigned version) {
  Qmd zero;
  zero.version = version_of(version);
  RECORD_EQ(encoded(zero, version), set_bit_runs(blank_qmd(version), version))
      << encode_call(zero, version) << ": its set bits, which must be QMD_MAJOR_VERSION's alone (null: encode threw)";

  for (const auto& f : header_fields(version)) {
    if (f.field == "major_version") continue;
    RECORD_SCOPE(describe(f));
    Qmd q = zero;
    set_part(q, f, f.all_ones());
    RECORD_EQ(encoded(q, version), [&] {
      auto expected = blank_qmd(version);
      set_bits(expected, f.hi, f.lo, f.all_ones());
      return set_bit_runs(expected, version);
    }()) << encode_call(q, version) << ", the largest value of this field: its set bits (null: encode threw)";
  }

  std::vector<std::uint32_t> words(qmd_words(version_of(version)), 0xffffffffu);
  RECORD_NO_THROW(encode_into(zero, words)) << "encode_into(a Qmd of zeros, a QMD of all ones)";
  RECORD_EQ(set_bit_runs(words, version), [&] {
    std::vector<std::uint32_t> expected(words.size(), 0xffffffffu);
    for (const auto& f : header_fields(version)) set_bits(expected, f.hi, f.lo, 0);
    const HeaderField major = header_field(version, "major_version");
    set_bits(expected, major.hi, major.lo, version);
    return set_bit_runs(expected, version);
  }()) << "encode_into(a " << version_name(version) << " Qmd of zeros, a QMD of all ones): the set bits afterwards; "
       << "every covered range cleared, QMD_MAJOR_VERSION set, no other bit touched";
}

TEST(HeaderV03, DecoderReadsEachFieldAtTheHeadersBits) { check_decoder(3); }
TEST(HeaderV03, EncoderWritesEachFieldAtTheHeadersBits) { check_encoder(3); }
TEST(HeaderV04, DecoderReadsEachFieldAtTheHeadersBits) { check_decoder(4); }
TEST(HeaderV04, EncoderWritesEachFieldAtTheHeadersBits) { check_encoder(4); }
TEST(HeaderV05, DecoderReadsEachFieldAtTheHeadersBits) { check_decoder(5); }
TEST(HeaderV05, EncoderWritesEachFieldAtTheHeadersBits) { check_encoder(5); }

}  // namespace
