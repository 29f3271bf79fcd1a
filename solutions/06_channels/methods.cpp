// Part A: method headers and the pushbuffer stream.
#include <string>

#include <launchlab/bytes.h>

#include "channels.h"

namespace launchlab::channels {
namespace {

bool known(std::uint32_t sec_op) { return sec_op == 1 || sec_op == 3 || sec_op == 4 || sec_op == 5; }

// A method or a word in full: eight digits.
std::string hex(std::uint32_t value) { return bytes::hex(value, 8); }

const char* sec_op_name(std::uint32_t sec_op) {
  switch (sec_op) {
    case 0: return "GRP0_USE_TERT";
    case 2: return "GRP2_USE_TERT";
    case 6: return "RESERVED6";
    case 7: return "END_PB_SEGMENT";
  }
  return "?";
}

}  // namespace

std::uint32_t encode_method_header(const MethodHeader& h) {
  const auto op = static_cast<std::uint32_t>(h.sec_op);
  if (!known(op)) throw ChannelError("SEC_OP " + std::to_string(op) + " is not INC, NON_INC, IMMD or ONE_INC");
  if (h.subchannel >= kSubchannels) throw ChannelError("subchannel " + std::to_string(h.subchannel) + " is above 7");
  if (h.method % 4 != 0) throw ChannelError("method " + hex(h.method) + " is not a multiple of 4");
  if (h.method > kMaxMethod) throw ChannelError("method " + hex(h.method) + " is above " + hex(kMaxMethod));
  if (h.count > kMaxMethodCount) {
    throw ChannelError(std::string(h.sec_op == SecOp::Immd ? "immediate value " : "count ") + std::to_string(h.count) +
                       " does not fit in 13 bits");
  }
  return op << 29 | h.count << 16 | h.subchannel << 13 | h.method >> 2;
}

MethodHeader decode_method_header(std::uint32_t word) {
  const std::uint32_t op = word >> 29;
  if (!known(op)) {
    throw ChannelError("method header " + hex(word) + ": SEC_OP " + std::to_string(op) + " (" + sec_op_name(op) +
                       ") is not INC, NON_INC, IMMD or ONE_INC");
  }
  MethodHeader h;
  h.sec_op = static_cast<SecOp>(op);
  h.count = (word >> 16) & 0x1fff;
  h.subchannel = (word >> 13) & 7;
  h.method = (word & 0xfff) << 2;
  return h;
}

std::vector<MethodGroup> parse_pushbuffer(std::span<const std::uint32_t> words) {
  std::vector<MethodGroup> groups;
  std::size_t i = 0;
  while (i < words.size()) {
    MethodGroup group;
    group.offset = i;
    try {
      group.header = decode_method_header(words[i]);
    } catch (const ChannelError& e) {
      throw ChannelError("pushbuffer word " + std::to_string(i) + ": " + e.what());
    }
    ++i;
    const MethodHeader& h = group.header;
    if (h.sec_op == SecOp::Immd) {
      group.data.push_back(h.count);
    } else {
      if (h.count > words.size() - i) {
        throw ChannelError("pushbuffer word " + std::to_string(group.offset) + ": the header " + hex(words[group.offset]) +
                           " announces " + std::to_string(h.count) + " data words, but only " +
                           std::to_string(words.size() - i) + " follow");
      }
      // The last method an INC group reaches is method + 4 (count - 1); ONE_INC reaches method + 4.
      std::uint64_t last = h.method;
      if (h.sec_op == SecOp::Inc && h.count > 0) last += 4ull * (h.count - 1);
      if (h.sec_op == SecOp::OneInc && h.count > 1) last += 4;
      if (last > kMaxMethod) {
        throw ChannelError("pushbuffer word " + std::to_string(group.offset) + ": " + std::string(to_string(h.sec_op)) +
                           " of " + std::to_string(h.count) + " words from method " + hex(h.method) +
                           " runs past the last method " + hex(kMaxMethod));
      }
      group.data.assign(words.begin() + static_cast<std::ptrdiff_t>(i),
                        words.begin() + static_cast<std::ptrdiff_t>(i + h.count));
      i += h.count;
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

std::vector<MethodCall> method_calls(const MethodGroup& group) {
  std::vector<MethodCall> calls;
  calls.reserve(group.data.size());
  for (std::size_t k = 0; k < group.data.size(); ++k) {
    std::uint32_t method = group.header.method;
    switch (group.header.sec_op) {
      case SecOp::Inc: method += static_cast<std::uint32_t>(4 * k); break;
      case SecOp::OneInc: method += k == 0 ? 0 : 4; break;
      case SecOp::NonInc:
      case SecOp::Immd: break;
    }
    calls.push_back({group.header.subchannel, method, group.data[k]});
  }
  return calls;
}

}  // namespace launchlab::channels
