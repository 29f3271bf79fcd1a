// Part B: GPFIFO entries, and the driver's side of the ring: GP_PUT and the
// doorbell.
#include <string>

#include "channels.h"

namespace launchlab::channels {

std::array<std::uint32_t, 2> encode_gp_entry(const GpEntry& e) {
  if (e.address % 4 != 0) throw ChannelError("a pushbuffer segment address must be a multiple of 4");
  if (e.address >> 40 != 0) throw ChannelError("a pushbuffer segment address must be below 2^40 (GET_HI is 8 bits)");
  if (e.length >> 21 != 0) {
    throw ChannelError("a segment of " + std::to_string(e.length) + " words does not fit in LENGTH (21 bits)");
  }
  const std::uint32_t entry0 = static_cast<std::uint32_t>(e.address & 0xfffffffcu) | (e.fetch_conditional ? 1u : 0u);
  const std::uint32_t entry1 = static_cast<std::uint32_t>(e.address >> 32) |
                               static_cast<std::uint32_t>(e.level) << 9 | e.length << 10 |
                               (e.sync_wait ? 1u << 31 : 0u);
  return {entry0, entry1};
}

GpEntry decode_gp_entry(std::uint32_t entry0, std::uint32_t entry1) {
  GpEntry e;
  e.address = static_cast<std::uint64_t>(entry1 & 0xff) << 32 | (entry0 & 0xfffffffcu);
  e.fetch_conditional = (entry0 & 1) != 0;
  e.level = static_cast<GpLevel>((entry1 >> 9) & 1);
  e.length = (entry1 >> 10) & 0x1fffff;
  e.sync_wait = (entry1 >> 31) != 0;
  return e;
}

bool Channel::submit(const GpEntry& entry) {
  const std::array<std::uint32_t, 2> words = encode_gp_entry(entry);
  const std::uint32_t put = gp_put();
  const std::uint32_t get = gp_get();
  const std::uint32_t next = static_cast<std::uint32_t>((put + 1) % entries_);
  if (next == get) return false;  // full: one slot stays empty
  memory_->write_words(gpfifo_ + static_cast<std::uint64_t>(put) * kGpEntrySize, words);
  // The entry must be in memory before GP_PUT says so.
  memory_->write32(userd_ + kUserdGpPut, next);
  return true;
}

void Channel::ring_doorbell() { host_->usermode_write(kNotifyChannelPending, token_); }

}  // namespace launchlab::channels
