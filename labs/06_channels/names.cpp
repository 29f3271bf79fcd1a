// Given code: names of sec ops, classes and methods, and the text and JSON of
// `launchlab inspect pushbuf`.
#include <cstdio>
#include <string>

#include <launchlab/bytes.h>

#include "channels.h"

namespace launchlab::channels {
namespace {

using bytes::hex;

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string_view to_string(SecOp op) {
  switch (op) {
    case SecOp::Inc: return "INC";
    case SecOp::NonInc: return "NON_INC";
    case SecOp::Immd: return "IMMD";
    case SecOp::OneInc: return "ONE_INC";
  }
  return "?";
}

std::optional<qmd::QmdVersion> qmd_version_of_class(std::uint32_t class_id) {
  switch (class_id) {
    case compute_class::kAmpereA:
    case compute_class::kAmpereB:
    case compute_class::kAdaA: return qmd::QmdVersion::V03_00;
    case compute_class::kHopperA: return qmd::QmdVersion::V04_00;
    case compute_class::kBlackwellA:
    case compute_class::kBlackwellB: return qmd::QmdVersion::V05_00;
  }
  return std::nullopt;
}

std::optional<std::string> method_name(std::uint32_t method) {
  switch (method) {
    // clc56f.h, AMPERE_CHANNEL_GPFIFO_A
    case host_method::kSetObject: return "SET_OBJECT";
    case 0x0004: return "ILLEGAL";
    case host_method::kNop: return "NOP";
    case 0x0010: return "SEMAPHOREA";
    case 0x0014: return "SEMAPHOREB";
    case 0x0018: return "SEMAPHOREC";
    case 0x001c: return "SEMAPHORED";
    case host_method::kNonStallInterrupt: return "NON_STALL_INTERRUPT";
    case 0x0028: return "MEM_OP_A";
    case 0x002c: return "MEM_OP_B";
    case 0x0030: return "MEM_OP_C";
    case 0x0034: return "MEM_OP_D";
    case 0x0050: return "SET_REFERENCE";
    case host_method::kSemAddrLo: return "SEM_ADDR_LO";
    case host_method::kSemAddrHi: return "SEM_ADDR_HI";
    case host_method::kSemPayloadLo: return "SEM_PAYLOAD_LO";
    case host_method::kSemPayloadHi: return "SEM_PAYLOAD_HI";
    case host_method::kSemExecute: return "SEM_EXECUTE";
    case host_method::kWfi: return "WFI";
    // clc6c0.h, clcbc0.h, clcec0.h (the compute classes)
    case compute_method::kNoOperation: return "NO_OPERATION";
    case compute_method::kWaitForIdle: return "WAIT_FOR_IDLE";
    case 0x0288: return "SET_QMD_VERSION";
    case compute_method::kSendPcasA: return "SEND_PCAS_A";
    case 0x02b8: return "SEND_PCAS_B";
    case 0x02bc: return "SEND_SIGNALING_PCAS_B";
    case compute_method::kSendSignalingPcas2B: return "SEND_SIGNALING_PCAS2_B";
    case compute_method::kSetInlineQmdAddressA: return "SET_INLINE_QMD_ADDRESS_A";
    case compute_method::kSetInlineQmdAddressB: return "SET_INLINE_QMD_ADDRESS_B";
    default: break;
  }
  if (method >= compute_method::kLoadInlineQmdData && method < compute_method::kLoadInlineQmdData + 96 * 4 &&
      method % 4 == 0) {
    return "LOAD_INLINE_QMD_DATA(" + std::to_string((method - compute_method::kLoadInlineQmdData) / 4) + ")";
  }
  return std::nullopt;
}

std::string to_json(std::span<const MethodGroup> groups) {
  std::string out = "[";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const MethodGroup& group = groups[g];
    const auto name = method_name(group.header.method);
    out += g == 0 ? "\n  " : ",\n  ";
    out += "{\"sec_op\": " + json_string(to_string(group.header.sec_op)) +
           ", \"subchannel\": " + std::to_string(group.header.subchannel) +
           ", \"method\": " + std::to_string(group.header.method) +
           ", \"name\": " + (name ? json_string(*name) : std::string("null")) +
           ", \"count\": " + std::to_string(group.data.size()) + ", \"data\": [";
    for (std::size_t i = 0; i < group.data.size(); ++i) {
      if (i != 0) out += ", ";
      out += std::to_string(group.data[i]);
    }
    out += "]}";
  }
  out += groups.empty() ? "]\n" : "\n]\n";
  return out;
}

std::string to_text(std::span<const MethodGroup> groups) {
  std::string out;
  for (const MethodGroup& group : groups) {
    out += "[" + std::to_string(group.offset) + "] " + hex(encode_method_header(group.header), 8) + "  " +
           std::string(to_string(group.header.sec_op)) + " subchannel " + std::to_string(group.header.subchannel) +
           ", " + std::to_string(group.data.size()) + (group.data.size() == 1 ? " call\n" : " calls\n");
    for (const MethodCall& call : method_calls(group)) {
      const auto name = method_name(call.method);
      out += "      " + hex(call.method, 4) + " " + (name ? *name : std::string("?")) + " = " + hex(call.data) + "\n";
    }
  }
  return out;
}

}  // namespace launchlab::channels
