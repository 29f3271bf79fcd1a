// Part B, the codec: versions and sizes, round trips, units, values that do
// not fit, and the committed fixtures.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "header_fields.h"
#include "launchlab/testing.h"
#include "qmd.h"

namespace {
namespace lt = launchlab::testing;
using namespace launchlab::qmd;
using namespace launchlab::qmd_tests;

std::vector<std::uint32_t> fixture(const std::string& name) {
  return words_from_bytes(lt::read_file(lt::test_data("07_qmd/fixtures/" + name)));
}

std::vector<std::uint32_t> random_qmd(unsigned version, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> words(qmd_words(version_of(version)));
  for (auto& w : words) w = rng();
  const HeaderField major = header_field(version, "major_version");
  set_bits(words, major.hi, major.lo, version);
  return words;
}

std::string version_name(unsigned v) { return "V0" + std::to_string(v) + "_00"; }

TEST(Versions, AQmdOfAnotherVersionIsRejected) {
  // V03_00 words padded to 96 words: V04_00 keeps its major version in the
  // same place and finds 3 there.
  auto v3 = blank_qmd(3);
  v3.resize(96, 0);
  EXPECT_THROW(decode(v3, QmdVersion::V04_00), QmdError) << "a V03_00 QMD (padded to 96 words) read as V04_00";
  // V04_00 read as V05_00: V05_00's major version bits (471:468) are zero in a V04_00 QMD.
  EXPECT_THROW(decode(blank_qmd(4), QmdVersion::V05_00), QmdError) << "a V04_00 QMD read as V05_00";
  // V05_00 read as V04_00: bits 583:580 are zero in a V05_00 QMD.
  EXPECT_THROW(decode(blank_qmd(5), QmdVersion::V04_00), QmdError) << "a V05_00 QMD read as V04_00";
  // A V04_00 QMD whose major version field says 5.
  auto lying = blank_qmd(4);
  set_bits(lying, 583, 580, 5);
  EXPECT_THROW(decode(lying, QmdVersion::V04_00), QmdError) << "QMD_MAJOR_VERSION 5 in a QMD read as V04_00";
  try {
    decode(v3, QmdVersion::V04_00);
  } catch (const QmdError& e) {
    EXPECT_NE(std::string(e.what()).find('3'), std::string::npos)
        << "the message should say which version number was found (3): " << e.what();
  }
}

TEST(Versions, AQmdOfTheWrongSizeIsRejected) {
  std::vector<std::uint32_t> short_qmd(63, 0), long_qmd(97, 0);
  EXPECT_THROW(decode(short_qmd, QmdVersion::V03_00), QmdError) << "63 words read as V03_00 (64 words)";
  EXPECT_THROW(decode(blank_qmd(3), QmdVersion::V05_00), QmdError) << "64 words read as V05_00 (96 words)";
  EXPECT_THROW(decode(long_qmd, QmdVersion::V04_00), QmdError) << "97 words read as V04_00 (96 words)";
  EXPECT_THROW(decode(std::span<const std::uint32_t>{}, QmdVersion::V04_00), QmdError) << "no words";
  Qmd q;
  q.version = QmdVersion::V04_00;
  std::vector<std::uint32_t> words(64, 0);
  EXPECT_THROW(encode_into(q, words), QmdError) << "encode_into a 64-word array for V04_00";
  EXPECT_EQ(encode(q).size(), 96u) << "encode of a V04_00 Qmd makes 96 words";
}

TEST(RoundTrip, DecodeThenEncodeGivesBackTheCoveredBits) {
  for (unsigned v : {3u, 4u, 5u}) {
    const auto mask = covered_mask(v);
    for (std::uint32_t seed = 1; seed <= 20; ++seed) {
      const auto original = random_qmd(v, seed * 101 + v);
      Qmd q;
      try {
        q = decode(original, version_of(v));
      } catch (const std::exception& e) {
        FAIL() << version_name(v) << " random QMD " << seed << ": decode threw " << e.what();
      }
      std::vector<std::uint32_t> fresh, restored = original;
      try {
        fresh = encode(q);
        encode_into(q, restored);
      } catch (const std::exception& e) {
        FAIL() << version_name(v) << " random QMD " << seed << ": encoding what decode gave threw " << e.what();
      }
      auto expected_fresh = original;
      for (std::size_t i = 0; i < expected_fresh.size(); ++i) expected_fresh[i] &= mask[i];
      EXPECT_EQ(first_difference(expected_fresh, fresh), "")
          << version_name(v) << " random QMD " << seed
          << ": encode(decode(q)) must equal q on the covered fields and be zero elsewhere";
      EXPECT_EQ(first_difference(original, restored), "")
          << version_name(v) << " random QMD " << seed << ": encode_into(decode(q), q) must leave q unchanged";
    }
  }
}

TEST(Units, ShiftedFieldsAreUndone) {
  // CONSTANT_BUFFER_SIZE_SHIFTED4 of 0x21 is 528 bytes, in every version.
  for (unsigned v : {3u, 4u, 5u}) {
    auto words = blank_qmd(v);
    const HeaderField size = header_field(v, "cbank0_size");
    set_bits(words, size.hi, size.lo, 0x21);
    EXPECT_EQ(decode(words, version_of(v)).cbank0.size, 528u) << describe(size) << " holding 0x21";
  }
  // V04_00 and V05_00 keep the constant bank address in units of 64 bytes.
  for (unsigned v : {4u, 5u}) {
    auto words = blank_qmd(v);
    const HeaderField lower = header_field(v, "cbank0_address_lower");
    const HeaderField upper = header_field(v, "cbank0_address_upper");
    set_bits(words, lower.hi, lower.lo, 0x3);
    set_bits(words, upper.hi, upper.lo, 0x1);
    EXPECT_EQ(decode(words, version_of(v)).cbank0.address, ((1ull << 32) | 3) << 6)
        << version_name(v) << ": LOWER_SHIFTED6 = 3 and UPPER_SHIFTED6 = 1";
  }
  {  // V03_00's constant bank address is in bytes.
    auto words = blank_qmd(3);
    set_bits(words, 1055, 1024, 0x3);
    set_bits(words, 1072, 1056, 0x1);
    EXPECT_EQ(decode(words, QmdVersion::V03_00).cbank0.address, (1ull << 32) | 3) << "V03_00 address in bytes";
  }
  {  // V05_00: program address in units of 16 bytes, shared memory in units of 128.
    auto words = blank_qmd(5);
    set_bits(words, 1055, 1024, 0x10);
    set_bits(words, 1162, 1152, 3);
    const Qmd q = decode(words, QmdVersion::V05_00);
    EXPECT_EQ(q.program_address, 0x100u) << "PROGRAM_ADDRESS_LOWER_SHIFTED4 = 0x10";
    EXPECT_EQ(q.shared_memory, 384u) << "SHARED_MEMORY_SIZE_SHIFTED7 = 3";
  }
  {  // The encoder scales back.
    Qmd q;
    q.version = QmdVersion::V05_00;
    q.shared_memory = 49152;
    q.cbank0.size = 528;
    const auto words = encode(q);
    EXPECT_EQ(get_bits(words, 1162, 1152), 49152u / 128) << "48 KiB of shared memory in V05_00";
    EXPECT_EQ(get_bits(words, 1407, 1395), 0x21u) << "a 528-byte constant bank";
  }
}

TEST(Units, ValuesThatCannotBeStoredThrow) {
  auto rejects = [](Qmd q, const char* why) {
    std::vector<std::uint32_t> words(qmd_words(q.version), 0x5a5a5a5au);
    const auto before = words;
    EXPECT_THROW(encode_into(q, words), QmdError) << why;
    EXPECT_EQ(first_difference(before, words), "") << why << ": a failed encode_into must not change the QMD";
  };
  Qmd v3;
  v3.version = QmdVersion::V03_00;
  Qmd v4 = v3, v5 = v3;
  v4.version = QmdVersion::V04_00;
  v5.version = QmdVersion::V05_00;

  Qmd q = v3;
  q.grid[1] = 0x10000;
  rejects(q, "a V03_00 grid height of 65536 (16 bits)");
  q = v3;
  q.registers = 512;
  rejects(q, "512 registers (REGISTER_COUNT_V is 9 bits)");
  q = v3;
  q.program_address = 1ull << 49;
  rejects(q, "a V03_00 program address of 2^49 (49 bits)");
  q = v3;
  q.release0.address = 1ull << 40;
  rejects(q, "a V03_00 release address of 2^40 (40 bits)");
  q = v3;
  q.cbank0.size = 100;
  rejects(q, "a constant bank of 100 bytes (SHIFTED4: a multiple of 16)");
  q = v4;
  q.cbank0.address = 0x1001;
  rejects(q, "a V04_00 constant bank at 0x1001 (SHIFTED6: a multiple of 64)");
  q = v4;
  q.cbank0.size = 0x20000;
  rejects(q, "a constant bank of 128 KiB (SHIFTED4 in 13 bits: at most 131056 bytes)");
  q = v5;
  q.shared_memory = 100;
  rejects(q, "V05_00 shared memory of 100 bytes (SHIFTED7: a multiple of 128)");
  q = v5;
  q.block[2] = 256;
  rejects(q, "a V05_00 block depth of 256 (CTA_THREAD_DIMENSION2 is 8 bits)");
  q = v5;
  q.program_address = 0x1008;
  rejects(q, "a V05_00 program address of 0x1008 (SHIFTED4)");
  q = v5;
  q.minor_version = 16;
  rejects(q, "minor version 16 (4 bits)");
}

struct FixtureValues {
  const char* file;
  QmdVersion version;
  Qmd expected;
};

Qmd vadd(QmdVersion v, std::uint32_t cbank_size, std::uint32_t sass, std::uint64_t release_address,
         std::uint64_t payload) {
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
}

TEST(Fixtures, CommittedQmdsDecodeToTheirValues) {
  // The values fixtures/make_fixtures.py wrote, from the ranges in fields.csv.
  Qmd stencil;
  stencil.version = QmdVersion::V05_00;
  stencil.grid = {37, 11, 3};
  stencil.block = {32, 4, 2};
  stencil.registers = 72;
  stencil.shared_memory = 12288;
  stencil.program_address = 0x1234567890;
  stencil.cbank0 = {0x2000000040, 0x3B0, true};
  stencil.barrier_count = 2;
  stencil.sass_version = 0xA0;
  const FixtureValues cases[] = {
      {"vadd_v03.qmd", QmdVersion::V03_00, vadd(QmdVersion::V03_00, 0x180, 0x86, 0xFC2A800000, 1)},
      {"vadd_v04.qmd", QmdVersion::V04_00, vadd(QmdVersion::V04_00, 0x230, 0x90, 0x7F3C2A800000, 0x2A)},
      {"vadd_v05.qmd", QmdVersion::V05_00, vadd(QmdVersion::V05_00, 0x3A0, 0xA0, 0x7F3C2A800000, 0x100000007)},
      {"stencil_v05.qmd", QmdVersion::V05_00, stencil},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const auto words = fixture(c.file);
    Qmd q;
    try {
      q = decode(words, c.version);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "decode threw: " << e.what();
      continue;
    }
    EXPECT_EQ(to_json(q), to_json(c.expected)) << "decoded (left: yours, right: expected)";
    std::vector<std::uint32_t> again;
    try {
      again = encode(c.expected);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "encode threw: " << e.what();
      continue;
    }
    EXPECT_EQ(first_difference(words, again), "") << "encode of the expected values must give the committed bytes";
  }
}

TEST(Fixtures, InspectJsonOfTheVaddQmd) {
  // fixtures/vadd_v04.json is what `launchlab inspect qmd vadd_v04.qmd
  // --qmd-version 4 --json` prints; make_fixtures.py wrote it.
  const std::string expected = lt::read_file(lt::test_data("07_qmd/fixtures/vadd_v04.json"));
  try {
    EXPECT_EQ(to_json(decode(fixture("vadd_v04.qmd"), QmdVersion::V04_00)), expected);
  } catch (const std::exception& e) {
    FAIL() << "decode threw: " << e.what();
  }
}

}  // namespace
