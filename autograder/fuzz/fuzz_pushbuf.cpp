// libFuzzer target: the pushbuffer parser, method headers and GPFIFO entries
// (06_channels) on arbitrary words. Bad input must throw ChannelError; a
// stream that parses must re-encode to the same words (bit 12 of a header,
// which no field holds, aside), and every entry must round-trip.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "channels.h"

using namespace launchlab::channels;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint32_t> words(size / 4);
  if (!words.empty()) std::memcpy(words.data(), data, words.size() * 4);

  for (std::size_t i = 0; i + 1 < words.size(); i += 2) {
    const GpEntry e = decode_gp_entry(words[i], words[i + 1]);
    const auto back = encode_gp_entry(e);  // every decoded entry is encodable
    if (back[0] != (words[i] & ~2u) || back[1] != (words[i + 1] & ~0x100u)) std::abort();
  }

  std::vector<MethodGroup> groups;
  try {
    groups = parse_pushbuffer(words);
  } catch (const ChannelError&) {
    return 0;
  }
  std::vector<std::uint32_t> rebuilt;
  for (const MethodGroup& g : groups) {
    if (g.offset != rebuilt.size()) std::abort();
    rebuilt.push_back(encode_method_header(g.header));
    if (g.header.sec_op != SecOp::Immd) {
      if (g.data.size() != g.header.count) std::abort();
      rebuilt.insert(rebuilt.end(), g.data.begin(), g.data.end());
    } else if (g.data.size() != 1 || g.data[0] != g.header.count) {
      std::abort();
    }
    const auto calls = method_calls(g);
    if (calls.size() != g.data.size()) std::abort();
    for (const MethodCall& c : calls) {
      if (c.method > kMaxMethod || c.subchannel != g.header.subchannel) std::abort();
    }
  }
  for (const MethodGroup& g : groups) words[g.offset] &= ~(1u << 12);
  if (rebuilt != words) std::abort();
  (void)to_json(groups);
  (void)to_text(groups);
  return 0;
}
