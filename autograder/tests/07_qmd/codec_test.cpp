// Part B, the codec: versions and sizes, round trips, units, values that do
// not fit, and the committed fixtures.
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
using namespace launchlab::qmd_tests;

std::vector<std::uint32_t> fixture(const std::string& name) { return words_from_bytes(fixture_bytes(name)); }

std::vector<std::uint32_t> random_qmd(unsigned version, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> words(qmd_words(version_of(version)));
  for (auto& w : words) w = rng();
  const HeaderField major = header_field(version, "major_version");
  set_bits(words, major.hi, major.lo, version);
  return words;
}

using launchlab::testing::Expected;

// What decode gives, or nothing when it threw.
std::optional<Qmd> decoded(const std::vector<std::uint32_t>& words, QmdVersion version) {
  try {
    return decode(words, version);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A Qmd of zeros of one version, with one change.
template <class Change>
Qmd zero_with(QmdVersion version, Change&& change) {
  Qmd q;
  q.version = version;
  change(q);
  return q;
}

TEST(Versions, AQmdOfAnotherVersionIsRejected) {
  // V03_00 words padded to 96 words: V04_00 keeps its major version in the
  // same place and finds 3 there.
  auto v3 = blank_qmd(3);
  v3.resize(96, 0);
  RECORD_THROWS(decode(v3, QmdVersion::V04_00), QmdError)
      << "decode(a V03_00 QMD padded to 96 words, V04_00): QMD_MAJOR_VERSION is 3";
  // V04_00 read as V05_00: V05_00's major version bits (471:468) are zero in a V04_00 QMD.
  RECORD_THROWS(decode(blank_qmd(4), QmdVersion::V05_00), QmdError) << "decode(a V04_00 QMD, V05_00)";
  // V05_00 read as V04_00: bits 583:580 are zero in a V05_00 QMD.
  RECORD_THROWS(decode(blank_qmd(5), QmdVersion::V04_00), QmdError) << "decode(a V05_00 QMD, V04_00)";
  // A V04_00 QMD whose major version field says 5.
  auto lying = blank_qmd(4);
  set_bits(lying, 583, 580, 5);
  RECORD_THROWS(decode(lying, QmdVersion::V04_00), QmdError)
      << "decode(a V04_00 QMD whose QMD_MAJOR_VERSION, MW(583:580), says 5, V04_00)";
  std::string message;
  try {
    decode(v3, QmdVersion::V04_00);
  } catch (const std::exception& e) {
    message = e.what();
  }
  RECORD_CONTAINS(message, "3")
      << "the message of decode(a V03_00 QMD padded to 96 words, V04_00): it says which version number was found";
  // The numbers and values that name no version (`launchlab inspect qmd --qmd-version 6`).
  RECORD_THROWS(version_from_number("6"), QmdError) << "version_from_number(\"6\")";
  RECORD_THROWS(version_from_number("04"), QmdError) << "version_from_number(\"04\")";
  RECORD_THROWS(qmd_words(static_cast<QmdVersion>(6)), QmdError) << "qmd_words(QmdVersion 6)";
}

TEST(Versions, AQmdOfTheWrongSizeIsRejected) {
  std::vector<std::uint32_t> short_qmd(63, 0), long_qmd(97, 0);
  RECORD_THROWS(decode(short_qmd, QmdVersion::V03_00), QmdError) << "decode(63 words, V03_00), which has 64";
  RECORD_THROWS(decode(blank_qmd(3), QmdVersion::V05_00), QmdError)
      << "decode(a V03_00 QMD of 64 words, V05_00), which has 96";
  RECORD_THROWS(decode(long_qmd, QmdVersion::V04_00), QmdError) << "decode(97 words, V04_00), which has 96";
  RECORD_THROWS(decode(std::span<const std::uint32_t>{}, QmdVersion::V04_00), QmdError) << "decode(no words, V04_00)";
  RECORD_THROWS(words_from_bytes(std::string(383, '\0')), QmdError) << "words_from_bytes(383 bytes), not whole words";
  Qmd q;
  q.version = QmdVersion::V04_00;
  std::vector<std::uint32_t> words(64, 0);
  RECORD_THROWS(encode_into(q, words), QmdError) << "encode_into(a V04_00 Qmd, 64 words)";
  std::optional<std::size_t> size;
  try {
    size = encode(q).size();
  } catch (const std::exception&) {
  }
  RECORD_EQ(size, 96u) << "encode(a V04_00 Qmd): how many words (null if it threw)";
}

TEST(RoundTrip, DecodeThenEncodeGivesBackTheCoveredBits) {
  for (unsigned v : {3u, 4u, 5u}) {
    for (std::uint32_t seed = 1; seed <= 20; ++seed) {
      const auto original = random_qmd(v, seed * 101 + v);
      RECORD_SCOPE("a random " + version_name(v) + " QMD (" + std::to_string(seed) +
                   " of 20; [i] is word i, bits 32i to 32i + 31)");
      const std::optional<Qmd> q = decoded(original, version_of(v));
      RECORD_TRUE(q.has_value()) << "decode of it threw nothing";
      std::optional<std::vector<std::string>> fresh, restored;
      if (q) {
        try {
          fresh = hex_words(encode(*q));
        } catch (const std::exception&) {
        }
        try {
          std::vector<std::uint32_t> words = original;
          encode_into(*q, words);
          restored = hex_words(words);
        } catch (const std::exception&) {
        }
      }
      RECORD_EQ(fresh, [&] {
        const auto mask = covered_mask(v);
        auto expected = original;
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] &= mask[i];
        return hex_words(expected);
      }()) << "encode(decode(q)) (null: a call threw): q on the covered fields, zero elsewhere";
      RECORD_EQ(restored, hex_words(original)) << "encode_into(decode(q), q) (null: a call threw): q as it was";
    }
  }
}

TEST(Units, ShiftedFieldsAreUndone) {
  // CONSTANT_BUFFER_SIZE_SHIFTED4 of 0x21 is 528 bytes, in every version.
  for (unsigned v : {3u, 4u, 5u}) {
    auto words = blank_qmd(v);
    const HeaderField size = header_field(v, "cbank0_size");
    set_bits(words, size.hi, size.lo, 0x21);
    RECORD_EQ(decoded(words, version_of(v)), zero_with(version_of(v), [](Qmd& q) { q.cbank0.size = 528; }))
        << "decode(a " << version_name(v) << " QMD, all zero but " << describe(size) << " holding 0x21) (null if it threw)";
  }
  // V04_00 and V05_00 keep the constant bank address in units of 64 bytes.
  for (unsigned v : {4u, 5u}) {
    auto words = blank_qmd(v);
    const HeaderField lower = header_field(v, "cbank0_address_lower");
    const HeaderField upper = header_field(v, "cbank0_address_upper");
    set_bits(words, lower.hi, lower.lo, 0x3);
    set_bits(words, upper.hi, upper.lo, 0x1);
    RECORD_EQ(decoded(words, version_of(v)),
              zero_with(version_of(v), [](Qmd& q) { q.cbank0.address = ((1ull << 32) | 3) << 6; }))
        << "decode(a " << version_name(v) << " QMD, all zero but CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6(0) = 3 and "
        << "CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6(0) = 1) (null if it threw)";
  }
  {  // V03_00's constant bank address is in bytes.
    auto words = blank_qmd(3);
    set_bits(words, 1055, 1024, 0x3);
    set_bits(words, 1072, 1056, 0x1);
    RECORD_EQ(decoded(words, QmdVersion::V03_00),
              zero_with(QmdVersion::V03_00, [](Qmd& q) { q.cbank0.address = (1ull << 32) | 3; }))
        << "decode(a V03_00 QMD, all zero but CONSTANT_BUFFER_ADDR_LOWER(0) = 3 and CONSTANT_BUFFER_ADDR_UPPER(0) = 1; "
        << "V03_00 keeps the address in bytes) (null if it threw)";
  }
  {  // V05_00: program address in units of 16 bytes, shared memory in units of 128.
    auto words = blank_qmd(5);
    set_bits(words, 1055, 1024, 0x10);
    set_bits(words, 1162, 1152, 3);
    RECORD_EQ(decoded(words, QmdVersion::V05_00), zero_with(QmdVersion::V05_00, [](Qmd& q) {
                q.program_address = 0x100;
                q.shared_memory = 384;
              }))
        << "decode(a V05_00 QMD, all zero but PROGRAM_ADDRESS_LOWER_SHIFTED4 = 0x10 and SHARED_MEMORY_SIZE_SHIFTED7 = 3) "
        << "(null if it threw)";
  }
  {  // The encoder scales back.
    Qmd q;
    q.version = QmdVersion::V05_00;
    q.shared_memory = 49152;
    q.cbank0.size = 528;
    std::optional<std::vector<std::uint32_t>> words;
    RECORD_NO_THROW(words = encode(q)) << "encode(" << record_value(q).dump() << ")";
    const bool complete = words && words->size() == 96;
    RECORD_EQ(complete ? std::optional<std::uint64_t>(get_bits(*words, 1162, 1152)) : std::nullopt, 49152u / 128)
        << "encode(a V05_00 Qmd with 48 KiB of shared memory): SHARED_MEMORY_SIZE_SHIFTED7, MW(1162:1152) (null: no "
        << "96 words)";
    RECORD_EQ(complete ? std::optional<std::uint64_t>(get_bits(*words, 1407, 1395)) : std::nullopt, 0x21u)
        << "encode(a V05_00 Qmd with a 528-byte constant bank): CONSTANT_BUFFER_SIZE_SHIFTED4(0), MW(1407:1395) "
        << "(null: no 96 words)";
  }
}

TEST(Units, ValuesThatCannotBeStoredThrow) {
  // One field of a version's zero QMD, given a value it cannot hold; and the
  // values it can hold: below `limit`, multiples of `step`.
  struct Case {
    QmdVersion version;
    void (*set)(Qmd&, std::uint64_t);
    std::uint64_t rejected;
    std::uint64_t limit;
    std::uint64_t step;
    const char* why;
  };
  const std::vector<Case> cases = {
      {QmdVersion::V03_00, [](Qmd& q, std::uint64_t v) { q.grid[1] = static_cast<std::uint32_t>(v); }, 0x10000,
       0x10000, 1, "a V03_00 grid height of 65536 (16 bits)"},
      {QmdVersion::V03_00, [](Qmd& q, std::uint64_t v) { q.registers = static_cast<std::uint32_t>(v); }, 512, 512, 1,
       "512 registers (REGISTER_COUNT_V is 9 bits)"},
      {QmdVersion::V03_00, [](Qmd& q, std::uint64_t v) { q.program_address = v; }, 1ull << 49, 1ull << 49, 256,
       "a V03_00 program address of 2^49 (49 bits)"},
      {QmdVersion::V03_00, [](Qmd& q, std::uint64_t v) { q.release0.address = v; }, 1ull << 40, 1ull << 40, 16,
       "a V03_00 release address of 2^40 (40 bits)"},
      {QmdVersion::V03_00, [](Qmd& q, std::uint64_t v) { q.cbank0.size = static_cast<std::uint32_t>(v); }, 100, 0x10000,
       16, "a constant bank of 100 bytes (SHIFTED4: a multiple of 16)"},
      {QmdVersion::V04_00, [](Qmd& q, std::uint64_t v) { q.cbank0.address = v; }, 0x1001, 1ull << 40, 64,
       "a V04_00 constant bank at 0x1001 (SHIFTED6: a multiple of 64)"},
      {QmdVersion::V04_00, [](Qmd& q, std::uint64_t v) { q.cbank0.size = static_cast<std::uint32_t>(v); }, 0x20000,
       0x20000, 16, "a constant bank of 128 KiB (SHIFTED4 in 13 bits: at most 131056 bytes)"},
      {QmdVersion::V05_00, [](Qmd& q, std::uint64_t v) { q.shared_memory = static_cast<std::uint32_t>(v); }, 100,
       0x30000, 128, "V05_00 shared memory of 100 bytes (SHIFTED7: a multiple of 128)"},
      {QmdVersion::V05_00, [](Qmd& q, std::uint64_t v) { q.block[2] = static_cast<std::uint32_t>(v); }, 256, 256, 1,
       "a V05_00 block depth of 256 (CTA_THREAD_DIMENSION2 is 8 bits)"},
      {QmdVersion::V05_00, [](Qmd& q, std::uint64_t v) { q.program_address = v; }, 0x1008, 1ull << 40, 16,
       "a V05_00 program address of 0x1008 (SHIFTED4)"},
      {QmdVersion::V05_00, [](Qmd& q, std::uint64_t v) { q.minor_version = static_cast<std::uint32_t>(v); }, 16, 16, 1,
       "minor version 16 (4 bits)"},
  };
  std::mt19937_64 random = launchlab::testing::seeded_random(20260701);
  for (const Case& c : cases) {
    Qmd q;
    q.version = c.version;
    c.set(q, c.rejected);
    std::vector<std::uint32_t> words(qmd_words(q.version), 0x5a5a5a5au);
    const auto before = words;
    RECORD_SCOPE(std::string("encode_into(") + c.why + ", a QMD of 0x5a5a5a5a words)");
    RECORD_THROWS(encode_into(q, words), QmdError);
    RECORD_EQ(words, before) << "the QMD afterwards: a failed encode_into must leave it as it was";
    RECORD_THROWS(encode(q), QmdError);
    // A drawn value the field can hold: what encode gives for it is the solution's.
    const std::uint64_t fits = random() % (c.limit / c.step) * c.step;
    c.set(q, fits);
    RECORD_OUTCOME(encode(q), QmdError) << "encode(the same QMD with the field at " << fits << ")";
  }
}

TEST(Fixtures, CommittedQmdsDecodeToTheirValues) {
  // The values labs/07_qmd/fixtures/make_fixtures.py wrote, from the ranges in fields.csv
  // (only the expected half of the table uses these two).
  [[maybe_unused]] const auto vadd = [](QmdVersion v, std::uint32_t cbank_size, std::uint32_t sass,
                                        std::uint64_t release_address, std::uint64_t payload) {
    Qmd q;
    q.version = v;
    q.grid = {4096, 1, 1};
    q.block = {256, 1, 1};
    q.registers = 16;
    q.program_address = 0x7F3C2A400100;
    q.cbank0 = {0x7F3C2A600000, cbank_size, true};
    q.barrier_count = 1;
    q.sass_version = sass;
    q.release0 = {true, release_address, payload};
    return q;
  };
  [[maybe_unused]] const auto stencil = [] {
    Qmd q;
    q.version = QmdVersion::V05_00;
    q.grid = {37, 11, 3};
    q.block = {32, 4, 2};
    q.registers = 72;
    q.shared_memory = 12288;
    q.program_address = 0x1234567890;
    q.cbank0 = {0x2000000040, 0x3B0, true};
    q.barrier_count = 2;
    q.sass_version = 0xA0;
    return q;
  };
  struct FixtureValues {
    const char* file;
    unsigned version;
    Expected<Qmd> values;
  };
  const std::vector<FixtureValues> cases = {
      {"vadd_v03.qmd", 3, LAUNCHLAB_EXPECTED(vadd(QmdVersion::V03_00, 0x180, 0x86, 0xFC2A800000, 1))},
      {"vadd_v04.qmd", 4, LAUNCHLAB_EXPECTED(vadd(QmdVersion::V04_00, 0x230, 0x90, 0x7F3C2A800000, 0x2A))},
      {"vadd_v05.qmd", 5, LAUNCHLAB_EXPECTED(vadd(QmdVersion::V05_00, 0x3A0, 0xA0, 0x7F3C2A800000, 0x100000007))},
      {"stencil_v05.qmd", 5, LAUNCHLAB_EXPECTED(stencil())},
  };
  for (const auto& c : cases) {
    RECORD_SCOPE(std::string("fixtures/") + c.file);
    const auto words = fixture(c.file);
    RECORD_EQ(decoded(words, version_of(c.version)), c.values) << "decode(it, " << version_name(c.version)
                                                               << ") (null if it threw)";
    // The values the header's ranges read from the file, encoded again.
    std::optional<std::vector<std::string>> again;
    try {
      again = hex_words(encode(table_decode(words, c.version)));
    } catch (const std::exception&) {
    }
    RECORD_EQ(again, hex_words(words))
        << "encode(its values, as the header's ranges read them) ([i] is word i; null: encode threw): the committed "
           "words";
  }
}

TEST(Fixtures, InspectJsonOfTheVaddQmd) {
  // fixtures/vadd_v04.json is what `launchlab inspect qmd vadd_v04.qmd
  // --qmd-version 4 --json` prints; make_fixtures.py wrote it.
  std::string json;
  try {
    json = to_json(decode(fixture("vadd_v04.qmd"), QmdVersion::V04_00));
  } catch (const std::exception& e) {
    json = std::string("decode threw: ") + e.what();
  }
  RECORD_EQ(json, fixture_bytes("vadd_v04.json"))
      << "`launchlab inspect qmd vadd_v04.qmd --qmd-version 4 --json`: to_json of your decode";
}

}  // namespace
