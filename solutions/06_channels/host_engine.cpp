// Part C: the GPU's side of a channel. The host unit reads GPFIFO entries from
// GP_GET to GP_PUT, parses each pushbuffer segment and executes its methods;
// a compute launch decodes the QMD with chapter 07's decode() and runs the
// kernel over the grid.
#include <string>

#include <launchlab/bytes.h>

#include "channels.h"

namespace launchlab::channels {
namespace {

using bytes::hex;

std::string describe(const MethodCall& call) {
  const auto name = method_name(call.method);
  return "method " + hex(call.method) + (name ? " (" + *name + ")" : std::string()) + " on subchannel " +
         std::to_string(call.subchannel);
}

}  // namespace

void HostEngine::notify_channel_pending(std::uint32_t token) {
  auto it = channels_.find(token);
  if (it == channels_.end()) throw ChannelError("doorbell: no channel has work-submit token " + std::to_string(token));
  Channel& channel = *it->second.channel;
  ChannelState& state = it->second.state;
  const std::uint64_t userd = channel.userd_address();
  const std::uint32_t entries = static_cast<std::uint32_t>(channel.gpfifo_entries());

  const std::uint32_t put = memory_->read32(userd + kUserdGpPut);
  if (put >= entries) {
    throw ChannelError("GP_PUT is " + std::to_string(put) + ", outside a ring of " + std::to_string(entries) + " entries");
  }
  std::uint32_t get = memory_->read32(userd + kUserdGpGet);
  while (get != put) {
    try {
      const auto raw = memory_->read_words(channel.gpfifo_address() + static_cast<std::uint64_t>(get) * kGpEntrySize, 2);
      const GpEntry entry = decode_gp_entry(raw[0], raw[1]);
      if (entry.fetch_conditional) throw ChannelError("FETCH_CONDITIONAL needs subdevice masks, which the model lacks");
      if (entry.length == 0) {
        const std::uint32_t opcode = raw[1] & 0xff;
        if (opcode != kGpEntryOpcodeNop) throw ChannelError("control entry with OPCODE " + std::to_string(opcode) + " (only NOP is modelled)");
      } else {
        const auto words = memory_->read_words(entry.address, entry.length);
        for (const MethodGroup& group : parse_pushbuffer(words)) {
          for (const MethodCall& call : method_calls(group)) {
            try {
              execute(state, call);
            } catch (const std::exception& e) {
              throw ChannelError("pushbuffer word " + std::to_string(group.offset) + ", " + describe(call) + ": " +
                                 e.what());
            }
          }
        }
      }
    } catch (const std::exception& e) {
      throw ChannelError("GPFIFO entry " + std::to_string(get) + ": " + e.what());
    }
    get = (get + 1) % entries;
    memory_->write32(userd + kUserdGpGet, get);
  }
}

void HostEngine::execute(ChannelState& state, const MethodCall& call) {
  if (call.subchannel >= kSubchannels) throw ChannelError("subchannel " + std::to_string(call.subchannel) + " is above 7");
  const std::uint32_t m = call.method;

  // Host methods: below 0x100, whatever the subchannel.
  switch (m) {
    case host_method::kSetObject: {
      const std::uint32_t class_id = call.data & 0xffff;
      if (!qmd_version_of_class(class_id)) {
        throw ChannelError("SET_OBJECT of class " + hex(class_id) + ", which is not a compute class the model knows");
      }
      state.subchannel_class[call.subchannel] = class_id;
      return;
    }
    case host_method::kNop:
    case host_method::kWfi:  // the model runs every grid to the end before the next method
      return;
    case host_method::kNonStallInterrupt: ++state.non_stall_interrupts; return;
    case host_method::kSemAddrLo:
      state.semaphore_address = (state.semaphore_address & ~0xffffffffull) | (call.data & 0xfffffffcu);
      return;
    case host_method::kSemAddrHi:
      state.semaphore_address = (state.semaphore_address & 0xffffffffull) | static_cast<std::uint64_t>(call.data & 0xff) << 32;
      return;
    case host_method::kSemPayloadLo:
      state.semaphore_payload = (state.semaphore_payload & ~0xffffffffull) | call.data;
      return;
    case host_method::kSemPayloadHi:
      state.semaphore_payload = (state.semaphore_payload & 0xffffffffull) | static_cast<std::uint64_t>(call.data) << 32;
      return;
    case host_method::kSemExecute: {
      const std::uint32_t operation = call.data & 7;
      if (operation != host_method::kSemExecuteRelease) {
        throw ChannelError("SEM_EXECUTE operation " + std::to_string(operation) + " is not modelled (only RELEASE, 1)");
      }
      if (call.data & host_method::kSemExecutePayload64) {
        if (state.semaphore_address % 8 != 0) throw ChannelError("a 64-bit semaphore must be 8-byte aligned");
        memory_->write64(state.semaphore_address, state.semaphore_payload);
      } else {
        memory_->write32(state.semaphore_address, static_cast<std::uint32_t>(state.semaphore_payload));
      }
      return;
    }
    default: break;
  }
  if (m < 0x100) throw ChannelError("host method " + hex(m) + " is not modelled");

  // Everything else goes to the engine bound to the subchannel.
  const std::uint32_t class_id = state.subchannel_class[call.subchannel];
  if (class_id == 0) throw ChannelError("no class is bound to subchannel " + std::to_string(call.subchannel));
  const qmd::QmdVersion version = *qmd_version_of_class(class_id);
  const std::size_t words = qmd::qmd_words(version);

  if (m == compute_method::kNoOperation || m == compute_method::kWaitForIdle) return;
  if (m == compute_method::kSetInlineQmdAddressA) {
    std::uint64_t upper = call.data;
    std::size_t size = 64;
    if (version != qmd::QmdVersion::V03_00) {
      upper = call.data & 0x1ff;
      size = (call.data & compute_method::kInlineSize384) ? 96 : 64;
    }
    if (size != words) {
      throw ChannelError("an inline QMD of " + std::to_string(size) + " words for class " + hex(class_id) + ", whose " +
                         qmd::to_string(version) + " QMD is " + std::to_string(words) + " words");
    }
    state.inline_qmd_address = (state.inline_qmd_address & (0xffffffffull << 8)) | upper << 40;
    state.inline_qmd_words = size;
    state.inline_qmd.clear();
    return;
  }
  if (m == compute_method::kSetInlineQmdAddressB) {
    state.inline_qmd_address = (state.inline_qmd_address & ~(0xffffffffull << 8)) | static_cast<std::uint64_t>(call.data) << 8;
    state.inline_qmd.clear();
    return;
  }
  if (m >= compute_method::kLoadInlineQmdData && m < compute_method::kLoadInlineQmdData + 4 * words) {
    const std::size_t index = (m - compute_method::kLoadInlineQmdData) / 4;
    if (state.inline_qmd_words == 0) throw ChannelError("LOAD_INLINE_QMD_DATA before SET_INLINE_QMD_ADDRESS_A");
    if (index != state.inline_qmd.size()) {
      throw ChannelError("LOAD_INLINE_QMD_DATA(" + std::to_string(index) + ") arrived where word " +
                         std::to_string(state.inline_qmd.size()) + " was expected");
    }
    state.inline_qmd.push_back(call.data);
    if (state.inline_qmd.size() == state.inline_qmd_words) {
      const std::vector<std::uint32_t> qmd_words = std::move(state.inline_qmd);
      state.inline_qmd.clear();
      memory_->write_words(state.inline_qmd_address, qmd_words);  // the GPU keeps the QMD there
      run_grid(qmd::decode(qmd_words, version), state.inline_qmd_address, true);
    }
    return;
  }
  if (m == compute_method::kSendPcasA) {
    state.pcas_qmd_address = static_cast<std::uint64_t>(call.data) << 8;
    return;
  }
  if (m == compute_method::kSendSignalingPcas2B) {
    const std::uint32_t action = call.data & 0xf;
    if (action == 0) return;  // NOP
    if (action == 2 || action == 3 || action == 9 || action == 10) {
      const auto qmd_words = memory_->read_words(state.pcas_qmd_address, words);
      run_grid(qmd::decode(qmd_words, version), state.pcas_qmd_address, false);
      return;
    }
    throw ChannelError("PCAS_ACTION " + std::to_string(action) + " is not modelled");
  }
  throw ChannelError("the model does not implement this method of class " + hex(class_id));
}

void HostEngine::run_grid(const qmd::Qmd& qmd, std::uint64_t qmd_address, bool inline_qmd) {
  auto kernel = kernels_.find(qmd.program_address);
  if (kernel == kernels_.end()) throw ChannelError("no kernel at program address " + hex(qmd.program_address));
  if (!qmd.cbank0.valid) throw ChannelError("constant bank 0 is not valid");
  const std::uint32_t extents[] = {qmd.grid[0], qmd.grid[1], qmd.grid[2], qmd.block[0], qmd.block[1], qmd.block[2]};
  bool empty = false;
  for (std::uint32_t extent : extents) empty = empty || extent == 0;
  std::uint64_t threads = 1;  // multiplied with a check, so that it cannot overflow
  for (std::uint32_t extent : extents) {
    if (empty) break;
    if (threads > kMaxModelThreads / extent) {
      throw ChannelError("a grid of " + std::to_string(qmd.grid[0]) + " x " + std::to_string(qmd.grid[1]) + " x " +
                         std::to_string(qmd.grid[2]) + " blocks of " + std::to_string(qmd.block[0]) + " x " +
                         std::to_string(qmd.block[1]) + " x " + std::to_string(qmd.block[2]) +
                         " threads is more than the model runs (2^26 threads)");
    }
    threads *= extent;
  }
  memory_->bytes(qmd.cbank0.address, qmd.cbank0.size);  // faults when the bank is not in memory

  ThreadContext ctx;
  ctx.grid_dim = qmd.grid;
  ctx.block_dim = qmd.block;
  ctx.cbank0 = qmd.cbank0;
  ctx.memory = memory_;
  for (std::uint32_t bz = 0; bz < qmd.grid[2]; ++bz) {
    for (std::uint32_t by = 0; by < qmd.grid[1]; ++by) {
      for (std::uint32_t bx = 0; bx < qmd.grid[0]; ++bx) {
        ctx.block_idx = {bx, by, bz};
        for (std::uint32_t tz = 0; tz < qmd.block[2]; ++tz) {
          for (std::uint32_t ty = 0; ty < qmd.block[1]; ++ty) {
            for (std::uint32_t tx = 0; tx < qmd.block[0]; ++tx) {
              ctx.thread_idx = {tx, ty, tz};
              kernel->second(ctx);
            }
          }
        }
      }
    }
  }
  if (qmd.release0.enable) memory_->write32(qmd.release0.address, static_cast<std::uint32_t>(qmd.release0.payload));
  launches_.push_back({qmd, qmd_address, inline_qmd});
}

}  // namespace launchlab::channels
