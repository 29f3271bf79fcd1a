// Part A: method headers and pushbuffer parsing, against the bit ranges of
// clc56f.h and the committed fixtures.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "channels.h"
#include "launchlab/testing.h"

namespace {
namespace lt = launchlab::testing;
using namespace launchlab::channels;

// clc56f.h, "dma method formats": each field's range, used to build expected words.
struct Range {
  unsigned hi, lo;
};
constexpr Range kAddress{11, 0};     // NVC56F_DMA_METHOD_ADDRESS: method / 4
constexpr Range kSubchannel{15, 13};  // NVC56F_DMA_METHOD_SUBCHANNEL
constexpr Range kCount{28, 16};       // NVC56F_DMA_METHOD_COUNT, NVC56F_DMA_IMMD_DATA
constexpr Range kSecOp{31, 29};       // NVC56F_DMA_SEC_OP

std::uint32_t put(Range r, std::uint32_t value) {
  const std::uint32_t width = r.hi - r.lo + 1;
  EXPECT_LT(value, 1u << width) << "test bug: value too wide";
  return value << r.lo;
}

std::uint32_t header_word(std::uint32_t sec_op, unsigned subchannel, std::uint32_t method, std::uint32_t count) {
  return put(kSecOp, sec_op) | put(kCount, count) | put(kSubchannel, subchannel) | put(kAddress, method / 4);
}

std::string hex(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

std::string describe(const MethodHeader& h) {
  return std::string(to_string(h.sec_op)) + " subchannel " + std::to_string(h.subchannel) + " method " +
         std::to_string(h.method) + " count " + std::to_string(h.count);
}

std::vector<std::uint32_t> fixture(const std::string& name) {
  return launchlab::qmd::words_from_bytes(lt::read_file(lt::test_data("06_channels/fixtures/" + name)));
}

TEST(Method, SendPcasAOnSubchannelOneIs0x200120AD) {
  EXPECT_EQ(hex(encode_method_header({SecOp::Inc, 1, 0x2b4, 1})), hex(0x200120AD))
      << "SEND_PCAS_A (0x2b4), subchannel 1, INC, one data word";
  const MethodHeader h = decode_method_header(0x200120AD);
  EXPECT_EQ(describe(h), describe({SecOp::Inc, 1, 0x2b4, 1})) << "decode of 0x200120AD";
}

TEST(Method, FieldsSitAtTheHeadersBits) {
  const SecOp ops[] = {SecOp::Inc, SecOp::NonInc, SecOp::Immd, SecOp::OneInc};
  for (SecOp op : ops) {
    for (unsigned sub = 0; sub < 8; ++sub) {
      for (std::uint32_t method : {0u, 4u, 0x2b4u, 0x318u, 0x1000u, 0x3ffcu}) {
        for (std::uint32_t count : {0u, 1u, 98u, 0x1555u, 0x1fffu}) {
          const MethodHeader h{op, sub, method, count};
          const std::uint32_t expected = header_word(static_cast<std::uint32_t>(op), sub, method, count);
          ASSERT_EQ(hex(encode_method_header(h)), hex(expected)) << describe(h);
          ASSERT_EQ(describe(decode_method_header(expected)), describe(h)) << "decode of " << hex(expected);
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
    EXPECT_EQ(hex(encode_method_header(decode_method_header(word))), hex(word));
  }
}

TEST(Method, UnknownSecOpsAreRejected) {
  for (std::uint32_t op : {0u, 2u, 6u, 7u}) {
    const std::uint32_t word = header_word(op, 1, 0x2b4, 1);
    EXPECT_THROW(decode_method_header(word), ChannelError) << "SEC_OP " << op << " in " << hex(word);
    EXPECT_THROW(encode_method_header({static_cast<SecOp>(op), 1, 0x2b4, 1}), ChannelError) << "SEC_OP " << op;
  }
  EXPECT_THROW(decode_method_header(0), ChannelError) << "0x00000000 (SEC_OP 0)";
}

TEST(Method, ValuesOutsideTheFieldsAreRejected) {
  EXPECT_THROW(encode_method_header({SecOp::Inc, 8, 0x2b4, 1}), ChannelError) << "subchannel 8";
  EXPECT_THROW(encode_method_header({SecOp::Inc, 1, 0x2b5, 1}), ChannelError) << "method 0x2b5, not a multiple of 4";
  EXPECT_THROW(encode_method_header({SecOp::Inc, 1, 0x4000, 1}), ChannelError) << "method 0x4000, above 0x3ffc";
  EXPECT_THROW(encode_method_header({SecOp::NonInc, 1, 8, 0x2000}), ChannelError) << "count 0x2000, above 13 bits";
  EXPECT_THROW(encode_method_header({SecOp::Immd, 1, 0x2c0, 0x2000}), ChannelError) << "immediate 0x2000";
  EXPECT_NO_THROW(encode_method_header({SecOp::Immd, 7, 0x3ffc, 0x1fff})) << "the largest of every field";
  EXPECT_NO_THROW(encode_method_header({SecOp::Inc, 0, 0, 0})) << "all zero but SEC_OP";
}

TEST(Pushbuffer, GroupsAndCallsOfEachSecOp) {
  const std::vector<std::uint32_t> words = {
      header_word(1, 1, 0x318, 3), 10, 11, 12,  // INC: 0x318, 0x31c, 0x320
      header_word(3, 0, 0x008, 3), 0, 0, 0,     // NON_INC: three NOPs
      header_word(5, 2, 0x320, 3), 20, 21, 22,  // ONE_INC: 0x320, 0x324, 0x324
      header_word(4, 1, 0x2c0, 3),              // IMMD: SEND_SIGNALING_PCAS2_B = 3
  };
  const auto groups = parse_pushbuffer(words);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_TRUE(lt::SameSequence(std::vector<std::size_t>{0, 4, 8, 12},
                               std::vector<std::size_t>{groups[0].offset, groups[1].offset, groups[2].offset,
                                                        groups[3].offset}))
      << "the word index of each header";
  EXPECT_TRUE(lt::SameSequence(std::vector<std::uint32_t>{10, 11, 12}, groups[0].data));
  EXPECT_TRUE(lt::SameSequence(std::vector<std::uint32_t>{3}, groups[3].data)) << "IMMD: the value in the header";
  EXPECT_EQ(groups[3].header.sec_op, SecOp::Immd);

  std::vector<std::string> calls;
  for (const auto& g : groups) {
    for (const auto& c : method_calls(g)) {
      calls.push_back(std::to_string(c.subchannel) + ":" + hex(c.method) + "=" + std::to_string(c.data));
    }
  }
  const std::vector<std::string> expected = {
      "1:" + hex(0x318) + "=10", "1:" + hex(0x31c) + "=11", "1:" + hex(0x320) + "=12",
      "0:" + hex(0x008) + "=0",  "0:" + hex(0x008) + "=0",  "0:" + hex(0x008) + "=0",
      "2:" + hex(0x320) + "=20", "2:" + hex(0x324) + "=21", "2:" + hex(0x324) + "=22",
      "1:" + hex(0x2c0) + "=3",
  };
  EXPECT_TRUE(lt::SameSequence(expected, calls)) << "subchannel:method=data of every call, in order";
}

TEST(Pushbuffer, CountsOfZeroAndOfTheMaximum) {
  std::vector<std::uint32_t> words = {header_word(1, 1, 0x2b4, 0)};  // INC with no data
  words.push_back(header_word(3, 0, 0x008, 0x1fff));                 // 8191 NOPs
  for (std::uint32_t i = 0; i < 0x1fff; ++i) words.push_back(i);
  words.push_back(header_word(1, 1, 0x3ffc, 1));  // the last method, once
  words.push_back(7);
  const auto groups = parse_pushbuffer(words);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_TRUE(groups[0].data.empty()) << "COUNT 0: a header without data";
  EXPECT_TRUE(method_calls(groups[0]).empty()) << "COUNT 0: no method call";
  EXPECT_EQ(groups[1].offset, 1u);
  EXPECT_EQ(groups[1].data.size(), 0x1fffu);
  EXPECT_EQ(groups[1].data.back(), 0x1ffeu);
  EXPECT_EQ(method_calls(groups[1]).size(), 0x1fffu);
  EXPECT_EQ(groups[2].offset, 2u + 0x1fff);
  EXPECT_EQ(groups[2].header.method, 0x3ffcu);
  EXPECT_TRUE(parse_pushbuffer(std::vector<std::uint32_t>{}).empty()) << "an empty segment";
}

TEST(Pushbuffer, MalformedStreamsAreRejected) {
  auto rejects = [](const std::vector<std::uint32_t>& words, std::size_t bad_header, const char* why) {
    try {
      parse_pushbuffer(words);
      ADD_FAILURE() << why << ": no ChannelError";
    } catch (const ChannelError& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(bad_header)), std::string::npos)
          << why << ": the message should name word " << bad_header << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << why << ": threw something other than ChannelError: " << e.what();
    }
  };
  rejects({header_word(1, 1, 0x2b4, 1), 5, header_word(1, 1, 0x318, 5), 1, 2, 3, 4}, 2,
          "the words end one short of COUNT");
  rejects({header_word(1, 1, 0x2b4, 1), 5, header_word(1, 1, 0x2b4, 1), 6, 0xe0000000u}, 4, "SEC_OP 7 (END_PB_SEGMENT)");
  rejects({header_word(3, 0, 8, 0), header_word(3, 0, 8, 0), header_word(3, 0, 8, 0), 0x40000000u}, 3, "SEC_OP 2");
  rejects({header_word(1, 1, 0x3ff8, 3), 1, 2, 3}, 0, "INC from 0x3ff8 for 3 words reaches 0x4000");
  rejects({header_word(5, 1, 0x3ffc, 2), 1, 2}, 0, "ONE_INC from 0x3ffc for 2 words reaches 0x4000");
  rejects({header_word(1, 1, 0x2b4, 0x1fff)}, 0, "COUNT 8191 and nothing after");
  EXPECT_NO_THROW(parse_pushbuffer(std::vector<std::uint32_t>{header_word(5, 1, 0x3ffc, 1), 1}))
      << "ONE_INC of one word at the last method";
  EXPECT_NO_THROW(parse_pushbuffer(std::vector<std::uint32_t>{header_word(3, 1, 0x3ffc, 3), 1, 2, 3}))
      << "NON_INC stays at its method";
}

TEST(Pushbuffer, InspectOutputOfTheFixtures) {
  // fixtures/make_fixtures.py wrote each pushbuffer and what `launchlab
  // inspect pushbuf` prints for it.
  for (const std::string name : {"launch_inline_v04", "launch_pcas_v03"}) {
    const auto words = fixture(name + ".pushbuf");
    std::vector<MethodGroup> groups;
    try {
      groups = parse_pushbuffer(words);
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << ": parse_pushbuffer threw " << e.what();
      continue;
    }
    EXPECT_EQ(to_json(groups), lt::read_file(lt::test_data("06_channels/fixtures/" + name + ".json"))) << name;
  }
  EXPECT_EQ(to_text(parse_pushbuffer(fixture("launch_pcas_v03.pushbuf"))),
            lt::read_file(lt::test_data("06_channels/fixtures/launch_pcas_v03.txt")));
}

}  // namespace
