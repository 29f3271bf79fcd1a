#include "views.h"

#include <algorithm>
#include <stdexcept>

namespace launchlab::channels {
namespace {

using channel_tests::hex;
using channel_tests::method_text;

std::string sec_op_text(SecOp op) {
  switch (op) {
    case SecOp::Inc:
    case SecOp::NonInc:
    case SecOp::Immd:
    case SecOp::OneInc: return std::string(to_string(op));
  }
  return "SEC_OP " + std::to_string(static_cast<std::uint32_t>(op));
}

// The method each data word of a group goes to, by clc56f.h's SEC_OP rules.
std::uint32_t method_of_word(const MethodHeader& header, std::size_t index) {
  switch (header.sec_op) {
    case SecOp::Inc: return header.method + 4 * static_cast<std::uint32_t>(index);
    case SecOp::OneInc: return index == 0 ? header.method : header.method + 4;
    default: return header.method;
  }
}

}  // namespace

nlohmann::json record_value(SecOp op) { return sec_op_text(op); }

nlohmann::json record_value(GpLevel level) {
  switch (level) {
    case GpLevel::Main: return "MAIN";
    case GpLevel::Subroutine: return "SUBROUTINE";
  }
  return "LEVEL " + std::to_string(static_cast<std::uint32_t>(level));
}

nlohmann::json record_value(const MethodHeader& header) {
  return sec_op_text(header.sec_op) + ", subchannel " + std::to_string(header.subchannel) + ", " +
         method_text(header.method) + (header.sec_op == SecOp::Immd ? ", value " : ", count ") +
         (header.sec_op == SecOp::Immd ? hex(header.count) : std::to_string(header.count));
}

nlohmann::json record_value(const MethodCall& call) {
  return "subchannel " + std::to_string(call.subchannel) + ", " + method_text(call.method) + " = " + hex(call.data);
}

nlohmann::json record_value(const MethodGroup& group) {
  const MethodHeader& h = group.header;
  std::string text = "word " + std::to_string(group.offset) + ": " + sec_op_text(h.sec_op) + ", subchannel " +
                     std::to_string(h.subchannel) +
                     (h.sec_op == SecOp::Immd ? ", value " + hex(h.count) : ", count " + std::to_string(h.count));
  for (std::size_t i = 0; i < group.data.size(); ++i) {
    text += "\n  " + method_text(method_of_word(h, i)) + " = " + hex(group.data[i]);
  }
  return text;
}

nlohmann::json record_value(const GpEntry& entry) {
  return "address " + hex(entry.address) + ", length " + std::to_string(entry.length) + ", " +
         record_value(entry.level).get<std::string>() + (entry.sync_wait ? ", SYNC_WAIT" : "") +
         (entry.fetch_conditional ? ", FETCH_CONDITIONAL" : "");
}

}  // namespace launchlab::channels

namespace launchlab::channel_tests {
using namespace launchlab::channels;

namespace {

// clc56f.h, "dma method formats".
struct HeaderFields {
  std::uint32_t sec_op, count, subchannel, address;
  bool bit12;
};
HeaderFields fields_of(std::uint32_t word) {
  return {word >> 29, (word >> 16) & 0x1fff, (word >> 13) & 0x7, word & 0xfff, ((word >> 12) & 1) != 0};
}

bool is_method_header(std::uint32_t sec_op) { return sec_op == 1 || sec_op == 3 || sec_op == 4 || sec_op == 5; }

}  // namespace

std::string method_text(std::uint32_t method) {
  const auto name = method_name(method);
  return name ? *name + " (" + hex(method, 4) + ")" : hex(method, 4);
}

std::uint32_t header_word(std::uint32_t sec_op, unsigned subchannel, std::uint32_t method, std::uint32_t count) {
  if (sec_op > 7 || subchannel > 7 || method % 4 != 0 || method > 0x3ffc || count > 0x1fff) {
    throw std::invalid_argument("header_word: a value wider than its field (a problem of the test)");
  }
  return sec_op << 29 | count << 16 | subchannel << 13 | method >> 2;
}

std::string header_text(std::uint32_t word) {
  const HeaderFields f = fields_of(word);
  std::string text = hex(word, 8) + ": ";
  if (!is_method_header(f.sec_op)) return text + "SEC_OP " + std::to_string(f.sec_op) + ", no method header";
  text += record_value(MethodHeader{static_cast<SecOp>(f.sec_op), f.subchannel, f.address * 4, f.count})
              .get<std::string>();
  return f.bit12 ? text + ", and bit 12 (no field) set" : text;
}

std::vector<std::string> pushbuffer_text(std::span<const std::uint32_t> words) {
  std::vector<std::string> groups;
  std::size_t at = 0;
  while (at < words.size()) {
    const HeaderFields f = fields_of(words[at]);
    if (!is_method_header(f.sec_op)) {
      groups.push_back("word " + std::to_string(at) + ": " + header_text(words[at]) + "; the " +
                       std::to_string(words.size() - at - 1) + " words after it are not read");
      break;
    }
    MethodGroup group{at, MethodHeader{static_cast<SecOp>(f.sec_op), f.subchannel, f.address * 4, f.count}, {}};
    const bool immediate = group.header.sec_op == SecOp::Immd;
    const std::size_t wanted = immediate ? 0 : f.count;
    const std::size_t present = std::min(wanted, words.size() - at - 1);
    if (immediate) {
      group.data = {f.count};
    } else {
      const auto first = words.subspan(at + 1, present);
      group.data.assign(first.begin(), first.end());
    }
    std::string text = record_value(group).get<std::string>();
    std::string note = " (header " + hex(words[at], 8) + (f.bit12 ? ", bit 12 set" : "") + ")";
    if (present < wanted) note += ", but only " + std::to_string(present) + " data words follow";
    text.insert(std::min(text.find('\n'), text.size()), note);
    groups.push_back(text);
    at += 1 + wanted;
  }
  return groups;
}

std::string gp_entry_text(std::uint32_t entry0, std::uint32_t entry1) {
  // clc56f.h: ENTRY0 FETCH 0:0, GET 31:2; ENTRY1 GET_HI 7:0, LEVEL 9:9, LENGTH 30:10, SYNC 31:31.
  GpEntry e;
  e.fetch_conditional = (entry0 & 1) != 0;
  e.address = (static_cast<std::uint64_t>(entry1 & 0xff) << 32) | (entry0 & ~3u);
  e.level = ((entry1 >> 9) & 1) != 0 ? GpLevel::Subroutine : GpLevel::Main;
  e.length = (entry1 >> 10) & 0x1fffff;
  e.sync_wait = (entry1 >> 31) != 0;
  std::string text = "ENTRY0 " + hex(entry0, 8) + ", ENTRY1 " + hex(entry1, 8) + ": " +
                     record_value(e).get<std::string>();
  if (entry0 & 2) text += ", and ENTRY0 bit 1 (no field) set";
  if (entry1 & 0x100) text += ", and ENTRY1 bit 8 (no field) set";
  return text;
}

std::string words_text(std::span<const std::uint32_t> words) {
  std::string text;
  for (std::uint32_t w : words) text += (text.empty() ? "" : ", ") + hex(w);
  return "{" + text + "}";
}

std::vector<std::string> hex_words(std::span<const std::uint32_t> words) {
  std::vector<std::string> out;
  for (std::uint32_t w : words) out.push_back(hex(w, 8));
  return out;
}

}  // namespace launchlab::channel_tests
