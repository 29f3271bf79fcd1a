// Part B: GPFIFO entries against clc56f.h's "GPFIFO entry format".
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "channels.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "views.h"

namespace {
using namespace launchlab::channels;
using launchlab::channel_tests::gp_entry_text;
using launchlab::channel_tests::hex;

// "encode_gp_entry({address 0x1000002000, length 10, SUBROUTINE})".
std::string encode_call(const GpEntry& e) { return "encode_gp_entry({" + record_value(e).get<std::string>() + "})"; }

// The two words encode_gp_entry gives, as the tests decode them, or what it threw.
std::string encoded(const GpEntry& e) {
  try {
    const auto words = encode_gp_entry(e);
    return gp_entry_text(words[0], words[1]);
  } catch (const std::exception& error) {
    return std::string("threw: ") + error.what();
  }
}

std::optional<GpEntry> decoded(std::uint32_t entry0, std::uint32_t entry1) {
  try {
    return decode_gp_entry(entry0, entry1);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// clc56f.h: ENTRY0 FETCH 0:0, GET 31:2; ENTRY1 GET_HI 7:0, LEVEL 9:9, LENGTH 30:10, SYNC 31:31.
std::array<std::uint32_t, 2> expected_words(const GpEntry& e) {
  std::uint32_t entry0 = 0, entry1 = 0;
  entry0 |= (e.fetch_conditional ? 1u : 0u) << 0;
  entry0 |= static_cast<std::uint32_t>((e.address >> 2) & 0x3fffffff) << 2;
  entry1 |= static_cast<std::uint32_t>((e.address >> 32) & 0xff) << 0;
  entry1 |= static_cast<std::uint32_t>(e.level) << 9;
  entry1 |= (e.length & 0x1fffff) << 10;
  entry1 |= (e.sync_wait ? 1u : 0u) << 31;
  return {entry0, entry1};
}

TEST(GpEntry, TheFactsVector) {
  const GpEntry sub{0x1000002000, 10, GpLevel::Subroutine, false, false};
  RECORD_EQ(encoded(sub), gp_entry_text(0x2000, 0x2a10)) << encode_call(sub) << ": the two words, decoded";
  RECORD_EQ(decoded(0x2000, 0x2a10), sub) << "decode_gp_entry(0x2000, 0x2a10) (null if it threw)";
  const GpEntry main{0x1000002000, 10, GpLevel::Main, false, false};
  RECORD_EQ(encoded(main), gp_entry_text(0x2000, 0x2810)) << encode_call(main) << ": the two words, decoded";
}

TEST(GpEntry, FieldsSitAtTheHeadersBits) {
  std::vector<GpEntry> entries;
  for (unsigned bit = 2; bit < 40; ++bit) entries.push_back({1ull << bit, 4, GpLevel::Main, false, false});
  for (unsigned bit = 0; bit < 21; ++bit) entries.push_back({0x1000, 1u << bit, GpLevel::Main, false, false});
  entries.push_back({0xfffffffffcull, 0x1fffff, GpLevel::Subroutine, true, true});
  entries.push_back({0x2000, 0x18, GpLevel::Main, true, false});
  entries.push_back({0x2000, 0x18, GpLevel::Main, false, true});
  entries.push_back({0, 0, GpLevel::Main, false, false});
  for (const GpEntry& e : entries) {
    RECORD_EQ(encoded(e), gp_entry_text(expected_words(e)[0], expected_words(e)[1]))
        << encode_call(e) << ": the two words, decoded";
    const auto words = expected_words(e);
    RECORD_EQ(decoded(words[0], words[1]), e) << "decode_gp_entry(" << hex(words[0], 8) << ", " << hex(words[1], 8)
                                              << ") (null if it threw)";
  }
  // Bit 1 of ENTRY0 and bit 8 of ENTRY1 are no field of clc56f.h: decode ignores them.
  RECORD_EQ(decoded(0x2002, 0x2b10), (GpEntry{0x1000002000, 10, GpLevel::Subroutine, false, false}))
      << "decode_gp_entry(0x2002, 0x2b10): ENTRY0 bit 1 and ENTRY1 bit 8 belong to no field";
}

TEST(GpEntry, EntriesThatCannotBeEncodedAreRejected) {
  RECORD_THROWS(encode_gp_entry({0x1002, 4, GpLevel::Main, false, false}), ChannelError)
      << "encode_gp_entry({address 0x1002, length 4, MAIN}): not a multiple of 4";
  RECORD_THROWS(encode_gp_entry({1ull << 40, 4, GpLevel::Main, false, false}), ChannelError)
      << "encode_gp_entry({address 0x10000000000, length 4, MAIN}): address 2^40";
  RECORD_THROWS(encode_gp_entry({0x1000, 1u << 21, GpLevel::Main, false, false}), ChannelError)
      << "encode_gp_entry({address 0x1000, length 2097152, MAIN}): length 2^21";
  RECORD_NO_THROW(encode_gp_entry({(1ull << 40) - 4, (1u << 21) - 1, GpLevel::Main, false, false}))
      << "encode_gp_entry({address 0xfffffffffc, length 2097151, MAIN}): the largest address and length";
  // Drawn entries, every other one with an address or a length it cannot
  // hold: only code that rejects exactly those and encodes the rest matches
  // the solution.
  std::mt19937_64 random = launchlab::testing::seeded_random(20260603);
  for (int row = 0; row < 8; ++row) {
    GpEntry entry{(random() % (1ull << 38)) * 4, static_cast<std::uint32_t>(random() % (1u << 21)),
                  random() % 2 == 0 ? GpLevel::Main : GpLevel::Subroutine, random() % 2 == 0, false};
    if (row % 2 == 1) {
      switch (random() % 3) {
        case 0: entry.address += 1 + random() % 3; break;
        case 1: entry.address += 1ull << 40; break;
        default: entry.length = (1u << 21) + static_cast<std::uint32_t>(random() % (1u << 21)); break;
      }
    }
    RECORD_OUTCOME(encode_gp_entry(entry), ChannelError) << encode_call(entry);
  }
}

}  // namespace
