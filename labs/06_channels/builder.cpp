// Part C: building pushbuffers for a compute launch.
#include "channels.h"

namespace launchlab::channels {

void PushbufferBuilder::methods(unsigned subchannel, std::uint32_t method, std::span<const std::uint32_t> data,
                                SecOp op) {
  // TODO(student): refuse SecOp::Immd and more than kMaxMethodCount words;
  // append the header (encode_method_header) and the data to words_.
  (void)subchannel;
  (void)method;
  (void)data;
  (void)op;
}

void PushbufferBuilder::method(unsigned subchannel, std::uint32_t method, std::uint32_t data) {
  // TODO(student): an INC group of one word.
  (void)subchannel;
  (void)method;
  (void)data;
}

void PushbufferBuilder::immediate(unsigned subchannel, std::uint32_t method, std::uint32_t value) {
  // TODO(student): an IMMD header alone, the value in its COUNT bits.
  (void)subchannel;
  (void)method;
  (void)value;
}

void PushbufferBuilder::bind_class(unsigned subchannel, std::uint32_t class_id) {
  // TODO(student): SET_OBJECT (host_method::kSetObject) with the class number.
  (void)subchannel;
  (void)class_id;
}

void PushbufferBuilder::launch_inline(unsigned subchannel, std::span<const std::uint32_t> qmd,
                                      std::uint64_t qmd_address) {
  // TODO(student): one INC group from SET_INLINE_QMD_ADDRESS_A: A = (address
  // >> 8) >> 32 (plus kInlineSize384 for a 96-word QMD, whose A field is bits
  // 8:0 only), B = low 32 bits of address >> 8, then the QMD's words, which
  // land on LOAD_INLINE_QMD_DATA(0), (1), ... Refuse a QMD that is not 64 or
  // 96 words and an address that is not a multiple of 256.
  (void)subchannel;
  (void)qmd;
  (void)qmd_address;
}

void PushbufferBuilder::launch_by_address(unsigned subchannel, std::uint64_t qmd_address) {
  // TODO(student): SEND_PCAS_A = address >> 8, then SEND_SIGNALING_PCAS2_B =
  // kPcasActionInvalidateCopySchedule.
  (void)subchannel;
  (void)qmd_address;
}

void PushbufferBuilder::release_semaphore(unsigned subchannel, std::uint64_t address, std::uint32_t payload) {
  // TODO(student): one INC group from SEM_ADDR_LO: the address's low and high
  // words, the payload, 0, and SEM_EXECUTE with RELEASE and RELEASE_WFI_EN.
  (void)subchannel;
  (void)address;
  (void)payload;
}

}  // namespace launchlab::channels
