// Part B: GPFIFO entries, and the driver's side of the ring: GP_PUT and the
// doorbell.
//
// clc56f.h, "GPFIFO entry format": ENTRY0 GET 31:2 holds address bits 31:2
// (and FETCH is bit 0); ENTRY1 GET_HI 7:0 holds address bits 39:32, LEVEL is
// bit 9, LENGTH 30:10 (in words), SYNC bit 31. Check yourself: address
// 0x1000002000, 10 words, LEVEL_SUBROUTINE gives ENTRY0 0x2000, ENTRY1 0x2a10.
#include "channels.h"

namespace launchlab::channels {

std::array<std::uint32_t, 2> encode_gp_entry(const GpEntry& entry) {
  // TODO(student): refuse (ChannelError) an address that is not a multiple
  // of 4 or not below 2^40, and a length that needs more than 21 bits; then
  // build ENTRY0 and ENTRY1.
  (void)entry;
  return {0, 0};
}

GpEntry decode_gp_entry(std::uint32_t entry0, std::uint32_t entry1) {
  // TODO(student): the inverse.
  (void)entry0;
  (void)entry1;
  return {};
}

bool Channel::submit(const GpEntry& entry) {
  // TODO(student): encode the entry; read GP_PUT and GP_GET from USERD
  // (userd_ + kUserdGpPut, kUserdGpGet); if advancing GP_PUT by one (modulo
  // entries_) would make it equal GP_GET, the ring is full: return false.
  // Otherwise write the two words at gpfifo_ + 8 * GP_PUT, and only then the
  // new GP_PUT into USERD.
  (void)entry;
  return false;
}

void Channel::ring_doorbell() {
  // TODO(student): write token_ to the usermode region at
  // kNotifyChannelPending, through host_->usermode_write.
}

}  // namespace launchlab::channels
