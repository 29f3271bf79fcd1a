// Part B: GPFIFO entries against clc56f.h's "GPFIFO entry format".
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "channels.h"

namespace {
using namespace launchlab::channels;

std::string hex(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

std::string describe(const GpEntry& e) {
  char b[160];
  std::snprintf(b, sizeof b, "address 0x%llx, length %u, %s%s%s", static_cast<unsigned long long>(e.address),
                e.length, e.level == GpLevel::Subroutine ? "SUBROUTINE" : "MAIN", e.sync_wait ? ", SYNC_WAIT" : "",
                e.fetch_conditional ? ", FETCH_CONDITIONAL" : "");
  return b;
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
  const auto words = encode_gp_entry(sub);
  EXPECT_EQ(hex(words[0]), hex(0x2000)) << describe(sub) << ": ENTRY0";
  EXPECT_EQ(hex(words[1]), hex(0x2a10)) << describe(sub) << ": ENTRY1";
  EXPECT_EQ(describe(decode_gp_entry(0x2000, 0x2a10)), describe(sub)) << "decode of {0x2000, 0x2a10}";
  const GpEntry main{0x1000002000, 10, GpLevel::Main, false, false};
  EXPECT_EQ(hex(encode_gp_entry(main)[1]), hex(0x2810)) << describe(main) << ": ENTRY1 without LEVEL";
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
    const auto expected = expected_words(e);
    const auto got = encode_gp_entry(e);
    ASSERT_EQ(hex(got[0]), hex(expected[0])) << describe(e) << ": ENTRY0";
    ASSERT_EQ(hex(got[1]), hex(expected[1])) << describe(e) << ": ENTRY1";
    ASSERT_EQ(describe(decode_gp_entry(expected[0], expected[1])), describe(e)) << "decode";
  }
  // Bit 1 of ENTRY0 and bit 8 of ENTRY1 are no field of clc56f.h: decode ignores them.
  EXPECT_EQ(describe(decode_gp_entry(0x2002, 0x2b10)), describe({0x1000002000, 10, GpLevel::Subroutine, false, false}));
}

TEST(GpEntry, EntriesThatCannotBeEncodedAreRejected) {
  EXPECT_THROW(encode_gp_entry({0x1002, 4, GpLevel::Main, false, false}), ChannelError) << "address not a multiple of 4";
  EXPECT_THROW(encode_gp_entry({1ull << 40, 4, GpLevel::Main, false, false}), ChannelError) << "address 2^40";
  EXPECT_THROW(encode_gp_entry({0x1000, 1u << 21, GpLevel::Main, false, false}), ChannelError) << "length 2^21";
  EXPECT_NO_THROW(encode_gp_entry({(1ull << 40) - 4, (1u << 21) - 1, GpLevel::Main, false, false}))
      << "the largest address and length";
}

}  // namespace
