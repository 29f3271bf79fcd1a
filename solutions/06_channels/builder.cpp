// Part C: building pushbuffers for a compute launch.
#include <string>

#include "channels.h"

namespace launchlab::channels {

void PushbufferBuilder::methods(unsigned subchannel, std::uint32_t method, std::span<const std::uint32_t> data,
                                SecOp op) {
  if (op == SecOp::Immd) throw ChannelError("an IMMD header carries its value itself: use immediate()");
  if (data.size() > kMaxMethodCount) {
    throw ChannelError(std::to_string(data.size()) + " data words do not fit in one header (at most 8191)");
  }
  const std::uint32_t header =
      encode_method_header({op, subchannel, method, static_cast<std::uint32_t>(data.size())});
  words_.push_back(header);
  words_.insert(words_.end(), data.begin(), data.end());
}

void PushbufferBuilder::method(unsigned subchannel, std::uint32_t method, std::uint32_t data) {
  methods(subchannel, method, std::span<const std::uint32_t>(&data, 1));
}

void PushbufferBuilder::immediate(unsigned subchannel, std::uint32_t method, std::uint32_t value) {
  words_.push_back(encode_method_header({SecOp::Immd, subchannel, method, value}));
}

void PushbufferBuilder::bind_class(unsigned subchannel, std::uint32_t class_id) {
  if (class_id > 0xffff) throw ChannelError("a class number has 16 bits");
  method(subchannel, host_method::kSetObject, class_id);
}

void PushbufferBuilder::launch_inline(unsigned subchannel, std::span<const std::uint32_t> qmd,
                                      std::uint64_t qmd_address) {
  if (qmd.size() != 64 && qmd.size() != 96) {
    throw ChannelError("an inline QMD is 64 or 96 words, not " + std::to_string(qmd.size()));
  }
  if (qmd_address % 256 != 0) throw ChannelError("an inline QMD address must be a multiple of 256");
  const std::uint64_t shifted = qmd_address >> 8;
  std::uint32_t a = static_cast<std::uint32_t>(shifted >> 32);
  if (qmd.size() == 96) {
    // Hopper and Blackwell: QMD_ADDRESS_SHIFTED8_UPPER is bits 8:0, INLINE_SIZE bit 30.
    if (a >> 9 != 0) throw ChannelError("the QMD address does not fit in SET_INLINE_QMD_ADDRESS_A (8:0)");
    a |= compute_method::kInlineSize384;
  }
  std::vector<std::uint32_t> data;
  data.reserve(2 + qmd.size());
  data.push_back(a);
  data.push_back(static_cast<std::uint32_t>(shifted));
  data.insert(data.end(), qmd.begin(), qmd.end());
  methods(subchannel, compute_method::kSetInlineQmdAddressA, data);
}

void PushbufferBuilder::launch_by_address(unsigned subchannel, std::uint64_t qmd_address) {
  if (qmd_address % 256 != 0) throw ChannelError("a QMD address must be a multiple of 256");
  if ((qmd_address >> 8) >> 32 != 0) throw ChannelError("the QMD address does not fit in SEND_PCAS_A (40 bits)");
  method(subchannel, compute_method::kSendPcasA, static_cast<std::uint32_t>(qmd_address >> 8));
  method(subchannel, compute_method::kSendSignalingPcas2B, compute_method::kPcasActionInvalidateCopySchedule);
}

void PushbufferBuilder::release_semaphore(unsigned subchannel, std::uint64_t address, std::uint32_t payload) {
  if (address % 4 != 0) throw ChannelError("a 4-byte semaphore must be 4-byte aligned");
  if (address >> 40 != 0) throw ChannelError("a semaphore address must be below 2^40 (SEM_ADDR_HI is 8 bits)");
  const std::uint32_t data[] = {
      static_cast<std::uint32_t>(address),        // SEM_ADDR_LO (bits 1:0 ignored)
      static_cast<std::uint32_t>(address >> 32),  // SEM_ADDR_HI
      payload,                                    // SEM_PAYLOAD_LO
      0,                                          // SEM_PAYLOAD_HI
      host_method::kSemExecuteRelease | host_method::kSemExecuteReleaseWfi,  // SEM_EXECUTE, 32-bit payload
  };
  methods(subchannel, host_method::kSemAddrLo, data);
}

}  // namespace launchlab::channels
