// Part A: method headers and the pushbuffer stream.
//
// clc56f.h, "dma method formats": ADDRESS 11:0 (the method's byte offset / 4),
// SUBCHANNEL 15:13, COUNT 28:16 (or IMMD_DATA for an immediate header),
// SEC_OP 31:29. Check yourself on SEND_PCAS_A (0x2b4), subchannel 1, one data
// word: 0x200120AD.
#include "channels.h"

namespace launchlab::channels {

std::uint32_t encode_method_header(const MethodHeader& header) {
  // TODO(student): refuse (ChannelError) what cannot be encoded: a sec_op that
  // is none of the four, a subchannel above 7, a method that is not a
  // multiple of 4 or above kMaxMethod, a count above kMaxMethodCount. Then
  // put each field at its bits.
  (void)header;
  return 0;
}

MethodHeader decode_method_header(std::uint32_t word) {
  // TODO(student): the inverse; SEC_OP values other than 1, 3, 4 and 5
  // (GRP0_USE_TERT, GRP2_USE_TERT, RESERVED6, END_PB_SEGMENT) throw
  // ChannelError naming the value.
  (void)word;
  return {};
}

std::vector<MethodGroup> parse_pushbuffer(std::span<const std::uint32_t> words) {
  // TODO(student): walk the words: a header, then its COUNT data words (none
  // for IMMD, whose value is in the header: put it in data). Throw
  // ChannelError naming the header's word index when a header is bad, when
  // fewer than COUNT words are left, or when an INC (or ONE_INC) group would
  // reach a method above kMaxMethod.
  (void)words;
  return {};
}

std::vector<MethodCall> method_calls(const MethodGroup& group) {
  // TODO(student): one call per data value. INC: method, method + 4, ...;
  // NON_INC and IMMD: always method; ONE_INC: method, then method + 4 for the rest.
  (void)group;
  return {};
}

}  // namespace launchlab::channels
