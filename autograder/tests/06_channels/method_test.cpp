// Part A: method headers and pushbuffer parsing, against the bit ranges of
// clc56f.h and the committed fixtures.
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
namespace lt = launchlab::testing;
using namespace launchlab::channels;
using launchlab::channel_tests::header_text;
using launchlab::channel_tests::header_word;
using launchlab::channel_tests::hex;
using launchlab::channel_tests::words_text;

std::vector<std::uint32_t> fixture(const std::string& name) {
  return launchlab::qmd::words_from_bytes(lt::read_file(lt::lab_material("06_channels/fixtures/" + name)));
}

// "encode_method_header({INC, subchannel 1, SEND_PCAS_A (0x02b4), count 1})".
std::string encode_call(const MethodHeader& h) {
  return "encode_method_header({" + record_value(h).get<std::string>() + "})";
}

// The word encode_method_header gives, as the tests decode it, or what it threw.
std::string encoded(const MethodHeader& h) {
  try {
    return header_text(encode_method_header(h));
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  }
}

// The header decode_method_header gives, or nothing when it threw.
std::optional<MethodHeader> decoded(std::uint32_t word) {
  try {
    return decode_method_header(word);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

TEST(Method, SendPcasAOnSubchannelOneIs0x200120AD) {
  const MethodHeader send_pcas_a{SecOp::Inc, 1, 0x2b4, 1};
  RECORD_EQ(encoded(send_pcas_a), header_text(0x200120AD)) << encode_call(send_pcas_a) << ": the word, decoded";
  RECORD_EQ(decoded(0x200120AD), send_pcas_a) << "decode_method_header(0x200120ad) (null if it threw)";
}

TEST(Method, FieldsSitAtTheHeadersBits) {
  const SecOp ops[] = {SecOp::Inc, SecOp::NonInc, SecOp::Immd, SecOp::OneInc};
  for (SecOp op : ops) {
    for (unsigned sub = 0; sub < 8; ++sub) {
      for (std::uint32_t method : {0u, 4u, 0x2b4u, 0x318u, 0x1000u, 0x3ffcu}) {
        for (std::uint32_t count : {0u, 1u, 98u, 0x1555u, 0x1fffu}) {
          const MethodHeader h{op, sub, method, count};
          const std::uint32_t word = header_word(static_cast<std::uint32_t>(op), sub, method, count);
          RECORD_EQ(encoded(h), header_text(word)) << encode_call(h) << ": the word, decoded";
          RECORD_EQ(decoded(word), h) << "decode_method_header(" << hex(word, 8) << ") (null if it threw)";
        }
      }
    }
  }
}

TEST(Method, DecodeThenEncodeGivesBackTheWord) {
  std::mt19937 rng(5);
  const std::uint32_t ops[] = {1, 3, 4, 5};
  for (int i = 0; i < 5000; ++i) {
    // Bit 12 belongs to no field of clc56f.h's method header: leave it clear.
    const std::uint32_t word = (rng() & 0x1fffefffu) | ops[i % 4] << 29;
    std::string again;
    try {
      again = header_text(encode_method_header(decode_method_header(word)));
    } catch (const std::exception& e) {
      again = std::string("threw: ") + e.what();
    }
    RECORD_EQ(again, header_text(word)) << "encode_method_header(decode_method_header(" << hex(word, 8) << "))";
  }
}

TEST(Method, UnknownSecOpsAreRejected) {
  for (std::uint32_t op : {0u, 2u, 6u, 7u}) {
    const std::uint32_t word = header_word(op, 1, 0x2b4, 1);
    RECORD_THROWS(decode_method_header(word), ChannelError)
        << "decode_method_header(" << hex(word, 8) << "), SEC_OP " << op;
    RECORD_THROWS(encode_method_header({static_cast<SecOp>(op), 1, 0x2b4, 1}), ChannelError)
        << "encode_method_header({SEC_OP " << op << ", subchannel 1, SEND_PCAS_A (0x02b4), count 1})";
  }
  RECORD_THROWS(decode_method_header(0), ChannelError) << "decode_method_header(0x00000000), SEC_OP 0";
  // Drawn words, every other one with an unknown SEC_OP: only code that
  // rejects exactly those and decodes the rest matches the solution.
  std::mt19937_64 random = lt::seeded_random(20260601);
  for (int row = 0; row < 8; ++row) {
    const std::uint32_t op = row % 2 == 0 ? std::array{0u, 2u, 6u, 7u}[random() % 4] : std::array{1u, 3u, 4u, 5u}[random() % 4];
    const std::uint32_t word = (op << 29) | static_cast<std::uint32_t>(random() & 0x1fff'ffff);
    RECORD_OUTCOME(decode_method_header(word), ChannelError) << "decode_method_header(" << hex(word, 8) << ")";
  }
}

TEST(Method, ValuesOutsideTheFieldsAreRejected) {
  RECORD_THROWS(encode_method_header({SecOp::Inc, 8, 0x2b4, 1}), ChannelError)
      << "encode_method_header({INC, subchannel 8, SEND_PCAS_A (0x02b4), count 1}): subchannel 8";
  RECORD_THROWS(encode_method_header({SecOp::Inc, 1, 0x2b5, 1}), ChannelError)
      << "encode_method_header({INC, subchannel 1, method 0x2b5, count 1}): not a multiple of 4";
  RECORD_THROWS(encode_method_header({SecOp::Inc, 1, 0x4000, 1}), ChannelError)
      << "encode_method_header({INC, subchannel 1, method 0x4000, count 1}): above 0x3ffc";
  RECORD_THROWS(encode_method_header({SecOp::NonInc, 1, 8, 0x2000}), ChannelError)
      << "encode_method_header({NON_INC, subchannel 1, NOP (0x0008), count 0x2000}): above 13 bits";
  RECORD_THROWS(encode_method_header({SecOp::Immd, 1, 0x2c0, 0x2000}), ChannelError)
      << "encode_method_header({IMMD, subchannel 1, SEND_SIGNALING_PCAS2_B (0x02c0), value 0x2000}): above 13 bits";
  RECORD_NO_THROW(encode_method_header({SecOp::Immd, 7, 0x3ffc, 0x1fff}))
      << "encode_method_header({IMMD, subchannel 7, method 0x3ffc, value 0x1fff}): the largest of every field";
  RECORD_NO_THROW(encode_method_header({SecOp::Inc, 0, 0, 0}))
      << "encode_method_header({INC, subchannel 0, SET_OBJECT (0x0000), count 0}): all zero but SEC_OP";
  // Drawn headers, every other one with one field just outside its bits:
  // only code that rejects exactly those and encodes the rest matches the solution.
  std::mt19937_64 random = lt::seeded_random(20260602);
  for (int row = 0; row < 8; ++row) {
    MethodHeader h{std::array{SecOp::Inc, SecOp::NonInc, SecOp::Immd, SecOp::OneInc}[random() % 4],
                   static_cast<unsigned>(random() % 8), static_cast<std::uint32_t>(random() % 0x1000) * 4,
                   static_cast<std::uint32_t>(random() % 0x2000)};
    if (row % 2 == 1) {
      switch (random() % 3) {
        case 0: h.subchannel = 8 + static_cast<unsigned>(random() % 8); break;
        case 1: h.method += 1 + static_cast<std::uint32_t>(random() % 3); break;
        default: h.count = 0x2000 + static_cast<std::uint32_t>(random() % 0x2000); break;
      }
    }
    RECORD_OUTCOME(encode_method_header(h), ChannelError) << encode_call(h);
  }
}

// What parse_pushbuffer gives, or no groups when it threw (recorded).
std::vector<MethodGroup> parsed(const std::vector<std::uint32_t>& words) {
  RECORD_NO_THROW(parse_pushbuffer(words)) << "parse_pushbuffer(" << words_text(words) << ")";
  try {
    return parse_pushbuffer(words);
  } catch (const std::exception&) {
    return {};
  }
}

TEST(Pushbuffer, GroupsAndCallsOfEachSecOp) {
  const std::vector<std::uint32_t> words = {
      header_word(1, 1, 0x318, 3), 10, 11, 12,  // INC: 0x318, 0x31c, 0x320
      header_word(3, 0, 0x008, 3), 0, 0, 0,     // NON_INC: three NOPs
      header_word(5, 2, 0x320, 3), 20, 21, 22,  // ONE_INC: 0x320, 0x324, 0x324
      header_word(4, 1, 0x2c0, 3),              // IMMD: SEND_SIGNALING_PCAS2_B = 3
  };
  RECORD_SCOPE("parse_pushbuffer(" + words_text(words) + ")");
  const auto groups = parsed(words);
  RECORD_EQ(groups, std::vector<MethodGroup>{
                        {0, {SecOp::Inc, 1, 0x318, 3}, {10, 11, 12}},
                        {4, {SecOp::NonInc, 0, 0x008, 3}, {0, 0, 0}},
                        {8, {SecOp::OneInc, 2, 0x320, 3}, {20, 21, 22}},
                        {12, {SecOp::Immd, 1, 0x2c0, 3}, {3}},
                    })
      << "the groups ([i] is group i; an IMMD group's data is the value in its header)";

  std::vector<MethodCall> calls;
  for (const auto& g : groups) {
    for (const auto& c : method_calls(g)) calls.push_back(c);
  }
  RECORD_EQ(calls, std::vector<MethodCall>{
                       {1, 0x318, 10}, {1, 0x31c, 11}, {1, 0x320, 12},
                       {0, 0x008, 0},  {0, 0x008, 0},  {0, 0x008, 0},
                       {2, 0x320, 20}, {2, 0x324, 21}, {2, 0x324, 22},
                       {1, 0x2c0, 3},
                   })
      << "method_calls of every group, in order";
}

TEST(Pushbuffer, CountsOfZeroAndOfTheMaximum) {
  std::vector<std::uint32_t> words = {header_word(1, 1, 0x2b4, 0)};  // INC with no data
  words.push_back(header_word(3, 0, 0x008, 0x1fff));                 // 8191 NOPs
  for (std::uint32_t i = 0; i < 0x1fff; ++i) words.push_back(i);
  words.push_back(header_word(1, 1, 0x3ffc, 1));  // the last method, once
  words.push_back(7);
  RECORD_SCOPE("parse_pushbuffer of {INC SEND_PCAS_A with count 0; NON_INC NOP with count 8191 and the data words 0 "
               "to 8190; INC method 0x3ffc with count 1, data 7}");
  const auto groups = parsed(words);
  RECORD_EQ(groups.size(), 3u) << "the number of groups";
  RECORD_REQUIRE(groups.size() == 3);
  RECORD_EQ(groups[0], MethodGroup{0, {SecOp::Inc, 1, 0x2b4, 0}, {}}) << "group 0: COUNT 0, a header without data";
  RECORD_EQ(method_calls(groups[0]).size(), 0u) << "method_calls of group 0: COUNT 0 makes no method call";
  RECORD_EQ(groups[1].offset, 1u) << "group 1: the word index of its header";
  RECORD_EQ(groups[1].header, MethodHeader{SecOp::NonInc, 0, 0x008, 0x1fff}) << "group 1: its header";
  RECORD_EQ(groups[1].data.size(), 0x1fffu) << "group 1: the number of data words";
  RECORD_EQ(groups[1].data.empty() ? std::optional<std::uint32_t>() : groups[1].data.back(), 0x1ffeu)
      << "group 1: its last data word";
  RECORD_EQ(method_calls(groups[1]).size(), 0x1fffu) << "method_calls of group 1: how many";
  RECORD_EQ(groups[2], MethodGroup{2 + 0x1fff, {SecOp::Inc, 1, 0x3ffc, 1}, {7}}) << "group 2: the last method";
  RECORD_EQ(parse_pushbuffer(std::vector<std::uint32_t>{}).size(), 0u) << "parse_pushbuffer({}): an empty segment";
}

TEST(Pushbuffer, MalformedStreamsAreRejected) {
  auto rejects = [](const std::vector<std::uint32_t>& words, std::size_t bad_header, const char* why) {
    RECORD_SCOPE("parse_pushbuffer(" + words_text(words) + "): " + why);
    RECORD_THROWS(parse_pushbuffer(words), ChannelError);
    std::string message;
    try {
      parse_pushbuffer(words);
    } catch (const std::exception& e) {
      message = e.what();
    }
    RECORD_CONTAINS(message, std::to_string(bad_header)) << "the message names the word index of the bad header";
  };
  rejects({header_word(1, 1, 0x2b4, 1), 5, header_word(1, 1, 0x318, 5), 1, 2, 3, 4}, 2,
          "the words end one short of COUNT");
  rejects({header_word(1, 1, 0x2b4, 1), 5, header_word(1, 1, 0x2b4, 1), 6, 0xe0000000u}, 4, "SEC_OP 7 (END_PB_SEGMENT)");
  rejects({header_word(3, 0, 8, 0), header_word(3, 0, 8, 0), header_word(3, 0, 8, 0), 0x40000000u}, 3, "SEC_OP 2");
  rejects({header_word(1, 1, 0x3ff8, 3), 1, 2, 3}, 0, "INC from 0x3ff8 for 3 words reaches 0x4000");
  rejects({header_word(5, 1, 0x3ffc, 2), 1, 2}, 0, "ONE_INC from 0x3ffc for 2 words reaches 0x4000");
  rejects({header_word(1, 1, 0x2b4, 0x1fff)}, 0, "COUNT 8191 and nothing after");
  const std::vector<std::uint32_t> one_inc_at_the_end = {header_word(5, 1, 0x3ffc, 1), 1};
  RECORD_NO_THROW(parse_pushbuffer(one_inc_at_the_end))
      << "parse_pushbuffer(" << words_text(one_inc_at_the_end) << "): ONE_INC of one word at the last method";
  const std::vector<std::uint32_t> non_inc_at_the_end = {header_word(3, 1, 0x3ffc, 3), 1, 2, 3};
  RECORD_NO_THROW(parse_pushbuffer(non_inc_at_the_end))
      << "parse_pushbuffer(" << words_text(non_inc_at_the_end) << "): NON_INC stays at its method";
}

TEST(Pushbuffer, InspectOutputOfTheFixtures) {
  // fixtures/make_fixtures.py wrote each pushbuffer and what `launchlab
  // inspect pushbuf` prints for it.
  for (const std::string name : {"launch_inline_v04", "launch_pcas_v03"}) {
    RECORD_SCOPE("`launchlab inspect pushbuf " + name + ".pushbuf --json`: to_json of your parse_pushbuffer");
    const auto groups = parsed(fixture(name + ".pushbuf"));
    RECORD_EQ(to_json(groups), lt::read_file(lt::lab_material("06_channels/fixtures/" + name + ".json")));
  }
  RECORD_SCOPE("`launchlab inspect pushbuf launch_pcas_v03.pushbuf`: to_text of your parse_pushbuffer");
  std::string text;
  try {
    text = to_text(parse_pushbuffer(fixture("launch_pcas_v03.pushbuf")));
  } catch (const std::exception& e) {
    text = std::string("threw: ") + e.what();
  }
  RECORD_EQ(text, lt::read_file(lt::lab_material("06_channels/fixtures/launch_pcas_v03.txt")));
}

}  // namespace
