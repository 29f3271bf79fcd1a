// Given code: the model's GPU memory, and the plumbing of channels and the
// host engine (construction, attaching, the usermode register).
#include <string>

#include <launchlab/bytes.h>

#include "channels.h"

namespace launchlab::channels {

using bytes::hex;

std::uint64_t GpuMemory::allocate(std::size_t bytes, std::size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    throw ChannelError("allocation alignment " + std::to_string(alignment) + " is not a power of two");
  }
  if (bytes == 0) bytes = 1;
  if (bytes > (std::size_t{1} << 34)) throw ChannelError("allocation of " + std::to_string(bytes) + " bytes is too large");
  const std::uint64_t start = (next_ + alignment - 1) & ~static_cast<std::uint64_t>(alignment - 1);
  allocations_.emplace(start, std::vector<std::byte>(bytes));
  // Leave at least a page unmapped after each allocation: an access that runs
  // off the end faults instead of landing in the next one.
  next_ = start + bytes + 0x1000;
  return start;
}

const std::byte* GpuMemory::bytes(std::uint64_t address, std::size_t size) const {
  auto it = allocations_.upper_bound(address);
  if (it != allocations_.begin()) {
    --it;
    const std::uint64_t start = it->first;
    const std::uint64_t length = it->second.size();
    if (address - start <= length && size <= length - (address - start)) {
      return it->second.data() + (address - start);
    }
  }
  throw ChannelError("memory fault: " + std::to_string(size) + " bytes at " + hex(address) +
                     " are not inside one allocation");
}

std::byte* GpuMemory::bytes(std::uint64_t address, std::size_t size) {
  return const_cast<std::byte*>(static_cast<const GpuMemory&>(*this).bytes(address, size));
}

std::uint32_t GpuMemory::read32(std::uint64_t address) const { return load<std::uint32_t>(address); }
void GpuMemory::write32(std::uint64_t address, std::uint32_t value) { store(address, value); }
std::uint64_t GpuMemory::read64(std::uint64_t address) const { return load<std::uint64_t>(address); }
void GpuMemory::write64(std::uint64_t address, std::uint64_t value) { store(address, value); }

std::vector<std::uint32_t> GpuMemory::read_words(std::uint64_t address, std::size_t count) const {
  if (count > (std::size_t{1} << 32)) throw ChannelError("read of " + std::to_string(count) + " words is too large");
  std::vector<std::uint32_t> words(count);
  if (count != 0) std::memcpy(words.data(), bytes(address, count * 4), count * 4);
  return words;
}

void GpuMemory::write_words(std::uint64_t address, std::span<const std::uint32_t> words) {
  if (!words.empty()) std::memcpy(bytes(address, words.size() * 4), words.data(), words.size() * 4);
}

Channel::Channel(GpuMemory& memory, HostEngine& host, std::size_t gpfifo_entries, std::uint32_t work_submit_token)
    : memory_(&memory), host_(&host), entries_(gpfifo_entries), token_(work_submit_token) {
  if (gpfifo_entries < 2 || gpfifo_entries > (std::size_t{1} << 20)) {
    throw ChannelError("a GPFIFO ring needs 2 to 2^20 entries, not " + std::to_string(gpfifo_entries));
  }
  gpfifo_ = memory.allocate(gpfifo_entries * kGpEntrySize, 4096);
  userd_ = memory.allocate(kUserdSize, 4096);
  host.attach(*this);
}

std::uint32_t Channel::gp_put() const { return memory_->read32(userd_ + kUserdGpPut); }
std::uint32_t Channel::gp_get() const { return memory_->read32(userd_ + kUserdGpGet); }

bool Channel::submit_pushbuffer(std::span<const std::uint32_t> words, GpLevel level) {
  const std::uint64_t address = memory_->allocate(words.size() * 4, 4096);
  memory_->write_words(address, words);
  return submit(GpEntry{address, static_cast<std::uint32_t>(words.size()), level, false, false});
}

void HostEngine::register_kernel(std::uint64_t program_address, Kernel kernel) {
  kernels_[program_address] = std::move(kernel);
}

void HostEngine::attach(Channel& channel) {
  if (channels_.count(channel.token()) != 0) {
    throw ChannelError("a channel with work-submit token " + std::to_string(channel.token()) + " already exists");
  }
  channels_[channel.token()].channel = &channel;
}

void HostEngine::usermode_write(std::uint32_t offset, std::uint32_t value) {
  if (offset != kNotifyChannelPending) {
    throw ChannelError("the model's usermode region has no register at " + hex(offset) +
                       " (NOTIFY_CHANNEL_PENDING is " + hex(kNotifyChannelPending) + ")");
  }
  notify_channel_pending(value);
}

ChannelState& HostEngine::channel_state(std::uint32_t token) {
  auto it = channels_.find(token);
  if (it == channels_.end()) throw ChannelError("no channel has work-submit token " + std::to_string(token));
  return it->second.state;
}

}  // namespace launchlab::channels
